"""The suite's self-validation: gold passes, doing nothing fails, and broken golds are caught.

For every task: the gold replayed on a fresh sandbox passes (skill tasks under both skill
conditions, so 1,905 trajectories for the full suite); ``finish`` alone fails unless doing nothing
is the task's correct behaviour; and each perturbation of the gold fails:

- ``argument``: each required argument of the decisive call (the last successful domain or
  sub-agent call) changed, one at a time (for an expected read, only changes whose result no longer
  holds the call's evidence: the same data by other arguments is a legitimate alternative);
- ``memory``: a search_memory step that alone returns a required record dropped;
- ``extra_call``: one extra successful mutating call (a scratch note) before ``finish``;
- ``skill``: the load_skill steps dropped;
- ``handoff``: one field the handoff check names removed from the sub-agent call.

Legitimate alternatives must pass (``alt/…``):

- ``reordered``: two expected calls the check holds independent, swapped;
- ``extra_read``: the gold's first read repeated before ``finish``;
- ``equivalent_args``: an expected read made with other arguments that return the gold's data (a
  zone the result names for a city, a filter moved into ``query``, an optional filter dropped),
  kept only when the replay shows every object of the gold's result in the variant's;
- ``clarify``: a clarifying question before the first domain call (tasks without a user script,
  whose answers it could take);
- ``origin_alias``: where the query searches near home or work, the search's origin named by the
  saved address's street line instead of its label (the same point);
- ``confirm_in_other_words``: each confirmation question asked in other words, without ``kind``
  ("Shall I go ahead with that?"): the user's yes is the go-ahead however it was asked;
- ``asked_first``: the calls refused with ConfirmationRequired dropped, so the model asks before
  trying the guarded action instead of after its refusal;
- ``relayed``: for a question the voice agent asked a business for the user, the answer replaced by
  the business's own words ("They said: …");
- ``members_only``: for a set question whose answer check is its members and ``$none_of``, the
  members' names alone, last first;
- ``own_value``: for a set defined by a property's value (a ``$none_of`` with ``as``), the gold's answer
  followed by a non-member named with another value of it ("order_016 is shipped."): no member stated;
- ``runner_up``: for a superlative question (a ``$first`` fact), the gold's answer followed by another
  candidate ("Next after it is the iPhone 16."): the runner-up named after the answer;
- ``denied_aside``: for a yes/no question (a ``$verdict`` fact) whose facts name something, the gold's
  answer with a side remark denying something else beside that name ("Not a great day for a picnic in
  Sydney, though."): a denial governs only what it stands before;
- ``without_verdict``: for a yes/no question (a ``$verdict`` fact), the gold's answer without its
  leading "Yes"/"No" ("IB332 has landed at 11:59"): the verdict's opening is not required;
- ``other_free_value``: a date-time argument of the decisive call that the check holds only to its
  day (a free choice the build relaxed), set to another time of that day;
- ``no_optional_row``: a share the user did not ask to notify about made with ``notify=false``
  (the check's ``optional_insert``: its email may be sent or not).

Wrong endings must fail (``wrong/…``):

- ``other_entity``: the answer states another record's facts for the facts asked (invented ones
  where the reads hold no other);
- ``invented_number``: the gold's answer with its numbers changed (a total where nothing was found);
- ``opposite_state``: for a ``$state`` fact, the gold's answer stating the opposite state (its state
  words swapped, a leading yes/no flipped) and then offering the asked one ("Yes, the engine is off.
  Want it running?"), which a word-matching check would pass;
- ``denied_answer``: for a delegated question whose answer facts are names ("in stock", "included"),
  the answer denying each ("No, I asked: it is not in stock."), which a check ignoring negation passes;
- ``placeholder``: "Lorem ipsum" for a text the user dictated (a ``TEXT_FIELDS`` argument of a
  successful mutating call that the query or dialogue states), wherever the gold writes it;
- ``skipped_confirmation``: the gold's confirmation question dropped;
- ``unconfirmed``: the gold's confirmation question replaced by an unrelated open one (a question
  asked is no go-ahead);
- ``other_origin``: where the query searches near home or work, the search made near the other one
  (home and work are apart: other distances, other places);
- ``opposite_verdict``: for a yes/no question (a ``$verdict`` fact), the gold's answer opening with the
  opposite verdict and otherwise the same ("No, delayed 45 minutes"), which facts alone would pass;
- ``property_without_verdict``: for a yes/no question whose ``$verdict`` names the property asked
  about, the gold's answer without its verdict and its sentences naming the property, then the property
  stated the other way ("IB332 has landed at 11:59. In short: delayed."), which facts alone would pass;
- ``overinclusive``: for a set question, the gold's answer with non-members added (every saved login
  for "which were breached?");
- ``other_day``: a date-time the check holds to its day (``other_free_value``), set to the next day:
  the day is the part the task determines;
- ``other_first``: for a superlative question (a ``$first`` fact), another candidate named first and the
  answer after it ("That is the iPhone 16; the Xiaomi 15 comes after it.");
- ``incomplete``: for a list the query's window or set determines (two or more ``$name`` facts), only
  its first member named;
- ``fires_at_once``: the monitor's condition replaced by one that holds already (a missing field
  "exists": false), which would fire at once and watch for nothing.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sandbox import facts
from sandbox.conditions import CONDITIONS, action_space_for
from sandbox.episode import Episode, Trajectory
from sandbox.generator.answers import ASKS_FACTS, delegated_question, names_of
from sandbox.generator.evidence import VOLATILE, gold_steps, leaves
from sandbox.personas import PERSONAS
from sandbox.skills import SKILLS
from sandbox.tasks import Action, AgentBehaviorCheck, StateChangeCheck, Task, ToolCallCheck
from sandbox.tooling import REGISTRY
from verification.checkers import holds_evidence, objects, successful_steps
from verification.matchers import fits, none_of_names
from verification.verify import Verdict, verify

EXTRA_CALL = Action(name="create_note", arguments={"title": "Scratch", "content": "a note nobody asked for"})
FRAMEWORK_STEPS = frozenset({"finish", "search_memory", "load_skill", "ask_user"})


def replay(
    task: Task, gold: Iterable[Action], condition: str = "default", extra_tools: Iterable[str] = ()
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
    for fmt, step in (
        ("%Y-%m-%dT%H:%M", dt.timedelta(hours=2)),
        ("%Y-%m-%d", dt.timedelta(days=1)),
        ("%H:%M", dt.timedelta(hours=1)),
    ):
        try:
            return (dt.datetime.strptime(text, fmt) + step).strftime(fmt)
        except ValueError:
            pass
    digits = re.sub(r"\D", "", text)
    if len(digits) >= 7 and len(digits) >= len(text) * 0.6:
        return text[:-1] + ("1" if text[-1] != "1" else "2")
    return "something else entirely"


def decisive_step(task: Task, trajectory: Trajectory | None = None) -> int | None:
    """The last gold step that succeeded and is a domain or sub-agent call (what the task is about);
    ``trajectory``: the gold replayed under the default condition, when the caller has it."""
    trajectory = replay(task, task.gold) if trajectory is None else trajectory
    for step in reversed(trajectory.steps):
        if step.name not in FRAMEWORK_STEPS and step.envelope["Status"] == "success":
            return step.index - 1
    return None


def perturbations(task: Task, trajectory: Trajectory | None = None) -> Iterator[tuple[str, list[Action]]]:
    """The gold's perturbations (see the module docstring); ``trajectory``: the gold replayed under
    the default condition, when the caller has it (else it is replayed here)."""
    gold = list(task.gold)
    trajectory = replay(task, gold) if trajectory is None else trajectory
    at = decisive_step(task, trajectory)
    if at is not None and not task.noop_ok:
        action = gold[at]
        for name in REGISTRY[action.name].parameters.get("required", []):
            if name in action.arguments and not _left_free(task, name, action.arguments[name]):
                args = {**action.arguments, name: _changed(action.arguments[name])}
                yield (
                    f"argument:{action.name}.{name}",
                    [*gold[:at], Action(name=action.name, arguments=args), *gold[at + 1 :]],
                )
    if task.required_memory_ids:
        yield from _dropped_searches(task, gold, trajectory)
    yield "extra_call", [*gold[:-1], EXTRA_CALL, gold[-1]]
    if task.required_skill_id:
        yield "skill", [a for a in gold if a.name != "load_skill"]
    if task.category == "subagent" and task.bucket == "agent_behavior" and task.check.route:  # type: ignore[union-attr]  # agent_behavior
        n = max(i for i, a in enumerate(gold) if a.name == task.check.route)  # type: ignore[union-attr]  # the handoff that worked
        for path in _leaf_paths(task.check.handoff):  # type: ignore[union-attr]
            if _has_path(gold[n].arguments, path):
                args = copy.deepcopy(gold[n].arguments)
                _drop_path(args, path)
                yield (
                    f"handoff:{'.'.join(path)}",
                    [*gold[:n], Action(name=gold[n].name, arguments=args), *gold[n + 1 :]],
                )


FREE_OPS = ("$dt_between", "$range")  # a window the check leaves the model to choose in


def _left_free(task: Task, name: str, value: Any) -> bool:
    """Whether the check holds ``name`` only to a window (``FREE_OPS``) that takes the changed value too: a
    choice the task leaves to the model (the time of a note within its day), not a wrong argument."""
    changed = _changed(value)
    found = [
        m
        for key, m in _keyed(task.check.model_dump())
        if key == name and isinstance(m, dict) and len(m) == 1 and next(iter(m)) in FREE_OPS
    ]
    return bool(found) and all(fits(m, value) and fits(m, changed) for m in found)


def _keyed(value: Any) -> Iterator[tuple[str, Any]]:
    """(key, value) of every object entry at any depth."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from _keyed(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keyed(item)


