"""The communication domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import functools
import json
import re
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import Select, bindparam, func, insert, or_, select, update

from sandbox.domains.communication.schema import Recipients, blocked_numbers, call_log, contacts, groups, messages
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, normalise_phone, rows, word_values, words_match
from sandbox.tooling import PHONE_PATTERN, Date, Email, Phone, tool

_CONTACT = select(contacts).where(contacts.c.contact_id == bindparam("contact_id"))


def _contact(ctx: Ctx, contact_id: str) -> dict[str, Any]:
    row = ctx.conn.execute(_CONTACT, {"contact_id": contact_id}).first()
    if row is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no contact {contact_id!r}", field="contact_id", hint="search_contacts"
        )
    return dict(row._mapping)


_CONTACT_ID_BY_NUMBER = select(contacts.c.contact_id).where(contacts.c.phone_number == bindparam("phone_number"))


def _resolve_number(ctx: Ctx, ref: str) -> tuple[str, str | None]:
    """A recipient given as a contact id or a phone number -> (normalised number, contact id)."""
    if ref.startswith("contact_"):
        c = _contact(ctx, ref)
        return normalise_phone(c["phone_number"]), ref
    number = normalise_phone(ref)
    cid = ctx.conn.execute(_CONTACT_ID_BY_NUMBER, {"phone_number": number}).scalar()
    return number, cid


def _recipients_valid(args: dict[str, Any]) -> str | None:
    """Each recipient in to is a contact id (contact_...) or a phone number."""
    for ref in args.get("to", []):
        if not ref.startswith("contact_") and not re.match(PHONE_PATTERN, ref):
            return f"recipient {ref!r} is neither a contact id nor a phone number"
    return None


# ---- Contacts Management (3.1) ----------------------------------------------------------------

_CONTACTS_WITH_NUMBER_OR_NAME = select(contacts.c.contact_id, contacts.c.name).where(
    or_(contacts.c.phone_number == bindparam("phone_number"), contacts.c.name == bindparam("name"))
)
_ADD_CONTACT = insert(contacts)


@tool(l2="3.1", app="contacts", mutating=True, permissions=("CONTACTS",), errors=(ErrorType.DUPLICATE_ENTITY,))
def add_contact(
    ctx: Ctx,
    name: Annotated[str, Field(min_length=1, max_length=120)],
    phone_number: Phone,
    email: Email | None = None,
    relationship: str | None = None,
    birthday: Date | None = None,
    company: str | None = None,
    notes: str | None = None,
    allow_same_name: bool = False,
) -> dict[str, Any]:
    """Add a new contact to the address book.

    Args:
        name: Full name of the contact.
        phone_number: Phone number, digits with optional +, spaces or dashes.
        email: Email address.
        relationship: How the user knows them, e.g. "mother", "colleague".
        birthday: Birthday as YYYY-MM-DD.
        company: Employer.
        notes: Free-text notes.
        allow_same_name: Set true to add a second contact with exactly the same name.
    """
    number = normalise_phone(phone_number)
    existing = ctx.conn.execute(_CONTACTS_WITH_NUMBER_OR_NAME, {"phone_number": number, "name": name}).all()
    for cid, cname in existing:
        if cname != name or not allow_same_name:
            same = "phone number" if cname != name else "name"
            raise ToolError(ErrorType.DUPLICATE_ENTITY, f"a contact with this {same} exists: {cid}", existing_id=cid)
    cid = ctx.new_id(contacts)
    ctx.conn.execute(
        _ADD_CONTACT,
        {
            "contact_id": cid,
            "name": name,
            "phone_number": number,
            "email": email,
            "relationship": relationship,
            "birthday": birthday,
            "company": company,
            "notes": notes,
            "favorite": 0,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"contact_id": cid, "name": name, "phone_number": number}


def _one_filter(args: dict[str, Any]) -> str | None:
    """Give at least one of name, phone_number, email, relationship."""
    filters = ("name", "phone_number", "email", "relationship")
    return None if any(args.get(k) for k in filters) else f"give at least one of {', '.join(filters)}"


@tool(l2="3.1", app="contacts", mutating=False, permissions=("CONTACTS",), check=_one_filter)
def search_contacts(
    ctx: Ctx,
    name: str | None = None,
    phone_number: Phone | None = None,
    email: Email | None = None,
    relationship: str | None = None,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
) -> dict[str, Any]:
    """Find contacts by fuzzy name, exact phone number or email, or relationship.

    Args:
        name: Part of the name (case-insensitive; every word must appear).
        phone_number: Phone number (compared digit by digit).
        email: Email address.
        relationship: Relationship such as "mother" or "colleague".
        limit: Maximum number of results.
    """
    words = word_values(name or "")
    values: dict[str, Any] = {**words, "limit": limit}
    if phone_number:
        values["phone_number"] = normalise_phone(phone_number)
    if email:
        values["email"] = email.lower()
    if relationship:
        values["relationship"] = relationship.lower()
    q = _contact_search(len(words), bool(phone_number), bool(email), bool(relationship))
    found = rows(ctx.conn.execute(q, values))
    keep = ("contact_id", "name", "phone_number", "email", "relationship", "company", "birthday")
    return {"contacts": [{k: c[k] for k in keep} for c in found], "count": len(found)}


@functools.lru_cache(maxsize=256)
def _contact_search(words: int, phone_number: bool, email: bool, relationship: bool) -> Select[Any]:
    """search_contacts' statement for one combination of filters, built once (its values are bound)."""
    q = select(contacts).where(*words_match([contacts.c.name], words))
    if phone_number:
        q = q.where(contacts.c.phone_number == bindparam("phone_number"))
    if email:
        q = q.where(func.lower(contacts.c.email) == bindparam("email"))
    if relationship:
        q = q.where(func.lower(contacts.c.relationship) == bindparam("relationship"))
    return q.order_by(contacts.c.name, contacts.c.contact_id).limit(bindparam("limit"))


