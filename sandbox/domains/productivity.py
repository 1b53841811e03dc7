"""D1 Work, Study & Productivity: calendar and meetings, tasks and reminders, alarms, notes, the daily agenda."""

from __future__ import annotations

import datetime as dt
import functools
import json
import random
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, Field
from sqlalchemy import (
    Column,
    Connection,
    ForeignKey,
    Integer,
    Select,
    Table,
    Text,
    bindparam,
    func,
    insert,
    or_,
    select,
    update,
)

from sandbox.domains.communication import contacts
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, row_by_key, rows, word_values, words_match
from sandbox.personas import Persona, seeder
from sandbox.schema import USER, WORLD, stamps, table
from sandbox.tooling import Date, DateTime, Time, tool

calendar_events = table(
    "calendar_events",
    USER,
    Column("event_id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("start", Text, nullable=False),
    Column("end", Text, nullable=False),  # YYYY-MM-DDTHH:MM
    Column("location", Text),
    Column("description", Text),
    Column("calendar", Text, nullable=False),  # personal | work | family
    Column("reminder_min", Integer),
    Column("status", Text, nullable=False),  # confirmed | tentative | cancelled
    Column("is_organizer", Integer, nullable=False),
    Column("organizer", Text),  # contact id of whoever sent the invitation; NULL when the user organises
    Column("my_response", Text),  # invitations only: needs_action | accepted | tentative | declined
    *stamps(),
    natural_key=("title", "start"),
)

event_attendees = table(
    "event_attendees",
    USER,
    Column("event_id", Text, ForeignKey("calendar_events.event_id"), primary_key=True),
    Column("contact_id", Text, primary_key=True),
    Column("response", Text, nullable=False),  # needs_action | accepted | declined
    *stamps(),
    natural_key=("event_id", "contact_id"),
)

world_busy_slots = table(
    "world_busy_slots",
    WORLD,
    Column("slot_id", Integer, primary_key=True),
    Column("person_key", Text, nullable=False),  # a contact id
    Column("start", Text, nullable=False),
    Column("end", Text, nullable=False),
)

tasks = table(
    "tasks",
    USER,
    Column("task_id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("list_name", Text, nullable=False),
    Column("due", Text),  # YYYY-MM-DD or YYYY-MM-DDTHH:MM
    Column("priority", Text, nullable=False),  # low | medium | high
    Column("status", Text, nullable=False),  # open | completed
    Column("notes", Text),
    Column("remind_at", Text),  # set for reminders
    Column("completed_at", Text),
    *stamps(),
    natural_key=("list_name", "title"),
)

alarms = table(
    "alarms",
    USER,
    Column("alarm_id", Text, primary_key=True),
    Column("time", Text, nullable=False),  # HH:MM
    Column("label", Text),
    Column("days_json", Text, nullable=False),  # weekdays in week order; [] rings once
    Column("enabled", Integer, nullable=False),
    *stamps(),
    natural_key=("time", "days_json"),
)

notes = table(
    "notes",
    USER,
    Column("note_id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("content", Text, nullable=False),
    Column("folder", Text, nullable=False),
    *stamps(),
    natural_key=("folder", "title"),
)

DT_FMT = "%Y-%m-%dT%H:%M"
REMINDERS_LIST = "Reminders"
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
WEEKDAYS: tuple[str, ...] = get_args(Weekday)


# The shared validators accept loose forms ("9:05", "2025-6-1T9:00", "20250601"); these refinements store
# canonical strings, so that comparing dates and times as text stays sound.
def _due(value: str) -> str:
    """A due date or a due time."""
    if "T" in value:
        return dt.datetime.strptime(value, DT_FMT).strftime(DT_FMT)
    return dt.datetime.strptime(value, "%Y-%m-%d").date().isoformat()


Due = Annotated[str, AfterValidator(_due)]
Title = Annotated[str, Field(min_length=1, max_length=120)]
Body = Annotated[str, Field(min_length=1, max_length=10000)]
Query = Annotated[str, Field(min_length=1, max_length=200)]
Limit = Annotated[int, Field(ge=1, le=50)]
CalendarName = Literal["personal", "work", "family"]
Priority = Literal["low", "medium", "high"]
Days = Annotated[list[Weekday], Field(max_length=7)]
ContactIds = Annotated[list[Annotated[str, Field(min_length=1, max_length=64)]], Field(min_length=1, max_length=50)]


def _minute(ctx: Ctx) -> str:
    return ctx.now.strftime(DT_FMT)


def _words(columns: list[Column], query: str) -> list[Any]:
    """Every word of the query must appear (case-insensitively) in one of the columns."""
    return [or_(*(func.lower(c).contains(w, autoescape=True) for c in columns)) for w in query.lower().split()]


def _one_of(*names: str) -> Callable[[dict[str, Any]], str | None]:
    """A cross-field check: at least one of these arguments is given."""

    def check(args: dict[str, Any]) -> str | None:
        return None if any(args.get(n) is not None for n in names) else f"give at least one of {', '.join(names)}"

    check.__doc__ = f"Give at least one of {', '.join(names)}."
    return check


HINTS = {
    "event_id": "search_calendar_events",
    "task_id": "list_tasks",
    "alarm_id": "get_daily_agenda",
    "note_id": "search_notes",
}


def _get(ctx: Ctx, tbl: Table, value: str) -> dict[str, Any]:
    """The row with this id, or EntityNotFound naming the tool that lists such ids."""
    key = next(iter(tbl.primary_key.columns)).name
    row = ctx.conn.execute(row_by_key(tbl), {"key": value}).first()
    if row is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no {key.removesuffix('_id')} {value!r}", field=key, hint=HINTS[key]
        )
    return dict(row._mapping)


_CONTACT_IDS = select(contacts.c.contact_id).where(contacts.c.contact_id.in_(bindparam("ids", expanding=True)))


def _known_contacts(ctx: Ctx, ids: list[str]) -> list[str]:
    """The ids, sorted and deduplicated; EntityNotFound when any is not a contact."""
    people = sorted(set(ids))
    known = set(ctx.conn.execute(_CONTACT_IDS, {"ids": people}).scalars())
    missing = [p for p in people if p not in known]
    if missing:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no contact(s) {', '.join(missing)}", missing=missing, hint="search_contacts"
        )
    return people


@functools.cache
def _spellings(column: Column) -> Select[Any]:
    """The column's values that lower-case to the bound ``name``, in order (built once per column)."""
    return select(column).where(func.lower(column) == bindparam("name")).order_by(column)


def _canonical(ctx: Ctx, column: Column, name: str) -> str:
    """An existing list or folder's own spelling when the name matches it case-insensitively."""
    found = ctx.conn.execute(_spellings(column), {"name": name.lower()}).scalar()
    return found or name


# ---- Calendar helpers -------------------------------------------------------------------------

EVENT_KEYS = (
    "event_id",
    "title",
    "start",
    "end",
    "location",
    "calendar",
    "reminder_min",
    "status",
    "organizer",
    "my_response",
)


LIVE = calendar_events.c.status != "cancelled"  # events that still take place: confirmed or tentative


_OVERLAPPING = (
    select(calendar_events.c.event_id, calendar_events.c.title, calendar_events.c.start, calendar_events.c.end)
    .where(
        LIVE,
        calendar_events.c.start < bindparam("end"),
        calendar_events.c.end > bindparam("start"),
        calendar_events.c.event_id != bindparam("exclude"),
    )
    .order_by(calendar_events.c.start, calendar_events.c.event_id)
)


def _refuse_overlap(ctx: Ctx, start: str, end: str, exclude: str = "") -> None:
    """TimeConflict naming the live events that overlap [start, end)."""
    clashes = rows(ctx.conn.execute(_OVERLAPPING, {"start": start, "end": end, "exclude": exclude}))
    if clashes:
        raise ToolError(
            ErrorType.TIME_CONFLICT,
            f"overlaps {len(clashes)} event(s)",
            conflicts=clashes,
            hint="choose another time or pass allow_overlap=true",
        )


# ---- Meeting Scheduling (1.1) -----------------------------------------------------------------


def _slot_window(args: dict[str, Any]) -> str | None:
    """date_to is not before date_from and at most 13 days after it; latest is after earliest."""
    first, last = dt.date.fromisoformat(args["date_from"]), dt.date.fromisoformat(args["date_to"])
    if last < first:
        return "date_to is before date_from"
    if (last - first).days > 13:
        return "the date range may span at most 14 days"
    if args.get("earliest") and args.get("latest") and args["latest"] <= args["earliest"]:
        return "latest must be after earliest"
    return None


_BUSY_EVENTS = select(calendar_events.c.start, calendar_events.c.end).where(
    LIVE, calendar_events.c.start < bindparam("hi"), calendar_events.c.end > bindparam("lo")
)
_BUSY_SLOTS = select(world_busy_slots.c.start, world_busy_slots.c.end).where(
    world_busy_slots.c.person_key.in_(bindparam("people", expanding=True)),
    world_busy_slots.c.start < bindparam("hi"),
    world_busy_slots.c.end > bindparam("lo"),
)


@tool(
    l2="1.1",
    app="calendar",
    mutating=False,
    permissions=("CALENDAR",),
    check=_slot_window,
    errors=(ErrorType.ENTITY_NOT_FOUND,),
)
def find_free_slots(
    ctx: Ctx,
    date_from: Date,
    date_to: Date,
    duration_min: Annotated[int, Field(ge=15, le=480)],
    attendees: list[str] | None = None,
    working_hours_only: bool = True,
    earliest: Time | None = None,
    latest: Time | None = None,
    max_results: Annotated[int, Field(ge=1, le=20)] = 5,
) -> dict[str, Any]:
    """Find free time windows shared by the user and optional attendees, earliest first.

    Args:
        date_from: First day to search, YYYY-MM-DD.
        date_to: Last day to search (at most 14 days after date_from).
        duration_min: Minimum length of a free window in minutes.
        attendees: Contact ids whose busy times must also be avoided, e.g. ["contact_904"].
        working_hours_only: Only weekdays between 09:00 and 18:00 (unless earliest/latest say otherwise).
        earliest: Earliest start time of day, HH:MM.
        latest: Latest end time of day, HH:MM.
        max_results: Maximum number of windows to return.
    """
    people = _known_contacts(ctx, attendees or [])
    first, last = dt.date.fromisoformat(date_from), dt.date.fromisoformat(date_to)
    lo, hi = first.isoformat(), f"{last}T23:59"
    busy = ctx.conn.execute(_BUSY_EVENTS, {"hi": hi, "lo": lo}).all()
    busy += ctx.conn.execute(_BUSY_SLOTS, {"people": people, "hi": hi, "lo": lo}).all()  # type: ignore[operator]  # lists
    day_start = earliest or ("09:00" if working_hours_only else "00:00")
    day_end = latest or ("18:00" if working_hours_only else "23:59")
    now, need = _minute(ctx), dt.timedelta(minutes=duration_min)
    slots: list[dict[str, Any]] = []
    day = first
    while day <= last and len(slots) < max_results:
        if not (working_hours_only and day.weekday() >= 5):
            cursor, end = max(f"{day}T{day_start}", now), f"{day}T{day_end}"
            for s, f in [*sorted((s, f) for s, f in busy if s < end and f > cursor), (end, end)]:
                if s > cursor and dt.datetime.strptime(s, DT_FMT) - dt.datetime.strptime(cursor, DT_FMT) >= need:
                    slots.append({"start": cursor, "end": s})
                cursor = max(cursor, f)
        day += dt.timedelta(days=1)
    return {"free_slots": slots[:max_results], "attendees": people, "duration_min": duration_min}


_INVITED = select(event_attendees.c.contact_id).where(event_attendees.c.event_id == bindparam("event_id"))


@tool(
    l2="1.1",
    app="calendar",
    mutating=True,
    permissions=("CALENDAR",),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.DUPLICATE_ENTITY),
)
def send_meeting_invite(ctx: Ctx, event_id: str, attendees: ContactIds) -> dict[str, Any]:
    """Invite contacts to an existing calendar event.

    Args:
        event_id: Id of the event, e.g. event_912.
        attendees: Contact ids to invite, e.g. ["contact_904", "contact_905"].
    """
    event = _get(ctx, calendar_events, event_id)
    people = _known_contacts(ctx, attendees)
    if event["status"] == "cancelled":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{event_id} is cancelled")
    if event["end"] <= _minute(ctx):
        raise ToolError(ErrorType.STATE_CONFLICT, f"{event_id} has already ended")
    invited = set(ctx.conn.execute(_INVITED, {"event_id": event_id}).scalars())
    new = [p for p in people if p not in invited]
    if not new:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, "every attendee is already invited", existing_ids=people)
    ctx.conn.execute(
        insert(event_attendees),
        [
            {
                "event_id": event_id,
                "contact_id": p,
                "response": "needs_action",
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            }
            for p in new
        ],
    )
    return {"event_id": event_id, "invited": new, "skipped_already_invited": [p for p in people if p in invited]}


