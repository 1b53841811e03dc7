"""The suite build's gates: what makes a drafted task unfair to a capable model, found mechanically.

**Unseen ids** (``unseen_id``). A model can only use an entity id it has read. For every gold step,
every entity id in the step's arguments (at any depth) must appear in some text the model was sent
before that step: the phone's context, the dialogue H0, the query, and every earlier gold step's
arguments and result envelope (so ids the model's own earlier calls created count as seen). Tool
schemas do not count: an id printed there as an example is a guess that passes by luck.

An **entity id** is a token of the shape ``<prefix>_<digits>`` (``video_051``, ``photo_album_002``,
``snapshot_101``) where ``<prefix>`` is the generated-id prefix of a table whose primary key is one
text column (``sandbox.executor.id_prefix``: the key column minus ``_id``, or the table's own
``id_prefix``): the shape every seeder and ``new_id`` issues. Tokens are found in string values at
any depth of the arguments, whole or inside longer text; the monitor agent's ``{{stepN.…}}``
placeholders are removed first (they are paths, not ids). Natural keys (app ids such as ``chat``,
setting keys, city names) are not entity ids: a model learns them from the schema's enums and the
query's words.

**Schema examples** (``schema_example``): any entity id printed in an offered tool's schema
(descriptions included) that exists in some persona world; copying the example would pass by luck.

**Skill fit** (``skill_fit``): a model follows a loaded skill's instructions literally, so every step
of a loaded skill that changes something and says no condition (``sandbox.skills.Step``) must be done
by the gold (some successful call of one of its tools that change state): otherwise the instructions
ask for a side effect the task's check penalises. And the job must be the skill's
(``sandbox.skills.suits``): a job whose decisive call several skills offer (a chat message) and that
does none of the skill's every-job steps would follow instructions about something else.

**Confirmation** (``confirmation``): every guarded action (a gold call passing ``confirm=true``:
irreversible, moving money, giving access) follows the confirmation rule of docs/task-format.md: the
gold asks first and the user's answer confirms, and the check requires it (``ask_before`` names the
tool, ``confirmed_by`` the script's confirmations). The request never counts as the confirmation.

**Delegated answers** (``delegated_answer``): a task whose query asks something a sub-agent of the gold
finds out (``answers.delegated_question``) has an answer check, so an invented answer fails where the
callee's passes.

**Free choices** (``free_choice``): a check never pins a required argument whose value nothing the model
read determines (``sandbox.generator.choices``: a time nobody gave, a title in the gold's own words);
the build relaxes such a value to what the task determines (the day, the user's words, any value).

**Ambiguous referents** (``ambiguous_referent``): when a gold lookup by the request's own words (a
``query``, ``name`` or ``title`` argument the query or history says) lists several rows that all match
those words, and a later gold change acts on one of them, the request or the user's scripted answers
must name something of the chosen row that the other candidates lack; otherwise the model must guess.

The query and world lint live in ``sandbox.generator.lint``; this module runs them too, so the build
and ``mobilepa tasks gates`` see every gate through one list of ``Violation``.

In the build, ``build_task`` hands every task's violations (and, once, the schema and world ones) to
``COLLECTED``. Until the families are fixed it only records them, and ``mobilepa tasks build`` prints
the counts; ``MOBILEPA_STRICT_GATES=1`` or ``mobilepa tasks build --strict-gates`` turns the first
violation into a ``GateError`` that stops the build and names the family.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import Column, Connection, Table, Text, select

import sandbox.domains  # noqa: F401  (registers every tool, whose schemas the schema gate reads)
from sandbox import db
from sandbox.executor import id_prefix
from sandbox.generator import STRICT_ENV, choices, evidence, lint
from sandbox.generator.answers import FINDERS, confirmations, delegated_question, guarded_steps
from sandbox.personas import PERSONAS
from sandbox.schema import metadata
from sandbox.skills import SKILLS, suits
from sandbox.tasks import Task
from sandbox.tooling import REGISTRY
from sandbox.world import world_image

GATES = (
    "unseen_id",
    "schema_example",
    "query_lint",
    "world_lint",
    "skill_fit",
    "confirmation",
    "delegated_answer",
    "free_choice",
    "ambiguous_referent",
)


@dataclass(frozen=True)
class Violation:
    """One gate's finding: which gate, where (family, task, 1-based gold step) and the offending id or text."""

    gate: str
    family: str
    task_id: str
    step: int | None
    subject: str
    detail: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        where = f"{self.task_id}" + (f" step {self.step}" if self.step is not None else "")
        return f"{self.gate:<18}{where}: {self.subject!r} {self.detail}"