def _one_change(args: dict[str, Any]) -> str | None:
    """Give at least one field to change besides contact_id."""
    return None if len(args) > 1 else "give at least one field to change"


_OTHER_CONTACT_WITH_NUMBER = select(contacts.c.contact_id).where(
    contacts.c.phone_number == bindparam("phone_number"), contacts.c.contact_id != bindparam("contact_id")
)
_SET_CONTACT = update(contacts).where(contacts.c.contact_id == bindparam("match_contact_id"))


@tool(
    l2="3.1",
    app="contacts",
    mutating=True,
    permissions=("CONTACTS",),
    check=_one_change,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY),
)
def update_contact(
    ctx: Ctx,
    contact_id: str,
    name: Annotated[str, Field(min_length=1, max_length=120)] | None = None,
    phone_number: Phone | None = None,
    email: Email | None = None,
    relationship: str | None = None,
    birthday: Date | None = None,
    company: str | None = None,
    notes: str | None = None,
    favorite: bool | None = None,
) -> dict[str, Any]:
    """Change fields of an existing contact.

    Args:
        contact_id: Id of the contact, e.g. contact_904.
        name: New full name.
        phone_number: New phone number.
        email: New email address.
        relationship: New relationship.
        birthday: New birthday as YYYY-MM-DD.
        company: New employer.
        notes: New notes (replaces the old notes).
        favorite: Mark or unmark as favourite.
    """
    _contact(ctx, contact_id)
    changes: dict[str, Any] = {
        k: v
        for k, v in {
            "name": name,
            "email": email,
            "relationship": relationship,
            "birthday": birthday,
            "company": company,
            "notes": notes,
        }.items()
        if v is not None
    }
    if favorite is not None:
        changes["favorite"] = int(favorite)
    if phone_number is not None:
        number = normalise_phone(phone_number)
        other = ctx.conn.execute(
            _OTHER_CONTACT_WITH_NUMBER, {"phone_number": number, "contact_id": contact_id}
        ).scalar()
        if other:
            raise ToolError(ErrorType.DUPLICATE_ENTITY, f"{other} already has this phone number", existing_id=other)
        changes["phone_number"] = number
    ctx.conn.execute(_SET_CONTACT, {"match_contact_id": contact_id, **changes, "updated_at": ctx.ts()})
    return {"contact_id": contact_id, "updated": sorted(changes)}


