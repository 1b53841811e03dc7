"""The change journal behind D_T - D_0.

Triggers generated from the schema record the before-image of every user or world row the first
time it is touched, so the diff costs O(rows changed), not O(database size). Trigger DDL is built
into each world image once; episodes only read the journal.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Table, select

from sandbox.schema import SYSTEM, changes, metadata


def _tracked() -> list[Table]:
    return [t for t in metadata.sorted_tables if t.info["kind"] != SYSTEM]


def _pk_json(t: Table, alias: str) -> str:
    return "json_array(" + ", ".join(f'{alias}."{c.name}"' for c in t.primary_key.columns) + ")"


def _row_json(t: Table, alias: str) -> str:
    return "json_object(" + ", ".join(f"'{c.name}', {alias}.\"{c.name}\"" for c in t.columns) + ")"


def trigger_ddl() -> list[str]:
    """CREATE TRIGGER statements journaling inserts, updates and deletes of every tracked table."""
    ddl = []
    for t in _tracked():
        name = t.name

        def record(alias: str, before: str, t: Table = t, name: str = name) -> str:
            # NOT EXISTS rather than OR IGNORE: an upsert's conflict clause would override OR IGNORE.
            pk = _pk_json(t, alias)
            return (f"INSERT INTO _changes (tbl, pk, before_json) SELECT '{name}', {pk}, {before} "
                    f"WHERE NOT EXISTS (SELECT 1 FROM _changes WHERE tbl = '{name}' AND pk = {pk});")

        ddl.append(f'CREATE TRIGGER "_journal_ins_{name}" AFTER INSERT ON "{name}" BEGIN {record("NEW", "NULL")} END')
        ddl.append(f'CREATE TRIGGER "_journal_upd_{name}" AFTER UPDATE ON "{name}" BEGIN '
                   f'{record("OLD", _row_json(t, "OLD"))} END')
        ddl.append(f'CREATE TRIGGER "_journal_del_{name}" AFTER DELETE ON "{name}" BEGIN '
                   f'{record("OLD", _row_json(t, "OLD"))} END')
    return ddl


def install_journal(conn: Connection) -> None:
    for stmt in trigger_ddl():
        conn.exec_driver_sql(stmt)


_CLEAR = changes.delete()
_JOURNAL = select(changes.c.tbl, changes.c.pk, changes.c.before_json).order_by(changes.c.tbl, changes.c.pk)


def clear_journal(conn: Connection) -> None:
    """Make the current state D_0 (called after the task's patches are applied)."""
    conn.execute(_CLEAR)


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


@functools.cache
def _row_by_key(tbl: str) -> str:
    """The SELECT of one row of ``tbl`` by its primary key (positional parameters, in key order)."""
    where = " AND ".join(f'"{c.name}" = ?' for c in metadata.tables[tbl].primary_key.columns)
    return f'SELECT * FROM "{tbl}" WHERE {where}'


def read_diff(conn: Connection) -> StateDiff:
    """D_T - D_0 per table, in a deterministic order (table name, then primary key)."""
    diff: StateDiff = {}
    journal = conn.execute(_JOURNAL).all()
    dbapi = conn.connection.dbapi_connection
    for tbl, pk_json, before_json in journal:
        cursor = dbapi.execute(_row_by_key(tbl), json.loads(pk_json))  # type: ignore[union-attr]
        row = cursor.fetchone()
        after = dict(zip([d[0] for d in cursor.description], row, strict=True)) if row is not None else None
        before = json.loads(before_json) if before_json is not None else None
        if before == after:
            continue
        entry = diff.setdefault(tbl, TableDiff())
        if before is None and after is not None:
            entry.inserted.append(after)
        elif after is None and before is not None:
            entry.deleted.append(before)
        elif before is not None and after is not None:
            entry.updated.append((before, after))
    return diff
