"""D3 communication and social tools against the wang_lei world (now = 2025-06-13T09:00).

Every tool has a success test asserting its payload and state diff, and every declared ErrorType
has a case that changes nothing but one Operation_logs row.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Connection, func, insert, select, update

from sandbox.db import open_database, transaction
from sandbox.domains.communication import tools as communication
from sandbox.domains.communication.schema import blocked_numbers, call_log, contacts, groups, messages
from sandbox.domains.social import tools as social
from sandbox.domains.social.schema import (
    social_comments,
    social_follows,
    social_likes,
    social_posts,
    world_social_accounts,
)
from sandbox.executor import Executor
from sandbox.personas import PERSONAS
from sandbox.schema import app_permissions, apps, device_settings
from sandbox.tooling import REGISTRY
from sandbox.world import world_image
from tests.sandbox.conftest import diff, diff_of, log_count, ok, prepare

D3_TOOLS = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ in (communication.__name__, social.__name__))
STAMP = "2025-06-13T09:00:01"  # the first step's timestamp


@pytest.fixture
def ex(conn: Connection) -> Executor:
    """Every registered domain tool visible (the social module may not be in the shared fixture yet)."""
    e = Executor(conn, visible=frozenset(n for n, s in REGISTRY.items() if s.is_domain_tool))
    e.step = 1
    return e


def query(conn: Connection, stmt: Any) -> list[dict[str, Any]]:
    with transaction(conn):
        return [dict(r._mapping) for r in conn.execute(stmt)]


def scalar(conn: Connection, stmt: Any) -> Any:
    with transaction(conn):
        return conn.execute(stmt).scalar()


# ---- declarations -----------------------------------------------------------------------------


def test_declarations() -> None:
    assert len(D3_TOOLS) == 21
    assert {n for n in D3_TOOLS if not REGISTRY[n].mutating} == {
        "search_contacts",
        "search_messages",
        "get_call_log",
        "search_social_posts",
    }
    assert {n for n in D3_TOOLS if REGISTRY[n].domain != "D3"} == set()
    for name in D3_TOOLS:
        for arg in REGISTRY[name].parameters["properties"].values():
            assert arg["description"], name
    assert REGISTRY["start_video_call"].permissions == ("CAMERA", "MICROPHONE")
    assert {n for n in D3_TOOLS if REGISTRY[n].needs_login} == {
        "create_social_post",
        "search_social_posts",
        "comment_on_post",
    }


def test_world_has_what_the_tools_need(conn: Connection) -> None:
    with transaction(conn):
        assert conn.execute(select(contacts.c.name).where(contacts.c.contact_id == "contact_100")).scalar() == "Tom B."
        assert conn.execute(select(contacts.c.email).where(contacts.c.contact_id == "contact_007")).scalar() is None
        assert conn.execute(select(func.count()).select_from(contacts).where(contacts.c.email.is_(None))).scalar()
        assert [(g.group_id, g.name, g.is_admin) for g in conn.execute(select(groups))] == [
            ("group_001", "Family", 1),
            ("group_002", "Project Phoenix", 0),
            ("group_003", "Badminton Sundays", 1),
            ("group_004", "Class reunion", 0),
        ]
        assert set(conn.execute(select(call_log.c.app).distinct()).scalars()) == {"phone", "chat"}
        own = conn.execute(
            select(world_social_accounts.c.platform, world_social_accounts.c.handle).where(
                world_social_accounts.c.is_self == 1
            )
        ).all()
        assert sorted(own) == [("microblog", "wang_lei"), ("photoshare", "wang.lei.snaps"), ("social", "wanglei")]
        posts = conn.execute(select(social_posts)).all()
        assert len(posts) >= 80 and sum(p.is_own for p in posts) == 8
        assert all(p.posted_at < "2025-06-13T09:00:00" for p in posts)
        assert conn.execute(select(func.count()).select_from(social_comments)).scalar() >= 30
        assert conn.execute(select(func.count()).select_from(social_likes)).scalar() >= 10
        assert conn.execute(select(func.count()).select_from(social_follows)).scalar() >= 15


# ---- 3.1 Contacts -----------------------------------------------------------------------------


def test_add_contact(ex: Executor) -> None:
    out = ok(ex, "add_contact", {"name": "Nora Quinn", "phone_number": "+86 139 1234 5678", "email": "nora@x.com"})
    assert out == {"contact_id": "contact_101", "name": "Nora Quinn", "phone_number": "+8613912345678"}
    [row] = diff(ex)["contacts"]["inserted"]
    assert (row["contact_id"], row["email"], row["favorite"], row["created_at"]) == (
        "contact_101",
        "nora@x.com",
        0,
        STAMP,
    )


def test_search_contacts(ex: Executor) -> None:
    out = ok(ex, "search_contacts", {"name": "tom b"})
    assert [c["contact_id"] for c in out["contacts"]] == ["contact_100", "contact_007"]
    assert ok(ex, "search_contacts", {"relationship": "spouse"})["contacts"][0]["name"] == "Lily Chen"
    assert diff(ex) == {}


def test_update_contact(ex: Executor) -> None:
    out = ok(ex, "update_contact", {"contact_id": "contact_007", "company": "Globex", "favorite": True})
    assert out == {"contact_id": "contact_007", "updated": ["company", "favorite"]}
    [upd] = diff(ex)["contacts"]["updated"]
    assert (upd["after"]["company"], upd["after"]["favorite"], upd["after"]["updated_at"]) == ("Globex", 1, STAMP)


def test_delete_contact(ex: Executor) -> None:
    assert ok(ex, "delete_contact", {"contact_id": "contact_100"}) == {"deleted": "contact_100", "name": "Tom B."}
    assert [r["contact_id"] for r in diff(ex)["contacts"]["deleted"]] == ["contact_100"]


def test_merge_contacts(ex: Executor) -> None:
    conn = ex.conn
    tom, dup = (
        query(conn, select(contacts).where(contacts.c.contact_id == c))[0] for c in ("contact_007", "contact_100")
    )
    dup_messages = scalar(
        conn, select(func.count()).select_from(messages).where(messages.c.contact_id == "contact_100")
    )
    prepare(
        conn,
        update(groups)
        .where(groups.c.group_id == "group_003")
        .values(members_json=json.dumps(["contact_007", "contact_023", "contact_100"])),
    )
    out = ok(ex, "merge_contacts", {"primary_id": "contact_007", "duplicate_id": "contact_100"})
    assert out["contact"]["name"] == "Tom Baker" and out["contact"]["phone_number"] == tom["phone_number"]
    assert out["contact"]["notes"] == f"badminton\nOther phone: {dup['phone_number']}"
    assert out["moved"] == {
        "messages": dup_messages,
        "call_log": out["moved"]["call_log"],
        "blocked_numbers": 0,
        "groups": 1,
    }
    d = diff(ex)
    assert [r["contact_id"] for r in d["contacts"]["deleted"]] == ["contact_100"]
    assert [u["after"]["contact_id"] for u in d["contacts"]["updated"]] == ["contact_007"]
    assert len(d.get("messages", {"updated": []})["updated"]) == dup_messages
    assert all(u["after"]["contact_id"] == "contact_007" for u in d.get("messages", {"updated": []})["updated"])
    [grp] = d["groups"]["updated"]
    assert json.loads(grp["after"]["members_json"]) == ["contact_007", "contact_023"]


def test_merge_contacts_prefer_duplicate(ex: Executor) -> None:
    dup = query(ex.conn, select(contacts).where(contacts.c.contact_id == "contact_100"))[0]
    out = ok(ex, "merge_contacts", {"primary_id": "contact_007", "duplicate_id": "contact_100", "prefer": "duplicate"})
    assert out["contact_id"] == "contact_007"
    assert (out["contact"]["name"], out["contact"]["phone_number"], out["contact"]["company"]) == (
        "Tom B.",
        dup["phone_number"],
        "Acme Corp",
    )  # the duplicate has no company: the primary's fills the gap


# ---- 3.2 Sending ------------------------------------------------------------------------------


def test_send_sms(ex: Executor) -> None:
    lily = query(ex.conn, select(contacts.c.phone_number).where(contacts.c.contact_id == "contact_001"))[0]
    out = ok(ex, "send_sms", {"to": [lily["phone_number"], "+86 139 0000 0000"], "body": "On my way"})
    assert [(s["to"], s["contact_id"]) for s in out["sent"]] == [
        (lily["phone_number"], "contact_001"),
        ("+8613900000000", None),
    ]
    rows = diff(ex)["messages"]["inserted"]
    assert [(r["channel"], r["direction"], r["body"], r["status"]) for r in rows] == [
        ("sms", "out", "On my way", "sent")
    ] * 2


def test_send_chat_message(ex: Executor) -> None:
    assert ok(ex, "send_chat_message", {"to": "group_001", "text": "Dinner at 7?"})["to"] == "group_001"
    ok(ex, "send_chat_message", {"to": "contact_005", "text": "Mockups look great"})
    rows = diff(ex)["messages"]["inserted"]
    assert (rows[0]["counterpart"], rows[0]["contact_id"], rows[0]["channel"]) == ("group_001", None, "chat")
    assert rows[1]["contact_id"] == "contact_005"


# ---- 3.3 Inbox --------------------------------------------------------------------------------


def test_search_messages(ex: Executor) -> None:
    out = ok(ex, "search_messages", {"query": "running late", "limit": 50})
    assert out["count"] and all("running" in m["body"].lower() and "late" in m["body"].lower() for m in out["messages"])
    assert [m["sent_at"] for m in out["messages"]] == sorted((m["sent_at"] for m in out["messages"]), reverse=True)
    unread = ok(ex, "search_messages", {"unread_only": True, "limit": 50})
    assert unread["count"] and all(m["is_read"] == 0 for m in unread["messages"])


def test_search_messages_lists_group_chats(ex: Executor) -> None:
    """Group chats are found by name words (any case) or listed whole, with their members' names."""
    out = ok(ex, "search_messages", {"query": "project PHOENIX"})
    [grp] = out["groups"]
    assert (grp["group_id"], grp["name"], grp["is_admin"]) == ("group_002", "Project Phoenix", False)
    assert grp["members"] and all(m["contact_id"].startswith("contact_") and m["name"] for m in grp["members"])
    listed = ok(ex, "search_messages", {"groups_only": True})
    assert [g["name"] for g in listed["groups"]] == sorted(
        ["Family", "Project Phoenix", "Badminton Sundays", "Class reunion"]
    )
    assert listed["count"] == 4 and "messages" not in listed
    member = grp["members"][0]["contact_id"]
    mine = ok(ex, "search_messages", {"groups_only": True, "contact_id": member})["groups"]
    assert "group_002" in [g["group_id"] for g in mine]
    assert all(member in [m["contact_id"] for m in g["members"]] for g in mine)
    assert "groups" not in ok(ex, "search_messages", {"query": "phoenix", "channel": "sms"})
    assert "groups" not in ok(ex, "search_messages", {"unread_only": True})


