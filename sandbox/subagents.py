"""Sub-agent simulators: deterministic, driven by declared flows and seeded tables.

Four agents sit behind the framework's entry points (``sandbox.framework``):
- GUI agent: an app screen sequence with no API. Its effects are app-internal actions (tools of
  domain ``internal``, callable only by a sub-agent actor), run through the same executor so they
  are validated, logged with ``actor=gui_agent`` and ``parent_job_id``, and seen in the diff.
- Monitor agent: a condition on a read-only tool's result plus a plan; it is registered during the
  episode and fires when the episode settles (after the task's scenario events), in creation order.
- Screen-reader agent: reads text and fields from a screen snapshot, a photo or a file.
- Voice agent: phones a business whose seeded rules decide the outcome (answer, booking, refusal).
Every job is a ``subagent_jobs`` row holding its handoff and result.
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field, ValidationError
from sqlalchemy import Column, Connection, Integer, Text, bindparam, insert, select, update

from sandbox.db import transaction
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, normalise_phone
from sandbox.locales import business_phone
from sandbox.personas import Persona, seeder
from sandbox.schema import USER, WORLD, apps, metadata, stamps, subagent_jobs, table
from sandbox.tooling import INTERNAL, REGISTRY, Date, Time, tool, validate_arguments


@dataclass(frozen=True)
class GuiFlow:
    """A screen sequence in an app. ``app_id`` None: any app for which ``serves(ctx, app_id)`` holds.

    A goal names the flow when it holds one of ``keywords`` as whole words ("name" matches "name" and
    "names", never "named" or "rename"); a keyword ending in ``*`` is a stem ("categor*" matches
    "category" and "categorise").
    """

    app_id: str | None
    intent: str
    keywords: tuple[str, ...]
    required_inputs: tuple[str, ...]
    run: Callable[[Ctx, str, dict[str, Any]], dict[str, Any]]
    serves: Callable[[Ctx, str], bool] | None = None
    # inputs the screens take when given (a number of packs, a pickup choice); any other input is refused
    optional_inputs: tuple[str, ...] = ()
    # what a person types on the screen for a value given its own way, e.g. a settings screen's one
    # {"Personalized ads": false} as {setting, value}; runs after the synonyms, before the slots are checked
    adapt: Callable[[dict[str, Any]], dict[str, Any]] | None = None

    @functools.cached_property
    def _named(self) -> re.Pattern[str]:
        forms = [
            re.escape(k[:-1]) + "[a-z0-9]*" if k.endswith("*") else r"\s+".join(map(re.escape, k.split())) + "(?:s|es)?"
            for k in self.keywords
        ]
        return re.compile(rf"(?<![a-z0-9])(?:{'|'.join(forms)})(?![a-z0-9])")

    def named_by(self, goal: str) -> bool:
        return bool(self._named.search(goal.lower()))

    def serves_app(self, ctx: Ctx, app_id: str) -> bool:
        return app_id == self.app_id if self.app_id else bool(self.serves and self.serves(ctx, app_id))

    def missing(self, slots: dict[str, Any]) -> list[str]:
        """The slots the flow needs that ``slots`` leave empty."""
        return [k for k in self.required_inputs if slots.get(k) in (None, "", [])]

    def unknown(self, slots: dict[str, Any]) -> list[str]:
        """The inputs given that are neither a slot of the flow nor another name of one: the screens have no
        field for them, so the agent refuses rather than guessing where they go."""
        declared = (*self.required_inputs, *self.optional_inputs)
        known = set(declared).union(*(_INPUT_GROUP.get(k, ()) for k in declared))
        return [k for k, v in slots.items() if k not in known and v not in (None, "", [])]


def match_flow(ctx: Ctx, app_id: str, goal: str, inputs: dict[str, Any]) -> tuple[GuiFlow, dict[str, Any]] | None:
    """The app's flow the goal names and ``inputs`` as its slots; when the goal names several flows, the one the
    inputs feed (else the first declared)."""
    named = [f for f in GUI_FLOWS if f.named_by(goal) and f.serves_app(ctx, app_id)]
    for flow in named:
        slots = flow_inputs(flow, inputs)
        if not flow.missing(slots):
            return flow, slots
    return (named[0], flow_inputs(named[0], inputs)) if named else None


GUI_FLOWS: list[GuiFlow] = []


def gui_flow(flow: GuiFlow) -> GuiFlow:
    """Register a GUI flow (domain modules declare the flows of their apps)."""
    GUI_FLOWS.append(flow)
    return flow


_ADD_JOB = insert(subagent_jobs)
_SET_JOB = update(subagent_jobs).where(subagent_jobs.c.job_id == bindparam("match_job_id"))


def open_job(ctx: Ctx, agent: str, handoff: dict[str, Any], status: str = "running") -> str:
    job_id = ctx.new_id(subagent_jobs)
    ctx.conn.execute(
        _ADD_JOB,
        dict(
            job_id=job_id,
            agent=agent,
            handoff_json=json.dumps(handoff, sort_keys=True),
            status=status,
            result_json="{}",
            created_at=ctx.ts(),
            updated_at=ctx.ts(),
        ),
    )
    return job_id


def close_job(ctx: Ctx, job_id: str, result: dict[str, Any], status: str = "completed") -> dict[str, Any]:
    ctx.conn.execute(
        _SET_JOB,
        dict(match_job_id=job_id, status=status, result_json=json.dumps(result, sort_keys=True), updated_at=ctx.ts()),
    )
    return result


_INSTALLED = select(apps.c.installed).where(apps.c.app_id == bindparam("app_id"))
_INSTALLED_APPS = select(apps.c.app_id).where(apps.c.installed == 1).order_by(apps.c.app_id)


# Names of one GUI-flow input: a planner names a value by what it is (``coupon_code``, ``automation_name``), a
# flow by its slot (``code``, ``name``). A given name fills the flow's slot of its group when that slot is empty and
# the name is no slot of the flow itself (``setting`` is the camera flow's ``option``, the in-app settings flow's own
# slot). The groups are disjoint.
INPUT_SYNONYMS: tuple[frozenset[str], ...] = tuple(
    frozenset(group)
    for group in (
        ("code", "coupon_code", "coupon", "promo_code", "voucher_code", "voucher"),
        ("name", "automation_name", "automation", "routine_name", "routine"),
        ("option", "setting", "setting_name", "option_name"),
        ("value", "enabled", "state", "status", "new_value", "new_state", "action", "toggle"),
        ("start", "start_time", "starts_at", "from_time", "begin"),
        ("end", "end_time", "ends_at", "to_time", "until"),
        ("attendees", "party_size", "people", "participants", "headcount", "attendee_count", "guests"),
        ("date", "day"),
        ("device_name", "device", "device_label"),
        ("scene_name", "scene"),
        ("medication", "medicine", "medication_name", "drug", "prescription"),
        ("txn_id", "transaction_id", "transaction"),
        ("category", "new_category"),
        ("item", "lost_item", "item_name"),
        ("new_variant", "variant", "new_size", "size"),
        ("books", "book_count", "number_of_books", "books_goal", "target"),
        ("verification_code", "otp", "one_time_code", "sms_code", "security_code", "passcode"),
        ("group", "group_name", "chat", "group_chat", "chat_name"),
        ("new_name", "rename_to", "new_title", "new_group_name"),
        ("post", "post_id"),
        ("visibility", "audience", "privacy", "who_can_see"),
        ("session", "session_time", "time_slot", "slot"),
        ("quantity", "tickets", "ticket_count", "number_of_tickets", "qty"),
    )
)
_INPUT_GROUP = {name: group for group in INPUT_SYNONYMS for name in group}

# How each slot is written on the screens, stated when a call lacks it so the planner can retry at once.
INPUT_FORMATS: dict[str, str] = {
    "date": "YYYY-MM-DD",
    "start": "HH:MM",
    "end": "HH:MM",
    "attendees": "a number or a list of people",
    "session": "HH:MM or YYYY-MM-DDTHH:MM",
    "quantity": "a number",
    "visitors": 'a list of names or {"self": true}',
    "code": "the coupon code",
    "name": "the automation's name as listed",
    "enabled": "true or false",
    "option": "grid, shutter_sound, location_tags, mirror_front or hdr",
    "value": "the value to set, e.g. on or off",
    "setting": "the option's label, e.g. Personalized ads",
    "device_name": "the device's name",
    "scene_name": "the new scene's name",
    "devices": "device names, rooms or ids",
    "medication": "the medication's name",
    "txn_id": "the transaction id",
    "category": "the new category",
    "item": "what was left behind",
    "order_id": "the order id",
    "item_id": "the order item id",
    "new_variant": "the size or colour wanted",
    "books": "a number of books",
    "verification_code": "the one-time code",
    "group": "the group chat's name or id",
    "new_name": "the new name",
    "post": "the post's id or its text",
    "visibility": "public, friends or private",
    "packs": "a number of packs, 1 to 6",
    "pickup": "pharmacy or delivery",
    "title": "the booking's title",
    "year": "YYYY",
    "ride_id": "the ride's id",
    "description": "what it looks like",
    "contact_phone": "a phone number",
    "platform": "the app's name",
    "brightness": "0 to 100",
    "diet": "a diet or none",
    "units": "metric or imperial",
    "servings": "a number of servings",
}
_ISO_MINUTE = re.compile(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})")


def flow_inputs(flow: GuiFlow, given: dict[str, Any]) -> dict[str, Any]:
    """``given`` as the flow's slots: synonyms fill empty slots; an ISO date-time in an HH:MM slot gives its time,
    and its day a missing ``date``; then the flow's own ``adapt``."""
    inputs = dict(given)
    empty = [k for k in (*flow.required_inputs, *flow.optional_inputs) if inputs.get(k) in (None, "", [])]
    for slot in empty:
        group = _INPUT_GROUP.get(slot, frozenset())
        alias = next(
            (
                k
                for k in given
                if k in group
                and k not in (*flow.required_inputs, *flow.optional_inputs)
                and given[k] not in (None, "", [])
            ),
            None,
        )
        if alias is not None:
            inputs[slot] = given[alias]
    for slot in flow.required_inputs:
        m = _ISO_MINUTE.match(str(inputs.get(slot) or "")) if INPUT_FORMATS.get(slot) == "HH:MM" else None
        if m:
            inputs[slot] = m.group(2)
            if "date" in flow.required_inputs and inputs.get("date") in (None, ""):
                inputs["date"] = m.group(1)
    if "date" in flow.required_inputs and (m := _ISO_MINUTE.match(str(inputs.get("date") or ""))):
        inputs["date"] = m.group(1)
    return flow.adapt(inputs) if flow.adapt else inputs


