"""What the docs state that code declares stays in step with the code: the task record's exported
JSON Schema and the matcher operators."""

from __future__ import annotations

import json
from pathlib import Path

from experiments.commands.tasks import TASK_SCHEMA, task_json_schema
from verification.matchers import _CHECKS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_committed_task_schema_is_the_task_model_s() -> None:
    assert TASK_SCHEMA.read_text(encoding="utf-8") == task_json_schema(), "run `mobilepa tasks card`"
    assert "check" in json.loads(TASK_SCHEMA.read_text(encoding="utf-8"))["properties"]


def test_every_matcher_operator_is_documented() -> None:
    text = (DOCS / "task-format.md").read_text(encoding="utf-8")
    assert [op for op in _CHECKS if f"`{op}`" not in text] == []
