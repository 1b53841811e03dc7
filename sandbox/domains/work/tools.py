"""The work domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import Table, bindparam, func, insert, select, update

from sandbox.domains.apps_security.schema import folders
from sandbox.domains.communication.schema import contacts
from sandbox.domains.productivity.schema import DT_FMT, tasks
from sandbox.domains.productivity.tools import _one_of, _words
from sandbox.domains.work.schema import (
    MAX_ATTACHMENTS_MB,
    MIN_FREE_GB,
    Address,
    Addresses,
    Attachments,
    Body,
    Folder,
    Subject,
    assignments,
    courses,
    documents,
    emails,
    file_shares,
    focus_sessions,
)
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, row_by_key, rows
from sandbox.schema import apps, device_settings, user_profile
from sandbox.tooling import EMAIL_PATTERN, Date, DateTime, tool


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
