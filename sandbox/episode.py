"""One episode: a private copy of the task's world, the executor, the step budget and the trajectory."""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, and_, bindparam, insert, select, update

from sandbox import db, subagents
from sandbox.changes import StateDiff, TableDiff, read_diff, start_journal
from sandbox.executor import Envelope, Executor, note_inserted_ids
from sandbox.schema import metadata, subagent_jobs, user_profile
from sandbox.skills import SKILLS
from sandbox.tasks import Changes, Task
from sandbox.tooling import REGISTRY
from sandbox.user import UserAnswer, reachable
from sandbox.world import world_image

T_MAX = 15  # the paper's step budget
FORMAT_ERROR_STEP = "<format_error>"
FORMAT_ERRORS = {
    "no_tool_call": "your reply contained no tool call; answer with exactly one tool call",
    "unknown_tool": "that tool does not exist; call one of the tools listed",
    "bad_arguments": "the tool arguments were not a valid JSON object",
    "multiple_calls": "call exactly one tool per step",
    "truncated_reply": "your reply was cut off at the token limit before it held a complete tool call; answer with "
    "exactly one short tool call",
    "oversized_reply": "your reply was longer than the limit allowed and was clipped; answer with exactly one "
    "short tool call",
    "undecodable_reply": "your reply could not be decoded (its JSON nests too deep); answer with exactly one tool "
    "call whose arguments are a plain JSON object",
}


@dataclass
class Step:
    """One planner action and the sandbox's feedback, with what the planner reported about it."""

    index: int
    name: str
    arguments: Any
    envelope: Envelope
    latency_s: float = 0.0
    planner: dict[str, Any] = field(default_factory=dict)  # tokens, raw reply, format error kind

    def to_json(self) -> dict[str, Any]:
        """The step as a JSON-ready dict. Shallow: the values are already JSON data, and
        ``dataclasses.asdict`` deep-copying every envelope was most of the cost of storing a result."""
        return {
            "index": self.index,
            "name": self.name,
            "arguments": self.arguments,
            "envelope": self.envelope,
            "latency_s": self.latency_s,
            "planner": self.planner,
        }


@dataclass
class Trajectory:
    """Everything verification needs: the actions with their envelopes and the final state diff."""

    task_id: str
    steps: list[Step]
    termination: str  # finished | truncated | context_overflow | prompt_overflow | infra_error
    diff: StateDiff
    subagent_jobs: list[dict[str, Any]]
    internal_errors: list[str]
    infra_error: str | None = None  # why the planner's backend stopped the episode, if it did
    context_overflow: str | None = None  # why the conversation (or the first prompt) did not fit the model's context

    def to_json(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "termination": self.termination,
            "steps": [s.to_json() for s in self.steps],
            "diff": {t: d.to_json() for t, d in self.diff.items()},
            "subagent_jobs": self.subagent_jobs,
            "internal_errors": self.internal_errors,
            "infra_error": self.infra_error,
            "context_overflow": self.context_overflow,
        }


@dataclass(frozen=True)
class Observation:
    """What the planner sees: the phone's context, the query, the history so far, and the callable
    tools' schemas."""

    query: str
    history: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    step: int
    context: dict[str, Any] = field(default_factory=dict)


_PROFILE = select(
    user_profile.c.name,
    user_profile.c.phone,
    user_profile.c.email,
    user_profile.c.locale,
    user_profile.c.timezone,
    user_profile.c.home_city,
    user_profile.c.work_city,
)


def phone_context(conn: Connection, now: dt.datetime) -> dict[str, Any]:
    """What a phone assistant always knows without a tool call: the frozen clock (date, weekday, time,
    timezone) and the owner's profile. Every planner request states it; it never changes during an
    episode, so the request stays prefix-stable."""
    profile = conn.execute(_PROFILE).one()._asdict()
    return {
        "date": now.strftime("%Y-%m-%d"),
        "weekday": now.strftime("%A"),
        "time": now.strftime("%H:%M"),
        "timezone": profile.pop("timezone"),
        "user": {k: v for k, v in profile.items() if v},
    }


def context_text(context: dict[str, Any]) -> str:
    """The context as the sentences a planner reads (also what the suite's solvability gate counts as seen)."""
    if not context:
        return ""
    user = context["user"]
    lines = [f"Now: {context['weekday']} {context['date']}, {context['time']} ({context['timezone']})."]
    about = [f"The user is {user['name']}"]
    about += [
        f"{label} {user[key]}"
        for key, label in (
            ("phone", "phone"),
            ("email", "email"),
            ("home_city", "lives in"),
            ("work_city", "works in"),
            ("locale", "locale"),
        )
        if key in user
    ]
    lines.append(about[0] + (" (" + "; ".join(about[1:]) + ")." if len(about) > 1 else "."))
    return "\n".join(lines)


