"""Whatever a model emits: each call gets its envelope, the database stays sound, the log stays small."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Connection, func, select

from sandbox.db import integrity_problems, transaction
from sandbox.executor import Executor
from sandbox.schema import operation_logs
from tests.sandbox.conftest import diff_of

pytestmark = pytest.mark.faults


def nested(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(depth):
        node["a"] = {}
        node = node["a"]
    return root


HOSTILE: list[tuple[Any, Any, str]] = [
    ("add_contact", {"name": "x" * 1_000_000, "phone_number": "+86 139 1234 5678"}, "InvalidArgumentValue"),
    ("add_contact", nested(5000), "InvalidArgumentValue"),
    ("add_contact", {"name": nested(100), "phone_number": "+86 139 1234 5678"}, "InvalidArgumentValue"),
    ("search_contacts", {"name": "'; DROP TABLE contacts; --"}, "success"),
    ("search_contacts", {"name": "%_\\%"}, "success"),
    ("create_note", {"title": "\x00\x1b[31m\u202e\U0001f600", "content": "'); DELETE FROM notes; --"}, "success"),
    ("list_files", {"folder_path": "../../etc"}, "InvalidArgumentValue"),
    ("move_file", {"file_id": "file_001", "destination_path": "/../../../etc/passwd"}, "InvalidArgumentValue"),
    ("x" * 100_000, {}, "ToolNotAvailable"),
    (["add_contact"], {}, "ToolNotAvailable"),
    ("search_contacts", [1, 2, 3], "InvalidArgumentType"),
    ("search_contacts", None, "InvalidArgumentType"),
    ("roombook_reserve", {}, "ToolNotAvailable"),
    # JSON may carry lone surrogates ("\\ud800"), which SQLite cannot store: refused, and logged escaped
    ("create_note", {"title": "\ud800", "content": "x"}, "InvalidArgumentValue"),
    ("create_note", {"title": "ok", "content": {"\udfff": 1}}, "InvalidArgumentType"),
    ("search_contacts", {"name": "Lily", "\ud800": 1}, "InvalidArgumentValue"),
    ("\ud800", {"\ud800": "\ud800"}, "ToolNotAvailable"),
]


@pytest.mark.parametrize(("name", "arguments", "outcome"), HOSTILE, ids=[f"case{i}" for i in range(len(HOSTILE))])
def test_hostile_call(conn: Connection, ex: Executor, name: Any, arguments: Any, outcome: str) -> None:
    env = ex.call(name, arguments)
    assert env["ErrorType" if outcome != "success" else "Status"] == outcome, env
    assert ex.internal_errors == []
    if outcome != "success":
        assert diff_of(conn) == {}
    with transaction(conn):
        assert integrity_problems(conn) == []
        longest = conn.execute(select(func.max(func.length(operation_logs.c.args_json)))).scalar()
        assert longest is not None and longest < 5000  # logged arguments are clipped


def test_sql_fragments_are_data(conn: Connection, ex: Executor) -> None:
    title = "'; DROP TABLE contacts; --"
    assert ex.call("create_note", {"title": title, "content": "x"})["Status"] == "success"
    found = ex.call("search_notes", {"query": "DROP TABLE"})["Payload"]
    assert any(n["title"] == title for n in found["notes"])
    assert ex.call("search_contacts", {"name": "Lily"})["Payload"]["count"] > 0  # the table is still there


def test_finish_twice(ex: Executor) -> None:
    assert ex.call("finish", {"answer": "done"})["Status"] == "success"
    assert ex.call("finish", {"answer": "again"})["ErrorType"] == "StateConflict"
