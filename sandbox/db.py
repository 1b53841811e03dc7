"""One SQLAlchemy engine per process; each episode gets its own connection to a private in-memory DB.

The engine exists so compiled statements are cached across episodes (SQLAlchemy caches per
engine). Its pool keeps SQLite connections alive between episodes: an episode deserialises its
world image into a pooled connection, which replaces the whole database (so no episode sees
another's data, and the bytes depend only on the image and the calls). Every image has the same
schema, so a reused connection keeps its parsed schema (with the change-journal triggers): a
fresh connection would re-parse hundreds of statements, about a millisecond, on its first query.
"""

from __future__ import annotations

import functools
import sqlite3
from typing import Any

from sqlalchemy import Connection, Engine, Executable, create_engine, event, text
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite as sqlite_dialect
from sqlalchemy.pool import NullPool, QueuePool

from sandbox.schema import metadata

POOL_SIZE = 256  # connections kept between episodes (one per concurrent episode in a worker)


def _configure(eng: Engine) -> Engine:
    """pysqlite's own transaction handling is switched off so that SQLAlchemy's BEGIN/SAVEPOINT are
    real (SQLAlchemy's documented SQLite recipe); foreign keys are enforced on every connection."""

    @event.listens_for(eng, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        dbapi_conn.isolation_level = None
        dbapi_conn.execute("PRAGMA foreign_keys=ON")

    @event.listens_for(eng, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN")

    return eng


@functools.cache
def engine() -> Engine:
    """The process-wide engine for episodes."""
    return _configure(create_engine("sqlite://", poolclass=QueuePool, pool_size=POOL_SIZE, max_overflow=-1))


class Prepared:
    """A Core statement compiled once to SQLite SQL and run on the connection's DBAPI cursor.

    For the executor's own bookkeeping, which runs on every call (log row, gates, id allocation):
    building, cache-keying and executing a statement through SQLAlchemy costs tens of microseconds,
    the SQLite work a few. Runs inside whatever transaction the connection has open.
    """

    def __init__(self, statement: Executable) -> None:
        compiled = statement.compile(dialect=sqlite_dialect())
        self.sql = str(compiled)
        self.order = tuple(compiled.positiontup or ())

    def run(self, conn: Connection, **params: Any) -> sqlite3.Cursor:
        return raw(conn).execute(self.sql, [params[k] for k in self.order])


def raw(conn: Connection) -> sqlite3.Connection:
    """The DBAPI connection under a SQLAlchemy connection (for serialise/deserialise)."""
    return conn.connection.dbapi_connection  # type: ignore[return-value]


def open_database(image: bytes) -> Connection:
    """A private in-memory database holding a copy of ``image`` (its change journal is empty)."""
    conn = engine().connect()
    raw(conn).deserialize(image)
    return conn


@functools.cache
def _builder() -> Engine:
    return _configure(create_engine("sqlite://", poolclass=NullPool))


def empty_database() -> Connection:
    """A fresh database with the schema created, for building a world (not pooled)."""
    conn = _builder().connect()
    metadata.create_all(conn)
    conn.commit()
    return conn


def snapshot(conn: Connection) -> bytes:
    """The database's exact bytes (determinism checks compare these)."""
    return raw(conn).serialize()


def integrity_problems(conn: Connection) -> list[str]:
    """Results of ``PRAGMA integrity_check`` and ``foreign_key_check``; empty when healthy."""
    problems = [r[0] for r in conn.execute(text("PRAGMA integrity_check")) if r[0] != "ok"]
    problems += [f"foreign key: {tuple(r)}" for r in conn.execute(text("PRAGMA foreign_key_check"))]
    return problems
