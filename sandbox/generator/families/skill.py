"""Skill Usage families (200 tasks, 10 per skill; 400 trajectories under SOR and MTSR).

A skill task is a job done with a skill's tools, which stay hidden until ``load_skill``. Each
family draws the job from the Basic families whose gold uses only that skill's tools (found by
drafting them once), so every skill task rests on a job whose gold is already proven, and adds
what makes it a skill task: the loader (and, for the near-miss kind, a distractor skill offered
next to it and a first attempt at a hidden tool that fails with ToolNotAvailable), a second skill
for the two-skill kind, and a multi-turn rendering where the request arrives in the history.

Per skill: 6 single-skill single-turn, 1 single-skill multi-turn, 1 two-skill single-turn,
1 two-skill multi-turn, 1 near-miss (multi-turn for the first ten skills): 140 single-skill,
40 two-skill, 20 near-miss; 150 single-turn, 50 multi-turn.
"""

from __future__ import annotations

import functools
import json
import random
import re
from typing import Any

from sandbox.errors import ErrorType
from sandbox.generator.core import FAMILIES, BuildError, Gen, act, family
from sandbox.generator.draft import Draft
from sandbox.personas import PERSONAS
from sandbox.skills import SKILLS, suits
from sandbox.tooling import REGISTRY

CATEGORY = "skill"

# The skill a two-skill task pairs with, and the near-miss distractor offered next to the right one.
PARTNER = {
    "trip_booking": "ride_and_commute",
    "meeting_organizer": "dinner_reservation_planner",
    "study_planner": "meeting_organizer",
    "ride_and_commute": "dinner_reservation_planner",
    "dinner_reservation_planner": "ride_and_commute",
    "shopping_checkout": "bills_and_budget",
    "order_after_sales": "shopping_checkout",
    "bills_and_budget": "group_expense_split",
    "group_expense_split": "bills_and_budget",
    "morning_briefing": "ride_and_commute",
    "photo_memories_share": "party_music_host",
    "party_music_host": "leave_home_routine",
    "contact_hygiene": "meeting_organizer",
    "device_cleanup_backup": "privacy_lockdown",
    "privacy_lockdown": "device_cleanup_backup",
    "bedtime_routine": "leave_home_routine",
    "leave_home_routine": "bedtime_routine",
    "doctor_visit_booking": "ride_and_commute",
    "workout_coach": "party_music_host",
    "event_outing_planner": "ride_and_commute",
}
NEAR_MISS = {
    "trip_booking": "event_outing_planner",
    "meeting_organizer": "study_planner",
    "study_planner": "meeting_organizer",
    "ride_and_commute": "trip_booking",
    "dinner_reservation_planner": "event_outing_planner",
    "shopping_checkout": "order_after_sales",
    "order_after_sales": "shopping_checkout",
    "bills_and_budget": "group_expense_split",
    "group_expense_split": "bills_and_budget",
    "morning_briefing": "bedtime_routine",
    "photo_memories_share": "device_cleanup_backup",
    "party_music_host": "workout_coach",
    "contact_hygiene": "privacy_lockdown",
    "device_cleanup_backup": "photo_memories_share",
    "privacy_lockdown": "contact_hygiene",
    "bedtime_routine": "leave_home_routine",
    "leave_home_routine": "bedtime_routine",
    "doctor_visit_booking": "meeting_organizer",
    "workout_coach": "morning_briefing",
    "event_outing_planner": "dinner_reservation_planner",
}
FRAMEWORK_STEPS = frozenset({"finish", "ask_user", "search_memory"})
# The assistant's acknowledgement and the user's go-ahead that answers it (a yes/no question gets a yes).
ACK_GO = (
    ("Sure. Anything else before I start?", "No, that's all, go ahead."),
    ("Got it. Shall I go ahead?", "Yes, go ahead please."),
    ("Understood. Anything to add?", "Nothing else. Go ahead please."),
)


def _domain_tools(draft: Draft) -> set[str]:
    return {a["name"] for a in draft.gold if a["name"] not in FRAMEWORK_STEPS}


def fits(draft: Draft, tools: set[str]) -> bool:
    """A job done with the skill: its decisive (last) domain call and every change are the skill's tools;
    any other tool is a read-only lookup (the list or search a real phone offers outside the skill)."""
    used = [a["name"] for a in draft.gold if a["name"] not in FRAMEWORK_STEPS]
    if not used or used[-1] not in tools:
        return False
    return all(name in tools or (name in REGISTRY and not REGISTRY[name].mutating) for name in used)


def _decisive(draft: Draft) -> str:
    """The job's last domain call: the one that does what the user asked."""
    return [a["name"] for a in draft.gold if a["name"] not in FRAMEWORK_STEPS][-1]


