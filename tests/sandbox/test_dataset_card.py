"""The dataset card's check counts are computed: answer coverage from the tasks, the self-check and
gates from what validate recorded for exactly those tasks."""

from __future__ import annotations

from pathlib import Path

from sandbox.generator.stats import card_markdown, suite_stats, validation_record, write_validation
from sandbox.suite import load_split

TASKS = load_split("handwritten.jsonl")
TABLE = [("alt/clarify", 12, 0), ("alt/extra_read", 9, 1), ("noop", 30, 0), ("oracle/default", 30, 0),
         ("perturb/argument", 40, 0), ("wrong/other_entity", 3, 0), ("wrong/skipped_confirmation", 2, 0)]


def test_answer_coverage_counts_the_information_tasks() -> None:
    answers = suite_stats({"full": TASKS}, Path("/nonexistent"))["answers"]
    assert answers["information_tasks"] >= 3
    assert answers["with_answer_check"] == answers["information_tasks"]  # hw_basic_004, 016, 021 included


def test_the_recorded_self_check_is_shown_both_ways_with_the_gates(tmp_path: Path) -> None:
    path = write_validation(validation_record(TASKS, TABLE, {"unseen_ids": 0, "lint": 0}), tmp_path / "v.json")
    stats = suite_stats({"full": TASKS}, path)
    check = stats["selfcheck"]
    assert check["alternatives"] == {"runs": 21, "surprises": 1}
    assert check["wrong_endings"] == {"runs": 5, "surprises": 0}
    assert check["perturbations"] == {"runs": 40, "surprises": 0} and check["gates"] == {"unseen_ids": 0, "lint": 0}
    card = card_markdown(stats)
    assert "legitimate alternatives that must pass" in card and ": 21, failed: 1" in card
    assert "wrong endings that must fail" in card and ": 5, passed: 0" in card
    assert "gate violations (each must be 0): lint 0, unseen_ids 0" in card


def test_a_record_of_other_tasks_is_not_shown(tmp_path: Path) -> None:
    path = write_validation(validation_record(TASKS[:-1], TABLE, {}), tmp_path / "v.json")
    stats = suite_stats({"full": TASKS}, path)
    assert stats["selfcheck"] is None
    assert "not recorded for these tasks; run `mobilepa tasks validate`" in card_markdown(stats)
