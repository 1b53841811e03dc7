"""Shared fixtures: an executor over a private copy of a persona world, with every domain tool visible."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Connection, func, select

import sandbox.domains  # noqa: F401
from sandbox.changes import StateDiff, read_diff, start_journal
from sandbox.db import open_database, transaction
from sandbox.errors import ErrorType
from sandbox.executor import Executor
from sandbox.schema import operation_logs
from sandbox.tooling import REGISTRY
from sandbox.world import world_image

ALL_DOMAIN_TOOLS = frozenset(n for n, s in REGISTRY.items() if s.is_domain_tool)


@pytest.fixture
def conn() -> Iterator[Connection]:
    c = open_database(world_image("wang_lei"))
    yield c
    c.close()


@pytest.fixture
def ex(conn: Connection) -> Executor:
    e = Executor(conn, visible=ALL_DOMAIN_TOOLS, skills_offered=("bedtime_routine",))
    e.step = 1
    return e


def diff_of(conn: Connection) -> StateDiff:
    with transaction(conn):
        return read_diff(conn)


def log_count(conn: Connection) -> int:
    with transaction(conn):
        return int(conn.execute(select(func.count()).select_from(operation_logs)).scalar() or 0)


def prepare(conn: Connection, *statements: Any) -> None:
    """Change the world before the test's calls, outside the diff."""
    with transaction(conn):
        for stmt in statements:
            conn.execute(stmt)
    start_journal(conn)


# ---- helpers the per-domain tool tests share ----------------------------------------------


def diff(ex: Executor) -> dict[str, Any]:
    """D_T - D_0 as JSON (inserted / updated [{before, after}] / deleted per table)."""
    return {name: d.to_json() for name, d in diff_of(ex.conn).items()}


def query(ex: Executor, stmt: Any) -> list[dict[str, Any]]:
    """Rows of a read-only statement, outside the episode's calls."""
    with transaction(ex.conn):
        return [dict(r._mapping) for r in ex.conn.execute(stmt)]


def ok(ex: Executor, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Call a tool that must succeed; returns its payload and advances the step."""
    env = ex.call(name, args)
    assert env["Status"] == "success", env
    ex.step += 1
    return env["Payload"]


def fails(ex: Executor, name: str, args: dict[str, Any], error: ErrorType) -> dict[str, Any]:
    """Call a tool that must fail with ``error``, changing nothing but adding one log row."""
    before, logged = diff(ex), log_count(ex.conn)
    env = ex.call(name, args)
    assert env["Status"] == "error" and env["ErrorType"] == error.value, env
    assert diff(ex) == before
    assert log_count(ex.conn) == logged + 1
    return env["Payload"]
