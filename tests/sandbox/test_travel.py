"""D5 travel tools against the wang_lei world (now = 2025-06-13T09:00, a Friday).

Each tool has a success test asserting its payload and state diff, and one test per declared
ErrorType; a failed call must leave the database exactly as it was (only its log row is added).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Table, func, select, update

from sandbox.db import open_database
from sandbox.domains.common import payment_methods, transactions, world_places
from sandbox.domains.travel import tools as travel
from sandbox.domains.travel.schema import (
    flight_bookings,
    hotel_bookings,
    navigation_sessions,
    offers,
    ride_quotes,
    rides,
    saved_places,
    train_bookings,
    travel_documents,
    trips,
    wallet_passes,
    world_flights,
    world_hotel_rooms,
    world_hotels,
    world_trains,
)
from sandbox.errors import ErrorType
from sandbox.executor import Executor
from sandbox.locales import convert, country_of
from sandbox.schema import app_permissions, device_settings
from sandbox.tooling import REGISTRY
from sandbox.world import build_world, world_image
from tests.sandbox.conftest import ALL_DOMAIN_TOOLS, diff, diff_of, log_count, ok, prepare, query

TRAVEL_TOOLS = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ == travel.__name__)
NEXT_WEEK = "2025-06-20"


def row(ex: Executor, tbl: Table, key: str) -> dict[str, Any]:
    pk = next(iter(tbl.primary_key.columns))
    return query(ex, select(tbl).where(pk == key))[0]


def fails(ex: Executor, name: str, args: dict[str, Any], error: ErrorType) -> dict[str, Any]:
    """The call fails with exactly ``error``, changes nothing, and is logged."""
    before, logged = diff(ex), log_count(ex.conn)
    env = ex.call(name, args)
    assert env["Status"] == "error" and env["ErrorType"] == error.value, env
    assert diff(ex) == before
    assert log_count(ex.conn) == logged + 1
    ex.step += 1
    return env["Payload"]


def changed(ex: Executor, tbl: Table, where: dict[str, Any], **values: Any) -> None:
    """Patch the matching rows outside the diff (a scenario event before the call)."""
    prepare(ex.conn, update(tbl).where(*(tbl.c[k] == v for k, v in where.items())).values(**values))


def balance(ex: Executor, method_id: str) -> float:
    return float(row(ex, payment_methods, method_id)["balance"])


def ambiguous_name(ex: Executor) -> str:
    """A place name several world places share."""
    p = world_places.c
    return str(
        query(ex, select(p.name).group_by(func.lower(p.name)).having(func.count() > 1).order_by(p.name))[0]["name"]
    )


def flight_offer(ex: Executor, **args: Any) -> dict[str, Any]:
    found = ok(ex, "search_flights", {"origin": "Beijing", "destination": "London", "date": NEXT_WEEK} | args)
    return found["offers"][0]


def hotel_offer(ex: Executor, **args: Any) -> dict[str, Any]:
    found = ok(ex, "search_hotels", {"city": "Berlin", "check_in": NEXT_WEEK, "check_out": "2025-06-22"} | args)
    return found["offers"][0]


def train_offer(ex: Executor, **args: Any) -> dict[str, Any]:
    found = ok(ex, "search_trains", {"origin": "Beijing", "destination": "Shanghai", "date": "2025-06-16"} | args)
    return found["offers"][0]


# ---- declarations and the world ---------------------------------------------------------------


def test_declarations() -> None:
    assert len(TRAVEL_TOOLS) == 21
    read_only = {
        "get_current_location",
        "search_places",
        "get_directions",
        "estimate_ride_fare",
        "search_flights",
        "get_flight_status",
        "search_hotels",
        "search_trains",
        "find_parking_or_charging",
    }
    assert {n for n in TRAVEL_TOOLS if not REGISTRY[n].mutating} == read_only
    for name in TRAVEL_TOOLS:
        spec = REGISTRY[name]
        assert spec.domain == "D5" and spec.app in ("maps", "ride", "travel", "rail"), name
        assert (spec.permissions == ("LOCATION",)) == (spec.services == ("location_service",)), name
        assert spec.permissions in ((), ("LOCATION",)), name
        for arg in spec.parameters["properties"].values():
            assert arg["description"], name
    located = {n for n in TRAVEL_TOOLS if REGISTRY[n].permissions}
    assert located == {"get_current_location", "start_navigation", "estimate_ride_fare", "book_ride"}
    # these gate only near/origin "current" (an explicit place needs no GPS), in the body
    for name in ("search_places", "get_directions", "find_parking_or_charging"):
        assert {ErrorType.SERVICE_DISABLED, ErrorType.PERMISSION_DENIED} <= set(REGISTRY[name].errors), name
    assert offers.info["kind"] == ride_quotes.info["kind"] == "system"  # a search changes no user state


def test_world_is_deterministic_and_seeded_as_promised() -> None:
    assert build_world("wang_lei") == world_image("wang_lei")
    conn = open_database(world_image("wang_lei"))
    ex = Executor(conn, visible=ALL_DOMAIN_TOOLS)
    try:
        counts = {
            t.name: query(ex, select(func.count().label("n")).select_from(t))[0]["n"]
            for t in (world_flights, world_hotel_rooms, world_trains, rides, saved_places)
        }
        assert 500 <= counts["world_flights"] <= 800 and 100 <= counts["world_hotel_rooms"] <= 150
        assert counts["world_trains"] == 220 and counts["rides"] == 20 and counts["saved_places"] == 5
        soon = row(ex, flight_bookings, "fbooking_002")
        assert "2025-06-13T10:00" <= soon["depart_at"] <= "2025-06-14T08:00"  # online check-in is open now
        assert row(ex, flight_bookings, "fbooking_001")["checked_in"] == 1
        assert query(ex, select(wallet_passes.c.ref_id)) == [{"ref_id": "fbooking_001"}]
        paid = {t["ref_id"] for t in query(ex, select(transactions.c.ref_id).where(transactions.c.ref_id.is_not(None)))}
        assert {"fbooking_003", "hbooking_003", "tbooking_001", "ride_001"} <= paid
        holiday = row(ex, trips, "trip_003")
        assert row(ex, hotel_bookings, "hbooking_003")["city"] == holiday["destination"]
        assert json.loads(holiday["travelers_json"]) == ["contact_001"]
        assert {r["status"] for r in query(ex, select(rides.c.status))} == {"completed", "cancelled", "requested"}
    finally:
        conn.close()


def test_other_personas_get_their_own_hub() -> None:
    conn = open_database(world_image("maya_patel"))
    ex = Executor(conn, visible=ALL_DOMAIN_TOOLS)
    try:
        origins = {
            f["origin"] for f in query(ex, select(world_flights.c.origin).where(world_flights.c.destination != "SFO"))
        }
        assert origins == {"SFO"}
        assert row(ex, train_bookings, "tbooking_001")["origin"] in ("San Francisco", "Palo Alto")
        assert query(ex, select(travel_documents.c.kind)) == [{"kind": "passport"}]
        assert row(ex, flight_bookings, "fbooking_003")["currency"] == "USD"
    finally:
        conn.close()


# ---- Navigation & Routes ----------------------------------------------------------------------


def test_get_current_location(ex: Executor) -> None:
    here = ok(ex, "get_current_location", {})
    home = row(ex, saved_places, "Home")
    assert here == {
        "name": "Home",
        "address": home["address"],
        "city": "Beijing",
        "lat": home["lat"],
        "lon": home["lon"],
        "place_id": None,
        "accuracy_m": 12,
        "saved_label": "Home",
    }
    assert diff(ex) == {}


def test_search_places(ex: Executor) -> None:
    found = ok(ex, "search_places", {"query": "cafe", "near": "Home", "radius_km": 20, "limit": 20})
    places = found["places"]
    assert places and all(p["category"] == "cafe" and p["city"] == "Beijing" for p in places)
    assert [p["distance_km"] for p in places] == sorted(p["distance_km"] for p in places)
    coffee = row(ex, saved_places, "Coffee")["place_id"]
    assert [p["saved_label"] for p in places if p["place_id"] == coffee] == ["Coffee"]
    rated = ok(ex, "search_places", {"query": "cafe", "near": "Home", "radius_km": 20, "min_rating": 4.5})
    assert all(p["rating"] >= 4.5 for p in rated["places"])
    assert diff(ex) == {}


def test_get_directions(ex: Executor) -> None:
    found = ok(ex, "get_directions", {"destination": "Gym", "mode": "driving", "arrive_by": "2025-06-13T10:00"})
    assert (
        found["origin"]["name"] == "Home"
        and found["destination"]["place_id"] == row(ex, saved_places, "Gym")["place_id"]
    )
    assert [r["route_index"] for r in found["routes"]] == [0, 1]
    assert all(r["arrive_at"] == "2025-06-13T10:00" and r["currency"] == "CNY" for r in found["routes"])
    quiet = ok(ex, "get_directions", {"destination": "Gym", "avoid": ["highways"]})
    assert [r["route_index"] for r in quiet["routes"]] == [1]
    assert quiet["routes"][0]["depart_at"] == "2025-06-13T09:00"
    transit = ok(ex, "get_directions", {"origin": "Work", "destination": "Coffee", "mode": "transit"})
    assert all(r["fare"] > 0 for r in transit["routes"])
    # task families state the travel times from route_options, without an episode
    ends = [travel._spot(row(ex, saved_places, label)) for label in ("Work", "Coffee")]
    assert [r["duration_min"] for r in travel.route_options(ends, "transit")] == [
        r["duration_min"] for r in transit["routes"]
    ]
    assert diff(ex) == {}


def test_locations_named_as_people_say_them(ex: Executor) -> None:
    """ "the office" and "my house" are the saved Work and Home; an unknown place lists the saved labels."""
    office = ok(ex, "get_directions", {"destination": "the office"})["destination"]
    assert office["place_id"] == row(ex, saved_places, "Work")["place_id"]
    assert ok(ex, "get_directions", {"destination": "Gym", "origin": "my house"})["origin"]["name"] == "Home"
    env = ex.call("get_directions", {"destination": "my dojo"})
    assert env["ErrorType"] == ErrorType.ENTITY_NOT_FOUND.value
    assert env["Payload"]["saved_labels"] == ["Coffee", "Groceries", "Gym", "Home", "Work"]


def test_a_place_written_as_name_address_and_city_is_found(ex: Executor) -> None:
    """ "Name, address, city" (or any order of those parts) names the one place that has them all."""
    spot = ex.conn.execute(select(world_places).order_by(world_places.c.place_id)).first()._mapping
    found = ok(ex, "get_directions", {"destination": f"{spot['name']}, {spot['address']}, {spot['city']}"})
    assert found["destination"]["place_id"] == spot["place_id"]
    found = ok(ex, "get_directions", {"destination": f"{spot['address']}, {spot['city']}, {spot['name']}"})
    assert found["destination"]["place_id"] == spot["place_id"]
    fails(ex, "get_directions", {"destination": f"{spot['name']}, 999 Nowhere Lane, {spot['city']}"}, NF)


def test_start_navigation_and_replace(ex: Executor) -> None:
    first = ok(ex, "start_navigation", {"destination": "Work", "stops": ["Coffee"]})
    assert first["session_id"] == "nav_004" and first["replaced"] is None and len(first["stops"]) == 1
    d = diff(ex)
    assert set(d) == {"navigation_sessions"}
    [new] = d["navigation_sessions"]["inserted"]
    assert new["status"] == "active" and new["destination"].startswith("Work, ") and new["eta"] == first["eta"]
    second = ok(ex, "start_navigation", {"destination": "Gym", "mode": "cycling", "route_index": 1, "replace": True})
    assert second["replaced"] == "nav_004" and second["route"]["route_index"] == 1
    assert row(ex, navigation_sessions, "nav_004")["status"] == "replaced"
    assert row(ex, navigation_sessions, "nav_005")["status"] == "active"


def test_save_place(ex: Executor) -> None:
    gym = ambiguous_name(ex)
    place_id = query(
        ex, select(world_places.c.place_id).where(world_places.c.name == gym).order_by(world_places.c.place_id)
    )[0]["place_id"]
    saved = ok(ex, "save_place", {"place": place_id, "label": "Lunch spot"})
    assert saved["label"] == "Lunch spot" and saved["place_id"] == place_id and saved["replaced"] == []
    assert [r["label"] for r in diff(ex)["saved_places"]["inserted"]] == ["Lunch spot"]
    moved = ok(ex, "save_place", {"place": "Shanghai", "label": "New home", "kind": "home", "overwrite": True})
    assert moved["replaced"] == ["Home"] and moved["city"] == "Shanghai"
    d = diff(ex)["saved_places"]
    assert [r["label"] for r in d["deleted"]] == ["Home"]
    assert sorted(r["label"] for r in d["inserted"]) == ["Lunch spot", "New home"]


# ---- Ride Hailing -----------------------------------------------------------------------------


def test_estimate_ride_fare(ex: Executor) -> None:
    found = ok(ex, "estimate_ride_fare", {"pickup": "current", "dropoff": "Gym"})
    assert [q["ride_type"] for q in found["quotes"]] == ["economy", "comfort", "premium", "xl"]
    fares = {q["ride_type"]: q["fare"] for q in found["quotes"]}
    assert fares["economy"] < fares["comfort"] < fares["xl"] < fares["premium"]
    assert found["quotes"][0]["quote_id"] == "quote_001" and found["quotes"][0]["expires_at"] == "2025-06-13T09:05:01"
    assert diff(ex) == {}  # quotes are a search cache
    assert len(query(ex, select(ride_quotes))) == 4


def test_book_ride_with_a_quote(ex: Executor) -> None:
    quote = ok(ex, "estimate_ride_fare", {"pickup": "current", "dropoff": "Gym", "ride_type": "comfort"})["quotes"][0]
    before = balance(ex, "pm_002")
    booked = ok(
        ex,
        "book_ride",
        {
            "pickup": "current",
            "dropoff": "Gym",
            "ride_type": "comfort",
            "quote_id": quote["quote_id"],
            "note": "Gate B",
        },
    )
    assert (booked["fare"], booked["status"], booked["payment_method_id"]) == (quote["fare"], "requested", "pm_002")
    d = diff(ex)
    assert set(d) == {"rides", "transactions", "payment_methods"}
    [ride] = d["rides"]["inserted"]
    assert ride["ride_id"] == booked["ride_id"] and ride["note"] == "Gate B" and ride["quote_id"] == quote["quote_id"]
    assert d["transactions"]["inserted"][0]["ref_id"] == booked["ride_id"]
    assert balance(ex, "pm_002") == round(before - quote["fare"], 2)
    assert row(ex, ride_quotes, quote["quote_id"])["status"] == "used"


def test_book_scheduled_ride_without_quote(ex: Executor) -> None:
    booked = ok(
        ex,
        "book_ride",
        {
            "pickup": "Work",
            "dropoff": "Home",
            "ride_type": "xl",
            "passengers": 5,
            "scheduled_at": "2025-06-13T18:30",
            "payment_method_id": "pm_001",
        },
    )
    assert booked["scheduled_at"] == "2025-06-13T18:30" and booked["pickup_eta_min"] is None
    assert diff(ex)["rides"]["inserted"][0]["passengers"] == 5


def test_cancel_ride_refunds_before_a_driver_is_assigned(ex: Executor) -> None:
    [waiting] = query(ex, select(rides).where(rides.c.status == "requested"))
    before = balance(ex, waiting["payment_method_id"])
    done = ok(ex, "cancel_ride", {"ride_id": waiting["ride_id"], "reason": "Flight moved"})
    assert done == {
        "ride_id": waiting["ride_id"],
        "status": "cancelled",
        "refunded": waiting["fare"],
        "fee": 0.0,
        "currency": "CNY",
    }
    assert row(ex, rides, waiting["ride_id"])["cancel_reason"] == "Flight moved"
    assert balance(ex, waiting["payment_method_id"]) == round(before + waiting["fare"], 2)
    assert [u["after"]["status"] for u in diff(ex)["transactions"]["updated"]] == ["refunded"]


def test_cancel_ride_with_fee_after_confirmation(ex: Executor) -> None:
    [waiting] = query(ex, select(rides).where(rides.c.status == "requested"))
    changed(ex, rides, where={"ride_id": waiting["ride_id"]}, status="driver_assigned")
    done = ok(ex, "cancel_ride", {"ride_id": waiting["ride_id"], "confirm": True})
    assert done["fee"] == 35.9 and done["refunded"] == waiting["fare"]  # 5 USD in CNY
    fees = diff(ex)["transactions"]["inserted"]
    assert [(t["amount"], t["ref_id"]) for t in fees] == [(-35.9, waiting["ride_id"])]


# ---- Flights ----------------------------------------------------------------------------------


def test_search_flights_one_way_and_round_trip(ex: Executor) -> None:
    found = ok(ex, "search_flights", {"origin": "PEK", "destination": "london", "date": NEXT_WEEK, "passengers": 2})
    assert found["origin"] == "PEK" and found["destination"] == "LHR" and found["count"] >= 1
    prices = [o["price_per_passenger"] for o in found["offers"]]
    assert prices == sorted(prices)
    offer = found["offers"][0]
    assert offer["offer_id"] == "offer_001" and offer["total_price"] == round(2 * offer["price_per_passenger"], 2)
    assert all(leg["depart_at"].startswith(NEXT_WEEK) and leg["seats_left"] >= 2 for leg in offer["legs"])
    trip = ok(
        ex,
        "search_flights",
        {
            "origin": "Beijing",
            "destination": "Shanghai",
            "date": NEXT_WEEK,
            "return_date": "2025-06-22",
            "sort": "departure",
            "depart_after": "12:00",
        },
    )
    for o in trip["offers"]:
        out, back = o["legs"]
        assert out["origin"] == back["destination"] == "PEK" and back["depart_at"].startswith("2025-06-22")
        assert out["depart_at"][11:] >= "12:00"
    business = ok(
        ex, "search_flights", {"origin": "Beijing", "destination": "London", "date": NEXT_WEEK, "cabin": "business"}
    )
    assert all(leg["cabin"] == "business" for o in business["offers"] for leg in o["legs"])
    assert diff(ex) == {}
    stored = row(ex, offers, "offer_001")
    assert stored["kind"] == "flight" and json.loads(stored["params_json"])["passengers"] == 2


def test_a_flight_lands_at_the_destinations_local_time(ex: Executor) -> None:
    """Beijing (UTC+8) to London (UTC+0 or +1): arrive_at is London's clock with its offset, duration the real one."""
    leg = ok(ex, "search_flights", {"origin": "PEK", "destination": "LHR", "date": NEXT_WEEK})["offers"][0]["legs"][0]
    leave = dt.datetime.fromisoformat(leg["depart_at"]).replace(tzinfo=ZoneInfo("Asia/Shanghai"))
    land = dt.datetime.fromisoformat(leg["arrive_at"])
    assert leg["arrive_at"][16:] in ("+00:00", "+01:00")
    assert (land - leave) == dt.timedelta(minutes=leg["duration_min"])


