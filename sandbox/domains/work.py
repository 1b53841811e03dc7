"""D1 Work, Study & Productivity, 1.5-1.8: email, documents and sharing, courses, focus sessions.

Documents are stored in ``documents`` (ids ``document_NNN``) with their grants in ``file_shares``;
the Files app's own ``files`` table is a separate catalogue.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import (
    Column,
    Connection,
    Float,
    Integer,
    Table,
    Text,
    bindparam,
    func,
    insert,
    select,
    update,
)

from sandbox.domains.apps_security.schema import folders
from sandbox.domains.communication import contacts
from sandbox.domains.productivity import DT_FMT, WEEKDAYS, _one_of, _words, tasks
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, row_by_key, rows
from sandbox.personas import Persona, seeder
from sandbox.schema import USER, WORLD, apps, device_settings, stamps, table, user_profile
from sandbox.tooling import EMAIL_PATTERN, Date, DateTime, tool

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


def _row(ctx: Ctx, tbl: Table, value: str, hint: str) -> dict[str, Any]:
    """The row with this id (of emails, documents or tasks), or EntityNotFound naming the tool that finds such ids."""
    key = next(iter(tbl.primary_key.columns)).name
    row = ctx.conn.execute(row_by_key(tbl), {"key": value}).first()
    if row is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no {tbl.name.removesuffix('s')} {value!r}", field=key, hint=hint)
    return dict(row._mapping)


_ME = select(user_profile.c.name, user_profile.c.email)


def _me(ctx: Ctx) -> tuple[str, str]:
    """The user's (name, email address)."""
    me = ctx.conn.execute(_ME).one()
    return me.name, me.email


# ---- Email Management (1.5) -------------------------------------------------------------------


def _recipients_valid(args: dict[str, Any]) -> str | None:
    """Every recipient is a contact id (contact_...) or an email address."""
    for key in ("to", "cc", "bcc", "share_with"):
        for ref in args.get(key, []):
            if not ref.startswith("contact_") and not re.match(EMAIL_PATTERN, ref):
                return f"{key}: {ref!r} is neither a contact id nor an email address"
    return None


_CONTACT_EMAILS = select(contacts.c.contact_id, contacts.c.email).where(
    contacts.c.contact_id.in_(bindparam("contact_ids", expanding=True))
)


def _addresses(ctx: Ctx, *lists: list[str]) -> list[list[str]]:
    """Each list of contact ids and addresses as email addresses, in order, without repeats.

    Any unknown contact is EntityNotFound; then any contact without an address is InvalidArgumentValue.
    """
    ids = sorted({r for refs in lists for r in refs if r.startswith("contact_")})
    known = dict(ctx.conn.execute(_CONTACT_EMAILS, {"contact_ids": ids}).all())
    missing = [c for c in ids if c not in known]
    if missing:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no contact(s) {', '.join(missing)}", missing=missing, hint="search_contacts"
        )
    no_address = [c for c in ids if not known[c]]
    if no_address:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"contact(s) without an email address: {', '.join(no_address)}",
            contact_ids=no_address,
            hint="ask the user for the address",
        )
    return [
        list(dict.fromkeys(known[r].lower() if r.startswith("contact_") else r.lower() for r in refs)) for refs in lists
    ]


def _email_out(e: dict[str, Any]) -> dict[str, Any]:
    return {
        "message_id": e["message_id"],
        "thread_id": e["thread_id"],
        "folder": e["folder"],
        "from": f"{e['from_name']} <{e['from_addr']}>",
        "to": json.loads(e["to_json"]),
        "cc": json.loads(e["cc_json"]),
        "subject": e["subject"],
        "body": e["body"],
        "attachments": json.loads(e["attachments_json"]),
        "is_read": bool(e["is_read"]),
        "is_starred": bool(e["is_starred"]),
        "sent_at": e["sent_at"],
    }


_DOCUMENTS_IN = select(documents).where(documents.c.file_id.in_(bindparam("file_ids", expanding=True)))


def _doc_attachments(ctx: Ctx, file_ids: list[str]) -> list[dict[str, Any]]:
    docs = {d["file_id"]: d for d in rows(ctx.conn.execute(_DOCUMENTS_IN, {"file_ids": file_ids}))}
    missing = [f for f in file_ids if f not in docs]
    if missing:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no document(s) {', '.join(missing)}", missing=missing, field="attachments"
        )
    return [
        {"file_id": f, "name": f"{docs[f]['title']}.{docs[f]['doc_type']}", "size_mb": docs[f]["size_mb"]}
        for f in dict.fromkeys(file_ids)
    ]


_ADD_EMAIL = insert(emails)


def _store_email(
    ctx: Ctx,
    folder: str,
    to: list[str],
    cc: list[str],
    bcc: list[str],
    subject: str,
    body: str,
    attachments: list[dict[str, Any]],
    reply_to: dict[str, Any] | None,
) -> dict[str, Any]:
    """Insert the user's outgoing (or draft) email and return its row."""
    name, addr = _me(ctx)
    mid = ctx.new_id(emails)
    row = {
        "message_id": mid,
        "thread_id": reply_to["thread_id"] if reply_to else mid,
        "folder": folder,
        "from_name": name,
        "from_addr": addr,
        "to_json": json.dumps(to),
        "cc_json": json.dumps(cc),
        "bcc_json": json.dumps(bcc),
        "subject": subject,
        "body": body,
        "attachments_json": json.dumps(attachments),
        "is_read": 1,
        "is_starred": 0,
        "in_reply_to": reply_to["message_id"] if reply_to else None,
        "sent_at": ctx.ts(),
    }
    ctx.conn.execute(_ADD_EMAIL, {**row, "created_at": ctx.ts(), "updated_at": ctx.ts()})
    return row


