"""The generated suite: the paper's counts, coverage, disjoint splits and byte-identical regeneration."""

from __future__ import annotations

import json
import pkgutil
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox.conditions import action_space_for
from sandbox.errors import ErrorType
from sandbox.facts import states_name
from sandbox.generator import families
from sandbox.generator.answers import candidates, non_members
from sandbox.generator.core import FAMILIES, FRICTIONS, BuildError, Gen, act, done, family_group, resolve
from sandbox.generator.draft import Draft
from sandbox.generator.stats import suite_stats
from sandbox.generator.suite import TOTALS, basic_per_l2, build_files, largest_remainder, load_families
from sandbox.personas import PERSONAS
from sandbox.skills import SKILLS
from sandbox.suite import TASK_DIR, load_split
from sandbox.tasks import dump_task
from sandbox.taxonomy import L2
from sandbox.tooling import REGISTRY

FULL = load_split("full.jsonl")
TRAIN = load_split("train.jsonl")
MINI = load_split("full.jsonl", subset="mini")


@pytest.fixture(scope="module")
def stats() -> dict:
    splits = {"full": FULL, "train": TRAIN, "mini": MINI}
    return suite_stats(splits)


def test_the_papers_counts(stats: dict) -> None:
    assert stats["tasks"] == 1705
    assert stats["by"]["category"] == TOTALS
    assert stats["skill_trajectories"] == 400 and stats["trajectories"] == 1905
    cells = stats["memory_cells"]
    turn = Counter(t.tags["turn"] for t in FULL if t.category == "memory")
    primary = Counter(t.tags["primary"] for t in FULL if t.category == "memory")
    kind = Counter(t.tags["memory_type"] for t in FULL if t.category == "memory")
    assert turn == {"single": 176, "multi": 200} and primary == {"db": 188, "api": 188}
    assert kind.most_common(1)[0][0] == "single_record" and kind["conflict"] > 0 and kind["composition"] > 0
    assert sum(cells.values()) == 376
    skill = [t for t in FULL if t.category == "skill"]
    assert Counter(t.required_skill_id for t in skill).most_common()[-1][1] == 10
    assert Counter(t.tags["composition"] for t in skill) == {"single": 140, "two_skill": 40, "near_miss": 20}


def test_basic_allocation_follows_the_domain_shares_with_a_floor() -> None:
    per_l2 = basic_per_l2()
    assert sum(per_l2.values()) == 1040 and set(per_l2) == set(L2) and min(per_l2.values()) >= 6
    assert sum(n for code, n in per_l2.items() if code.startswith("1.")) == 134
    assert largest_remainder(10, {"1.1": 1, "1.2": 1, "1.3": 1}) == {"1.1": 4, "1.2": 3, "1.3": 3}


def test_coverage_every_level2_tool_and_recovered_error(stats: dict) -> None:
    cov = stats["coverage"]
    assert cov["domains"] == "13/13" and cov["l2"] == "89/89" and cov["skills"] == "20/20"
    assert cov["tools_never_in_gold"] == [], cov["tools_never_in_gold"]
    assert cov["error_types_never_recovered"] == [], cov["error_types_never_recovered"]
    assert {t.l2 for t in FULL if t.category == "subagent"} == set(L2)
    assert set(stats["by"]["friction"]) == set(FRICTIONS)  # every friction kind is in some task


def test_splits_are_disjoint_and_mini_is_stratified() -> None:
    assert not {t.task_id for t in FULL} & {t.task_id for t in TRAIN}
    assert not {(t.query, str(t.history)) for t in FULL} & {(t.query, str(t.history)) for t in TRAIN}
    assert len(TRAIN) == len(FULL)
    assert 0.08 <= len(MINI) / len(FULL) <= 0.14
    assert {t.category for t in MINI} == set(TOTALS) and {t.bucket for t in MINI} == {t.bucket for t in FULL}
    assert {t.domain for t in MINI} == {t.domain for t in FULL}
    assert {t.l2 for t in MINI if t.category == "basic"} == set(L2)
    assert load_split("full.jsonl", ["memory"]) == [t for t in FULL if t.category == "memory"]