# The user's answer to an invitation, and the event status it leaves: a declined event no longer takes place.
RESPONSES = {
    "accept": ("accepted", "confirmed"),
    "tentative": ("tentative", "tentative"),
    "decline": ("declined", "cancelled"),
}

_SET_EVENT = update(calendar_events).where(calendar_events.c.event_id == bindparam("match_event_id"))


@tool(
    l2="1.1",
    app="calendar",
    mutating=True,
    permissions=("CALENDAR",),
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT),
)
def respond_to_invitation(
    ctx: Ctx,
    event_id: str,
    response: Literal["accept", "decline", "tentative"],
) -> dict[str, Any]:
    """Answer a meeting invitation someone else sent: accept, decline or tentatively accept it.

    Args:
        event_id: Id of the invitation's event, e.g. event_912 (its my_response shows the current answer).
        response: The answer; declining takes the event off the user's schedule.
    """
    event = _get(ctx, calendar_events, event_id)
    answer, status = RESPONSES[response]
    if event["is_organizer"]:
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"{event_id} is the user's own event, not an invitation",
            hint="update_calendar_event or delete_calendar_event",
        )
    if event["status"] == "cancelled" and event["my_response"] != "declined":
        raise ToolError(ErrorType.STATE_CONFLICT, f"the organiser cancelled {event_id}")
    if event["end"] <= _minute(ctx):
        raise ToolError(ErrorType.STATE_CONFLICT, f"{event_id} has already ended")
    if event["my_response"] == answer:
        raise ToolError(ErrorType.STATE_CONFLICT, f"the invitation to {event_id} is already {answer}", current=answer)
    ctx.conn.execute(
        _SET_EVENT, {"match_event_id": event_id, "my_response": answer, "status": status, "updated_at": ctx.ts()}
    )
    return {
        "event_id": event_id,
        "title": event["title"],
        "start": event["start"],
        "organizer": event["organizer"],
        "my_response": answer,
        "status": status,
        "previous": event["my_response"],
    }