# Errors a gold step makes by its own malformed call (a string for a list): a Basic friction may show the
# recovery, but a skill's job carries no step the tool's schema rejects.
_MALFORMED_CALL = frozenset({ErrorType.INVALID_ARGUMENT_TYPE, ErrorType.UNKNOWN_ARGUMENT})


@functools.cache
def _probed(skill: str) -> tuple[tuple[str, str], ...]:
    """(Basic family, its decisive tool) for each family whose gold (drafted once) the skill does
    (``fits``), whose job is the skill's (``sandbox.skills.suits``), is not a no-op task and makes no
    malformed call."""
    tools = set(SKILLS[skill].tools)
    found = []
    for fam in sorted(FAMILIES.values(), key=lambda f: f.name):
        if fam.category != "basic":
            continue
        for persona in sorted(PERSONAS):
            try:
                draft = fam.build(Gen(persona, _probe_rng(fam.name)))
            except BuildError:
                continue
            if (
                fits(draft, tools)
                and suits(skill, _decisive(draft), _domain_tools(draft))
                and draft.tags.get("expected") != "noop"
                and not draft.skills
                and draft.bucket in ("state_change", "tool_call")
                and not _MALFORMED_CALL & set(draft.recovers)
            ):
                found.append((fam.name, _decisive(draft)))
            break
    return tuple(found)


def jobs(skill: str, beside: str | None = None) -> tuple[str, ...]:
    """The skill's jobs; with ``beside`` (another skill offered next to it), only those whose decisive
    tool that skill lacks, so loading the other skill alone cannot do the job (the skill gate stays fair)."""
    avoid = set(SKILLS[beside].tools) if beside else set()
    return tuple(name for name, tool in _probed(skill) if tool not in avoid)


def _probe_rng(name: str) -> random.Random:
    return random.Random(f"skill-probe:{name}")


def _job(g: Gen, skill: str, beside: str | None = None) -> Draft:
    """A job for ``skill`` that ``beside`` (another skill offered with it) cannot do."""
    names = jobs(skill, beside)
    if not names:
        raise BuildError(
            f"no Basic family does a job with {skill}'s tools" + (f" that {beside} cannot do" if beside else "")
        )
    job = FAMILIES[g.pick(names)].build(g)
    if not fits(job, set(SKILLS[skill].tools)) or not suits(skill, _decisive(job), _domain_tools(job)):
        raise BuildError(f"this draft's job is not one for {skill}")  # this draft of the family took another way
    if beside and _decisive(job) in SKILLS[beside].tools:
        raise BuildError(f"this draft's job could be done with {beside} alone")
    return job


_REF = re.compile(r"\{\{gold(\d+)\.")


def _shift(actions: list[dict[str, Any]], by: int, after: int = 0) -> list[dict[str, Any]]:
    """Renumber ``{{goldN.…}}`` references to steps after step ``after`` when those move ``by`` places later."""
    text = json.dumps(actions)
    return json.loads(_REF.sub(lambda m: f"{{{{gold{int(m.group(1)) + (by if int(m.group(1)) > after else 0)}.", text))