def test_every_task_offers_its_gold_tools_and_a_fixed_action_space() -> None:
    for t in FULL:
        hidden = {tool for s in t.candidate_skills for tool in SKILLS[s].tools}
        gold_tools = {a.name for a in t.gold if a.name in REGISTRY and REGISTRY[a.name].is_domain_tool}
        assert 0 < len(t.candidate_tools) <= 15, t.task_id
        assert not set(t.candidate_tools) & hidden, t.task_id
        assert gold_tools <= set(t.candidate_tools) | hidden, t.task_id


def test_skill_conditions() -> None:
    task = next(t for t in FULL if t.category == "skill" and t.tags["composition"] == "near_miss")
    tools, skills = action_space_for(task, "sor")
    hidden = {n for s in task.candidate_skills for n in SKILLS[s].tools}
    lookups = {a.name for a in task.gold if a.name in REGISTRY and REGISTRY[a.name].is_domain_tool} - hidden
    assert set(tools) == lookups and task.required_skill_id in skills and len(skills) < len(task.candidate_skills)
    assert action_space_for(task, "mtsr") == (task.candidate_tools, task.candidate_skills)
    # under sor a skill task keeps the lookups its job makes outside the skills (a contacts search before
    # the skill's send_sms), and nothing else of A0
    for t in (t for t in FULL if t.category == "skill"):
        sor_tools, _ = action_space_for(t, "sor")
        gold = {a.name for a in t.gold}
        assert set(sor_tools) == gold & set(t.candidate_tools), t.task_id
    basic = FULL[0]
    assert action_space_for(basic, "sor") == (basic.candidate_tools, basic.candidate_skills)
    with pytest.raises(ValueError, match="'oracle' is not a condition"):
        action_space_for(task, "oracle")


def test_a_skill_tasks_gold_makes_no_call_its_tool_schema_rejects() -> None:
    malformed = {ErrorType.INVALID_ARGUMENT_TYPE.value, ErrorType.UNKNOWN_ARGUMENT.value}
    skill_tasks = [t for t in FULL if t.category == "skill"]
    assert skill_tasks
    assert not [t.task_id for t in skill_tasks if malformed & set(t.tags.get("recovers", "").split(","))]


def test_unknown_subset_is_named() -> None:
    with pytest.raises(ValueError, match="unknown subset 'tiny'"):
        load_split("full.jsonl", subset="tiny")


def test_regeneration_is_byte_identical() -> None:
    for name, tasks in build_files().items():
        expected = "".join(dump_task(t) + "\n" for t in tasks)
        assert (TASK_DIR / name).read_text(encoding="utf-8") == expected, f"{name} is stale: run `mobilepa tasks build`"


def test_a_family_is_named_after_its_group_even_in_a_package_split_by_concern() -> None:
    groups = {info.name for info in pkgutil.iter_modules(families.__path__) if not info.name.startswith("_")}
    assert {name.split(".")[0] for name in load_families()} == groups
    assert family_group("sandbox.generator.families.memory.conflict") == "memory"
    assert family_group("sandbox.generator.families.basic_apps") == "basic_apps"
    with pytest.raises(ValueError, match=r"not under sandbox\.generator\.families"):
        family_group("tests.sandbox.test_suite_generator")


# ---- the build's guarantees ----------------------------------------------------------------------------------


def test_references_resolve_from_earlier_steps_and_fail_loudly() -> None:
    payloads = [{"event": {"event_id": "event_042"}, "items": [{"id": "x_1"}]}]
    assert resolve(
        {"a": "{{gold1.event.event_id}}", "b": ["{{gold1.items[0].id}}"], "c": "{{step1.kept}}"}, payloads
    ) == {"a": "event_042", "b": ["x_1"], "c": "{{step1.kept}}"}
    with pytest.raises(BuildError, match="step 2"):
        resolve("{{gold2.x}}", payloads)
    with pytest.raises(BuildError, match="has no missing"):
        resolve("{{gold1.missing}}", payloads)


