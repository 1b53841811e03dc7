"""The change journal behind D_T - D_0.

The first time an episode writes a tracked (user or world) table, the journal keeps that table's rows
as they were; the diff compares them with the table's rows at the end. Only written tables are copied
and they are small (the largest world table holds about 1,400 rows), so a copy costs well under a
millisecond, and a table whose rows come back identical costs one list comparison.

The schema carries no journal triggers on purpose: SQLite parses the whole schema again whenever a
pooled connection prepares a new statement after loading a world image, and 489 triggers made that
parse about 30 times slower (10-40 ms per episode once many connections are warming up). Every write
goes through ``EpisodeConnection.execute``, which calls ``Journal.touch`` first.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Table

from sandbox.schema import SYSTEM, metadata


class Journal:
    """One episode's before-images: each tracked table's rows as they were before its first write."""

    def __init__(self) -> None:
        self.before: dict[str, list[tuple[Any, ...]]] = {}

    def touch(self, dbapi: sqlite3.Connection, table: Any) -> None:
        """Called before every INSERT, UPDATE or DELETE (the first one per table copies its rows)."""
        if not isinstance(table, Table):
            raise TypeError(f"the change journal tracks writes to tables, not to {type(table).__name__}")
        if table.name not in self.before and table.info["kind"] != SYSTEM:
            self.before[table.name] = dbapi.execute(_all_rows(table.name)).fetchall()


@functools.cache
def _all_rows(name: str) -> str:
    return f'SELECT * FROM "{name}"'


@functools.cache
def _key_positions(name: str) -> tuple[int, ...]:
    """Where the primary key's columns sit in ``SELECT *`` rows (the table's column order)."""
    t = metadata.tables[name]
    columns = [c.name for c in t.columns]
    keys = tuple(columns.index(c.name) for c in t.primary_key.columns)
    if not keys:
        raise ValueError(f"table {name} has no primary key: the change journal cannot match its rows")
    return keys


def _key_order(key: tuple[Any, ...]) -> str:
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
    conn.journal = Journal()  # type: ignore[attr-defined]  (an EpisodeConnection)


def read_diff(conn: Connection) -> StateDiff:
    """D_T - D_0 per table, in a deterministic order (table name, then primary key)."""
    journal: Journal | None = getattr(conn, "journal", None)
    if journal is None:
        raise RuntimeError("no change journal on this connection: call start_journal after opening it")
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None
    diff: StateDiff = {}
    for name in sorted(journal.before):
        before_rows = journal.before[name]
        cursor = dbapi.execute(_all_rows(name))
        after_rows = cursor.fetchall()
        if after_rows == before_rows:
            continue
        columns = [d[0] for d in cursor.description]
        positions = _key_positions(name)
        before = {tuple(r[i] for i in positions): r for r in before_rows}
        after = {tuple(r[i] for i in positions): r for r in after_rows}
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