def test_search_flights_reports_sold_out_flights(ex: Executor) -> None:
    """A flight without enough seats is no offer, but the search says it exists and is full."""
    f = world_flights.c
    first = query(
        ex,
        select(world_flights)
        .where(f.origin == "PEK", f.destination == "LHR", f.cabin == "economy", f.depart_at.like(f"{NEXT_WEEK}T%"))
        .order_by(f.flight_id),
    )[0]
    prepare(ex.conn, update(world_flights).where(f.flight_id == first["flight_id"]).values(seats_left=0))
    found = ok(ex, "search_flights", {"origin": "PEK", "destination": "LHR", "date": NEXT_WEEK})
    assert [(leg["flight_id"], leg["seats_left"]) for leg in found["sold_out"]] == [(first["flight_id"], 0)]
    assert first["flight_id"] not in {leg["flight_id"] for o in found["offers"] for leg in o["legs"]}
    assert found["note"] == "1 matching outbound flight(s) sold out"
    prepare(ex.conn, update(world_flights).where(f.flight_id == first["flight_id"]).values(seats_left=1))
    found = ok(ex, "search_flights", {"origin": "PEK", "destination": "LHR", "date": NEXT_WEEK, "passengers": 2})
    assert "fewer than 2 seats left" in found["note"]