# ---- Calendar & Tasks (1.2) -------------------------------------------------------------------


def _end_after_start(args: dict[str, Any]) -> str | None:
    """end is after start."""
    return None if args["end"] > args["start"] else "end must be after start"


_LIVE_STARTING = select(calendar_events.c.event_id, calendar_events.c.title).where(
    calendar_events.c.start == bindparam("start"), LIVE
)
_ADD_EVENT = insert(calendar_events)


@tool(
    l2="1.2",
    app="calendar",
    mutating=True,
    permissions=("CALENDAR",),
    check=_end_after_start,
    errors=(ErrorType.DUPLICATE_ENTITY, ErrorType.TIME_CONFLICT),
)
def create_calendar_event(
    ctx: Ctx,
    title: Title,
    start: DateTime,
    end: DateTime,
    location: str | None = None,
    description: str | None = None,
    calendar: CalendarName = "personal",
    reminder_min: Annotated[int, Field(ge=0, le=10080)] | None = None,
    allow_overlap: bool = False,
) -> dict[str, Any]:
    """Create a calendar event.

    Args:
        title: Title of the event.
        start: Start, YYYY-MM-DDTHH:MM.
        end: End, YYYY-MM-DDTHH:MM (after start).
        location: Where it takes place.
        description: Details.
        calendar: Which calendar to put it in.
        reminder_min: Minutes before the start to send a reminder.
        allow_overlap: Set true to create it even though it overlaps another event.
    """
    # Duplicates are checked before overlaps: a re-created event always overlaps its original.
    lowered = title.lower()
    for eid, other in ctx.conn.execute(_LIVE_STARTING, {"start": start}):
        if lowered in other.lower() or other.lower() in lowered:
            raise ToolError(ErrorType.DUPLICATE_ENTITY, f"{other!r} already starts then: {eid}", existing_id=eid)
    if not allow_overlap:
        _refuse_overlap(ctx, start, end)
    eid = ctx.new_id(calendar_events)
    ctx.conn.execute(
        _ADD_EVENT,
        {
            "event_id": eid,
            "title": title,
            "start": start,
            "end": end,
            "location": location,
            "description": description,
            "calendar": calendar,
            "reminder_min": reminder_min,
            "status": "confirmed",
            "is_organizer": 1,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"event_id": eid, "title": title, "start": start, "end": end, "calendar": calendar}


@tool(
    l2="1.2",
    app="calendar",
    mutating=False,
    permissions=("CALENDAR",),
    check=_one_of("query", "date_from", "date_to", "calendar"),
)
def search_calendar_events(
    ctx: Ctx,
    query: Query | None = None,
    date_from: Date | None = None,
    date_to: Date | None = None,
    calendar: CalendarName | None = None,
    limit: Limit = 20,
) -> dict[str, Any]:
    """Search calendar events (not cancelled ones) by text, date window or calendar, earliest first.

    Args:
        query: Words that must appear in the title, location or description (case-insensitive).
        date_from: Only events that end on or after this day, YYYY-MM-DD.
        date_to: Only events that start on or before this day, YYYY-MM-DD.
        calendar: Only events of this calendar.
        limit: Maximum number of results.
    """
    words = word_values(query or "")
    values: dict[str, Any] = {
        **words,
        "date_from": date_from or None,
        "date_to": f"{date_to}T23:59" if date_to else None,
        "calendar": calendar or None,
    }
    values = {k: v for k, v in values.items() if v is not None}
    q = _event_search(len(words), bool(date_from), bool(date_to), bool(calendar))
    found = rows(ctx.conn.execute(q, {**values, "limit": limit}))
    return {"events": [{k: ev[k] for k in EVENT_KEYS} for ev in found], "count": len(found)}


@functools.lru_cache(maxsize=256)
def _event_search(words: int, date_from: bool, date_to: bool, calendar: bool) -> Select[Any]:
    """search_calendar_events' statement for one combination of filters, built once (its values are bound)."""
    e = calendar_events.c
    q = select(calendar_events).where(LIVE, *words_match([e.title, e.location, e.description], words))
    if date_from:
        q = q.where(e.end > bindparam("date_from"))
    if date_to:
        q = q.where(e.start <= bindparam("date_to"))
    if calendar:
        q = q.where(e.calendar == bindparam("calendar"))
    return q.order_by(e.start, e.event_id).limit(bindparam("limit"))


def _event_change(args: dict[str, Any]) -> str | None:
    """Give at least one of title, start, end, location, description, calendar, reminder_min; end is after start
    when both are given."""
    if args.get("start") and args.get("end"):
        return _end_after_start(args)
    return _one_of("title", "start", "end", "location", "description", "calendar", "reminder_min")(args)


@tool(
    l2="1.2",
    app="calendar",
    mutating=True,
    permissions=("CALENDAR",),
    check=_event_change,
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.STATE_CONFLICT,
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.TIME_CONFLICT,
    ),
)
def update_calendar_event(
    ctx: Ctx,
    event_id: str,
    title: Title | None = None,
    start: DateTime | None = None,
    end: DateTime | None = None,
    location: str | None = None,
    description: str | None = None,
    calendar: CalendarName | None = None,
    reminder_min: Annotated[int, Field(ge=0, le=10080)] | None = None,
    allow_overlap: bool = False,
) -> dict[str, Any]:
    """Reschedule, rename, relocate or otherwise change an event.

    Args:
        event_id: Id of the event, e.g. event_912.
        title: New title.
        start: New start, YYYY-MM-DDTHH:MM; without a new end the event keeps its length.
        end: New end, YYYY-MM-DDTHH:MM.
        location: New location.
        description: New description.
        calendar: Move it to this calendar.
        reminder_min: New reminder, minutes before the start.
        allow_overlap: Set true to keep the new time even though it overlaps another event.
    """
    event = _get(ctx, calendar_events, event_id)
    if event["status"] == "cancelled":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{event_id} is cancelled")
    changes = {
        k: v
        for k, v in {
            "title": title,
            "location": location,
            "description": description,
            "calendar": calendar,
            "reminder_min": reminder_min,
        }.items()
        if v is not None
    }
    if start is not None or end is not None:
        length = dt.datetime.strptime(event["end"], DT_FMT) - dt.datetime.strptime(event["start"], DT_FMT)
        new_start = start or event["start"]
        new_end = end or (dt.datetime.strptime(new_start, DT_FMT) + length).strftime(DT_FMT)
        if new_end <= new_start:
            raise ToolError(
                ErrorType.INVALID_ARGUMENT_VALUE,
                f"the event would end ({new_end}) before it starts ({new_start})",
                field="end",
            )
        if not allow_overlap:
            _refuse_overlap(ctx, new_start, new_end, exclude=event_id)
        changes.update(start=new_start, end=new_end)
    ctx.conn.execute(_SET_EVENT, {"match_event_id": event_id, **changes, "updated_at": ctx.ts()})
    return {"event_id": event_id, "updated": sorted(changes), **changes}


