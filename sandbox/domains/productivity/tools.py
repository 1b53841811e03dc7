"""The productivity domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import Column, Select, Table, bindparam, func, insert, or_, select, update

from sandbox.domains.communication.schema import contacts
from sandbox.domains.productivity.schema import (
    DT_FMT,
    REMINDERS_LIST,
    WEEKDAYS,
    Body,
    CalendarName,
    ContactIds,
    Days,
    Due,
    Limit,
    Priority,
    Query,
    Title,
    alarms,
    calendar_events,
    event_attendees,
    notes,
    tasks,
    world_busy_slots,
)
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, row_by_key, rows, word_values, words_match
from sandbox.tooling import Date, DateTime, Time, tool


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
