"""Sub-agent simulators: deterministic, driven by declared flows, effects applied through the executor.

A GUI flow stands for an app screen sequence with no API. Its effects are app-internal actions
(tools of domain ``internal``, callable only by a sub-agent actor), run through the same executor
so they are validated, logged with ``actor=gui_agent`` and ``parent_job_id``, and seen in the diff.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import Column, Connection, Integer, Text, insert, select, update

from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx
from sandbox.schema import USER, WORLD, apps, stamps, subagent_jobs, table
from sandbox.tooling import INTERNAL, Date, Time, tool
from sandbox.world import Persona, seeder


@dataclass(frozen=True)
class GuiFlow:
    app_id: str
    intent: str
    keywords: tuple[str, ...]  # a goal matches when it mentions any of these
    required_inputs: tuple[str, ...]
    run: Callable[[Ctx, dict[str, Any]], dict[str, Any]]


def run_gui(ctx: Ctx, app_id: str, goal: str, inputs: dict[str, Any], expected_outputs: list[str]) -> dict[str, Any]:
    installed = ctx.conn.execute(select(apps.c.installed).where(apps.c.app_id == app_id)).scalar()
    if installed != 1:
        raise ToolError(ErrorType.UNSUPPORTED_OPERATION, f"app {app_id!r} is not installed", app_id=app_id)
    words = goal.lower()
    flow = next((f for f in GUI_FLOWS if f.app_id == app_id and any(k in words for k in f.keywords)), None)
    if flow is None:
        raise ToolError(ErrorType.SUB_AGENT_FAILED, f"the GUI agent found no way to '{goal}' in {app_id}",
                        reason="no_matching_flow")
    missing = [k for k in flow.required_inputs if inputs.get(k) in (None, "", [])]
    if missing:
        raise ToolError(ErrorType.SUB_AGENT_FAILED, f"the {flow.intent} flow needs: {', '.join(missing)}",
                        missing_inputs=missing, hint="ask_user")
    job_id = ctx.new_id(subagent_jobs)
    handoff = {"app_id": app_id, "goal": goal, "inputs": inputs, "expected_outputs": expected_outputs}
    ctx.conn.execute(insert(subagent_jobs).values(
        job_id=job_id, agent="gui_agent", handoff_json=json.dumps(handoff, sort_keys=True), status="running",
        result_json="{}", created_at=ctx.ts(), updated_at=ctx.ts()))
    agent_ctx = Ctx(ctx.conn, ctx.executor, ctx.step, "gui_agent", job_id)
    outputs = flow.run(agent_ctx, inputs)
    result = {"job_id": job_id, "status": "completed", "intent": flow.intent,
              "outputs": {k: outputs.get(k) for k in expected_outputs} if expected_outputs else outputs}
    ctx.conn.execute(update(subagent_jobs).where(subagent_jobs.c.job_id == job_id).values(
        status="completed", result_json=json.dumps(result, sort_keys=True), updated_at=ctx.ts()))
    return result


# ---- roombook: the company's meeting-room app (no API) ----------------------------------------

meeting_rooms = table(
    "meeting_rooms", WORLD,
    Column("room", Text, primary_key=True), Column("capacity", Integer, nullable=False),
    Column("floor", Integer, nullable=False),
)
room_bookings = table(
    "room_bookings", USER,
    Column("room_booking_id", Text, primary_key=True),
    Column("room", Text, nullable=False),
    Column("date", Text, nullable=False),
    Column("start", Text, nullable=False),
    Column("end", Text, nullable=False),
    Column("title", Text, nullable=False),
    Column("booked_by", Text, nullable=False),
    *stamps(),
)


@tool(domain=INTERNAL, app="roombook", mutating=True, network="internet",
      errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.RESOURCE_UNAVAILABLE))
def roombook_reserve(
    ctx: Ctx, room: str, date: Date, start: Time, end: Time, title: Annotated[str, Field(min_length=1)],
) -> dict[str, Any]:
    """Reserve a meeting room in the roombook app (screen action).

    Args:
        room: Room name.
        date: Day, YYYY-MM-DD.
        start: Start time HH:MM.
        end: End time HH:MM.
        title: Booking title.
    """
    if ctx.conn.execute(select(meeting_rooms.c.room).where(meeting_rooms.c.room == room)).first() is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no room {room!r}")
    clash = ctx.conn.execute(select(room_bookings.c.room_booking_id).where(
        room_bookings.c.room == room, room_bookings.c.date == date, room_bookings.c.start < end,
        room_bookings.c.end > start)).first()
    if clash:
        raise ToolError(ErrorType.RESOURCE_UNAVAILABLE, f"{room} is taken at that time")
    bid = ctx.new_id(room_bookings)
    ctx.conn.execute(insert(room_bookings).values(
        room_booking_id=bid, room=room, date=date, start=start, end=end, title=title, booked_by=ctx.actor,
        created_at=ctx.ts(), updated_at=ctx.ts()))
    return {"room_booking_id": bid, "room": room}


def _book_room(ctx: Ctx, inputs: dict[str, Any]) -> dict[str, Any]:
    """Pick the smallest room that fits the party and is free, as a person would on the app's grid."""
    try:
        size = int(inputs["attendees"]) if not isinstance(inputs["attendees"], list) else len(inputs["attendees"])
    except (TypeError, ValueError) as exc:
        raise ToolError(ErrorType.SUB_AGENT_FAILED, "attendees must be a number or a list of people",
                        missing_inputs=["attendees"]) from exc
    candidates = ctx.conn.execute(select(meeting_rooms.c.room).where(meeting_rooms.c.capacity >= size).order_by(
        meeting_rooms.c.capacity, meeting_rooms.c.room)).scalars().all()
    for room in candidates:
        args = {"room": room, "date": inputs["date"], "start": inputs["start"], "end": inputs["end"],
                "title": str(inputs.get("title") or "Meeting")}
        result = ctx.call("roombook_reserve", args)
        if result["Status"] == "success":
            return {"room": room, "booking_code": result["Payload"]["room_booking_id"]}
        if result["ErrorType"] != ErrorType.RESOURCE_UNAVAILABLE:
            raise ToolError(ErrorType.SUB_AGENT_FAILED, f"the GUI agent could not book: {result['Payload']['message']}",
                            reason=result["ErrorType"])
    raise ToolError(ErrorType.SUB_AGENT_FAILED, "no free room fits that party at that time", reason="no_room")


GUI_FLOWS: tuple[GuiFlow, ...] = (
    GuiFlow("roombook", "book_meeting_room", ("room", "book"), ("date", "start", "end", "attendees"), _book_room),
)


@seeder
def seed_rooms(conn: Connection, rng: random.Random, persona: Persona) -> None:
    rooms = [("Huddle A", 4, 12), ("Huddle B", 4, 12), ("Maple", 8, 12), ("Oak", 12, 14), ("Auditorium", 60, 1)]
    conn.execute(insert(meeting_rooms), [{"room": r, "capacity": c, "floor": f} for r, c, f in rooms])
    conn.execute(insert(room_bookings).values(
        room_booking_id="room_booking_001", room="Huddle A", date=persona.now[:10], start="10:00", end="11:00",
        title="1:1", booked_by="planner", created_at=persona.now, updated_at=persona.now))
