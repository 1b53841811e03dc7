"""The task record (docs/architecture.md §4), format version 1, and its loader.

A malformed record is rejected with the file, line, task id and field, before any episode runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from sandbox.taxonomy import DOMAINS, L2, domain_of

CATEGORIES = ("basic", "subagent", "memory", "skill")
BUCKETS = ("tool_call", "state_change", "agent_behavior")
TASK_FORMAT_VERSION: Final = 1


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Message(Strict):
    role: Literal["user", "assistant"]
    content: str


class RowUpdate(Strict):
    """Rows whose current values satisfy ``match`` get ``set`` (a patch), or must have (a check)."""

    match: dict[str, Any]
    set: dict[str, Any] = Field(default_factory=dict)


class Changes(Strict):
    """Row changes per table; the same shape patches a world and states an expected diff."""

    insert: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    update: dict[str, list[RowUpdate]] = Field(default_factory=dict)
    delete: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)


class ScenarioEvent(Strict):
    """A change of the world at a time after the planner's turn (a price drop, a delay, a reply).

    Events are applied when the episode settles, then the monitor agents check their conditions.
    """

    at: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$")]
    changes: Changes


class InitialState(Strict):
    world: str
    patches: Changes = Field(default_factory=Changes)


class Action(Strict):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ExpectedCall(Strict):
    """A call that must appear, successful, with arguments satisfying the matchers in ``args``.

    ``evidence`` (read-only calls, derived by the build from the gold call's result): matchers of
    objects the result must hold. Any successful read-only call whose Payload holds every item
    satisfies the call, whatever tool or arguments produced it (a city or an IANA zone, a cuisine
    filter or a query); ``args`` stay the fallback. ``after``: indexes of the check's calls whose
    results this call uses, so their steps must come first; independent calls match in any order.
    """

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    evidence: list[dict[str, Any]] = Field(default_factory=list)
    after: list[int] = Field(default_factory=list)


class ToolCallCheck(Strict):
    """Expected calls, partially ordered by their ``after`` lists, and ``answer``: matchers every one
    of which the ``finish`` answer text must satisfy (the facts the user asked for; for a yes/no question
    first its verdict, ``{"$verdict": "yes"}`` or ``{"$verdict": {"value": "no", "about": ["delayed"]}}``,
    which an answer opening with the opposite one fails, and one opening with none where it states the
    property asked about the other way; for a superlative question, "the cheapest …?", its one answer as
    ``{"$first": {"name": …, "others": [...]}}``, which an answer naming another candidate first fails;
    for a set question, "which of my …?", its non-members as ``{"$none_of": [...]}``, or, for a set defined
    by a property's value, ``{"$none_of": {"names": [...], "as": ["delivered"], "unlike": ["shipped", …]}}``,
    which an answer listing one as a member fails and one naming it with another value passes)."""

    calls: list[ExpectedCall] = Field(min_length=1)
    answer: list[Any] = Field(default_factory=list)

    @model_validator(mode="after")
    def _acyclic(self) -> ToolCallCheck:
        """``after`` names other calls of this check and never forms a cycle (no order could satisfy it)."""
        for n, call in enumerate(self.calls):
            bad = [i for i in call.after if not 0 <= i < len(self.calls) or i == n]
            if bad:
                raise ValueError(f"calls[{n}].after: {bad} is not the index of another call of this check")
        state: dict[int, str] = {}

        def visit(n: int) -> None:
            if state.get(n) == "open":
                raise ValueError(f"calls[{n}].after: the dependencies form a cycle")
            if n not in state:
                state[n] = "open"
                for i in self.calls[n].after:
                    visit(i)
                state[n] = "done"

        for n in range(len(self.calls)):
            visit(n)
        return self


class StateChangeCheck(Changes):
    """Expected D_T - D_0. Values are matchers (verification.matchers); ``forbid`` rows must not change.

    ``ask_before``: tools whose first successful call must come after the user confirmed: an
    ``ask_user`` answered with one of ``confirmed_by`` (the script's confirmations; any question
    will not do, since an unrelated one asked first proves no go-ahead). The build derives both
    from the gold's confirmation questions and the task's user script.
    """

    forbid: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    # rows an action may insert or not where the user did not say (a share's notification email):
    # neither required nor collateral; any other row of the table still is
    optional_insert: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    ignore_columns: list[str] = Field(default_factory=list)
    ignore_tables: list[str] = Field(default_factory=list)
    strict: bool = True
    ask_before: list[str] = Field(default_factory=list)
    confirmed_by: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _confirmable(self) -> StateChangeCheck:
        """A required confirmation needs an answer that gives it, or no trajectory could pass."""
        if self.ask_before and not self.confirmed_by:
            raise ValueError("confirmed_by: ask_before needs the answers that confirm (the script's confirmations)")
        return self


class AgentBehaviorCheck(Strict):
    """The sub-agent route and its handoff fields, the follow-up offered to the user, the effects, and
    ``answer``: as in ``ToolCallCheck``, the facts the sub-agent found out that the user asked for."""

    route: str | None = None
    handoff: dict[str, Any] = Field(default_factory=dict)
    follow_up: ExpectedCall | None = None
    state: StateChangeCheck | None = None
    answer: list[Any] = Field(default_factory=list)

    @model_validator(mode="after")
    def _follow_up_alone(self) -> AgentBehaviorCheck:
        if self.follow_up is not None and self.follow_up.after:
            raise ValueError("follow_up.after: a follow-up is ordered by the route call, not by other calls")
        return self


class UserAnswer(Strict):
    answer: str
    slot: str | None = None
    keywords: list[str] = Field(default_factory=list)
    kind: Literal["clarify", "confirm", "choose"] | None = None  # None: a confirmation when it opens with yes/no


_CHECKS: dict[str, type[Strict]] = {
    "tool_call": ToolCallCheck,
    "state_change": StateChangeCheck,
    "agent_behavior": AgentBehaviorCheck,
}


class Task(Strict):
    version: Literal[1] = TASK_FORMAT_VERSION
    task_id: Annotated[str, Field(min_length=1, pattern=r"^[^@]+$")]  # no @: episode keys are <task_id>@<condition>
    category: Literal["basic", "subagent", "memory", "skill"]
    domain: str
    l2: str
    query: Annotated[str, Field(min_length=1)]
    history: list[Message] = Field(default_factory=list)
    initial_state: InitialState
    candidate_tools: list[str]
    candidate_skills: list[str] = Field(default_factory=list)
    bucket: Literal["tool_call", "state_change", "agent_behavior"]
    gold: list[Action] = Field(min_length=1)
    check: ToolCallCheck | StateChangeCheck | AgentBehaviorCheck
    required_memory_ids: list[str] = Field(default_factory=list)
    required_skill_id: str | None = None
    user_script: list[UserAnswer] = Field(default_factory=list)
    events: list[ScenarioEvent] = Field(default_factory=list)
    tags: dict[str, str] = Field(default_factory=dict)

    @field_validator("check", mode="before")
    @classmethod
    def _check_for_bucket(cls, value: Any, info: ValidationInfo) -> Any:
        """The bucket decides how ``check`` is read, so a spec can never be parsed as another bucket's."""
        bucket = info.data.get("bucket")
        if bucket not in _CHECKS or not isinstance(value, dict):
            return value
        try:
            return _CHECKS[bucket].model_validate(value)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"]) or "(check)"
            raise ValueError(f"{where}: {first['msg']} (as a {bucket} check)") from None

    @model_validator(mode="after")
    def _consistent(self) -> Task:
        if self.l2 not in L2:
            raise ValueError(f"l2: unknown level-2 category {self.l2!r}")
        if self.domain not in DOMAINS or domain_of(self.l2) != self.domain:
            raise ValueError(f"domain: {self.domain!r} does not contain level-2 {self.l2!r}")
        if self.gold[-1].name != "finish":
            raise ValueError("gold: the reference trajectory must end with finish")
        if self.category == "skill" and not self.required_skill_id:
            raise ValueError("required_skill_id: a skill task names its gold skill")
        if self.required_skill_id and self.required_skill_id not in self.candidate_skills:
            raise ValueError("candidate_skills: the gold skill's loader must be offered")
        return self

    @property
    def noop_ok(self) -> bool:
        """True when doing nothing is the correct behaviour (e.g. a policy forbids the request)."""
        return self.tags.get("expected") == "noop"


class TaskFormatError(ValueError):
    """A task file that cannot be used; the message names the file, line, task and field."""


def parse_task(line: str, where: str) -> Task:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise TaskFormatError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
    task_id = data.get("task_id", "?") if isinstance(data, dict) else "?"
    try:
        return Task.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        field = ".".join(str(p) for p in first["loc"]) or "(record)"
        raise TaskFormatError(
            f"{where}: task {task_id}: field {field}: {first['msg']} ({exc.error_count()} problem(s))"
        ) from exc


def load_tasks(path: Path) -> list[Task]:
    """All tasks of a JSONL file, validated; duplicate ids are an error."""
    tasks: list[Task] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            task = parse_task(line, f"{path}:{number}")
            if task.task_id in seen:
                raise TaskFormatError(f"{path}:{number}: task {task.task_id}: field task_id: duplicate id")
            seen.add(task.task_id)
            tasks.append(task)
    return tasks


def dump_task(task: Task) -> str:
    """One canonical JSONL line (sorted keys), so generated files regenerate byte for byte."""
    return json.dumps(task.model_dump(mode="json", exclude_defaults=True), ensure_ascii=False, sort_keys=True)
