"""The build's derivation of a check: answer facts, evidence items, dependencies and confirmations."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from sandbox.generator.answers import (
    ASKS_FACTS,
    agent_texts,
    confirmations,
    confirmed_tools,
    delegated_question,
    derive_answer,
    is_information,
    missing_answer,
    verdict_about,
)
from sandbox.generator.evidence import derive_calls, payload_evidence
from tests.verification.factories import err, make_task, ok

TODAY = dt.date(2025, 12, 4)  # a Thursday


def test_facts_the_answer_states_and_the_reads_returned_are_required() -> None:
    quote = {
        "pickup": {"name": "Blue Supermarket"},
        "quotes": [
            {"quote_id": "quote_001", "ride_type": "xl", "fare": 15.24, "currency": "USD", "pickup_eta_min": 10}
        ],
    }
    answer = "An XL from Blue Supermarket costs $15.24 and arrives in 10 minutes."
    assert derive_answer(answer, [quote], "fare for an XL from the supermarket", TODAY) == [
        {"$amount": {"value": 15.24, "currency": "USD"}},
        {"$number": 10},
        {"$name": "Blue Supermarket"},
    ]


def test_what_the_user_said_or_the_reads_lack_is_not_required() -> None:
    converted = {"amount": 100.0, "from_currency": "USD", "to_currency": "EUR", "rate": 0.92, "converted": 92.0}
    assert derive_answer("100 USD is 92.00 EUR, about 13% less.", [converted], "convert 100 USD to EUR", TODAY) == [
        {"$amount": {"value": 92.0, "currency": "EUR"}}
    ]


def test_dates_times_and_counts() -> None:
    agenda = {
        "date": "2025-12-05",
        "events": [
            {"event_id": "event_001", "title": "Standup", "start": "2025-12-05T09:00"},
            {"event_id": "event_002", "title": "Design review", "start": "2025-12-05T14:30"},
        ],
        "count": 2,
    }
    answer = "Tomorrow, 5 December: two events, Standup at 9am and Design review at 2:30 PM."
    assert derive_answer(answer, [agenda], "what's on tomorrow?", TODAY) == [
        {"$any": [{"$date": "2025-12-05"}, {"$name": "tomorrow"}, {"$name": "Friday"}]},
        {"$time": "09:00"},
        {"$time": "14:30"},
        {"$count": 2},
        {"$name": "Design review"},
        {"$name": "Standup"},
    ]


def test_none_where_the_answer_says_so_and_a_read_came_back_empty() -> None:
    empty = {"transactions": [], "count": 0, "total_debits": 0}
    assert derive_answer("No Metro top-ups since then.", [empty], "Metro top-ups since 2025-01-08?", TODAY) == [
        {"$none": True}
    ]
    assert derive_answer("Here is your spending.", [empty], "Metro top-ups?", TODAY) == []


def test_information_tasks_and_their_missing_answer_checks() -> None:
    assert is_information("tool_call", ["search_contacts", "finish"], {})
    assert not is_information("tool_call", ["set_location_services", "get_weather", "finish"], {})
    assert not is_information("state_change", ["search_contacts", "finish"], {})
    bare = make_task(check={"calls": [{"tool": "search_contacts"}]})
    assert missing_answer(bare)
    assert not missing_answer(make_task(check={"calls": [{"tool": "search_contacts"}], "answer": [{"$count": 1}]}))


def test_a_sub_agent_task_the_user_asked_facts_of_is_an_information_task() -> None:
    """The family's tag decides: a screen read that feeds an action and one that answers look the same."""
    asks = dict([ASKS_FACTS])
    assert is_information("agent_behavior", ["call_screen_reader_agent", "calculate", "finish"], asks)
    assert not is_information("agent_behavior", ["call_screen_reader_agent", "calculate", "finish"], {})
    assert not is_information("state_change", ["search_contacts", "finish"], asks)  # its product is the change
    split = {"route": "call_screen_reader_agent", "handoff": {"source": {"type": "photo", "id": "photo_137"}}}
    task = make_task(bucket="agent_behavior", check=split, tags=asks, category="subagent", l2="12.5", domain="D12")
    assert missing_answer(task)
    assert not missing_answer(
        task.model_copy(
            update={"check": task.check.model_copy(update={"answer": [{"$amount": {"value": 7.2, "currency": "USD"}}]})}
        )
    )
    assert not missing_answer(task.model_copy(update={"tags": {}}))