def test_book_flight_for_the_user_and_a_contact(ex: Executor) -> None:
    offer = flight_offer(ex)
    leg = offer["legs"][0]
    booked = ok(
        ex,
        "book_flight",
        {
            "offer_id": offer["offer_id"],
            "checked_bags": 1,
            "seat_preference": "aisle",
            "payment_method_id": "pm_001",
            "passengers": [{"self": True}, {"contact_id": "contact_001", "id_number": "E7654321"}],
        },
    )
    assert booked["passengers"] == ["Wang Lei", "Lily Chen"] and booked["payment_method_id"] == "pm_001"
    [b] = booked["bookings"]
    assert b["booking_id"] == "fbooking_005" and b["price"] == round((leg["price"] + 251.3) * 2, 2)  # 35 USD a bag
    d = diff(ex)
    assert set(d) == {"flight_bookings", "transactions", "payment_methods", "world_flights"}
    [new] = d["flight_bookings"]["inserted"]
    assert json.loads(new["passengers_json"]) == [
        {"name": "Wang Lei", "id_number": "E59569496"},
        {"name": "Lily Chen", "id_number": "E7654321"},
    ]
    assert new["status"] == "confirmed" and new["seat_preference"] == "aisle" and new["checked_in"] == 0
    [seats] = d["world_flights"]["updated"]
    assert seats["after"]["seats_left"] == seats["before"]["seats_left"] - 2


def test_book_round_trip_makes_one_booking_per_leg(ex: Executor) -> None:
    offer = flight_offer(ex, destination="Shanghai", return_date="2025-06-22")
    booked = ok(ex, "book_flight", {"offer_id": offer["offer_id"], "passengers": [{"name": "Tom Baker"}]})
    assert [b["origin"] for b in booked["bookings"]] == ["PEK", "PVG"]  # domestic: no id needed
    assert booked["total_price"] == offer["price_per_passenger"]
    assert len(diff(ex)["transactions"]["inserted"]) == 2