def _merge_checks(bucket: str, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Both jobs' expectations; the build derives the calls' order from what each call uses."""
    if bucket == "tool_call":
        return {"calls": [*a["calls"], *b["calls"]]}
    merged: dict[str, Any] = {}
    for part in ("insert", "update", "delete", "forbid"):
        tables = {
            t: [*a.get(part, {}).get(t, []), *b.get(part, {}).get(t, [])] for t in {*a.get(part, {}), *b.get(part, {})}
        }
        if part == "update":
            tables = {t: _one_update_per_row(rows) for t, rows in tables.items()}
        if tables:
            merged[part] = dict(sorted(tables.items()))
    for part in ("ignore_columns", "ignore_tables"):
        if a.get(part) or b.get(part):
            merged[part] = sorted({*a.get(part, []), *b.get(part, [])})
    return merged


def _one_update_per_row(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Both jobs' updates of one row (a card both charge or refund) as one expectation: a row is updated once."""
    out: list[dict[str, Any]] = []
    for update in updates:
        same = next((u for u in out if u["match"] == update["match"]), None)
        if same is None:
            out.append({**update, "set": dict(update["set"])})
        else:
            same["set"].update(update["set"])
    return out


def _merge_patches(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in ("insert", "update", "delete"):
        tables = {
            t: [*a.get(part, {}).get(t, []), *b.get(part, {}).get(t, [])] for t in {*a.get(part, {}), *b.get(part, {})}
        }
        if tables:
            out[part] = dict(sorted(tables.items()))
    return out


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


_PLEASE_END = re.compile(r",?\s+please\s*([.?!]?)$", re.IGNORECASE)


def _then(first: str, second: str) -> str:
    """Two requests as one ("…. Then …"), saying please once."""
    if "please" in first.lower():
        second = _PLEASE_END.sub(r"\1", second)
    return f"{first.rstrip('.?!')}. Then {_lower_first(second)}"


def _answers(a: Draft, b: Draft) -> list[Any] | None:
    """The two jobs' answer matchers: stated ones joined, or None to derive them from the joined answer
    (a job stating none leaves its facts to the derivation only when the other states none either)."""
    if a.answer is None and b.answer is None:
        return None
    return [*(a.answer or []), *(b.answer or [])]


def _skill_task(g: Gen, skill: str, kind: str, turn: str) -> Draft:
    beside = {"near_miss": NEAR_MISS, "two_skill": PARTNER}.get(kind, {}).get(skill)
    job = _job(g, skill, beside)
    loads = [act("load_skill", skill_id=skill)]
    steps = list(job.gold[:-1])
    recovers = list(job.recovers)
    query, check, patches, script, answer = job.query, job.check, job.patches, list(job.script), job.answer
    offered = [skill]
    sor = [skill]
    # the job's lookups outside the skill come first (their tools are offered), then the loader
    lead = next(n for n, a in enumerate(steps) if a["name"] in SKILLS[skill].tools)
    if kind == "near_miss":  # reach for the skill's first tool, still hidden, before loading it
        offered = sorted([skill, NEAR_MISS[skill]])
        loads = [steps[lead], *loads]
        recovers.append(ErrorType.TOOL_NOT_AVAILABLE)
    gold = [*steps[:lead], *loads, *_shift(steps[lead:], len(loads), lead)]
    finish = _shift([job.gold[-1]], len(loads), lead)[0]
    if kind == "two_skill":
        partner = PARTNER[skill]
        second = _job(g, partner, skill)  # the partner is needed too: the gold skill cannot do its job
        if second.bucket != job.bucket or _domain_tools(second) & _domain_tools(job):
            raise BuildError(f"{partner}'s job does not combine with {skill}'s")
        if job.history or second.history:  # "book the first one" cannot follow another job's request
            raise BuildError("a job that rests on its own dialogue does not combine with another")
        start = len(gold) + 1  # the partner's loader comes first, then its job's steps
        second_finish = _shift([second.gold[-1]], start)[0]
        gold = [*gold, act("load_skill", skill_id=partner), *_shift(second.gold[:-1], start)]
        query = _then(query, second.query)
        check = _merge_checks(job.bucket, job.check, second.check)
        answer = _answers(job, second)
        finish = {
            **finish,
            "arguments": {
                **finish["arguments"],
                "answer": " ".join(str(f["arguments"].get("answer", "")).strip() for f in (finish, second_finish)),
            },
        }
        patches = _merge_patches(job.patches, second.patches)
        script += second.script
        recovers += list(second.recovers)
        offered = sorted({skill, partner})
        sor = [skill, partner]
    gold.append(finish)
    history = list(job.history)  # the dialogue the job's request rests on (the ids it showed the user)
    if turn == "multi":
        ack, go = g.pick(ACK_GO)
        history += [{"role": "user", "content": query}, {"role": "assistant", "content": ack}]
        query = go
    return Draft(
        query=query,
        gold=gold,
        bucket=job.bucket,
        check=check,
        patches=patches,
        history=history,
        skill=skill,
        skills=offered,
        script=script,
        recovers=tuple(dict.fromkeys(recovers)),
        tags={"sor_skills": ",".join(sor)},
        l2=_l2_of(gold),
        answer=answer,
    )


def _l2_of(gold: list[dict[str, Any]]) -> str:
    """The level-2 of the job's last domain call (the decisive one)."""
    for action in reversed(gold):
        spec = REGISTRY.get(action["name"])
        if spec is not None and spec.is_domain_tool:
            return spec.l2  # type: ignore[return-value]  # a domain tool has a level-2
    raise BuildError("the gold has no domain call")


PLAN: list[tuple[str, int]] = []


def _register(skill: str, kind: str, turn: str, count: int) -> None:
    def build(g: Gen) -> Draft:
        return _skill_task(g, skill, kind, turn)

    build.__name__ = f"{skill}__{kind}__{turn}"
    family("skill", None, composition=kind, turn=turn)(build)
    PLAN.append((f"skill.{build.__name__}", count))


for _n, _skill in enumerate(SKILLS):
    _register(_skill, "single", "single", 6)
    _register(_skill, "single", "multi", 1)
    _register(_skill, "two_skill", "single", 1)
    _register(_skill, "two_skill", "multi", 1)
    _register(_skill, "near_miss", "multi" if _n < 10 else "single", 1)