def _reply_xor_forward(args: dict[str, Any]) -> str | None:
    """Give reply_to_message_id or forward_message_id, not both; recipients are contact ids (contact_...) or email
    addresses."""
    if "reply_to_message_id" in args and "forward_message_id" in args:
        return "give reply_to_message_id or forward_message_id, not both"
    return _recipients_valid(args)


@tool(
    l2="1.5",
    app="mail",
    mutating=True,
    network="internet",
    needs_login=True,
    check=_reply_xor_forward,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.LIMIT_EXCEEDED),
)
def send_email(
    ctx: Ctx,
    to: Annotated[list[Address], Field(min_length=1, max_length=50)],
    subject: Subject,
    body: Body,
    cc: Addresses | None = None,
    bcc: Addresses | None = None,
    attachments: Attachments | None = None,
    reply_to_message_id: str | None = None,
    forward_message_id: str | None = None,
) -> dict[str, Any]:
    """Send an email now: a new one, a reply in its thread, or a forward (which carries the original's attachments).

    Args:
        to: Recipients, each a contact id (contact_904) or an email address.
        subject: Subject line.
        body: Text of the email.
        cc: Copy recipients, contact ids or addresses.
        bcc: Blind-copy recipients, contact ids or addresses.
        attachments: Documents to attach, e.g. ["document_903"]; all attachments together may not exceed 25 MB.
        reply_to_message_id: Id of the email this replies to (keeps the thread), e.g. email_942.
        forward_message_id: Id of the email to forward with its attachments.
    """
    replied = _row(ctx, emails, reply_to_message_id, "search_emails") if reply_to_message_id else None
    forwarded = _row(ctx, emails, forward_message_id, "search_emails") if forward_message_id else None
    files = _doc_attachments(ctx, attachments or [])
    to_addr, cc_addr, bcc_addr = _addresses(ctx, to, cc or [], bcc or [])
    carried = json.loads(forwarded["attachments_json"]) if forwarded else []
    total = round(sum(a["size_mb"] for a in carried + files), 2)
    if total > MAX_ATTACHMENTS_MB:
        raise ToolError(
            ErrorType.LIMIT_EXCEEDED,
            f"attachments total {total} MB; the limit is {MAX_ATTACHMENTS_MB:g} MB",
            total_mb=total,
            limit_mb=MAX_ATTACHMENTS_MB,
        )
    row = _store_email(ctx, "sent", to_addr, cc_addr, bcc_addr, subject, body, carried + files, replied)
    return {**_email_out(row), "bcc": bcc_addr}


@tool(
    l2="1.5",
    app="mail",
    mutating=True,
    check=_recipients_valid,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.INVALID_ARGUMENT_VALUE),
)
def save_email_draft(
    ctx: Ctx,
    body: Body,
    to: Addresses | None = None,
    cc: Addresses | None = None,
    subject: Subject | None = None,
    attachments: Attachments | None = None,
    reply_to_message_id: str | None = None,
) -> dict[str, Any]:
    """Save an email in Drafts without sending it.

    Args:
        body: Text of the email.
        to: Recipients, contact ids or email addresses.
        cc: Copy recipients, contact ids or addresses.
        subject: Subject line.
        attachments: Documents to attach, e.g. ["document_903"].
        reply_to_message_id: Id of the email this will reply to, e.g. email_942.
    """
    replied = _row(ctx, emails, reply_to_message_id, "search_emails") if reply_to_message_id else None
    files = _doc_attachments(ctx, attachments or [])
    to_addr, cc_addr = _addresses(ctx, to or [], cc or [])
    row = _store_email(ctx, "drafts", to_addr, cc_addr, [], subject or "", body, files, replied)
    return _email_out(row)


@tool(
    l2="1.5",
    app="mail",
    mutating=False,
    needs_login=True,
    check=_one_of("query", "sender", "folder", "unread_only", "has_attachment", "date_from", "date_to"),
)
def search_emails(
    ctx: Ctx,
    query: Annotated[str, Field(min_length=1, max_length=200)] | None = None,
    sender: Annotated[str, Field(min_length=1, max_length=120)] | None = None,
    folder: Folder = "inbox",
    unread_only: bool | None = None,
    has_attachment: bool | None = None,
    date_from: Date | None = None,
    date_to: Date | None = None,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
) -> dict[str, Any]:
    """Search the mailbox, newest first (give at least one filter; the folder alone counts).

    Args:
        query: Words that must all appear in the subject, body or addresses (case-insensitive).
        sender: Part of the sender's name or address, e.g. "hr@" or "Alex".
        folder: Which folder to search; "all" searches every folder.
        unread_only: Only unread emails.
        has_attachment: true for only emails with attachments, false for only those without.
        date_from: Earliest day, YYYY-MM-DD.
        date_to: Latest day, YYYY-MM-DD.
        limit: Maximum number of emails.
    """
    e = emails.c
    q = select(emails)
    if folder != "all":
        q = q.where(e.folder == folder)
    if query:
        q = q.where(*_words([e.subject, e.body, e.from_addr, e.from_name, e.to_json], query))
    if sender:
        q = q.where(*_words([e.from_addr, e.from_name], sender))
    if unread_only:
        q = q.where(e.is_read == 0)
    if has_attachment is not None:
        q = q.where((e.attachments_json != "[]") if has_attachment else (e.attachments_json == "[]"))
    if date_from:
        q = q.where(e.sent_at >= date_from)
    if date_to:
        q = q.where(e.sent_at <= f"{date_to}T23:59:59")
    found = rows(ctx.conn.execute(q.order_by(e.sent_at.desc(), e.message_id).limit(limit)))
    return {"emails": [_email_out(r) for r in found], "count": len(found)}


