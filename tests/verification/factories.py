"""Builders for tasks, steps and trajectories, so checker tests need no database."""

from __future__ import annotations

from typing import Any

from sandbox.changes import StateDiff
from sandbox.episode import Step, Trajectory
from sandbox.tasks import Task

Call = tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], dict[str, Any]]


def ok(payload: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"Status": "success", "ErrorType": None, "Payload": payload or {}}


def err(kind: str = "InvalidArgumentValue") -> dict[str, Any]:
    return {"Status": "error", "ErrorType": kind, "Payload": {"message": "failed"}}


def trajectory(
    *calls: Call,
    diff: StateDiff | None = None,
    termination: str = "finished",
    internal_errors: list[str] | None = None,
    task_id: str = "t1",
) -> Trajectory:
    """Steps numbered from 1; a call without an envelope succeeded with an empty payload."""
    steps = [Step(i, c[0], c[1], c[2] if len(c) == 3 else ok()) for i, c in enumerate(calls, start=1)]
    return Trajectory(task_id, steps, termination, diff or {}, [], internal_errors or [])


def make_task(**fields: Any) -> Task:
    record: dict[str, Any] = {
        "task_id": "t1",
        "category": "basic",
        "domain": "D3",
        "l2": "3.1",
        "query": "do it",
        "initial_state": {"world": "wang_lei"},
        "candidate_tools": ["send_sms", "search_contacts"],
        "bucket": "tool_call",
        "gold": [{"name": "finish", "arguments": {"answer": "ok"}}],
        "check": {"calls": [{"tool": "send_sms", "args": {"to": ["contact_004"]}}]},
    }
    return Task.model_validate({**record, **fields})
