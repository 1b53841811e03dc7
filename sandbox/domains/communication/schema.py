"""The communication domain's data model: its tables, and the constants and types its tools and seeder share."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field
from sqlalchemy import Column, Integer, Text

from sandbox.schema import USER, stamps, table

contacts = table(
    "contacts",
    USER,
    Column("contact_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("phone_number", Text, nullable=False),
    Column("email", Text),
    Column("relationship", Text),
    Column("birthday", Text),
    Column("company", Text),
    Column("notes", Text),
    Column("favorite", Integer, nullable=False, default=0),
    *stamps(),
    natural_key=("phone_number",),
)

messages = table(
    "messages",
    USER,
    Column("message_id", Text, primary_key=True),
    Column("channel", Text, nullable=False),  # sms | chat
    Column("direction", Text, nullable=False),  # in | out
    Column("counterpart", Text, nullable=False),  # normalised phone number, or group_id
    Column("contact_id", Text),
    Column("body", Text, nullable=False),
    Column("is_read", Integer, nullable=False),
    Column("status", Text, nullable=False),  # sent | received | deleted
    Column("sent_at", Text, nullable=False),
    *stamps(),
)

call_log = table(
    "call_log",
    USER,
    Column("call_id", Text, primary_key=True),
    Column("number", Text, nullable=False),
    Column("contact_id", Text),
    Column("type", Text, nullable=False),  # incoming | outgoing | missed
    Column("app", Text, nullable=False),  # phone | chat
    Column("video", Integer, nullable=False),
    Column("started_at", Text, nullable=False),
    Column("duration_sec", Integer, nullable=False),
    *stamps(),
)

blocked_numbers = table(
    "blocked_numbers",
    USER,
    Column("number", Text, primary_key=True),
    Column("contact_id", Text),
    Column("reported_spam", Integer, nullable=False),
    *stamps(),
    natural_key=("number",),
)

groups = table(
    "groups",
    USER,
    Column("group_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("members_json", Text, nullable=False),  # sorted contact ids
    Column("is_admin", Integer, nullable=False),  # whether the user may change the membership
    *stamps(),
    natural_key=("name",),
)

ContactRef = Annotated[str, Field(min_length=1, max_length=64)]
Recipients = Annotated[list[ContactRef], Field(min_length=1, max_length=20)]
