"""The suite build's gates: unseen ids, schema examples, query lint, world lint and skill fit."""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from experiments.commands import task_suite
from experiments.commands import tasks as tasks_cli
from sandbox.generator import STRICT_ENV, gates, lint
from sandbox.generator.core import FAMILIES, Family, Gen, act, build_task, done
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import service_phone
from sandbox.generator.gates import Collector, GateError, Violation
from sandbox.generator.suite import Slot, build_slot
from sandbox.skills import SKILLS, Step
from sandbox.suite import load_split
from sandbox.tasks import Action, Task
from sandbox.tooling import REGISTRY

NOW = dt.datetime(2025, 1, 15, 18, 20)  # a Wednesday


# ---- skill fit -----------------------------------------------------------------------------------------------------

BACKUP_ONLY = [
    {"name": "load_skill", "arguments": {"skill_id": "device_cleanup_backup"}},
    {"name": "backup_data", "arguments": {"scope": ["photos"]}},
    {"name": "finish", "arguments": {"answer": "Backed up."}},
]
OK = {"Status": "success", "ErrorType": None, "Payload": {}}


def test_a_skill_step_that_changes_something_on_every_job_must_be_done_by_the_gold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A backup-only job under instructions that say, unconditionally, to delete files: a model that obeys
    deletes them and fails the strict check, so the gate flags the step; the shipped step says when."""
    assert gates.unfit_skill_steps("fam.x", "t-1", BACKUP_ONLY, [OK] * 3) == []
    skill = SKILLS["device_cleanup_backup"]
    literal = replace(skill, steps=(*skill.steps[:-1], Step("Delete the files the user named", ("delete_files",))))
    monkeypatch.setitem(SKILLS, skill.skill_id, literal)
    found = gates.unfit_skill_steps("fam.x", "t-1", BACKUP_ONLY, [OK] * 3)
    assert [(v.gate, v.subject) for v in found] == [("skill_fit", "Delete the files the user named")]
    # a failed call does not do the step either; reading steps never need doing
    failed = {**OK, "Status": "error"}
    deleting = [*BACKUP_ONLY[:2], {"name": "delete_files", "arguments": {}}, BACKUP_ONLY[2]]
    assert gates.unfit_skill_steps("fam.x", "t-1", deleting, [OK, OK, OK, OK]) == []
    assert len(gates.unfit_skill_steps("fam.x", "t-1", deleting, [OK, OK, failed, OK])) == 1


def test_instructions_say_when_each_optional_step_applies() -> None:
    text = SKILLS["bedtime_routine"].instructions
    assert "If the user gives a wake-up time: set one alarm at the wake-up time" in text
    assert "If the user asks about the lights: set the lights as asked" in text
    assert text.startswith("Do only what the user's request needs.")
    for skill in SKILLS.values():
        for step in skill.steps:
            assert step.when is not None or not any(REGISTRY[t].mutating for t in step.tools), (skill.skill_id, step)


# ---- entity ids and the unseen-id gate -------------------------------------------------------------------------


def test_entity_ids_are_generated_id_shapes_at_any_depth_without_placeholders() -> None:
    value = {
        "to": ["group_002", {"deep": "see photo_album_003 and video_051."}],
        "n": 3,
        "when": "2025-01-22",
        "path": "{{step1.records[0].memory_id}}",
        "words": "water_ml covid_19 snapshot_101",
    }
    assert gates.ids_in_value(value) == ["group_002", "photo_album_003", "video_051", "snapshot_101"]
    assert gates.ids_in_text("{{step2.contact_004}} and contact_005") == ["contact_005"]


def _unseen(prompt: list[str], gold: list[dict[str, Any]], results: list[Any]) -> list[Violation]:
    return gates.unseen_ids("fam.x", "t-1", prompt, gold, results)


OK = {"Status": "success", "ErrorType": None, "Payload": {}}


def test_an_id_the_model_never_saw_is_a_violation_with_its_step() -> None:
    gold = [act("search_videos", query="Startup Island"), act("play_video", video_id="video_051"), done("ok")]
    found = _unseen(["Now: Wednesday", "Play Startup Island"], gold, [OK, OK, OK])
    assert [(v.gate, v.family, v.task_id, v.step, v.subject) for v in found] == [
        ("unseen_id", "fam.x", "t-1", 2, "video_051")
    ]


@pytest.mark.parametrize(
    "prompt, earlier",
    [
        (["context", "Play video_051 please"], OK),  # the query
        (["context", "I liked video_051 yesterday", "play it again"], OK),  # H0
        (["The user's last video is video_051", "play it"], OK),  # the context
        (["context", "play Startup Island"], {**OK, "Payload": {"videos": [{"video_id": "video_051"}]}}),  # a result
    ],
)
def test_ids_from_the_prompt_or_an_earlier_result_are_seen(prompt: list[str], earlier: Any) -> None:
    gold = [act("search_videos", query="x"), act("play_video", video_id="video_051"), done("ok")]
    assert _unseen(prompt, gold, [earlier, OK, OK]) == []


def test_an_id_seen_only_later_or_as_a_longer_token_is_unseen() -> None:
    gold = [act("play_video", video_id="video_05"), act("search_videos", query="video_05"), done("ok")]
    later = {**OK, "Payload": {"videos": [{"video_id": "video_05"}]}}
    found = _unseen(["context", "play video_051"], gold, [OK, later, OK])
    assert [(v.step, v.subject) for v in found] == [(1, "video_05")]


def test_results_must_match_the_gold() -> None:
    with pytest.raises(ValueError, match="2 gold steps but 1 results"):
        _unseen(["q"], [act("a"), done("ok")], [OK])


def _balance(query: str) -> Draft:
    return Draft(
        query=query,
        gold=[act("get_account_balance", account_id="acct_003"), done("Here it is.")],
        bucket="tool_call",
        check={"calls": [{"tool": "get_account_balance"}]},
    )


@pytest.fixture
def collector(monkeypatch: pytest.MonkeyPatch) -> Iterator[Collector]:
    """A fresh collector in report mode, in place of the build's."""
    fresh = Collector()
    fresh.strict = False
    monkeypatch.setattr(gates, "COLLECTED", fresh)
    yield fresh