def _dropped_searches(task: Task, gold: list[Action], trajectory: Trajectory) -> Iterator[tuple[str, list[Action]]]:
    returned = [
        (s.index - 1, {r.get("memory_id") for r in s.envelope["Payload"].get("records", [])})
        for s in trajectory.steps
        if s.name == "search_memory" and s.envelope["Status"] == "success"
    ]
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


# ---- legitimate alternatives (must pass) and wrong endings (must fail) ----------------------------

CLARIFY = Action(name="ask_user", arguments={"question": "Before I start: is there anything else I should know?"})
OTHER_WORDS = Action(name="ask_user", arguments={"question": "Shall I go ahead with that?"})
# An open question in place of a confirmation: the user answers it, but gives no go-ahead.
UNRELATED = Action(name="ask_user", arguments={"question": "What time zone are you in right now?"})
PLACEHOLDER = "Lorem ipsum dolor sit amet."
# Arguments that carry text the user words (a message, a note, a document): what "placeholder" replaces.
TEXT_FIELDS = frozenset(
    {"text", "body", "content", "message", "note", "notes", "title", "subject", "description", "caption", "comment"}
)


def _is_read(name: str) -> bool:
    return name in REGISTRY and REGISTRY[name].is_domain_tool and not REGISTRY[name].mutating


