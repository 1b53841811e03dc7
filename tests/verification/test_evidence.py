"""Issue 18's examples as small tasks: the build derives evidence, order and answer facts from a
crafted gold, and the verifier accepts the reasonable solutions and rejects the wrong ones."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from sandbox.generator.answers import derive_answer
from sandbox.generator.evidence import derive_calls
from sandbox.tasks import ToolCallCheck
from tests.verification.factories import ok, trajectory
from verification.checkers import check_tool_calls

# Rows that exist before the episode (the build reads them from the persona's world) -> their table.
STABLE = {
    "flight_537": "world_flights",
    "flight_514": "world_flights",
    "flight_600": "world_flights",
    "rest_057": "world_restaurants",
    "rest_015": "world_restaurants",
    "rest_020": "world_restaurants",
    "order_018": "orders",
    "order_019": "orders",
    "order_020": "orders",
    "oitem_028": "order_items",
    "oitem_031": "order_items",
    "coupon_006": "coupons",
    "coupon_008": "coupons",
}
Gold = tuple[str, dict[str, Any], dict[str, Any]]


def built(calls: list[dict[str, Any]], gold: list[Gold], query: str = "", answer: str = "") -> ToolCallCheck:
    """The check the build makes of ``calls`` from a replayed gold of (tool, arguments, payload)."""
    actions = [{"name": name, "arguments": args} for name, args, _ in gold]
    results = [ok(payload) for _, _, payload in gold]
    derived = derive_calls(calls, actions, results, query, answer, STABLE)
    facts = derive_answer(answer, [p for _, _, p in gold], query, dt.date(2025, 12, 4)) if answer else []
    return ToolCallCheck.model_validate({"calls": derived, "answer": facts})


def finish(text: str = "Done.") -> tuple[str, dict[str, Any]]:
    return ("finish", {"answer": text})


# ---- a city or an IANA zone ------------------------------------------------------------------


def world_time(location: str, zone: str = "Europe/Zurich", local: str = "2025-12-04T22:50") -> dict[str, Any]:
    return {
        "location": location,
        "timezone": zone,
        "local_time": local,
        "weekday": "Thursday",
        "utc_offset": "+01:00",
        "dst": False,
        "user_timezone": "Asia/Seoul",
        "user_time": "2025-12-05T06:50",
    }


ZURICH = built(
    [{"tool": "get_world_time", "args": {"location": "Zurich"}}],
    [("get_world_time", {"location": "Zurich"}, world_time("Zurich"))],
)


def test_world_time_by_iana_zone_passes() -> None:
    zone = ("get_world_time", {"location": "Europe/Zurich"}, ok(world_time("Europe/Zurich")))
    assert check_tool_calls(ZURICH, trajectory(zone, finish())) == []


def test_world_time_of_another_city_fails() -> None:
    london = ("get_world_time", {"location": "London"}, ok(world_time("London", "Europe/London", "2025-12-04T21:50")))
    reasons = check_tool_calls(ZURICH, trajectory(london, finish()))
    assert reasons and "no read-only call returned its evidence" in reasons[0]


# ---- origin "London" or "LHR" ------------------------------------------------------------------


def flights(origin: str, offer: str, expires: str, flight: str = "flight_537") -> dict[str, Any]:
    leg = {
        "flight_id": flight,
        "flight_number": "CA111",
        "airline": "Air China",
        "origin": "LHR",
        "destination": "PEK",
        "depart_at": "2025-11-03T19:30",
        "arrive_at": "2025-11-04T07:36",
        "stops": 1,
        "price": 632.0,
        "duration_min": 726,
    }
    return {
        "origin": origin,
        "destination": "PEK",
        "date": "2025-11-03",
        "passengers": 1,
        "offers": [{"offer_id": offer, "currency": "USD", "expires_at": expires, "total_price": 632.0, "legs": [leg]}],
    }


FLIGHTS = built(
    [{"tool": "search_flights", "args": {"origin": "LHR", "destination": "PEK", "date": "2025-11-03"}}],
    [
        (
            "search_flights",
            {"origin": "LHR", "destination": "PEK", "date": "2025-11-03"},
            flights("LHR", "offer_001", "2025-10-21T08:15:03"),
        )
    ],
)


def test_flights_from_the_city_pass() -> None:
    city = (
        "search_flights",
        {"origin": "London", "destination": "Beijing", "date": "2025-11-03"},
        ok(flights("London", "offer_004", "2025-10-21T08:15:09")),
    )  # other generated id, other expiry
    assert check_tool_calls(FLIGHTS, trajectory(city, finish())) == []


def test_flights_of_another_day_fail() -> None:
    other = (
        "search_flights",
        {"origin": "LHR", "destination": "PEK", "date": "2025-11-04"},
        ok(flights("LHR", "offer_001", "2025-10-21T08:15:03", flight="flight_600")),
    )
    assert check_tool_calls(FLIGHTS, trajectory(other, finish()))


# ---- a cuisine filter or a query; "near work" ---------------------------------------------------


def restaurants(*ids: str, near: str | None = None, distance: float = 1.4) -> dict[str, Any]:
    rows = [
        {
            "restaurant_id": r,
            "name": f"Place {r[-3:]}",
            "cuisine": "Middle Eastern",
            "address": "184 Bridge Street",
            "city": "Tokyo",
            "price_level": 2,
            "rating": 4.4,
            **({"distance_km": distance} if near else {}),
        }
        for r in ids
    ]
    return {"restaurants": rows, "count": len(rows), **({"near": near} if near else {})}


def test_restaurants_by_query_instead_of_cuisine_pass() -> None:
    check = built(
        [{"tool": "search_restaurants", "args": {"cuisine": {"$contains": "Middle Eastern"}}}],
        [("search_restaurants", {"cuisine": "Middle Eastern"}, restaurants("rest_057", "rest_015"))],
    )
    query = ("search_restaurants", {"query": "Middle Eastern"}, ok(restaurants("rest_057", "rest_015")))
    assert check_tool_calls(check, trajectory(query, finish())) == []
    one = ("search_restaurants", {"query": "Middle Eastern grill"}, ok(restaurants("rest_015")))
    assert check_tool_calls(check, trajectory(one, finish()))


def test_restaurants_near_the_current_location_instead_of_work_fail() -> None:
    """memory-039: the distances are computed from ``near``, so the same places near elsewhere differ."""
    check = built(
        [{"tool": "search_restaurants", "args": {"cuisine": "Sichuan", "near": "work"}}],
        [
            (
                "search_restaurants",
                {"cuisine": "Sichuan", "near": "work"},
                restaurants("rest_020", near="Work", distance=0.8),
            )
        ],
    )
    here = (
        "search_restaurants",
        {"cuisine": "Sichuan", "near": "current"},
        ok(restaurants("rest_020", near="current", distance=5.2)),
    )
    assert check_tool_calls(check, trajectory(here, finish()))
    work = (
        "search_restaurants",
        {"query": "Sichuan", "near": "88 Market Street"},
        ok(restaurants("rest_020", near="88 Market Street", distance=0.8)),
    )
    assert check_tool_calls(check, trajectory(work, finish())) == []


# ---- an unfiltered list_orders ---------------------------------------------------------------


def orders(*ids: str) -> dict[str, Any]:
    return {
        "orders": [
            {
                "order_id": o,
                "status": "pending" if o == "order_020" else "delivered",
                "total": 99.5,
                "items": [{"item_id": f"oitem_{o[-3:]}", "title": "Tumi Alpha Bravo", "quantity": 1}],
            }
            for o in ids
        ],
        "count": len(ids),
        "total_matches": len(ids),
    }


def test_unfiltered_list_orders_that_holds_the_order_passes() -> None:
    check = built(
        [{"tool": "list_orders", "args": {"status": "pending"}}],
        [("list_orders", {"status": "pending"}, orders("order_020"))],
    )
    unfiltered = ("list_orders", {}, ok(orders("order_018", "order_019", "order_020")))
    assert check_tool_calls(check, trajectory(unfiltered, finish())) == []
    assert check_tool_calls(check, trajectory(("list_orders", {"status": "delivered"}, ok(orders("order_019")))))


# ---- order: only between dependent calls -----------------------------------------------------


def test_independent_reads_pass_in_either_order() -> None:
    parcel = {"tracking_number": "FX322519289691", "carrier": "FedEx", "status": "ready_for_pickup"}
    coupons = {"coupons": [{"coupon_id": "coupon_006", "code": "READMORE", "store": "BookNook"}]}
    check = built(
        [
            {"tool": "track_parcel", "args": {"tracking_number": "FX322519289691"}},
            {"tool": "list_coupons", "args": {"store": "BookNook"}},
        ],
        [
            ("track_parcel", {"tracking_number": "FX322519289691"}, parcel),
            ("list_coupons", {"store": "BookNook"}, coupons),
        ],
        query="Has parcel FX322519289691 arrived? Then show me the BookNook coupons",
    )
    assert [c.after for c in check.calls] == [[], []]
    swapped = trajectory(
        ("list_coupons", {"store": "BookNook"}, ok(coupons)),
        ("track_parcel", {"tracking_number": "FX322519289691"}, ok(parcel)),
        finish(),
    )
    assert check_tool_calls(check, swapped) == []


TRACKING = {
    "order_id": "order_020",
    "status": "pending",
    "events": [{"ts": "2025-03-04T05:05", "status": "order_placed"}],
}
LISTED = orders("order_020")
DEPENDENT = built(
    [{"tool": "list_orders", "args": {"query": "Tumi"}}, {"tool": "track_order", "args": {"order_id": "order_020"}}],
    [("list_orders", {"query": "Tumi"}, LISTED), ("track_order", {"order_id": "order_020"}, TRACKING)],
    query="Track the order with the Tumi Alpha Bravo for me",
)


def test_a_call_that_uses_a_result_depends_on_it() -> None:
    assert [c.after for c in DEPENDENT.calls] == [[], [0]]
    good = trajectory(
        ("list_orders", {"query": "Tumi"}, ok(LISTED)),
        ("track_order", {"order_id": "order_020"}, ok(TRACKING)),
        finish(),
    )
    assert check_tool_calls(DEPENDENT, good) == []


def test_dependent_reads_in_the_wrong_order_fail() -> None:
    wrong = trajectory(
        ("track_order", {"order_id": "order_020"}, ok(TRACKING)),
        ("list_orders", {"query": "Tumi"}, ok(LISTED)),
        finish(),
    )
    reasons = check_tool_calls(DEPENDENT, wrong)
    assert len(reasons) == 1 and "uses the result of expected call #1 (list_orders)" in reasons[0]


def test_the_list_does_not_stand_in_for_the_tracking() -> None:
    """The tracked order's events are evidence too: listing the order is not tracking it."""
    listed_only = trajectory(("list_orders", {"query": "Tumi"}, ok(LISTED)), finish())
    assert any("expected call #2 track_order" in r for r in check_tool_calls(DEPENDENT, listed_only))


