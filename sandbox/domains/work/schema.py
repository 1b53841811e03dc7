"""The work domain's data model: its tables, and the constants and types its tools and seeder share."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from sqlalchemy import Column, Float, Integer, Text

from sandbox.schema import USER, WORLD, stamps, table

emails = table(
    "emails",
    USER,
    Column("message_id", Text, primary_key=True),
    Column("thread_id", Text, nullable=False),  # the message_id of the thread's first email
    Column("folder", Text, nullable=False),  # inbox | sent | drafts | archive | trash | spam
    Column("from_name", Text, nullable=False),
    Column("from_addr", Text, nullable=False),
    Column("to_json", Text, nullable=False),
    Column("cc_json", Text, nullable=False),
    Column("bcc_json", Text, nullable=False),
    Column("subject", Text, nullable=False),
    Column("body", Text, nullable=False),
    Column("attachments_json", Text, nullable=False),  # [{"name", "size_mb", "file_id"?}]
    Column("is_read", Integer, nullable=False),
    Column("is_starred", Integer, nullable=False),
    Column("in_reply_to", Text),
    Column("sent_at", Text, nullable=False),  # YYYY-MM-DDTHH:MM:SS
    *stamps(),
    natural_key=("folder", "subject", "sent_at"),
    id_prefix="email",
)

documents = table(
    "documents",
    USER,
    Column("file_id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("doc_type", Text, nullable=False),  # doc | sheet | slides
    Column("folder_path", Text, nullable=False),
    Column("content", Text, nullable=False),
    Column("size_mb", Float, nullable=False),
    *stamps(),
    natural_key=("folder_path", "title", "doc_type"),
    id_prefix="document",
)

file_shares = table(
    "file_shares",
    USER,
    Column("share_id", Text, primary_key=True),
    Column("file_id", Text, nullable=False),
    Column("grantee", Text, nullable=False),  # an email address
    Column("access", Text, nullable=False),  # view | comment | edit
    *stamps(),
    natural_key=("file_id", "grantee"),
)

courses = table(
    "courses",
    WORLD,
    Column("course_id", Text, primary_key=True),
    Column("code", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("instructor", Text, nullable=False),
    Column("schedule_json", Text, nullable=False),  # [{"day", "time", "room"}]
    natural_key=("code",),
)

assignments = table(
    "assignments",
    USER,
    Column("assignment_id", Text, primary_key=True),
    Column("course_id", Text, nullable=False),
    Column("title", Text, nullable=False),
    Column("kind", Text, nullable=False),  # homework | exam | project | reading
    Column("due", Text, nullable=False),  # YYYY-MM-DDTHH:MM
    Column("status", Text, nullable=False),  # open | submitted | graded
    Column("notes", Text),
    Column("task_id", Text),  # the reminder task, when one was asked for
    *stamps(),
    natural_key=("course_id", "title"),
)

focus_sessions = table(
    "focus_sessions",
    USER,
    Column("session_id", Text, primary_key=True),
    Column("duration_min", Integer, nullable=False),
    Column("break_min", Integer, nullable=False),
    Column("cycles", Integer, nullable=False),
    Column("task_id", Text),
    Column("blocked_apps_json", Text, nullable=False),
    Column("started_at", Text, nullable=False),
    Column("ends_at", Text, nullable=False),  # YYYY-MM-DDTHH:MM
    Column("status", Text, nullable=False),  # active | completed | cancelled
    *stamps(),
    id_prefix="focus",
)

MAX_ATTACHMENTS_MB = 25.0
MIN_FREE_GB = 0.1  # below this the phone refuses to save new files
Folder = Literal["inbox", "sent", "drafts", "archive", "trash", "spam", "all"]

Address = Annotated[str, Field(min_length=1, max_length=120)]
Addresses = Annotated[list[Address], Field(max_length=50)]
Attachments = Annotated[list[Annotated[str, Field(pattern=r"^document_\d{3,}$")]], Field(max_length=10)]
Subject = Annotated[str, Field(min_length=1, max_length=200)]
Body = Annotated[str, Field(min_length=1, max_length=20000)]
