"""D3 Communication & Social, 3.7 and 3.8: posting to social networks, reading feeds, comments, likes, follows.

The user has one account on each of three platforms (``social``, ``microblog``, ``photoshare``);
every other account is part of the world catalogue. Posts by anyone sit in one table, the user's
own marked ``is_own``.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field
from sqlalchemy import Column, Connection, Integer, Text, bindparam, func, insert, or_, select

from sandbox.domains.communication.schema import contacts
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, rows
from sandbox.personas import Persona, seeder
from sandbox.schema import USER, WORLD, stamps, table
from sandbox.tooling import tool


def _platform_name(value: Any) -> Any:
    """A platform named in any letter case ("PhotoShare"), as the app's own picker would take it."""
    return value.strip().lower() if isinstance(value, str) else value


Platform = Annotated[Literal["social", "microblog", "photoshare"], BeforeValidator(_platform_name)]
PLATFORMS: tuple[str, ...] = ("social", "microblog", "photoshare")

world_social_accounts = table(
    "world_social_accounts",
    WORLD,
    Column("platform", Text, primary_key=True),
    Column("handle", Text, primary_key=True),  # lower case, without the @
    Column("display_name", Text, nullable=False),
    Column("bio", Text),
    Column("followers", Integer, nullable=False),
    Column("contact_id", Text),  # the user's contact behind this account, if any
    Column("is_self", Integer, nullable=False),  # the user's own account
    natural_key=("platform", "handle"),
)

social_posts = table(
    "social_posts",
    USER,
    Column("post_id", Text, primary_key=True),
    Column("platform", Text, nullable=False),
    Column("author", Text, nullable=False),  # handle
    Column("content", Text, nullable=False),
    Column("photo_ids_json", Text, nullable=False),
    Column("visibility", Text, nullable=False),  # public | friends | private
    Column("location", Text),
    Column("tags_json", Text, nullable=False),
    Column("is_own", Integer, nullable=False),
    Column("likes", Integer, nullable=False),  # likes by other people
    Column("posted_at", Text, nullable=False),
    *stamps(),
    natural_key=("platform", "author", "posted_at"),
)

social_comments = table(
    "social_comments",
    USER,
    Column("comment_id", Text, primary_key=True),
    Column("post_id", Text, nullable=False),
    Column("author", Text, nullable=False),  # handle
    Column("text", Text, nullable=False),
    Column("reply_to_comment_id", Text),
    Column("posted_at", Text, nullable=False),
    *stamps(),
    natural_key=("post_id", "author", "posted_at"),
)

social_likes = table(
    "social_likes",
    USER,
    Column("post_id", Text, primary_key=True),  # a post the user liked
    *stamps(),
    natural_key=("post_id",),
)

social_follows = table(
    "social_follows",
    USER,
    Column("platform", Text, primary_key=True),
    Column("handle", Text, primary_key=True),  # an account the user follows
    *stamps(),
    natural_key=("platform", "handle"),
)

Handle = Annotated[str, Field(min_length=1, max_length=60)]
DUPLICATE_WINDOW = dt.timedelta(minutes=10)
POST_KEYS = ("post_id", "platform", "author", "content", "visibility", "location", "posted_at", "likes")


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


# ---- World data -------------------------------------------------------------------------------

