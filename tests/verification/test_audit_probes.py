"""The played audits' answer probes: each player's own actions, ending in a known-right or known-wrong
final answer, replayed on the suite as it is; the checks' verdict must be the one the audit records as
``after``, so a change that moves a probe's verdict is seen (and re-recorded, or fixed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sandbox.generator.stats import AUDIT
from sandbox.suite import load_split
from sandbox.tasks import Action
from verification.selfcheck import run

AUDITS = json.loads(AUDIT.read_text(encoding="utf-8"))["audits"]
PROBES = [probe for audit in AUDITS for probe in audit.get("probes", [])]
TASKS = {task.task_id: task for task in load_split("full.jsonl")}


@pytest.mark.parametrize("probe", PROBES, ids=[f"{p['key']}:{p['what']}" for p in PROBES])
def test_each_probe_gets_the_verdict_the_audit_records(probe: dict[str, Any]) -> None:
    task_id, _, condition = probe["key"].partition("@")
    actions = [Action(name=a["name"], arguments=a["arguments"]) for a in probe["actions"]]
    verdict = run(TASKS[task_id], actions, condition or "default")
    assert ("passed" if verdict.passed else "failed") == probe["after"], verdict.reasons


def test_the_audits_hold_probes_of_right_and_of_wrong_answers() -> None:
    assert {p["right"] for p in PROBES} == {True, False}