@tool(
    l2="1.2",
    app="calendar",
    mutating=True,
    permissions=("CALENDAR",),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT),
)
def delete_calendar_event(ctx: Ctx, event_id: str) -> dict[str, Any]:
    """Cancel a calendar event (it stays in the calendar as cancelled).

    Args:
        event_id: Id of the event to cancel.
    """
    event = _get(ctx, calendar_events, event_id)
    if event["status"] == "cancelled":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{event_id} is already cancelled")
    ctx.conn.execute(_SET_EVENT, {"match_event_id": event_id, "status": "cancelled", "updated_at": ctx.ts()})
    return {"event_id": event_id, "title": event["title"], "status": "cancelled"}


TASK_KEYS = ("task_id", "title", "list_name", "due", "priority", "status", "notes", "remind_at", "completed_at")

_OPEN_TASK_IN_LIST = select(tasks.c.task_id).where(
    tasks.c.status == "open",
    func.lower(tasks.c.title) == bindparam("title"),
    tasks.c.list_name == bindparam("list_name"),
)
_ADD_TASK = insert(tasks)


@tool(l2="1.2", app="tasks", mutating=True, errors=(ErrorType.DUPLICATE_ENTITY,))
def create_task(
    ctx: Ctx,
    title: Title,
    list_name: Title = "Inbox",
    due: Due | None = None,
    priority: Priority = "medium",
    notes: str | None = None,
) -> dict[str, Any]:
    """Add a to-do to a task list (the list is created if new).

    Args:
        title: What has to be done.
        list_name: Name of the list, e.g. "Inbox", "Work", "Groceries".
        due: Due date YYYY-MM-DD, or due time YYYY-MM-DDTHH:MM.
        priority: Priority.
        notes: Extra details.
    """
    list_name = _canonical(ctx, tasks.c.list_name, list_name)
    existing = ctx.conn.execute(_OPEN_TASK_IN_LIST, {"title": title.lower(), "list_name": list_name}).scalar()
    if existing:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY, f"{list_name!r} already has this open task: {existing}", existing_id=existing
        )
    tid = ctx.new_id(tasks)
    ctx.conn.execute(
        _ADD_TASK,
        {
            "task_id": tid,
            "title": title,
            "list_name": list_name,
            "due": due,
            "priority": priority,
            "status": "open",
            "notes": notes,
            "remind_at": None,
            "completed_at": None,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"task_id": tid, "title": title, "list_name": list_name, "due": due}


_TASK_IN_LIST = select(tasks.c.task_id).where(tasks.c.list_name == bindparam("list_name"))
_TASK_LISTS = select(tasks.c.list_name).distinct()


@tool(l2="1.2", app="tasks", mutating=False, errors=(ErrorType.ENTITY_NOT_FOUND,))
def list_tasks(
    ctx: Ctx,
    list_name: str | None = None,
    status: Literal["open", "completed", "all"] = "open",
) -> dict[str, Any]:
    """List tasks and reminders, soonest due first.

    Args:
        list_name: Only this list, e.g. "Work" or "Reminders".
        status: Which tasks to show.
    """
    t = tasks.c
    q = select(tasks)
    if list_name:
        list_name = _canonical(ctx, t.list_name, list_name)
        if ctx.conn.execute(_TASK_IN_LIST, {"list_name": list_name}).first() is None:
            names = sorted(ctx.conn.execute(_TASK_LISTS).scalars())
            raise ToolError(
                ErrorType.ENTITY_NOT_FOUND, f"no task list {list_name!r}", field="list_name", candidates=names
            )
        q = q.where(t.list_name == list_name)
    if status != "all":
        q = q.where(t.status == status)
    due = func.coalesce(t.due, t.remind_at)
    found = rows(ctx.conn.execute(q.order_by(due.is_(None), due, t.task_id)))
    return {"tasks": [{k: r[k] for k in TASK_KEYS} for r in found], "count": len(found)}


_SET_TASK = update(tasks).where(tasks.c.task_id == bindparam("match_task_id"))


@tool(
    l2="1.2",
    app="tasks",
    mutating=True,
    check=_one_of("title", "due", "priority", "notes", "list_name", "status"),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT),
)
def update_task(
    ctx: Ctx,
    task_id: str,
    title: Title | None = None,
    due: Due | None = None,
    priority: Priority | None = None,
    notes: str | None = None,
    list_name: Title | None = None,
    status: Literal["open", "completed"] | None = None,
) -> dict[str, Any]:
    """Edit a task, move it to another list, or mark it completed or open again.

    Args:
        task_id: Id of the task, e.g. task_903.
        title: New title.
        due: New due date YYYY-MM-DD or due time YYYY-MM-DDTHH:MM.
        priority: New priority.
        notes: New notes (replace the old ones).
        list_name: Move it to this list.
        status: "completed" to tick it off, "open" to reopen it.
    """
    task = _get(ctx, tasks, task_id)
    if status is not None and status == task["status"]:
        raise ToolError(ErrorType.STATE_CONFLICT, f"{task_id} is already {status}")
    changes: dict[str, Any] = {
        k: v
        for k, v in {"title": title, "due": due, "priority": priority, "notes": notes, "status": status}.items()
        if v is not None
    }
    if list_name is not None:
        changes["list_name"] = _canonical(ctx, tasks.c.list_name, list_name)
    if status is not None:
        changes["completed_at"] = ctx.ts() if status == "completed" else None
    ctx.conn.execute(_SET_TASK, {"match_task_id": task_id, **changes, "updated_at": ctx.ts()})
    return {"task_id": task_id, "updated": sorted(changes)}