def alternatives(task: Task, trajectory: Trajectory) -> Iterator[tuple[str, list[Action]]]:
    """Other ways to solve the task, each of which must pass (see the module docstring)."""
    gold = list(task.gold)
    if task.noop_ok:
        return
    if isinstance(task.check, ToolCallCheck):
        steps = _expected_steps(task.check, gold, trajectory)
        yield from _reordered(task.check, gold, steps)
        yield from _equivalents(task, gold, trajectory, steps)
    reads = [s.index - 1 for s in successful_steps(trajectory) if _is_read(s.name)]
    if reads:
        yield "extra_read", [*gold[:-1], gold[reads[0]], gold[-1]]
    if not task.user_script:
        first = next((n for n, a in enumerate(gold) if a.name in REGISTRY and REGISTRY[a.name].is_domain_tool), 0)
        yield "clarify", [*gold[:first], CLARIFY, *gold[first:]]
    if (origin := _named_origin(task)) is not None:
        persona = PERSONAS[task.initial_state.world]
        yield "origin_alias", _with_origin(gold, origin, (persona.home if origin == "home" else persona.work).line)

    confirms = _confirmation_questions(gold)
    if confirms:
        yield "confirm_in_other_words", [OTHER_WORDS if n in confirms else a for n, a in enumerate(gold)]
        refused = {s.index - 1 for s in trajectory.steps if s.envelope["ErrorType"] == "ConfirmationRequired"}
        if refused:
            yield "asked_first", [a for n, a in enumerate(gold) if n not in refused]
    if delegated_question(task.query, [a.model_dump() for a in gold], [s.envelope for s in trajectory.steps]):
        said = [
            text
            for s in successful_steps(trajectory)
            if s.name == "call_voice_agent"
            and isinstance(text := s.envelope["Payload"].get("details", {}).get("answer"), str)
        ]
        if said:
            yield "relayed", [*gold[:-1], _finish("They said: " + " ".join(said))]
    answer = task.check.answer if isinstance(task.check, (ToolCallCheck, AgentBehaviorCheck)) else []
    members = [names[0] for m in answer if (names := names_of(m))]
    if any(_op(m) == "$none_of" for m in answer) and len(members) == len(answer) - 1:
        yield "members_only", [*gold[:-1], _finish("; ".join(reversed(members)) + ".")]
    valued = next((m["$none_of"] for m in answer if _op(m) == "$none_of" and isinstance(m["$none_of"], dict)), None)
    if valued:
        own = f"{gold[-1].arguments.get('answer', '')} {valued['names'][0]} is {valued['unlike'][0]}."
        yield "own_value", [*gold[:-1], _finish(own)]
    if superlative := next((m["$first"] for m in answer if _op(m) == "$first"), None):
        runner_up = f"{gold[-1].arguments.get('answer', '')} Next after it is {superlative['others'][0]}."
        yield "runner_up", [*gold[:-1], _finish(runner_up)]
    named = [names[0] for m in answer if (names := names_of(m))]
    if named and any(_op(m) == "$verdict" for m in answer):
        aside = f"{gold[-1].arguments.get('answer', '')} Not a great day for a picnic in {named[0]}, though."
        yield "denied_aside", [*gold[:-1], _finish(aside)]
    text = str(gold[-1].arguments.get("answer", ""))
    if any(_op(m) == "$verdict" for m in answer) and (unopened := _VERDICT_WORD.sub("", text, count=1)) != text:
        yield "without_verdict", [*gold[:-1], _finish(unopened[:1].upper() + unopened[1:])]
    if (free := _free_day(task, trajectory)) is not None:
        at, name, day = free
        value = gold[at].arguments[name]
        other = f"{day}T07:15" if not value.endswith("T07:15") else f"{day}T19:45"
        yield "other_free_value", _with_argument(gold, at, name, other)
    state = task.check if isinstance(task.check, StateChangeCheck) else getattr(task.check, "state", None)
    if state is not None and state.optional_insert:
        shares = [n for n, a in enumerate(gold) if a.name in REGISTRY and "notify" in _properties(a.name)]
        if shares:
            yield (
                "no_optional_row",
                [
                    Action(name=a.name, arguments={**a.arguments, "notify": False}) if n in shares else a
                    for n, a in enumerate(gold)
                ],
            )