def test_build_task_records_an_unseen_id_in_report_mode(collector: Collector) -> None:
    fam = Family("test.balance", "basic", "7.1", lambda g: _balance("How much is in my wallet account?"), {})
    task = build_task(fam, fam.build(Gen("wang_lei", random.Random(0))), "t-1", "wang_lei")
    assert task.task_id == "t-1"
    unseen = [v for v in collector.violations if v.gate == "unseen_id"]
    assert [(v.family, v.task_id, v.step, v.subject) for v in unseen] == [("test.balance", "t-1", 1, "acct_003")]


def test_build_task_accepts_an_id_the_query_names_and_one_its_own_call_created(collector: Collector) -> None:
    named = Family("test.named", "basic", "7.1", lambda g: _balance("What is the balance of acct_003?"), {})
    build_task(named, named.build(Gen("wang_lei", random.Random(0))), "t-2", "wang_lei")

    def note_then_edit(g: Gen) -> Draft:
        return Draft(
            query="Make a note 'Milk' and then rename it to 'Oat milk'.",
            gold=[
                act("create_note", title="Milk", content="buy milk"),
                act("update_note", note_id=Gen.ref(1, "note_id"), title="Oat milk"),
                done("Done."),
            ],
            bucket="state_change",
            check={"insert": {"notes": [{"title": "Oat milk"}]}},
        )

    created = Family("test.created", "basic", "1.5", note_then_edit, {})
    build_task(created, note_then_edit(Gen("wang_lei", random.Random(0))), "t-3", "wang_lei")
    assert [v for v in collector.violations if v.gate == "unseen_id"] == []


