"""The planner's long-term memory: records, deterministic BM25 search, and the persona's seeded facts."""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import random
import re
from collections import Counter
from typing import Any

from sqlalchemy import Connection, insert, select

from sandbox.personas import Persona, seeder
from sandbox.schema import memory_records

CATEGORIES = ("profile", "preference", "past_record", "relationship", "routine", "commitment")

_TOKEN = re.compile(r"[a-z0-9]+")
_STOP = frozenset("a an and are as at be by for from has i in is it my of on or the to with".split())


def tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in _STOP]


@functools.lru_cache(maxsize=1 << 16)
def _analysed(text: str) -> tuple[Counter[str], int]:
    """A document's term counts and length. Memoised: a world's records and the tool descriptions are
    searched over and over, and tokenising them dominated a memory search."""
    terms = tokens(text)
    return Counter(terms), len(terms)


class _Index:
    """A corpus ready for BM25: each document's term counts and length, and for each term looked up so
    far the documents holding it (position, count). Postings are built per query term on first use, not
    for every term up front: a memory search ranks a corpus (the episode's live records) often seen only
    once, while the tool descriptions' corpus is ranked again and again and keeps its postings."""

    def __init__(self, docs: tuple[tuple[str, str, str], ...]) -> None:
        analysed = [_analysed(text) for _, text, _ in docs]
        self.counts = [counts for counts, _ in analysed]
        self.lengths = [length for _, length in analysed]
        self.average = sum(self.lengths) / len(docs) or 1.0
        self._postings: dict[str, list[tuple[int, int]]] = {}

    def holding(self, term: str) -> list[tuple[int, int]]:
        """The documents holding ``term``, in corpus order (a race between threads only builds it twice)."""
        found = self._postings.get(term)
        if found is None:
            found = self._postings[term] = [(p, c[term]) for p, c in enumerate(self.counts) if term in c]
        return found


@functools.lru_cache(maxsize=64)
def _index(docs: tuple[tuple[str, str, str], ...]) -> _Index:
    """One index per corpus (a world's live records, the tool descriptions)."""
    return _Index(docs)


def bm25_rank(
    query: str, docs: list[tuple[str, str, str]], k1: float = 1.5, b: float = 0.75
) -> list[tuple[str, float]]:
    """Rank ``(doc_id, text, tie_key)`` docs for ``query``; ties break on tie_key desc, then id.

    Scores are rounded to 6 decimals so the order is identical on every machine (each document's terms
    are summed in the query's order, so the floating-point sums do not depend on the index).
    """
    q = tokens(query)
    if not q or not docs:
        return []
    index = _index(tuple(docs))
    n = len(docs)
    scores: dict[int, float] = {}
    for term in q:
        holding = index.holding(term)
        idf = math.log(1 + (n - len(holding) + 0.5) / (len(holding) + 0.5))
        for position, tf in holding:
            length = index.lengths[position]
            scores[position] = scores.get(position, 0.0) + idf * tf * (k1 + 1) / (
                tf + k1 * (1 - b + b * length / index.average)
            )
    scored = [(round(score, 6), docs[p][2], docs[p][0]) for p, score in scores.items() if score > 0]
    scored.sort(key=lambda s: (-s[0], _desc(s[1]), s[2]))
    return [(doc_id, score) for score, _, doc_id in scored]


def _desc(text: str) -> tuple[int, ...]:
    return tuple(-ord(ch) for ch in text)


_SEARCHABLE = select(
    memory_records.c.memory_id,
    memory_records.c.category,
    memory_records.c.content,
    memory_records.c.entities_json,
    memory_records.c.valid_from,
    memory_records.c.valid_to,
    memory_records.c.status,
).where(memory_records.c.status != "deleted")


@functools.lru_cache(maxsize=1 << 16)
def _document(content: str, entities_json: str) -> str:
    """What BM25 sees of a record: its content and its entities."""
    return content + " " + " ".join(json.loads(entities_json))