_JOBS = select(subagent_jobs).order_by(subagent_jobs.c.job_id)


def apply_changes(conn: Connection, changes: Changes) -> None:
    """Apply a task's patches (inserts, updates by match, deletes by match).

    Statements are built once per table and shape of patch (its match and set columns) and run with
    the patch's values, like the tools' fixed statements, instead of being built for every episode."""
    for name, new_rows in changes.insert.items():
        for _, same_columns in itertools.groupby(new_rows, key=frozenset):  # one batch takes its first row's columns
            conn.execute(_insert(name), list(same_columns))
    for name, updates in changes.update.items():
        for u in updates:
            statement = _update(name, _match_shape(u.match), tuple(u.set))
            values = {**_match_values(u.match), **{f"set_{k}": v for k, v in u.set.items()}}
            if conn.execute(statement, values).rowcount == 0:
                raise ValueError(f"patch: no {name} row matches {u.match}")
    for name, matches in changes.delete.items():
        for m in matches:
            conn.execute(_delete(name, _match_shape(m)), _match_values(m))


def _table(name: str) -> Any:
    if name not in metadata.tables:
        raise ValueError(f"patch: unknown table {name!r}")
    return metadata.tables[name]


MatchShape = tuple[tuple[str, bool], ...]  # (column, whether the patch matches it to NULL)


def _match_shape(match: dict[str, Any]) -> MatchShape:
    return tuple((k, v is None) for k, v in match.items())


def _match_values(match: dict[str, Any]) -> dict[str, Any]:
    return {f"match_{k}": v for k, v in match.items() if v is not None}


def _where(t: Any, shape: MatchShape) -> Any:
    """``col = :match_col`` per matched column, ``col IS NULL`` where the patch matches NULL."""
    return and_(*(t.c[k].is_(None) if null else t.c[k] == bindparam(f"match_{k}") for k, null in shape))


@functools.cache
def _insert(name: str) -> Any:
    return insert(_table(name))


@functools.cache
def _update(name: str, shape: MatchShape, columns: tuple[str, ...]) -> Any:
    t = _table(name)
    unknown = [c for c in columns if c not in t.c]
    if unknown:
        raise ValueError(f"patch: {name} has no column {unknown[0]!r}")
    return update(t).where(_where(t, shape)).values({t.c[c]: bindparam(f"set_{c}") for c in columns})


@functools.cache
def _delete(name: str, shape: MatchShape) -> Any:
    t = _table(name)
    return t.delete().where(_where(t, shape))


@functools.cache
def _shared_schema(name: str) -> dict[str, Any]:
    """A tool's schema, built once per process and shared by every episode offering it (a tool is
    declared once, and its schema never changes)."""
    return REGISTRY[name].openai_schema()