_DELETE_TASK = tasks.delete().where(tasks.c.task_id == bindparam("task_id"))


@tool(l2="1.2", app="tasks", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND,))
def delete_task(ctx: Ctx, task_id: str) -> dict[str, Any]:
    """Delete a task or reminder.

    Args:
        task_id: Id of the task or reminder to delete.
    """
    task = _get(ctx, tasks, task_id)
    ctx.conn.execute(_DELETE_TASK, {"task_id": task_id})
    return {"deleted": task_id, "title": task["title"]}


# ---- Reminders & Alarms (1.3) -----------------------------------------------------------------

_OPEN_REMINDER = select(tasks.c.task_id).where(
    tasks.c.status == "open",
    func.lower(tasks.c.title) == bindparam("title"),
    tasks.c.remind_at == bindparam("remind_at"),
)


@tool(
    l2="1.3",
    app="tasks",
    mutating=True,
    permissions=("NOTIFICATIONS",),
    errors=(ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.DUPLICATE_ENTITY),
)
def create_reminder(ctx: Ctx, text: Title, remind_at: DateTime) -> dict[str, Any]:
    """Create a reminder that notifies the user at a given time.

    Args:
        text: What to remind the user of.
        remind_at: When to notify, YYYY-MM-DDTHH:MM (in the future).
    """
    if remind_at <= _minute(ctx):
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE, f"remind_at {remind_at} is not in the future", field="remind_at"
        )
    existing = ctx.conn.execute(_OPEN_REMINDER, {"title": text.lower(), "remind_at": remind_at}).scalar()
    if existing:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"this reminder exists: {existing}", existing_id=existing)
    tid = ctx.new_id(tasks)
    ctx.conn.execute(
        _ADD_TASK,
        {
            "task_id": tid,
            "title": text,
            "list_name": REMINDERS_LIST,
            "due": None,
            "priority": "medium",
            "status": "open",
            "notes": None,
            "remind_at": remind_at,
            "completed_at": None,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"task_id": tid, "text": text, "remind_at": remind_at}


def _days_json(days: Sequence[str]) -> str:
    return json.dumps([d for d in WEEKDAYS if d in days])


def _alarm_out(a: dict[str, Any]) -> dict[str, Any]:
    return {
        "alarm_id": a["alarm_id"],
        "time": a["time"],
        "label": a["label"],
        "days": json.loads(a["days_json"]),
        "enabled": bool(a["enabled"]),
    }


_ENABLED_TWIN = (
    select(alarms.c.alarm_id)
    .where(
        alarms.c.enabled == 1,
        alarms.c.time == bindparam("time"),
        alarms.c.days_json == bindparam("days_json"),
        alarms.c.alarm_id != bindparam("exclude"),
    )
    .order_by(alarms.c.alarm_id)
)


def _enabled_twin(ctx: Ctx, time: str, days_json: str, exclude: str = "") -> str | None:
    """An enabled alarm other than ``exclude`` ringing at the same time on the same days."""
    return ctx.conn.execute(_ENABLED_TWIN, {"time": time, "days_json": days_json, "exclude": exclude}).scalar()


_ADD_ALARM = insert(alarms)


@tool(l2="1.3", app="clock", mutating=True, errors=(ErrorType.DUPLICATE_ENTITY,))
def set_alarm(ctx: Ctx, time: Time, label: str | None = None, days: Days | None = None) -> dict[str, Any]:
    """Create an alarm, one-off or repeating on weekdays.

    Args:
        time: Time of day, HH:MM (24 h).
        label: Label shown when it rings.
        days: Weekdays it repeats on, e.g. ["mon", "tue"]; omit or [] for a one-off alarm.
    """
    days_json = _days_json(days or [])
    twin = _enabled_twin(ctx, time, days_json)
    if twin:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY, f"an enabled alarm at {time} on these days exists: {twin}", existing_id=twin
        )
    aid = ctx.new_id(alarms)
    row = {"alarm_id": aid, "time": time, "label": label, "days_json": days_json, "enabled": 1}
    ctx.conn.execute(_ADD_ALARM, {**row, "created_at": ctx.ts(), "updated_at": ctx.ts()})
    return _alarm_out(row)


_SET_ALARM = update(alarms).where(alarms.c.alarm_id == bindparam("match_alarm_id"))