# ---- the answer: the right city's forecast, no invented total --------------------------------


def forecast(city: str, *days: tuple[str, str, float, float, float]) -> dict[str, Any]:
    return {
        "location": city,
        "units": "metric",
        "days": [
            {"date": d, "condition": c, "temp_c": t, "high_c": hi, "low_c": lo, "precip_pct": 27}
            for d, c, t, hi, lo in days
        ],
    }


SHANGHAI = forecast("Shanghai", ("2025-12-07", "sunny", 12.6, 16.1, 9.1))
SAN_FRANCISCO = forecast("San Francisco", ("2025-12-07", "rain", 10.2, 13.4, 7.9))
WEATHER = built(
    [{"tool": "get_weather", "args": {"location": "Shanghai", "date": "2025-12-07"}}],
    [
        (
            "search_memory",
            {"query": "grandmother lives"},
            {"records": [{"memory_id": "mem_902", "content": "My grandmother Ines now lives in Shanghai"}]},
        ),
        ("get_weather", {"location": "Shanghai", "date": "2025-12-07"}, SHANGHAI),
    ],
    query="Will it be cold on Sunday where my grandmother lives?",
    answer="On Sunday 7 December in Shanghai: sunny, high 16.1°C, low 9.1°C.",
)


def test_the_answer_facts_come_from_the_gold_answer_and_its_reads() -> None:
    assert WEATHER.answer == [
        {"$any": [{"$date": "2025-12-07"}, {"$name": "Sunday"}]},
        {"$number": 16.1},
        {"$number": 9.1},
        {"$name": "Shanghai"},
        {"$name": "sunny"},
    ]


