"""Task families and the build of one task: a family drafts a task on a persona world, the build
replays the draft's gold on a fresh episode, fills in the ids the replay created, retrieves A0 and
validates the record.

A *family* is a function ``(g: Gen) -> Draft`` registered with ``@family``. It reads the persona's
world through ``g`` (to pick real entities), draws everything else from ``g.rng`` and phrases the
query from several templates. It never writes ids the episode will create: it refers to an earlier
gold step's result with ``g.ref(step, "path")`` (``"{{gold2.event_id}}"``), which the build replaces
with the value the replay produced (``{{stepN.…}}`` is left alone: the monitor agent's plans use it).
A gold step may fail only with an ErrorType the draft lists in ``recovers``; anything else is a broken
family and stops the build with the family's name.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, select

import sandbox.domains  # noqa: F401  (registers every tool)
from sandbox import db
from sandbox.episode import Episode, context_text
from sandbox.errors import ErrorType
from sandbox.executor import Envelope
from sandbox.generator import choices, gates
from sandbox.generator.answers import ASKS_FACTS, complete_check, delegated_question
from sandbox.generator.draft import Draft
from sandbox.personas import PERSONAS
from sandbox.retrieval import action_space, hidden_tools, tools_called
from sandbox.schema import metadata
from sandbox.subagents import read_path
from sandbox.tasks import CATEGORIES, Task
from sandbox.taxonomy import L2, domain_of
from sandbox.world import world_image

FRICTIONS = (
    "missing_argument",
    "ambiguous_entity",
    "permission_denied",
    "service_disabled",
    "network_unavailable",
    "authentication_required",
    "duplicate_entity",
    "changed_state",
    "confirmation_required",
    "not_found",
    "time_conflict",
    "resource_unavailable",
    "limit_exceeded",
    "invalid_value",
    "unsupported_operation",
    "policy_blocked",
    "sub_agent_failed",
)


class BuildError(RuntimeError):
    """A family produced a task that cannot be used; the message names the family and the reason."""


Builder = Callable[["Gen"], Draft]


@dataclass(frozen=True)
class Family:
    name: str
    category: str
    l2: str | None  # None: the draft names its level-2 category
    build: Builder
    tags: dict[str, str]


FAMILIES: dict[str, Family] = {}
FAMILIES_PACKAGE = "sandbox.generator.families"


def family_group(module: str) -> str:
    """The first part of a family's name ``<group>.<function>``: the module directly under ``FAMILIES_PACKAGE``
    that declares it, or the package there whose modules split one group by concern (every family of
    ``basic_travel/flights.py`` is ``basic_travel.*``). Splitting a group's module into a package so keeps each
    family's name, and with it the allocation, every task id and every draft."""
    if not module.startswith(f"{FAMILIES_PACKAGE}."):
        raise ValueError(f"family module {module} is not under {FAMILIES_PACKAGE}")
    return module.removeprefix(f"{FAMILIES_PACKAGE}.").split(".")[0]


def family(category: str, l2: str | None = None, **tags: str) -> Callable[[Builder], Builder]:
    """Register a task family. ``tags`` classify it for the allocation (pattern, friction, memory type...)."""
    if category not in CATEGORIES:
        raise ValueError(f"family category {category!r} is not one of {CATEGORIES}")
    if l2 is not None and l2 not in L2:
        raise ValueError(f"family level-2 {l2!r} is unknown")

    def register(fn: Builder) -> Builder:
        name = f"{family_group(fn.__module__)}.{fn.__name__}"
        if name in FAMILIES:
            raise ValueError(f"family {name} is registered twice")
        FAMILIES[name] = Family(name, category, l2, fn, dict(tags))
        return fn

    return register


# ---- what a family sees ---------------------------------------------------------------------------------------

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@functools.cache
def _world(persona_id: str) -> Connection:
    """A read-only view of a persona's world, shared by every draft on that persona."""
    return db.open_database(world_image(persona_id))