@tool(
    l2="1.3",
    app="clock",
    mutating=True,
    check=_one_of("time", "label", "days", "enabled"),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.DUPLICATE_ENTITY),
)
def update_alarm(
    ctx: Ctx,
    alarm_id: str,
    time: Time | None = None,
    label: str | None = None,
    days: Days | None = None,
    enabled: bool | None = None,
) -> dict[str, Any]:
    """Change an alarm's time, label or days, or switch it on or off.

    Args:
        alarm_id: Id of the alarm, e.g. alarm_902.
        time: New time, HH:MM.
        label: New label.
        days: New repeat days; [] makes it a one-off alarm.
        enabled: true to switch the alarm on, false to switch it off.
    """
    alarm = _get(ctx, alarms, alarm_id)
    if enabled is not None and int(enabled) == alarm["enabled"]:
        raise ToolError(ErrorType.STATE_CONFLICT, f"{alarm_id} is already {'on' if enabled else 'off'}")
    after = dict(alarm)
    if time is not None:
        after["time"] = time
    if days is not None:
        after["days_json"] = _days_json(days)
    if label is not None:
        after["label"] = label
    if enabled is not None:
        after["enabled"] = int(enabled)
    twin = _enabled_twin(ctx, after["time"], after["days_json"], exclude=alarm_id) if after["enabled"] else None
    if twin:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"it would duplicate the enabled alarm {twin}", existing_id=twin)
    changes = {k: after[k] for k in ("time", "label", "days_json", "enabled") if after[k] != alarm[k]}
    ctx.conn.execute(_SET_ALARM, {"match_alarm_id": alarm_id, **changes, "updated_at": ctx.ts()})
    return _alarm_out(after)


_DELETE_ALARM = alarms.delete().where(alarms.c.alarm_id == bindparam("alarm_id"))


@tool(l2="1.3", app="clock", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND,))
def delete_alarm(ctx: Ctx, alarm_id: str) -> dict[str, Any]:
    """Delete an alarm.

    Args:
        alarm_id: Id of the alarm to delete.
    """
    alarm = _get(ctx, alarms, alarm_id)
    ctx.conn.execute(_DELETE_ALARM, {"alarm_id": alarm_id})
    return {"deleted": alarm_id, "time": alarm["time"], "label": alarm["label"]}


# ---- Notes & Memos (1.4) ----------------------------------------------------------------------

_NOTE_WITH_TITLE = select(notes.c.note_id).where(
    func.lower(notes.c.title) == bindparam("title"),
    notes.c.folder == bindparam("folder"),
    notes.c.note_id != bindparam("exclude"),
)


def _note_with_title(ctx: Ctx, title: str, folder: str, exclude: str = "") -> str | None:
    return ctx.conn.execute(_NOTE_WITH_TITLE, {"title": title.lower(), "folder": folder, "exclude": exclude}).scalar()


_ADD_NOTE = insert(notes)


@tool(l2="1.4", app="notes", mutating=True, errors=(ErrorType.DUPLICATE_ENTITY,))
def create_note(ctx: Ctx, title: Title, content: Body, folder: Title = "Notes") -> dict[str, Any]:
    """Create a note.

    Args:
        title: Title of the note.
        content: Text of the note.
        folder: Folder to put it in.
    """
    folder = _canonical(ctx, notes.c.folder, folder)
    existing = _note_with_title(ctx, title, folder)
    if existing:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"{folder!r} already has a note titled {title!r}: {existing}",
            existing_id=existing,
        )
    nid = ctx.new_id(notes)
    ctx.conn.execute(
        _ADD_NOTE,
        {
            "note_id": nid,
            "title": title,
            "content": content,
            "folder": folder,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"note_id": nid, "title": title, "folder": folder}


@tool(l2="1.4", app="notes", mutating=False)
def search_notes(
    ctx: Ctx,
    query: Query,
    folder: str | None = None,
    limit: Limit = 10,
) -> dict[str, Any]:
    """Full-text search over notes, most recently edited first.

    Args:
        query: Words that must appear in the title or text (case-insensitive).
        folder: Only notes in this folder.
        limit: Maximum number of results.
    """
    n = notes.c
    q = select(notes).where(*_words([n.title, n.content], query))
    if folder:
        q = q.where(func.lower(n.folder) == folder.lower())
    found = rows(ctx.conn.execute(q.order_by(n.updated_at.desc(), n.note_id).limit(limit)))
    keep = ("note_id", "title", "folder", "content", "updated_at")
    return {"notes": [{k: r[k] for k in keep} for r in found], "count": len(found)}


def _note_change(args: dict[str, Any]) -> str | None:
    """Give at least one of title, content, append_text; content (replace) or append_text (append), not both."""
    if "content" in args and "append_text" in args:
        return "give content (replace) or append_text (append), not both"
    return _one_of("title", "content", "append_text")(args)


_SET_NOTE = update(notes).where(notes.c.note_id == bindparam("match_note_id"))


@tool(
    l2="1.4",
    app="notes",
    mutating=True,
    check=_note_change,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY),
)
def update_note(
    ctx: Ctx,
    note_id: str,
    title: Title | None = None,
    content: Body | None = None,
    append_text: Body | None = None,
) -> dict[str, Any]:
    """Rename a note, replace its text, or append to it.

    Args:
        note_id: Id of the note, e.g. note_904.
        title: New title.
        content: New text, replacing the old text.
        append_text: Text to add on a new line at the end.
    """
    note = _get(ctx, notes, note_id)
    changes: dict[str, Any] = {}
    if title is not None:
        other = _note_with_title(ctx, title, note["folder"], exclude=note_id)
        if other:
            raise ToolError(
                ErrorType.DUPLICATE_ENTITY,
                f"{note['folder']!r} already has a note titled {title!r}: {other}",
                existing_id=other,
            )
        changes["title"] = title
    if content is not None:
        changes["content"] = content
    if append_text is not None:
        changes["content"] = f"{note['content']}\n{append_text}"
    ctx.conn.execute(_SET_NOTE, {"match_note_id": note_id, **changes, "updated_at": ctx.ts()})
    return {"note_id": note_id, "title": changes.get("title", note["title"]), "updated": sorted(changes)}


# ---- Daily Agenda & Briefing (1.9) ------------------------------------------------------------

_DAY_EVENTS = (
    select(calendar_events)
    .where(LIVE, calendar_events.c.start <= bindparam("last"), calendar_events.c.end > bindparam("first"))
    .order_by(calendar_events.c.start, calendar_events.c.event_id)
)
_DAY_TASKS = (
    select(tasks)
    .where(
        tasks.c.status == "open",
        or_(  # day_prefix: "YYYY-MM-DD%"
            tasks.c.due.like(bindparam("day_prefix")), tasks.c.remind_at.like(bindparam("day_prefix"))
        ),
    )
    .order_by(tasks.c.task_id)
)
_ALARMS = select(alarms).order_by(alarms.c.time, alarms.c.alarm_id)