def test_strict_gates_stop_the_build_naming_the_family_instead_of_retrying(
    collector: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def counted(g: Gen) -> Draft:
        calls.append(g.persona.persona_id)
        return _balance("How much is in my wallet account?")

    monkeypatch.setitem(FAMILIES, "test.strict", Family("test.strict", "basic", "7.1", counted, {}))
    monkeypatch.setattr(gates, "suite_violations", lambda: [])  # this test is about one family
    collector.strict = True
    with pytest.raises(GateError, match=r"test\.strict: 1 gate violation\(s\) in try-1.*acct_003"):
        build_slot(Slot("try-1", "test.strict"), 1, set())
    assert len(calls) == 1  # no retry on other personas


def test_collector_counts_every_gate_and_reads_its_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    v = Violation("query_lint", "f", "t", None, "a exam", "article")
    c = Collector()
    c.strict = False
    c.add([v, v])
    assert c.counts() == {g: 2 if g == "query_lint" else 0 for g in gates.GATES}
    monkeypatch.setenv(STRICT_ENV, "1")
    assert Collector().strict
    monkeypatch.setenv(STRICT_ENV, "maybe")
    with pytest.raises(ValueError, match="must be 0 or 1"):
        Collector()


# ---- the confirmation rule -------------------------------------------------------------------------------------


def _uninstall(asked: bool) -> Draft:
    """Uninstall Chat: the gold asks first (the rule) or treats the request as the go-ahead."""
    ask = [act("ask_user", question="Uninstall Chat?", kind="confirm")] if asked else []
    return Draft(
        query="Uninstall the Chat app",
        gold=[*ask, act("uninstall_app", app_id="chat", confirm=True), done("Uninstalled Chat.")],
        bucket="state_change",
        check={"update": {"apps": [{"match": {"app_id": "chat"}, "set": {"installed": 0}}]}},
        script=[{"answer": "Yes, uninstall it.", "kind": "confirm"}],
    )


@pytest.mark.parametrize("asked", [True, False])
def test_a_guarded_action_needs_a_question_first_and_the_check_requires_it(collector: Collector, asked: bool) -> None:
    fam = Family("test.uninstall", "basic", "4.1", lambda g: _uninstall(asked), {})
    task = build_task(fam, fam.build(Gen("wang_lei", random.Random(0))), "t-c", "wang_lei")
    found = [(v.step, v.subject, v.detail) for v in collector.violations if v.gate == "confirmation"]
    if asked:
        assert found == []
        assert task.check.ask_before == ["uninstall_app"]  # type: ignore[union-attr]
        assert task.check.confirmed_by == ["Yes, uninstall it."]  # type: ignore[union-attr]
    else:
        assert found == [(1, "uninstall_app", "sets confirm=true before the user confirmed")]


def test_a_guarded_action_the_check_lets_pass_unasked_is_a_violation() -> None:
    fam = Family("test.uninstall", "basic", "4.1", lambda g: _uninstall(True), {})
    task = build_task(fam, fam.build(Gen("wang_lei", random.Random(0))), "t-c", "wang_lei")
    lax = task.model_copy(update={"check": task.check.model_copy(update={"ask_before": [], "confirmed_by": []})})
    found = gates.unconfirmed_guards("test.uninstall", lax, task_suite.replay(lax).results)
    assert [(v.step, v.detail) for v in found] == [(2, "acts unasked as far as the check goes (no ask_before)")]


@pytest.mark.parametrize("checked", [True, False])
def test_a_delegated_question_needs_an_answer_check(collector: Collector, checked: bool) -> None:
    def ask_pharmacy(g: Gen) -> Draft:
        return Draft(
            query=f"Call Corner Pharmacy at {service_phone(g, 'Corner Pharmacy')} and ask whether they have insulin",
            gold=[
                act(
                    "call_voice_agent",
                    callee={"phone": service_phone(g, "Corner Pharmacy")},
                    objective="Ask about insulin",
                    facts={},
                ),
                done("I called them."),
            ],
            bucket="agent_behavior",
            check={"route": "call_voice_agent"},
            answer=[{"$name": "out of stock"}] if checked else None,
        )

    fam = Family("test.pharmacy", "subagent", "12.6", ask_pharmacy, {})
    task = build_task(fam, fam.build(Gen("wang_lei", random.Random(0))), "t-d", "wang_lei")
    assert task.tags.get("asks") == "facts"
    found = [v.subject for v in collector.violations if v.gate == "delegated_answer"]
    assert found == ([] if checked else ["call_voice_agent"])


def test_every_guarded_tool_states_the_confirmation_rule() -> None:
    from sandbox.tooling import CONFIRM_RULE, REGISTRY

    guarded = [s for s in REGISTRY.values() if "confirm" in s.parameters.get("properties", {})]
    assert len(guarded) >= 19
    assert all(CONFIRM_RULE in s.parameters["properties"]["confirm"]["description"] for s in guarded)


# ---- schema examples -------------------------------------------------------------------------------------------


def test_no_tool_schema_prints_an_id_that_exists_in_a_world() -> None:
    assert list(gates.schema_violations()) == []
    assert {"group_002", "contact_004", "video_051"} <= gates.world_ids()


def test_a_schema_example_that_is_a_real_id_is_a_violation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        gates,
        "schema_texts",
        lambda: {
            "send_chat_message": '{"description": "A contact id (contact_904) or a group chat id (group_002)."}',
            "load_skill (x)": "Loads the trip planner; e.g. trip_902.",
        },
    )
    found = gates.schema_violations.__wrapped__()
    assert [(v.gate, v.family, v.task_id, v.subject) for v in found] == [
        ("schema_example", gates.SCHEMAS, "send_chat_message", "group_002")
    ]