class GateError(RuntimeError):
    """A gate violation while the gates are strict. Deliberately not a ``BuildError``: the allocation
    loop retries a BuildError on other personas and attempts, which would hide a family's systematic
    bug behind a lucky draft; this stops the build and names the family."""


# ---- entity ids ------------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"(?<![\w])[a-z][a-z0-9_]*_\d+(?![\w])")
_PLACEHOLDER = re.compile(r"\{\{[^}]*\}\}")


def _text_key(table: Table) -> Column[Any] | None:
    """The table's primary key when it is one text column (the tables with generated ids)."""
    keys = list(table.primary_key.columns)
    return keys[0] if len(keys) == 1 and isinstance(keys[0].type, Text) else None


@functools.cache
def id_prefixes() -> frozenset[str]:
    """Every generated-id prefix: one per table keyed by a single text column."""
    return frozenset(id_prefix(t) for t in metadata.tables.values() if _text_key(t) is not None)


def ids_in_text(text: str) -> list[str]:
    """The entity ids in a text, in order of appearance (placeholders removed)."""
    prefixes = id_prefixes()
    return [t for t in _TOKEN.findall(_PLACEHOLDER.sub(" ", text)) if t.rsplit("_", 1)[0] in prefixes]


def ids_in_value(value: Any) -> list[str]:
    """The entity ids in every string of a JSON value, at any depth, in order, each once."""
    found: dict[str, None] = {}
    for text in _strings(value):
        found.update(dict.fromkeys(ids_in_text(text)))
    return list(found)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _seen(text: str) -> set[str]:
    """Every id-shaped token of a text the model was sent (no prefix filter: seeing is seeing)."""
    return set(_TOKEN.findall(text))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


# ---- the unseen-id gate ----------------------------------------------------------------------------------------


def unseen_ids(
    family: str, task_id: str, prompt: Sequence[str], gold: Sequence[dict[str, Any]], results: Sequence[Any]
) -> list[Violation]:
    """Gold steps whose arguments hold an entity id the model had not been sent before that step.

    ``prompt`` is what the model reads before its first call (the context text, H0's messages, the
    query); ``gold`` the resolved gold actions (``name``, ``arguments``) and ``results`` their envelopes."""
    if len(results) != len(gold):
        raise ValueError(f"{task_id}: {len(gold)} gold steps but {len(results)} results")
    seen: set[str] = set()
    for text in prompt:
        seen |= _seen(text)
    found: list[Violation] = []
    for n, (action, result) in enumerate(zip(gold, results, strict=True), start=1):
        for unseen in (i for i in ids_in_value(action["arguments"]) if i not in seen):
            found.append(
                Violation(
                    "unseen_id",
                    family,
                    task_id,
                    n,
                    unseen,
                    f"in {action['name']}'s arguments, never sent to the model before this step",
                )
            )
        seen |= _seen(_dumps(action["arguments"])) | _seen(_dumps(result))
    return found


# ---- the schema-example gate ----------------------------------------------------------------------------------

SCHEMAS = "(tool schemas)"  # the family named by a schema violation
WORLDS = "(worlds)"  # the family named by a violation of a persona world itself


@functools.cache
def world_ids() -> frozenset[str]:
    """Every value of a single-text-column primary key in some persona world."""
    return frozenset().union(*(evidence.world_ids(persona) for persona in PERSONAS))