def labelled_value(label: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A settings flow's ``adapt``: one option given as ``{"personalized_ads": false}`` names it by its key."""

    def adapt(inputs: dict[str, Any]) -> dict[str, Any]:
        if label in inputs or "value" in inputs or len(inputs) != 1:
            return inputs
        ((name, value),) = inputs.items()
        return {label: name.replace("_", " "), "value": value}

    return adapt


def _slots(flow: GuiFlow) -> dict[str, str]:
    return {k: INPUT_FORMATS.get(k, "text") for k in flow.required_inputs}


def _optional_slots(flow: GuiFlow) -> dict[str, str]:
    return {k: INPUT_FORMATS.get(k, "text") for k in flow.optional_inputs}


def _flow_output(outputs: dict[str, Any], name: str) -> Any:
    """A requested result under its own name, a field synonym, or a name sharing its subject ("room_name": the
    room); any "...status" or "...state" is the flow's status."""
    found = field_value(outputs, name)
    if found is not None:
        return found
    key = _field_key(name)
    if key.endswith(("status", "state")):
        return outputs.get("status", "completed")
    words = set(key.split("_")) - {"name", "id", "code", "value", "new", "current", "result"}
    return next((v for k, v in outputs.items() if words & set(_field_key(k).split("_"))), None)


def run_gui(ctx: Ctx, app_id: str, goal: str, inputs: dict[str, Any], expected_outputs: list[str]) -> dict[str, Any]:
    """Run the app's flow the goal names. A call lacking a slot is told every slot's name and format; the outputs
    hold the flow's results, each requested name beside them."""
    installed = ctx.conn.execute(_INSTALLED, {"app_id": app_id}).scalar()
    if installed != 1:
        raise ToolError(
            ErrorType.UNSUPPORTED_OPERATION,
            f"app {app_id!r} is not installed",
            app_id=app_id,
            installed_apps=ctx.conn.execute(_INSTALLED_APPS).scalars().all(),
        )
    matched = match_flow(ctx, app_id, goal, inputs)
    if matched is None:
        offered = [{"intent": f.intent, "inputs": _slots(f)} for f in GUI_FLOWS if f.serves_app(ctx, app_id)]
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"the GUI agent found no way to '{goal}' in {app_id}",
            reason="no_matching_flow",
            flows=offered,
        )
    flow, slots = matched
    missing = flow.missing(slots)
    if missing:
        named = "; ".join(f"{k} ({fmt})" for k, fmt in _slots(flow).items())
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"the {flow.intent} flow needs: {', '.join(missing)}; retry "
            f"with inputs named {named} (ask the user only for a value you do not know)",
            missing_inputs=missing,
            inputs=_slots(flow),
            hint="retry_with_named_inputs",
        )
    unknown = flow.unknown(slots)
    if unknown:
        named = "; ".join(f"{k} ({fmt})" for k, fmt in _slots(flow).items())
        optional = "; ".join(f"{k} ({fmt})" for k, fmt in _optional_slots(flow).items())
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"the {flow.intent} flow has no input {', '.join(unknown)}; it takes {named or 'no required inputs'}"
            + (f", and optionally {optional}" if optional else ""),
            unknown_inputs=unknown,
            inputs=_slots(flow),
            optional_inputs=_optional_slots(flow),
            hint="retry_with_named_inputs",
        )
    handoff = {"app_id": app_id, "goal": goal, "inputs": inputs, "expected_outputs": expected_outputs}
    job_id = open_job(ctx, "gui_agent", handoff)
    agent_ctx = Ctx(ctx.conn, ctx.executor, ctx.step, "gui_agent", job_id)
    outputs = flow.run(agent_ctx, app_id, slots)
    result = {
        "job_id": job_id,
        "status": "completed",
        "intent": flow.intent,
        "outputs": {**outputs, **{k: _flow_output(outputs, k) for k in expected_outputs}},
    }
    return close_job(ctx, job_id, result)