def search(
    conn: Connection, query: str, category: str | None, top_k: int, include_superseded: bool
) -> list[dict[str, Any]]:
    """The top-k records for ``query`` among the live ones (superseded included on request), by BM25."""
    records: dict[str, tuple[Any, ...]] = {}
    docs = []
    for mid, cat, content, entities_json, valid_from, valid_to, status in conn.execute(_SEARCHABLE):
        if (include_superseded or status == "active") and (not category or cat == category):
            records[mid] = (mid, cat, content, valid_from, valid_to, status)
            docs.append((mid, _document(content, entities_json), valid_from))
    return [
        {**dict(zip(_RECORD_KEYS, records[mid], strict=True)), "score": score}
        for mid, score in bm25_rank(query, docs)[:top_k]
    ]


_RECORD_KEYS = ("memory_id", "category", "content", "valid_from", "valid_to", "status")


# ---- seeded facts -----------------------------------------------------------------------------
# (category, content, entities, valid_from, status). Superseded pairs model conflicting records.
# Dates are as the reference world (wang_lei, REFERENCE_NOW) sees them; every persona gets them shifted
# to the same distance before its own now, so no record is dated after the world's now. A content's
# ``{valid_from}`` is the record's shifted date.
REFERENCE_NOW = dt.date(2025, 6, 13)
FACTS: list[tuple[str, str, list[str], str, str]] = [
    (
        "profile",
        "Lives in {home_city}; home address is 18 Garden Road, {home_city}",
        ["home", "{home_city}"],
        "2023-01-10",
        "active",
    ),
    (
        "profile",
        "Works at Acme Corp in {work_city}, office on the 12th floor",
        ["work", "Acme Corp"],
        "2023-02-01",
        "active",
    ),
    (
        "relationship",
        "Lily Chen is my wife; she prefers to be texted, not called",
        ["Lily Chen", "wife"],
        "2023-01-10",
        "active",
    ),
    (
        "relationship",
        "Mom (Zhang Min) birthday is April 18",
        ["Zhang Min", "mother", "birthday"],
        "2023-01-10",
        "active",
    ),
    (
        "relationship",
        "My boss is Alex Turner; Alex Morgan is a colleague on the design team",
        ["Alex Turner", "boss", "Alex Morgan"],
        "2023-03-05",
        "active",
    ),
    ("relationship", "Dr. Sarah Lin is my dentist", ["Sarah Lin", "dentist"], "2023-06-01", "active"),
    ("preference", "Prefers meetings in the morning, before 11:00", ["meetings", "morning"], "2024-02-01", "active"),
    (
        "preference",
        "Wants the phone silent (do not disturb) during focus work",
        ["do not disturb", "focus"],
        "2024-03-01",
        "active",
    ),
    ("routine", "Wakes up at 06:45 on weekdays", ["alarm", "wake up", "weekdays"], "2023-09-01", "superseded"),
    (
        "routine",
        "Now wakes up at 06:15 on weekdays since starting the new job",
        ["alarm", "wake up", "weekdays"],
        "2025-04-01",
        "active",
    ),
    ("routine", "Gym on Monday and Wednesday evenings", ["gym", "workout"], "2024-01-15", "superseded"),
    ("routine", "Gym moved to Tuesday and Thursday evenings at 19:00", ["gym", "workout"], "2025-05-02", "active"),
    ("routine", "Team standup every weekday at 09:30", ["standup", "team", "meeting"], "2024-05-01", "active"),
    (
        "commitment",
        "Promised to call Dad (Wang Jun) every Sunday evening",
        ["Wang Jun", "father", "call"],
        "2024-07-01",
        "active",
    ),
    (
        "commitment",
        "Pays the rent to the landlord on the 15th of each month",
        ["rent", "landlord"],
        "2023-01-10",
        "active",
    ),
    ("preference", "Likes the screen in dark mode at night", ["dark mode", "display"], "2024-08-01", "active"),
    ("past_record", "Last dentist check-up was on {valid_from}", ["dentist", "check-up"], "2025-01-20", "active"),
    ("preference", "Prefers ringtone volume low at the office", ["ringer", "volume", "office"], "2024-09-01", "active"),
]