@tool(l2="1.9", app="calendar", mutating=False, permissions=("CALENDAR",))
def get_daily_agenda(ctx: Ctx, date: Date | None = None) -> dict[str, Any]:
    """Summarise one day: its events, the tasks due and reminders set that day, and its alarms (on or off).

    Args:
        date: The day, YYYY-MM-DD (default today).
    """
    day = dt.date.fromisoformat(date) if date else ctx.now.date()
    first, last = day.isoformat(), f"{day}T23:59"
    events = rows(ctx.conn.execute(_DAY_EVENTS, {"first": first, "last": last}))
    todo = rows(ctx.conn.execute(_DAY_TASKS, {"day_prefix": f"{first}%"}))
    weekday = WEEKDAYS[day.weekday()]
    # Disabled alarms are listed too: no other tool shows them, and update_alarm needs their ids.
    day_alarms = [
        _alarm_out(r)
        for r in rows(ctx.conn.execute(_ALARMS))
        if not json.loads(r["days_json"]) or weekday in json.loads(r["days_json"])
    ]
    return {
        "date": first,
        "weekday": weekday,
        "events": [{k: ev[k] for k in EVENT_KEYS} for ev in events],
        "tasks_due": [{k: r[k] for k in TASK_KEYS} for r in todo if r["remind_at"] is None],
        "reminders": [{k: r[k] for k in ("task_id", "title", "remind_at")} for r in todo if r["remind_at"]],
        "alarms": day_alarms,
    }


# ---- World data -------------------------------------------------------------------------------

BOSS, COLLEAGUE, FRIEND = "contact_004", "contact_005", "contact_007"  # Alex Turner, Alex Morgan, Tom Baker
MOM = "contact_002"  # Zhang Min

# Invitations still waiting for the user's answer: (title, calendar, days ahead, time, minutes, location, host,
# answer so far). Each lands on the first day from its offset where it overlaps nothing (work ones on weekdays).
INVITATIONS = [
    ("Architecture review", "work", 5, "15:00", 60, "Conference room B", BOSS, "needs_action"),
    ("Company all-hands", "work", 6, "16:00", 60, "Auditorium", COLLEAGUE, "needs_action"),
    ("Tom's birthday party", "personal", 8, "19:00", 180, "Tom's place", FRIEND, "tentative"),
]

# (title, calendar, earliest hour, latest hour, minutes, location, attendee)
MISC_EVENTS = [
    ("Lunch with Tom Baker", "personal", 12, 12, 60, "Noodle House", FRIEND),
    ("Design sync with Alex Morgan", "work", 10, 16, 45, "Meeting room 2", COLLEAGUE),
    ("Quarterly planning", "work", 14, 15, 90, "Conference room A", BOSS),
    ("Haircut", "personal", 10, 17, 30, "Studio 8 Salon", None),
    ("Yoga class", "personal", 19, 19, 60, "Lotus Yoga", None),
    ("Car service", "personal", 9, 10, 60, "City Auto Service", None),
    ("Client call", "work", 10, 16, 30, None, None),
    ("Team lunch", "work", 12, 12, 60, "Cafeteria", COLLEAGUE),
    ("Movie night", "family", 20, 20, 120, "Home", None),
    ("Parent-teacher meeting", "family", 16, 17, 45, "Sunrise Primary School", None),
]

SEED_TASKS = [  # (title, list, due offset in days or None, priority); overdue ones are mostly done
    ("Prepare slides for project review", "Work", 1, "high"),
    ("Submit expense report", "Work", 3, "medium"),
    ("Review Alex's design doc", "Work", 2, "medium"),
    ("Update project timeline", "Work", 6, "low"),
    ("Book meeting room for offsite", "Work", -4, "medium"),
    ("Pay electricity bill", "Inbox", 0, "high"),
    ("Renew passport", "Inbox", 20, "medium"),
    ("Call the plumber", "Inbox", None, "medium"),
    ("Buy birthday gift for Mom", "Inbox", 9, "high"),
    ("Schedule car service", "Inbox", -6, "low"),
    *((item, "Groceries", None, "medium") for item in ("Milk", "Eggs", "Bread", "Coffee beans", "Apples")),
]

SEED_NOTES = [  # (title, folder, content)
    ("Project kickoff", "Work", "Goals: ship v2 by Q3. Owners: Alex Turner (scope), Alex Morgan (design)."),
    ("Standup notes", "Work", "Blocked on API review. Follow up with Alex Morgan about the mockups."),
    ("Quarterly goals", "Work", "1. Launch the new dashboard\n2. Cut page load time by 30%\n3. Mentor a new hire"),
    ("Wi-Fi password for guests", "Notes", "Network: HomeNet-Guest, password: sunflower2024"),
    ("Books to read", "Notes", "Project Hail Mary; The Three-Body Problem; Atomic Habits"),
    ("Car maintenance log", "Notes", "Oil change at 45,000 km. Next tyre rotation at 50,000 km."),
    ("Gift ideas for Lily", "Personal", "Silk scarf, pottery class voucher, the new Murakami novel"),
    ("Ideas for the weekend", "Personal", "Hike in the hills near {home_city}; try the new dumpling place"),
    ("Tomato and egg stir-fry", "Recipes", "4 eggs, 3 tomatoes, spring onion, 1 tsp sugar, salt. Scramble, then fold."),
    ("Packing list", "Travel", "Passport, chargers, adapter, toiletries, 3 shirts, running shoes"),
]


def _stamp(day: dt.date, hm: str, minutes: int) -> tuple[str, str]:
    start = dt.datetime.combine(day, dt.time.fromisoformat(hm))
    return start.strftime(DT_FMT), (start + dt.timedelta(minutes=minutes)).strftime(DT_FMT)


