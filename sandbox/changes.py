"""The change journal behind D_T - D_0.

Just before each write to a tracked (user or world) table, the journal keeps the rows the write is
about to touch as they were at D_0 (the first touch wins): an UPDATE or DELETE reads the rows its
WHERE clause matches, an INSERT looks up its primary keys (absent, or the row a REPLACE would
overwrite). The diff then reads those rows again. A write whose rows cannot be named beforehand (no
WHERE clause, a changed primary key, INSERT ... SELECT, a key SQLite will choose) copies the whole
table instead; tables are small (the largest holds about 1,400 rows). The cost is O(rows written).

The schema carries no journal triggers on purpose: SQLite parses the whole schema again whenever a
pooled connection prepares a new statement after loading a world image, and 489 triggers made that
parse about 30 times slower (10-40 ms per episode once many connections are warming up). Every write
goes through ``EpisodeConnection.execute``, which calls ``Journal.before_write`` first.
"""

from __future__ import annotations

import functools
import json
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import BindParameter, Connection, Insert, Select, Table, Update, select

from sandbox.schema import SYSTEM, metadata

Key = tuple[Any, ...]
Row = tuple[Any, ...]


class Journal:
    """One episode's before-images, per table: touched rows by primary key (None: absent at D_0), or,
    after a write whose rows could not be named, the whole table as it was at D_0."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[Key, Row | None]] = {}
        self.tables: dict[str, dict[Key, Row]] = {}

    def before_write(self, conn: Connection, statement: Any, parameters: Any) -> None:
        table = statement.table
        if not isinstance(table, Table):
            raise TypeError(f"the change journal tracks writes to tables, not to {type(table).__name__}")
        name = table.name
        if table.info["kind"] == SYSTEM or name in self.tables:
            return
        dbapi = conn.connection.dbapi_connection
        assert dbapi is not None
        keys = _inserted_keys(statement, parameters) if isinstance(statement, Insert) else None
        if keys is not None:
            seen = self.rows.setdefault(name, {})
            for key in keys:
                if key not in seen:
                    seen[key] = dbapi.execute(_row_by_key(name), key).fetchone()
            return
        if isinstance(statement, Insert) or not _rows_nameable(statement, parameters):
            whole = _by_key(name, dbapi.execute(_all_rows(name)).fetchall())
            for key, row in self.rows.pop(name, {}).items():  # rows changed since D_0 get their D_0 image back
                if row is None:
                    whole.pop(key, None)
                else:
                    whole[key] = row
            self.tables[name] = whole
            return
        seen = self.rows.setdefault(name, {})
        for found in conn.execute(_affected(statement), parameters):
            key = tuple(found)
            if key not in seen:  # the row itself read raw, as the diff reads it
                seen[key] = dbapi.execute(_row_by_key(name), key).fetchone()


_AFFECTED: weakref.WeakKeyDictionary[Any, Select[Any]] = weakref.WeakKeyDictionary()


def _affected(statement: Any) -> Select[Any]:
    """The SELECT of the keys of the rows an UPDATE or DELETE's WHERE clause matches, built once per
    statement object (the tools' fixed statements are module constants; a statement built per call is
    dropped with it)."""
    found = _AFFECTED.get(statement)
    if found is None:
        found = _AFFECTED[statement] = select(*statement.table.primary_key.columns).where(statement.whereclause)
    return found


def _inserted_keys(statement: Insert, parameters: Any) -> list[Key] | None:
    """The primary keys an INSERT writes, when its values name them all (else None)."""
    if statement.select is not None or statement._multi_values:
        return None
    names = [c.key for c in statement.table.primary_key.columns]  # type: ignore[attr-defined]  # a Table's PrimaryKeyConstraint
    if statement._values:
        given = {k if isinstance(k, str) else k.key: v for k, v in statement._values.items()}
        if not all(isinstance(given.get(n), BindParameter) for n in names):
            return None
        batches = [{n: given[n].value for n in names}]
    else:
        batches = parameters if isinstance(parameters, list) else [parameters] if isinstance(parameters, dict) else []
    keys = []
    for values in batches:
        key = tuple(values.get(n) for n in names)
        if any(v is None for v in key):
            return None
        keys.append(key)
    return keys or None


def _rows_nameable(statement: Any, parameters: Any) -> bool:
    """Whether an UPDATE or DELETE's rows can be read beforehand by its own WHERE clause."""
    if statement.whereclause is None or isinstance(parameters, list):
        return False
    if isinstance(statement, Update):
        changed = {k if isinstance(k, str) else k.key for k in statement._values or ()}
        changed |= set(parameters or ())
        if changed & {c.key for c in statement.table.primary_key.columns}:  # type: ignore[attr-defined]  # a Table's PrimaryKeyConstraint
            return False
    return True