def test_a_draft_whose_gold_hits_an_undeclared_error_is_rejected() -> None:
    from sandbox.generator.core import Family, build_task

    def broken(g: Gen) -> Draft:
        return Draft(
            query="Set an alarm.",
            gold=[act("set_alarm", time="25:99"), done("ok")],
            bucket="state_change",
            check={"insert": {"alarms": [{"time": "07:00"}]}},
        )

    fam = Family("test.broken", "basic", "1.3", broken, {})
    with pytest.raises(BuildError, match="InvalidArgumentValue"):
        build_task(fam, broken(Gen("wang_lei", random.Random(0))), "t-1", "wang_lei")


@settings(deadline=None)  # the first example opens a world
@given(st.integers(min_value=-30, max_value=30))
def test_phrasing_helpers_are_deterministic(days: int) -> None:
    a, b = Gen("maya_patel", random.Random(days)), Gen("maya_patel", random.Random(days))
    assert a.when(days) == b.when(days) and a.date(days) == b.date(days)
    assert a.say("x {v}", "y {v}", v=days) == b.say("x {v}", "y {v}", v=days)


def test_recovered_errors_are_real_error_types() -> None:
    names = {e.value for e in ErrorType}
    for t in FULL:
        assert set(filter(None, t.tags.get("recovers", "").split(","))) <= names


def test_the_non_members_of_a_set_of_orders_are_named_by_their_items() -> None:
    """ "Which of my orders are delivered?": another order is forbidden by its id and by what a person
    calls it, its items' titles (whole or by their first words), read from the world."""
    members = [{"$any": [{"$name": "Biore UV Aqua Rich"}, {"$name": "order_015"}]}]
    title = "Biore UV Aqua Rich Sunscreen SPF50+ 60ml"
    reads = [{"orders": [{"order_id": "order_015", "items": [{"item_id": "item_1", "title": title}]}]}]
    others = non_members(members, reads, "which of my orders are delivered?", "carlos_ruiz", {})
    assert "order_001" in others and "Dell XPS 14 Laptop" in others and "Dell XPS 14" in others
    assert not [o for o in others if states_name(f"order_015 ({title})", o)]
    assert [o for o in others if states_name(f"{title} and the Dell XPS 14", o)]


def test_the_candidates_of_a_superlative_answer_are_the_other_results() -> None:
    """ "The cheapest smartphone?": the other products the search returned, whole and by their first words;
    none holding the answer's name or held by it, none the user said."""
    products = [
        {"product_id": "p1", "title": "Xiaomi 15 Smartphone", "brand": "Xiaomi"},
        {"product_id": "p2", "title": "Apple iPhone 16 128GB Smartphone", "brand": "Apple"},
        {"product_id": "p3", "title": "Xiaomi 15 Ultra", "brand": "Xiaomi"},
        {"product_id": "p4", "title": "Google Pixel 9", "brand": "Google"},
    ]
    found = candidates("Xiaomi 15", [{"products": products}], "the cheapest phone but the Google Pixel 9?")
    assert found == ["Apple iPhone 16", "Apple iPhone 16 128GB Smartphone"]


def test_a_remembered_dog_trip_hotel_brand_takes_pets() -> None:
    """The memory of booking a brand when travelling with the dog holds only where that brand's hotel takes pets."""
    load_families()
    fam = FAMILIES["memory.specificity_hotel_brand_with_kids"]
    dog_trips = 0
    for persona in sorted(PERSONAS):
        for seed in range(12):
            g = Gen(persona, random.Random(seed))
            try:
                draft = fam.build(g)
            except BuildError:
                continue
            search = next(a["arguments"] for a in draft.gold if a["name"] == "search_hotels")
            hotels = [h for h in g.rows("world_hotels", {"city": search["city"]}) if h["brand"] == search["brand"]]
            pets = all("pet_friendly" in json.loads(h["amenities_json"]) for h in hotels)
            dog_trips += "the dog" in json.dumps(draft.patches)
            assert pets or "the dog" not in json.dumps(draft.patches), (persona, seed)
    assert dog_trips