def test_cancel_flight_booking_is_free_right_after_booking(ex: Executor) -> None:
    offer = flight_offer(ex)
    bid = ok(ex, "book_flight", {"offer_id": offer["offer_id"], "passengers": [{"self": True}]})["bookings"][0][
        "booking_id"
    ]
    done = ok(ex, "cancel_flight_booking", {"booking_id": bid})
    assert done == {
        "booking_id": bid,
        "status": "cancelled",
        "refunded": offer["total_price"],
        "fee": 0.0,
        "currency": "CNY",
    }
    assert "world_flights" not in diff(ex)  # the seat went back


def test_cancel_flight_booking_keeps_the_fee(ex: Executor) -> None:
    booking = row(ex, flight_bookings, "fbooking_003")
    done = ok(ex, "cancel_flight_booking", {"booking_id": "fbooking_003", "confirm": True})
    assert done["fee"] == round(booking["price"] * 0.2, 2) and done["refunded"] == booking["price"]
    d = diff(ex)
    assert d["flight_bookings"]["updated"][0]["after"]["status"] == "cancelled"
    assert [t["amount"] for t in d["transactions"]["inserted"]] == [-done["fee"]]


def test_get_flight_status(ex: Executor) -> None:
    soon = row(ex, flight_bookings, "fbooking_002")
    day = soon["depart_at"][:10]
    status = ok(ex, "get_flight_status", {"flight_number": soon["flight_number"].lower(), "date": day})
    assert status["status"] == "scheduled" and status["gate"] and status["delay_min"] == 0
    assert status["scheduled_departure"] == soon["depart_at"] == status["expected_departure"]
    later = ok(ex, "get_flight_status", {"flight_number": soon["flight_number"], "date": "2025-06-25"})
    assert later["status"] == "scheduled" and later["gate"] is None
    assert diff(ex) == {}


def test_check_in_flight(ex: Executor) -> None:
    done = ok(ex, "check_in_flight", {"booking_id": "fbooking_002"})
    [seat] = done["seats"].values()
    assert seat[-1] in "AF" and 10 <= int(seat[:-1]) <= 40  # window, economy rows
    assert done["wallet_pass_id"] == "pass_002" and done["boarding_pass"].startswith("BP")
    d = diff(ex)
    assert set(d) == {"flight_bookings", "wallet_passes"}
    after = d["flight_bookings"]["updated"][0]["after"]
    assert after["checked_in"] == 1 and json.loads(after["seats_json"]) == [seat]
    assert d["wallet_passes"]["inserted"][0]["barcode"] == done["boarding_pass"]


def test_check_in_flight_with_a_chosen_seat(ex: Executor) -> None:
    free = fails(ex, "check_in_flight", {"booking_id": "fbooking_002", "seat": "2A"}, ErrorType.RESOURCE_UNAVAILABLE)[
        "free"
    ]
    done = ok(ex, "check_in_flight", {"booking_id": "fbooking_002", "seat": free[-1], "add_to_wallet": False})
    assert list(done["seats"].values()) == [free[-1]] and done["wallet_pass_id"] is None
    assert set(diff(ex)) == {"flight_bookings"}


# ---- Hotels -----------------------------------------------------------------------------------


def test_search_hotels(ex: Executor) -> None:
    found = ok(
        ex,
        "search_hotels",
        {"city": "shanghai", "check_in": NEXT_WEEK, "check_out": "2025-06-22", "guests": 3, "limit": 20},
    )
    assert found["city"] == "Shanghai" and found["nights"] == 2 and found["count"] >= 1
    assert [o["price_per_night"] for o in found["offers"]] == sorted(o["price_per_night"] for o in found["offers"])
    assert all(
        o["room_type"] in ("family", "suite") and o["total_price"] == 2 * o["price_per_night"] for o in found["offers"]
    )
    near = ok(
        ex,
        "search_hotels",
        {
            "city": "Beijing",
            "check_in": NEXT_WEEK,
            "check_out": "2025-06-21",
            "near": "Work",
            "amenities": ["wifi"],
            "max_price": 2000,
        },
    )
    assert [o["distance_km"] for o in near["offers"]] == sorted(o["distance_km"] for o in near["offers"])
    assert all("wifi" in o["amenities"] and o["price_per_night"] <= 2000 for o in near["offers"])
    assert diff(ex) == {}


def test_book_hotel(ex: Executor) -> None:
    offer = hotel_offer(ex, rooms=2, guests=2)
    booked = ok(
        ex,
        "book_hotel",
        {
            "offer_id": offer["offer_id"],
            "guest_name": "Wang Lei",
            "loyalty_number": "HH123456",
            "payment_method_id": "pm_001",
        },
    )
    assert booked["total_price"] == offer["total_price"] == 2 * 2 * offer["price_per_night"]
    assert booked["free_cancellation_until"] == offer["free_cancellation_until"]
    d = diff(ex)
    assert set(d) == {"hotel_bookings", "transactions", "payment_methods", "world_hotel_rooms"}
    [new] = d["hotel_bookings"]["inserted"]
    assert (new["city"], new["rooms"], new["loyalty_number"], new["status"]) == ("Berlin", 2, "HH123456", "confirmed")
    [room] = d["world_hotel_rooms"]["updated"]
    assert room["after"]["rooms_left"] == room["before"]["rooms_left"] - 2


def test_cancel_hotel_booking_free_and_with_fee(ex: Executor) -> None:
    assert ok(ex, "cancel_hotel_booking", {"booking_id": "hbooking_003"})["fee"] == 0.0
    assert diff(ex)["hotel_bookings"]["updated"][0]["after"]["status"] == "cancelled"
    offer = hotel_offer(ex)
    bid = ok(ex, "book_hotel", {"offer_id": offer["offer_id"], "guest_name": "Wang Lei"})["booking_id"]
    changed(ex, hotel_bookings, where={"booking_id": bid}, free_cancel_until="2025-06-12T23:59")
    done = ok(ex, "cancel_hotel_booking", {"booking_id": bid, "confirm": True})
    assert (done["fee"], done["currency"]) == (offer["price_per_night"], "EUR")
    assert (done["refunded"], done["refunded_currency"]) == (convert(offer["total_price"], "EUR", "CNY"), "CNY")


def test_a_hotel_abroad_is_priced_where_it_is_and_paid_converted(ex: Executor) -> None:
    hotels = query(ex, select(world_hotels))
    assert all(h["currency"] == country_of(h["city"]).currency for h in hotels)
    offer = hotel_offer(ex)  # Berlin, for a user paying in yuan
    assert offer["currency"] == "EUR"
    booked = ok(ex, "book_hotel", {"offer_id": offer["offer_id"], "guest_name": "Wang Lei"})
    assert (booked["total_price"], booked["currency"]) == (offer["total_price"], "EUR")
    [txn] = diff(ex)["transactions"]["inserted"]
    assert (txn["amount"], txn["currency"]) == (-convert(offer["total_price"], "EUR", "CNY"), "CNY")
    stay = {"city": "Berlin", "check_in": NEXT_WEEK, "check_out": "2025-06-22", "limit": 20}
    every = ok(ex, "search_hotels", stay)["offers"]
    cap = convert(every[0]["price_per_night"], "EUR", "CNY")  # the cheapest night, in yuan
    cheap = ok(ex, "search_hotels", stay | {"max_price": cap})["offers"]
    assert cheap and all(convert(o["price_per_night"], "EUR", "CNY") <= cap for o in cheap)


# ---- Trains -----------------------------------------------------------------------------------


def test_a_train_abroad_is_priced_where_it_runs(ex: Executor) -> None:
    trains = query(ex, select(world_trains))
    assert {t["currency"] for t in trains} == {"CNY", "USD"}
    assert all(t["currency"] == country_of(t["origin"]).currency for t in trains)
    found = ok(ex, "search_trains", {"origin": "Palo Alto", "destination": "San Francisco", "date": "2025-06-16"})
    assert found["offers"] and {o["currency"] for o in found["offers"]} == {"USD"}