# Public accounts: (handle, display name, bio, followers); each exists on one or more platforms.
PUBLIC_ACCOUNTS = [
    ("city_daily", "City Daily News", "Local news, weather and traffic", 820_000),
    ("chef_marco", "Chef Marco", "Weeknight recipes in 20 minutes", 310_000),
    ("travelwithanna", "Travel with Anna", "Slow travel, trains and tea houses", 154_000),
    ("techpulse", "TechPulse", "Gadgets and apps, reviewed honestly", 990_000),
    ("runclub_global", "Run Club", "Training plans and race days", 76_000),
    ("nightsky_photos", "Night Sky Photos", "Astrophotography from dark places", 48_000),
    ("bookworm_lin", "Bookworm Lin", "One book a week", 22_000),
    ("green_thumb", "Green Thumb", "Balcony gardens and houseplants", 63_000),
    ("metro_transit", "Metro Transit", "Service updates for the metro", 410_000),
    ("museum_of_art", "Museum of Modern Art", "Exhibitions and late openings", 530_000),
    ("coffee_lab", "Coffee Lab", "Beans, brewing and latte art", 35_000),
    ("jazz_corner", "Jazz Corner", "Live sessions every Friday", 18_000),
]
FRIENDS = ("contact_001", "contact_005", "contact_007", "contact_004", "contact_002")
PUBLIC_TOPICS = {
    "city_daily": [
        "Road works on the ring road this weekend: expect delays",
        "Heavy rain expected on Sunday",
        "New night market opens by the river",
    ],
    "chef_marco": [
        "Tomato and egg stir-fry, ready in 10 minutes",
        "My secret to crispy dumplings",
        "Three sauces every kitchen needs",
    ],
    "travelwithanna": [
        "Sunrise over the rice terraces",
        "Night train diaries: day two",
        "Best tea house in the old town",
    ],
    "techpulse": [
        "Hands-on with the new foldable phone",
        "Five battery tips that actually work",
        "Is the new smartwatch worth it?",
    ],
    "runclub_global": [
        "Sunday long run: 21 km easy pace",
        "How to train for your first marathon",
        "Stretching routine after a run",
    ],
    "nightsky_photos": ["The Milky Way from the desert", "Meteor shower peaks this week", "Full moon over the lake"],
    "bookworm_lin": [
        "Finished The Three-Body Problem, what a ride",
        "Atomic Habits: my notes",
        "Reading list for the summer",
    ],
    "green_thumb": ["My tomatoes finally turned red", "Repotting the monstera", "Five plants that survive anything"],
    "metro_transit": [
        "Line 4 delays due to a signal fault",
        "Extra trains for the concert on Saturday",
        "New station opens next month",
    ],
    "museum_of_art": [
        "Late opening on Friday until 22:00",
        "New exhibition: light and shadow",
        "Family workshop this Sunday",
    ],
    "coffee_lab": ["Latte art in three steps", "Ethiopian beans are back in stock", "Cold brew season is here"],
    "jazz_corner": ["Live tonight: the Blue Trio", "Open jam session next Friday", "Thanks for a packed house!"],
}
FRIEND_POSTS = [
    "Great dinner with friends tonight",
    "Finally finished the big project!",
    "Weekend hike, amazing views",
    "Our new puppy says hi",
    "Anyone up for badminton on Sunday?",
    "Best noodles in town",
    "Back from the beach",
    "Happy to share: I got promoted!",
    "Rainy day, good book",
    "Trying a new recipe tonight",
]
OWN_POSTS = [
    "Morning run along the river",
    "Team dinner after the launch",
    "Sunset from the office window",
    "Weekend at the lake with the family",
    "Homemade dumplings, first try",
    "New coffee place near work",
    "Finished reading Project Hail Mary",
    "Rainy Sunday, board games at home",
]
COMMENTS = [
    "Love this!",
    "Looks amazing",
    "Congrats!",
    "Where is this?",
    "So jealous",
    "Great shot",
    "Need to try this",
    "Haha, same here",
    "Thanks for sharing",
    "See you there!",
]


def _handle_of(name: str, platform: str) -> str:
    """A person's handle, spelt per platform's customs."""
    base = "".join(ch for ch in name.lower().replace(" ", "_") if ch.isalnum() or ch == "_")
    return {"social": base.replace("_", ""), "microblog": base, "photoshare": base.replace("_", ".") + ".snaps"}[
        platform
    ]