_DELETE_CONTACT = contacts.delete().where(contacts.c.contact_id == bindparam("contact_id"))


@tool(l2="3.1", app="contacts", mutating=True, permissions=("CONTACTS",), errors=(ErrorType.ENTITY_NOT_FOUND,))
def delete_contact(ctx: Ctx, contact_id: str) -> dict[str, Any]:
    """Delete a contact from the address book.

    Args:
        contact_id: Id of the contact to delete.
    """
    c = _contact(ctx, contact_id)
    ctx.conn.execute(_DELETE_CONTACT, {"contact_id": contact_id})
    return {"deleted": contact_id, "name": c["name"]}


MERGED_FIELDS = ("name", "phone_number", "email", "relationship", "birthday", "company")


def _merged(winner: dict[str, Any], loser: dict[str, Any]) -> dict[str, Any]:
    """The winner's fields, gaps filled from the loser; the loser's other number and notes are kept in notes."""
    merged = {f: winner[f] if winner[f] is not None else loser[f] for f in MERGED_FIELDS}
    notes = [n for n in (winner["notes"], loser["notes"]) if n]
    if loser["phone_number"] != winner["phone_number"]:
        notes.append(f"Other phone: {loser['phone_number']}")
    merged["notes"] = "\n".join(dict.fromkeys(notes)) or None
    merged["favorite"] = max(winner["favorite"], loser["favorite"])
    return merged


# table name -> moves its rows from one contact (match_contact_id) to another (contact_id)
_MOVE_TO_CONTACT = {
    tbl.name: update(tbl).where(tbl.c.contact_id == bindparam("match_contact_id"))
    for tbl in (messages, call_log, blocked_numbers)
}
_GROUP_MEMBERS = select(groups.c.group_id, groups.c.members_json)
_SET_GROUP = update(groups).where(groups.c.group_id == bindparam("match_group_id"))


def _two_contacts(args: dict[str, Any]) -> str | None:
    """primary_id and duplicate_id differ."""
    return "primary_id and duplicate_id must differ" if args["primary_id"] == args["duplicate_id"] else None


@tool(
    l2="3.1",
    app="contacts",
    mutating=True,
    permissions=("CONTACTS",),
    check=_two_contacts,
    errors=(ErrorType.ENTITY_NOT_FOUND,),
)
def merge_contacts(
    ctx: Ctx,
    primary_id: str,
    duplicate_id: str,
    prefer: Literal["primary", "duplicate"] = "primary",
) -> dict[str, Any]:
    """Merge a duplicate contact into a primary one: its messages, calls, blocks and groups move over; it is deleted.

    Args:
        primary_id: Id of the contact to keep, e.g. contact_904.
        duplicate_id: Id of the duplicate contact to fold in and delete.
        prefer: Whose value wins when both contacts have a field set; gaps are always filled from the other.
    """
    primary, duplicate = _contact(ctx, primary_id), _contact(ctx, duplicate_id)
    merged = _merged(*((primary, duplicate) if prefer == "primary" else (duplicate, primary)))
    ctx.conn.execute(_SET_CONTACT, {"match_contact_id": primary_id, **merged, "updated_at": ctx.ts()})
    moved: dict[str, int] = {}
    for name, move in _MOVE_TO_CONTACT.items():
        moved[name] = ctx.conn.execute(
            move, {"match_contact_id": duplicate_id, "contact_id": primary_id, "updated_at": ctx.ts()}
        ).rowcount
    regrouped = []
    for gid, members_json in ctx.conn.execute(_GROUP_MEMBERS).all():
        members = json.loads(members_json)
        if duplicate_id in members:
            members = sorted({primary_id, *members} - {duplicate_id})
            ctx.conn.execute(
                _SET_GROUP, {"match_group_id": gid, "members_json": json.dumps(members), "updated_at": ctx.ts()}
            )
            regrouped.append(gid)
    ctx.conn.execute(_DELETE_CONTACT, {"contact_id": duplicate_id})
    moved["groups"] = len(regrouped)
    return {
        "contact_id": primary_id,
        "deleted": duplicate_id,
        "contact": {"contact_id": primary_id, **merged},
        "moved": moved,
    }