def test_search_trains(ex: Executor) -> None:
    found = ok(
        ex,
        "search_trains",
        {"origin": "Beijing", "destination": "Shanghai", "date": "2025-06-16", "depart_after": "10:00"},
    )
    assert found["count"] >= 2 and all(o["depart_at"][11:] >= "10:00" and o["realname"] for o in found["offers"])
    assert [o["depart_at"] for o in found["offers"]] == sorted(o["depart_at"] for o in found["offers"])
    coach = ok(
        ex, "search_trains", {"origin": "Beijing", "destination": "Shanghai", "date": "2025-06-16", "mode": "bus"}
    )
    assert {o["number"] for o in coach["offers"]} == {"B602"}
    assert ok(ex, "search_trains", {"origin": "London", "destination": "Berlin", "date": "2025-06-16"})["count"] == 0
    assert diff(ex) == {}


def test_book_train_ticket(ex: Executor) -> None:
    offer = train_offer(ex, seat_class="first", passengers=2)
    booked = ok(
        ex,
        "book_train_ticket",
        {
            "offer_id": offer["offer_id"],
            "passengers": [{"self": True}, {"name": "Li Na", "id_number": "110101199001011234"}],
        },
    )
    assert booked["total_price"] == offer["total_price"] and list(booked["seats"]) == ["Wang Lei", "Li Na"]
    d = diff(ex)
    assert set(d) == {"train_bookings", "transactions", "payment_methods", "world_trains"}
    [new] = d["train_bookings"]["inserted"]
    assert json.loads(new["passengers_json"])[0] == {"name": "Wang Lei", "id_number": "110105197203858281"}
    assert len(set(json.loads(new["seats_json"]))) == 2


# ---- Trips ------------------------------------------------------------------------------------


def test_create_trip_itinerary(ex: Executor) -> None:
    trip = ok(
        ex,
        "create_trip_itinerary",
        {
            "name": "Shanghai weekend",
            "destination": "Shanghai",
            "start_date": NEXT_WEEK,
            "end_date": "2025-06-22",
            "travelers": ["contact_001", "contact_001"],
        },
    )
    assert trip == {
        "trip_id": "trip_004",
        "name": "Shanghai weekend",
        "destination": "Shanghai",
        "start_date": NEXT_WEEK,
        "end_date": "2025-06-22",
        "notes": None,
        "travelers": ["contact_001"],
    }
    [new] = diff(ex)["trips"]["inserted"]
    assert new["travelers_json"] == '["contact_001"]'


def test_add_itinerary_item(ex: Executor) -> None:
    trip = row(ex, trips, "trip_003")
    item = ok(
        ex,
        "add_itinerary_item",
        {
            "trip_id": "trip_003",
            "item_type": "restaurant",
            "title": "Dinner",
            "start": f"{trip['start_date']}T19:30",
            "location": "Covent Garden",
        },
    )
    assert item["item_id"] == "tripitem_008" and item["ref_id"] is None
    ride = ok(
        ex,
        "add_itinerary_item",
        {
            "trip_id": "trip_003",
            "item_type": "ride",
            "title": "Taxi to airport",
            "start": f"{trip['start_date']}T06:00",
            "ref_id": "ride_001",
        },
    )
    assert ride["ref_id"] == "ride_001"
    assert [r["title"] for r in diff(ex)["trip_items"]["inserted"]] == ["Dinner", "Taxi to airport"]


# ---- Parking, Fuel & EV Charging --------------------------------------------------------------


def test_find_parking_or_charging(ex: Executor) -> None:
    found = ok(ex, "find_parking_or_charging", {"kind": "parking", "near": "Work", "radius_km": 20})
    assert found["count"] >= 1 and all(r["price_unit"] == "hour" and r["currency"] == "CNY" for r in found["results"])
    chargers = ok(ex, "find_parking_or_charging", {"kind": "ev_charging", "radius_km": 30, "connector": "gbt"})
    assert all("gbt" in r["connectors"] and r["price_unit"] == "kWh" for r in chargers["results"])
    free = ok(
        ex, "find_parking_or_charging", {"kind": "fuel", "near": "Beijing", "radius_km": 30, "available_now": True}
    )
    assert all(r["open_now"] and r["free_spaces"] > 0 for r in free["results"])
    assert diff(ex) == {}


# ---- declared errors --------------------------------------------------------------------------

Setup = Callable[[Executor], dict[str, Any]]


def _args(args: dict[str, Any]) -> Setup:
    return lambda ex: args


def _ambiguous(field: str, base: dict[str, Any]) -> Setup:
    return lambda ex: base | {field: ambiguous_name(ex)}


def _with_offer(
    search: Callable[..., dict[str, Any]],
    patch: Callable[[Executor, dict[str, Any]], None] | None,
    search_args: dict[str, Any],
    args: dict[str, Any],
) -> Setup:
    """Search, optionally change the world (a scenario event), then return booking arguments for the offer."""

    def setup(ex: Executor) -> dict[str, Any]:
        offer = search(ex, **search_args)
        if patch:
            patch(ex, offer)
        return {"offer_id": offer["offer_id"]} | args

    return setup


def _frozen(ex: Executor, offer: dict[str, Any]) -> None:
    changed(ex, payment_methods, where={"method_id": "pm_002"}, status="frozen")


def _expired(ex: Executor, offer: dict[str, Any]) -> None:
    changed(ex, offers, where={"offer_id": offer["offer_id"]}, expires_at="2025-06-13T08:00:00")


def _repriced(tbl: Table, key: str, ref: Callable[[dict[str, Any]], str]) -> Callable[[Executor, dict[str, Any]], None]:
    def patch(ex: Executor, offer: dict[str, Any]) -> None:
        prepare(ex.conn, update(tbl).where(tbl.c[key] == ref(offer)).values(price=tbl.c.price + 50))

    return patch


def _sold_out(
    tbl: Table, key: str, column: str, ref: Callable[[dict[str, Any]], str]
) -> Callable[[Executor, dict[str, Any]], None]:
    def patch(ex: Executor, offer: dict[str, Any]) -> None:
        prepare(ex.conn, update(tbl).where(tbl.c[key] == ref(offer)).values({column: 0}))

    return patch


def _first_leg(offer: dict[str, Any]) -> str:
    return str(offer["legs"][0]["flight_id"])


def _room(ex: Executor) -> Callable[[dict[str, Any]], str]:
    return lambda offer: str(row(ex, offers, offer["offer_id"])["ref_id"])


def _booked_twice(
    search: Callable[..., dict[str, Any]], tool_name: str, search_args: dict[str, Any], args: dict[str, Any]
) -> Setup:
    def setup(ex: Executor) -> dict[str, Any]:
        offer = search(ex, **search_args)
        ok(ex, tool_name, {"offer_id": offer["offer_id"]} | args)
        return {"offer_id": offer["offer_id"]} | args

    return setup


def _active_ride(ex: Executor) -> dict[str, Any]:
    changed(ex, rides, where={"status": "requested"}, status="driver_assigned", scheduled_at=None)
    return {"pickup": "Home", "dropoff": "Gym", "ride_type": "economy"}


def _stale_quote(ex: Executor) -> dict[str, Any]:
    quote = ok(ex, "estimate_ride_fare", {"pickup": "Home", "dropoff": "Gym", "ride_type": "economy"})["quotes"][0]
    changed(ex, ride_quotes, where={"quote_id": quote["quote_id"]}, expires_at="2025-06-13T08:59:00")
    return {"pickup": "Home", "dropoff": "Gym", "ride_type": "economy", "quote_id": quote["quote_id"]}


