"""The social domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import bindparam, func, insert, or_, select

from sandbox.domains.social.schema import (
    DUPLICATE_WINDOW,
    POST_KEYS,
    Handle,
    Platform,
    social_comments,
    social_follows,
    social_likes,
    social_posts,
    world_social_accounts,
)
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, rows
from sandbox.tooling import tool


def _handle(text: str) -> str:
    return text.strip().removeprefix("@").lower()


_OWN_HANDLE = select(world_social_accounts.c.handle).where(
    world_social_accounts.c.platform == bindparam("platform"), world_social_accounts.c.is_self == 1
)


def _own_handle(ctx: Ctx, platform: str) -> str:
    return str(ctx.conn.execute(_OWN_HANDLE, {"platform": platform}).scalar_one())


_POST = select(social_posts).where(social_posts.c.post_id == bindparam("post_id"))


def _post(ctx: Ctx, post_id: str) -> dict[str, Any]:
    row = ctx.conn.execute(_POST, {"post_id": post_id}).first()
    if row is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no post {post_id!r}", field="post_id", hint="search_social_posts")
    return dict(row._mapping)


def _minutes_ago(ctx: Ctx, delta: dt.timedelta) -> str:
    return (dt.datetime.fromisoformat(ctx.ts()) - delta).strftime("%Y-%m-%dT%H:%M:%S")


# ---- Social Posting (3.7) ---------------------------------------------------------------------

_SAME_OWN_POST_SINCE = select(social_posts.c.post_id).where(
    social_posts.c.platform == bindparam("platform"),
    social_posts.c.is_own == 1,
    social_posts.c.content == bindparam("content"),
    social_posts.c.posted_at >= bindparam("since"),
)
_ADD_POST = insert(social_posts)


@tool(
    l2="3.7",
    app="social",
    mutating=True,
    permissions=("PHOTOS",),
    network="internet",
    needs_login=True,
    errors=(ErrorType.DUPLICATE_ENTITY,),
)
def create_social_post(
    ctx: Ctx,
    platform: Platform,
    content: Annotated[str, Field(min_length=1, max_length=2000)],
    photo_ids: Annotated[list[Annotated[str, Field(pattern=r"^photo_\d{3,}$")]], Field(max_length=20)] | None = None,
    visibility: Literal["public", "friends", "private"] = "friends",
    location: Annotated[str, Field(min_length=1, max_length=120)] | None = None,
    tags: Annotated[list[Annotated[str, Field(min_length=1, max_length=40)]], Field(max_length=20)] | None = None,
) -> dict[str, Any]:
    """Publish a post from the user's account on a social platform, optionally with gallery photos.

    Args:
        platform: Which network to post on.
        content: Text of the post.
        photo_ids: Gallery photos to attach, e.g. ["photo_912"].
        visibility: Who can see it.
        location: A place name to tag, e.g. "West Lake, Hangzhou".
        tags: Hashtags, with or without the leading #.
    """
    author = _own_handle(ctx, platform)
    twin = ctx.conn.execute(
        _SAME_OWN_POST_SINCE, {"platform": platform, "content": content, "since": _minutes_ago(ctx, DUPLICATE_WINDOW)}
    ).scalar()
    if twin:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"the same text was posted minutes ago: {twin}", existing_id=twin)
    pid = ctx.new_id(social_posts)
    row: dict[str, Any] = {
        "post_id": pid,
        "platform": platform,
        "author": author,
        "content": content,
        "photo_ids_json": json.dumps(sorted(set(photo_ids or []))),
        "visibility": visibility,
        "location": location,
        "tags_json": json.dumps([t.lstrip("#") for t in tags or []]),
        "is_own": 1,
        "likes": 0,
        "posted_at": ctx.ts(),
    }
    ctx.conn.execute(_ADD_POST, {**row, "created_at": ctx.ts(), "updated_at": ctx.ts()})
    return {k: row[k] for k in POST_KEYS} | {"photo_ids": json.loads(row["photo_ids_json"])}


_LIKED_AMONG = select(social_likes.c.post_id).where(social_likes.c.post_id.in_(bindparam("post_ids", expanding=True)))
_COMMENTS_ON = (
    select(
        social_comments.c.comment_id,
        social_comments.c.post_id,
        social_comments.c.author,
        social_comments.c.text,
        social_comments.c.reply_to_comment_id,
        social_comments.c.posted_at,
    )
    .where(social_comments.c.post_id.in_(bindparam("post_ids", expanding=True)))
    .order_by(social_comments.c.posted_at.desc(), social_comments.c.comment_id)
)


@tool(l2="3.7", app="social", mutating=False, network="internet", needs_login=True)
def search_social_posts(
    ctx: Ctx,
    platform: Platform,
    query: Annotated[str, Field(min_length=1, max_length=200)] | None = None,
    author: Handle | None = None,
    own_only: bool = False,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
) -> dict[str, Any]:
    """Search posts on a platform, newest first; with no query or author it reads the user's feed.

    The feed is the user's own posts and those of the accounts they follow. Each post lists its
    likes (everyone's, the user's included), whether the user liked it and its latest comments.

    Args:
        platform: Which network to read.
        query: Words that must all appear in the post text (case-insensitive).
        author: An account's handle (with or without @) or part of its display name.
        own_only: Only the user's own posts.
        limit: Maximum number of posts.
    """
    p, a = social_posts.c, world_social_accounts.c
    q = (
        select(social_posts, a.display_name)
        .join_from(social_posts, world_social_accounts, (a.platform == p.platform) & (a.handle == p.author))
        .where(p.platform == platform)
    )
    if query:
        q = q.where(*(func.lower(p.content).contains(w, autoescape=True) for w in query.lower().split()))
    if author:
        q = q.where(
            or_(p.author == _handle(author), func.lower(a.display_name).contains(author.lower(), autoescape=True))
        )
    if own_only:
        q = q.where(p.is_own == 1)
    if not (query or author or own_only):
        followed = select(social_follows.c.handle).where(social_follows.c.platform == platform)
        q = q.where(or_(p.is_own == 1, p.author.in_(followed)))
    found = rows(ctx.conn.execute(q.order_by(p.posted_at.desc(), p.post_id).limit(limit)))
    ids = [r["post_id"] for r in found]
    liked = set(ctx.conn.execute(_LIKED_AMONG, {"post_ids": ids}).scalars())
    comments: dict[str, list[dict[str, Any]]] = {}
    for r in rows(ctx.conn.execute(_COMMENTS_ON, {"post_ids": ids})):
        comments.setdefault(r.pop("post_id"), []).append(r)
    # the likes column counts other people's likes; the app shows the total, as like_post reports it
    posts = [
        {
            **{k: r[k] for k in POST_KEYS},
            "likes": r["likes"] + (r["post_id"] in liked),
            "display_name": r["display_name"],
            "is_own": bool(r["is_own"]),
            "photo_ids": json.loads(r["photo_ids_json"]),
            "tags": json.loads(r["tags_json"]),
            "liked_by_me": r["post_id"] in liked,
            "comment_count": len(comments.get(r["post_id"], [])),
            "latest_comments": comments.get(r["post_id"], [])[:5],
        }
        for r in found
    ]
    return {"platform": platform, "posts": posts, "count": len(posts)}


# ---- Social Engagement (3.8) ------------------------------------------------------------------

_COMMENT_ON_POST = select(social_comments.c.comment_id).where(
    social_comments.c.comment_id == bindparam("comment_id"), social_comments.c.post_id == bindparam("post_id")
)
_ADD_COMMENT = insert(social_comments)


@tool(l2="3.8", app="social", mutating=True, network="internet", needs_login=True, errors=(ErrorType.ENTITY_NOT_FOUND,))
def comment_on_post(
    ctx: Ctx,
    post_id: str,
    text: Annotated[str, Field(min_length=1, max_length=1000)],
    reply_to_comment_id: str | None = None,
) -> dict[str, Any]:
    """Comment on a post, or reply to one of its comments, as the user.

    Args:
        post_id: Id of the post, e.g. post_931.
        text: Text of the comment.
        reply_to_comment_id: Id of a comment on the same post to reply to, e.g. comment_914.
    """
    post = _post(ctx, post_id)
    if (
        reply_to_comment_id
        and ctx.conn.execute(_COMMENT_ON_POST, {"comment_id": reply_to_comment_id, "post_id": post_id}).first() is None
    ):
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no comment {reply_to_comment_id!r} on {post_id}", field="reply_to_comment_id"
        )
    cid = ctx.new_id(social_comments)
    author = _own_handle(ctx, post["platform"])
    ctx.conn.execute(
        _ADD_COMMENT,
        {
            "comment_id": cid,
            "post_id": post_id,
            "author": author,
            "text": text,
            "reply_to_comment_id": reply_to_comment_id,
            "posted_at": ctx.ts(),
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {
        "comment_id": cid,
        "post_id": post_id,
        "author": author,
        "text": text,
        "reply_to_comment_id": reply_to_comment_id,
    }


_LIKE = select(social_likes.c.post_id).where(social_likes.c.post_id == bindparam("post_id"))
_DELETE_LIKE = social_likes.delete().where(social_likes.c.post_id == bindparam("post_id"))
_ADD_LIKE = insert(social_likes)


@tool(
    l2="3.8",
    app="social",
    mutating=True,
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT),
)
def like_post(ctx: Ctx, post_id: str, unlike: bool = False) -> dict[str, Any]:
    """Like a post, or take a like back; likes is the post's count afterwards, the user's like included.

    Args:
        post_id: Id of the post, e.g. post_931.
        unlike: Remove the user's like instead.
    """
    post = _post(ctx, post_id)
    liked = ctx.conn.execute(_LIKE, {"post_id": post_id}).first()
    if bool(liked) != unlike:
        raise ToolError(
            ErrorType.STATE_CONFLICT, f"{post_id} is {'already' if liked else 'not'} liked", liked=bool(liked)
        )
    if unlike:
        ctx.conn.execute(_DELETE_LIKE, {"post_id": post_id})
    else:
        ctx.conn.execute(_ADD_LIKE, {"post_id": post_id, "created_at": ctx.ts(), "updated_at": ctx.ts()})
    return {
        "post_id": post_id,
        "author": post["author"],
        "liked": not unlike,
        "likes": post["likes"] + (0 if unlike else 1),
    }


_ACCOUNT = select(world_social_accounts).where(
    world_social_accounts.c.platform == bindparam("platform"), world_social_accounts.c.handle == bindparam("handle")
)
_FOLLOW = select(social_follows.c.handle).where(
    social_follows.c.platform == bindparam("platform"), social_follows.c.handle == bindparam("handle")
)
_DELETE_FOLLOW = social_follows.delete().where(
    social_follows.c.platform == bindparam("platform"), social_follows.c.handle == bindparam("handle")
)
_ADD_FOLLOW = insert(social_follows)


@tool(
    l2="3.8",
    app="social",
    mutating=True,
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.DUPLICATE_ENTITY),
)
def follow_account(ctx: Ctx, platform: Platform, handle: Handle, unfollow: bool = False) -> dict[str, Any]:
    """Follow an account on a platform, or unfollow it.

    Args:
        platform: Which network.
        handle: The account's handle, with or without @, e.g. "@chef_marco".
        unfollow: Stop following instead.
    """
    key = _handle(handle)
    account = ctx.conn.execute(_ACCOUNT, {"platform": platform, "handle": key}).first()
    if account is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no account @{key} on {platform}", field="handle", hint="search_social_posts"
        )
    if account.is_self:
        raise ToolError(ErrorType.STATE_CONFLICT, f"@{key} is the user's own account")
    following = ctx.conn.execute(_FOLLOW, {"platform": platform, "handle": key}).first()
    if unfollow and not following:
        raise ToolError(ErrorType.STATE_CONFLICT, f"the user does not follow @{key}")
    if following and not unfollow:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"the user already follows @{key}", existing_id=key)
    if unfollow:
        ctx.conn.execute(_DELETE_FOLLOW, {"platform": platform, "handle": key})
    else:
        ctx.conn.execute(
            _ADD_FOLLOW, {"platform": platform, "handle": key, "created_at": ctx.ts(), "updated_at": ctx.ts()}
        )
    return {"platform": platform, "handle": key, "display_name": account.display_name, "following": not unfollow}