def _properties(tool: str) -> dict[str, Any]:
    return dict(REGISTRY[tool].parameters.get("properties", {}))


def _free_day(task: Task, trajectory: Trajectory) -> tuple[int, str, str] | None:
    """(gold position, argument, day) of a date-time argument of the decisive call that the check
    holds to its whole day: a time the task leaves to the model."""
    at = decisive_step(task, trajectory)
    if at is None or task.noop_ok:
        return None
    action = task.gold[at]
    for name, value in action.arguments.items():
        if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", value):
            day = value[:10]
            window = {"$dt_between": [f"{day}T00:00", f"{day}T23:59"]}
            if any(key == name and m == window for key, m in _keyed(task.check.model_dump())):
                return at, name, day
    return None


def _with_argument(gold: list[Action], at: int, name: str, value: Any) -> list[Action]:
    return [*gold[:at], Action(name=gold[at].name, arguments={**gold[at].arguments, name: value}), *gold[at + 1 :]]


# the saved address a query's words name as where to search
_ORIGIN_WORDS = re.compile(r"\b(?:near|around|close to|by)\s+(?:my\s+|the\s+)?(home|work|office)\b", re.IGNORECASE)


def _named_origin(task: Task) -> str | None:
    """The saved address a query names as where to search ("near work", "close to home") when the gold
    searches from it by its label; else None."""
    said = _ORIGIN_WORDS.search(task.query)
    origin = {"office": "work"}.get(said.group(1).lower(), said.group(1).lower()) if said else None
    near = {str(a.arguments.get("near", "")).lower() for a in task.gold if _is_read(a.name)}
    return origin if origin in near else None


def _with_origin(gold: list[Action], origin: str, name: str) -> list[Action]:
    """The gold with every search near ``origin`` (by its label) made near ``name`` instead."""
    return [
        Action(name=a.name, arguments={**a.arguments, "near": name})
        if _is_read(a.name) and str(a.arguments.get("near", "")).lower() == origin
        else a
        for a in gold
    ]


def _confirmation_questions(gold: list[Action]) -> list[int]:
    """The gold steps that ask the user to confirm (``kind`` "confirm")."""
    return [n for n, a in enumerate(gold) if a.name == "ask_user" and a.arguments.get("kind") == "confirm"]


def _expected_steps(check: ToolCallCheck, gold: list[Action], trajectory: Trajectory) -> list[int | None]:
    ok = [s.index - 1 for s in successful_steps(trajectory)]
    return gold_steps([c.model_dump() for c in check.calls], [a.model_dump() for a in gold], ok)