def schema_texts() -> dict[str, str]:
    """What a model reads about each tool: its OpenAI schema (descriptions included), and each skill's
    description, which ``load_skill``'s schema lists when the skill is offered."""
    texts = {name: _dumps(spec.openai_schema()) for name, spec in sorted(REGISTRY.items())}
    texts |= {f"load_skill ({sid})": skill.description for sid, skill in sorted(SKILLS.items())}
    return texts


@functools.cache
def schema_violations() -> tuple[Violation, ...]:
    """Entity ids printed in a tool's schema that exist in some world (a copied example passes by luck)."""
    real = world_ids()
    return tuple(
        Violation(
            "schema_example",
            SCHEMAS,
            tool,
            None,
            i,
            "is an example in the schema and an id in "
            "some persona world; use an id no world has, or say which tool gives the id",
        )
        for tool, text in schema_texts().items()
        for i in dict.fromkeys(ids_in_text(text))
        if i in real
    )


# ---- lint --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class World:
    """What the world lint reads of a persona world: its now, memory records and contacts."""

    now: dt.datetime
    memories: tuple[dict[str, Any], ...]
    contacts: tuple[dict[str, Any], ...]


@functools.cache
def _world(persona: str) -> Connection:
    return db.open_database(world_image(persona))


@functools.cache
def world(persona: str) -> World:
    if persona not in PERSONAS:
        raise ValueError(f"unknown persona world {persona!r}")
    conn = _world(persona)
    rows = [
        tuple(dict(r._mapping) for r in conn.execute(select(metadata.tables[name])))
        for name in ("memory_records", "contacts")
    ]
    return World(dt.datetime.fromisoformat(PERSONAS[persona].now), rows[0], rows[1])


@functools.cache
def world_violations() -> tuple[Violation, ...]:
    """The world lint over every persona world as seeded (before any task's patches)."""
    return tuple(
        _as_violation(f, "world_lint", WORLDS, persona)
        for persona in sorted(PERSONAS)
        for f in lint.world_findings(world(persona).now, list(world(persona).memories), list(world(persona).contacts))
    )


def _as_violation(f: lint.Finding, gate: str, family: str, task_id: str, step: int | None = None) -> Violation:
    return Violation(gate, family, task_id, step, f.subject, f"{f.rule}: {f.detail}")


def query_violations(family: str, task: Task) -> list[Violation]:
    """The query lint on what the user says: the query and H0's user turns."""
    now = world(task.initial_state.world).now
    texts = [task.query, *(m.content for m in task.history if m.role == "user")]
    return [
        _as_violation(f, "query_lint", family, task.task_id) for text in texts for f in lint.query_findings(text, now)
    ]


def task_world_violations(family: str, task: Task) -> list[Violation]:
    """The world lint on what a task adds to its world: inserted memory records dated after now,
    relationships its inserted records or contacts contradict, and stale temporary facts it requires."""
    w = world(task.initial_state.world)
    inserted = task.initial_state.patches.insert
    memories, contacts = inserted.get("memory_records", []), inserted.get("contacts", [])
    found = lint.memory_after_now(memories, w.now)
    if memories or contacts:
        before = set(lint.relationships(list(w.memories), list(w.contacts)))
        found += [f for f in lint.relationships([*w.memories, *memories], [*w.contacts, *contacts]) if f not in before]
    records = {str(r["memory_id"]): r for r in (*w.memories, *memories)}
    found += [
        f for mid in task.required_memory_ids if mid in records and (f := lint.stale_temporary(records[mid], w.now))
    ]
    return [_as_violation(f, "world_lint", family, task.task_id) for f in found]


# ---- the skill-fit gate -----------------------------------------------------------------------------------------