# ---- Message Composition & Sending (3.2) ------------------------------------------------------

_GROUP = select(groups).where(groups.c.group_id == bindparam("group_id"))


def _group(ctx: Ctx, group_id: str) -> dict[str, Any]:
    row = ctx.conn.execute(_GROUP, {"group_id": group_id}).first()
    if row is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no group chat {group_id!r}", field="group_id", hint="search_messages"
        )
    return dict(row._mapping)


def _chat_target(ctx: Ctx, to: str) -> tuple[str, str | None]:
    """A chat recipient -> (counterpart: the contact's number or the group id, contact id or None)."""
    if to.startswith("group_"):
        return _group(ctx, to)["group_id"], None
    if to.startswith("contact_"):
        return _resolve_number(ctx, to)
    raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"{to!r} is neither a contact id nor a group id", field="to")


_ADD_MESSAGE = insert(messages)


@tool(
    l2="3.2",
    app="messages",
    mutating=True,
    permissions=("SMS",),
    network="cellular",
    check=_recipients_valid,
    errors=(ErrorType.ENTITY_NOT_FOUND,),
)
def send_sms(ctx: Ctx, to: Recipients, body: Annotated[str, Field(min_length=1, max_length=1000)]) -> dict[str, Any]:
    """Send a text message (SMS) to one or more recipients.

    Args:
        to: Recipients, each a contact id (contact_904) or a phone number.
        body: Text of the message.
    """
    sent = []
    for ref in to:
        number, cid = _resolve_number(ctx, ref)
        mid = ctx.new_id(messages)
        ctx.conn.execute(
            _ADD_MESSAGE,
            {
                "message_id": mid,
                "channel": "sms",
                "direction": "out",
                "counterpart": number,
                "contact_id": cid,
                "body": body,
                "is_read": 1,
                "status": "sent",
                "sent_at": ctx.ts(),
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            },
        )
        sent.append({"message_id": mid, "to": number, "contact_id": cid})
    return {"sent": sent}