CALL = {"name": "call_voice_agent", "arguments": {}}
SAID = {"Status": "success", "Payload": {"details": {"answer": "Early check-in from 09:30 is free for you."}}}


@pytest.mark.parametrize(
    ("query", "asks"),
    [
        ("Call the hotel and ask if I can check in early", True),
        ("Phone my carrier to check that roaming is free, then turn data on", True),
        ("Ring the shop and find out whether they open on Monday", True),
        ("What invoice is scan_0001.pdf? Rename it", True),
        ("Call Old Town Walks and book 2 places", False),
        ("Can you pause the porch light automation?", False),
        ("Someone texted asking for a door code; set it up", False),
    ],
)
def test_a_question_a_sub_agent_answers_is_a_delegated_question(query: str, asks: bool) -> None:
    assert delegated_question(query, [CALL], [SAID]) is asks
    assert not delegated_question(query, [CALL], [{"Status": "error", "Payload": {}}])  # nothing found out


def test_times_a_sub_agent_says_in_its_own_words_are_required_facts() -> None:
    spoken = agent_texts([CALL], [SAID])
    assert spoken == ["Early check-in from 09:30 is free for you."]
    assert derive_answer("You can check in from 09:30.", [SAID["Payload"]], "ask about 12:00", TODAY, spoken) == [
        {"$time": "09:30"}
    ]
    # a time the user said, or one the sub-agent never said, is no fact found
    assert derive_answer("Check-in at 12:00.", [SAID["Payload"]], "ask about 12:00", TODAY, spoken) == []


STABLE = {
    "rest_057": "world_restaurants",
    "rest_015": "world_restaurants",
    "order_020": "orders",
    "oitem_031": "order_items",
}


def test_evidence_of_rows_is_their_ids_and_what_the_call_computed() -> None:
    found = {
        "restaurants": [
            {
                "restaurant_id": "rest_057",
                "name": "Cedar Tree",
                "cuisine": "Lebanese",
                "rating": 4.4,
                "distance_km": 1.2,
            },
            {
                "restaurant_id": "rest_015",
                "name": "Sahara Grill",
                "cuisine": "Lebanese",
                "rating": 3.4,
                "distance_km": 2.5,
            },
        ],
        "count": 2,
        "near": "Work",
    }
    assert payload_evidence(found, {"cuisine": "Lebanese", "near": "work"}, [], "", STABLE) == [
        {"restaurant_id": "rest_057", "distance_km": 1.2},
        {"restaurant_id": "rest_015", "distance_km": 2.5},
    ]
    # only the row a later step or the answer uses
    assert payload_evidence(found, {}, [{"restaurant_id": "rest_015"}], "", STABLE) == [
        {"restaurant_id": "rest_015", "distance_km": 2.5}
    ]
    assert payload_evidence(found, {}, [], "Cedar Tree is closest.", STABLE) == [
        {"restaurant_id": "rest_057", "distance_km": 1.2}
    ]


def test_evidence_of_id_less_results_drops_echoes_generated_ids_and_volatile_fields() -> None:
    quote = {
        "ride_type": "xl",
        "quotes": [
            {
                "quote_id": "quote_001",
                "ride_type": "xl",
                "fare": 15.24,
                "expires_at": "2025-10-21T07:50:04",
                "trip_min": 9,
            }
        ],
    }
    assert payload_evidence(quote, {"ride_type": "xl"}, [], "", STABLE) == [{"fare": 15.24, "trip_min": 9}]
    # the answer singles out the values it states
    assert payload_evidence(quote, {"ride_type": "xl"}, [], "It's $15.24.", STABLE) == [{"fare": 15.24}]
    assert payload_evidence({"events": [], "count": 0}, {"city": "Seoul"}, [], "", STABLE) == [{"events": []}]