@seeder
def seed_productivity(conn: Connection, rng: random.Random, persona: Persona) -> None:
    now = dt.datetime.fromisoformat(persona.now)
    today, stamp = now.date(), persona.now
    events: list[dict[str, Any]] = []
    guests: list[tuple[dict[str, Any], str, str]] = []  # (event, contact id, response)

    def add(
        title: str,
        day: dt.date,
        hm: str,
        minutes: int,
        calendar: str,
        location: str | None = None,
        host: str | None = BOSS,
        reminder: int | None = 10,
    ) -> dict[str, Any]:
        """An event the user organises (``host`` None) or was invited to by ``host`` (and accepted)."""
        start, end = _stamp(day, hm, minutes)
        ev = {
            "title": title,
            "start": start,
            "end": end,
            "location": location,
            "description": None,
            "calendar": calendar,
            "reminder_min": reminder,
            "status": "confirmed",
            "is_organizer": int(host is None),
            "organizer": host,
            "my_response": None if host is None else "accepted",
        }
        events.append(ev)
        return ev

    for offset in range(-35, 36):
        day = today + dt.timedelta(days=offset)
        if day.weekday() < 5:
            standup = add("Team standup", day, "09:30", 15, "work", "Meeting room 3", reminder=5)
            guests += [(standup, BOSS, "accepted"), (standup, COLLEAGUE, "accepted")]
        if day.weekday() == 1:
            guests.append((add("1:1 with Alex Turner", day, "11:00", 30, "work", "Alex's office"), BOSS, "accepted"))
        if day.weekday() == 6 and offset % 14 < 7:
            add("Family dinner", day, "18:30", 90, "family", "Mom's place", MOM, reminder=60)
    review = add(
        "Project review", today + dt.timedelta(days=1), "14:00", 60, "work", "Conference room A", host=None, reminder=15
    )
    review["description"] = "Quarterly project review: status, risks, next milestones."
    guests += [(review, BOSS, "accepted"), (review, COLLEAGUE, "needs_action")]
    add("Dentist check-up", dt.date(2025, 1, 20), "10:00", 45, "personal", "Bright Smile Dental Clinic", None, 60)
    dentist_day = today + dt.timedelta(days=rng.randint(5, 20))
    while dentist_day.weekday() >= 5:
        dentist_day += dt.timedelta(days=1)
    add("Dentist appointment", dentist_day, "15:00", 30, "personal", "Bright Smile Dental Clinic", None, 60)
    misc = 0
    while misc < 24:
        title, calendar, lo, hi, minutes, location, guest = rng.choice(MISC_EVENTS)
        day = today + dt.timedelta(days=rng.randint(-35, 35))
        start, end = _stamp(day, f"{rng.randint(lo, hi):02d}:{rng.choice(['00', '30'])}", minutes)
        if any(ev["start"] < end and ev["end"] > start for ev in events):
            continue
        misc += 1
        ev = add(title, day, start[11:], minutes, calendar, location, host=BOSS if guest == BOSS else None)
        ev["status"] = "cancelled" if misc % 8 == 0 else "confirmed"
        if guest:
            guests.append((ev, guest, rng.choice(["accepted", "accepted", "needs_action", "declined"])))
    for title, calendar, offset, hm, minutes, location, host, answer in INVITATIONS:
        day = today + dt.timedelta(days=offset)
        while (calendar == "work" and day.weekday() >= 5) or any(
            ev["start"] < _stamp(day, hm, minutes)[1] and ev["end"] > _stamp(day, hm, minutes)[0] for ev in events
        ):
            day += dt.timedelta(days=1)
        ev = add(title, day, hm, minutes, calendar, location, host)
        ev.update(my_response=answer, status="tentative" if answer == "tentative" else "confirmed")
        guests.append((ev, host, "accepted"))
    events.sort(key=lambda ev: (ev["start"], ev["title"]))
    for i, ev in enumerate(events, start=1):
        ev.update(event_id=f"event_{i:03d}", created_at=stamp, updated_at=stamp)
    conn.execute(insert(calendar_events), events)
    conn.execute(
        insert(event_attendees),
        sorted(
            (
                {
                    "event_id": ev["event_id"],
                    "contact_id": cid,
                    "response": resp,
                    "created_at": stamp,
                    "updated_at": stamp,
                }
                for ev, cid, resp in guests
            ),
            key=lambda r: (r["event_id"], r["contact_id"]),
        ),
    )

    busy = [
        (cid, ev["start"], ev["end"])
        for ev, cid, resp in guests
        if cid in (BOSS, COLLEAGUE) and ev["status"] == "confirmed" and resp != "declined"
    ]
    for person in (BOSS, COLLEAGUE):
        for offset in range(22):
            day = today + dt.timedelta(days=offset)
            if day.weekday() < 5:
                for _ in range(rng.randint(2, 4)):
                    start, end = _stamp(
                        day, f"{rng.randint(9, 17):02d}:{rng.choice(['00', '30'])}", rng.choice([30, 60, 90])
                    )
                    busy.append((person, start, end))
    conn.execute(
        insert(world_busy_slots),
        [
            {"slot_id": i, "person_key": p, "start": s, "end": e}
            for i, (p, s, e) in enumerate(sorted(set(busy)), start=1)
        ],
    )

    task_rows = []
    for i, (title, list_name, due_in, priority) in enumerate(SEED_TASKS, start=1):
        due = None if due_in is None else (today + dt.timedelta(days=due_in)).isoformat()
        done = due_in is not None and due_in < 0 and rng.random() < 0.8
        task_rows.append(
            {
                "task_id": f"task_{i:03d}",
                "title": title,
                "list_name": list_name,
                "due": due,
                "priority": priority,
                "status": "completed" if done else "open",
                "notes": None,
                "remind_at": None,
                "completed_at": f"{due}T18:00:00" if done else None,
                "created_at": stamp,
                "updated_at": stamp,
            }
        )
    remind_at = f"{today + dt.timedelta(days=1)}T{rng.choice(['19:00', '20:00', '20:30'])}"
    task_rows.append(
        {
            "task_id": f"task_{len(task_rows) + 1:03d}",
            "title": "Take out the recycling",
            "list_name": REMINDERS_LIST,
            "due": None,
            "priority": "medium",
            "status": "open",
            "notes": None,
            "remind_at": remind_at,
            "completed_at": None,
            "created_at": stamp,
            "updated_at": stamp,
        }
    )
    conn.execute(insert(tasks), task_rows)

    conn.execute(
        insert(alarms),
        [
            {
                "alarm_id": aid,
                "time": time,
                "label": label,
                "days_json": json.dumps(days),
                "enabled": on,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for aid, time, label, days, on in (
                ("alarm_001", "06:45", "Wake up", list(WEEKDAYS[:5]), 1),
                ("alarm_002", "08:00", "Weekend", list(WEEKDAYS[5:]), 0),
                ("alarm_003", "14:00", "Pick up parcel", [], 0),
            )
        ],
    )

    note_rows = []
    for i, (title, folder, content) in enumerate(SEED_NOTES, start=1):
        edited = (now - dt.timedelta(days=rng.randint(1, 90), minutes=rng.randint(0, 600))).isoformat()
        note_rows.append(
            {
                "note_id": f"note_{i:03d}",
                "title": title,
                "folder": folder,
                "content": content.format(home_city=persona.home_city),
                "created_at": edited,
                "updated_at": edited,
            }
        )
    conn.execute(insert(notes), note_rows)