def test_mark_messages_read(ex: Executor) -> None:
    unread = [m["message_id"] for m in query(ex.conn, select(messages.c.message_id).where(messages.c.is_read == 0))]
    read = query(ex.conn, select(messages.c.message_id).where(messages.c.is_read == 1).limit(1))[0]["message_id"]
    out = ok(ex, "mark_messages_read", {"message_ids": [unread[0], read]})
    assert out == {"marked_read": [unread[0]]}
    [upd] = diff(ex)["messages"]["updated"]
    assert (upd["before"]["is_read"], upd["after"]["is_read"]) == (0, 1)


def test_delete_messages(ex: Executor) -> None:
    assert ok(ex, "delete_messages", {"message_ids": ["message_001"]}) == {"deleted": ["message_001"]}
    [upd] = diff(ex)["messages"]["updated"]
    assert upd["after"]["status"] == "deleted"


# ---- 3.4 Calls --------------------------------------------------------------------------------


def test_make_phone_call(ex: Executor) -> None:
    out = ok(ex, "make_phone_call", {"to": "contact_003"})
    assert out["contact_id"] == "contact_003" and out["status"] == "dialing"
    [row] = diff(ex)["call_log"]["inserted"]
    assert (row["call_id"], row["type"], row["app"], row["video"]) == (out["call_id"], "outgoing", "phone", 0)