@tool(l2="3.2", app="chat", mutating=True, network="internet", errors=(ErrorType.ENTITY_NOT_FOUND,))
def send_chat_message(
    ctx: Ctx,
    to: Annotated[str, Field(min_length=1)],
    text: Annotated[str, Field(min_length=1, max_length=4000)],
) -> dict[str, Any]:
    """Send a chat-app message to a contact or a group chat.

    Args:
        to: A contact id (contact_904) or a group chat id (group_902; search_messages lists group chats).
        text: Text of the message.
    """
    counterpart, cid = _chat_target(ctx, to)
    mid = ctx.new_id(messages)
    ctx.conn.execute(
        _ADD_MESSAGE,
        {
            "message_id": mid,
            "channel": "chat",
            "direction": "out",
            "counterpart": counterpart,
            "contact_id": cid,
            "body": text,
            "is_read": 1,
            "status": "sent",
            "sent_at": ctx.ts(),
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"message_id": mid, "to": to}


# ---- Message Search & Inbox (3.3) -------------------------------------------------------------


def _message_filter(args: dict[str, Any]) -> str | None:
    """Give at least one of query, contact_id, channel, unread_only, date_from, date_to, groups_only."""
    filters = ("query", "contact_id", "channel", "unread_only", "date_from", "date_to", "groups_only")
    given = any(args.get(k) is not None for k in filters[:-1]) or args.get("groups_only")
    return None if given else f"give at least one of {', '.join(filters)}"


_ALL_GROUPS = select(groups).order_by(groups.c.name, groups.c.group_id)
_CONTACT_NAMES = select(contacts.c.contact_id, contacts.c.name)


def _group_chats(ctx: Ctx, query: str | None, contact_id: str | None) -> list[dict[str, Any]]:
    """The group chats whose name has every word of ``query`` and that include ``contact_id`` (either
    filter optional), each with its members' names, as the chat app lists conversations."""
    words = (query or "").lower().split()
    names = dict(ctx.conn.execute(_CONTACT_NAMES).all())
    found = []
    for g in rows(ctx.conn.execute(_ALL_GROUPS)):
        members = json.loads(g["members_json"])
        if all(w in g["name"].lower() for w in words) and (contact_id is None or contact_id in members):
            found.append(
                {
                    "group_id": g["group_id"],
                    "name": g["name"],
                    "is_admin": bool(g["is_admin"]),
                    "members": [{"contact_id": m, "name": names.get(m)} for m in members],
                }
            )
    return found


@tool(l2="3.3", app="messages", mutating=False, permissions=("SMS",), check=_message_filter)
def search_messages(
    ctx: Ctx,
    query: str | None = None,
    contact_id: str | None = None,
    channel: Literal["sms", "chat"] | None = None,
    unread_only: bool | None = None,
    date_from: Date | None = None,
    date_to: Date | None = None,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
    groups_only: bool = False,
) -> dict[str, Any]:
    """Search received and sent messages, newest first, and the group chats (id, name, members) that match.

    Args:
        query: Words that must appear in the message text (case-insensitive); the group chats whose
            name has them are listed in groups.
        contact_id: Only messages with this contact (and group chats that include them).
        channel: Only SMS or only chat messages (SMS lists no group chats).
        unread_only: Only unread messages.
        date_from: Earliest date, YYYY-MM-DD.
        date_to: Latest date, YYYY-MM-DD.
        limit: Maximum number of results.
        groups_only: List only group chats (all of them, or those matching query and contact_id), no
            messages.
    """
    if groups_only:
        found_groups = _group_chats(ctx, query, contact_id)[:limit]
        return {"groups": found_groups, "count": len(found_groups)}
    q = select(messages).where(messages.c.status != "deleted")
    if query:
        for word in query.lower().split():
            q = q.where(func.lower(messages.c.body).contains(word, autoescape=True))
    if contact_id:
        q = q.where(messages.c.contact_id == contact_id)
    if channel:
        q = q.where(messages.c.channel == channel)
    if unread_only:
        q = q.where(messages.c.is_read == 0)
    if date_from:
        q = q.where(messages.c.sent_at >= date_from)
    if date_to:
        q = q.where(messages.c.sent_at < date_to + "T99")
    found = rows(ctx.conn.execute(q.order_by(messages.c.sent_at.desc(), messages.c.message_id).limit(limit)))
    keep = ("message_id", "channel", "direction", "counterpart", "contact_id", "body", "is_read", "sent_at")
    out: dict[str, Any] = {"messages": [{k: m[k] for k in keep} for m in found], "count": len(found)}
    if query and channel != "sms":
        out["groups"] = _group_chats(ctx, query, contact_id)[:limit]
    return out


MessageIds = Annotated[list[str], Field(min_length=1, max_length=100)]


_MESSAGES = select(messages).where(
    messages.c.message_id.in_(bindparam("message_ids", expanding=True)), messages.c.status != "deleted"
)


def _existing_messages(ctx: Ctx, message_ids: list[str]) -> list[dict[str, Any]]:
    found = rows(ctx.conn.execute(_MESSAGES, {"message_ids": message_ids}))
    missing = sorted(set(message_ids) - {m["message_id"] for m in found})
    if missing:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no message(s) {', '.join(missing)}", missing=missing)
    return found


_SET_MESSAGES = update(messages).where(messages.c.message_id.in_(bindparam("match_message_ids", expanding=True)))


@tool(
    l2="3.3",
    app="messages",
    mutating=True,
    permissions=("SMS",),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT),
)
def mark_messages_read(ctx: Ctx, message_ids: MessageIds) -> dict[str, Any]:
    """Mark messages as read.

    Args:
        message_ids: Ids of the messages, e.g. ["message_912"].
    """
    unread = [m["message_id"] for m in _existing_messages(ctx, message_ids) if not m["is_read"]]
    if not unread:
        raise ToolError(ErrorType.STATE_CONFLICT, "all of these messages are already read")
    ctx.conn.execute(_SET_MESSAGES, {"match_message_ids": unread, "is_read": 1, "updated_at": ctx.ts()})
    return {"marked_read": sorted(unread)}


