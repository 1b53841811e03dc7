"""The replay planner: re-scores saved trajectories without calling any model.

It reads the ``trajectories.jsonl.gz`` that ``experiments.execution.run`` writes (one trajectory per line:
``task_id`` and ``steps`` [{index, name, arguments, envelope, planner, ...}]) and answers each step
of a task with the action recorded at that step, so a changed checker, gate or sandbox can be
re-applied to old runs. Format-error steps are replayed as format errors of the same kind. A task
whose recorded episode ended in a context overflow raises ``ContextOverflow`` after its last step, so
it is scored as failed again. A task without a recorded step at that point (absent from the file, or
cut short by an infrastructure error) raises ``InfraError``: the replayed episode is unscorable, as
the original was.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planners.base import ContextOverflow, InfraError, PlannerAction
from sandbox.episode import FORMAT_ERROR_STEP, Observation
from sandbox.tasks import Task

TRAJECTORIES = "trajectories.jsonl.gz"


def load_trajectories(path: str | Path) -> dict[str, list[dict[str, Any]]]:
    """task_id -> recorded steps, from a run directory or a ``.jsonl``/``.jsonl.gz`` file."""
    return {task_id: steps for task_id, (steps, _) in load_records(path).items()}


def load_records(path: str | Path) -> dict[str, tuple[list[dict[str, Any]], str | None]]:
    """task_id -> (recorded steps, the server's refusal if the episode ended in a context overflow)."""
    path = Path(path)
    if path.is_dir():
        path = path / TRAJECTORIES
    if not path.is_file():
        raise FileNotFoundError(f"planner.path: no trajectories at {path}")
    opener = gzip.open if path.suffix == ".gz" else open
    records: dict[str, tuple[list[dict[str, Any]], str | None]] = {}
    with opener(path, "rt", encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                overflow = (
                    record.get("context_overflow") or "context overflow"
                    if record.get("termination") in ("context_overflow", "prompt_overflow")
                    else None
                )
                records[str(record["task_id"])] = (sorted(record["steps"], key=lambda s: s["index"]), overflow)
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}:{number}: not a trajectory record ({exc})") from exc
    return records


class ReplayPlanner:
    """Answers each step with the recorded action of the same task and step."""

    name = "replay"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        records = load_records(path)
        self.steps = {task_id: steps for task_id, (steps, _) in records.items()}
        self.overflows = {task_id: overflow for task_id, (_, overflow) in records.items() if overflow}

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ReplayPlanner:
        unknown = sorted(set(config) - {"name", "kind", "path"})
        if unknown:
            raise ValueError(f"planner.{unknown[0]}: unknown key for kind replay; known: kind, name, path")
        path = config.get("path")
        if not isinstance(path, str | Path) or str(path) in ("", "???"):
            raise ValueError("planner.path: required for kind replay (a run directory or its trajectories.jsonl.gz)")
        planner = cls(path)
        planner.name = str(config.get("name") or cls.name)
        return planner

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        recorded = self.steps.get(task.task_id)
        if recorded is None:
            raise InfraError(f"replay: no trajectory of {task.task_id} in {self.path}")
        if observation.step >= len(recorded) and task.task_id in self.overflows:
            raise ContextOverflow(self.overflows[task.task_id])  # as recorded, so the verdict is the same
        if observation.step >= len(recorded):
            raise InfraError(f"replay: {task.task_id} has only {len(recorded)} recorded step(s) in {self.path}")
        step = recorded[observation.step]
        usage = {**step.get("planner", {}), "replayed": True}
        if step["name"] == FORMAT_ERROR_STEP:
            raw = step["arguments"] if isinstance(step["arguments"], str) else json.dumps(step["arguments"])
            kind = usage.get("format_error") or "no_tool_call"
            return PlannerAction(None, raw=raw, format_error=kind, usage=usage)
        return PlannerAction(step["name"], step["arguments"], usage=usage)