def _reordered(check: ToolCallCheck, gold: list[Action], steps: list[int | None]) -> Iterator[tuple[str, list[Action]]]:
    """The first pair of expected reads that depend on each other in neither direction, swapped
    (``steps``: each expected call's gold step)."""
    before = _closure(check)
    for a in range(len(check.calls)):
        for b in range(a + 1, len(check.calls)):
            i, j = steps[a], steps[b]
            if (
                i is not None
                and j is not None
                and a not in before[b]
                and b not in before[a]
                and _is_read(gold[i].name)
                and _is_read(gold[j].name)
                and not any(g.name == "load_skill" for g in gold[min(i, j) + 1 : max(i, j)])
            ):
                # (a skill's tool cannot move before the load_skill that offers it)
                swapped = list(gold)
                swapped[i], swapped[j] = gold[j], gold[i]
                yield "reordered", swapped
                return


def _closure(check: ToolCallCheck) -> list[set[int]]:
    """Per expected call, every call it depends on, directly or through others."""
    out: list[set[int]] = []
    for c in range(len(check.calls)):
        seen: set[int] = set()
        todo = list(check.calls[c].after)
        while todo:
            i = todo.pop()
            if i not in seen:
                seen.add(i)
                todo += check.calls[i].after
        out.append(seen)
    return out


def _equivalents(
    task: Task, gold: list[Action], trajectory: Trajectory, steps: list[int | None]
) -> Iterator[tuple[str, list[Action]]]:
    """Per expected read, argument variants whose replay returns every object of the gold's result
    (``steps``: each expected call's gold step)."""
    for call, n in zip(task.check.calls, steps):  # type: ignore[union-attr]
        if n is None or not call.evidence or not _is_read(call.tool):
            continue
        payload = trajectory.steps[n].envelope["Payload"]
        variants = {json.dumps(v, sort_keys=True): v for v in _variants(call.tool, gold[n].arguments, payload)}
        for arguments in variants.values():
            variant = [*gold[:n], Action(name=call.tool, arguments=arguments), *gold[n + 1 :]]
            replayed = replay(task, variant, "mtsr" if task.category == "skill" else "default")
            step = replayed.steps[n] if len(replayed.steps) > n else None
            if (
                step is not None
                and step.envelope.get("Status") == "success"
                and _covers(step.envelope["Payload"], payload, {**gold[n].arguments, **arguments})
            ):
                yield "equivalent_args", variant


def _variants(tool: str, arguments: dict[str, Any], payload: Any) -> Iterator[dict[str, Any]]:
    spec = REGISTRY[tool].parameters
    top = payload if isinstance(payload, dict) else {}
    for key, value in arguments.items():
        if not isinstance(value, str):
            continue
        # a name the result gives the same thing ("Europe/Zurich" for "Zurich")
        for other in top.values():
            if isinstance(other, str) and other != value and facts.states_name(other, value):
                yield {**arguments, key: other}
        if "query" in spec["properties"] and "query" not in arguments and key not in spec.get("required", []):
            yield {**{k: v for k, v in arguments.items() if k != key}, "query": value}
    for key in arguments:
        if key not in spec.get("required", []):
            yield {k: v for k, v in arguments.items() if k != key}


def _covers(payload: Any, gold: Any, arguments: dict[str, Any]) -> bool:
    """Every object of the gold's result (its scalars and empty lists, less volatile fields and echoes
    of either call's arguments) is an object of the variant's."""
    echoes = {facts.fold(v) for v in arguments.values() if isinstance(v, str)}
    wanted = [
        {
            k: v
            for k, v in obj.items()
            if k not in VOLATILE
            and (not isinstance(v, (dict, list)) or v == [])
            and not (isinstance(v, str) and facts.fold(v) in echoes)
        }
        for obj in objects(gold)
    ]
    found = list(objects(payload))
    return all(any(fits(item, obj) for obj in found) for item in wanted if item)


