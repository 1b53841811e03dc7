"""The productivity domain's data model: its tables, and the constants and types its tools and seeder share."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal, get_args

from pydantic import AfterValidator, Field
from sqlalchemy import Column, ForeignKey, Integer, Text

from sandbox.schema import USER, WORLD, stamps, table

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