def _broke_wallet(ex: Executor) -> dict[str, Any]:
    changed(ex, payment_methods, where={"method_id": "pm_003"}, balance=1.0)
    return {"pickup": "Home", "dropoff": "Gym", "ride_type": "economy", "payment_method_id": "pm_003"}


def _frozen_ride(ex: Executor) -> dict[str, Any]:
    _frozen(ex, {})
    return {"pickup": "Home", "dropoff": "Gym", "ride_type": "economy"}


def _assigned_ride(ex: Executor) -> dict[str, Any]:
    [waiting] = query(ex, select(rides.c.ride_id).where(rides.c.status == "requested"))
    changed(ex, rides, where=waiting, status="driver_assigned")
    return {"ride_id": waiting["ride_id"]}


def _running_navigation(ex: Executor) -> dict[str, Any]:
    ok(ex, "start_navigation", {"destination": "Work"})
    return {"destination": "Gym"}


def _late_hotel_cancel(ex: Executor) -> dict[str, Any]:
    changed(ex, hotel_bookings, where={"booking_id": "hbooking_003"}, free_cancel_until="2025-06-12T23:59")
    return {"booking_id": "hbooking_003"}


def _holiday(ex: Executor) -> dict[str, Any]:
    trip = row(ex, trips, "trip_003")
    return {"city": trip["destination"], "check_in": trip["start_date"], "check_out": trip["end_date"]}


def _holiday_stay(ex: Executor) -> dict[str, Any]:
    offer = hotel_offer(ex, **_holiday(ex))
    return {"offer_id": offer["offer_id"], "guest_name": "Wang Lei"}


def _seeded_train(ex: Executor) -> dict[str, Any]:
    ticket = row(ex, train_bookings, "tbooking_001")
    offer = train_offer(
        ex,
        date=ticket["depart_at"][:10],
        seat_class=ticket["seat_class"],
        depart_after=ticket["depart_at"][11:],
        depart_before=ticket["depart_at"][11:],
    )
    return {"offer_id": offer["offer_id"], "passengers": [{"self": True}]}


def _trip_overlap(ex: Executor) -> dict[str, Any]:
    trip = row(ex, trips, "trip_003")
    return {
        "name": "Another trip",
        "destination": trip["destination"].lower(),
        "start_date": trip["end_date"],
        "end_date": "2025-06-30",
    }


def _outside_trip(ex: Executor) -> dict[str, Any]:
    return {"trip_id": "trip_003", "item_type": "activity", "title": "Museum", "start": "2025-07-15T10:00"}


def _item_twice(ex: Executor) -> dict[str, Any]:
    trip = row(ex, trips, "trip_003")
    return {
        "trip_id": "trip_003",
        "item_type": "hotel",
        "title": "Hotel",
        "start": f"{trip['start_date']}T15:00",
        "ref_id": "hbooking_003",
    }


SELF = [{"self": True}]
ROUTE = {"pickup": "Home", "dropoff": "Gym", "ride_type": "economy"}
NF, AMB, STATE, STALE = (
    ErrorType.ENTITY_NOT_FOUND,
    ErrorType.AMBIGUOUS_ENTITY,
    ErrorType.STATE_CONFLICT,
    ErrorType.STALE_REFERENCE,
)
UNAV, DUP, LIMIT, CONF = (
    ErrorType.RESOURCE_UNAVAILABLE,
    ErrorType.DUPLICATE_ENTITY,
    ErrorType.LIMIT_EXCEEDED,
    ErrorType.CONFIRMATION_REQUIRED,
)
IAV, MRA = ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.MISSING_REQUIRED_ARGUMENT
SD, PD = ErrorType.SERVICE_DISABLED, ErrorType.PERMISSION_DENIED


def _location_off(args: dict[str, Any]) -> Setup:
    def setup(ex: Executor) -> dict[str, Any]:
        changed(ex, device_settings, where={"key": "location_service"}, value="0")
        return args

    return setup


def _maps_not_located(args: dict[str, Any]) -> Setup:
    def setup(ex: Executor) -> dict[str, Any]:
        changed(ex, app_permissions, where={"app_id": "maps", "permission": "LOCATION"}, state="denied")
        return args

    return setup


