"""``mobilepa tasks``: the committed suite validates, and the dataset card's counts come out as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.cli import main
from sandbox.suite import VALIDATION


def test_the_committed_suite_self_validates_as_its_record_says(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The counts the dataset card shows (the committed validation.json) are what validate records now;
    it writes them only where --record says (the suite's folder is left as it was)."""
    assert main(["tasks", "validate", "--jobs", "2", "--record", str(tmp_path / "v.json")]) == 0
    out = capsys.readouterr().out
    assert "oracle trajectories: 1905, passed: 1905" in out and "every task behaves as promised" in out
    assert (tmp_path / "v.json").read_text(encoding="utf-8") == VALIDATION.read_text(encoding="utf-8")


def test_stats_json_reports_the_papers_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "stats", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert doc["tasks"] == 1705 and doc["skill_trajectories"] == 400
    assert doc["by"]["category"] == {"basic": 1040, "memory": 376, "skill": 200, "subagent": 89}
    assert doc["splits"]["train"] == 1705 and doc["splits"]["mini"] > 150


def test_try_names_an_unknown_family(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "try", "no_such_family"]) == 2
    assert "no family starts with 'no_such_family'" in capsys.readouterr().err