def unfit_skill_steps(
    family: str, task_id: str, gold: Sequence[dict[str, Any]], results: Sequence[Any]
) -> list[Violation]:
    """Unconditional state-changing steps of the skills the gold loads that the gold never does."""
    done = {a["name"] for a, r in zip(gold, results, strict=True) if r.get("Status") == "success"}
    loaded = [str(a["arguments"].get("skill_id")) for a in gold if a["name"] == "load_skill"]
    owned: dict[str, list[str]] = {}  # each skill's calls: a call belongs to the latest loaded skill offering it
    for a, r in zip(gold, results, strict=True):
        if a["name"] == "load_skill":
            owned.setdefault(str(a["arguments"].get("skill_id")), [])
        elif r.get("Status") == "success":
            owner = next((s for s in reversed(owned) if s in SKILLS and a["name"] in SKILLS[s].tools), None)
            if owner is not None:
                owned[owner].append(a["name"])
    unsuited = [
        Violation(
            "skill_fit",
            family,
            task_id,
            None,
            skill_id,
            f"is loaded for a job whose decisive call {decisive} other skills offer too, and the gold does none of "
            "its steps for every job: its instructions are about something else; offer a skill whose steps fit",
        )
        for skill_id in dict.fromkeys(loaded)
        if skill_id in SKILLS and (mine := owned.get(skill_id)) and not suits(skill_id, decisive := mine[-1], done)
    ]
    return unsuited + [
        Violation(
            "skill_fit",
            family,
            task_id,
            None,
            step.text,
            f"is a step of {skill_id} on every job, but this job's gold does not do it: give the step a "
            "condition, or offer a skill whose steps fit the job",
        )
        for skill_id in loaded
        if skill_id in SKILLS
        for step in SKILLS[skill_id].steps
        if step.when is None
        and (changes := [t for t in step.tools if REGISTRY[t].mutating])
        and not set(changes) & done
    ]


# ---- the confirmation gate -------------------------------------------------------------------------------------


def unconfirmed_guards(family: str, task: Task, results: Sequence[Any]) -> list[Violation]:
    """Guarded gold actions taken before the user confirmed one, or that the check lets a model take unasked."""
    gold: list[dict[str, Any]] = [{"name": a.name, "arguments": a.arguments} for a in task.gold]
    confirming = set(confirmations([a.model_dump() for a in task.user_script]))
    state = task.check if task.bucket == "state_change" else getattr(task.check, "state", None)
    required = set(getattr(state, "ask_before", ()))
    found: list[Violation] = []
    for n in guarded_steps(gold):
        tool = gold[n]["name"]
        asked = any(
            a["name"] == "ask_user" and (r.get("Payload") or {}).get("answer") in confirming
            for a, r in zip(gold[:n], results[:n])
        )
        if not asked:
            problem = "sets confirm=true before the user confirmed"
        elif results[n].get("Status") == "success" and tool not in required:
            problem = "acts unasked as far as the check goes (no ask_before)"
        else:
            continue
        found.append(Violation("confirmation", family, task.task_id, n + 1, tool, problem))
    return found


def unchecked_delegation(family: str, task: Task, results: Sequence[Any]) -> list[Violation]:
    """A delegated question whose check never reads the model's answer."""
    gold = [{"name": a.name, "arguments": a.arguments} for a in task.gold]
    if not delegated_question(task.query, gold, results) or getattr(task.check, "answer", None):
        return []
    agent = next(a["name"] for a in gold if a["name"] in FINDERS)
    problem = "finds out what the user asked; no answer check"
    return [Violation("delegated_answer", family, task.task_id, None, agent, problem)]


def pinned_free_choices(family: str, task: Task, prompt: Sequence[str], results: Sequence[Any]) -> list[Violation]:
    """Required arguments the planner chooses freely whose chosen value the check still expects exactly."""
    gold = [{"name": a.name, "arguments": a.arguments} for a in task.gold]
    check = task.check.model_dump(exclude_defaults=True)
    return [
        Violation(
            "free_choice",
            family,
            task.task_id,
            c.step,
            f"{c.tool}.{c.argument}={c.value!r}",
            "is a choice of the planner's own (nothing it read states it), but the check pins it",
        )
        for c in choices.free_choices(prompt, gold, results)
        if choices.pinned(check, c.value)
    ]