def test_start_video_call(ex: Executor) -> None:
    out = ok(ex, "start_video_call", {"to": "contact_001"})
    assert (out["video"], out["status"], out["contact_id"]) == (True, "ringing", "contact_001")
    ok(ex, "start_video_call", {"to": "group_001", "audio_only": True})
    rows = diff(ex)["call_log"]["inserted"]
    assert [(r["app"], r["video"], r["contact_id"]) for r in rows] == [("chat", 1, "contact_001"), ("chat", 0, None)]
    assert rows[1]["number"] == "group_001"


def test_get_call_log(ex: Executor) -> None:
    out = ok(ex, "get_call_log", {"type": "missed", "limit": 50})
    assert out["count"] and {c["type"] for c in out["calls"]} == {"missed"}
    mum = ok(ex, "get_call_log", {"contact_id": "contact_002", "limit": 50})["calls"]
    assert {c["contact_id"] for c in mum} == {"contact_002"} and {"app", "video"} <= set(mum[0])


# ---- 3.5 Blocking -----------------------------------------------------------------------------


def test_block_number(ex: Executor) -> None:
    assert ok(ex, "block_number", {"phone_number": "+1 202 555 0199", "report_spam": True}) == {
        "blocked": "+12025550199",
        "contact_id": None,
        "reported_spam": True,
    }
    [row] = diff(ex)["blocked_numbers"]["inserted"]
    assert (row["number"], row["reported_spam"]) == ("+12025550199", 1)
    assert ok(ex, "block_number", {"phone_number": "+1 202 555 0143"})["reported_spam"] is False