_EMAILS_IN = select(emails).where(emails.c.message_id.in_(bindparam("message_ids", expanding=True)))
_SET_EMAILS = update(emails).where(emails.c.message_id.in_(bindparam("match_message_ids", expanding=True)))


@tool(
    l2="1.5",
    app="mail",
    mutating=True,
    check=_one_of("folder", "mark_read", "starred"),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT),
)
def move_email(
    ctx: Ctx,
    message_ids: Annotated[list[str], Field(min_length=1, max_length=100)],
    folder: Literal["inbox", "archive", "trash", "spam"] | None = None,
    mark_read: bool | None = None,
    starred: bool | None = None,
) -> dict[str, Any]:
    """Move emails to a folder and/or mark them read or unread, starred or unstarred.

    Args:
        message_ids: Ids of the emails, e.g. ["email_942"].
        folder: Folder to move them to.
        mark_read: true marks them read, false unread.
        starred: true stars them, false removes the star.
    """
    found = {r["message_id"]: r for r in rows(ctx.conn.execute(_EMAILS_IN, {"message_ids": message_ids}))}
    missing = sorted(set(message_ids) - set(found))
    if missing:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no email(s) {', '.join(missing)}", missing=missing, hint="search_emails"
        )
    target = {
        k: v
        for k, v in {
            "folder": folder,
            "is_read": None if mark_read is None else int(mark_read),
            "is_starred": None if starred is None else int(starred),
        }.items()
        if v is not None
    }
    changed = sorted(m for m, r in found.items() if any(r[k] != v for k, v in target.items()))
    if not changed:
        raise ToolError(ErrorType.STATE_CONFLICT, "every email is already in the requested state", current=target)
    ctx.conn.execute(_SET_EMAILS, {"match_message_ids": changed, **target, "updated_at": ctx.ts()})
    return {
        "updated": changed,
        "unchanged": sorted(set(found) - set(changed)),
        "set": {"folder": folder, "mark_read": mark_read, "starred": starred},
    }


# ---- Documents & Collaboration (1.6) ----------------------------------------------------------

_DOCUMENT_FOLDERS = select(documents.c.folder_path).distinct()
_STORAGE_DOCUMENT_FOLDERS = select(folders.c.path).where(
    (folders.c.path == "/Documents") | folders.c.path.startswith("/Documents/")
)


def _folder(ctx: Ctx, path: str) -> str:
    """The document folder's own spelling; EntityNotFound naming the real ones for a folder that does not exist.

    Documents live in the Files app's /Documents tree, so the folders list_files shows (and create_folder makes)
    are the ones a document may go to.
    """
    wanted = "/" + path.strip().strip("/")
    known = sorted(
        set(ctx.conn.execute(_STORAGE_DOCUMENT_FOLDERS).scalars()) | set(ctx.conn.execute(_DOCUMENT_FOLDERS).scalars())
    )
    for folder in known:
        if folder.lower() == wanted.lower():
            return folder
    raise ToolError(
        ErrorType.ENTITY_NOT_FOUND,
        f"no folder {wanted!r}",
        field="folder_path",
        candidates=known,
        hint="create_folder makes one",
    )


_DOCUMENT_TWIN = select(documents.c.file_id).where(
    func.lower(documents.c.title) == bindparam("title"),
    documents.c.doc_type == bindparam("doc_type"),
    documents.c.folder_path == bindparam("folder_path"),
)
_ADD_DOCUMENT = insert(documents)


@tool(
    l2="1.6",
    app="docs",
    mutating=True,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY, ErrorType.LIMIT_EXCEEDED),
)
def create_document(
    ctx: Ctx,
    title: Annotated[str, Field(min_length=1, max_length=120)],
    doc_type: Literal["doc", "sheet", "slides"],
    content: Annotated[str, Field(max_length=50000)] = "",
    folder_path: Annotated[str, Field(min_length=1, max_length=200)] = "/Documents",
) -> dict[str, Any]:
    """Create a text document, spreadsheet or slide deck in a documents folder.

    Args:
        title: Title (the file name without extension).
        doc_type: doc (text), sheet (spreadsheet) or slides (presentation).
        content: Initial text; for a sheet, rows of comma-separated cells, one per line.
        folder_path: An existing folder under /Documents such as /Documents/Work (list_files shows them).
    """
    folder = _folder(ctx, folder_path)
    twin = ctx.conn.execute(
        _DOCUMENT_TWIN, {"title": title.lower(), "doc_type": doc_type, "folder_path": folder}
    ).scalar()
    if twin:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY, f"{folder} already has a {doc_type} titled {title!r}: {twin}", existing_id=twin
        )
    free_gb = float(ctx.setting("storage_free_gb") or 0)
    if free_gb < MIN_FREE_GB:
        raise ToolError(
            ErrorType.LIMIT_EXCEEDED,
            f"storage is full ({free_gb:g} GB free)",
            storage_free_gb=free_gb,
            hint="free up space first",
        )
    fid = ctx.new_id(documents)
    size = round(0.02 + len(content.encode()) / 1_000_000, 3)
    ctx.conn.execute(
        _ADD_DOCUMENT,
        {
            "file_id": fid,
            "title": title,
            "doc_type": doc_type,
            "folder_path": folder,
            "content": content,
            "size_mb": size,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"file_id": fid, "title": title, "doc_type": doc_type, "folder_path": folder, "size_mb": size}


_SHARES_OF = select(file_shares.c.grantee, file_shares.c.access).where(file_shares.c.file_id == bindparam("file_id"))
_SET_SHARE = update(file_shares).where(
    file_shares.c.file_id == bindparam("match_file_id"), file_shares.c.grantee == bindparam("match_grantee")
)
_ADD_SHARE = insert(file_shares)


@tool(
    l2="1.6",
    app="docs",
    mutating=True,
    network="internet",
    check=_recipients_valid,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.DUPLICATE_ENTITY),
)
def share_document(
    ctx: Ctx,
    file_id: str,
    share_with: Annotated[list[Address], Field(min_length=1, max_length=50)],
    access: Literal["view", "comment", "edit"],
    message: Annotated[str, Field(max_length=2000)] | None = None,
    notify: bool = True,
) -> dict[str, Any]:
    """Share a document with people at an access level; a different level for someone already shared replaces theirs.

    Args:
        file_id: Id of the document, e.g. document_903.
        share_with: People, each a contact id (contact_904) or an email address.
        access: What they may do.
        message: A note for the notification email.
        notify: Email the people a link (sent from the user's mailbox).
    """
    doc = _row(ctx, documents, file_id, "create_document")
    grantees = [g for g in _addresses(ctx, share_with)[0] if g != _me(ctx)[1].lower()]
    if not grantees:
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, "the user already owns this document", field="share_with")
    current = dict(ctx.conn.execute(_SHARES_OF, {"file_id": file_id}).all())
    skipped = [g for g in grantees if current.get(g) == access]
    if len(skipped) == len(grantees):
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"already shared with {access} access: {', '.join(skipped)}",
            existing_ids=skipped,
        )
    changed: list[dict[str, Any]] = []
    for g in grantees:
        if g in skipped:
            continue
        if g in current:
            ctx.conn.execute(
                _SET_SHARE, {"match_file_id": file_id, "match_grantee": g, "access": access, "updated_at": ctx.ts()}
            )
        else:
            ctx.conn.execute(
                _ADD_SHARE,
                {
                    "share_id": ctx.new_id(file_shares),
                    "file_id": file_id,
                    "grantee": g,
                    "access": access,
                    "created_at": ctx.ts(),
                    "updated_at": ctx.ts(),
                },
            )
        changed.append({"grantee": g, "access": access, "previous": current.get(g)})
    email_id = None
    if notify:
        link = f"https://docs.example.com/d/{file_id}"
        body = f"{message}\n\n{doc['title']}: {link}" if message else f"Open {doc['title']}: {link}"
        email_id = _store_email(
            ctx, "sent", [c["grantee"] for c in changed], [], [], f"Shared with you: {doc['title']}", body, [], None
        )["message_id"]
    return {
        "file_id": file_id,
        "title": doc["title"],
        "shared": changed,
        "skipped_same_access": skipped,
        "notification_email_id": email_id,
    }