def test_schema_texts_cover_framework_tools_and_skills() -> None:
    texts = gates.schema_texts()
    assert {"finish", "search_memory", "call_monitor_agent", "send_chat_message"} <= set(texts)
    assert any(name.startswith("load_skill (") for name in texts)


# ---- query lint ------------------------------------------------------------------------------------------------


def _rules(text: str) -> list[str]:
    return [f.rule for f in lint.query_findings(text, NOW)]


@pytest.mark.parametrize(
    "text, rule",
    [
        ("Pay the electricity bill bill now", "doubled_word"),
        ("The The Art of War audiobook", "doubled_word"),
        ("Play the The Art of War audiobook", "doubled_word"),
        ("Please put the Costco card in my wallet Please.", "please_twice"),
        ("Add a exam to my calendar", "article"),
        ("Book a orthopedics visit", "article"),
        ("A orthopedics visit, please", "article"),
        ("Buy an book", "article"),
        ("Set a reminder for on 2025-01-22 at 10 am", "preposition_pair"),
        ("Set a reminder for on Thursday at 11:15 am", "preposition_pair"),
        ("Tell them I'm on track., then send it", "stray_punctuation"),
        ("Tell them I'm on track. , then send it", "stray_punctuation"),
        ("Book Sunday lunch, on 2025-01-22", "weekday_date"),
        ("Book it for Friday 2025-01-22", "weekday_date"),
        ("Meet on Monday, March 12", "weekday_date"),
        ("Book a table tomorrow, Saturday", "weekday_date"),
        ("Reserve our Sunday lunches spot on 2025-01-26 at 5:30pm", "meal_time"),
        ("Dinner at the harbour, 2025-05-30, 15:30", "meal_time"),
        ("Breakfast at 2pm", "meal_time"),
    ],
)
def test_each_query_rule_catches_its_slip(text: str, rule: str) -> None:
    assert rule in _rules(text)