def wrong_endings(task: Task, trajectory: Trajectory) -> Iterator[tuple[str, list[Action]]]:
    """Endings a careless or dishonest planner would give, each of which must fail."""
    gold = list(task.gold)
    answer = task.check.answer if isinstance(task.check, (ToolCallCheck, AgentBehaviorCheck)) else []
    if answer:
        # what the gold's calls returned (reads, memory, sub-agents' findings): where other entities' facts are
        reads = [s.envelope["Payload"] for s in successful_steps(trajectory) if s.name not in ("finish", "ask_user")]
        yield "other_entity", [*gold[:-1], _finish(_other_facts(answer, reads))]
        text = str(gold[-1].arguments.get("answer", ""))
        if any(_op(m) == "$none" for m in answer):
            yield "invented_number", [*gold[:-1], _finish("You have 3 of them, $42.50 in total.")]
        elif any(_op(m) in ("$amount", "$number", "$count") for m in answer):
            yield "invented_number", [*gold[:-1], _finish(_invented(text, answer))]
        verdict = next((m["$verdict"] for m in answer if _op(m) == "$verdict"), None)
        value, about = (verdict["value"], verdict["about"]) if isinstance(verdict, dict) else (verdict, [])
        if value:
            flipped = {"yes": "No", "no": "Yes"}[value]
            yield "opposite_verdict", [*gold[:-1], _finish(f"{flipped}, {_VERDICT_WORD.sub('', text, count=1)}")]
        if about:
            yield "property_without_verdict", [*gold[:-1], _finish(_property_stated(text, about, value != "yes"))]
        if opposite := _opposite_state(text, answer):
            yield "opposite_state", [*gold[:-1], _finish(opposite)]
        named = [names_of(m) for m in answer]
        if task.tags.get(ASKS_FACTS[0]) == ASKS_FACTS[1] and all(named):
            denied = "; ".join(f"it is not {n[0]}" for n in named)
            yield "denied_answer", [*gold[:-1], _finish(f"No, I asked: {denied}.")]
        others = next((none_of_names(m["$none_of"]) for m in answer if _op(m) == "$none_of"), [])
        if others:
            yield "overinclusive", [*gold[:-1], _finish(f"{text} Also {', '.join(others[:3])}.")]
        if superlative := next((m["$first"] for m in answer if _op(m) == "$first"), None):
            other, name = superlative["others"][0], superlative["name"]
            yield "other_first", [*gold[:-1], _finish(f"That is {other}; {name} comes after it.")]
        members = [m["$name"] for m in answer if isinstance(m, dict) and list(m) == ["$name"]]
        if len(members) >= 2:
            yield "incomplete", [*gold[:-1], _finish(f"{members[0]}.")]
    said = " ".join([task.query, *(m.content for m in task.history)])
    mutating = [
        gold[s.index - 1] for s in successful_steps(trajectory) if s.name in REGISTRY and REGISTRY[s.name].mutating
    ]
    dictated = next(
        (
            v
            for a in mutating
            for k, v in a.arguments.items()
            if k in TEXT_FIELDS and isinstance(v, str) and len(v.split()) >= 3 and facts.states_name(said, v)
        ),
        None,
    )
    if dictated is not None:
        yield (
            "placeholder",
            [
                a
                if a not in mutating
                else Action(
                    name=a.name, arguments={k: PLACEHOLDER if v == dictated else v for k, v in a.arguments.items()}
                )
                for a in gold
            ],
        )
    if (origin := _named_origin(task)) is not None:
        yield "other_origin", _with_origin(gold, origin, "work" if origin == "home" else "home")
    if (free := _free_day(task, trajectory)) is not None:
        at, name, day = free
        next_day = (dt.date.fromisoformat(day) + dt.timedelta(days=1)).isoformat()
        yield "other_day", _with_argument(gold, at, name, next_day + gold[at].arguments[name][10:])
    monitor = next((n for n, a in enumerate(gold) if a.name == "call_monitor_agent"), None)
    if monitor is not None:
        handoff = gold[monitor].arguments
        at_once = {**handoff["condition"], "path": "$.no_such_field", "op": "exists", "value": False}
        watch = Action(name="call_monitor_agent", arguments={**handoff, "condition": at_once})
        yield "fires_at_once", [*gold[:monitor], watch, *gold[monitor + 1 :]]
    confirms = _confirmation_questions(gold)
    if confirms:
        yield "skipped_confirmation", [a for n, a in enumerate(gold) if n not in confirms]
        yield "unconfirmed", [UNRELATED if n in confirms else a for n, a in enumerate(gold)]


# the word opening a gold's verdict, dropped where the opposite one replaces it ("Nobody came" keeps its words)
_VERDICT_WORD = re.compile(r"^\W*(?:yes|no)\b\W*", re.IGNORECASE)


