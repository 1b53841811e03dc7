"""What every call runs, kept cheap: the plain-SQL savepoint, the one-walk screen of a call's arguments, and
search statements built once with their words bound (escaped as ``autoescape`` would)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import func, insert, select

import sandbox.domains  # noqa: F401
from sandbox import db
from sandbox.episode import Episode
from sandbox.executor import contains_bound, like_escaped
from sandbox.schema import metadata
from sandbox.suite import load_split
from sandbox.tooling import MAX_DEPTH, _screen
from sandbox.world import world_image

contacts = metadata.tables["contacts"]


def _row(n: int) -> dict[str, Any]:
    return {"contact_id": f"contact_{n}", "name": f"Person {n}", "phone_number": f"+1 555 {n:04d}", "favorite": 0}


def _count(conn: db.Connection) -> int:
    return int(conn.execute(select(func.count()).select_from(contacts)).scalar() or 0)


def test_savepoints_nest_commit_and_roll_back_without_sqlalchemy_knowing() -> None:
    conn = db.open_database(world_image("wang_lei"))
    try:
        conn.begin()
        start = _count(conn)
        outer = db.transaction(conn)
        assert isinstance(outer, db.Savepoint) and not conn.in_nested_transaction()
        conn.execute(insert(contacts), _row(9001))
        inner = db.transaction(conn)
        conn.execute(insert(contacts), _row(9002))
        inner.rollback()  # undoes only what followed it
        inner.rollback()  # a second rollback (or commit) does nothing
        assert _count(conn) == start + 1
        with pytest.raises(RuntimeError), db.transaction(conn):
            conn.execute(insert(contacts), _row(9003))
            raise RuntimeError("the block fails: its writes go")
        with db.transaction(conn):
            conn.execute(insert(contacts), _row(9004))
        outer.commit()
        assert _count(conn) == start + 2
        assert not db.raw(conn).execute("SELECT 1 FROM contacts WHERE contact_id = 'contact_9003'").fetchall()
        conn.rollback()  # the episode's own transaction still holds all of it
        assert _count(conn) == start
    finally:
        db.release(conn)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _depth(value: Any) -> int:
    """The definition: dict values and list items are one level deeper."""
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return 1 + max((_depth(c) for c in children), default=0)


def _holds_surrogate(value: Any) -> bool:
    """The definition: a lone surrogate in any string, dict keys and tuple items included."""
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    if isinstance(value, dict):
        return any(_holds_surrogate(k) or _holds_surrogate(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_holds_surrogate(v) for v in value)
    return False


def _expected(arguments: dict[Any, Any]) -> tuple[bool, str | None]:
    if _depth(arguments) > MAX_DEPTH:
        return True, None
    for name, value in arguments.items():
        if _holds_surrogate(name) or _holds_surrogate(value):
            return False, "argument name" if _holds_surrogate(str(name)) else str(name)
    return False, None


TEXT = st.sampled_from(["a", "plain", "é", "\ud800", "x\udfffy", ""])
LEAF = TEXT | st.integers(0, 3) | st.none()
KEY = TEXT | st.integers(0, 3) | st.tuples(TEXT)


def _chain(leaf: Any, kinds: list[int]) -> Any:
    for kind in kinds:  # deep but narrow: the only way past MAX_DEPTH in a small example
        leaf = [leaf] if kind == 0 else {"k": leaf} if kind == 1 else (leaf,)
    return leaf


VALUE = st.recursive(
    LEAF | st.builds(_chain, LEAF, st.lists(st.sampled_from([0, 1, 0, 1, 2]), min_size=28, max_size=40)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEY, inner, max_size=3) | st.tuples(inner, inner),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(arguments=st.dictionaries(KEY, VALUE, max_size=4))
def test_the_screen_finds_what_its_two_definitions_find(arguments: dict[Any, Any]) -> None:
    assert _screen(arguments) == _expected(arguments)


@settings(max_examples=200, deadline=None)
@given(kinds=st.lists(st.sampled_from([0, 1]), min_size=27, max_size=35), leaf=LEAF, other=VALUE, wrap=st.booleans())
def test_the_screen_counts_levels_as_its_definition_near_the_limit(
    kinds: list[int], leaf: Any, other: Any, wrap: bool
) -> None:
    deep = _chain(leaf, kinds)
    arguments = {"first": other, "deep": (deep,) if wrap else deep, "last": other}  # a tuple's items do not count
    assert _screen(arguments) == _expected(arguments)


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="ab/%_\\ ", max_size=12))
def test_a_bound_pattern_is_escaped_as_autoescape_escapes_it(text: str) -> None:
    literal = func.lower(contacts.c.name).contains(text, autoescape=True).compile()
    bound = contains_bound(func.lower(contacts.c.name), "word").compile()
    assert str(literal) == str(bound).replace(":word", ":lower_1")
    assert literal.params["lower_1"] == like_escaped(text)


def test_searches_with_bound_words_match_them_literally() -> None:
    task = next(t for t in load_split("handwritten.jsonl") if any(a.name == "search_contacts" for a in t.gold))
    with Episode(task) as episode:
        for n, name in enumerate(["Ann_Lee 100%", "AnnXLee 1000", "Ann/Lee"]):
            episode.conn.execute(insert(contacts), _row(9100 + n) | {"name": name})
        found = {
            q: [c["name"] for c in episode.step("search_contacts", {"name": q})["Payload"]["contacts"]]
            for q in ("n_l", "0%", "n/l", "ann lee")
        }
    assert found == {
        "n_l": ["Ann_Lee 100%"],
        "0%": ["Ann_Lee 100%"],
        "n/l": ["Ann/Lee"],
        "ann lee": ["Ann/Lee", "AnnXLee 1000", "Ann_Lee 100%"],
    }  # by name, as SQLite orders bytes