@pytest.mark.parametrize(
    "text",
    [
        "Get me a one-way ticket and an hour of parking",
        "Book a HIIT class and send an SMS to Mom, then a unit test and a European trip",
        "Plan A is fine",
        "Turn the alarm back on for 5:30 pm, check in for that flight, what do 50 EUR come to in CNY?",
        "Please put the card in my wallet",
        "Keep that in memory please, and tell her please call me",
        "Book Sunday lunch on 2025-01-19 at 12:30, then dinner on Thursday 2025-01-16 at 7pm",
        "Book a table tomorrow, Thursday, for breakfast at 8am",
        "Lunch on 2025-01-22? No: book the Wednesday dinner at 7:30 pm",
        "Record it as due on 2025-02-09 09:00",
        "Prices rose 4.5% in 2025... really",
    ],
)
def test_query_rules_pass_clean_text(text: str) -> None:
    assert _rules(text) == []


def test_a_task_lints_its_query_and_h0_user_turns() -> None:
    task = Task.model_validate(
        {
            **load_split("full.jsonl")[0].model_dump(),
            "query": "Add a exam",
            "history": [
                {"role": "user", "content": "the bill bill"},
                {"role": "assistant", "content": "a exam is fine here"},
            ],
        }
    )
    found = gates.query_violations("fam", task)
    assert sorted(v.subject for v in found) == ["a exam", "bill bill"]


# ---- world lint ------------------------------------------------------------------------------------------------


def _mem(mid: str, content: str, valid_from: str = "2024-01-10", status: str = "active") -> dict[str, Any]:
    return {"memory_id": mid, "content": content, "valid_from": valid_from, "created_at": valid_from, "status": status}


def _contact(cid: str, name: str, relationship: str | None, birthday: str | None = None) -> dict[str, Any]:
    return {"contact_id": cid, "name": name, "relationship": relationship, "birthday": birthday}


def test_memory_dated_after_now() -> None:
    found = lint.memory_after_now(
        [
            _mem("mem_001", "Gym moved", "2025-05-02"),
            _mem("mem_002", "ok", "2025-01-15"),
            _mem("mem_003", "later today", "2025-01-15T19:00"),
        ],
        NOW,
    )
    assert [f.subject for f in found] == ["mem_001", "mem_003"]


def test_relationships_that_contradict_each_other_or_the_memory() -> None:
    contacts = [
        _contact("contact_001", "Lily Chen", "spouse"),
        _contact("contact_002", "Zhang Min", "mother", "1960-05-23"),
        _contact("contact_003", "Ana Silva", "mother"),
        _contact("contact_004", "Ben Kim", "friend"),
    ]
    memories = [
        _mem("mem_001", "Lily Chen is my wife; she prefers texts"),
        _mem("mem_002", "Mom (Zhang Min) birthday is April 18"),
        _mem("mem_003", "Ben Kim is my brother"),
        _mem("mem_004", "Ben Kim is my cousin"),
    ]
    found = lint.relationships(memories, contacts)
    subjects = {(f.subject, f.detail.split(" ")[0]) for f in found}
    assert ("mother", "held") in subjects  # Zhang Min and Ana Silva
    assert ("Zhang Min", "birthday") in subjects
    assert ("Ben Kim", "is") in subjects  # brother and cousin
    assert all(f.subject != "Lily Chen" for f in found)  # wife is spouse


def test_consistent_relationships_pass() -> None:
    contacts = [
        _contact("contact_001", "Lily Chen", "spouse"),
        _contact("contact_002", "Zhang Min", "mother", "1960-04-18"),
        _contact("contact_003", "Diego Ivanova", "neighbor"),
    ]
    memories = [
        _mem("mem_001", "Lily Chen is my wife"),
        _mem("mem_002", "Mom (Zhang Min) birthday is April 18"),
        _mem("mem_003", "Diego Ivanova is my climbing partner"),
        _mem("mem_004", "Ana Silva is my mother", status="superseded"),
    ]
    assert lint.relationships(memories, contacts) == []