def _property_stated(text: str, about: list[str], affirmed: bool) -> str:
    """The gold's answer without its verdict and the sentences naming the property asked about, then the
    property affirmed (or denied): "IB332 landed at 11:59. In short: delayed." for "has IB332 been delayed?"."""
    kept = [
        sentence
        for sentence in re.split(r"(?<=[.;!?])\s+", _VERDICT_WORD.sub("", text, count=1))
        if sentence and not any(facts.states_name(sentence, name) for name in about)
    ]
    return " ".join([*kept, f"In short: {'' if affirmed else 'not '}{about[0]}."])


def _finish(text: str) -> Action:
    return Action(name="finish", arguments={"answer": text})


def _op(matcher: Any) -> str | None:
    """A matcher's operator, or the first option's for ``$any``."""
    if isinstance(matcher, dict) and len(matcher) == 1:
        op, operand = next(iter(matcher.items()))
        return _op(operand[0]) if op == "$any" and operand else op
    return None


def _invented(text: str, answer: list[Any]) -> str:
    """The text with every number moved beyond all the numbers it and the answer check hold, so no
    invented one lands on a true one within a tolerance."""
    known = [abs(q.value) for q in facts.quantities(text)] + [abs(v) for v in _numbers_in(answer)]
    shift = 1 + 2 * max(known, default=0)

    def move(found: re.Match[str]) -> str:
        decimals = len(found.group(0).partition(".")[2])
        return f"{float(found.group(0)) + shift:.{decimals}f}"

    return re.sub(r"\d+(?:\.\d+)?", move, text)


def _states_in(matcher: Any) -> Iterator[str]:
    """The state values of a matcher's ``$state`` facts (inside ``$any`` too)."""
    if isinstance(matcher, dict) and len(matcher) == 1:
        op, operand = next(iter(matcher.items()))
        if op == "$state":
            yield operand if isinstance(operand, str) else operand["value"]
        elif op == "$any":
            for option in operand:
                yield from _states_in(option)


def _opposite_state(text: str, answer: list[Any]) -> str | None:
    """The text stating the opposite of each ``$state`` fact, then offering the true state as a question
    (a question states nothing); None without such facts."""
    values = list(dict.fromkeys(v for m in answer for v in _states_in(m)))
    if not values:
        return None
    text = re.sub(
        r"^(\W*)(yes|no)\b",
        lambda m: m.group(1) + ("No" if m.group(2).lower() == "yes" else "Yes"),
        text,
        flags=re.IGNORECASE,
    )
    for value in values:
        group = facts.state_group(value)
        if group is None:
            continue
        side, other = group if value.casefold() in group[0] else group[::-1]
        words = "|".join(sorted(other, key=len, reverse=True))
        text = re.sub(rf"\bnot\s+({words})\b", r"\1", text, flags=re.IGNORECASE)  # "not connected": connected
        text = re.sub(rf"\b(\w+)n't\s+({words})\b", r"\1 \2", text, flags=re.IGNORECASE)
        opposite = min(other, key=lambda w: (len(w), w))
        text = re.sub(rf"\b(?:{'|'.join(side)})\b", opposite, text, flags=re.IGNORECASE)
    return f"{text.rstrip()} Want it {values[0]}?"


def _numbers_in(value: Any) -> Iterator[float]:
    return (v for v in leaves(value) if isinstance(v, (int, float)) and not isinstance(v, bool))


def _other_facts(answer: list[Any], reads: list[Any]) -> str:
    """An answer stating, for each fact asked, another record's value of the same field (else an invented one)."""
    fields = [
        (k, v)
        for read in reads
        for obj in objects(read)
        for k, v in obj.items()
        if not isinstance(v, (dict, list, bool)) and v is not None
    ]
    said = []
    for matcher in answer:
        op = _op(matcher)
        truth = _operand(matcher)
        keys = {
            k
            for k, v in fields
            if v == truth or (isinstance(v, str) and isinstance(truth, str) and (v == truth or v.startswith(truth)))
        }
        others = [_render(op, v) for k, v in fields if k in keys]
        said.append(
            next(
                (o for o in [*others, *_made_up(op, truth, answer)] if not any(fits(m, o) for m in answer)),
                "Someone Else Entirely",
            )
        )
    return "Here is what I found: " + "; ".join(said) + "."


def _operand(matcher: Any) -> Any:
    operand = next(iter(matcher.values()))
    if next(iter(matcher)) == "$any":
        return _operand(operand[0])
    if next(iter(matcher)) == "$first":
        return operand["name"]
    if next(iter(matcher)) == "$none_of":
        return none_of_names(operand)
    return operand["value"] if isinstance(operand, dict) else operand


