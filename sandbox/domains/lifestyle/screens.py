"""GUI-agent flows for actions that have no API: a venue app's booking screen (the tickets a venue sells
only in its own app), the chat app's group settings and the social app's post settings. Their effects are
internal tools (callable only by a sub-agent), kept out of the D3 modules so those declare only their API tools.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, func, or_, select, update

from sandbox.domains.common import payment_method
from sandbox.domains.communication.schema import groups
from sandbox.domains.communication.tools import _group
from sandbox.domains.lifestyle.schema import Name, world_events
from sandbox.domains.lifestyle.tools import _MY_NAME, _issue_tickets, _minute, _section, _session
from sandbox.domains.shopping.schema import Id
from sandbox.domains.shopping.tools import get_row
from sandbox.domains.social.schema import social_posts
from sandbox.domains.social.tools import _post
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, rows
from sandbox.subagents import GuiFlow, gui_flow
from sandbox.tooling import INTERNAL, DateTime, tool

# ---- Venue apps (no API): the GUI agent reserves on their screens -------------------------------


@tool(
    domain=INTERNAL,
    app="tickets",
    mutating=True,
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.DUPLICATE_ENTITY,
        ErrorType.LIMIT_EXCEEDED,
        ErrorType.STATE_CONFLICT,
    ),
)
def venue_reserve_ticket(
    ctx: Ctx,
    event_id: Id,
    session_time: DateTime,
    quantity: Annotated[int, Field(ge=1, le=10)],
    visitor_names: Annotated[list[Name], Field(min_length=1, max_length=10)],
) -> dict[str, Any]:
    """Reserve tickets on a venue app's booking screen (GUI-agent action).

    Args:
        event_id: The event the venue app sells.
        session_time: The session, YYYY-MM-DDTHH:MM.
        quantity: Number of tickets.
        visitor_names: One full name per visitor (venue apps register visitors by name).
    """
    ev = get_row(ctx, world_events, event_id, "search_events")
    session = _session(ev, session_time, _minute(ctx))
    if ev["seats_left"] < quantity:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE, f"only {ev['seats_left']} ticket(s) left", seats_left=ev["seats_left"]
        )
    section, unit = _section(ev, None)
    return _issue_tickets(
        ctx, ev, session, quantity, section, unit, visitor_names, payment_method(ctx, None)["method_id"]
    )


_SELLS_TICKETS = select(world_events.c.event_id).where(world_events.c.booking_app_id == bindparam("app_id")).limit(1)


def _sells_tickets(ctx: Ctx, app_id: str) -> bool:
    return ctx.conn.execute(_SELLS_TICKETS, {"app_id": app_id}).first() is not None


_VENUE_APP_EVENTS = (
    select(world_events).where(world_events.c.booking_app_id == bindparam("app_id")).order_by(world_events.c.event_id)
)


def _reserve_in_venue_app(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Find the app's event on the date, pick the session, register the visitors, pay in the app."""
    date, session = str(inputs["date"]), str(inputs["session"])
    events = rows(ctx.conn.execute(_VENUE_APP_EVENTS, {"app_id": app_id}))
    wanted = session if "T" in session else f"{date}T{session}"
    ev = next((e for e in events if wanted in json.loads(e["sessions_json"])), None)
    if ev is None:
        raise ToolError(ErrorType.SUB_AGENT_FAILED, f"{app_id} shows no session at {wanted}", reason="no_session")
    profile = ctx.conn.execute(_MY_NAME).scalar()
    visitors = inputs["visitors"] if isinstance(inputs["visitors"], list) else [inputs["visitors"]]
    names = [
        profile if isinstance(v, dict) and v.get("self") else (v.get("name") if isinstance(v, dict) else v)
        for v in visitors
    ]
    if any(not isinstance(n, str) or not n for n in names):
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED, 'every visitor needs a name (or {"self": true})', missing_inputs=["visitors"]
        )
    result = ctx.call(
        "venue_reserve_ticket",
        {
            "event_id": ev["event_id"],
            "session_time": wanted,
            "quantity": int(inputs["quantity"]),
            "visitor_names": names,
        },
    )
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"the reservation failed: {result['Payload']['message']}",
            reason=result["ErrorType"],
        )
    payload = result["Payload"]
    return {
        "reservation_code": payload["ticket_id"],
        "qr_code": payload["qr_code"],
        "price": payload["total"],
        "session_time": payload["session_time"],
        "event_id": payload["event_id"],
    }


gui_flow(
    GuiFlow(
        None,
        "reserve_ticket",
        ("ticket", "reserv*", "book*"),
        ("date", "session", "quantity", "visitors"),
        _reserve_in_venue_app,
        serves=_sells_tickets,
    )
)


# ---- Screens without an API in the D3 apps (chat, social), driven by the GUI agent ------------------
# They live here, with the other GUI flows of the lifestyle apps, so the D3 modules keep only their API tools.

