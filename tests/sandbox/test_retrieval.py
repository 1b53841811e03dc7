"""A0 retrieval: deterministic, solvable after the repair, skill tools hidden, recall reported."""

from __future__ import annotations

import sandbox.domains  # noqa: F401
from sandbox.retrieval import TOP_N, action_space, retrieve
from sandbox.skills import SKILLS


def test_retrieval_finds_the_obvious_tools_and_is_stable() -> None:
    found = retrieve("send a text message to my wife")
    assert "send_sms" in found and len(found) == TOP_N
    assert found == retrieve("send a text message to my wife")


def test_history_counts_as_query() -> None:
    assert "add_memory" not in retrieve("please")  # framework actions are never retrieved
    assert "set_alarm" in retrieve("yes please do that", ["Can you wake me up at 6 with an alarm?"])


def test_repair_puts_every_gold_tool_in_and_reports_recall_before() -> None:
    space = action_space("text my wife", [], ["send_sms", "get_flight_status"])
    assert {"send_sms", "get_flight_status"} <= set(space.tools) and len(space.tools) == TOP_N
    assert space.recall == 0.5
    assert space.tools == sorted(space.tools)


def test_skill_tools_stay_hidden() -> None:
    hidden = SKILLS["bedtime_routine"].tools
    space = action_space("quiet the phone for the night and set an alarm", [], ["set_alarm"], hidden)
    assert not set(hidden) & set(space.tools)