# ---- 3.6 Groups -------------------------------------------------------------------------------


def test_create_group_chat(ex: Executor) -> None:
    out = ok(ex, "create_group_chat", {"name": "Hiking crew", "member_ids": ["contact_010", "contact_007"]})
    assert out == {"group_id": "group_005", "name": "Hiking crew", "members": ["contact_007", "contact_010"]}
    [row] = diff(ex)["groups"]["inserted"]
    assert (row["is_admin"], json.loads(row["members_json"])) == (1, ["contact_007", "contact_010"])


def test_add_group_members(ex: Executor) -> None:
    before = json.loads(
        query(ex.conn, select(groups.c.members_json).where(groups.c.group_id == "group_003"))[0]["members_json"]
    )
    out = ok(ex, "add_group_members", {"group_id": "group_003", "member_ids": ["contact_007", "contact_010"]})
    assert out["added"] == ["contact_010"] and out["skipped_already_members"] == ["contact_007"]
    assert out["members"] == sorted([*before, "contact_010"])
    out = ok(ex, "add_group_members", {"group_id": "group_003", "member_ids": ["contact_007"], "remove": True})
    assert out["removed"] == ["contact_007"]
    [upd] = diff(ex)["groups"]["updated"]
    assert json.loads(upd["after"]["members_json"]) == sorted({*before, "contact_010"} - {"contact_007"})


# ---- 3.7 Social posting -----------------------------------------------------------------------


def test_create_social_post(ex: Executor) -> None:
    out = ok(
        ex,
        "create_social_post",
        {
            "platform": "microblog",
            "content": "Sunset run",
            "photo_ids": ["photo_003"],
            "visibility": "public",
            "location": "River Park",
            "tags": ["#running"],
        },
    )
    assert out == {
        "post_id": out["post_id"],
        "platform": "microblog",
        "author": "wang_lei",
        "content": "Sunset run",
        "visibility": "public",
        "location": "River Park",
        "posted_at": STAMP,
        "likes": 0,
        "photo_ids": ["photo_003"],
    }
    [row] = diff(ex)["social_posts"]["inserted"]
    assert (row["post_id"], row["is_own"], json.loads(row["tags_json"])) == (out["post_id"], 1, ["running"])


def test_create_social_post_same_text_later_is_fine(ex: Executor) -> None:
    prepare(
        ex.conn,
        _hello_post("2025-06-13T08:45:00"),
    )
    ok(ex, "create_social_post", {"platform": "social", "content": "Hello"})