# ---- Study & Courses (1.7) --------------------------------------------------------------------

_COURSES = select(courses).order_by(courses.c.course_id)


def _course(ctx: Ctx, ref: str) -> dict[str, Any]:
    """A course by id, code or name; a name part matching several courses is ambiguous."""
    everything = rows(ctx.conn.execute(_COURSES))
    key = ref.strip().lower()
    exact = [c for c in everything if key in (c["course_id"], c["code"].lower(), c["name"].lower())]
    found = exact or [c for c in everything if key and all(w in c["name"].lower() for w in key.split())]
    if not found:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no course matches {ref!r}",
            field="course",
            candidates=[f"{c['code']} {c['name']}" for c in everything],
        )
    if len(found) > 1:
        raise ToolError(
            ErrorType.AMBIGUOUS_ENTITY,
            f"{ref!r} matches {len(found)} courses",
            field="course",
            candidates=[{"course_id": c["course_id"], "code": c["code"], "name": c["name"]} for c in found],
        )
    return found[0]


_ASSIGNMENT_TWIN = select(assignments.c.assignment_id).where(
    assignments.c.course_id == bindparam("course_id"), func.lower(assignments.c.title) == bindparam("title")
)
_ADD_TASK = insert(tasks)
_ADD_ASSIGNMENT = insert(assignments)