@seeder
def seed_social(conn: Connection, rng: random.Random, persona: Persona) -> None:
    now = dt.datetime.fromisoformat(persona.now)
    names = dict(
        conn.execute(select(contacts.c.contact_id, contacts.c.name).where(contacts.c.contact_id.in_(FRIENDS))).all()
    )
    accounts: list[dict[str, Any]] = []
    for platform in PLATFORMS:
        accounts.append(
            {
                "platform": platform,
                "handle": _handle_of(persona.name, platform),
                "display_name": persona.name,
                "bio": None,
                "followers": rng.randint(80, 400),
                "contact_id": None,
                "is_self": 1,
            }
        )
        for cid in FRIENDS:
            accounts.append(
                {
                    "platform": platform,
                    "handle": _handle_of(names[cid], platform),
                    "display_name": names[cid],
                    "bio": None,
                    "followers": rng.randint(50, 900),
                    "contact_id": cid,
                    "is_self": 0,
                }
            )
        for i, (handle, display, bio, followers) in enumerate(PUBLIC_ACCOUNTS):
            if i % 3 == PLATFORMS.index(platform) or rng.random() < 0.5:
                accounts.append(
                    {
                        "platform": platform,
                        "handle": handle,
                        "display_name": display,
                        "bio": bio,
                        "followers": followers,
                        "contact_id": None,
                        "is_self": 0,
                    }
                )
    conn.execute(insert(world_social_accounts), accounts)

    def ago(max_days: int) -> str:
        return (
            now - dt.timedelta(days=rng.randint(0, max_days), hours=rng.randint(1, 14), minutes=rng.randint(0, 59))
        ).strftime("%Y-%m-%dT%H:%M:%S")

    others = [a for a in accounts if not a["is_self"]]
    follows = [a for a in others if a["contact_id"] or rng.random() < 0.6]
    posts: list[dict[str, Any]] = []
    for a in others:
        texts = PUBLIC_TOPICS.get(a["handle"], FRIEND_POSTS)
        for text in rng.sample(texts, min(len(texts), 3 if a["contact_id"] else 2)):
            posts.append(
                {
                    "platform": a["platform"],
                    "author": a["handle"],
                    "content": text,
                    "is_own": 0,
                    "visibility": "friends" if a["contact_id"] else "public",
                    "likes": rng.randint(0, 40) if a["contact_id"] else rng.randint(50, 5000),
                    "posted_at": ago(120),
                }
            )
    for text in OWN_POSTS:
        platform = rng.choice(PLATFORMS)
        posts.append(
            {
                "platform": platform,
                "author": _handle_of(persona.name, platform),
                "content": text,
                "is_own": 1,
                "visibility": rng.choice(["friends", "friends", "public"]),
                "likes": rng.randint(3, 60),
                "posted_at": ago(150),
                "location": persona.home_city if rng.random() < 0.4 else None,
            }
        )
    posts.sort(key=lambda p: (p["posted_at"], p["platform"], p["author"]))
    stamp = persona.now
    for i, p in enumerate(posts, start=1):
        p.update(
            post_id=f"post_{i:03d}",
            photo_ids_json="[]",
            tags_json="[]",
            created_at=p["posted_at"],
            updated_at=p["posted_at"],
        )
        p.setdefault("location", None)
    conn.execute(insert(social_posts), posts)

    friends_by_platform: dict[str, list[str]] = {}
    for a in others:
        if a["contact_id"]:
            friends_by_platform.setdefault(a["platform"], []).append(a["handle"])
    comments: list[dict[str, Any]] = []
    for p in posts:
        if p["is_own"] or (p["author"] in friends_by_platform[p["platform"]] and rng.random() < 0.3):
            for _ in range(rng.randint(1, 3)):
                author = rng.choice([h for h in friends_by_platform[p["platform"]] if h != p["author"]])
                at = dt.datetime.fromisoformat(p["posted_at"]) + dt.timedelta(minutes=rng.randint(5, 600))
                comments.append(
                    {
                        "post_id": p["post_id"],
                        "author": author,
                        "text": rng.choice(COMMENTS),
                        "reply_to_comment_id": None,
                        "posted_at": min(at, now - dt.timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%S"),
                    }
                )
    comments.sort(key=lambda c: (c["posted_at"], c["post_id"], c["author"]))
    conn.execute(
        insert(social_comments),
        [
            {**c, "comment_id": f"comment_{i:03d}", "created_at": c["posted_at"], "updated_at": c["posted_at"]}
            for i, c in enumerate(comments, start=1)
        ],
    )
    liked = sorted(p["post_id"] for p in posts if not p["is_own"] and rng.random() < 0.25)
    conn.execute(insert(social_likes), [{"post_id": pid, "created_at": stamp, "updated_at": stamp} for pid in liked])
    conn.execute(
        insert(social_follows),
        [{"platform": a["platform"], "handle": a["handle"], "created_at": stamp, "updated_at": stamp} for a in follows],
    )