def _by_key(name: str, rows: list[Row]) -> dict[Key, Row]:
    positions = _key_positions(name)
    return {tuple(r[i] for i in positions): r for r in rows}


@functools.cache
def _all_rows(name: str) -> str:
    return f'SELECT * FROM "{name}"'


@functools.cache
def _row_by_key(name: str) -> str:
    """One row of ``name`` by its primary key (positional parameters, in key order)."""
    where = " AND ".join(f'"{c.name}" = ?' for c in metadata.tables[name].primary_key.columns)
    return f'SELECT * FROM "{name}" WHERE {where}'


@functools.cache
def _key_positions(name: str) -> tuple[int, ...]:
    """Where the primary key's columns sit in ``SELECT *`` rows (the table's column order)."""
    t = metadata.tables[name]
    columns = [c.name for c in t.columns]
    keys = tuple(columns.index(c.name) for c in t.primary_key.columns)
    if not keys:
        raise ValueError(f"table {name} has no primary key: the change journal cannot match its rows")
    return keys


def _key_order(key: Key) -> str:
    """Rows sort by their key as JSON text (ids like ``c_012`` sort as the journal always sorted them)."""
    return json.dumps(list(key), ensure_ascii=False, separators=(",", ":"))


@dataclass
class TableDiff:
    """Rows of one table that differ between D_0 and D_T (rows as column -> value dicts)."""

    inserted: list[dict[str, Any]] = field(default_factory=list)
    updated: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    deleted: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "inserted": self.inserted,
            "updated": [{"before": b, "after": a} for b, a in self.updated],
            "deleted": self.deleted,
        }


StateDiff = dict[str, TableDiff]


def start_journal(conn: Connection) -> None:
    """Make the current state D_0 (an episode calls this after applying the task's patches)."""
    conn.journal = Journal()  # type: ignore[attr-defined]  # an EpisodeConnection


def read_diff(conn: Connection) -> StateDiff:
    """D_T - D_0 per table, in a deterministic order (table name, then primary key)."""
    journal: Journal | None = getattr(conn, "journal", None)
    if journal is None:
        raise RuntimeError("no change journal on this connection: call start_journal after opening it")
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None
    diff: StateDiff = {}
    for name in sorted(journal.rows.keys() | journal.tables.keys()):
        columns = [c.name for c in metadata.tables[name].columns]  # the order of SELECT *
        if name in journal.tables:
            before: Mapping[Key, Row | None] = journal.tables[name]
            after = _by_key(name, dbapi.execute(_all_rows(name)).fetchall())
        else:
            before = journal.rows[name]
            lookup = _row_by_key(name)
            after = {key: row for key in before if (row := dbapi.execute(lookup, key).fetchone()) is not None}
        entry = TableDiff()
        for key in sorted(before.keys() | after.keys(), key=_key_order):
            old, new = before.get(key), after.get(key)
            if old == new:
                continue
            if old is None:
                entry.inserted.append(dict(zip(columns, new, strict=True)))  # type: ignore[arg-type]
            elif new is None:
                entry.deleted.append(dict(zip(columns, old, strict=True)))
            else:
                entry.updated.append((dict(zip(columns, old, strict=True)), dict(zip(columns, new, strict=True))))
        if entry.inserted or entry.updated or entry.deleted:
            diff[name] = entry
    return diff
