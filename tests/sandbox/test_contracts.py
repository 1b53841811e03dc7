"""Sandbox contracts a model can read: monitor handoffs validated when made, GUI flows named by whole words,
cross-field rules stated in the schema, skill descriptions generated from their tools."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Connection

import sandbox.domains  # registers every tool
import sandbox.framework  # noqa: F401  (registers the framework actions)
from sandbox.domains.health.schema import GOAL_RANGES, PACE_KMH, SUMMARY_MAX_DAYS
from sandbox.domains.information.schema import LANGUAGES
from sandbox.domains.lifestyle.schema import COURIER_HOURS
from sandbox.domains.travel import tools as travel
from sandbox.executor import Executor
from sandbox.skills import SKILLS
from sandbox.subagents import GUI_FLOWS, path_parses, read_path
from sandbox.tooling import REGISTRY, tool
from tests.sandbox.conftest import diff_of

WATCH = {"tool": "search_contacts", "args": {"name": "Bob Stone"}, "path": "$.count", "op": "ge", "value": 1}


def _monitor(ex: Executor, condition: dict[str, Any], on_trigger: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {"condition": condition}
    args |= {"on_trigger": on_trigger} if on_trigger else {"notify_only": True}
    return ex.call("call_monitor_agent", args)


# ---- the monitor's condition and plan ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("condition", "names"),
    [
        ({**WATCH, "tool": "no_such_tool"}, "'no_such_tool' is not a tool"),
        ({**WATCH, "tool": "add_contact", "args": {"name": "X"}}, "changes state"),
        ({**WATCH, "tool": "search_memory", "args": {"query": "x"}}, "not an app tool"),
        ({**WATCH, "tool": "roombook_reserve"}, "not an app tool"),
        ({**WATCH, "args": {}}, "condition.args"),
        ({**WATCH, "args": {"name": "Bob", "colour": "red"}}, "condition.args"),
        ({**WATCH, "path": "$..count"}, "condition.path"),
        ({**WATCH, "path": "$.contacts[x]"}, "condition.path"),
        ({**WATCH, "path": ""}, "condition.path"),
        ({**WATCH, "path": "$.count."}, "condition.path"),
    ],
)
def test_a_monitor_that_could_never_fire_is_refused_when_made(
    conn: Connection, ex: Executor, condition: dict[str, Any], names: str
) -> None:
    env = _monitor(ex, condition)
    assert env["Status"] == "error" and env["ErrorType"] == "InvalidArgumentValue", env
    assert names in env["Payload"]["message"]
    assert diff_of(conn) == {}


@pytest.mark.parametrize(
    ("step", "names"),
    [
        ({"tool": "set_brightness", "args": {"level": "{{step2.Payload.count}}"}}, "earlier step"),
        ({"tool": "set_brightness", "args": {"level": "{{step1.Payload..count}}"}}, "is not a path"),
        (
            {"tool": "send_sms", "args": {"to": ["contact_001"], "body": "Count: {{step1.Payload.count}}"}},
            "whole value",
        ),
        ({"tool": "set_volume", "args": {"stream": "loud", "level": "{{step1.Payload.count}}"}}, "stream"),
        ({"tool": "set_volume", "args": {"level": "{{step1.Payload.count}}"}}, "stream"),
        ({"tool": "set_brightness", "args": {"level": 140}}, "level"),
    ],
)
def test_plan_steps_validate_except_where_a_placeholder_stands(
    conn: Connection, ex: Executor, step: dict[str, Any], names: str
) -> None:
    first = {"tool": "search_contacts", "args": {"name": "Bob Stone"}}
    env = _monitor(ex, WATCH, [first, step])
    assert env["ErrorType"] == "InvalidArgumentValue", env
    assert env["Payload"]["message"].startswith("on_trigger[2]") and names in env["Payload"]["message"], env


def test_a_placeholder_may_stand_for_a_value_of_any_type(ex: Executor) -> None:
    plan = [
        {"tool": "search_contacts", "args": {"name": "Bob Stone"}},
        {"tool": "set_brightness", "args": {"level": "{{step1.Payload.count}}"}},
    ]
    assert _monitor(ex, WATCH, plan)["Status"] == "success"


def test_an_unknown_plan_tool_is_not_available(ex: Executor) -> None:
    env = _monitor(ex, WATCH, [{"tool": "no_such_tool", "args": {}}])
    assert env["ErrorType"] == "ToolNotAvailable" and "on_trigger[1]" in env["Payload"]["message"]


_KEYS = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)
_PARTS = st.lists(st.one_of(_KEYS.map(lambda k: "." + k), st.integers(0, 9).map(lambda i: f"[{i}]")), max_size=5)


@given(_PARTS)
def test_every_path_in_the_grammar_parses_and_reads(parts: list[str]) -> None:
    path = "$" + "".join(parts)
    assert path_parses(path)
    read_path({"a": [1]}, path)  # never raises


@given(st.text(alphabet="$.[]ab0 ", min_size=1, max_size=12))
def test_a_path_parses_only_if_it_reads_as_written(path: str) -> None:
    """A path that parses means what it says: its parts joined back give the path itself."""
    if path_parses(path):
        body = path.removeprefix("$")
        rebuilt = "".join(
            f"[{i}]" if i else ("." if n or path.startswith("$") else "") + k
            for n, (k, i) in enumerate(re.findall(r"([^.\[\]]+)|\[(\d+)\]", body))
        )
        assert rebuilt == body


# ---- GUI flows are named by whole words ---------------------------------------------------------------------


def _flow(intent: str) -> Any:
    return next(f for f in GUI_FLOWS if f.intent == intent)


@pytest.mark.parametrize(
    ("goal", "named"),
    [
        ("Create a group named Hikers", False),
        ("Open the chat with the person named Ana", False),
        ("Rename the Project Phoenix group to Phoenix Core", True),
        ("Change the group's name to Phoenix Core", True),
        ("Change the names of the group", True),
        ("Set the group NAME to X", True),
        ("nickname the group", False),
    ],
)
def test_rename_is_named_by_whole_words(goal: str, named: bool) -> None:
    assert _flow("rename_group").named_by(goal) is named


@given(
    st.sampled_from([k for f in GUI_FLOWS for k in f.keywords if not k.endswith("*") and " " not in k]),
    st.from_regex(r"[a-z]{1,4}", fullmatch=True),
    st.sampled_from(["before", "after"]),
)
def test_a_keyword_inside_a_longer_word_names_no_flow(keyword: str, letters: str, side: str) -> None:
    word = letters + keyword if side == "before" else keyword + letters
    if letters in ("s", "es") and side == "after":
        word = keyword + "x" + letters  # the plural form is the keyword itself
    owners = [f for f in GUI_FLOWS if keyword in f.keywords]
    assert not any(f.named_by(f"Please {word} it now") for f in owners if not _other_keyword_in(f, word))


def _other_keyword_in(flow: Any, word: str) -> bool:
    return any(k.endswith("*") and word.startswith(k[:-1]) for k in flow.keywords)


def test_stems_and_plurals_name_their_flows() -> None:
    assert _flow("recategorize_transaction").named_by("Change the category of txn_485 to bills")
    assert _flow("recategorize_transaction").named_by("Recategorise it") is False
    assert _flow("reserve_ticket").named_by("Buy 2 tickets for Saturday")
    assert _flow("reserve_ticket").named_by("Make a reservation for two")
    assert _flow("book_meeting_room").named_by("Find a free room for six")


def test_the_gui_agent_refuses_a_goal_that_names_no_flow(ex: Executor) -> None:
    env = ex.call(
        "call_gui_agent",
        {"app_id": "chat", "goal": "Create a group named Hikers", "inputs": {"group": "Hikers", "new_name": "Hikers"}},
    )
    assert env["ErrorType"] == "SubAgentFailed" and env["Payload"]["reason"] == "no_matching_flow", env
    named = ex.call(
        "call_gui_agent",
        {
            "app_id": "chat",
            "goal": "Change the group's name to Hikers",
            "inputs": {"group": "Hikers", "new_name": "Hikers"},
        },
    )
    assert named["Payload"].get("reason") == "no_group", named  # the rename flow ran, and found no such group


# ---- cross-field rules are stated in the schema ---------------------------------------------------------------

CHECKED = sorted(n for n, s in REGISTRY.items() if s.check is not None)


def test_every_checked_tool_states_its_rule_in_the_schema() -> None:
    assert len(CHECKED) >= 50
    for name in CHECKED:
        spec = REGISTRY[name]
        description = spec.openai_schema()["function"]["description"]
        assert spec.rule and description.endswith(spec.rule) and description.startswith(spec.description), name


def test_the_screen_reader_states_question_xor_fields() -> None:
    description = REGISTRY["call_screen_reader_agent"].openai_schema()["function"]["description"]
    assert "exactly one of question or extract_fields" in description


def test_the_monitor_states_its_rules() -> None:
    description = REGISTRY["call_monitor_agent"].openai_schema()["function"]["description"]
    assert "on_trigger" in description and "notify_only" in description and "condition.path" in description


def _names_in(value: Any) -> set[str]:
    """Every property name and enum value in a schema."""
    found: set[str] = set()
    if isinstance(value, dict):
        found |= set(value.get("properties", {})) | {str(v) for v in value.get("enum", [])}
        for v in value.values():
            found |= _names_in(v)
    elif isinstance(value, list):
        for v in value:
            found |= _names_in(v)
    return found


@pytest.mark.parametrize("name", CHECKED)
def test_a_rule_names_only_real_arguments_and_values(name: str) -> None:
    """A rule that names an argument the tool lacks has drifted from the tool (snake_case words are names)."""
    spec = REGISTRY[name]
    known = _names_in(spec.parameters) | set(REGISTRY)
    named = {w for w in re.findall(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b(?!_)", spec.rule) if not w.endswith("_")}
    assert named <= known, (name, sorted(named - known))


def test_rules_that_quote_data_match_it() -> None:
    def rule(tool_name: str) -> str:
        return REGISTRY[tool_name].rule

    assert all(
        f"{seats} for" in rule("book_ride") or f"{seats} for {kind}" in rule("book_ride")
        for kind, (_, seats, _) in travel.RIDE_TYPES.items()
    )
    assert all(kind in rule("book_ride") for kind in travel.RIDE_TYPES)
    assert all(prefix in rule("add_itinerary_item") for prefix in travel.REF_PREFIX.values())
    assert all(code in rule("translate_text") for code in LANGUAGES)
    assert all(hour in rule("schedule_courier_pickup") for hour in COURIER_HOURS)
    assert str(SUMMARY_MAX_DAYS) in rule("get_activity_summary")
    assert all(kind in rule("log_workout") for kind in PACE_KMH)
    assert all(f"{metric} {lo}-{hi}" in rule("set_fitness_goal") for metric, (lo, hi) in GOAL_RANGES.items())


def test_a_check_that_states_no_rule_is_refused() -> None:
    def silent(args: dict[str, Any]) -> str | None:
        return None

    def probe_tool(ctx: Any) -> dict[str, Any]:
        """A tool that exists only in this test."""
        return {}

    with pytest.raises(ValueError, match="states no rule"):
        tool(domain="framework", app="assistant", mutating=False, check=silent)(probe_tool)
    assert "probe_tool" not in REGISTRY


def test_a_factory_check_states_the_names_it_was_made_with() -> None:
    assert REGISTRY["search_restaurants"].rule.startswith("Give at least one of query, cuisine, near")
    assert REGISTRY["get_app_permissions"].rule == "Give exactly one of app_id or permission."
    assert REGISTRY["search_flights"].rule == "return_date is not before date."


# ---- skills describe what their tools do -------------------------------------------------------------------


@pytest.mark.parametrize("skill_id", sorted(SKILLS))
def test_a_skill_description_says_what_each_tool_does(skill_id: str) -> None:
    skill = SKILLS[skill_id]
    for name in skill.tools:
        first = re.split(r"[.;](?:\s|$)", REGISTRY[name].description, maxsplit=1)[0]
        assert f"{name}: {first}" in skill.description, (skill_id, name)
    assert skill.description.startswith(skill.summary)


def test_the_meeting_organizer_tells_of_email() -> None:
    assert "send_email: Send an email" in SKILLS["meeting_organizer"].description


def test_the_load_skill_schema_carries_the_generated_descriptions() -> None:
    from sandbox.episode import Episode
    from sandbox.tasks import load_tasks
    from tests.sandbox.test_user_simulator import HANDWRITTEN

    task = next(t for t in load_tasks(HANDWRITTEN) if t.candidate_skills)
    with Episode(task) as episode:
        schema = next(s for s in episode.tool_schemas() if s["function"]["name"] == "load_skill")
    for skill_id in task.candidate_skills:
        assert SKILLS[skill_id].description in json.dumps(schema, ensure_ascii=False).replace('\\"', '"')
