from __future__ import annotations

import dataclasses

import pytest

from sandbox.changes import TableDiff
from sandbox.tasks import Task
from tests.verification.factories import err, make_task, ok, trajectory
from verification.verify import verify

SMS = ("send_sms", {"to": ["contact_004"], "body": "hi"})
SEARCH_HIT = (
    "search_memory",
    {"query": "home airport"},
    ok({"records": [{"memory_id": "mem_003", "content": "flies from PEK"}, {"memory_id": "mem_011"}]}),
)
SKILL = ("load_skill", {"skill_id": "trip_booking"})


def memory_task() -> Task:
    return make_task(category="memory", required_memory_ids=["mem_003", "mem_011"])


def skill_task() -> Task:
    return make_task(
        category="skill", candidate_skills=["trip_booking", "ride_and_commute"], required_skill_id="trip_booking"
    )


def test_basic_task_verdict() -> None:
    verdict = verify(make_task(), trajectory(SMS))
    assert verdict.passed and verdict.checker_passed and verdict.scorable
    assert (verdict.memory_gate, verdict.skill_gate, verdict.reasons) == (None, None, ())
    assert (verdict.task_id, verdict.category, verdict.bucket, verdict.termination) == (
        "t1",
        "basic",
        "tool_call",
        "finished",
    )
    failed = verify(make_task(), trajectory(("finish", {"answer": "done"})))
    assert not failed.passed and not failed.checker_passed and failed.reasons
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.passed = False  # type: ignore[misc]


def test_memory_gate() -> None:
    task = memory_task()
    passed = verify(task, trajectory(SEARCH_HIT, SMS))
    assert passed.passed and passed.memory_gate is True
    partial = ("search_memory", {"query": "x"}, ok({"records": [{"memory_id": "mem_003"}]}))
    gated = verify(task, trajectory(partial, SMS))
    assert gated.checker_passed and gated.memory_gate is False and not gated.passed
    assert gated.reasons == ("memory gate: required records never returned by search_memory: mem_011",)
    failed_search = ("search_memory", {"query": "x"}, {**err(), "Payload": {"records": [{"memory_id": "mem_011"}]}})
    assert verify(task, trajectory(partial, failed_search, SMS)).memory_gate is False


def test_memory_gate_combines_searches() -> None:
    first = ("search_memory", {"query": "a"}, ok({"records": [{"memory_id": "mem_003"}]}))
    second = ("search_memory", {"query": "b"}, ok({"records": [{"memory_id": "mem_011"}]}))
    assert verify(memory_task(), trajectory(first, second, SMS)).passed


def test_skill_gate() -> None:
    task = skill_task()
    assert verify(task, trajectory(SKILL, SMS)).skill_gate is True
    other = verify(task, trajectory(("load_skill", {"skill_id": "ride_and_commute"}), SMS))
    assert other.checker_passed and other.skill_gate is False and not other.passed
    failed_load = verify(task, trajectory((*SKILL, err("StateConflict")), SMS))
    assert failed_load.skill_gate is False


def test_gate_cannot_rescue_a_failed_checker() -> None:
    verdict = verify(skill_task(), trajectory(SKILL))
    assert verdict.skill_gate is True and not verdict.checker_passed and not verdict.passed


def test_infra_error_is_unscorable() -> None:
    verdict = verify(make_task(), trajectory(SMS, termination="infra_error"))
    assert not verdict.scorable and not verdict.passed
    assert "infrastructure error" in verdict.reasons[0]


def test_internal_errors_are_unscorable() -> None:
    verdict = verify(make_task(), trajectory(SMS, internal_errors=["send_sms: KeyError: 'x'"]))
    assert not verdict.scorable and not verdict.passed
    assert verdict.reasons == ("sandbox internal error: send_sms: KeyError: 'x'",)


def test_truncated_episode_is_scored() -> None:
    assert verify(make_task(), trajectory(SMS, termination="truncated")).passed


def test_state_change_bucket_dispatch() -> None:
    task = make_task(bucket="state_change", check={"insert": {"messages": [{"body": "hi"}]}})
    diff = {"messages": TableDiff(inserted=[{"message_id": "msg_001", "body": "Hi"}])}
    assert verify(task, trajectory(SMS, diff=diff)).passed
    assert not verify(task, trajectory(SMS)).passed


def test_mismatched_trajectory_raises() -> None:
    with pytest.raises(ValueError, match="given for task"):
        verify(make_task(), trajectory(SMS, task_id="t2"))
    with pytest.raises(ValueError, match="termination"):
        verify(make_task(), trajectory(SMS, termination="crashed"))
