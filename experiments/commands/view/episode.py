"""One episode gathered for showing, the same for the terminal and the HTML pages: the verdict with its
reasons split into what was expected and what came closest, how the episode ended, what the model read
first (system message, H0, query: rebuilt from the task file, since trajectories keep only what changes)
and the tools it was offered, each step with the model's own words (the raw reply before parsing, its
reasoning, the format error and what the model was told), and the state diff as rows added, changed and
deleted."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from experiments.commands.config import CONF_DIR
from experiments.results.store import file_sha256
from planners.messages import dumps, system_message
from sandbox.conditions import action_space_for, expand, withheld_for
from sandbox.episode import FORMAT_ERROR_STEP, Episode
from sandbox.suite import TASK_DIR, load_split
from sandbox.tasks import Task

SUMMARY_CHARS = 140  # of an envelope's one-line summary


@cache
def _split_tasks(split: str) -> tuple[dict[str, Task], str] | None:
    """The split's tasks by id and its task file's sha256 (None: the split is not configured here)."""
    path = Path(CONF_DIR) / "split" / f"{split}.yaml"
    if not path.is_file():
        return None
    file = str(OmegaConf.load(path).file)
    return {t.task_id: t for t in load_split(file)}, file_sha256(TASK_DIR / file)


@cache
def _setup(split: str, task_id: str, condition: str, key: str) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """The phone's context the system message states and the tools offered at the first step (as the
    planner received them), read from a fresh episode of the task under the condition it ran under; the
    third item says why the tools are missing ('' when they are not)."""
    import sandbox.domains  # noqa: F401  (registers every tool, so the offered tools' schemas can be built)

    split_tasks = _split_tasks(split)
    assert split_tasks is not None
    task = split_tasks[0][task_id]
    try:
        runs_under = next(c for k, _, c in expand([task], condition) if k == key)
        tools, skills = action_space_for(task, runs_under)
    except (StopIteration, ValueError, OSError) as exc:
        with Episode(task) as episode:
            return episode.context, [], f"the offered tools cannot be rebuilt here ({exc or 'unknown key'})"
    with Episode(task, candidate_tools=tools, candidate_skills=skills, withheld=withheld_for(runs_under)) as episode:
        return episode.context, episode.tool_schemas(), ""


@dataclass(frozen=True)
class Prompt:
    """What the model read before its first call, and the tools it was offered then; ``notes`` say why
    something is missing or may differ from what the episode saw."""

    system: str | None
    history: list[dict[str, Any]]
    query: str | None
    tools: list[dict[str, Any]]
    notes: list[str]


def prompt(row: dict[str, Any]) -> Prompt:
    split = _split_tasks(row["split"])
    if split is None:
        return Prompt(
            None, [], None, [], [f"split {row['split']!r} is not configured here: no system message or query"]
        )
    tasks, sha256 = split
    task = tasks.get(row["task_id"])
    if task is None:
        return Prompt(None, [], None, [], [f"task {row['task_id']} is no longer in split {row['split']!r}"])
    notes = []
    if row.get("dataset_hash") and row["dataset_hash"] != sha256:
        notes.append("the task file changed since this episode ran: the system message, query and tools are today's")
    context, tools, missing = _setup(row["split"], task.task_id, row["condition"], row["key"])
    if missing:
        notes.append(missing)
    return Prompt(system_message(context), [m.model_dump() for m in task.history], task.query, tools, notes)


# ---- the verdict ---------------------------------------------------------------------------------------

_FOUND = re.compile(
    r"; (?=closest |no row was |no updated row matches|the row was updated but |it also changed )"
    r"|: (?=never called successfully|wrong arguments at step )|, (?=got )"
)


def reason_parts(reason: str) -> tuple[str, str]:
    """A checker's reason as (what was expected, what was found instead: the closest row or call, or that
    nothing was); ('the reason', '') when it is not of that shape (a gate, an unexpected write)."""
    found = _FOUND.search(reason)
    return (reason[: found.start()], reason[found.end() :]) if found else (reason, "")


def gate(value: bool | None) -> str:
    return {None: "not required", True: "pass", False: "fail"}[value]


def ending(row: dict[str, Any], trajectory: dict[str, Any]) -> str:
    """How the episode ended, with the server's or the infrastructure's words where it did not finish."""
    text = f"{row['termination']} after {row['steps']} step(s)"
    why = trajectory.get("infra_error") or trajectory.get("context_overflow")
    return f"{text}: {why}" if why else text


# ---- the steps -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StepView:
    """One step as shown. ``said``, ``raw_calls`` and ``reasoning`` are the model's reply as received (a
    model planner's; None and [] for a reference planner), ``told`` what a format error's envelope told it."""

    index: int
    name: str
    call: str | None  # name(arguments) as executed; None for a format error
    envelope: dict[str, Any]
    ok: bool
    summary: str  # the envelope in one line
    spent: str  # tokens, latency, finish reason, retries
    said: str | None
    raw_calls: list[str]
    reasoning: str | None
    clipped: bool
    recovered: bool  # the call was read from the reply's text, not its tool_calls
    format_error: str | None
    told: str | None


def envelope_summary(envelope: dict[str, Any]) -> str:
    """``success: key: value, list: [3 items]…`` or ``error ErrorType: message``, one short line."""
    payload = envelope.get("Payload")
    if envelope.get("Status") != "success":
        kind = envelope.get("ErrorType") or (payload or {}).get("format_error") or "error"
        message = (payload or {}).get("message") if isinstance(payload, dict) else None
        text = f"error {kind}: {message if isinstance(message, str) else dumps(payload)}"
    elif isinstance(payload, dict):
        text = "success: " + ", ".join(f"{k}: {_brief(v)}" for k, v in payload.items())
    else:
        text = f"success: {_brief(payload)}"
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def _brief(value: Any) -> str:
    if isinstance(value, list):
        return f"[{len(value)} item{'s' if len(value) != 1 else ''}]"
    if isinstance(value, dict):
        return "{" + ", ".join(list(value)[:4]) + (", …" if len(value) > 4 else "") + "}"
    text = dumps(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _spent(usage: dict[str, Any]) -> str:
    parts = [
        f"{usage[k]} {label}"
        for k, label in (
            ("prompt_tokens", "prompt"),
            ("completion_tokens", "completion"),
            ("cached_prompt_tokens", "cached"),
        )
        if usage.get(k) is not None
    ]
    if usage.get("planner_latency_s") is not None:
        parts.append(f"{usage['planner_latency_s']:.3f} s")
    if usage.get("finish_reason"):
        parts.append(f"finish_reason {usage['finish_reason']}")
    if usage.get("retries"):
        parts.append(f"{usage['retries']} retr{'y' if usage['retries'] == 1 else 'ies'}")
    return ", ".join(parts)


def step_view(step: dict[str, Any]) -> StepView:
    usage = step.get("planner") or {}
    raw = usage.get("raw_reply") if isinstance(usage.get("raw_reply"), dict) else None
    failed = step["name"] == FORMAT_ERROR_STEP
    said = raw.get("content") if raw else None
    if failed and not isinstance(said, str):  # no raw reply recorded: the text the episode kept
        said = step["arguments"] if isinstance(step["arguments"], str) else dumps(step["arguments"])
    reasoning = (raw.get("reasoning_content") or raw.get("reasoning")) if raw else None
    envelope = step["envelope"]
    payload = envelope.get("Payload") if isinstance(envelope.get("Payload"), dict) else {}
    return StepView(
        index=step["index"],
        name=step["name"],
        call=None if failed else f"{step['name']}({dumps(step['arguments'])})",
        envelope=envelope,
        ok=envelope.get("Status") == "success",
        summary=envelope_summary(envelope),
        spent=_spent(usage),
        said=said if isinstance(said, str) and said.strip() else None,
        raw_calls=[_raw_call(c) for c in (raw or {}).get("tool_calls") or [] if isinstance(c, dict)],
        reasoning=reasoning if isinstance(reasoning, str) and reasoning.strip() else None,
        clipped=bool(raw and raw.get("clipped")),
        recovered=bool(usage.get("recovered_from_content")),
        format_error=usage.get("format_error") if failed else None,
        told=payload.get("message") if failed else None,
    )


def _raw_call(call: dict[str, Any]) -> str:
    """A tool call as the server sent it: the name and the arguments string before any parsing."""
    function = call.get("function")
    if not isinstance(function, dict):
        return dumps(call)
    arguments = function.get("arguments")
    return f"{function.get('name')}({arguments if isinstance(arguments, str) else dumps(arguments)})"


# ---- the state diff --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiffRow:
    change: str  # added | changed | deleted
    values: dict[str, Any]  # added, deleted: the row; changed: its key and the new values of what changed
    before: dict[str, Any]  # changed: the old values of what changed


@dataclass(frozen=True)
class DiffTable:
    table: str
    columns: list[str]
    rows: list[DiffRow]


def diff_tables(diff: dict[str, Any]) -> list[DiffTable]:
    """D_T - D_0 per table; a changed row keeps its key (its first column) and the columns that changed."""
    tables = []
    for table, change in diff.items():
        rows = [DiffRow("added", r, {}) for r in change["inserted"]]
        for update in change["updated"]:
            before, after = update["before"], update["after"]
            key = next(iter(before), None)
            changed = [k for k in dict.fromkeys([*before, *after]) if before.get(k) != after.get(k)]
            values = {**({key: before[key]} if key is not None else {}), **{k: after.get(k) for k in changed}}
            rows.append(DiffRow("changed", values, {k: before.get(k) for k in changed}))
        rows += [DiffRow("deleted", r, {}) for r in change["deleted"]]
        columns = list(dict.fromkeys(k for r in rows for k in r.values))
        tables.append(DiffTable(table, columns, rows))
    return tables


def cell(value: Any) -> str:
    """A database value as text: strings as they are, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# ---- the episode ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EpisodeView:
    row: dict[str, Any]
    ending: str
    reasons: list[tuple[str, str]]
    prompt: Prompt
    steps: list[StepView]
    diff: list[DiffTable]
    jobs: list[dict[str, Any]]
    internal_errors: list[str]

    @property
    def model(self) -> bool:
        """Whether a model wrote the steps (any step kept a raw reply or is a format error)."""
        return any(s.said or s.raw_calls or s.format_error for s in self.steps)


def gather(row: dict[str, Any], trajectory: dict[str, Any]) -> EpisodeView:
    return EpisodeView(
        row=row,
        ending=ending(row, trajectory),
        reasons=[reason_parts(r) for r in row["reasons"]],
        prompt=prompt(row),
        steps=[step_view(s) for s in trajectory["steps"]],
        diff=diff_tables(trajectory["diff"]),
        jobs=list(trajectory.get("subagent_jobs") or ()),
        internal_errors=list(trajectory.get("internal_errors") or ()),
    )


def search_text(view: EpisodeView, limit: int = 2000) -> str:
    """What the index's search box reads of an episode besides its row: the model's replies and reasoning,
    their first ``limit`` characters."""
    said = " ".join(t for s in view.steps for t in (s.said, s.reasoning, *s.raw_calls, s.format_error) if t)
    return said[:limit]