class Episode:
    """A running task. ``step`` executes one planner action; the episode ends on ``finish`` or at T_max.

    Use as a context manager (or call ``close``) so the private database is released.
    """

    def __init__(
        self,
        task: Task,
        *,
        t_max: int = T_MAX,
        candidate_tools: list[str] | None = None,
        candidate_skills: list[str] | None = None,
        withheld: frozenset[str] = frozenset(),
    ) -> None:
        self.task = task
        self.t_max = t_max
        self.conn = db.open_database(world_image(task.initial_state.world), journal=False)
        self.conn.begin()  # the episode's own transaction: ``close`` rolls it back, leaving the world intact
        apply_changes(self.conn, task.initial_state.patches)
        for name, rows in task.initial_state.patches.insert.items():
            note_inserted_ids(self.conn, metadata.tables[name], rows)
        start_journal(self.conn)
        self.executor = Executor(
            self.conn,
            visible=frozenset(task.candidate_tools if candidate_tools is None else candidate_tools),
            skills_offered=tuple(task.candidate_skills if candidate_skills is None else candidate_skills),
            user_script=tuple(UserAnswer(a.answer, a.slot, tuple(a.keywords), a.kind) for a in task.user_script),
            user_reachable=reachable(task.tags),
            withheld=frozenset(withheld),
        )
        self.context = phone_context(self.conn, self.executor.now)
        self.steps: list[Step] = []
        self.history: list[dict[str, Any]] = [m.model_dump() for m in task.history]
        self.finished = False
        self.settled = False
        self._schemas: tuple[int, list[dict[str, Any]]] | None = None  # loaded skill tools -> the tools

    @property
    def done(self) -> bool:
        return self.finished or len(self.steps) >= self.t_max

    def observation(self) -> Observation:
        return Observation(self.task.query, list(self.history), self.tool_schemas(), len(self.steps), self.context)

    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI ``tools`` for the current action space; ``load_skill`` lists the offered skills.

        Built once per action space: it only grows, when a skill is loaded, so the number of loaded
        skill tools names it. Every step of an episode shares one list: callers read it and must not
        change it."""
        grown = len(self.executor.loaded_skill_tools)
        if self._schemas is None or self._schemas[0] != grown:
            self._schemas = (grown, [self._schema(name) for name in self.executor.available()])
        return self._schemas[1]

    def _schema(self, name: str) -> dict[str, Any]:
        if name != "load_skill":
            return _shared_schema(name)
        schema = REGISTRY[name].openai_schema()
        offered = "; ".join(f"{s}: {SKILLS[s].description}" for s in self.executor.skills_offered)
        schema["function"]["description"] += f" Offered skills: {offered}."
        return schema

    def step(
        self, name: Any, arguments: Any, *, planner: dict[str, Any] | None = None, latency_s: float = 0.0
    ) -> Envelope:
        """Execute one planner action and append it and its feedback to the history."""
        if self.done:
            raise RuntimeError(f"episode {self.task.task_id} is over; no more steps")
        self.executor.step = len(self.steps) + 1
        started = time.perf_counter()
        result = self.executor.call(name, arguments)
        self.steps.append(
            Step(self.executor.step, name, arguments, result, latency_s + time.perf_counter() - started, planner or {})
        )
        self.history.append({"role": "assistant", "action": {"name": name, "arguments": arguments}})
        self.history.append({"role": "tool", "name": name, "content": result})
        if name == "finish" and result["Status"] == "success":
            self.finished = True
        return result

    def record_format_error(self, raw: str, kind: str, planner: dict[str, Any]) -> Envelope:
        """A model reply that is not a usable call still costs a step, and the model is told why."""
        if self.done:
            raise RuntimeError(f"episode {self.task.task_id} is over; no more steps")
        result: Envelope = {
            "Status": "error",
            "ErrorType": None,
            "Payload": {
                "message": FORMAT_ERRORS.get(kind, "the reply could not be used as a tool call"),
                "format_error": kind,
            },
        }
        self.steps.append(
            Step(len(self.steps) + 1, FORMAT_ERROR_STEP, raw, result, 0.0, {**planner, "format_error": kind})
        )
        self.history.append({"role": "assistant", "content": raw})
        self.history.append({"role": "tool", "name": FORMAT_ERROR_STEP, "content": result})
        return result

    def settle(self) -> None:
        """After the planner's turn: apply the task's scenario events, then let monitors fire (once)."""
        if self.settled:
            return
        self.settled = True
        settle_time = self.executor.now.strftime("%Y-%m-%dT%H:%M")
        for event in self.task.events:
            with db.transaction(self.conn):
                apply_changes(self.conn, event.changes)
            settle_time = max(settle_time, event.at)
        self.executor.step = len(self.steps) + 1
        subagents.fire_monitors(self.executor, settle_time)

    def trajectory(
        self, termination: str | None = None, infra_error: str | None = None, context_overflow: str | None = None
    ) -> Trajectory:
        """The record to verify. Unless the episode hit an infrastructure error, it settles first (a
        context overflow is the planner's turn ending, like truncation)."""
        if termination != "infra_error":
            self.settle()
        with db.transaction(self.conn):
            diff = read_diff(self.conn)
            jobs = [dict(r._mapping) for r in self.conn.execute(_JOBS)]
        for job in jobs:
            job["handoff"] = json.loads(job.pop("handoff_json"))
            job["result"] = json.loads(job.pop("result_json"))
        term = termination or ("finished" if self.finished else "truncated")
        return Trajectory(
            self.task.task_id,
            list(self.steps),
            term,
            diff,
            jobs,
            list(self.executor.internal_errors),
            infra_error,
            context_overflow,
        )

    def snapshot(self) -> bytes:
        """The database's page image (a starting point for another connection)."""
        return db.snapshot(self.conn)

    def state_bytes(self) -> bytes:
        """The database's content in canonical form (what determinism checks compare)."""
        return db.state_bytes(self.conn)

    def close(self) -> None:
        db.release(self.conn)

    def __enter__(self) -> Episode:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = [
    "T_MAX",
    "Episode",
    "Observation",
    "StateDiff",
    "Step",
    "TableDiff",
    "Trajectory",
    "apply_changes",
    "context_text",
    "phone_context",
]
