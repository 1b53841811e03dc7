"""Episode connections: kept by the world they hold, handed back pristine, bounded in number."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import func, insert, select

import sandbox.domains  # noqa: F401
from sandbox import db
from sandbox.schema import metadata
from sandbox.world import world_image

contacts = metadata.tables["contacts"]
ROW = {"contact_id": "contact_900", "name": "Zed Park", "phone_number": "+1 555 0100", "favorite": 0}


@pytest.fixture(autouse=True)
def no_idle_connections() -> Iterator[None]:
    """Each test starts and ends with no idle connections (other tests' episodes leave some)."""

    def drain() -> None:
        with db._idle_lock:
            idle = list(db._idle)
            db._idle.clear()
        for conn in idle:
            conn.close()

    drain()
    yield
    drain()


def fresh_state(persona: str) -> bytes:
    conn = db.engine().connect()  # never parked: the reference
    try:
        db.raw(conn).deserialize(world_image(persona))
        return db.state_bytes(conn)
    finally:
        conn.close()


def count(conn: db.Connection) -> int:
    return int(conn.execute(select(func.count()).select_from(contacts)).scalar() or 0)


def test_a_released_connection_comes_back_pristine_for_its_world() -> None:
    image = world_image("wang_lei")
    conn = db.open_database(image)
    conn.begin()  # as an episode does: everything below is rolled back on release
    before = count(conn)
    with db.transaction(conn):
        conn.execute(insert(contacts), ROW)
    assert count(conn) == before + 1
    db.release(conn)
    again = db.open_database(image)
    try:
        assert again is conn, "the idle connection holding this world is reused"
        assert db.state_bytes(again) == fresh_state("wang_lei")
    finally:
        db.release(again)


def test_another_world_gets_its_own_connection_until_the_pool_is_full(monkeypatch: pytest.MonkeyPatch) -> None:
    conn = db.open_database(world_image("wang_lei"))
    db.release(conn)
    other = db.open_database(world_image("maya_patel"))
    assert other is not conn, "a warm connection is kept for its world while there is room"
    db.release(other)
    monkeypatch.setattr(db, "IDLE_MAX", 2)
    third = db.open_database(world_image("oliver_hughes"))
    try:
        assert third is conn, "a full pool lends its oldest idle connection"
        assert db.state_bytes(third) == fresh_state("oliver_hughes")
    finally:
        db.release(third)


def test_idle_connections_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db, "IDLE_MAX", 2)
    image = world_image("wang_lei")
    conns = [db.open_database(image) for _ in range(4)]
    assert len({id(c) for c in conns}) == 4
    for conn in conns:
        db.release(conn)
    assert list(db._idle) == conns[2:], "the oldest idle connections are closed first"
    assert conns[0].closed and conns[1].closed


def test_a_connection_that_cannot_roll_back_is_closed_not_kept() -> None:
    conn = db.open_database(world_image("wang_lei"))
    conn.begin()
    db.raw(conn).close()  # the SQLite connection is gone: the rollback fails
    db.release(conn)
    assert conn not in db._idle