# (category, content, entities, key): records of a topic with a key state one fact that holds once at a
# time (one favourite colour per thing), so of those with the same filled key only the newest stays
# active and the older ones are superseded by it, as if the user had changed their mind; records
# without a key may all hold at once (liking several foods).
DISTRACTOR_TOPICS: list[tuple[str, str, list[str], str | None]] = [
    ("preference", "Likes {food} food", ["food", "{food}"], None),
    ("past_record", "Watched a {genre} movie with friends in {month}", ["movie", "{genre}"], None),
    ("preference", "Favourite {thing} color is {color}", ["{thing}", "color"], "favourite {thing} color"),
    ("past_record", "Bought a new {gadget} in {month}", ["{gadget}", "purchase"], None),
    ("routine", "Reads {genre} books before sleeping", ["reading", "{genre}"], None),
]
FILL = {
    "food": ["Sichuan", "Italian", "Thai", "Mexican", "Japanese", "Korean"],
    "genre": ["science fiction", "comedy", "mystery", "history", "fantasy"],
    "month": ["January", "February", "March", "April", "May"],
    "thing": ["phone case", "notebook", "backpack", "mug"],
    "color": ["blue", "green", "black", "orange"],
    "gadget": ["tablet", "smartwatch", "laptop", "speaker", "e-reader"],
}


def _fill(text: str, persona: Persona, choice: dict[str, str]) -> str:
    return text.format(home_city=persona.home_city, work_city=persona.work_city, **choice)


def dated(reference: str, persona: Persona) -> str:
    """A FACTS date moved to lie as far before the persona's now as it lies before REFERENCE_NOW."""
    now = dt.date.fromisoformat(persona.now[:10])
    return (now - (REFERENCE_NOW - dt.date.fromisoformat(reference))).isoformat()


@seeder
def seed_memory(conn: Connection, rng: random.Random, persona: Persona) -> None:
    records = []
    for cat, content, entities, reference, status in FACTS:
        valid_from = dated(reference, persona)
        fill = {"valid_from": valid_from}
        records.append(
            (cat, _fill(content, persona, fill), [_fill(e, persona, fill) for e in entities], valid_from, status)
        )
    seen: set[str] = set()
    keyed: dict[str, list[int]] = {}  # a key's records, by position in ``records``
    while len(records) < persona.memories:
        cat, content, entities, key = rng.choice(DISTRACTOR_TOPICS)
        choice = {k: rng.choice(v) for k, v in FILL.items()}
        text = content.format(**choice)
        if text in seen:
            continue
        seen.add(text)
        month = rng.randint(1, 12)
        if key:
            keyed.setdefault(key.format(**choice), []).append(len(records))
        records.append((cat, text, [e.format(**choice) for e in entities], f"2024-{month:02d}-01", "active"))
    successors: dict[int, int] = {}  # an older keyed record -> the newest of its key
    for positions in keyed.values():
        *older, newest = sorted(positions, key=lambda p: (records[p][3], p))
        successors.update(dict.fromkeys(older, newest))
    for p in successors:
        records[p] = (*records[p][:4], "superseded")
    rows = []
    for i, (cat, content, entities, valid_from, status) in enumerate(records, start=1):
        rows.append(
            {
                "memory_id": f"mem_{i:03d}",
                "category": cat,
                "content": content,
                "entities_json": json.dumps(entities),
                "source": "user_stated",
                "valid_from": valid_from,
                "valid_to": None,
                "status": status,
                "superseded_by": None,
                "created_at": valid_from,
                "updated_at": valid_from,
            }
        )
    # link each superseded record to its successor (the newest of its key, else the next record: the
    # FACTS list each superseded fact right before the one that replaced it)
    for i, r in enumerate(rows):
        if r["status"] == "superseded":
            successor = rows[successors.get(i, i + 1)]
            r["superseded_by"] = successor["memory_id"]
            r["valid_to"] = successor["valid_from"]
    conn.execute(insert(memory_records), rows)