ERROR_CASES: list[tuple[str, ErrorType, Setup]] = [
    ("search_places", NF, _args({"query": "cafe", "near": "Atlantis"})),
    ("search_places", SD, _location_off({"query": "cafe"})),
    ("search_places", PD, _maps_not_located({"query": "cafe", "near": "current"})),
    ("get_directions", SD, _location_off({"destination": "Work"})),
    ("get_directions", PD, _maps_not_located({"destination": "Home", "origin": "current"})),
    ("find_parking_or_charging", SD, _location_off({"kind": "parking"})),
    ("find_parking_or_charging", PD, _maps_not_located({"kind": "fuel"})),
    ("search_places", AMB, _ambiguous("near", {"query": "cafe"})),
    ("get_directions", NF, _args({"destination": "place_999"})),
    ("get_directions", AMB, _ambiguous("destination", {})),
    ("start_navigation", NF, _args({"destination": "Work", "stops": ["Nowhere Street 0"]})),
    ("start_navigation", AMB, _ambiguous("destination", {})),
    ("start_navigation", STATE, _running_navigation),
    ("save_place", NF, _args({"place": "Atlantis", "label": "Dream"})),
    ("save_place", AMB, _ambiguous("place", {"label": "Somewhere"})),
    ("save_place", DUP, _args({"place": "Shanghai", "label": "gym"})),
    ("estimate_ride_fare", IAV, _args({"pickup": "Home", "dropoff": "Gym", "scheduled_at": "2025-06-13T08:00"})),
    ("estimate_ride_fare", NF, _args({"pickup": "current", "dropoff": "Atlantis"})),
    ("estimate_ride_fare", AMB, _ambiguous("dropoff", {"pickup": "Home"})),
    ("book_ride", IAV, _args({"pickup": "Home", "dropoff": "home", "ride_type": "economy"})),
    ("book_ride", NF, _args(ROUTE | {"quote_id": "quote_999"})),
    ("book_ride", AMB, _ambiguous("pickup", {"dropoff": "Home", "ride_type": "economy"})),
    ("book_ride", STATE, _active_ride),
    ("book_ride", STATE, _frozen_ride),
    ("book_ride", STALE, _stale_quote),
    ("book_ride", LIMIT, _broke_wallet),
    ("cancel_ride", NF, _args({"ride_id": "ride_999"})),
    ("cancel_ride", STATE, _args({"ride_id": "ride_001"})),
    ("cancel_ride", CONF, _assigned_ride),
    ("search_flights", IAV, _args({"origin": "Beijing", "destination": "London", "date": "2025-06-12"})),
    ("search_flights", NF, _args({"origin": "Beijing", "destination": "Atlantis", "date": NEXT_WEEK})),
    ("book_flight", NF, _args({"offer_id": "offer_999", "passengers": SELF})),
    ("book_flight", MRA, _with_offer(flight_offer, None, {}, {"passengers": [{"contact_id": "contact_001"}]})),
    ("book_flight", STATE, _with_offer(flight_offer, _frozen, {}, {"passengers": SELF})),
    (
        "book_flight",
        STALE,
        _with_offer(flight_offer, _repriced(world_flights, "flight_id", _first_leg), {}, {"passengers": SELF}),
    ),
    ("book_flight", STALE, _with_offer(flight_offer, _expired, {}, {"passengers": SELF})),
    (
        "book_flight",
        UNAV,
        _with_offer(
            flight_offer, _sold_out(world_flights, "flight_id", "seats_left", _first_leg), {}, {"passengers": SELF}
        ),
    ),
    ("book_flight", DUP, _booked_twice(flight_offer, "book_flight", {}, {"passengers": SELF})),
    ("book_flight", LIMIT, _with_offer(flight_offer, None, {}, {"passengers": SELF, "payment_method_id": "pm_003"})),
    ("cancel_flight_booking", NF, _args({"booking_id": "fbooking_999"})),
    ("cancel_flight_booking", STATE, _args({"booking_id": "fbooking_001"})),
    ("cancel_flight_booking", CONF, _args({"booking_id": "fbooking_003"})),
    ("get_flight_status", NF, _args({"flight_number": "ZZ9", "date": NEXT_WEEK})),
    ("check_in_flight", NF, _args({"booking_id": "fbooking_999"})),
    ("check_in_flight", STATE, _args({"booking_id": "fbooking_001"})),
    ("check_in_flight", STATE, _args({"booking_id": "fbooking_003"})),
    ("check_in_flight", UNAV, _args({"booking_id": "fbooking_002", "seat": "3C"})),
    ("search_hotels", IAV, _args({"city": "Berlin", "check_in": "2025-06-01", "check_out": "2025-06-03"})),
    ("search_hotels", NF, _args({"city": "Atlantis", "check_in": NEXT_WEEK, "check_out": "2025-06-22"})),
    ("search_hotels", AMB, _ambiguous("near", {"city": "Beijing", "check_in": NEXT_WEEK, "check_out": "2025-06-22"})),
    ("book_hotel", NF, _args({"offer_id": "offer_999", "guest_name": "Wang Lei"})),
    ("book_hotel", STATE, _with_offer(hotel_offer, _frozen, {}, {"guest_name": "Wang Lei"})),
    (
        "book_hotel",
        STALE,
        _with_offer(
            hotel_offer,
            lambda ex, o: _repriced(world_hotel_rooms, "room_id", _room(ex))(ex, o),
            {},
            {"guest_name": "Wang Lei"},
        ),
    ),
    (
        "book_hotel",
        UNAV,
        _with_offer(
            hotel_offer,
            lambda ex, o: _sold_out(world_hotel_rooms, "room_id", "rooms_left", _room(ex))(ex, o),
            {},
            {"guest_name": "Wang Lei"},
        ),
    ),
    ("book_hotel", DUP, _holiday_stay),
    (
        "book_hotel",
        LIMIT,
        _with_offer(hotel_offer, None, {}, {"guest_name": "Wang Lei", "payment_method_id": "pm_003"}),
    ),
    ("cancel_hotel_booking", NF, _args({"booking_id": "hbooking_999"})),
    ("cancel_hotel_booking", STATE, _args({"booking_id": "hbooking_001"})),
    ("cancel_hotel_booking", STATE, _args({"booking_id": "hbooking_002"})),
    ("cancel_hotel_booking", CONF, _late_hotel_cancel),
    ("search_trains", IAV, _args({"origin": "Beijing", "destination": "Shanghai", "date": "2025-06-12"})),
    ("search_trains", NF, _args({"origin": "Beijing", "destination": "Atlantis", "date": NEXT_WEEK})),
    ("book_train_ticket", NF, _args({"offer_id": "offer_999", "passengers": SELF})),
    ("book_train_ticket", MRA, _with_offer(train_offer, None, {}, {"passengers": [{"name": "Li Na"}]})),
    ("book_train_ticket", STATE, _with_offer(train_offer, _frozen, {}, {"passengers": SELF})),
    (
        "book_train_ticket",
        STALE,
        _with_offer(
            train_offer, _repriced(world_trains, "train_id", lambda o: o["train_id"]), {}, {"passengers": SELF}
        ),
    ),
    (
        "book_train_ticket",
        UNAV,
        _with_offer(
            train_offer,
            _sold_out(world_trains, "train_id", "seats_left", lambda o: o["train_id"]),
            {},
            {"passengers": SELF},
        ),
    ),
    ("book_train_ticket", DUP, _seeded_train),
    (
        "book_train_ticket",
        LIMIT,
        _with_offer(train_offer, None, {"seat_class": "business"}, {"passengers": SELF, "payment_method_id": "pm_003"}),
    ),
    (
        "create_trip_itinerary",
        NF,
        _args(
            {
                "name": "x",
                "destination": "Tokyo",
                "start_date": NEXT_WEEK,
                "end_date": NEXT_WEEK,
                "travelers": ["contact_999"],
            }
        ),
    ),
    ("create_trip_itinerary", DUP, _trip_overlap),
    (
        "add_itinerary_item",
        NF,
        _args({"trip_id": "trip_999", "item_type": "note", "title": "x", "start": "2025-06-22T10:00"}),
    ),
    (
        "add_itinerary_item",
        NF,
        _args(
            {
                "trip_id": "trip_003",
                "item_type": "event",
                "title": "Show",
                "start": "2025-06-22T19:00",
                "ref_id": "ticket_999",
            }
        ),
    ),
    ("add_itinerary_item", IAV, _outside_trip),
    ("add_itinerary_item", DUP, _item_twice),
    ("find_parking_or_charging", NF, _args({"kind": "parking", "near": "Atlantis"})),
    ("find_parking_or_charging", AMB, _ambiguous("near", {"kind": "fuel"})),
]


@pytest.mark.parametrize(
    ("name", "error", "setup"), ERROR_CASES, ids=[f"{c[0]}-{c[1].value}-{i}" for i, c in enumerate(ERROR_CASES)]
)
def test_declared_error_changes_nothing(ex: Executor, name: str, error: ErrorType, setup: Setup) -> None:
    fails(ex, name, setup(ex), error)


def test_every_declared_error_is_tested() -> None:
    declared = {(n, e) for n in TRAVEL_TOOLS for e in REGISTRY[n].errors}
    assert {(c[0], c[1]) for c in ERROR_CASES} == declared


# ---- cross-field rules and the gates ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("save_place", {"place": "current", "label": "Here"}),
        ("get_directions", {"destination": "Work", "depart_at": "2025-06-13T10:00", "arrive_by": "2025-06-13T11:00"}),
        ("search_hotels", {"city": "Berlin", "check_in": NEXT_WEEK, "check_out": NEXT_WEEK}),
        ("search_hotels", {"city": "Berlin", "check_in": NEXT_WEEK, "check_out": "2025-06-22", "near": "current"}),
        ("search_flights", {"origin": "PEK", "destination": "LHR", "date": NEXT_WEEK, "return_date": "2025-06-19"}),
        ("search_flights", {"origin": "San Francisco", "destination": "Palo Alto", "date": NEXT_WEEK}),
        ("book_flight", {"offer_id": "offer_001", "passengers": [{"self": True, "name": "Wang Lei"}]}),
        ("book_flight", {"offer_id": "offer_001", "passengers": [{"id_number": "E1234567"}]}),
        ("book_ride", {"pickup": "Home", "dropoff": "Gym", "ride_type": "comfort", "passengers": 5}),
        ("book_ride", {"pickup": "Home", "dropoff": "Gym", "ride_type": "economy", "scheduled_at": "2099-01-01T10:00"}),
        (
            "add_itinerary_item",
            {
                "trip_id": "trip_003",
                "item_type": "flight",
                "title": "x",
                "start": "2025-06-22T10:00",
                "ref_id": "hbooking_003",
            },
        ),
        (
            "create_trip_itinerary",
            {"name": "x", "destination": "Tokyo", "start_date": NEXT_WEEK, "end_date": "2025-06-19"},
        ),
        ("get_directions", {"destination": "Work", "depart_at": "1999-12-31T10:00"}),
    ],
)
def test_inconsistent_arguments_are_invalid(ex: Executor, name: str, args: dict[str, Any]) -> None:
    fails(ex, name, args, ErrorType.INVALID_ARGUMENT_VALUE)