class Gen:
    """A family's view of one persona's world, with a seeded random stream and phrasing helpers."""

    def __init__(self, persona_id: str, rng: random.Random) -> None:
        self.persona = PERSONAS[persona_id]
        self.rng = rng
        self.conn = _world(persona_id)
        self.now = dt.datetime.fromisoformat(self.persona.now)

    # -- the world --
    def rows(
        self, table: str, where: dict[str, Any] | None = None, order_by: str | None = None
    ) -> list[dict[str, Any]]:
        """Rows of a world table matching equality filters, in primary-key order (or ``order_by``)."""
        t = metadata.tables[table]
        query = select(t)
        if where:
            query = query.where(and_(*(t.c[k] == v for k, v in where.items())))
        query = query.order_by(t.c[order_by] if order_by else t.primary_key.columns.values()[0])
        return [dict(r._mapping) for r in self.conn.execute(query)]

    def one(
        self, table: str, where: dict[str, Any] | None = None, *, filter: Callable[[dict[str, Any]], bool] | None = None
    ) -> dict[str, Any]:
        """A random row matching the filters; BuildError (the builder tries another persona) if none."""
        found = [r for r in self.rows(table, where) if filter is None or filter(r)]
        if not found:
            raise BuildError(f"no {table} row matches {where or ''} on {self.persona.persona_id}")
        return self.rng.choice(found)

    def some(
        self,
        table: str,
        k: int,
        where: dict[str, Any] | None = None,
        *,
        filter: Callable[[dict[str, Any]], bool] | None = None,
    ) -> list[dict[str, Any]]:
        found = [r for r in self.rows(table, where) if filter is None or filter(r)]
        if len(found) < k:
            raise BuildError(f"fewer than {k} {table} rows match {where or ''} on {self.persona.persona_id}")
        return self.rng.sample(found, k)

    def setting(self, key: str) -> str | None:
        found = self.rows("device_settings", {"key": key})
        return found[0]["value"] if found else None

    # -- randomness and phrasing --
    def pick(self, options: Iterable[Any]) -> Any:
        return self.rng.choice(list(options))

    def say(self, *templates: str, **fields: Any) -> str:
        """One of the paraphrase templates, filled; the first letter is capitalised."""
        text = self.rng.choice(templates).format(**fields)
        return text[:1].upper() + text[1:]

    def date(self, days: int) -> str:
        """The date ``days`` after the persona's frozen today, YYYY-MM-DD."""
        return (self.now + dt.timedelta(days=days)).strftime("%Y-%m-%d")

    def weekday(self, days: int) -> str:
        return WEEKDAYS[(self.now + dt.timedelta(days=days)).weekday()]

    def when(self, days: int) -> str:
        """How a user names that day: today, tomorrow, on Friday, or the date."""
        if days == 0:
            return "today"
        if days == 1:
            return "tomorrow"
        if days < 7:
            return f"on {self.weekday(days).capitalize()}"
        return f"on {self.date(days)}"

    @staticmethod
    def ref(step: int, path: str) -> str:
        """An argument taken from gold step ``step``'s Payload (1-based), filled in by the build."""
        return f"{{{{gold{step}.{path}}}}}"


def act(tool: str, /, **arguments: Any) -> dict[str, Any]:
    return {"name": tool, "arguments": arguments}


def done(answer: str, **extra: Any) -> dict[str, Any]:
    return act("finish", answer=answer, **extra)


# ---- the build of one task -------------------------------------------------------------------------------------

_REF = re.compile(r"\{\{gold(\d+)\.([^}]+)\}\}")


def resolve(value: Any, payloads: list[Any]) -> Any:
    """Replace ``{{goldN.path}}`` references with the values from the replay's payloads."""
    if isinstance(value, dict):
        return {k: resolve(v, payloads) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, payloads) for v in value]
    if isinstance(value, str) and (whole := _REF.fullmatch(value)):
        n = int(whole.group(1))
        if not 0 < n <= len(payloads):
            raise BuildError(f"reference {value} points at step {n}, which has not run yet")
        found = read_path(payloads[n - 1], whole.group(2))
        if found is None:
            raise BuildError(f"reference {value}: step {n}'s payload has no {whole.group(2)}")
        return found
    if isinstance(value, str) and _REF.search(value):
        return _REF.sub(lambda m: str(resolve(m.group(0), payloads)), value)
    return value


@dataclass(frozen=True)
class Replayed:
    gold: list[dict[str, Any]]
    errors: list[str]  # ErrorTypes the gold hit, in order
    memories: set[str]  # ids of the records the gold's successful search_memory calls returned
    results: list[Envelope]  # every gold step's envelope, as the model reads it
    context: str  # the phone's context as the system message states it