@tool(l2="3.3", app="messages", mutating=True, permissions=("SMS",), errors=(ErrorType.ENTITY_NOT_FOUND,))
def delete_messages(ctx: Ctx, message_ids: MessageIds) -> dict[str, Any]:
    """Delete messages.

    Args:
        message_ids: Ids of the messages to delete.
    """
    _existing_messages(ctx, message_ids)
    ctx.conn.execute(_SET_MESSAGES, {"match_message_ids": message_ids, "status": "deleted", "updated_at": ctx.ts()})
    return {"deleted": sorted(message_ids)}


# ---- Calls & Call Log (3.4) -------------------------------------------------------------------

_ADD_CALL = insert(call_log)


def _callee_valid(args: dict[str, Any]) -> str | None:
    """to is a contact id (contact_...) or a phone number."""
    return _recipients_valid({"to": [args["to"]]})


@tool(
    l2="3.4",
    app="phone",
    mutating=True,
    permissions=("PHONE",),
    network="cellular",
    check=_callee_valid,
    errors=(ErrorType.ENTITY_NOT_FOUND,),
)
def make_phone_call(ctx: Ctx, to: Annotated[str, Field(min_length=1)]) -> dict[str, Any]:
    """Place a phone call.

    Args:
        to: A contact id (contact_904) or a phone number.
    """
    number, cid = _resolve_number(ctx, to)
    call_id = ctx.new_id(call_log)
    ctx.conn.execute(
        _ADD_CALL,
        {
            "call_id": call_id,
            "number": number,
            "contact_id": cid,
            "type": "outgoing",
            "app": "phone",
            "video": 0,
            "started_at": ctx.ts(),
            "duration_sec": 0,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"call_id": call_id, "number": number, "contact_id": cid, "status": "dialing"}


@tool(l2="3.4", app="phone", mutating=False, permissions=("PHONE",))
def get_call_log(
    ctx: Ctx,
    type: Literal["incoming", "outgoing", "missed"] | None = None,
    contact_id: str | None = None,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
) -> dict[str, Any]:
    """List recent calls, newest first.

    Args:
        type: Only incoming, outgoing or missed calls.
        contact_id: Only calls with this contact.
        limit: Maximum number of results.
    """
    q = select(call_log)
    if type:
        q = q.where(call_log.c.type == type)
    if contact_id:
        q = q.where(call_log.c.contact_id == contact_id)
    found = rows(ctx.conn.execute(q.order_by(call_log.c.started_at.desc(), call_log.c.call_id).limit(limit)))
    keep = ("call_id", "number", "contact_id", "type", "app", "video", "started_at", "duration_sec")
    return {"calls": [{k: c[k] for k in keep} for c in found], "count": len(found)}


@tool(
    l2="3.4",
    app="chat",
    mutating=True,
    permissions=("CAMERA", "MICROPHONE"),
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND,),
)
def start_video_call(ctx: Ctx, to: Annotated[str, Field(min_length=1)], audio_only: bool = False) -> dict[str, Any]:
    """Start a video (or audio-only) call in the chat app with a contact or a whole group chat.

    Args:
        to: A contact id (contact_904) or a group chat id (group_902; search_messages lists group chats).
        audio_only: Call without video.
    """
    counterpart, cid = _chat_target(ctx, to)
    call_id = ctx.new_id(call_log)
    ctx.conn.execute(
        _ADD_CALL,
        {
            "call_id": call_id,
            "number": counterpart,
            "contact_id": cid,
            "type": "outgoing",
            "app": "chat",
            "video": int(not audio_only),
            "started_at": ctx.ts(),
            "duration_sec": 0,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"call_id": call_id, "to": to, "contact_id": cid, "video": not audio_only, "status": "ringing"}


# ---- Call Blocking & Spam (3.5) ---------------------------------------------------------------

_BLOCKED = select(blocked_numbers.c.number).where(blocked_numbers.c.number == bindparam("number"))
_ADD_BLOCK = insert(blocked_numbers)


@tool(l2="3.5", app="phone", mutating=True, errors=(ErrorType.DUPLICATE_ENTITY,))
def block_number(ctx: Ctx, phone_number: Phone, report_spam: bool = False) -> dict[str, Any]:
    """Block calls and texts from a phone number.

    Args:
        phone_number: The number to block.
        report_spam: Also report the number as spam.
    """
    number = normalise_phone(phone_number)
    if ctx.conn.execute(_BLOCKED, {"number": number}).first():
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"{number} is already blocked", existing_id=number)
    cid = ctx.conn.execute(_CONTACT_ID_BY_NUMBER, {"phone_number": number}).scalar()
    ctx.conn.execute(
        _ADD_BLOCK,
        {
            "number": number,
            "contact_id": cid,
            "reported_spam": int(report_spam),
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"blocked": number, "contact_id": cid, "reported_spam": report_spam}


# ---- Group Chats (3.6) ------------------------------------------------------------------------

_GROUP_ID_BY_NAME = select(groups.c.group_id).where(func.lower(groups.c.name) == bindparam("name"))
_ADD_GROUP = insert(groups)


@tool(
    l2="3.6",
    app="chat",
    mutating=True,
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY),
)
def create_group_chat(
    ctx: Ctx,
    name: Annotated[str, Field(min_length=1, max_length=80)],
    member_ids: Annotated[list[str], Field(min_length=2, max_length=50)],
) -> dict[str, Any]:
    """Create a group chat with contacts.

    Args:
        name: Name of the group.
        member_ids: Contact ids of the members (at least two).
    """
    for cid in member_ids:
        _contact(ctx, cid)
    existing = ctx.conn.execute(_GROUP_ID_BY_NAME, {"name": name.lower()}).scalar()
    if existing:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"a group named {name!r} exists: {existing}", existing_id=existing)
    gid = ctx.new_id(groups)
    ctx.conn.execute(
        _ADD_GROUP,
        {
            "group_id": gid,
            "name": name,
            "members_json": json.dumps(sorted(set(member_ids))),
            "is_admin": 1,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"group_id": gid, "name": name, "members": sorted(set(member_ids))}


@tool(
    l2="3.6",
    app="chat",
    mutating=True,
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.PERMISSION_DENIED, ErrorType.DUPLICATE_ENTITY),
)
def add_group_members(
    ctx: Ctx,
    group_id: str,
    member_ids: Annotated[list[str], Field(min_length=1, max_length=50)],
    remove: bool = False,
) -> dict[str, Any]:
    """Add contacts to a group chat, or remove members from it (only a group admin may).

    Args:
        group_id: Id of the group chat, e.g. group_902 (search_messages lists group chats).
        member_ids: Contact ids to add (or remove).
        remove: Remove these members instead of adding them.
    """
    group = _group(ctx, group_id)
    members = set(json.loads(group["members_json"]))
    wanted = sorted(set(member_ids))
    if remove:
        strangers = [c for c in wanted if c not in members]
        if strangers:
            raise ToolError(
                ErrorType.ENTITY_NOT_FOUND, f"not members of {group_id}: {', '.join(strangers)}", missing=strangers
            )
    else:
        for cid in wanted:
            _contact(ctx, cid)
    if not group["is_admin"]:
        raise ToolError(
            ErrorType.PERMISSION_DENIED,
            f"the user is not an admin of {group['name']!r}",
            reason="not_admin",
            group_id=group_id,
        )
    skipped = [] if remove else [c for c in wanted if c in members]
    if skipped == wanted:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY, f"already members of {group_id}: {', '.join(skipped)}", existing_ids=skipped
        )
    after = members - set(wanted) if remove else members | set(wanted)
    ctx.conn.execute(
        _SET_GROUP, {"match_group_id": group_id, "members_json": json.dumps(sorted(after)), "updated_at": ctx.ts()}
    )
    return {
        "group_id": group_id,
        "removed" if remove else "added": sorted(after ^ members),
        "skipped_already_members": skipped,
        "members": sorted(after),
    }