def test_location_tools_need_the_service_and_the_permission(ex: Executor) -> None:
    prepare(ex.conn, update(device_settings).where(device_settings.c.key == "location_service").values(value="0"))
    fails(ex, "get_current_location", {}, ErrorType.SERVICE_DISABLED)
    fails(ex, "book_ride", ROUTE, ErrorType.SERVICE_DISABLED)
    prepare(
        ex.conn,
        update(device_settings).where(device_settings.c.key == "location_service").values(value="1"),
        update(app_permissions).where(app_permissions.c.app_id == "maps").values(state="not_requested"),
    )
    payload = fails(ex, "search_places", {"query": "cafe"}, ErrorType.PERMISSION_DENIED)
    assert (payload["app_id"], payload["permission"]) == ("maps", "LOCATION")
    assert ok(ex, "save_place", {"place": "Shanghai", "label": "Trip base"})["city"] == "Shanghai"  # no location needed


def test_maps_reads_need_location_only_for_the_phones_position(ex: Executor) -> None:
    """An explicit near/origin (a saved label, an address) needs no GPS: searching near Home shows saved labels."""
    prepare(
        ex.conn,
        update(device_settings).where(device_settings.c.key == "location_service").values(value="0"),
        update(app_permissions).where(app_permissions.c.app_id == "maps").values(state="not_requested"),
    )
    found = ok(ex, "search_places", {"query": "cafe", "near": "Home", "radius_km": 50})
    assert found["near"]["name"] and found["places"]
    assert ok(ex, "get_directions", {"origin": "Home", "destination": "Work"})["routes"]
    assert ok(ex, "find_parking_or_charging", {"kind": "parking", "near": "Work", "radius_km": 50})["near"]
    fails(ex, "get_directions", {"destination": "Work"}, ErrorType.SERVICE_DISABLED)


def test_a_saved_place_is_found_by_its_address_and_unknown_places_name_the_saved_ones(ex: Executor) -> None:
    [home] = query(ex, select(saved_places).where(saved_places.c.label == "Home"))
    for spelling in (home["address"], f"{home['address']}, {home['city']}".upper()):
        out = ok(ex, "get_directions", {"origin": spelling, "destination": "Work"})
        assert (out["origin"]["address"], out["origin"]["city"]) == (home["address"], home["city"])
    labels = [r["label"] for r in query(ex, select(saved_places.c.label).order_by(saved_places.c.label))]
    for args in ({"destination": "my coffee spot"}, {"destination": "place_999"}):
        payload = fails(ex, "get_directions", args, ErrorType.ENTITY_NOT_FOUND)
        assert payload["saved_labels"] == labels and payload["saved_places"][0]["address"]
    payload = fails(
        ex, "estimate_ride_fare", {"pickup": "Home", "dropoff": "the cafe I like"}, ErrorType.ENTITY_NOT_FOUND
    )
    assert payload["saved_labels"] == labels


def test_booking_tools_need_the_network(ex: Executor) -> None:
    radios = device_settings.c.key.in_(("wifi", "mobile_data"))
    prepare(ex.conn, update(device_settings).where(radios).values(value="0"))
    fails(
        ex, "search_flights", {"origin": "PEK", "destination": "LHR", "date": NEXT_WEEK}, ErrorType.NETWORK_UNAVAILABLE
    )
    assert (
        ok(
            ex,
            "create_trip_itinerary",
            {"name": "Offline plan", "destination": "Tokyo", "start_date": NEXT_WEEK, "end_date": NEXT_WEEK},
        )["trip_id"]
        == "trip_004"
    )


def test_stale_offer_payload_names_both_prices(ex: Executor) -> None:
    offer = flight_offer(ex)
    _repriced(world_flights, "flight_id", _first_leg)(ex, offer)
    payload = fails(ex, "book_flight", {"offer_id": offer["offer_id"], "passengers": SELF}, STALE)
    assert payload["old_price"] == offer["price_per_passenger"]
    assert payload["new_price"] == offer["price_per_passenger"] + 50


def test_withdrawn_offer_is_stale(ex: Executor) -> None:
    offer = train_offer(ex)
    changed(ex, offers, where={"offer_id": offer["offer_id"]}, status="changed")
    fails(ex, "book_train_ticket", {"offer_id": offer["offer_id"], "passengers": SELF}, STALE)


def test_offer_of_another_kind_is_not_found(ex: Executor) -> None:
    offer = hotel_offer(ex)
    fails(ex, "book_flight", {"offer_id": offer["offer_id"], "passengers": SELF}, NF)


def test_ambiguous_place_lists_candidates_and_city_disambiguates(ex: Executor) -> None:
    name = ambiguous_name(ex)
    payload = fails(ex, "get_directions", {"destination": name}, AMB)
    assert len(payload["candidates"]) >= 2 and {c["name"] for c in payload["candidates"]} == {name}
    one = next(
        (c for c in payload["candidates"] if sum(d["city"] == c["city"] for d in payload["candidates"]) == 1), None
    )
    if one is not None:
        found = ok(ex, "get_directions", {"destination": f"{name}, {one['city']}"})
        assert found["destination"]["place_id"] == one["place_id"]


# ---- no argument makes a travel tool crash ----------------------------------------------------

PLAUSIBLE = st.sampled_from(
    [
        "current",
        "Home",
        "work",
        "Gym",
        "place_001",
        "place_999",
        "Beijing",
        "London",
        "PEK",
        "LHR",
        "atlantis",
        "2025-06-14",
        "2025-06-20",
        "2025-06-12",
        "2025-06-20T10:00",
        "2025-06-13T08:00",
        "10:00",
        "offer_001",
        "quote_001",
        "fbooking_002",
        "fbooking_003",
        "hbooking_003",
        "tbooking_001",
        "ride_020",
        "trip_003",
        "contact_001",
        "economy",
        "window",
        "parking",
        "ev_charging",
        "gbt",
        "2A",
        "12C",
        "driving",
        "",
    ]
)
VALUES = (
    PLAUSIBLE
    | st.integers(-2, 12)
    | st.booleans()
    | st.floats(-1, 60, allow_nan=False)
    | st.lists(
        PLAUSIBLE
        | st.fixed_dictionaries({}, optional={"self": st.booleans(), "name": PLAUSIBLE, "contact_id": PLAUSIBLE}),
        max_size=3,
    )
)


def _travel_call(name: str) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    keys = sorted(REGISTRY[name].parameters["properties"])
    return (
        st.tuples(st.just(name), st.dictionaries(st.sampled_from(keys), VALUES, max_size=len(keys)))
        if keys
        else st.tuples(st.just(name), st.just({}))
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TRAVEL_TOOLS).flatmap(_travel_call), min_size=1, max_size=5))
def test_fuzzed_travel_calls_never_crash(calls: list[tuple[str, dict[str, Any]]]) -> None:
    conn = open_database(world_image("wang_lei"))
    try:
        ex = Executor(conn, visible=ALL_DOMAIN_TOOLS)
        for i, (name, args) in enumerate(calls, start=1):
            ex.step = i
            before = diff_of(conn)
            env = ex.call(name, args)
            if env["Status"] == "error":
                assert diff_of(conn) == before
        assert ex.internal_errors == []
    finally:
        conn.close()