# ---- roombook: the company's meeting-room app (no API) ----------------------------------------

meeting_rooms = table(
    "meeting_rooms",
    WORLD,
    Column("room", Text, primary_key=True),
    Column("capacity", Integer, nullable=False),
    Column("floor", Integer, nullable=False),
)
room_bookings = table(
    "room_bookings",
    USER,
    Column("room_booking_id", Text, primary_key=True),
    Column("room", Text, nullable=False),
    Column("date", Text, nullable=False),
    Column("start", Text, nullable=False),
    Column("end", Text, nullable=False),
    Column("title", Text, nullable=False),
    Column("attendees", Integer),  # the head count the room was chosen for
    Column("booked_by", Text, nullable=False),
    *stamps(),
)


_ROOM = select(meeting_rooms.c.room).where(meeting_rooms.c.room == bindparam("room"))
_ROOM_CLASH = select(room_bookings.c.room_booking_id).where(
    room_bookings.c.room == bindparam("room"),
    room_bookings.c.date == bindparam("date"),
    room_bookings.c.start < bindparam("end"),
    room_bookings.c.end > bindparam("start"),
)
_ADD_ROOM_BOOKING = insert(room_bookings)
_ROOMS_FITTING = (
    select(meeting_rooms.c.room)
    .where(meeting_rooms.c.capacity >= bindparam("size"))
    .order_by(meeting_rooms.c.capacity, meeting_rooms.c.room)
)


@tool(
    domain=INTERNAL,
    app="roombook",
    mutating=True,
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.RESOURCE_UNAVAILABLE),
)
def roombook_reserve(
    ctx: Ctx,
    room: str,
    date: Date,
    start: Time,
    end: Time,
    title: Annotated[str, Field(min_length=1)],
    attendees: Annotated[int, Field(ge=1, le=500)] | None = None,
) -> dict[str, Any]:
    """Reserve a meeting room in the roombook app (screen action).

    Args:
        room: Room name.
        date: Day, YYYY-MM-DD.
        start: Start time HH:MM.
        end: End time HH:MM.
        title: Booking title.
        attendees: How many people the room is for.
    """
    if ctx.conn.execute(_ROOM, {"room": room}).first() is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no room {room!r}")
    clash = ctx.conn.execute(_ROOM_CLASH, {"room": room, "date": date, "start": start, "end": end}).first()
    if clash:
        raise ToolError(ErrorType.RESOURCE_UNAVAILABLE, f"{room} is taken at that time")
    bid = ctx.new_id(room_bookings)
    ctx.conn.execute(
        _ADD_ROOM_BOOKING,
        dict(
            room_booking_id=bid,
            room=room,
            date=date,
            start=start,
            end=end,
            title=title,
            attendees=attendees,
            booked_by=ctx.actor,
            created_at=ctx.ts(),
            updated_at=ctx.ts(),
        ),
    )
    return {"room_booking_id": bid, "room": room}