def test_stale_temporary_facts() -> None:
    stale = _mem("mem_901", "Rosa is spending the year in Berlin", "2022-04-15")
    fresh = _mem("mem_902", "Rosa is spending the year in Berlin", "2024-06-01")
    lasting = _mem("mem_903", "Rosa lives in Berlin", "2020-01-01")
    assert lint.stale_temporary(stale, NOW) is not None
    assert lint.stale_temporary(fresh, NOW) is None and lint.stale_temporary(lasting, NOW) is None


def test_a_task_that_requires_a_stale_temporary_fact_is_a_violation() -> None:
    base = load_split("full.jsonl")[0]
    record = {
        **_mem("mem_901", "Rosa is spending the year in Berlin", "2022-04-15"),
        "category": "profile",
        "entities_json": json.dumps(["Rosa"]),
        "source": "user_stated",
        "valid_to": None,
        "superseded_by": None,
        "updated_at": "2022-04-15",
    }
    patches = base.initial_state.patches.model_copy(update={"insert": {"memory_records": [record]}})
    state = base.initial_state.model_copy(update={"patches": patches})
    used = base.model_copy(update={"initial_state": state, "required_memory_ids": ["mem_901"]})
    unused = base.model_copy(update={"initial_state": state, "required_memory_ids": []})
    assert [v.subject for v in gates.task_world_violations("fam", used)] == ["mem_901"]
    assert gates.task_world_violations("fam", unused) == []


def test_the_seeded_worlds_are_consistent() -> None:
    """No persona world holds memory dated after its now or contradicting relationships (the crafted
    cases above show each rule can fire)."""
    assert gates.world_violations() == ()


# ---- the command -----------------------------------------------------------------------------------------------


def test_gates_command_refuses_an_unknown_family(capsys: pytest.CaptureFixture[str]) -> None:
    assert tasks_cli.main(["gates", "--family", "no_such_family"]) == 2
    assert "no family starts with 'no_such_family'" in capsys.readouterr().err
    assert tasks_cli.main(["gates", "--split", "no_such_file.jsonl"]) == 2
    assert "split file 'no_such_file.jsonl' not found" in capsys.readouterr().err


def test_gates_report_groups_by_family_with_counts() -> None:
    found = [
        Violation("unseen_id", "a.fam", "t-1", 2, "video_051", "never sent"),
        Violation("query_lint", "b.fam", "t-2", None, "a exam", "article"),
        Violation("unseen_id", "b.fam", "t-3", 1, "group_002", "never sent"),
    ]
    text = task_suite.gates_report(found, as_json=False)
    counts = (
        "unseen_id 2, schema_example 0, query_lint 1, world_lint 0, skill_fit 0, confirmation 0, delegated_answer 0, "
        "free_choice 0, ambiguous_referent 0"
    )
    assert text.splitlines()[0] == f"gate counts: {counts}"
    assert text.index("b.fam: 2 violation(s) in 2 task(s)") < text.index("a.fam: 1 violation(s)")
    doc = json.loads(task_suite.gates_report(found, as_json=True))
    assert doc["counts"]["unseen_id"] == 2 and [v["task_id"] for v in doc["families"]["b.fam"]] == ["t-2", "t-3"]