@tool(
    l2="1.7",
    app="campus",
    mutating=True,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.AMBIGUOUS_ENTITY, ErrorType.DUPLICATE_ENTITY),
)
def add_course_assignment(
    ctx: Ctx,
    course: Annotated[str, Field(min_length=1, max_length=120)],
    title: Annotated[str, Field(min_length=1, max_length=120)],
    due: DateTime,
    kind: Literal["homework", "exam", "project", "reading"] = "homework",
    reminder_min: Annotated[int, Field(ge=0, le=10080)] | None = None,
    notes: Annotated[str, Field(max_length=2000)] | None = None,
) -> dict[str, Any]:
    """Record homework, an exam, a project or a reading for a course, optionally with a reminder task.

    Args:
        course: The course's id (course_902), code (DS101) or name.
        title: What is due, e.g. "Problem set 4".
        due: Deadline or exam start, YYYY-MM-DDTHH:MM.
        kind: Kind of assignment.
        reminder_min: Also add a reminder task this many minutes before the deadline.
        notes: Details such as pages or submission instructions.
    """
    c = _course(ctx, course)
    twin = ctx.conn.execute(_ASSIGNMENT_TWIN, {"course_id": c["course_id"], "title": title.lower()}).scalar()
    if twin:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"{c['name']} already has {title!r}: {twin}", existing_id=twin)
    task_id = remind_at = None
    if reminder_min is not None:
        remind_at = (dt.datetime.strptime(due, DT_FMT) - dt.timedelta(minutes=reminder_min)).strftime(DT_FMT)
        task_id = ctx.new_id(tasks)
        ctx.conn.execute(
            _ADD_TASK,
            {
                "task_id": task_id,
                "title": f"{c['name']}: {title}",
                "list_name": "School",
                "due": due,
                "priority": "high" if kind == "exam" else "medium",
                "status": "open",
                "notes": notes,
                "remind_at": remind_at,
                "completed_at": None,
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            },
        )
    aid = ctx.new_id(assignments)
    ctx.conn.execute(
        _ADD_ASSIGNMENT,
        {
            "assignment_id": aid,
            "course_id": c["course_id"],
            "title": title,
            "kind": kind,
            "due": due,
            "status": "open",
            "notes": notes,
            "task_id": task_id,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {
        "assignment_id": aid,
        "course_id": c["course_id"],
        "course": c["name"],
        "title": title,
        "kind": kind,
        "due": due,
        "task_id": task_id,
        "remind_at": remind_at,
    }


# ---- Focus & Time Tracking (1.8) --------------------------------------------------------------

_INSTALLED_APPS = select(apps.c.app_id, apps.c.name).where(apps.c.installed == 1).order_by(apps.c.app_id)
_ACTIVE_FOCUS = select(focus_sessions.c.session_id, focus_sessions.c.ends_at).where(
    focus_sessions.c.status == "active", focus_sessions.c.ends_at > bindparam("now")
)
_ADD_FOCUS_SESSION = insert(focus_sessions)
_SET_SETTING = update(device_settings).where(device_settings.c.key == bindparam("match_key"))


def _installed_app_ids(ctx: Ctx, wanted: list[str]) -> list[str]:
    """The ids of the installed apps ``wanted`` names by id or by the name a user sees (any case); no tool
    offered beside the focus app lists app ids, so EntityNotFound names the installed apps."""
    installed = ctx.conn.execute(_INSTALLED_APPS).all()
    by_key = {key.strip().lower(): app.app_id for app in installed for key in (app.name, app.app_id)}
    unknown = sorted({w for w in wanted if w.strip().lower() not in by_key})
    if unknown:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no installed app(s) {', '.join(unknown)}",
            missing=unknown,
            field="blocked_apps",
            candidates=[f"{app.app_id} ({app.name})" for app in installed],
        )
    return sorted({by_key[w.strip().lower()] for w in wanted})


@tool(l2="1.8", app="focus", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def start_focus_session(
    ctx: Ctx,
    duration_min: Annotated[int, Field(ge=5, le=240)],
    task_id: str | None = None,
    blocked_apps: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(max_length=30)]
    | None = None,
    break_min: Annotated[int, Field(ge=0, le=30)] = 5,
    cycles: Annotated[int, Field(ge=1, le=8)] = 1,
) -> dict[str, Any]:
    """Start a focus (pomodoro) session now: do-not-disturb stays on until it ends, and chosen apps are blocked.

    Args:
        duration_min: Minutes of focus per cycle.
        task_id: The task being worked on, e.g. task_903.
        blocked_apps: Installed apps to block during the session, by id or name, e.g. ["video", "social"].
        break_min: Minutes of break between cycles.
        cycles: Number of focus cycles.
    """
    if task_id:
        _row(ctx, tasks, task_id, "list_tasks")
    blocked = _installed_app_ids(ctx, blocked_apps or [])
    now = ctx.now.strftime(DT_FMT)
    active = ctx.conn.execute(_ACTIVE_FOCUS, {"now": now}).first()
    if active:
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"focus session {active.session_id} runs until {active.ends_at}",
            session_id=active.session_id,
        )
    ends_at = (ctx.now + dt.timedelta(minutes=cycles * duration_min + (cycles - 1) * break_min)).strftime(DT_FMT)
    sid = ctx.new_id(focus_sessions)
    ctx.conn.execute(
        _ADD_FOCUS_SESSION,
        {
            "session_id": sid,
            "duration_min": duration_min,
            "break_min": break_min,
            "cycles": cycles,
            "task_id": task_id,
            "blocked_apps_json": json.dumps(blocked),
            "started_at": now,
            "ends_at": ends_at,
            "status": "active",
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    # Do not disturb lasts until the session ends, unless it is already on for longer (or indefinitely).
    dnd, until = ctx.setting("dnd"), ctx.setting("dnd_until") or ""
    if dnd != "1" or (until and until < ends_at):
        for key, value in (("dnd", "1"), ("dnd_until", ends_at)):
            ctx.conn.execute(_SET_SETTING, {"match_key": key, "value": value})
        until = ends_at
    return {
        "session_id": sid,
        "started_at": now,
        "ends_at": ends_at,
        "task_id": task_id,
        "blocked_apps": blocked,
        "dnd_until": until or None,
    }


# ---- World data -------------------------------------------------------------------------------

ORGS = {  # sender key -> (display name, address)
    "hr": ("People Team", "hr@corp.example.com"),
    "techpulse": ("TechPulse", "weekly@techpulse.example.com"),
    "citydaily": ("City Daily", "news@citydaily.example.com"),
    "coffeelab": ("Coffee Lab", "hello@coffeelab.example.com"),
    "bank": ("Harbor Bank", "statements@harborbank.example.com"),
    "utility": ("City Power", "billing@citypower.example.com"),
    "airline": ("Sky Airlines", "bookings@skyair.example.com"),
    "shop": ("ShopMall", "orders@shopmall.example.com"),
    "campus": ("Campus Online", "noreply@campus.example.edu"),
    "spam1": ("Prize Center", "prize@win-big.example.net"),
    "spam2": ("Account Security", "security@acc0unt-verify.example.net"),
}
PEOPLE = {"boss": "contact_004", "colleague": "contact_005", "spouse": "contact_001", "mother": "contact_002"}

# Incoming mail: (kind, sender key, subject, body, attachments as (name, MB)); "team" is any colleague.
INBOUND = [
    (
        "work",
        "boss",
        "Q{q} budget review",
        "Hi {name},\n\nPlease review the attached budget draft before Thursday and "
        "flag anything above plan.\n\nThanks,\n{sender}",
        [("budget_q{q}.xlsx", 0.8)],
    ),
    (
        "work",
        "colleague",
        "Design mockups v{n}",
        "Hi {name}, the latest dashboard mockups are attached. Feedback by Friday would be great.",
        [("mockups_v{n}.pdf", 4.2)],
    ),
    (
        "work",
        "boss",
        "Project Phoenix: weekly status",
        "Status: on track. Risk: the API review is late. Next: load testing on staging.",
        [],
    ),
    (
        "work",
        "colleague",
        "Code review: PR #{n}",
        "Could you take a look at PR #{n}? It touches the billing service.",
        [],
    ),
    (
        "work",
        "team",
        "Offsite planning",
        "We're looking at the last week of the month for the team offsite. Which days work for you?",
        [],
    ),
    (
        "work",
        "team",
        "Meeting notes {day}",
        "Notes from today's sync are attached. Action items are at the bottom.",
        [("notes_{day}.docx", 0.1)],
    ),
    (
        "work",
        "boss",
        "Travel approval",
        "Your trip to Shanghai is approved. Please book through the travel portal.",
        [],
    ),
    (
        "work",
        "team",
        "Client feedback",
        "The client liked the demo but wants the export feature sooner. Can we discuss tomorrow?",
        [],
    ),
    ("hr", "hr", "Payslip for {month}", "Your payslip for {month} is attached.", [("payslip_{month}.pdf", 0.2)]),
    (
        "hr",
        "hr",
        "Open enrolment for health benefits",
        "Open enrolment closes on the 30th. Review your plan in the HR portal.",
        [],
    ),
    (
        "hr",
        "hr",
        "Updated leave policy",
        "The updated annual leave policy takes effect next month. Details are in the attached PDF.",
        [("leave_policy.pdf", 0.6)],
    ),
    (
        "newsletter",
        "techpulse",
        "This week in tech: {k} stories you missed",
        "Foldable phones, battery tips and the smartwatch showdown.",
        [],
    ),
    ("newsletter", "citydaily", "Your weekend guide", "Night market, jazz in the park and road works to avoid.", []),
    (
        "newsletter",
        "coffeelab",
        "20% off Ethiopian beans this week",
        "Use code BREW20 at checkout. Offer ends Sunday.",
        [],
    ),
    (
        "finance",
        "bank",
        "Your {month} statement is ready",
        "Your card statement for {month} is attached. Payment is due on the 25th.",
        [("statement_{month}.pdf", 0.4)],
    ),
    (
        "finance",
        "utility",
        "Electricity bill for {month}",
        "Your electricity bill for {month} is {amount}, due on the 20th.",
        [],
    ),
    (
        "travel",
        "airline",
        "Booking confirmation: flight CA{n}",
        "Your booking is confirmed. Check-in opens 24 hours before departure.",
        [("eticket_CA{n}.pdf", 0.3)],
    ),
    ("shop", "shop", "Your order #{n} has shipped", "Your parcel is on the way and should arrive in 2-3 days.", []),
    (
        "campus",
        "campus",
        "New grade posted in {course}",
        "A new grade is available for {course}. Open the campus app to see it.",
        [],
    ),
    ("campus", "campus", "Reminder: {course} assignment due soon", "An assignment for {course} is due this week.", []),
    (
        "family",
        "spouse",
        "Photos from the weekend",
        "Here are the photos from Saturday. Everyone loved the lake!",
        [("weekend_photos.zip", 8.5)],
    ),
    (
        "family",
        "spouse",
        "Dinner with my parents",
        "Are we still on for dinner with my parents on Sunday? I'll book the place.",
        [],
    ),
    ("family", "mother", "Recipe you asked for", "Here is the dumpling recipe. Don't forget the ginger!", []),
    ("spam", "spam1", "You have won a prize!!!", "Claim your prize now by replying with your bank details.", []),
    ("spam", "spam2", "Your account will be suspended", "Verify your password within 24 hours at the link below.", []),
]
# The user's own mail: (folder, recipient key, subject, body, attachments).
OUTBOUND = [
    (
        "sent",
        "boss",
        "Slides for the project review",
        "Hi Alex, the slides for the review are attached.",
        [("project_review.pptx", 3.1)],
    ),
    ("sent", "spouse", "Flight details", "Our flight leaves at 08:40 from Terminal 3.", []),
    ("sent", "colleague", "Lunch on Thursday?", "Want to grab lunch on Thursday?", []),
    ("sent", "hr", "Leave request", "I'd like to take three days of annual leave next month.", []),
    ("drafts", "boss", "Re: Offsite planning", "I can do Tuesday or Wednesday, but", []),
    ("drafts", "hr", "Question about the dental plan", "Hi, does the dental plan cover", []),
]
REPLIES = [
    "Thanks, will do.",
    "Looks good to me. Let's go ahead.",
    "I'll have it ready by Thursday.",
    "Can we talk about this tomorrow morning?",
    "Thanks! Sunday works for us.",
]
FOOTAGE = (
    "Raw footage from the shoot",
    "Both clips from Tuesday's product shoot.",
    [("clip_a.mp4", 14.2), ("clip_b.mp4", 13.1)],
)  # together over the 25 MB sending limit

DOCS = [  # (title, type, folder, content, MB)
    (
        "Q2 budget",
        "sheet",
        "/Documents/Finance",
        "Category,Plan,Actual\nTravel,12000,9800\nSoftware,8000,8450\nTraining,5000,3200",
        0.35,
    ),
    (
        "Project Phoenix roadmap",
        "slides",
        "/Documents/Work",
        "Q3: load testing and beta launch. Q4: general availability.",
        2.8,
    ),
    (
        "Meeting notes",
        "doc",
        "/Documents/Work",
        "Decisions: ship the beta in July. Owners: Alex Morgan (design), Alex Turner (scope).",
        0.05,
    ),
    ("Onboarding checklist", "doc", "/Documents/Work", "Laptop, badge, accounts, buddy lunch, first-week goals.", 0.04),
    ("Team offsite agenda", "doc", "/Documents/Work", "Day 1: strategy. Day 2: hackathon. Dinner at the lake.", 0.04),
    ("Client demo script", "doc", "/Documents/Work", "1. Login 2. Dashboard tour 3. Export 4. Q&A", 0.06),
    (
        "Quarterly OKRs",
        "sheet",
        "/Documents/Work",
        "Objective,Key result,Progress\nLaunch dashboard,Beta live,60%",
        0.12,
    ),
    ("Resume", "doc", "/Documents/Personal", "Software engineer, 8 years. Skills: Python, SQL, data pipelines.", 0.09),
    ("Trip plan: Tokyo", "doc", "/Documents/Personal", "Day 1 Asakusa, day 2 Shibuya, day 3 Kamakura day trip.", 0.07),
    (
        "Anniversary ideas",
        "doc",
        "/Documents/Personal",
        "Pottery class, dinner by the river, weekend at the lake.",
        0.03,
    ),
    ("Household expenses", "sheet", "/Documents/Finance", "Month,Rent,Utilities,Groceries\nMay,6500,420,2100", 0.18),
    ("Tax documents checklist", "doc", "/Documents/Finance", "Payslips, bank statements, donation receipts.", 0.03),
    ("Data science notes", "doc", "/Documents/School", "Week 3: linear regression, residuals, R squared.", 0.11),
    ("Accounting homework 3", "sheet", "/Documents/School", "Account,Debit,Credit\nCash,5000,\nRevenue,,5000", 0.08),
    ("Public speaking final", "slides", "/Documents/School", "Title: Why cities need more trees.", 4.6),
    ("Reading list", "doc", "/Documents", "Project Hail Mary; The Three-Body Problem; Atomic Habits", 0.02),
    ("Untitled", "doc", "/Documents", "", 0.02),
]
SHARES = [
    ("Q2 budget", "boss", "edit"),
    ("Project Phoenix roadmap", "colleague", "comment"),
    ("Project Phoenix roadmap", "boss", "view"),
    ("Meeting notes", "colleague", "edit"),
    ("Trip plan: Tokyo", "spouse", "edit"),
    ("Household expenses", "spouse", "edit"),
]

COURSES = [  # (code, name, instructor, weekday, time, room)
    ("DS101", "Intro to Data Science", "Dr. Helen Zhou", "mon", "19:00", "B201"),
    ("DS201", "Applied Data Science", "Prof. Omar Haddad", "wed", "19:00", "B105"),
    ("ACC110", "Financial Accounting", "Dr. Grace Park", "tue", "18:30", "C310"),
    ("ENG150", "Business English", "Ms. Clara Wright", "thu", "18:30", "A12"),
    ("ML210", "Machine Learning Foundations", "Prof. Kenji Tanaka", "sat", "09:30", "Online"),
    ("COM120", "Public Speaking", "Mr. Daniel Lopez", "fri", "18:00", "Hall 2"),
]
COURSEWORK = [
    ("Problem set 1", "homework"),
    ("Reading: chapters 1-3", "reading"),
    ("Problem set 2", "homework"),
    ("Midterm exam", "exam"),
    ("Final project proposal", "project"),
    ("Problem set 3", "homework"),
]


def _clock(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def _seed_emails(conn: Connection, rng: random.Random, persona: Persona, now: dt.datetime) -> None:
    people = {
        key: conn.execute(select(contacts.c.name, contacts.c.email).where(contacts.c.contact_id == cid)).one()
        for key, cid in PEOPLE.items()
    }
    team = conn.execute(
        select(contacts.c.name, contacts.c.email)
        .where(contacts.c.relationship == "colleague", contacts.c.email.is_not(None))
        .order_by(contacts.c.contact_id)
    ).all()

    def who(key: str) -> tuple[str, str]:
        if key in ORGS:
            return ORGS[key]
        name, addr = people[key] if key in people else rng.choice(team or [people["boss"]])
        return name, addr

    def mail(
        folder: str,
        sender: tuple[str, str],
        to: list[str],
        subject: str,
        body: str,
        files: list[tuple[str, float]],
        at: dt.datetime,
        is_read: int,
        parent: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        return {
            "folder": folder,
            "from_name": sender[0],
            "from_addr": sender[1],
            "to_json": json.dumps(to),
            "cc_json": "[]",
            "bcc_json": "[]",
            "subject": subject,
            "body": body,
            "attachments_json": json.dumps([{"name": n, "size_mb": mb} for n, mb in files]),
            "is_read": is_read,
            "is_starred": 0,
            "sent_at": _clock(at),
            "parent": parent,
        }

    me = (persona.name, persona.email)
    out: list[dict[str, Any]] = []
    for _ in range(120):
        kind, key, subject, body, files = rng.choice(INBOUND)
        at = dt.datetime.combine(
            now.date() - dt.timedelta(days=rng.randint(0, 150)), dt.time(rng.randint(7, 20), rng.randint(0, 59))
        )
        if at >= now:
            at = now - dt.timedelta(minutes=rng.randint(10, 90))
        days = (now - at).days
        fill = {
            "name": persona.name,
            "month": at.strftime("%B"),
            "q": (at.month - 1) // 3 + 1,
            "n": rng.randint(100, 999),
            "k": rng.randint(5, 12),
            "day": at.date().isoformat(),
            "amount": f"{rng.randint(180, 420)}.{rng.randint(0, 99):02d}",
            "course": rng.choice(COURSES)[1],
        }
        sender = who(key)
        fill["sender"] = sender[0]
        if kind == "spam":
            folder = "spam"
        elif kind == "newsletter" and days > 60 and rng.random() < 0.3:
            folder = "trash"
        else:
            folder = "archive" if days > 30 and rng.random() < 0.6 else "inbox"
        unread = rng.random() < (0.6 if days <= 14 else 0.4 if kind in ("newsletter", "spam") else 0.05)
        row = mail(
            folder,
            sender,
            [persona.email],
            subject.format(**fill),
            body.format(**fill),
            [(n.format(**fill), mb) for n, mb in files],
            at,
            int(not unread),
        )
        row["is_starred"] = int(kind == "work" and rng.random() < 0.12)
        out.append(row)
        reply_at = at + dt.timedelta(minutes=rng.randint(20, 300))
        if kind in ("work", "family") and reply_at < now and rng.random() < 0.3:
            out.append(
                mail("sent", me, [sender[1]], f"Re: {row['subject']}", rng.choice(REPLIES), [], reply_at, 1, parent=row)
            )
    for i, (folder, key, subject, body, files) in enumerate(OUTBOUND):
        at = dt.datetime.combine(now.date() - dt.timedelta(days=3 + 11 * i), dt.time(rng.randint(8, 19), 5 * i))
        out.append(mail(folder, me, [who(key)[1]], subject, body, files, at, 1))
    out.append(mail("inbox", who("colleague"), [persona.email], *FOOTAGE, now - dt.timedelta(days=9, hours=3), 1))
    out.sort(key=lambda r: (r["sent_at"], r["subject"]))
    for i, r in enumerate(out, start=1):
        r["message_id"] = f"email_{i:03d}"
    for r in out:
        parent = r.pop("parent")
        r.update(
            thread_id=parent["message_id"] if parent else r["message_id"],
            in_reply_to=parent["message_id"] if parent else None,
            created_at=r["sent_at"],
            updated_at=r["sent_at"],
        )
    conn.execute(insert(emails), out)


@seeder
def seed_work(conn: Connection, rng: random.Random, persona: Persona) -> None:
    now = dt.datetime.fromisoformat(persona.now)
    stamp = persona.now
    _seed_emails(conn, rng, persona, now)

    doc_rows = []
    for i, (title, doc_type, folder, content, size) in enumerate(DOCS, start=1):
        edited = _clock(now - dt.timedelta(days=rng.randint(1, 120), hours=rng.randint(0, 10)))
        doc_rows.append(
            {
                "file_id": f"document_{i:03d}",
                "title": title,
                "doc_type": doc_type,
                "folder_path": folder,
                "content": content,
                "size_mb": size,
                "created_at": edited,
                "updated_at": edited,
            }
        )
    conn.execute(insert(documents), doc_rows)
    doc_ids = {d["title"]: d["file_id"] for d in doc_rows}
    addr = {
        key: conn.execute(select(contacts.c.email).where(contacts.c.contact_id == cid)).scalar_one()
        for key, cid in PEOPLE.items()
    }
    conn.execute(
        insert(file_shares),
        [
            {
                "share_id": f"share_{i:03d}",
                "file_id": doc_ids[title],
                "grantee": addr[key],
                "access": access,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, (title, key, access) in enumerate(SHARES, start=1)
        ],
    )

    conn.execute(
        insert(courses),
        [
            {
                "course_id": f"course_{i:03d}",
                "code": code,
                "name": name,
                "instructor": teacher,
                "schedule_json": json.dumps([{"day": day, "time": time, "room": room}]),
            }
            for i, (code, name, teacher, day, time, room) in enumerate(COURSES, start=1)
        ],
    )
    work_rows = []
    for c, (_, _, _, day, time, _) in enumerate(COURSES, start=1):
        lesson = now.date() + dt.timedelta(days=(WEEKDAYS.index(day) - now.weekday()) % 7 - 49)
        for j, (title, kind) in enumerate(COURSEWORK[: rng.randint(4, 6)]):
            day_due = lesson + dt.timedelta(weeks=2 * j + rng.randint(0, 1))
            due = dt.datetime.combine(day_due, dt.time.fromisoformat(time))
            status = (
                "open"
                if due > now or rng.random() < 0.1
                else ("graded" if now - due > dt.timedelta(days=10) else "submitted")
            )
            work_rows.append(
                {
                    "course_id": f"course_{c:03d}",
                    "title": title,
                    "kind": kind,
                    "due": due.strftime(DT_FMT),
                    "status": status,
                    "notes": None,
                    "task_id": None,
                    "created_at": stamp,
                    "updated_at": stamp,
                }
            )
    work_rows.sort(key=lambda r: (r["due"], r["course_id"]))
    conn.execute(
        insert(assignments), [{**r, "assignment_id": f"assignment_{i:03d}"} for i, r in enumerate(work_rows, start=1)]
    )

    sessions: list[dict[str, Any]] = []
    for i in range(36):
        start = now - dt.timedelta(days=2 * i + 1, hours=rng.randint(0, 6), minutes=rng.choice([0, 15, 30, 45]))
        minutes, cycles = rng.choice([25, 25, 50, 90]), rng.choice([1, 1, 2, 4])
        end = start + dt.timedelta(minutes=cycles * minutes + (cycles - 1) * 5)
        sessions.append(
            {
                "duration_min": minutes,
                "break_min": 5,
                "cycles": cycles,
                "task_id": rng.choice([None, None, "task_001", "task_002"]),
                "blocked_apps_json": json.dumps(rng.choice([[], ["social"], ["chat", "social"]])),
                "started_at": start.strftime(DT_FMT),
                "ends_at": end.strftime(DT_FMT),
                "status": "cancelled" if rng.random() < 0.15 else "completed",
                "created_at": _clock(start),
                "updated_at": _clock(end),
            }
        )
    sessions.sort(key=lambda r: r["started_at"])
    conn.execute(insert(focus_sessions), [{**r, "session_id": f"focus_{i:03d}"} for i, r in enumerate(sessions, 1)])