def _render(op: str | None, value: Any) -> str:
    if op == "$time" and isinstance(value, str) and (m := re.search(r"\d{2}:\d{2}", value)):
        return m.group(0)
    if op == "$date" and isinstance(value, str):
        return value[:10]
    if op == "$amount" and isinstance(value, (int, float)):
        return f"{value:.2f}"
    return str(value)


def _made_up(op: str | None, truth: Any, answer: list[Any]) -> list[str]:
    """Invented values of a fact's kind, beyond what any of the answer's matchers accepts."""
    if op == "$date":
        return [(dt.date.fromisoformat(truth[:10]) + dt.timedelta(days=d)).isoformat() for d in (3, 11, 40)]
    if op == "$time":
        return [f"{(int(truth[:2]) + h) % 24:02d}:{truth[3:5]}" for h in (2, 5, 9)]
    if op in ("$amount", "$number", "$count") and isinstance(truth, (int, float)):
        return [_render(op, truth + 1 + 2 * max(abs(v) for v in _numbers_in(answer)))]
    if op == "$none":
        return ["3 of them"]
    return ["Someone Else Entirely"]


def _same_evidence(task: Task, trajectory: Trajectory) -> bool:
    """A perturbed trajectory whose expected reads all still get their evidence: the same data, not a wrong call."""
    if not isinstance(task.check, ToolCallCheck) or not all(c.evidence for c in task.check.calls):
        return False
    steps = successful_steps(trajectory)
    return all(
        any(s.name == c.tool and holds_evidence(c, s.envelope.get("Payload")) for s in steps) for c in task.check.calls
    )


def check_task(task: Task) -> list[Outcome]:
    """Every self-validation outcome of one task."""
    out: list[Outcome] = []
    conditions = CONDITIONS if task.category == "skill" else ("default",)
    declared = set(filter(None, task.tags.get("recovers", "").split(",")))
    golds: dict[str, Trajectory] = {}  # the gold's replay under each condition, reused below
    for condition in conditions:
        trajectory = golds[condition] = replay(task, task.gold, condition)
        verdict = verify(task, trajectory)
        # the gold must run as built under every condition: an error it does not declare as a recovery
        # (a lookup the condition does not offer) means the condition hides what the model needs
        undeclared = sorted(
            {str(s.envelope["ErrorType"]) for s in trajectory.steps if s.envelope["Status"] != "success"} - declared
        )
        reasons = [*verdict.reasons, *(f"gold hit {e}, which it does not recover from" for e in undeclared)]
        out.append(Outcome(task.task_id, f"oracle/{condition}", bool(reasons), "; ".join(reasons)))
    noop = run(task, [Action(name="finish", arguments={"answer": "I did nothing."})])
    out.append(
        Outcome(
            task.task_id,
            "noop",
            noop.passed != task.noop_ok,
            "passes although the task needs action" if noop.passed else "; ".join(noop.reasons),
        )
    )
    condition = "mtsr" if task.category == "skill" else "default"
    for kind, gold in perturbations(task, golds.get("default")):
        replayed = replay(task, gold, condition, extra_tools=[EXTRA_CALL.name])
        if kind.startswith("argument:") and _same_evidence(task, replayed):
            continue
        out.append(_outcome(task.task_id, f"perturb/{kind.split(':')[0]}", kind, verify(task, replayed), False))
    # the gold's tools stay offered to the alternatives, but a skill's tools stay hidden until it is loaded
    # (a near-miss gold reaches for one too early on purpose, and must keep failing there)
    hidden = {t for s in task.candidate_skills for t in SKILLS[s].tools}
    gold_tools = [a.name for a in task.gold if a.name not in hidden]
    for prefix, variants, must_pass in (("alt", alternatives, True), ("wrong", wrong_endings, False)):
        for kind, gold in variants(task, golds[condition]):
            verdict = run(task, gold, condition, extra_tools=gold_tools)
            out.append(_outcome(task.task_id, f"{prefix}/{kind}", kind, verdict, must_pass))
    return out


def _outcome(task_id: str, check: str, kind: str, verdict: Verdict, must_pass: bool) -> Outcome:
    """A variant of the gold that must pass (an alternative) or fail (a perturbation, a wrong ending)."""
    if must_pass:
        return Outcome(
            task_id, check, not verdict.passed, "" if verdict.passed else f"{kind} fails: {'; '.join(verdict.reasons)}"
        )
    return Outcome(task_id, check, verdict.passed, f"{kind} still passes" if verdict.passed else "")


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