def _book_room(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Pick the smallest room that fits the party and is free, as a person would on the app's grid."""
    try:
        size = int(inputs["attendees"]) if not isinstance(inputs["attendees"], list) else len(inputs["attendees"])
    except (TypeError, ValueError) as exc:
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED, "attendees must be a number or a list of people", missing_inputs=["attendees"]
        ) from exc
    candidates = ctx.conn.execute(_ROOMS_FITTING, {"size": size}).scalars().all()
    for room in candidates:
        args = {
            "room": room,
            "date": inputs["date"],
            "start": inputs["start"],
            "end": inputs["end"],
            "title": str(inputs.get("title") or "Meeting"),
            "attendees": size,
        }
        result = ctx.call("roombook_reserve", args)
        if result["Status"] == "success":
            return {"room": room, "booking_code": result["Payload"]["room_booking_id"]}
        if result["ErrorType"] != ErrorType.RESOURCE_UNAVAILABLE:
            raise ToolError(
                ErrorType.SUB_AGENT_FAILED,
                f"the GUI agent could not book: {result['Payload']['message']}",
                reason=result["ErrorType"],
            )
    raise ToolError(ErrorType.SUB_AGENT_FAILED, "no free room fits that party at that time", reason="no_room")


gui_flow(
    GuiFlow(
        "roombook",
        "book_meeting_room",
        ("room", "book*"),
        ("date", "start", "end", "attendees"),
        _book_room,
        optional_inputs=("title",),
    )
)


@seeder
def seed_rooms(conn: Connection, rng: random.Random, persona: Persona) -> None:
    rooms = [("Huddle A", 4, 12), ("Huddle B", 4, 12), ("Maple", 8, 12), ("Oak", 12, 14), ("Auditorium", 60, 1)]
    conn.execute(insert(meeting_rooms), [{"room": r, "capacity": c, "floor": f} for r, c, f in rooms])
    conn.execute(
        insert(room_bookings).values(
            room_booking_id="room_booking_001",
            room="Huddle A",
            date=persona.now[:10],
            start="10:00",
            end="11:00",
            title="1:1",
            attendees=2,
            booked_by="planner",
            created_at=persona.now,
            updated_at=persona.now,
        )
    )


# ---- monitor agent ------------------------------------------------------------------------------

monitors = table(
    "monitors",
    USER,
    Column("monitor_id", Text, primary_key=True),
    Column("job_id", Text, nullable=False),
    Column("condition_json", Text, nullable=False),
    Column("on_trigger_json", Text, nullable=False),
    Column("notify_only", Integer, nullable=False),
    Column("expires_at", Text),
    Column("status", Text, nullable=False),  # active | triggered | expired | failed
    Column("result_json", Text, nullable=False),
    *stamps(),
)


def _ordered(compare: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    """An order comparison that holds only between comparable values (a number and text never compare)."""

    def holds(a: Any, b: Any) -> bool:
        try:
            return a is not None and b is not None and bool(compare(a, b))
        except TypeError:
            return False

    return holds


ORDERED_OPS = ("lt", "le", "gt", "ge")
OPS: dict[str, Callable[[Any, Any], bool]] = {
    "lt": _ordered(lambda a, b: a < b),
    "le": _ordered(lambda a, b: a <= b),
    "gt": _ordered(lambda a, b: a > b),
    "ge": _ordered(lambda a, b: a >= b),
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "contains": lambda a, b: a is not None and str(b).lower() in json.dumps(a, ensure_ascii=False).lower(),
    "exists": lambda a, b: (a is not None) == bool(b),
}
_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_KEY = r"[^\s.\[\]$]+"
PATH_SYNTAX = re.compile(rf"\$(?:\.{_KEY}|\[\d+\])*|{_KEY}(?:\.{_KEY}|\[\d+\])*")


def path_parses(path: str) -> bool:
    """Whether ``path`` is in ``read_path``'s subset: ``$``, then ``.name`` and ``[index]`` parts."""
    return PATH_SYNTAX.fullmatch(path) is not None


def read_path(payload: Any, path: str) -> Any:
    """A small JSONPath subset: ``$.a.b[0].c`` (``$`` optional); None where the path does not exist."""
    value = payload
    for name, index in _PATH_PART.findall(path.removeprefix("$").lstrip(".")):
        if index:
            value = value[int(index)] if isinstance(value, list) and int(index) < len(value) else None
        else:
            value = value.get(name) if isinstance(value, dict) else None
        if value is None:
            return None
    return value


_ADD_MONITOR = insert(monitors)
_SET_MONITOR = update(monitors).where(monitors.c.monitor_id == bindparam("match_monitor_id"))


def register_monitor(
    ctx: Ctx,
    condition: dict[str, Any],
    on_trigger: list[dict[str, Any]],
    notify_only: bool,
    expires_at: str | None,
    description: str | None,
) -> dict[str, Any]:
    """Validate the condition and plan against the registry, then store the monitor (it fires later).

    A monitor that could never fire would report "pending" as a success, so whatever can be checked now
    is: the condition's tool is an app tool that only reads, and its arguments pass that tool's own
    validation; each plan step is a tool the planner could call, with arguments that validate except
    where a placeholder stands for a value an earlier step returns; and the condition does not hold yet
    (one that holds now would fire at once, watching for nothing). (The path's syntax and the
    rules between fields are call_monitor_agent's stated ``check``.)
    """
    spec = REGISTRY.get(condition["tool"])
    if spec is None:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"condition.tool {condition['tool']!r} is not a tool",
            fields=["condition.tool"],
        )
    if not spec.is_domain_tool:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"condition.tool {spec.name} is not an app tool; a monitor watches what an app's read-only tool returns",
            fields=["condition.tool"],
        )
    if spec.mutating:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"condition.tool {spec.name} changes state; a monitor may only watch a read-only tool",
            fields=["condition.tool"],
        )
    _, problem = validate_arguments(spec, condition.get("args", {}))
    if problem:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE, f"condition.args: {problem[1]['message']}", fields=["condition.args"]
        )
    for n, step in enumerate(on_trigger, start=1):
        plan = REGISTRY.get(step["tool"])
        if plan is None or not ctx.executor.offers(plan.name):
            raise ToolError(
                ErrorType.TOOL_NOT_AVAILABLE,
                f"on_trigger[{n}]: {step['tool']!r} is not in the action space",
                fields=[f"on_trigger[{n}].tool"],
            )
        message = _step_problem(plan, step.get("args", {}), n)
        if message:
            raise ToolError(
                ErrorType.INVALID_ARGUMENT_VALUE, f"on_trigger[{n}]: {message}", fields=[f"on_trigger[{n}].args"]
            )
    if expires_at is not None and expires_at <= ctx.ts()[:16]:
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, "expires_at is in the past", fields=["expires_at"])
    handoff = {
        "condition": condition,
        "on_trigger": on_trigger,
        "notify_only": notify_only,
        "expires_at": expires_at,
        "description": description,
    }
    job_id = open_job(ctx, "monitor_agent", handoff, status="pending")
    # a condition that already holds would fire at once: it watches for nothing (the refusal rolls back the job)
    seen = ctx.executor.call(condition["tool"], condition.get("args", {}), actor="monitor_agent", parent_job_id=job_id)
    observed = read_path(seen["Payload"], condition.get("path", "$"))
    if seen["Status"] == "success" and OPS[condition["op"]](observed, condition.get("value")):
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"the condition already holds now ({condition.get('path', '$')} is {json.dumps(observed)[:120]}); "
            "a monitor waits for a change the world does not show yet",
            fields=["condition"],
        )
    monitor_id = ctx.new_id(monitors)
    ctx.conn.execute(
        _ADD_MONITOR,
        dict(
            monitor_id=monitor_id,
            job_id=job_id,
            condition_json=json.dumps(condition, sort_keys=True),
            on_trigger_json=json.dumps(on_trigger, sort_keys=True),
            notify_only=int(notify_only),
            expires_at=expires_at,
            status="active",
            result_json="{}",
            created_at=ctx.ts(),
            updated_at=ctx.ts(),
        ),
    )
    return {
        "job_id": job_id,
        "monitor_id": monitor_id,
        "status": "pending",
        "message": "The monitor agent is watching; it acts when the condition holds.",
    }