def replay(task: Task) -> Replayed:
    """Run the gold (references resolved step by step) with every gold tool visible."""
    gold: list[dict[str, Any]] = []
    payloads: list[Any] = []
    errors: list[str] = []
    memories: set[str] = set()
    results: list[Envelope] = []
    with Episode(task) as episode:
        for n, action in enumerate(task.gold, start=1):
            arguments = resolve(action.arguments, payloads)
            if episode.done:
                raise BuildError(f"gold step {n} ({action.name}) comes after the episode ended")
            result = episode.step(action.name, arguments)
            gold.append({"name": action.name, "arguments": arguments})
            results.append(result)
            payloads.append(result["Payload"])
            if result["Status"] == "success" and action.name == "search_memory":
                memories |= {r.get("memory_id") for r in result["Payload"].get("records", []) if isinstance(r, dict)}  # type: ignore[misc]  # memory ids
            if result["Status"] != "success":
                errors.append(str(result["ErrorType"]))
                if result["ErrorType"] == ErrorType.INTERNAL_ERROR:
                    raise BuildError(
                        f"gold step {n} {action.name}({json.dumps(arguments)}) failed: "
                        f"{result['ErrorType']}: {result['Payload'].get('message')}"
                    )
        if not episode.finished:
            raise BuildError("the gold did not finish successfully")
        if episode.executor.internal_errors:
            raise BuildError(f"sandbox internal errors: {episode.executor.internal_errors}")
        context = context_text(episode.context)
    return Replayed(gold, errors, memories, results, context)


def build_task(fam: Family, draft: Draft, task_id: str, persona_id: str) -> Task:
    """Turn a draft into a validated task whose gold is proven to run as intended."""
    l2 = draft.l2 or fam.l2
    if l2 is None:
        raise BuildError("neither the family nor the draft names a level-2 category")
    hidden = hidden_tools(draft.skills)
    gold_tools = [name for g in draft.gold for name in tools_called(g["name"], g["arguments"])]
    record: dict[str, Any] = {
        "task_id": task_id,
        "category": fam.category,
        "domain": domain_of(l2),
        "l2": l2,
        "query": draft.query,
        "history": draft.history,
        "initial_state": {"world": persona_id, "patches": draft.patches},
        "candidate_tools": sorted(set(gold_tools) - hidden),
        "candidate_skills": list(draft.skills),
        # the probe only replays the gold; the draft's check joins the task once the replay succeeded
        "bucket": draft.bucket,
        "gold": draft.gold,
        "check": {"calls": [{"tool": "finish"}]} if draft.bucket == "tool_call" else {},
        "required_memory_ids": draft.memory_ids,
        "required_skill_id": draft.skill,
        "user_script": draft.script,
        "events": draft.events,
        "tags": {},
    }
    probe = Task.model_validate(record)
    replayed = replay(probe)
    unexpected = sorted(set(replayed.errors) - {str(e) for e in draft.recovers})
    if unexpected:
        steps = [f"{g['name']}" for g in replayed.gold]
        raise BuildError(f"gold hit {', '.join(unexpected)} which the draft does not recover from (steps {steps})")
    unseen = sorted(set(draft.memory_ids) - replayed.memories)
    if unseen:
        raise BuildError(f"the gold's memory searches never return the required records {', '.join(unseen)}")
    missing = sorted({str(e) for e in draft.recovers} - set(replayed.errors))
    if missing:
        raise BuildError(f"the draft says it recovers from {', '.join(missing)}, but the gold never hit it")
    history = [m["content"] for m in draft.history]
    try:
        space = action_space(draft.query, history, gold_tools, hidden)
    except ValueError as exc:  # the query's retrieval cannot make room for every gold tool: another draft
        raise BuildError(f"retrieval: {exc}") from None
    tags = {**fam.tags, **draft.tags, "recall_at_15": f"{space.recall:.2f}"}
    if delegated_question(draft.query, replayed.gold, replayed.results):
        tags[ASKS_FACTS[0]] = ASKS_FACTS[1]  # its answer is checked (sandbox/generator/answers.py)
    if replayed.errors:
        tags["recovers"] = ",".join(dict.fromkeys(replayed.errors))
    if draft.skills:
        loaded = [g["arguments"].get("skill_id") for g in replayed.gold if g["name"] == "load_skill"]
        tags["sor_skills"] = ",".join(s for s in dict.fromkeys(loaded) if s)
    if _REF.search(json.dumps(draft.check)):
        raise BuildError("a check may not refer to gold steps; state the values it expects")
    task = Task.model_validate(
        {
            **record,
            "candidate_tools": space.tools,
            "gold": replayed.gold,
            "tags": tags,
            "check": choices.relax(
                complete_check(draft, replayed.gold, replayed.results, persona_id),
                choices.free_choices([replayed.context, *history, draft.query], replayed.gold, replayed.results),
            ),
        }
    )
    gates.COLLECTED.add_suite_wide()
    gates.COLLECTED.add(gates.task_violations(fam.name, task, replayed.context, replayed.results))
    return task


def seed_for(*parts: object) -> random.Random:
    """A random stream named by its parts (stable across Python versions and machines)."""
    return random.Random(":".join(str(p) for p in parts))
