"""The social domain's data model: its tables, and the constants and types its tools and seeder share."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field
from sqlalchemy import Column, Integer, Text

from sandbox.schema import USER, WORLD, stamps, table


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