_ACTIVE_MONITORS = select(monitors).where(monitors.c.status == "active").order_by(monitors.c.monitor_id)


def fire_monitors(executor: Any, settle_time: str) -> None:
    """Evaluate every active monitor in creation order; run its plan (as ``monitor_agent``) when it holds.

    Called once when the episode settles, after the task's scenario events have changed the world.
    A monitor past its ``expires_at`` expires without checking.
    """
    conn = executor.conn
    with transaction(conn):
        active = conn.execute(_ACTIVE_MONITORS).all()
    for m in active:
        condition, plan = json.loads(m.condition_json), json.loads(m.on_trigger_json)
        if m.expires_at and m.expires_at < settle_time:
            _finish_monitor(executor, m, "expired", {"reason": "expired before the condition held"})
            continue
        seen = executor.call(
            condition["tool"], condition.get("args", {}), actor="monitor_agent", parent_job_id=m.job_id
        )
        observed = read_path(seen["Payload"], condition.get("path", "$"))
        holds = seen["Status"] == "success" and OPS[condition["op"]](observed, condition.get("value"))
        if not holds:
            _finish_monitor(executor, m, "active", {"observed": observed, "held": False}, job_status="pending")
            continue
        outputs: list[dict[str, Any]] = []
        for step in plan:
            args = _fill(step.get("args", {}), outputs)
            outputs.append(executor.call(step["tool"], args, actor="monitor_agent", parent_job_id=m.job_id))
        failed = any(o["Status"] != "success" for o in outputs)
        _finish_monitor(
            executor, m, "failed" if failed else "triggered", {"observed": observed, "held": True, "steps": outputs}
        )


_PLACEHOLDER = re.compile(r"^\{\{step(\d+)\.(.+)\}\}$")


def _placeholders(value: Any, loc: tuple[str | int, ...] = ()) -> list[tuple[tuple[str | int, ...], str]]:
    """Where ``value`` holds ``{{...}}`` text, with that text (a placeholder fills a whole value)."""
    if isinstance(value, dict):
        return [hole for k, v in value.items() for hole in _placeholders(v, (*loc, k))]
    if isinstance(value, list):
        return [hole for i, v in enumerate(value) for hole in _placeholders(v, (*loc, i))]
    return [(loc, value)] if isinstance(value, str) and "{{" in value else []


def _step_problem(spec: Any, args: dict[str, Any], n: int) -> str | None:
    """Why plan step ``n``'s arguments could not run, as far as is known before earlier steps ran."""
    holes = _placeholders(args)
    for loc, text in holes:
        where = ".".join(map(str, loc))
        m = _PLACEHOLDER.match(text)
        if m is None:
            return f"{where}: a placeholder is a whole value, {{{{stepN.Payload.field}}}}"
        if not 0 < int(m.group(1)) < n:
            return f"{where}: {text} does not refer to an earlier step (steps 1 to {n - 1})"
        if not path_parses(m.group(2)):
            return f"{where}: {m.group(2)!r} is not a path such as Payload.items[0].id"
    if not holes:
        _, problem = validate_arguments(spec, args)
        return str(problem[1]["message"]) if problem else None
    try:
        spec.args_model.model_validate(args)
    except ValidationError as exc:  # errors at a placeholder are for the value it will hold, unknown yet
        left = [
            e
            for e in exc.errors(include_url=False, include_input=False)
            if not any(_within(loc, e["loc"]) for loc, _ in holes)
        ]
        if left:
            return f"{spec.name}: " + "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in left)
    return None