_LOOKUP_ARGS = ("query", "name", "title")
# words that pick one row of several by an order the rows carry (dates, distances, prices)
_ORDERING = re.compile(
    r"\b(?:latest|newest|most recent|recent|last|next|upcoming|first|earliest|oldest|nearest|closest|cheapest)\b"
)
_GONE = frozenset({"superseded", "deleted", "cancelled", "canceled", "archived", "expired"})
_ISO = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}))?")
_MARK_WORD = re.compile(r"[a-z0-9][a-z0-9'+.-]*[a-z0-9+]|[a-z0-9]")


def _rows_with(value: Any, entity: str) -> tuple[str, list[dict[str, Any]]] | None:
    """The key and the list of rows (at any depth of a result) in which one row holds ``entity``."""
    if isinstance(value, dict):
        for v in value.values():
            if hit := _rows_with(v, entity):
                return hit
    elif isinstance(value, list):
        rows = [r for r in value if isinstance(r, dict)]
        for r in rows:
            key = next((k for k, v in r.items() if v == entity), None)
            if key is not None:
                return key, rows
        for v in value:
            if hit := _rows_with(v, entity):
                return hit
    return None


def _marks(row: dict[str, Any], today: dt.date) -> set[str]:
    """How a request could name a row: its strings and their words, its numbers, and for a date or time
    its date, time, weekday and "today"/"tomorrow" (all lower-cased)."""
    found: set[str] = set()
    for s in _strings(row):
        found |= {s.lower(), *_MARK_WORD.findall(s.lower())}
        if m := _ISO.match(s):
            day = dt.date.fromisoformat(m.group(1))
            found |= {m.group(1), day.strftime("%A").lower(), *([m.group(2)] if m.group(2) else [])}
            found |= {"today"} if day == today else {"tomorrow"} if day == today + dt.timedelta(days=1) else set()
    found |= {str(v) for v in row.values() if isinstance(v, int | float) and not isinstance(v, bool)}
    return found


def _says(said: str, mark: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(mark)}(?![\w])", said) is not None


def _name_words(row: dict[str, Any], said: str) -> set[str]:
    """The words of a row's name or title that the request does not say."""
    name = str(row.get("title") or row.get("name") or "").lower()
    return {w for w in _MARK_WORD.findall(name) if not _says(said, w)}


def ambiguous_referents(family: str, task: Task, results: Sequence[Any], context: str = "") -> list[Violation]:
    """Gold changes on a row that a lookup by the request's words could not tell from its siblings
    (``context``: the phone's context the model is sent, which says where the user is)."""
    request = " ".join([*(m.content for m in task.history), task.query]).lower()
    if _ORDERING.search(request):
        return []
    said = f"{context.lower()} {request}"
    today = dt.date.fromisoformat(PERSONAS[task.initial_state.world].now[:10])
    gold: list[dict[str, Any]] = [{"name": a.name, "arguments": a.arguments} for a in task.gold]
    found: list[Violation] = []
    for n, action in enumerate(gold):
        spec = REGISTRY.get(action["name"])
        if spec is None or not spec.mutating or results[n].get("Status") != "success":
            continue
        if any(a["name"] == "ask_user" for a in gold[:n]):
            continue  # the gold asked: the user's scripted answer decides
        used = set(ids_in_value(action["arguments"]))
        for entity in sorted(used):
            for k in range(n):
                words = [
                    v.lower()
                    for a, v in gold[k]["arguments"].items()
                    if a in _LOOKUP_ARGS and isinstance(v, str) and v.lower() in said
                ]
                hit = _rows_with(results[k].get("Payload"), entity)
                if hit is None:
                    continue
                key, rows = hit
                alike = [
                    r
                    for r in rows
                    if words
                    and all(w in _dumps(r).lower() for w in words)
                    and (r.get(key) in used or str(r.get("status", "")).lower() not in _GONE)
                ]
                chosen = next(r for r in rows if r.get(key) == entity)
                # a row whose name adds words nobody said ("iPhone 16 Pro" for "iPhone 16") is not what was named
                unsaid = _name_words(chosen, said)
                others = [r for r in alike if r.get(key) not in used and not _name_words(r, said) > unsaid]
                if chosen in alike and others:
                    marks = _marks(chosen, today) - set().union(*(_marks(r, today) for r in others))
                    if not any(_says(said, m) for m in marks - {entity}):
                        found.append(
                            Violation(
                                "ambiguous_referent",
                                family,
                                task.task_id,
                                n + 1,
                                entity,
                                f"is one of {len(alike)} rows {gold[k]['name']} lists for "
                                f"{', '.join(repr(w) for w in words)}; nothing said picks it: let the request "
                                "determine it or script the user's answer to a which question",
                            )
                        )
                break
    return found