def test_search_social_posts_feed_and_filters(ex: Executor) -> None:
    conn = ex.conn
    followed = {
        r["handle"] for r in query(conn, select(social_follows.c.handle).where(social_follows.c.platform == "social"))
    }
    feed = ok(ex, "search_social_posts", {"platform": "social", "limit": 50})["posts"]
    assert feed and all(p["is_own"] or p["author"] in followed for p in feed)
    assert [p["posted_at"] for p in feed] == sorted((p["posted_at"] for p in feed), reverse=True)
    liked = {r["post_id"] for r in query(conn, select(social_likes.c.post_id))}
    assert all(p["liked_by_me"] == (p["post_id"] in liked) for p in feed)
    own = ok(ex, "search_social_posts", {"platform": "social", "own_only": True, "limit": 50})["posts"]
    assert own and all(p["author"] == "wanglei" and p["is_own"] for p in own)
    lily = ok(ex, "search_social_posts", {"platform": "social", "author": "Lily"})["posts"]
    assert lily and {p["author"] for p in lily} == {"lilychen"}
    assert ok(ex, "search_social_posts", {"platform": "social", "author": "@LilyChen"})["count"] == len(lily)
    word = lily[0]["content"].split()[-1]
    assert all(
        word.lower() in p["content"].lower()
        for p in ok(ex, "search_social_posts", {"platform": "social", "query": word})["posts"]
    )
    assert diff(ex) == {}


def test_search_social_posts_shows_comments(ex: Executor) -> None:
    own = ok(ex, "search_social_posts", {"platform": "social", "own_only": True, "limit": 50})["posts"]
    commented = [p for p in own if p["comment_count"]]
    assert commented and all(len(p["latest_comments"]) == min(5, p["comment_count"]) for p in commented)


# ---- 3.8 Social engagement --------------------------------------------------------------------


def _post_with_comment(conn: Connection) -> tuple[str, str]:
    row = query(
        conn,
        select(social_comments.c.post_id, social_comments.c.comment_id).order_by(social_comments.c.comment_id).limit(1),
    )[0]
    return row["post_id"], row["comment_id"]


def test_comment_on_post(ex: Executor) -> None:
    post_id, comment_id = _post_with_comment(ex.conn)
    out = ok(ex, "comment_on_post", {"post_id": post_id, "text": "Thank you!", "reply_to_comment_id": comment_id})
    platform = scalar(ex.conn, select(social_posts.c.platform).where(social_posts.c.post_id == post_id))
    own = scalar(
        ex.conn,
        select(world_social_accounts.c.handle).where(
            world_social_accounts.c.platform == platform, world_social_accounts.c.is_self == 1
        ),
    )
    assert out == {
        "comment_id": out["comment_id"],
        "post_id": post_id,
        "author": own,
        "text": "Thank you!",
        "reply_to_comment_id": comment_id,
    }
    [row] = diff(ex)["social_comments"]["inserted"]
    assert (row["comment_id"], row["posted_at"]) == (out["comment_id"], STAMP)


def _unliked_post(conn: Connection) -> str:
    liked = select(social_likes.c.post_id)
    return str(
        scalar(
            conn,
            select(social_posts.c.post_id)
            .where(social_posts.c.is_own == 0, social_posts.c.post_id.not_in(liked))
            .order_by(social_posts.c.post_id),
        )
    )


def test_like_post(ex: Executor) -> None:
    post_id = _unliked_post(ex.conn)
    likes = scalar(ex.conn, select(social_posts.c.likes).where(social_posts.c.post_id == post_id))
    out = ok(ex, "like_post", {"post_id": post_id})
    assert (out["liked"], out["likes"]) == (True, likes + 1)
    assert [r["post_id"] for r in diff(ex)["social_likes"]["inserted"]] == [post_id]
    assert ok(ex, "like_post", {"post_id": post_id, "unlike": True})["liked"] is False
    assert diff(ex) == {}


