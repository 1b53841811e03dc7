"""The social domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from sqlalchemy import Connection, insert, select

from sandbox.domains.communication.schema import contacts
from sandbox.domains.social.schema import (
    PLATFORMS,
    social_comments,
    social_follows,
    social_likes,
    social_posts,
    world_social_accounts,
)
from sandbox.personas import Persona, seeder

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