def task_violations(family: str, task: Task, context: str, results: Sequence[Any]) -> list[Violation]:
    """Every per-task gate on a task whose gold has been replayed (``results``: its envelopes;
    ``context``: the phone's context text the system message states)."""
    prompt = [context, *(m.content for m in task.history), task.query]
    gold = [{"name": a.name, "arguments": a.arguments} for a in task.gold]
    return [
        *unseen_ids(family, task.task_id, prompt, gold, results),
        *unfit_skill_steps(family, task.task_id, gold, results),
        *query_violations(family, task),
        *task_world_violations(family, task),
        *unconfirmed_guards(family, task, results),
        *unchecked_delegation(family, task, results),
        *pinned_free_choices(family, task, prompt, results),
        *ambiguous_referents(family, task, results, context),
    ]


def suite_violations() -> list[Violation]:
    """The gates that concern the whole suite rather than one task: tool schemas and persona worlds."""
    return [*schema_violations(), *world_violations()]


# ---- collecting and enforcing ----------------------------------------------------------------------------------


def strict_default() -> bool:
    """Whether violations stop the build (``MOBILEPA_STRICT_GATES=1``); off until the families are fixed."""
    value = os.environ.get(STRICT_ENV, "0").strip().lower()
    if value not in ("0", "1", "true", "false", ""):
        raise ValueError(f"{STRICT_ENV} must be 0 or 1, not {value!r}")
    return value in ("1", "true")


class Collector:
    """The violations the build has met so far; in strict mode the first one stops it instead."""

    def __init__(self) -> None:
        self.violations: list[Violation] = []
        self.strict = strict_default()
        self._suite_checked = False

    def add_suite_wide(self) -> None:
        """The tool-schema and world gates, once per build (the build of its first task runs them)."""
        if not self._suite_checked:
            self._suite_checked = True
            self.add(suite_violations())

    def add(self, violations: Iterable[Violation]) -> None:
        found = list(violations)
        if found and self.strict:
            first = found[0]
            raise GateError(
                f"{first.family}: {len(found)} gate violation(s) in {first.task_id}; first: "
                f"{first.line()} (the gates are strict: {STRICT_ENV}=1 or --strict-gates)"
            )
        self.violations += found

    def clear(self) -> None:
        self.violations.clear()
        self._suite_checked = False

    def counts(self) -> dict[str, int]:
        return gate_counts(self.violations)


COLLECTED = Collector()


def gate_counts(violations: Iterable[Violation]) -> dict[str, int]:
    """Violations per gate, every gate listed (zero included)."""
    counts = Counter(v.gate for v in violations)
    return {g: counts.get(g, 0) for g in GATES}


def by_family(violations: Iterable[Violation]) -> dict[str, list[Violation]]:
    """Violations grouped by family, the family with the most first."""
    groups: dict[str, list[Violation]] = {}
    for v in violations:
        groups.setdefault(v.family, []).append(v)
    return dict(sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])))