def _within(hole: tuple[str | int, ...], loc: tuple[str | int, ...]) -> bool:
    """Whether an error at ``loc`` is at or inside ``hole`` (pydantic adds union member names to a loc)."""
    rest = iter(loc[1:])
    return loc[:1] == hole[:1] and all(any(part == step for step in rest) for part in hole[1:])


def _fill(args: Any, outputs: list[dict[str, Any]]) -> Any:
    """Resolve ``"{{step1.Payload.cart_item_id}}"`` placeholders from earlier plan steps' envelopes."""
    if isinstance(args, dict):
        return {k: _fill(v, outputs) for k, v in args.items()}
    if isinstance(args, list):
        return [_fill(v, outputs) for v in args]
    if isinstance(args, str) and (m := _PLACEHOLDER.match(args)):
        n = int(m.group(1))
        return read_path(outputs[n - 1], m.group(2)) if 0 < n <= len(outputs) else None
    return args


def _finish_monitor(executor: Any, m: Any, status: str, result: dict[str, Any], job_status: str | None = None) -> None:
    conn = executor.conn
    stamp = executor.now.strftime("%Y-%m-%dT%H:%M:%S")
    result_json = json.dumps(result, sort_keys=True, default=str)
    with transaction(conn):
        conn.execute(
            _SET_MONITOR, dict(match_monitor_id=m.monitor_id, status=status, result_json=result_json, updated_at=stamp)
        )
        conn.execute(
            _SET_JOB,
            dict(match_job_id=m.job_id, status=job_status or status, result_json=result_json, updated_at=stamp),
        )


# ---- screen-reader agent ------------------------------------------------------------------------

screen_snapshots = table(
    "screen_snapshots",
    WORLD,
    Column("snapshot_id", Text, primary_key=True),
    Column("app_id", Text, nullable=False),
    Column("ocr_text", Text, nullable=False),
    Column("fields_json", Text, nullable=False),
)


# Names of one field: a planner asks for the name its next tool uses (add_contact's ``phone_number``), a
# screen stores another (``phone``). One declared table, so every screen answers alike; the groups are disjoint.
FIELD_SYNONYMS: tuple[frozenset[str], ...] = tuple(
    frozenset(group)
    for group in (
        ("phone", "phone_number", "tel", "telephone", "mobile", "mobile_number", "phone_no"),
        ("title", "job_title", "position", "role"),
        ("email", "email_address", "e_mail", "mail"),
        ("company", "organization", "organisation", "employer", "company_name"),
        ("name", "full_name", "person_name", "contact_name"),
        ("address", "street_address", "address_line"),
        ("amount", "amount_due", "total", "total_amount", "sum"),
        ("merchant", "store", "shop", "vendor", "biller", "business", "issuer", "issued_by", "business_name", "seller"),
        ("invoice_number", "invoice_no", "invoice", "invoice_id", "invoice_ref"),
        ("restaurant", "restaurant_name", "venue", "place", "venue_name"),
        ("calories", "kcal", "energy", "calories_kcal"),
        ("duration_min", "duration", "minutes", "duration_minutes"),
        ("distance_km", "distance", "km"),
        ("systolic", "sys", "systolic_mmhg"),
        ("diastolic", "dia", "diastolic_mmhg"),
        ("card_number", "member_number", "membership_number", "member_no"),
        ("items", "item_list", "list_items"),
        ("action_items", "actions", "todo", "todos"),
        ("ends_at", "end_time", "ends", "end"),
        ("starts_at", "start_time", "starts", "start"),
        ("sender", "from", "sent_by"),
        ("valid_until", "until", "expires", "expires_at"),
        ("account_number", "iban", "account_no"),
        ("reference", "ref", "payment_reference"),
        ("train_number", "train", "train_no"),
    )
)
_SYNONYMS_OF = {name: group for group in FIELD_SYNONYMS for name in group}


_KEY_SEPARATORS = re.compile(r"[\s\-]+")


def _field_key(name: str) -> str:
    return _KEY_SEPARATORS.sub("_", name.strip().lower())


def field_value(fields: dict[str, Any], wanted: str) -> Any:
    """The snapshot's value for a requested field: its own key, then any spelling or synonym of it."""
    if fields.get(wanted) is not None:
        return fields[wanted]
    key = _field_key(wanted)
    by_key = {_field_key(k): v for k, v in fields.items()}
    names = [key, *sorted(_SYNONYMS_OF.get(key, ()))]
    return next((by_key[n] for n in names if by_key.get(n) is not None), None)


def read_screen(
    ctx: Ctx,
    source: dict[str, Any],
    question: str | None,
    extract_fields: list[str] | None,
) -> dict[str, Any]:
    """OCR and field extraction from a screen snapshot, a gallery photo or a stored file.

    A requested field is found under its own name or a synonym (``FIELD_SYNONYMS``); the result lists the
    source's field names (``available_fields``) so a missing one can be asked for again by its name."""
    kind, ref = source.get("type"), source.get("id")
    if kind not in ("screen", "photo", "file") or not isinstance(ref, str) or not ref:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE, "source must be {type: screen|photo|file, id: <id>}", fields=["source"]
        )
    text, fields = _read_source(ctx, kind, ref)
    job_id = open_job(
        ctx, "screen_reader_agent", {"source": source, "question": question, "extract_fields": extract_fields}
    )
    if extract_fields:
        found = {f: field_value(fields, f) for f in extract_fields}
        missing = [f for f, v in found.items() if v is None]
        result = {
            "job_id": job_id,
            "fields": found,
            "missing": missing,
            "available_fields": sorted(fields),
            "text": text,
        }
    else:
        lines = answer_lines(text, fields, question or "")
        result = {"job_id": job_id, "answer_lines": lines or text.splitlines()[:5], "text": text, "fields": fields}
    return close_job(ctx, job_id, result)


