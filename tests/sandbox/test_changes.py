"""The change journal: D_T - D_0 from before-images taken at each table's first write."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Connection, delete, insert, select, update

import sandbox.domains  # noqa: F401
from sandbox.changes import read_diff, start_journal
from sandbox.db import Prepared, open_database, raw
from sandbox.schema import metadata
from sandbox.world import world_image
from tests.sandbox.conftest import diff_of

contacts = metadata.tables["contacts"]
ROW = {"contact_id": "contact_900", "name": "Zed Park", "phone_number": "+1 555 0100", "favorite": 0}


def test_insert_update_delete_are_reported_with_their_rows(conn: Connection) -> None:
    with conn.begin():
        first = conn.execute(select(contacts).order_by(contacts.c.contact_id)).first()
        last = conn.execute(select(contacts).order_by(contacts.c.contact_id.desc())).first()
        assert first is not None and last is not None and last.contact_id != first.contact_id
        conn.execute(insert(contacts), ROW)
        conn.execute(
            update(contacts).where(contacts.c.contact_id == first.contact_id).values(favorite=1 - first.favorite)
        )
        conn.execute(delete(contacts).where(contacts.c.contact_id == last.contact_id))
    d = diff_of(conn)["contacts"]
    assert [r["contact_id"] for r in d.inserted] == ["contact_900"] and d.inserted[0]["name"] == "Zed Park"
    assert [(b["contact_id"], b["favorite"], a["favorite"]) for b, a in d.updated] == [
        (first.contact_id, first.favorite, 1 - first.favorite)
    ]
    assert d.deleted == [dict(last._mapping)]


def test_a_change_undone_within_the_episode_is_no_change(conn: Connection) -> None:
    with conn.begin():
        conn.execute(insert(contacts), ROW)
        conn.execute(update(contacts).where(contacts.c.contact_id == "contact_900").values(name="Other"))
        conn.execute(delete(contacts).where(contacts.c.contact_id == "contact_900"))
    assert diff_of(conn) == {}


def test_start_journal_makes_the_current_state_d0(conn: Connection) -> None:
    with conn.begin():
        conn.execute(insert(contacts), ROW)
    start_journal(conn)
    assert diff_of(conn) == {}


def test_world_images_carry_no_triggers() -> None:
    """Triggers made every schema re-parse after loading a world (new statement, pooled connection) ~30x
    slower; the journal must stay in Python."""
    conn = open_database(world_image("wang_lei"))
    try:
        assert raw(conn).execute("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").fetchone() == (0,)
    finally:
        conn.close()


def test_prepared_statements_refuse_journaled_tables() -> None:
    with pytest.raises(ValueError, match="change journal"):
        Prepared(insert(contacts))


def test_reading_a_diff_needs_a_journal() -> None:
    conn = open_database(world_image("wang_lei"), journal=False)
    try:
        with pytest.raises(RuntimeError, match="start_journal"), conn.begin():
            read_diff(conn)
    finally:
        conn.close()


# One write on a small key space. Inserts and keyed updates/deletes are journaled row by row; an update
# of every row or of a primary key makes the journal copy the table, after which the rows it already
# holds must still read as they were at D_0.
OPS = st.lists(
    st.tuples(
        st.sampled_from(["insert", "insert_values", "update", "delete", "rekey", "update_all"]),
        st.integers(0, 5),
        st.integers(0, 5),
        st.sampled_from(["a", "b", None]),
    ),
    max_size=12,
)


def _rows(conn: Connection) -> dict[str, dict[str, Any]]:
    return {r.contact_id: dict(r._mapping) for r in conn.execute(select(contacts))}


def _write(conn: Connection, op: str, key: str, other: str, note: str | None) -> None:
    by_key = contacts.c.contact_id == key
    if op == "insert":
        conn.execute(insert(contacts).prefix_with("OR REPLACE"), {**ROW, "contact_id": key, "notes": note})
    elif op == "insert_values":
        conn.execute(insert(contacts).prefix_with("OR IGNORE").values(**{**ROW, "contact_id": key, "notes": note}))
    elif op == "update":
        conn.execute(update(contacts).where(by_key).values(notes=note))
    elif op == "delete":
        conn.execute(delete(contacts).where(by_key))
    elif op == "rekey":
        conn.execute(update(contacts).prefix_with("OR IGNORE").where(by_key).values(contact_id=other))
    else:
        conn.execute(update(contacts).values(notes=note))


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=OPS)
def test_the_diff_equals_comparing_whole_tables(conn: Connection, ops: list[tuple[str, int, int, str | None]]) -> None:
    start_journal(conn)
    with conn.begin():
        before = _rows(conn)
        savepoint = conn.begin_nested()
        for op, n, m, note in ops:
            _write(conn, op, f"contact_{n:03d}", f"contact_{m:03d}", note)  # 000-005: some exist already
        after = _rows(conn)
        d = read_diff(conn).get("contacts")
        savepoint.rollback()
    inserted = [after[k] for k in sorted(after.keys() - before.keys())]
    deleted = [before[k] for k in sorted(before.keys() - after.keys())]
    updated = [(before[k], after[k]) for k in sorted(before.keys() & after.keys()) if before[k] != after[k]]
    expected = (inserted, updated, deleted)
    assert (d.inserted, d.updated, d.deleted) == expected if d else expected == ([], [], [])
