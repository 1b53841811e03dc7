from __future__ import annotations

from typing import Any

import pytest

from sandbox.tasks import ToolCallCheck
from tests.verification.factories import err, ok, trajectory
from verification.checkers import check_tool_calls

SEARCH = ("search_contacts", {"name": "Lily"})
SMS = ("send_sms", {"to": ["contact_004"], "body": "Harbor Coffee, 12 Bay Rd"})


def check(*calls: dict[str, Any], answer: list[Any] | None = None) -> ToolCallCheck:
    return ToolCallCheck.model_validate({"calls": list(calls), "answer": answer or []})


# The SMS goes to the contact the search found: it depends on the search.
CHECK = check(
    {"tool": "search_contacts", "args": {"name": "lily"}},
    {"tool": "send_sms", "args": {"to": ["contact_004"], "body": {"$contains": "12 bay rd"}}, "after": [0]},
)


def test_pass() -> None:
    assert check_tool_calls(CHECK, trajectory(SEARCH, SMS, ("finish", {"answer": "done"}))) == []


def test_missing_call() -> None:
    reasons = check_tool_calls(CHECK, trajectory(SEARCH))
    assert len(reasons) == 1 and "send_sms" in reasons[0] and "never called successfully" in reasons[0]


def test_wrong_argument() -> None:
    wrong = ("send_sms", {"to": ["contact_005"], "body": "Harbor Coffee, 12 Bay Rd"})
    reasons = check_tool_calls(CHECK, trajectory(SEARCH, wrong))
    assert any("wrong arguments at step 2" in r and "to[0]" in r for r in reasons)
    assert any("unexpected side effect at step 2" in r for r in reasons)


def test_dependent_call_out_of_order() -> None:
    reasons = check_tool_calls(CHECK, trajectory(SMS, SEARCH))
    assert reasons == [
        "expected call #2 send_sms({'to': ['contact_004'], 'body': {'$contains': '12 bay rd'}}) "
        "uses the result of expected call #1 (search_contacts) but was only made before it (step 1)"
    ]
    independent = check(*(c.model_dump() | {"after": []} for c in CHECK.calls))
    assert check_tool_calls(independent, trajectory(SMS, SEARCH)) == []


def test_extra_mutating_call_fails() -> None:
    extra = ("add_contact", {"name": "Lily", "phone_number": "+86 139 0000 1234"})
    reasons = check_tool_calls(CHECK, trajectory(SEARCH, extra, SMS))
    assert reasons == [f"unexpected side effect at step 2: add_contact({extra[1]!r})"]


def test_repeated_mutating_call_fails() -> None:
    assert check_tool_calls(CHECK, trajectory(SEARCH, SMS, SMS))


@pytest.mark.parametrize(
    "extra",
    [
        ("search_messages", {"query": "rent"}),
        ("search_memory", {"query": "Lily"}),
        ("ask_user", {"question": "Which Lily?"}),
        ("load_skill", {"skill_id": "x"}),
    ],
)
def test_extra_read_only_call_ignored(extra: tuple[str, dict[str, Any]]) -> None:
    assert check_tool_calls(CHECK, trajectory(extra, SEARCH, extra, SMS, ("finish", {"answer": "ok"}))) == []


def test_failed_calls_ignored() -> None:
    failed_sms = ("send_sms", {"to": ["contact_004"], "body": "x"}, err("PermissionDenied"))
    assert check_tool_calls(CHECK, trajectory(failed_sms, SEARCH, SMS)) == []
    assert check_tool_calls(CHECK, trajectory(SEARCH, (*SMS, err()))) != []


def test_independent_calls_search_every_assignment() -> None:
    # Greedy would give the loose expectation the only message the tight one fits.
    unordered = check({"tool": "send_sms"}, {"tool": "send_sms", "args": {"body": {"$contains": "rent"}}})
    rent = ("send_sms", {"to": ["contact_004"], "body": "rent is due"})
    other = ("send_sms", {"to": ["contact_004"], "body": "hello"})
    assert check_tool_calls(unordered, trajectory(rent, other)) == []
    assert check_tool_calls(unordered, trajectory(other, other))


def test_mutating_framework_actions_count() -> None:
    memory = ("add_memory", {"content": "Likes tea", "category": "preference"})
    assert check_tool_calls(CHECK, trajectory(SEARCH, SMS, memory)) != []


def test_unknown_expected_tool_raises() -> None:
    with pytest.raises(ValueError, match="unknown tool"):
        check_tool_calls(check({"tool": "teleport"}), trajectory())


def test_malformed_matcher_raises_even_when_unreached() -> None:
    bad = check({"tool": "send_sms", "args": {"to": "x"}}, {"tool": "search_contacts", "args": {"name": {"$bad": 1}}})
    with pytest.raises(ValueError, match=r"\$bad"):
        check_tool_calls(bad, trajectory())


@pytest.mark.parametrize(
    ("calls", "message"),
    [
        ([{"tool": "search_contacts", "after": [1]}], r"calls\[0\]\.after: \[1\] is not the index"),
        ([{"tool": "search_contacts", "after": [0]}], r"calls\[0\]\.after: \[0\] is not the index"),
        ([{"tool": "search_contacts", "after": [1]}, {"tool": "send_sms", "after": [0]}], "cycle"),
    ],
)
def test_malformed_dependencies_raise(calls: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ToolCallCheck.model_validate({"calls": calls})


def test_malformed_evidence_or_answer_raises() -> None:
    with pytest.raises(ValueError, match=r"\$date"):
        check_tool_calls(check({"tool": "get_weather", "evidence": [{"date": {"$date": "June"}}]}), trajectory())
    with pytest.raises(ValueError, match=r"\$amount"):
        check_tool_calls(check({"tool": "get_weather"}, answer=[{"$amount": "lots"}]), trajectory())


def test_evidence_never_comes_from_a_mutating_call_or_for_one() -> None:
    payload = {"contacts": [{"contact_id": "contact_004"}]}
    read = check({"tool": "search_contacts", "args": {"name": "lily"}, "evidence": [{"contact_id": "contact_004"}]})
    assert check_tool_calls(read, trajectory(("search_messages", {"query": "lily"}, ok(payload)))) == []
    mutated = trajectory(("add_contact", {"name": "Lily"}, ok(payload)))
    assert any("never called successfully" in r for r in check_tool_calls(read, mutated))
    write = check({"tool": "add_contact", "args": {"name": "Lily"}, "evidence": [{"contact_id": "contact_004"}]})
    assert check_tool_calls(write, trajectory(("search_contacts", {"name": "x"}, ok(payload))))


def test_an_expected_ask_user_matches_whatever_its_kind() -> None:
    asked = check({"tool": "ask_user", "args": {"kind": "confirm"}})
    assert check_tool_calls(asked, trajectory(("ask_user", {"question": "Which Lily?", "kind": "choose"}))) == []
    assert check_tool_calls(asked, trajectory(("ask_user", {"question": "Go ahead?"}))) == []