def test_gates_command_builds_drafts_of_the_named_families(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(
        FAMILIES,
        "test.cmd_balance",
        Family("test.cmd_balance", "basic", "7.1", lambda g: _balance("How much is in my wallet account?"), {}),
    )
    monkeypatch.setattr(gates, "COLLECTED", Collector())
    assert tasks_cli.main(["gates", "--family", "test.cmd_", "-n", "1", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert list(doc["families"]) == ["test.cmd_balance"]
    assert [(v["gate"], v["step"], v["subject"]) for v in doc["families"]["test.cmd_balance"]] == [
        ("unseen_id", 1, "acct_003")
    ]


def test_validate_chunks_return_the_gate_violations_with_the_self_check() -> None:
    task = Task.model_validate({**load_split("full.jsonl")[0].model_dump(), "query": "Add a exam"})
    outcomes, found = task_suite._check_chunk([(task, "some.family")])
    assert outcomes and [(v.gate, v.family, v.subject) for v in found] == [("query_lint", "some.family", "a exam")]


# ---- skill fit: the job is the skill's --------------------------------------------------------------------------


def test_a_job_whose_decisive_call_several_skills_share_needs_one_of_the_skills_every_job_steps() -> None:
    """A plain chat message under the event planner: its steps are about events, so the job is not its."""
    chat = [
        {"name": "load_skill", "arguments": {"skill_id": "event_outing_planner"}},
        {"name": "send_chat_message", "arguments": {"chat_id": "chat_001", "text": "hi"}},
        {"name": "finish", "arguments": {"answer": "Sent."}},
    ]
    found = gates.unfit_skill_steps("fam.x", "t-1", chat, [OK] * 3)
    assert [(v.gate, v.subject) for v in found] == [("skill_fit", "event_outing_planner")]
    outing = [chat[0], {"name": "search_events", "arguments": {"query": "Jazz"}}, *chat[1:]]
    assert gates.unfit_skill_steps("fam.x", "t-1", outing, [OK] * 4) == []


# ---- ambiguous referents ---------------------------------------------------------------------------------------


def _order_task(query: str, answers: list[str] = ()) -> Task:  # type: ignore[assignment]
    return Task.model_validate(
        {
            "task_id": "t-amb",
            "category": "basic",
            "domain": "D6",
            "l2": "6.4",
            "query": query,
            "initial_state": {"world": "lena_weber"},
            "candidate_tools": ["list_orders", "cancel_order"],
            "bucket": "state_change",
            "gold": [
                {"name": "list_orders", "arguments": {"query": "Roomba j7+"}},
                {"name": "cancel_order", "arguments": {"order_id": "order_014"}},
                {"name": "finish", "arguments": {"answer": "Cancelled."}},
            ],
            "check": {"update": {"orders": [{"match": {"order_id": "order_014"}, "set": {"status": "cancelled"}}]}},
            "user_script": [{"answer": a} for a in answers],
        }
    )


ORDERS = {
    **OK,
    "Payload": {
        "orders": [
            {"order_id": "order_014", "status": "pending", "placed_at": "2025-06-01T10:00", "items": ["Roomba j7+"]},
            {"order_id": "order_017", "status": "shipped", "placed_at": "2025-05-20T10:00", "items": ["Roomba j7+"]},
        ]
    },
}


@pytest.mark.parametrize(
    ("query", "ambiguous"),
    [
        ("Cancel my Roomba j7+ order", True),
        ("Cancel my pending Roomba j7+ order", False),  # a value only the chosen row has
        ("Cancel the Roomba j7+ order I placed on 2025-06-01", False),  # its date
        ("Cancel my latest Roomba j7+ order", False),  # an order the rows carry
    ],
)
def test_a_change_on_one_of_several_rows_the_request_matches_needs_something_said_that_picks_it(
    query: str, ambiguous: bool
) -> None:
    found = gates.ambiguous_referents("fam.x", _order_task(query), [ORDERS, OK, OK])
    expected = [("ambiguous_referent", "order_014", 2)] if ambiguous else []
    assert [(v.gate, v.subject, v.step) for v in found] == expected


def test_a_referent_the_gold_asks_the_user_about_is_resolved_by_the_scripted_answer() -> None:
    task = _order_task("Cancel my Roomba j7+ order", ["The pending one."])
    asked = task.model_copy(
        update={"gold": [task.gold[0], Action(name="ask_user", arguments={"question": "Which order?"}), *task.gold[1:]]}
    )
    assert gates.ambiguous_referents("fam.x", asked, [ORDERS, OK, OK, OK]) == []