def test_a_week_of_weather_instead_of_the_day_passes() -> None:
    week = forecast("Shanghai", ("2025-12-06", "cloudy", 11.0, 14.0, 8.0), ("2025-12-07", "sunny", 12.6, 16.1, 9.1))
    steps = trajectory(
        ("get_weather", {"location": "Shanghai", "days": 7}, ok(week)),
        finish("Sunday in Shanghai will be sunny, 16°C at most and 9°C at night."),
    )
    assert check_tool_calls(WEATHER, steps) == []


def test_reading_both_cities_and_answering_the_wrong_one_fails() -> None:
    both = [
        ("get_weather", {"location": "San Francisco", "date": "2025-12-07"}, ok(SAN_FRANCISCO)),
        ("get_weather", {"location": "Shanghai", "date": "2025-12-07"}, ok(SHANGHAI)),
    ]
    said = "Sunday in San Francisco: rain, high 13.4°C, low 7.9°C."
    wrong = check_tool_calls(WEATHER, trajectory(*both, finish(said)))
    assert wrong == [
        f"answer: does not state {fact}: {said!r}"
        for fact in ("the number 16.1", "the number 9.1", "the name 'Shanghai'", "the name 'sunny'")
    ]
    assert check_tool_calls(WEATHER, trajectory(*both, finish("Shanghai, Sunday: sunny, 16.1 / 9.1 °C"))) == []


