"""The task format: strict loading with precise errors, and the hand-written slice's coverage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sandbox.domains  # noqa: F401
from sandbox import handwritten
from sandbox.errors import ErrorType
from sandbox.suite import TASK_DIR, load_split
from sandbox.tasks import BUCKETS, CATEGORIES, TaskFormatError, dump_task, load_tasks
from sandbox.tooling import REGISTRY

HANDWRITTEN = TASK_DIR / "handwritten.jsonl"


def test_committed_file_is_what_the_authoring_module_writes() -> None:
    expected = "".join(dump_task(t) + "\n" for t in handwritten.tasks())
    assert HANDWRITTEN.read_text(encoding="utf-8") == expected


def test_handwritten_slice_covers_every_category_bucket_and_friction() -> None:
    tasks = load_tasks(HANDWRITTEN)
    assert 25 <= len(tasks) <= 40
    assert {t.category for t in tasks} == set(CATEGORIES)
    assert {t.bucket for t in tasks} == set(BUCKETS)
    frictions = {t.tags.get("friction") for t in tasks}
    assert {"permission_denied", "duplicate_entity", "missing_argument", "ambiguous_entity"} <= frictions
    assert any(len(t.required_memory_ids) >= 2 for t in tasks)
    assert any(t.required_skill_id for t in tasks)
    assert any(a.name == "call_gui_agent" for t in tasks for a in t.gold)
    assert any(t.check.follow_up for t in tasks if t.bucket == "agent_behavior")  # type: ignore[union-attr]
    for t in tasks:
        assert len(t.candidate_tools) <= 15
        assert all(name in REGISTRY for name in t.candidate_tools)
        assert all(a.name in REGISTRY for a in t.gold), t.task_id
        hidden = {tool for s in t.candidate_skills for tool in __import__("sandbox.skills").skills.SKILLS[s].tools}
        assert not hidden & set(t.candidate_tools), f"{t.task_id}: skill tools must stay hidden until loaded"


def _write(tmp_path: Path, records: list[object]) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


def _good() -> dict[str, object]:
    return json.loads(HANDWRITTEN.read_text(encoding="utf-8").splitlines()[0])


@pytest.mark.faults
@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.pop("query"), "task hw_basic_001: field query: Field required"),
        (lambda r: r.update(category="fun"), "task hw_basic_001: field category"),
        (
            lambda r: r.update(bucket="tool_call"),
            "task hw_basic_001: field check: Value error, calls: Field required (as a tool_call check)",
        ),
        (lambda r: r.update(l2="3.1", domain="D1"), "task hw_basic_001: field (record)"),
        (lambda r: r.update(extra=1), "task hw_basic_001: field extra: Extra inputs are not permitted"),
        (lambda r: r["gold"].pop(), "task hw_basic_001: field (record): Value error, gold: the reference"),
    ],
)
def test_malformed_records_are_rejected_naming_file_line_task_and_field(tmp_path: Path, mutate, message: str) -> None:
    record = _good()
    mutate(record)
    path = _write(tmp_path, [_good(), record])
    with pytest.raises(TaskFormatError) as err:
        load_tasks(path)
    assert f"{path}:2: " in str(err.value)
    assert message in str(err.value)


@pytest.mark.faults
def test_not_json_and_duplicate_ids(tmp_path: Path) -> None:
    with pytest.raises(TaskFormatError, match=r":1: not valid JSON"):
        load_tasks(_write(tmp_path, ["{oops"]))
    with pytest.raises(TaskFormatError, match=r":2: task hw_basic_001: field task_id: duplicate id"):
        load_tasks(_write(tmp_path, [_good(), _good()]))


@pytest.mark.faults
def test_split_errors_name_the_problem() -> None:
    with pytest.raises(FileNotFoundError, match=r"split file 'nope.jsonl' not found"):
        load_split("nope.jsonl")
    with pytest.raises(ValueError, match=r"split.categories: unknown category 'fun'"):
        load_split("handwritten.jsonl", ["fun"])
    assert {t.category for t in load_split("handwritten.jsonl", ["memory"])} == {"memory"}


def test_every_gold_error_recovery_uses_a_real_error_type() -> None:
    assert {e.value for e in ErrorType} >= {"PermissionDenied", "DuplicateEntity", "NetworkUnavailable"}