def test_like_counts_agree_between_search_and_like(ex: Executor) -> None:
    """The feed's count includes the user's own like, so liking and unliking show in it as like_post reports."""
    post_id = scalar(ex.conn, select(social_likes.c.post_id).order_by(social_likes.c.post_id))
    platform, author = query(
        ex.conn, select(social_posts.c.platform, social_posts.c.author).where(social_posts.c.post_id == post_id)
    )[0].values()

    def shown() -> int:
        posts = ok(ex, "search_social_posts", {"platform": platform, "author": author, "limit": 50})["posts"]
        return next(p["likes"] for p in posts if p["post_id"] == post_id)

    before = shown()
    assert ok(ex, "like_post", {"post_id": post_id, "unlike": True})["likes"] == before - 1 == shown()
    assert ok(ex, "like_post", {"post_id": post_id})["likes"] == before == shown()


def test_platform_in_any_letter_case(ex: Executor) -> None:
    assert ok(ex, "search_social_posts", {"platform": "PhotoShare", "own_only": True})["platform"] == "photoshare"
    out = ok(ex, "create_social_post", {"platform": " Social", "content": "Case test"})
    assert out["platform"] == "social"


def test_unlike_a_seeded_like(ex: Executor) -> None:
    post_id = scalar(ex.conn, select(social_likes.c.post_id).order_by(social_likes.c.post_id))
    ok(ex, "like_post", {"post_id": post_id, "unlike": True})
    assert [r["post_id"] for r in diff(ex)["social_likes"]["deleted"]] == [post_id]


def _unfollowed(conn: Connection) -> str:
    a = world_social_accounts.c
    followed = select(social_follows.c.handle).where(social_follows.c.platform == "social")
    return str(
        scalar(
            conn,
            select(a.handle)
            .where(a.platform == "social", a.is_self == 0, a.handle.not_in(followed))
            .order_by(a.handle),
        )
    )


def test_follow_and_unfollow_account(ex: Executor) -> None:
    handle = _unfollowed(ex.conn)
    out = ok(ex, "follow_account", {"platform": "social", "handle": f"@{handle.upper()}"})
    assert (out["handle"], out["following"]) == (handle, True)
    [row] = diff(ex)["social_follows"]["inserted"]
    assert (row["platform"], row["handle"]) == ("social", handle)
    followed = scalar(
        ex.conn,
        select(social_follows.c.handle)
        .where(social_follows.c.platform == "social", social_follows.c.handle != handle)
        .order_by(social_follows.c.handle),
    )
    ok(ex, "follow_account", {"platform": "social", "handle": followed, "unfollow": True})
    assert [r["handle"] for r in diff(ex)["social_follows"]["deleted"]] == [followed]


# ---- declared errors --------------------------------------------------------------------------

Prep = Callable[[Connection], list[Any]]
Args = dict[str, Any] | Callable[[Connection], dict[str, Any]]


def _read_message(conn: Connection) -> dict[str, Any]:
    return {
        "message_ids": [
            scalar(conn, select(messages.c.message_id).where(messages.c.is_read == 1).order_by(messages.c.message_id))
        ]
    }


def _foreign_comment(conn: Connection) -> dict[str, Any]:
    post_id, _ = _post_with_comment(conn)
    other = scalar(conn, select(social_comments.c.comment_id).where(social_comments.c.post_id != post_id))
    return {"post_id": post_id, "text": "hi", "reply_to_comment_id": other}


def _liked_post(conn: Connection) -> dict[str, Any]:
    return {"post_id": scalar(conn, select(social_likes.c.post_id).order_by(social_likes.c.post_id))}


def _followed(conn: Connection) -> dict[str, Any]:
    return {
        "platform": "social",
        "handle": scalar(
            conn,
            select(social_follows.c.handle)
            .where(social_follows.c.platform == "social")
            .order_by(social_follows.c.handle),
        ),
    }


def _hello_post(posted_at: str) -> Any:
    """The user's own post "Hello" on social, posted at ``posted_at``."""
    return insert(social_posts).values(
        post_id="post_900",
        platform="social",
        author="wanglei",
        content="Hello",
        photo_ids_json="[]",
        visibility="friends",
        location=None,
        tags_json="[]",
        is_own=1,
        likes=0,
        posted_at=posted_at,
    )