NO_TOPUPS = {"transactions": [], "count": 0, "total_matched": 0, "total_debits": 0, "total_credits": 0}
METRO = built(
    [{"tool": "list_transactions", "args": {"merchant": {"$contains": "Metro"}}}],
    [("list_transactions", {"merchant": "Metro top-up", "date_from": "2025-01-08"}, NO_TOPUPS)],
    query="Total of my payments at Metro top-up since 2025-01-08?",
    answer="You made no Metro top-up payments since 8 January 2025.",
)


@pytest.mark.parametrize("text", ["You spent $35.20 at Metro top-up.", "Your Metro top-up spending."])
def test_an_invented_total_fails(text: str) -> None:
    read = ("list_transactions", {"merchant": "Metro top-up", "date_from": "2025-01-08"}, ok(NO_TOPUPS))
    assert METRO.answer == [{"$none": True}]
    assert check_tool_calls(METRO, trajectory(read, finish(text))) == [
        f"answer: does not state that nothing was found: {text!r}"
    ]


def test_saying_nothing_was_found_passes() -> None:
    read = ("list_transactions", {"merchant": "Metro", "date_from": "2025-01-08", "direction": "debit"}, ok(NO_TOPUPS))
    for text in ("None: no Metro top-ups since then.", "Your total is $0.00.", "I found nothing."):
        assert check_tool_calls(METRO, trajectory(read, finish(text))) == []


def test_an_answer_check_needs_a_finish() -> None:
    read = ("list_transactions", {"merchant": "Metro"}, ok(NO_TOPUPS))
    assert check_tool_calls(METRO, trajectory(read)) == ["answer: the episode never finished with an answer"]
