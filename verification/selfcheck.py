"""The suite's self-validation: gold passes, doing nothing fails, and broken golds are caught.

For every task: the gold replayed on a fresh sandbox passes (skill tasks under both skill
conditions, so 1,905 trajectories for the full suite); ``finish`` alone fails unless doing nothing
is the task's correct behaviour; and each perturbation of the gold fails:

- ``argument``: each required argument of the decisive call (the last successful domain or
  sub-agent call) changed, one at a time;
- ``memory``: a search_memory step that alone returns a required record dropped;
- ``extra_call``: one extra successful mutating call (a scratch note) before ``finish``;
- ``skill``: the load_skill steps dropped;
- ``handoff``: one field the handoff check names removed from the sub-agent call.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sandbox.conditions import CONDITIONS, action_space_for
from sandbox.episode import Episode, Trajectory
from sandbox.tasks import Action, Task
from sandbox.tooling import REGISTRY
from verification.verify import Verdict, verify

EXTRA_CALL = Action(name="create_note", arguments={"title": "Scratch", "content": "a note nobody asked for"})
FRAMEWORK_STEPS = frozenset({"finish", "search_memory", "load_skill", "ask_user"})


def replay(task: Task, gold: Iterable[Action], condition: str = "default", extra_tools: Iterable[str] = ()
           ) -> Trajectory:
    tools, skills = action_space_for(task, condition)
    with Episode(task, candidate_tools=[*tools, *extra_tools], candidate_skills=skills) as episode:
        for action in gold:
            if episode.done:
                break
            episode.step(action.name, action.arguments)
        return episode.trajectory()


def run(task: Task, gold: Iterable[Action], condition: str = "default", extra_tools: Iterable[str] = ()) -> Verdict:
    return verify(task, replay(task, gold, condition, extra_tools))


@dataclass
class Outcome:
    """One check of one task: ``surprise`` when the outcome is not the one the suite promises."""

    task_id: str
    check: str  # oracle/<condition> | noop | perturb/<kind>
    surprise: bool
    detail: str = ""


def _changed(value: Any) -> Any:
    """A value of the same kind that means something else."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return round(value + 1.5, 2)
    if isinstance(value, list):
        return [_changed(value[0]), *value[1:]] if value else ["something else"]
    if isinstance(value, dict):
        if not value:
            return {"unexpected": "value"}
        key = min(value)
        return {**value, key: _changed(value[key])}
    text = str(value)
    if m := re.fullmatch(r"([a-z_]+)_(\d{3,})", text):
        return f"{m.group(1)}_{int(m.group(2)) + 900:03d}"
    for fmt, step in (("%Y-%m-%dT%H:%M", dt.timedelta(hours=2)), ("%Y-%m-%d", dt.timedelta(days=1)),
                      ("%H:%M", dt.timedelta(hours=1))):
        try:
            return (dt.datetime.strptime(text, fmt) + step).strftime(fmt)
        except ValueError:
            pass
    digits = re.sub(r"\D", "", text)
    if len(digits) >= 7 and len(digits) >= len(text) * 0.6:
        return text[:-1] + ("1" if text[-1] != "1" else "2")
    return "something else entirely"


def decisive_step(task: Task) -> int | None:
    """The last gold step that succeeded and is a domain or sub-agent call (what the task is about)."""
    trajectory = replay(task, task.gold)
    for step in reversed(trajectory.steps):
        if step.name not in FRAMEWORK_STEPS and step.envelope["Status"] == "success":
            return step.index - 1
    return None


def perturbations(task: Task) -> Iterator[tuple[str, list[Action]]]:
    gold = list(task.gold)
    at = decisive_step(task)
    if at is not None and not task.noop_ok:
        action = gold[at]
        for name in REGISTRY[action.name].parameters.get("required", []):
            if name in action.arguments:
                args = {**action.arguments, name: _changed(action.arguments[name])}
                yield f"argument:{action.name}.{name}", [*gold[:at], Action(name=action.name, arguments=args),
                                                         *gold[at + 1:]]
    if task.required_memory_ids:
        yield from _dropped_searches(task, gold)
    yield "extra_call", [*gold[:-1], EXTRA_CALL, gold[-1]]
    if task.required_skill_id:
        yield "skill", [a for a in gold if a.name != "load_skill"]
    if task.category == "subagent" and task.bucket == "agent_behavior" and task.check.route:
        n = max(i for i, a in enumerate(gold) if a.name == task.check.route)  # the handoff that worked
        for path in _leaf_paths(task.check.handoff):
            if _has_path(gold[n].arguments, path):
                args = copy.deepcopy(gold[n].arguments)
                _drop_path(args, path)
                yield f"handoff:{'.'.join(path)}", [*gold[:n], Action(name=gold[n].name, arguments=args), *gold[n + 1:]]


def _dropped_searches(task: Task, gold: list[Action]) -> Iterator[tuple[str, list[Action]]]:
    trajectory = replay(task, gold)
    returned = [(s.index - 1, {r.get("memory_id") for r in s.envelope["Payload"].get("records", [])})
                for s in trajectory.steps if s.name == "search_memory" and s.envelope["Status"] == "success"]
    required = set(task.required_memory_ids)
    for pos, ids in returned:
        others = set().union(*(i for p, i in returned if p != pos))
        if (ids & required) - others:
            yield "memory", [a for n, a in enumerate(gold) if n != pos]


def _leaf_paths(spec: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if isinstance(spec, dict) and spec and not any(k.startswith("$") for k in spec):
        return [p for k in sorted(spec) for p in _leaf_paths(spec[k], (*prefix, k))]
    return [prefix] if prefix else []


def _has_path(value: Any, path: tuple[str, ...]) -> bool:
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return False
        value = value[key]
    return True


def _drop_path(value: dict[str, Any], path: tuple[str, ...]) -> None:
    for key in path[:-1]:
        value = value[key]
    del value[path[-1]]


def check_task(task: Task) -> list[Outcome]:
    """Every self-validation outcome of one task."""
    out: list[Outcome] = []
    conditions = CONDITIONS if task.category == "skill" else ("default",)
    for condition in conditions:
        verdict = run(task, task.gold, condition)
        out.append(Outcome(task.task_id, f"oracle/{condition}", not verdict.passed, "; ".join(verdict.reasons)))
    noop = run(task, [Action(name="finish", arguments={"answer": "I did nothing."})])
    out.append(Outcome(task.task_id, "noop", noop.passed != task.noop_ok,
                       "passes although the task needs action" if noop.passed else "; ".join(noop.reasons)))
    for kind, gold in perturbations(task):
        verdict = run(task, gold, "mtsr" if task.category == "skill" else "default", extra_tools=[EXTRA_CALL.name])
        out.append(Outcome(task.task_id, f"perturb/{kind.split(':')[0]}", verdict.passed,
                           f"{kind} still passes" if verdict.passed else ""))
    return out


@dataclass
class Summary:
    outcomes: list[Outcome] = field(default_factory=list)

    def add(self, items: list[Outcome]) -> None:
        self.outcomes += items

    @property
    def surprises(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.surprise]

    def table(self) -> list[tuple[str, int, int]]:
        """(check, runs, surprises) per kind of check."""
        runs, bad = Counter(o.check for o in self.outcomes), Counter(o.check for o in self.surprises)
        return [(k, runs[k], bad[k]) for k in sorted(runs)]


def validate(tasks: Iterable[Task], progress: Callable[[Task], None] | None = None) -> Summary:
    summary = Summary()
    for task in tasks:
        summary.add(check_task(task))
        if progress:
            progress(task)
    return summary
