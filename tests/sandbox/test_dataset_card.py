"""The dataset card's check counts are computed: answer coverage from the tasks, the self-check and
gates from what validate recorded for exactly those tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandbox.generator.stats import audit_summary, card_markdown, suite_stats, validation_record, write_validation
from sandbox.suite import load_split

TASKS = load_split("handwritten.jsonl")
TABLE = [
    ("alt/clarify", 12, 0),
    ("alt/extra_read", 9, 1),
    ("noop", 30, 0),
    ("oracle/default", 30, 0),
    ("perturb/argument", 40, 0),
    ("wrong/other_entity", 3, 0),
    ("wrong/skipped_confirmation", 2, 0),
]


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
    assert "not recorded for these tasks; run `mobilepa tasks validate --record`" in card_markdown(stats)


def test_the_played_audit_shows_classes_before_and_after_the_fixes(tmp_path: Path) -> None:
    audit = tmp_path / "audit.json"
    audit.write_text(
        json.dumps(
            {
                "audits": [
                    {"title": "Pilot", "method": "Two players.", "episodes": []},
                    {
                        "title": "Second audit",
                        "method": "Players played a stratified sample.",
                        "rules": [{"what": "guarded actions without the confirmation rule", "before": 14, "after": 0}],
                        "episodes": [
                            {"key": "basic-1.1-01", "category": "basic", "class": "passed-and-right"},
                            {
                                "key": "skill-040@sor",
                                "category": "skill",
                                "class": "task-flawed",
                                "final_class": "passed-and-right",
                                "finding": "SOR hid the contacts search",
                                "fix": "SOR offers the job's lookups",
                            },
                            {"key": "memory-252", "category": "memory", "class": "failed-own-mistake"},
                        ],
                        "probes": [
                            {
                                "key": "memory-252",
                                "what": "the opposite verdict",
                                "right": False,
                                "before": "passed",
                                "after": "failed",
                                "actions": [{"name": "finish", "arguments": {"answer": "No."}}],
                            }
                        ],
                    },
                ]
            }
        ),
        encoding="utf-8",
    )
    audits = audit_summary(audit)
    assert audits is not None and [a["title"] for a in audits] == ["Pilot", "Second audit"]
    summary = audits[1]
    assert summary["played"] == {"passed-and-right": 1, "failed-own-mistake": 1, "task-flawed": 1}
    assert summary["final"] == {"passed-and-right": 2, "failed-own-mistake": 1}
    card = card_markdown(suite_stats({"full": TASKS}, Path("/nonexistent"), audit))
    assert "| task-flawed | 1 | 0 |" in card and "| skill-040@sor | task-flawed | passed-and-right |" in card
    assert "| guarded actions without the confirmation rule | 14 | 0 |" in card
    assert card.index("### Pilot") < card.index("### Second audit")
    assert "SOR offers the job's lookups" in card and "Sample: basic-1.1-01, skill-040@sor, memory-252" in card
    assert "Answer probes (" in card and ": 1, judged wrongly when played 1, now 0." in card
    assert "| memory-252 | wrong | the opposite verdict | passed | failed |" in card
    assert summary["probes"][0]["answer"] == "No."


def test_an_audit_class_outside_the_list_is_refused(tmp_path: Path) -> None:
    audit = tmp_path / "audit.json"
    audit.write_text(
        json.dumps(
            {
                "audits": [
                    {"title": "t", "method": "m", "episodes": [{"key": "k", "category": "basic", "class": "fine"}]}
                ]
            }
        ),
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="unknown class 'fine'"):
        audit_summary(audit)
