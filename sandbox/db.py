"""One SQLAlchemy engine per process; each episode gets its own connection to a private in-memory DB.

The engine exists so compiled statements are cached across episodes (SQLAlchemy caches per
engine). An episode runs inside one transaction of its own (every call a SAVEPOINT in it), and
closing the episode rolls that transaction back: the connection holds its world image, untouched,
again. Idle connections are kept by the image they hold (``release``), so the next episode on that
world starts with no copy at all and, more importantly, with SQLite's parsed schema and prepared
statements intact: loading an image into a connection makes SQLite parse the whole schema again
(172 tables, their indexes; about 1 ms) the first time a statement new to that connection is
prepared. A connection reused for another world loads that world's image (``deserialize``); every
image has the same schema at the same root pages (``check_layout`` guards that at world build).

Two runs of the same task and actions leave identical *content* (``state_bytes``). Raw page
images can differ in SQLite's internal encoding of small integers, which depends on whether a
statement was prepared before or after the last re-parse, so determinism is checked on content.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import (
    Connection,
    Delete,
    Engine,
    Executable,
    Insert,
    Select,
    Update,
    create_engine,
    event,
    text,
)
from sqlalchemy.dialects import registry
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite as sqlite_dialect
from sqlalchemy.engine.result import IteratorResult, Result, SimpleResultMetaData
from sqlalchemy.pool import NullPool

from sandbox.changes import Journal, start_journal
from sandbox.schema import SYSTEM, metadata

IDLE_MAX = 256  # idle connections kept between episodes, each holding one world image (~3 MB)
STATEMENT_CACHE = 4096  # compiled statements kept per engine and per connection: all tools' shapes fit


def _configure(eng: Engine) -> Engine:
    """pysqlite's own transaction handling is switched off so that SQLAlchemy's BEGIN/SAVEPOINT are
    real (SQLAlchemy's documented SQLite recipe); foreign keys are enforced on every connection."""

    @event.listens_for(eng, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        dbapi_conn.isolation_level = None
        dbapi_conn.execute("PRAGMA foreign_keys=ON")

    @event.listens_for(eng, "begin")
    def _on_begin(conn: Connection) -> None:
        raw(conn).execute("BEGIN")
        if _trace is not None:
            _trace.append(("BEGIN", (), False))

    @event.listens_for(eng, "before_cursor_execute", retval=True)
    def _stable_plans(
        conn: Connection, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool
    ) -> tuple[str, Any]:
        statement = stable_sql(statement)
        if _trace is not None:
            _trace.append((statement, parameters, executemany))
        return statement, parameters

    @event.listens_for(eng, "commit")
    def _on_commit(conn: Connection) -> None:
        if _trace is not None:
            _trace.append(("COMMIT", (), False))

    @event.listens_for(eng, "rollback")
    def _on_rollback(conn: Connection) -> None:
        if _trace is not None:
            _trace.append(("ROLLBACK", (), False))

    return eng


Traced = tuple[str, Any, bool]  # statement, parameters, executemany
_trace: list[Traced] | None = None


@contextmanager
def trace_statements() -> Iterator[list[Traced]]:
    """Record every statement sent to SQLite with its parameters (``mobilepa bench`` replays them)."""
    global _trace
    captured: list[Traced] = []
    _trace = captured
    try:
        yield captured
    finally:
        _trace = None


# SQLite plans ``x LIKE ?`` around the bound value and re-prepares the statement whenever the value
# changes; after a world is loaded a re-prepare re-parses the whole schema (~1 ms). Turning the bound
# pattern into an expression keeps one plan per statement; the results are the same.
_BOUND_LIKE = re.compile(r"\b((?:NOT )?(?:LIKE|GLOB)) \?")
_STABLE: dict[str, str] = {}


def stable_sql(statement: str) -> str:
    """``statement`` with bound LIKE/GLOB patterns as expressions (memoised: the same few hundred shapes recur)."""
    stable = _STABLE.get(statement)
    if stable is None:
        if len(_STABLE) >= STATEMENT_CACHE:
            _STABLE.clear()
        stable = _STABLE[statement] = _BOUND_LIKE.sub(r"\1 (? || '')", statement)
    return stable


@dataclass(frozen=True)
class _Plan:
    """What running one statement shape needs once SQLAlchemy has compiled it: its SQL, the order of
    its parameters and their bind processors, and (for a SELECT) the result's column names."""

    compiled: Any  # SQLCompiler, with the cache key its bound values are matched against
    sql: str
    columns: SimpleResultMetaData | None  # a SELECT's result columns, shared by its results; None: DML
    expanding: bool  # IN lists and other parameters rendered per execution


@dataclass(frozen=True)
class Written:
    """What a tool gets back from an INSERT, UPDATE or DELETE run from its plan: the rows it touched."""

    rowcount: int


_PLANS: dict[Any, _Plan | None] = {}  # statement cache key -> plan; None: always through SQLAlchemy
_PLANNED = (Select, Insert, Update, Delete)
_WRITES = (Insert, Update, Delete)


class EpisodeConnection(Connection):
    """An episode's connection: statements run their SQLAlchemy-compiled SQL on the DBAPI cursor.

    A tool body builds a Core statement per call; SQLAlchemy's execution around the compiled SQL
    (execution context, result metadata adapted to the new statement object, events) costs several
    times the SQLite work. The first execution of each statement shape goes through SQLAlchemy, which
    compiles it; later ones reuse that compilation: the bound values come from the statement's cache
    key exactly as SQLAlchemy binds them (bind processors included), the SQL gets the same
    ``stable_sql`` rewrite, and rows come back as SQLAlchemy ``Row``s in a ``Result`` (DML: ``Written``
    with the row count). A statement built once at import with ``bindparam``s and run with one dict of
    values costs no construction and no cache-key walk (SQLAlchemy memoises the key on the object);
    its plan is keyed by the statement and the dict's keys, as SQLAlchemy keys its own compiled cache.
    Shapes with Python-side column defaults, RETURNING, result processors or duplicate column names,
    executemany, execution options, and anything run outside an active transaction (SQLAlchemy
    autobegins it) always take SQLAlchemy's path.
    """

    journal: Journal | None = None  # from changes.start_journal on: every write is journaled first

    def execute(self, statement: Any, parameters: Any = None, *, execution_options: Any = None) -> Any:
        if self.journal is not None and type(statement) in _WRITES:
            self.journal.before_write(self, statement, parameters)
        if (
            (parameters is None or type(parameters) is dict)
            and execution_options is None
            and type(statement) in _PLANNED
            and not statement._execution_options
            and self._transaction is not None
            and self._transaction.is_active
            and (self._nested_transaction is None or self._nested_transaction.is_active)
        ):
            key = statement._generate_cache_key()
            if key is not None:
                shape = (key.key, tuple(sorted(parameters))) if parameters else key.key
                plan: _Plan | Literal[False] | None = _PLANS.get(shape, False)
                if plan is False:
                    return self._first_run(statement, parameters, shape)
                if plan is not None:
                    return _run_plan(self, plan, key.bindparams, parameters)
        return super().execute(statement, parameters, execution_options=execution_options)

    def _first_run(self, statement: Any, parameters: dict[str, Any] | None, shape: Any) -> Any:
        result = super().execute(statement, parameters)
        # An SQLCompiler: the attributes read below are its own, not the Compiled base's.
        compiled: Any = result.context.compiled
        eligible = (
            compiled is not None
            and compiled.positional
            and compiled.cache_key is not None
            and not compiled.schema_translate_map
        )
        keys = None
        if eligible and type(statement) is Select:
            keys = tuple(result.keys())
            eligible = len(set(keys)) == len(keys) and not any(result._metadata._processors or ())
        elif eligible:
            eligible = not (
                compiled.insert_prefetch
                or compiled.update_prefetch
                or compiled.returning
                or compiled.effective_returning
                or compiled.for_executemany
            )
        if len(_PLANS) >= STATEMENT_CACHE:
            _PLANS.clear()
        _PLANS[shape] = (
            _Plan(
                compiled,
                stable_sql(compiled.string),
                SimpleResultMetaData(keys) if keys else None,
                bool(compiled.literal_execute_params or compiled.post_compile_params),
            )
            if eligible
            else None
        )
        return result


def _run_plan(conn: Connection, plan: _Plan, extracted: Any, values: dict[str, Any] | None) -> Result[Any] | Written:
    compiled = plan.compiled
    params = compiled.construct_params(values, extracted_parameters=extracted, escape_names=False)
    processors = compiled._bind_processors
    sql, order = plan.sql, compiled.positiontup
    if plan.expanding:
        expanded = compiled._process_parameters_for_postcompile(params)
        sql, order, params = stable_sql(expanded.statement), expanded.positiontup, expanded.parameters
        processors = {**processors, **expanded.processors}
    bound = [processors[k](params[k]) if k in processors else params[k] for k in order]
    if _trace is not None:
        _trace.append((sql, bound, False))
    cursor = raw(conn).execute(sql, bound)
    if plan.columns is None:
        return Written(cursor.rowcount)
    return IteratorResult(plan.columns, iter(cursor.fetchall()))


class EpisodeDialect(sqlite_dialect):
    """pysqlite, with savepoints sent as plain SQL under one fixed name: SQLAlchemy's default builds and
    compiles a clause object for each SAVEPOINT, RELEASE and ROLLBACK TO (about 100 µs), and names them
    ``sa_savepoint_<n>`` with n counting up forever, so every one is a new statement for SQLite to
    prepare and crowds useful ones out of the statement cache. Every call of an episode is a savepoint.
    SQLite resolves a name to the innermost savepoint holding it, and savepoints here nest strictly
    (each is a ``with`` block or a try/finally around one call), so one name serves at every depth; a
    savepoint rolled back is also released, so none outlives its call."""

    supports_statement_cache = True

    def do_savepoint(self, connection: Connection, name: str) -> None:
        _open_savepoint(connection)

    def do_release_savepoint(self, connection: Connection, name: str) -> None:
        _release_savepoint(connection)

    def do_rollback_to_savepoint(self, connection: Connection, name: str) -> None:
        _roll_back_savepoint(connection)


def _open_savepoint(conn: Connection) -> None:
    _plain(conn, "SAVEPOINT call")


def _release_savepoint(conn: Connection) -> None:
    _plain(conn, "RELEASE SAVEPOINT call")


def _roll_back_savepoint(conn: Connection) -> None:
    """Rolled back and released: none outlives its call."""
    _plain(conn, "ROLLBACK TO SAVEPOINT call")
    _release_savepoint(conn)


def _plain(conn: Connection, sql: str) -> None:
    if _trace is not None:
        _trace.append((sql, (), False))
    raw(conn).execute(sql)


registry.register("sqlite.mobilepa_episode", __name__, "EpisodeDialect")


@functools.cache
def engine() -> Engine:
    """The process-wide engine for episodes. Connections are pooled by ``open_database``/``release``
    (by the world they hold), not by SQLAlchemy; one serves one episode at a time, so it may serve
    episodes on different threads (a threaded Dask worker)."""
    eng = create_engine(
        "sqlite+mobilepa_episode://",
        poolclass=NullPool,
        query_cache_size=STATEMENT_CACHE,
        connect_args={"cached_statements": STATEMENT_CACHE, "check_same_thread": False},
    )
    eng._connection_cls = EpisodeConnection
    return _configure(eng)


class Prepared:
    """A Core statement compiled once to SQLite SQL and run on the connection's DBAPI cursor.

    For the executor's own bookkeeping, which runs on every call (log row, gates, id allocation):
    building, cache-keying and executing a statement through SQLAlchemy costs tens of microseconds,
    the SQLite work a few. Runs inside whatever transaction the connection has open.
    """

    def __init__(self, statement: Executable) -> None:
        # the statement's table is a Table (the only kind the toolkit writes), which has .info
        if isinstance(statement, _WRITES) and statement.table.info.get("kind") != SYSTEM:  # type: ignore[union-attr]
            raise ValueError(
                f"Prepared bypasses the change journal: use it for system tables only, not {statement.table}"
            )
        compiled = statement.compile(dialect=sqlite_dialect())  # type: ignore[attr-defined]  # a ClauseElement
        self.sql = str(compiled)
        self.order = tuple(compiled.positiontup or ())

    def run(self, conn: Connection, **params: Any) -> sqlite3.Cursor:
        return self.run_values(conn, [params[k] for k in self.order])

    def run_values(self, conn: Connection, values: list[Any]) -> sqlite3.Cursor:
        """Run with the parameters already in ``order`` (the log row, written on every call)."""
        if _trace is not None:
            _trace.append((self.sql, values, False))
        return raw(conn).execute(self.sql, values)


def raw(conn: Connection) -> sqlite3.Connection:
    """The DBAPI connection under a SQLAlchemy connection (for serialise/deserialise)."""
    return conn.connection.dbapi_connection  # type: ignore[return-value]


_idle: OrderedDict[Connection, bytes] = OrderedDict()  # idle connection -> the image it holds, oldest first
_idle_lock = threading.Lock()


def open_database(image: bytes, *, journal: bool = True) -> Connection:
    """A private in-memory database holding ``image`` (compared by identity: ``world_image`` returns
    one object per world); D_0 is that state unless ``journal`` is False (an episode applies its
    task's patches first, then calls ``changes.start_journal``). Give it back with ``release``."""
    with _idle_lock:
        conn = next((c for c in reversed(_idle) if _idle[c] is image), None)
        if conn is None and len(_idle) >= IDLE_MAX:  # only a full pool lends a connection to another world
            conn = next(iter(_idle))
        held = _idle.pop(conn) if conn is not None else None
    if conn is None:
        conn = engine().connect()
    if held is not image:
        raw(conn).deserialize(image)
    conn.info["image"] = image
    if journal:
        start_journal(conn)
    return conn


def release(conn: Connection) -> None:
    """Roll back whatever the connection's episode did and keep it for the next episode on its world
    (closed instead if it cannot be made pristine, or beyond ``IDLE_MAX`` idle connections)."""
    image = conn.info.pop("image", None)
    try:
        conn.rollback()
        pristine = image is not None and not raw(conn).in_transaction
    except Exception:  # a connection that cannot roll back is not reused
        pristine = False
    conn.journal = None  # type: ignore[attr-defined]
    if not pristine:
        conn.close()
        return
    with _idle_lock:
        _idle[conn] = image
        oldest = next(iter(_idle)) if len(_idle) > IDLE_MAX else None
        if oldest is not None:
            del _idle[oldest]
    if oldest is not None:
        oldest.close()


def transaction(conn: Connection) -> Any:
    """A transaction on an episode's connection: a SAVEPOINT inside the episode's own transaction when
    one is open (an ``Episode``), else a plain one (a bare connection in tests and tools)."""
    return Savepoint(conn) if conn.in_transaction() else conn.begin()


class Savepoint:
    """A SAVEPOINT inside the connection's open transaction, sent as plain SQL (the statements
    ``EpisodeDialect`` sends for ``begin_nested``): every call of an episode opens one, and SQLAlchemy's
    nested-transaction object and its events cost several times the two statements. ``commit`` releases
    it, ``rollback`` rolls back to it and releases it; as a context manager it commits, or rolls back
    when the block raises. SQLAlchemy's own state is untouched: the episode's transaction stays the
    connection's only one, and savepoints nest strictly (see ``EpisodeDialect``)."""

    __slots__ = ("_conn", "_open")

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        _open_savepoint(conn)
        self._open = True

    def commit(self) -> None:
        if self._open:
            self._open = False
            _release_savepoint(self._conn)

    def rollback(self) -> None:
        if self._open:
            self._open = False
            _roll_back_savepoint(self._conn)

    def __enter__(self) -> Savepoint:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.rollback()


@functools.cache
def _builder() -> Engine:
    return _configure(create_engine("sqlite://", poolclass=NullPool))


def snapshot(conn: Connection) -> bytes:
    """The database's page image (to start another connection from the same state)."""
    return raw(conn).serialize()


def state_bytes(conn: Connection) -> bytes:
    """The database's content in a canonical form: every table's rows in key order, as JSON lines.

    Determinism checks compare these: same task and same actions give the same bytes.
    """
    out = []
    for t in metadata.sorted_tables:
        order = [f'"{c.name}"' for c in t.primary_key.columns] or ["rowid"]
        rows = raw(conn).execute(f'SELECT * FROM "{t.name}" ORDER BY {", ".join(order)}').fetchall()
        out.append(json.dumps([t.name, rows], ensure_ascii=False, separators=(",", ":"), default=repr))
    return "\n".join(out).encode()


def check_layout(conn: Connection) -> None:
    """Fail unless every table sits at the root page a fresh schema gives it (see module docstring)."""
    expected = _reference_layout()
    actual = dict(raw(conn).execute("SELECT name, rootpage FROM sqlite_master WHERE rootpage > 0").fetchall())
    if actual != expected:
        moved = sorted(k for k in set(actual) | set(expected) if actual.get(k) != expected.get(k))
        raise RuntimeError(f"world image layout differs from the schema's at {moved[:5]}: rebuild the world")


@functools.cache
def _reference_layout() -> dict[str, int]:
    conn = empty_database()
    try:
        finish_image(conn)
        return dict(raw(conn).execute("SELECT name, rootpage FROM sqlite_master WHERE rootpage > 0").fetchall())
    finally:
        conn.close()


def empty_database() -> Connection:
    """A fresh database with the schema and the change journal, for building a world (not pooled)."""
    conn = _builder().connect()
    with conn.begin():
        metadata.create_all(conn)
    return conn


def finish_image(conn: Connection) -> bytes:
    """Compact a built world and return its image (the same steps for every world)."""
    raw(conn).execute("VACUUM")
    return snapshot(conn)


def integrity_problems(conn: Connection) -> list[str]:
    """Results of ``PRAGMA integrity_check`` and ``foreign_key_check``; empty when healthy."""
    problems = [r[0] for r in conn.execute(text("PRAGMA integrity_check")) if r[0] != "ok"]
    problems += [f"foreign key: {tuple(r)}" for r in conn.execute(text("PRAGMA foreign_key_check"))]
    return problems
