"""BM25 ranking: the indexed search gives exactly what scoring every document does; the seeded facts."""

from __future__ import annotations

import math
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from sandbox import db
from sandbox.domains.communication.schema import contacts
from sandbox.memory import _desc, bm25_rank, dated, tokens
from sandbox.personas import PERSONAS
from sandbox.schema import memory_records
from sandbox.world import world_image

WORDS = ["alarm", "gym", "mom", "dentist", "rent", "wake", "dark", "mode", "music", "office", "lily", "the"]


def brute_force(
    query: str, docs: list[tuple[str, str, str]], k1: float = 1.5, b: float = 0.75
) -> list[tuple[str, float]]:
    """BM25 over every document, terms summed in the query's order (the definition the index must keep)."""
    q = tokens(query)
    if not q or not docs:
        return []
    terms = [tokens(text) for _, text, _ in docs]
    n, avg = len(docs), (sum(len(t) for t in terms) / len(docs) or 1.0)
    df = Counter(term for t in terms for term in set(t))
    scored = []
    for (doc_id, _, tie), words in zip(docs, terms, strict=True):
        tf, score = Counter(words), 0.0
        for term in q:
            if tf[term]:
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                score += idf * tf[term] * (k1 + 1) / (tf[term] + k1 * (1 - b + b * len(words) / avg))
        if score > 0:
            scored.append((round(score, 6), tie, doc_id))
    scored.sort(key=lambda s: (-s[0], _desc(s[1]), s[2]))
    return [(doc_id, score) for score, _, doc_id in scored]


DOCS = st.lists(
    st.tuples(
        st.sampled_from([f"mem_{i:03d}" for i in range(8)]),
        st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join),
        st.sampled_from(["2023-01-10", "2024-05-01", "2025-04-01"]),
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(docs=DOCS, query=st.lists(st.sampled_from([*WORDS, "zebra"]), max_size=5).map(" ".join))
def test_indexed_ranking_equals_scoring_every_document(docs: list[tuple[str, str, str]], query: str) -> None:
    assert bm25_rank(query, docs) == brute_force(query, docs)
    assert bm25_rank(query, docs) == bm25_rank(query, list(docs))  # the memoised index answers again alike


def test_seeded_facts_lie_before_every_worlds_now_and_agree_with_the_contacts() -> None:
    """Each persona's records are dated before its now (the reference world keeps its dates), and the
    mother's birthday in the contacts, where there is one, is the memory's April 18."""
    for persona in PERSONAS.values():
        conn = db.open_database(world_image(persona.persona_id))
        records = [dict(r._mapping) for r in conn.execute(select(memory_records))]
        assert all(r["valid_from"] <= persona.now and r["created_at"] <= persona.now for r in records)
        checkup = next(r for r in records if r["content"].startswith("Last dentist check-up"))
        assert checkup["content"].endswith(checkup["valid_from"])
        mom = conn.execute(select(contacts.c.birthday).where(contacts.c.name == "Zhang Min")).scalar()
        assert mom is None or mom[4:] == "-04-18"
    assert dated("2025-04-01", PERSONAS["wang_lei"]) == "2025-04-01"  # 73 days before 2025-06-13
    assert dated("2025-04-01", PERSONAS["yuki_sato"]) == "2024-11-03"  # 73 days before 2025-01-15


def test_a_fact_held_once_at_a_time_has_one_active_record() -> None:
    """Distractors that restate a one-at-a-time fact (a favourite colour per thing) leave only the newest
    active; each older one is superseded by it, dated until it (audit: four active phone-case colours)."""
    for persona in PERSONAS.values():
        conn = db.open_database(world_image(persona.persona_id))
        records = {r.memory_id: dict(r._mapping) for r in conn.execute(select(memory_records))}
        colours: dict[str, list[dict]] = {}
        for r in records.values():
            if r["content"].startswith("Favourite "):
                colours.setdefault(r["content"].split(" color is ")[0], []).append(r)
        for same in colours.values():
            active = [r for r in same if r["status"] == "active"]
            assert len(active) == 1, [r["content"] for r in same]
            for r in same:
                if r is not active[0]:
                    assert (r["status"], r["superseded_by"]) == ("superseded", active[0]["memory_id"])
                    assert r["valid_from"] <= active[0]["valid_from"] == r["valid_to"]
        for r in records.values():  # every superseded record names an existing successor
            if r["status"] == "superseded":
                assert records[r["superseded_by"]]["status"] == "active"