# ---- Group settings screen (no API): the GUI agent renames a group chat -----------------------

_OTHER_GROUP_NAMED = select(groups.c.group_id).where(
    func.lower(groups.c.name) == bindparam("name"), groups.c.group_id != bindparam("group_id")
)
_RENAME_GROUP = update(groups).where(groups.c.group_id == bindparam("match_group_id"))


@tool(
    domain=INTERNAL,
    app="chat",
    mutating=True,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.PERMISSION_DENIED, ErrorType.DUPLICATE_ENTITY),
)
def chat_rename_group(
    ctx: Ctx, group_id: str, new_name: Annotated[str, Field(min_length=1, max_length=80)]
) -> dict[str, Any]:
    """Rename a group chat on its settings screen (GUI-agent action; only a group admin may).

    Args:
        group_id: Id of the group chat.
        new_name: The group's new name.
    """
    group = _group(ctx, group_id)
    if not group["is_admin"]:
        raise ToolError(
            ErrorType.PERMISSION_DENIED,
            f"the user is not an admin of {group['name']!r}",
            reason="not_admin",
            group_id=group_id,
        )
    other = ctx.conn.execute(_OTHER_GROUP_NAMED, {"name": new_name.lower(), "group_id": group_id}).scalar()
    if other:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"a group named {new_name!r} exists: {other}", existing_id=other)
    ctx.conn.execute(_RENAME_GROUP, {"match_group_id": group_id, "name": new_name, "updated_at": ctx.ts()})
    return {"group_id": group_id, "old_name": group["name"], "name": new_name}


_GROUP_BY_ID_OR_NAME = select(groups.c.group_id).where(
    or_(groups.c.group_id == bindparam("group_id"), func.lower(groups.c.name) == bindparam("name"))
)


def _rename_group(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Open the group (by id or by its current name), then its settings, and type the new name."""
    ref = str(inputs["group"]).strip()
    row = ctx.conn.execute(_GROUP_BY_ID_OR_NAME, {"group_id": ref, "name": ref.lower()}).scalar()
    if row is None:
        raise ToolError(ErrorType.SUB_AGENT_FAILED, f"the chat app shows no group {ref!r}", reason="no_group")
    result = ctx.call("chat_rename_group", {"group_id": row, "new_name": str(inputs["new_name"])})
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED, f"renaming failed: {result['Payload']['message']}", reason=result["ErrorType"]
        )
    return {"group_id": row, "name": result["Payload"]["name"]}


gui_flow(GuiFlow("chat", "rename_group", ("rename", "name"), ("group", "new_name"), _rename_group))


# ---- Post settings screen (no API): the GUI agent changes who can see a post or deletes it ----

_SET_POST_VISIBILITY = update(social_posts).where(social_posts.c.post_id == bindparam("match_post_id"))


@tool(domain=INTERNAL, app="social", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.PERMISSION_DENIED))
def social_set_post_visibility(
    ctx: Ctx, post_id: str, visibility: Literal["public", "friends", "private"]
) -> dict[str, Any]:
    """Change the audience of one of the user's own posts on its edit screen (GUI-agent action).

    Args:
        post_id: Id of the user's post.
        visibility: Who may see it from now on.
    """
    post = _post(ctx, post_id)
    if not post["is_own"]:
        raise ToolError(ErrorType.PERMISSION_DENIED, f"{post_id} is not the user's post")
    ctx.conn.execute(_SET_POST_VISIBILITY, {"match_post_id": post_id, "visibility": visibility, "updated_at": ctx.ts()})
    return {"post_id": post_id, "visibility": visibility, "previous": post["visibility"]}


def _change_visibility(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Scroll the user's profile to the post whose text matches, open 'Edit audience' and pick one."""
    platform = str(inputs.get("platform") or "social")
    ref = str(inputs["post"]).strip()
    p = social_posts.c
    found = (
        ctx.conn.execute(
            select(p.post_id)
            .where(
                p.is_own == 1,
                p.platform == platform,
                or_(p.post_id == ref, func.lower(p.content).contains(ref.lower(), autoescape=True)),
            )
            .order_by(p.posted_at.desc())
        )
        .scalars()
        .all()
    )
    if len(found) != 1:
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"{len(found)} of your {platform} posts match {ref!r}",
            reason="no_post" if not found else "ambiguous_post",
        )
    result = ctx.call("social_set_post_visibility", {"post_id": found[0], "visibility": str(inputs["visibility"])})
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED, f"the change failed: {result['Payload']['message']}", reason=result["ErrorType"]
        )
    return {"post_id": found[0], "visibility": result["Payload"]["visibility"]}


gui_flow(
    GuiFlow(
        "social",
        "change_post_visibility",
        ("visib*", "audience", "private", "public", "who can see"),
        ("post", "visibility"),
        _change_visibility,
        optional_inputs=("platform",),
    )
)