def test_a_stable_row_holds_its_nested_data() -> None:
    tracking = {
        "order_id": "order_020",
        "status": "pending",
        "events": [{"ts": "2025-03-04T05:05", "status": "placed"}],
        "items": [{"item_id": "oitem_031", "title": "Tumi Alpha Bravo"}],
    }
    assert payload_evidence(tracking, {"order_id": "order_020"}, [], "", STABLE) == [
        {"order_id": "order_020"},
        {"item_id": "oitem_031"},
        {"ts": "2025-03-04T05:05", "status": "placed"},
    ]


def gold(*steps: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"name": n, "arguments": a} for n, a in steps]


def test_dependencies_follow_values_first_seen_in_a_result() -> None:
    actions = gold(
        ("search_memory", {"query": "sister city"}),
        ("get_weather", {"location": "Shanghai"}),
        ("get_world_time", {"location": "Shanghai"}),
        ("get_world_time", {"location": "Paris"}),
    )
    results = [
        ok({"records": [{"memory_id": "mem_1", "content": "My sister lives in Shanghai"}]}),
        ok({"location": "Shanghai", "days": []}),
        ok({"timezone": "Asia/Shanghai"}),
        ok({"timezone": "Europe/Paris"}),
    ]
    calls = [{"tool": "get_weather"}, {"tool": "get_world_time"}, {"tool": "get_world_time"}]
    derived = derive_calls(calls, actions, results, "weather where my sister lives, and Paris time", "", {})
    # both Shanghai calls use the memory, not each other; Paris came from the user
    assert [c.get("after", []) for c in derived] == [[], [], []]
    listed = derive_calls(
        [{"tool": "list_orders"}, {"tool": "track_order"}],
        gold(("list_orders", {}), ("track_order", {"order_id": "order_020"})),
        [ok({"orders": [{"order_id": "order_020"}]}), ok({"order_id": "order_020"})],
        "",
        "",
        STABLE,
    )
    assert listed[1]["after"] == [0]


def test_a_failed_gold_step_is_no_source_and_no_expected_call() -> None:
    actions = gold(
        ("get_weather", {"location": "current"}),
        ("set_location_services", {"enabled": True}),
        ("get_weather", {"location": "current"}),
    )
    results = [err("ServiceDisabled"), ok({"updated": {}}), ok({"location": "Seoul", "units": "metric"})]
    derived = derive_calls([{"tool": "get_weather"}], actions, results, "weather here", "", {})
    assert derived == [{"tool": "get_weather", "evidence": [{"location": "Seoul", "units": "metric"}]}]


def test_confirmed_tools_are_those_the_gold_asks_before_and_the_user_confirms() -> None:
    actions = gold(
        ("search_contacts", {}),
        ("ask_user", {"kind": "confirm", "question": "Delete?"}),
        ("delete_contact", {}),
        ("ask_user", {"kind": "choose", "question": "Which?"}),
        ("send_sms", {}),
        ("finish", {}),
    )
    results = [ok(), ok({"answer": "Yes."}), ok(), ok({"answer": "Yes."}), ok(), ok()]
    assert confirmed_tools(actions, results, ["Yes."]) == ["delete_contact"]
    assert confirmed_tools(actions, [ok()] * len(actions), ["Yes."]) == []  # the user never said it


def test_confirmations_are_the_script_s_go_aheads() -> None:
    script = [
        {"answer": "Tom Baker.", "slot": "name"},
        {"answer": "Yes, delete him."},
        {"answer": "Go ahead.", "kind": "confirm"},
        {"answer": "Yes, the second one.", "kind": "choose"},
    ]
    assert confirmations(script) == ["Yes, delete him.", "Go ahead."]


@pytest.mark.parametrize(
    ("question", "about"),
    [
        ("Has IB332 yesterday been delayed?", ["delayed", "late"]),
        ("Has parcel KP65 9137 6380 1 arrived yet?", ["arrived", "delivered"]),
        ("Will I need an umbrella there that day?", ["going to rain", "will rain"]),
        ("Any active weather alerts in Seoul? I mean flood warnings", ["flood warning"]),
        ("Is my car locked?", []),  # a state: read by $state
        ("Is there parking close to work?", []),  # either answer names the nearest parking
    ],
)
def test_a_yes_no_question_names_the_property_it_asks_about(question: str, about: list[str]) -> None:
    assert verdict_about(question) == about