def _recent_post(_: Connection) -> list[Any]:
    return [_hello_post("2025-06-13T08:55:00")]


def _signed_out(app: str) -> Prep:
    return lambda _: [update(apps).where(apps.c.app_id == app).values(logged_in=0)]


def _offline(_: Connection) -> list[Any]:
    return [update(device_settings).where(device_settings.c.key.in_(["wifi", "mobile_data"])).values(value="0")]


def _no_camera(_: Connection) -> list[Any]:
    return [
        update(app_permissions)
        .where(app_permissions.c.app_id == "chat", app_permissions.c.permission == "CAMERA")
        .values(state="not_requested")
    ]


def _blocked(_: Connection) -> list[Any]:
    return [insert(blocked_numbers).values(number="+12025550199", contact_id=None, reported_spam=0)]


def _nothing(_: Connection) -> list[Any]:
    return []


# (tool, arguments, world change before the call, expected error)
ERROR_CASES: list[tuple[str, Args, Prep, str]] = [
    ("add_contact", {"name": "Lily C", "phone_number": "+0 000"}, _nothing, "InvalidArgumentValue"),
    ("add_contact", {"name": "Lily Chen", "phone_number": "+86 139 5555 0000"}, _nothing, "DuplicateEntity"),
    ("update_contact", {"contact_id": "contact_999", "notes": "x"}, _nothing, "EntityNotFound"),
    (
        "update_contact",
        lambda c: {
            "contact_id": "contact_007",
            "phone_number": scalar(c, select(contacts.c.phone_number).where(contacts.c.contact_id == "contact_001")),
        },
        _nothing,
        "DuplicateEntity",
    ),
    ("delete_contact", {"contact_id": "contact_999"}, _nothing, "EntityNotFound"),
    ("merge_contacts", {"primary_id": "contact_007", "duplicate_id": "contact_999"}, _nothing, "EntityNotFound"),
    ("merge_contacts", {"primary_id": "contact_007", "duplicate_id": "contact_007"}, _nothing, "InvalidArgumentValue"),
    ("send_sms", {"to": ["contact_999"], "body": "hi"}, _nothing, "EntityNotFound"),
    ("send_chat_message", {"to": "group_999", "text": "hi"}, _nothing, "EntityNotFound"),
    ("send_chat_message", {"to": "Lily", "text": "hi"}, _nothing, "EntityNotFound"),
    ("search_messages", {}, _nothing, "InvalidArgumentValue"),
    ("mark_messages_read", {"message_ids": ["message_999"]}, _nothing, "EntityNotFound"),
    ("mark_messages_read", _read_message, _nothing, "StateConflict"),
    ("delete_messages", {"message_ids": ["message_001", "message_999"]}, _nothing, "EntityNotFound"),
    ("make_phone_call", {"to": "contact_999"}, _nothing, "EntityNotFound"),
    ("start_video_call", {"to": "contact_999"}, _nothing, "EntityNotFound"),
    ("start_video_call", {"to": "contact_001"}, _no_camera, "PermissionDenied"),
    ("block_number", {"phone_number": "+1 202 555 0199"}, _blocked, "DuplicateEntity"),
    ("create_group_chat", {"name": "Trip", "member_ids": ["contact_001", "contact_999"]}, _nothing, "EntityNotFound"),
    (
        "create_group_chat",
        {"name": "family", "member_ids": ["contact_001", "contact_002"]},
        _nothing,
        "DuplicateEntity",
    ),
    ("add_group_members", {"group_id": "group_999", "member_ids": ["contact_001"]}, _nothing, "EntityNotFound"),
    ("add_group_members", {"group_id": "group_001", "member_ids": ["contact_999"]}, _nothing, "EntityNotFound"),
    (
        "add_group_members",
        {"group_id": "group_001", "member_ids": ["contact_010"], "remove": True},
        _nothing,
        "EntityNotFound",
    ),
    ("add_group_members", {"group_id": "group_002", "member_ids": ["contact_010"]}, _nothing, "PermissionDenied"),
    (
        "add_group_members",
        {"group_id": "group_001", "member_ids": ["contact_001", "contact_002"]},
        _nothing,
        "DuplicateEntity",
    ),
    ("add_group_members", {"group_id": "group_001", "member_ids": ["contact_010"]}, _offline, "NetworkUnavailable"),
    ("create_social_post", {"platform": "social", "content": "Hello"}, _recent_post, "DuplicateEntity"),
    ("create_social_post", {"platform": "social", "content": "Hello"}, _signed_out("social"), "AuthenticationRequired"),
    ("search_social_posts", {"platform": "social"}, _signed_out("social"), "AuthenticationRequired"),
    ("search_social_posts", {"platform": "social"}, _offline, "NetworkUnavailable"),
    ("comment_on_post", {"post_id": "post_999", "text": "hi"}, _nothing, "EntityNotFound"),
    ("comment_on_post", _foreign_comment, _nothing, "EntityNotFound"),
    ("like_post", {"post_id": "post_999"}, _nothing, "EntityNotFound"),
    ("like_post", _liked_post, _nothing, "StateConflict"),
    ("like_post", lambda c: {"post_id": _unliked_post(c), "unlike": True}, _nothing, "StateConflict"),
    ("follow_account", {"platform": "social", "handle": "@nobody_here"}, _nothing, "EntityNotFound"),
    ("follow_account", {"platform": "social", "handle": "wanglei"}, _nothing, "StateConflict"),
    (
        "follow_account",
        lambda c: {"platform": "social", "handle": _unfollowed(c), "unfollow": True},
        _nothing,
        "StateConflict",
    ),
    ("follow_account", _followed, _nothing, "DuplicateEntity"),
]