_QUESTION_FILLER = frozenset(
    {
        "what",
        "which",
        "when",
        "where",
        "who",
        "how",
        "does",
        "did",
        "the",
        "and",
        "are",
        "any",
        "its",
        "every",
        "all",
        "list",
        "tell",
        "say",
        "says",
        "show",
        "shown",
        "with",
        "for",
        "from",
        "this",
        "that",
        "there",
        "screen",
        "photo",
        "value",
        "values",
    }
)


def answer_lines(text: str, fields: dict[str, Any], question: str) -> list[str]:
    """Every line of ``text`` the question is about: a line holding one of its terms (a plural's singular too), or
    the value of a field it names ("accessibility settings": the line showing ``accessibility_on``'s "mono_audio")."""
    terms = {w for w in re.findall(r"[a-z0-9]+", question.lower()) if len(w) > 2 and w not in _QUESTION_FILLER}
    terms |= {w[:-1] for w in terms if len(w) > 4 and w.endswith("s")}
    named = [v for k, v in fields.items() if terms & set(_field_key(k).split("_"))]
    values = {
        str(x).replace("_", " ").lower() for v in named for x in (v if isinstance(v, list) else [v]) if len(str(x)) > 1
    }
    # a term at the start of a word; no terms: no line holds one
    term = re.compile(rf"(?<![a-z0-9])(?:{'|'.join(map(re.escape, sorted(terms)))})") if terms else None
    return [
        ln
        for ln, lowered in ((ln, ln.lower()) for ln in text.splitlines())
        if (term is not None and term.search(lowered)) or any(v in lowered for v in values)
    ]


def _read_source(ctx: Ctx, kind: str, ref: str) -> tuple[str, dict[str, Any]]:
    if kind == "screen":
        t, key, text_col = screen_snapshots, "snapshot_id", "ocr_text"
    elif kind == "photo":
        t, key, text_col = metadata.tables["photos"], "photo_id", "ocr_text"
    else:
        t, key, text_col = metadata.tables["files"], "file_id", "content"
    row = ctx.conn.execute(select(t).where(t.c[key] == ref)).first()
    if row is None or getattr(row, "deleted_at", None):
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no {kind} {ref!r}", field="source.id")
    data = row._mapping
    fields = json.loads(data["fields_json"]) if data.get("fields_json") else {}
    return str(data[text_col] or ""), fields


# ---- voice agent -------------------------------------------------------------------------------

world_phone_services = table(
    "world_phone_services",
    WORLD,
    Column("phone", Text, primary_key=True),
    Column("place_id", Text),
    Column("name", Text, nullable=False),
    Column("handler", Text, nullable=False),  # inquiry | booking (a table, a tour: for a party) | appointment
    Column("rules_json", Text, nullable=False),
)

phone_bookings = table(
    "phone_bookings",
    USER,
    Column("phone_booking_id", Text, primary_key=True),
    Column("business_phone", Text, nullable=False),
    Column("business", Text, nullable=False),
    Column("date", Text, nullable=False),
    Column("time", Text, nullable=False),
    Column("party_size", Integer, nullable=False),
    Column("name", Text, nullable=False),
    Column("notes", Text),
    Column("status", Text, nullable=False),
    Column("source", Text, nullable=False),
    *stamps(),
)


_ADD_PHONE_BOOKING = insert(phone_bookings)


@tool(domain=INTERNAL, app="assistant", mutating=True, errors=(ErrorType.RESOURCE_UNAVAILABLE,))
def voice_confirm_booking(
    ctx: Ctx,
    business_phone: str,
    business: str,
    date: Date,
    time: Time,
    party_size: Annotated[int, Field(ge=1, le=50)],
    name: Annotated[str, Field(min_length=1)],
    notes: str | None = None,
) -> dict[str, Any]:
    """Record a booking a business confirmed on the phone (voice-agent action).

    Args:
        business_phone: The business's phone number.
        business: The business's name.
        date: Day, YYYY-MM-DD.
        time: Time HH:MM.
        party_size: Number of people.
        name: Name the booking is under.
        notes: Special requests.
    """
    booking_id = ctx.new_id(phone_bookings)
    ctx.conn.execute(
        _ADD_PHONE_BOOKING,
        dict(
            phone_booking_id=booking_id,
            business_phone=business_phone,
            business=business,
            date=date,
            time=time,
            party_size=party_size,
            name=name,
            notes=notes,
            status="confirmed",
            source=ctx.actor,
            created_at=ctx.ts(),
            updated_at=ctx.ts(),
        ),
    )
    return {"phone_booking_id": booking_id}


def place_call(ctx: Ctx, callee: dict[str, Any], objective: str, facts: dict[str, Any]) -> dict[str, Any]:
    """Phone a business; its seeded rules answer, book, offer an alternative or refuse."""
    q = select(world_phone_services)
    if callee.get("phone"):
        q = q.where(world_phone_services.c.phone == normalise_phone(str(callee["phone"])))
    elif callee.get("place_id"):
        q = q.where(world_phone_services.c.place_id == callee["place_id"])
    else:
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, "callee needs a phone or a place_id", fields=["callee"])
    service = ctx.conn.execute(q).first()
    if service is None:
        raise ToolError(ErrorType.SUB_AGENT_FAILED, "nobody answered at that number", reason="no_answer")
    rules = json.loads(service.rules_json)
    job_id = open_job(ctx, "voice_agent", {"callee": callee, "objective": objective, "facts": facts})
    agent_ctx = Ctx(ctx.conn, ctx.executor, ctx.step, "voice_agent", job_id)
    if service.handler == "inquiry":
        answer = inquiry_answer(rules, objective, facts)
        if answer is None:  # a non-answer is the call's failure, never a success the model could relay
            raise ToolError(
                ErrorType.SUB_AGENT_FAILED,
                f"{service.name} could not answer that: nobody there knew about it",
                reason="no_answer",
                hint="name the topic plainly in the objective, or tell the user",
            )
        result = {"outcome": "success", "details": {"answer": answer}, "summary": f"{service.name}: {answer}"}
    else:
        result = _phone_booking(agent_ctx, service, rules, facts)
    return close_job(ctx, job_id, {"job_id": job_id, **result})


