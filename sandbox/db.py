"""One SQLAlchemy engine per process; each episode gets its own connection to a private in-memory DB.

The engine exists so compiled statements are cached across episodes (SQLAlchemy caches per
engine). ``NullPool`` makes every ``connect()`` a fresh ``:memory:`` database, which the caller
fills by deserialising a prepared world.
"""

from __future__ import annotations

import functools
import sqlite3
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.pool import NullPool

from sandbox.schema import metadata


@functools.cache
def engine() -> Engine:
    """The process-wide engine. pysqlite's own transaction handling is switched off so that
    SQLAlchemy's BEGIN/SAVEPOINT are real (SQLAlchemy's documented SQLite recipe)."""
    eng = create_engine("sqlite://", poolclass=NullPool)

    @event.listens_for(eng, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        dbapi_conn.isolation_level = None
        dbapi_conn.execute("PRAGMA foreign_keys=ON")

    @event.listens_for(eng, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN")

    return eng


def raw(conn: Connection) -> sqlite3.Connection:
    """The DBAPI connection under a SQLAlchemy connection (for serialise/deserialise)."""
    return conn.connection.dbapi_connection  # type: ignore[return-value]


def open_database(image: bytes | None = None) -> Connection:
    """A new private in-memory database: a copy of ``image``, or empty with the schema created."""
    conn = engine().connect()
    if image is None:
        metadata.create_all(conn)
        conn.commit()
    else:
        raw(conn).deserialize(image)
    return conn


def snapshot(conn: Connection) -> bytes:
    """The database's exact bytes (determinism checks compare these)."""
    return raw(conn).serialize()


def integrity_problems(conn: Connection) -> list[str]:
    """Results of ``PRAGMA integrity_check`` and ``foreign_key_check``; empty when healthy."""
    problems = [r[0] for r in conn.execute(text("PRAGMA integrity_check")) if r[0] != "ok"]
    problems += [f"foreign key: {tuple(r)}" for r in conn.execute(text("PRAGMA foreign_key_check"))]
    return problems
