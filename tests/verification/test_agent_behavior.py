from __future__ import annotations

from typing import Any

import pytest

from sandbox.changes import TableDiff
from sandbox.tasks import AgentBehaviorCheck
from tests.verification.factories import err, ok, trajectory
from verification.checkers import check_agent_behavior

INPUTS = {"date": "2025-06-16", "start": "10:00", "end": "11:00", "attendees": 4}
GUI = ("call_gui_agent", {"app_id": "roombook", "goal": "Book a meeting room", "inputs": INPUTS})
ASK = ("ask_user", {"question": "Which room do you prefer?", "kind": "choose"})
BOOKING = {"room_booking_id": "rb_001", "room": "A-301", "date": "2025-06-16", "start": "10:00"}


def behaviour(**fields: Any) -> AgentBehaviorCheck:
    record: dict[str, Any] = {
        "route": "call_gui_agent",
        "handoff": {"app_id": "roombook", "inputs": {"date": "2025-06-16"}},
        "follow_up": {"tool": "ask_user", "args": {"kind": "choose"}},
    }
    return AgentBehaviorCheck.model_validate({**record, **fields})


def test_pass() -> None:
    assert check_agent_behavior(behaviour(), trajectory(GUI, ASK)) == []


def test_route_missing() -> None:
    failed = (*GUI, err("SubAgentFailed"))
    reasons = check_agent_behavior(behaviour(), trajectory(failed, ASK))
    assert reasons == ["route: call_gui_agent was never called successfully"]


def test_handoff_field_missing() -> None:
    incomplete = ("call_gui_agent", {"app_id": "roombook", "goal": "Book a room", "inputs": {"start": "10:00"}})
    reasons = check_agent_behavior(behaviour(), trajectory(incomplete, ASK))
    assert reasons == ["handoff: call_gui_agent at step 1: inputs.date: expected '2025-06-16', got <missing>"]


def test_handoff_satisfied_by_a_later_call() -> None:
    wrong = ("call_gui_agent", {"app_id": "maps", "goal": "x", "inputs": INPUTS})
    assert check_agent_behavior(behaviour(), trajectory(wrong, GUI, ASK)) == []


def test_follow_up_before_route_fails() -> None:
    reasons = check_agent_behavior(behaviour(), trajectory(ASK, GUI))
    assert reasons == ["follow-up ask_user({'kind': 'choose'}) came at step 1, before the route call at step 2"]


def test_follow_up_missing_or_wrong() -> None:
    assert check_agent_behavior(behaviour(), trajectory(GUI)) == [
        "follow-up ask_user({'kind': 'choose'}): never called successfully"
    ]
    worded = behaviour(follow_up={"tool": "ask_user", "args": {"question": {"$contains": "room"}}})
    assert "wrong arguments" in check_agent_behavior(worded, trajectory(GUI, ("ask_user", {"question": "OK?"})))[0]


@pytest.mark.parametrize("kind", ["confirm", "open", None])
def test_follow_up_matches_any_ask_user_kind(kind: str | None) -> None:
    asked = ("ask_user", {"question": "Which room?", **({"kind": kind} if kind else {})})
    assert check_agent_behavior(behaviour(), trajectory(GUI, asked)) == []


def test_follow_up_without_route_may_come_anywhere() -> None:
    check = behaviour(route=None, handoff={})
    assert check_agent_behavior(check, trajectory(ASK, GUI)) == []
    assert check_agent_behavior(check, trajectory(GUI)) != []


def test_state_is_checked() -> None:
    check = behaviour(state={"insert": {"room_bookings": [{"room": "a-301", "date": "2025-06-16"}]}})
    good = trajectory(GUI, ASK, diff={"room_bookings": TableDiff(inserted=[BOOKING])})
    assert check_agent_behavior(check, good) == []
    wrong = trajectory(GUI, ASK, diff={"room_bookings": TableDiff(inserted=[{**BOOKING, "date": "2025-06-17"}])})
    assert any(r.startswith("room_bookings: expected a row inserted") for r in check_agent_behavior(check, wrong))


def test_the_state_s_confirmation_is_a_go_ahead_not_any_question() -> None:
    """A booking that needs the user's go-ahead: the follow-up question alone does not give it."""
    yes = "Yes, book it."
    check = behaviour(
        state={
            "insert": {"room_bookings": [{"room": "a-301"}]},
            "ask_before": ["call_gui_agent"],
            "confirmed_by": [yes],
        }
    )
    booked = {"room_bookings": TableDiff(inserted=[BOOKING])}
    confirm = ("ask_user", {"question": "Book A-301 for 10:00?", "kind": "confirm"}, ok({"answer": yes}))
    assert check_agent_behavior(check, trajectory(confirm, GUI, ASK, diff=booked)) == []
    asked = ("ask_user", {"question": "Which floor do you prefer?"}, ok({"answer": "The third."}))
    assert check_agent_behavior(check, trajectory(asked, GUI, ASK, diff=booked)) == [
        f"ask first: step 2 call_gui_agent({GUI[1]!r}) acted although no question before it was "
        "answered with a go-ahead"
    ]


def test_the_facts_the_sub_agent_found_must_be_in_the_answer() -> None:
    """A receipt read off the screen and split: the share the user asked for is checked, not just the route."""
    check = behaviour(follow_up=None, answer=[{"$amount": {"value": 7.2, "currency": "USD"}}])
    finish = ("finish", {"answer": "Each of you owes $7.20."})
    assert check_agent_behavior(check, trajectory(GUI, finish)) == []
    wrong = check_agent_behavior(check, trajectory(GUI, ("finish", {"answer": "Each of you owes $9.60."})))
    assert len(wrong) == 1 and wrong[0].startswith("answer:")
    assert check_agent_behavior(check, trajectory(GUI)) == ["answer: the episode never finished with an answer"]


@pytest.mark.parametrize(
    "fields",
    [
        {"route": None, "handoff": {}, "follow_up": None},  # checks nothing
        {"route": None},  # handoff without a route
        {"route": "teleport_agent"},
        {"handoff": {"app_id": {"$nope": 1}}},
        {"follow_up": {"tool": "no_such_tool"}},
        {"answer": [{"$nope": 1}]},
    ],
)
def test_malformed_check_raises(fields: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        check_agent_behavior(behaviour(**fields), trajectory(GUI, ASK))