def inquiry_answer(rules: dict[str, Any], objective: str, facts: dict[str, Any]) -> str | None:
    """The answer to the topic the caller raises, however phrased: a key of ``rules["answers"]`` is one or more
    terms separated by ``|`` ("roaming|data abroad|extra cost"), and the first key (in sorted order) with a term
    in the objective or in the facts' values picks its answer; none: None (the business has no answer to give,
    and the call fails rather than report "please come by" as an answer)."""
    said = " ".join([objective, *(json.dumps(v, ensure_ascii=False) for v in facts.values())]).lower()
    return next(
        (
            a
            for k, a in sorted(rules["answers"].items())
            if any(term.strip() and term.strip() in said for term in k.lower().split("|"))
        ),
        None,
    )


# What a business asks before it books: a table or a tour is for a party; an appointment (a plumber, a garage, a
# salon) is one customer's, so nobody there asks how many people come. A line's ``rules["requires"]`` overrides.
BOOKING_NEEDS: dict[str, tuple[str, ...]] = {
    "booking": ("date", "time", "party_size", "name"),
    "appointment": ("date", "time", "name"),
}


def _phone_booking(ctx: Ctx, service: Any, rules: dict[str, Any], facts: dict[str, Any]) -> dict[str, Any]:
    needs = rules.get("requires") or BOOKING_NEEDS.get(service.handler, BOOKING_NEEDS["booking"])
    missing = [k for k in needs if facts.get(k) in (None, "")]
    if missing:
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"the business asked for: {', '.join(missing)}",
            missing_inputs=missing,
            hint="ask_user",
        )
    time_ = str(facts["time"])
    if not rules["open"] <= time_ < rules["close"] or time_ in rules.get("full", []):
        slot = next((t for t in rules["slots"] if t >= time_ and t not in rules.get("full", [])), rules["slots"][-1])
        return {
            "outcome": "alternative_offered",
            "details": {"offered_time": slot},
            "summary": f"{service.name} cannot take {time_}; they offered {slot}",
        }
    party = int(facts.get("party_size") or 1)
    notes = "; ".join(str(facts[k]) for k in ("notes", "address") if facts.get(k))
    result = ctx.call(
        "voice_confirm_booking",
        {
            "business_phone": service.phone,
            "business": service.name,
            "date": str(facts["date"]),
            "time": time_,
            "party_size": party,
            "name": str(facts.get("name") or "the caller"),
            **({"notes": notes} if notes else {}),
        },
    )
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"the booking failed: {result['Payload']['message']}",
            reason=result["ErrorType"],
        )
    whom = f"{party} " if "party_size" in needs else "you "
    return {
        "outcome": "success",
        "details": result["Payload"],
        "summary": f"{service.name} confirmed {whom}at {time_} on {facts['date']}",
    }


@seeder
def seed_subagent_fixtures(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """Screens to read and businesses to phone."""
    due = f"{rng.randint(80, 240)}.50"
    conn.execute(
        insert(screen_snapshots),
        [
            {
                "snapshot_id": "snapshot_001",
                "app_id": "browser",
                "ocr_text": "Conference schedule\n09:30 Keynote\n"
                "11:00 Panel: Agents on phones\n14:00 Workshop: Tool use",
                "fields_json": json.dumps(
                    {"sessions": ["09:30 Keynote", "11:00 Panel: Agents on phones", "14:00 Workshop: Tool use"]}
                ),
            },
            {
                "snapshot_id": "snapshot_002",
                "app_id": "camera",
                "ocr_text": f"ACME Utilities\nInvoice INV-2291\nAmount due: {due}\nDue date: 2025-07-01",
                "fields_json": json.dumps(
                    {
                        "biller": "ACME Utilities",
                        "invoice_number": "INV-2291",
                        "amount_due": due,
                        "due_date": "2025-07-01",
                    }
                ),
            },
        ],
    )
    lines = random.Random(f"{persona.persona_id}:phone-services")  # apart from the fixtures' own stream
    phones = [normalise_phone(business_phone(persona.home_city, lines)) for _ in range(3)]
    restaurant_rules = {
        "open": "11:00",
        "close": "22:00",
        "slots": ["18:00", "18:30", "19:00", "20:00", "21:00"],
        "full": ["19:30"],
    }
    conn.execute(
        insert(world_phone_services),
        [
            {
                "phone": phones[0],
                "place_id": None,
                "name": "Golden Dragon (phone bookings only)",
                "handler": "booking",
                "rules_json": json.dumps(restaurant_rules),
            },
            {
                "phone": phones[1],
                "place_id": None,
                "name": "Corner Pharmacy",
                "handler": "inquiry",
                "rules_json": json.dumps(
                    {
                        "answers": {
                            "ibuprofen": "In stock, 12 packs.",
                            "insulin": "Out of stock until Monday.",
                            "open|hour|clos|holiday": "On public holidays we are open 10:00 to 16:00.",
                        },
                    }
                ),
            },
            {
                "phone": phones[2],
                "place_id": None,
                "name": "Style Studio salon",
                "handler": "appointment",
                "rules_json": json.dumps({"open": "09:00", "close": "19:00", "slots": ["10:00", "14:00", "17:00"]}),
            },
        ],
    )
