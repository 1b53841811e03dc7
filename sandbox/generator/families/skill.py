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
from sandbox.generator.core import FAMILIES, BuildError, Draft, Gen, act, family
from sandbox.skills import SKILLS
from sandbox.tooling import REGISTRY
from sandbox.world import PERSONAS

CATEGORY = "skill"

# The skill a two-skill task pairs with, and the near-miss distractor offered next to the right one.
PARTNER = {
    "trip_booking": "ride_and_commute", "meeting_organizer": "dinner_reservation_planner",
    "study_planner": "meeting_organizer", "ride_and_commute": "dinner_reservation_planner",
    "dinner_reservation_planner": "ride_and_commute", "shopping_checkout": "bills_and_budget",
    "order_after_sales": "shopping_checkout", "bills_and_budget": "group_expense_split",
    "group_expense_split": "bills_and_budget", "morning_briefing": "ride_and_commute",
    "photo_memories_share": "party_music_host", "party_music_host": "leave_home_routine",
    "contact_hygiene": "meeting_organizer", "device_cleanup_backup": "privacy_lockdown",
    "privacy_lockdown": "device_cleanup_backup", "bedtime_routine": "leave_home_routine",
    "leave_home_routine": "bedtime_routine", "doctor_visit_booking": "ride_and_commute",
    "workout_coach": "party_music_host", "event_outing_planner": "ride_and_commute",
}
NEAR_MISS = {
    "trip_booking": "event_outing_planner", "meeting_organizer": "study_planner",
    "study_planner": "meeting_organizer", "ride_and_commute": "trip_booking",
    "dinner_reservation_planner": "event_outing_planner", "shopping_checkout": "order_after_sales",
    "order_after_sales": "shopping_checkout", "bills_and_budget": "group_expense_split",
    "group_expense_split": "bills_and_budget", "morning_briefing": "bedtime_routine",
    "photo_memories_share": "device_cleanup_backup", "party_music_host": "workout_coach",
    "contact_hygiene": "privacy_lockdown", "device_cleanup_backup": "photo_memories_share",
    "privacy_lockdown": "contact_hygiene", "bedtime_routine": "leave_home_routine",
    "leave_home_routine": "bedtime_routine", "doctor_visit_booking": "meeting_organizer",
    "workout_coach": "morning_briefing", "event_outing_planner": "dinner_reservation_planner",
}
FRAMEWORK_STEPS = frozenset({"finish", "ask_user", "search_memory"})
ACK = ("Sure. Anything else before I start?", "Got it. Shall I go ahead?", "Understood. Anything to add?")
GO = ("No, that's all, go ahead.", "That's everything, please do it.", "Nothing else. Go ahead please.")


def _domain_tools(draft: Draft) -> set[str]:
    return {a["name"] for a in draft.gold if a["name"] not in FRAMEWORK_STEPS}


@functools.cache
def jobs(skill: str) -> tuple[str, ...]:
    """Basic families whose gold (drafted once) uses only this skill's tools and is not a no-op task."""
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
            used = _domain_tools(draft)
            if used and used <= tools and draft.tags.get("expected") != "noop" and not draft.skills \
                    and draft.bucket in ("state_change", "tool_call"):
                found.append(fam.name)
            break
    return tuple(found)


def _probe_rng(name: str) -> random.Random:
    return random.Random(f"skill-probe:{name}")


def _job(g: Gen, skill: str) -> Draft:
    names = jobs(skill)
    if not names:
        raise BuildError(f"no Basic family does a job with only {skill}'s tools")
    return FAMILIES[g.pick(names)].build(g)


_REF = re.compile(r"\{\{gold(\d+)\.")


def _shift(actions: list[dict[str, Any]], by: int) -> list[dict[str, Any]]:
    """Renumber ``{{goldN.…}}`` references when actions move ``by`` places later in the gold."""
    text = json.dumps(actions)
    return json.loads(_REF.sub(lambda m: f"{{{{gold{int(m.group(1)) + by}.", text))


def _merge_checks(bucket: str, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    if bucket == "tool_call":
        return {"calls": [*a["calls"], *b["calls"]], "ordered": a.get("ordered", True) and b.get("ordered", True)}
    merged: dict[str, Any] = {}
    for part in ("insert", "update", "delete", "forbid"):
        tables = {t: [*a.get(part, {}).get(t, []), *b.get(part, {}).get(t, [])]
                  for t in {*a.get(part, {}), *b.get(part, {})}}
        if tables:
            merged[part] = dict(sorted(tables.items()))
    for part in ("ignore_columns", "ignore_tables"):
        if a.get(part) or b.get(part):
            merged[part] = sorted({*a.get(part, []), *b.get(part, [])})
    return merged


def _merge_patches(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in ("insert", "update", "delete"):
        tables = {t: [*a.get(part, {}).get(t, []), *b.get(part, {}).get(t, [])]
                  for t in {*a.get(part, {}), *b.get(part, {})}}
        if tables:
            out[part] = dict(sorted(tables.items()))
    return out


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _skill_task(g: Gen, skill: str, kind: str, turn: str) -> Draft:
    job = _job(g, skill)
    loads = [act("load_skill", skill_id=skill)]
    steps = list(job.gold[:-1])
    recovers = list(job.recovers)
    query, check, patches, script = job.query, job.check, job.patches, list(job.script)
    offered = [skill]
    sor = [skill]
    if kind == "near_miss":
        offered = sorted([skill, NEAR_MISS[skill]])
        first = next((a for a in steps if a["name"] in SKILLS[skill].tools), None)
        if first is not None and not _REF.search(json.dumps(first)):  # reach for a hidden tool before loading
            loads = [first, *loads]
            recovers.append(ErrorType.TOOL_NOT_AVAILABLE)
    gold = [*loads, *_shift(steps, len(loads))]
    if kind == "two_skill":
        partner = PARTNER[skill]
        second = _job(g, partner)
        if second.bucket != job.bucket or _domain_tools(second) & _domain_tools(job):
            raise BuildError(f"{partner}'s job does not combine with {skill}'s")
        tail = [act("load_skill", skill_id=partner), *second.gold[:-1]]
        gold = [*gold, *_shift(tail, len(gold))]
        query = f"{query.rstrip('.?!')}. Then {_lower_first(second.query)}"
        check = _merge_checks(job.bucket, job.check, second.check)
        patches = _merge_patches(job.patches, second.patches)
        script += second.script
        recovers += list(second.recovers)
        offered = sorted({skill, partner})
        sor = [skill, partner]
    gold.append(job.gold[-1])
    history: list[dict[str, str]] = []
    if turn == "multi":
        history = [{"role": "user", "content": query}, {"role": "assistant", "content": g.pick(ACK)}]
        query = g.pick(GO)
    return Draft(query=query, gold=gold, bucket=job.bucket, check=check, patches=patches, history=history,
                 skill=skill, skills=offered, script=script, recovers=tuple(dict.fromkeys(recovers)),
                 tags={"sor_skills": ",".join(sor)}, l2=_l2_of(gold))


def _l2_of(gold: list[dict[str, Any]]) -> str:
    """The level-2 of the job's last domain call (the decisive one)."""
    for action in reversed(gold):
        spec = REGISTRY.get(action["name"])
        if spec is not None and spec.is_domain_tool:
            return spec.l2
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