@pytest.mark.parametrize(
    ("name", "args", "prep", "error"), ERROR_CASES, ids=[f"{c[0]}-{c[3]}-{i}" for i, c in enumerate(ERROR_CASES)]
)
def test_error_changes_nothing(ex: Executor, name: str, args: Args, prep: Prep, error: str) -> None:
    prepare(ex.conn, *prep(ex.conn))
    arguments = args(ex.conn) if callable(args) else args
    logged = log_count(ex.conn)
    env = ex.call(name, arguments)
    assert (env["Status"], env["ErrorType"]) == ("error", error), env
    assert diff_of(ex.conn) == {}
    assert log_count(ex.conn) == logged + 1


def test_every_declared_error_is_tested() -> None:
    declared = {(n, e.value) for n in D3_TOOLS for e in REGISTRY[n].errors}
    assert declared <= {(c[0], c[3]) for c in ERROR_CASES}


def test_not_admin_reason_and_partial_duplicates(ex: Executor) -> None:
    env = ex.call("add_group_members", {"group_id": "group_002", "member_ids": ["contact_010"]})
    assert env["Payload"]["reason"] == "not_admin"
    env = ex.call("add_group_members", {"group_id": "group_001", "member_ids": ["contact_001"]})
    assert env["Payload"]["existing_ids"] == ["contact_001"]


def test_duplicate_post_names_the_existing_one(ex: Executor) -> None:
    prepare(ex.conn, *_recent_post(ex.conn))
    env = ex.call("create_social_post", {"platform": "social", "content": "Hello"})
    assert env["Payload"]["existing_id"] == "post_900"


# ---- seeded phone numbers -------------------------------------------------------------------------


def test_seeded_numbers_are_mobile_numbers_of_the_users_country() -> None:
    """Contacts (and so the call log) carry well-formed numbers: +1 then ten digits (not eleven), +86 1XX..."""
    lengths = {"+1": 10, "+86": 11, "+44": 10, "+81": 10, "+49": 11, "+34": 9, "+82": 10}
    for persona in PERSONAS.values():
        code = persona.phone.split()[0]
        conn = open_database(world_image(persona.persona_id))
        try:
            numbers = list(conn.execute(select(contacts.c.phone_number)).scalars())
        finally:
            conn.close()
        assert numbers and all(
            n.startswith(code) and n[len(code) :].isdigit() and len(n) - len(code) == lengths[code] for n in numbers
        ), (persona.persona_id, numbers[:3])
        if code == "+1":
            assert all(n[2] in "23456789" and n[5] in "23456789" for n in numbers)  # NANP area code and exchange
