"""D13 lifestyle tools against the wang_lei world (now = 2025-06-13T09:00, a Friday; prices in CNY).

Every tool has a success test that checks its payload and state diff, and every declared error has
a case that must fail with exactly that ErrorType, change nothing and add one log row.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Executable, select, update

from sandbox.domains.common import addresses, payment_methods, transactions, world_places
from sandbox.domains.lifestyle import tools as lifestyle
from sandbox.domains.lifestyle.schema import (
    courier_orders,
    event_tickets,
    membership_cards,
    service_appointments,
    world_events,
    world_parcels,
    world_service_providers,
    world_service_slots,
)
from sandbox.domains.shopping.schema import shipments
from sandbox.errors import ErrorType
from sandbox.executor import Executor
from sandbox.locales import convert, country_of
from sandbox.tooling import REGISTRY
from tests.sandbox.conftest import diff, fails, ok, prepare, query

TOOLS = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ == lifestyle.__name__ and s.is_domain_tool)
MUSEUM = "evt_044"  # Shanghai Museum (East): sold only in the shmuseum app
TOMORROW = "2025-06-14"


def balance(ex: Executor, method_id: str) -> float:
    return float(
        query(ex, select(payment_methods.c.balance).where(payment_methods.c.method_id == method_id))[0]["balance"]
    )


def tiered_event(ex: Executor) -> dict[str, Any]:
    """A bookable event with seating sections, several sessions, seats left and no ticket held."""
    held = {t["event_id"] for t in query(ex, select(event_tickets))}
    e = world_events.c
    for ev in query(
        ex,
        select(world_events)
        .where(e.api_bookable == 1, e.sections_json != "{}", e.seats_left >= 20)
        .order_by(e.event_id),
    ):
        if ev["event_id"] not in held and len(json.loads(ev["sessions_json"])) > 1:
            return ev
    raise AssertionError("no tiered event")


def event_titled(ex: Executor, title: str) -> dict[str, Any]:
    return query(ex, select(world_events).where(world_events.c.title == title))[0]


def event_titled_by_id(ex: Executor, event_id: str) -> dict[str, Any]:
    return query(ex, select(world_events).where(world_events.c.event_id == event_id))[0]


def first_session(ev: dict[str, Any]) -> str:
    return str(json.loads(ev["sessions_json"])[0])


def provider(ex: Executor, name: str) -> dict[str, Any]:
    p = world_service_providers.c
    return query(ex, select(world_service_providers).where(p.name == name, p.city == "Beijing"))[0]


def open_slot(ex: Executor, provider_id: str, day: str = TOMORROW) -> str:
    s = world_service_slots.c
    return str(
        query(
            ex,
            select(s.start)
            .where(s.provider_id == provider_id, s.available == 1, s.start.like(f"{day}%"))
            .order_by(s.start),
        )[0]["start"]
    )


def free_slot(provider_name: str, start: str) -> Callable[[Executor], list[Executable]]:
    """Setup: make sure the provider's slot at ``start`` is open."""

    def setup(ex: Executor) -> list[Executable]:
        s = world_service_slots.c
        return [
            update(world_service_slots)
            .where(s.provider_id == provider(ex, provider_name)["provider_id"], s.start == start)
            .values(available=1)
        ]

    return setup


def frozen(method_id: str) -> Callable[[Executor], list[Executable]]:
    return lambda ex: [update(payment_methods).where(payment_methods.c.method_id == method_id).values(status="frozen")]


# ---- the world and the declarations -------------------------------------------------------------


def test_declarations() -> None:
    assert (
        sorted(
            [
                "search_events",
                "book_event_tickets",
                "track_parcel",
                "schedule_courier_pickup",
                "search_local_services",
                "cancel_service_appointment",
                "book_service_appointment",
                "add_membership_card",
            ]
        )
        == TOOLS
    )
    apps = {n: REGISTRY[n].app for n in TOOLS}
    assert apps["book_event_tickets"] == "tickets" and apps["track_parcel"] == "courier"
    assert apps["book_service_appointment"] == "services" and apps["add_membership_card"] == "wallet"
    assert {n for n in TOOLS if not REGISTRY[n].mutating} == {"search_events", "track_parcel", "search_local_services"}
    assert all(REGISTRY[n].domain == "D13" for n in TOOLS)


def test_world_is_seeded_as_promised(ex: Executor) -> None:
    museum = query(ex, select(world_events).where(world_events.c.event_id == MUSEUM))[0]
    assert (
        museum["title"],
        museum["city"],
        museum["api_bookable"],
        museum["realname_required"],
        museum["booking_app_id"],
    ) == ("Shanghai Museum (East) general admission", "Shanghai", 0, 1, "shmuseum")
    assert json.loads(museum["sessions_json"]) == [
        "2025-06-21T09:00",
        "2025-06-21T13:00",
        "2025-06-22T09:00",
        "2025-06-22T13:00",
    ]
    cities = {r["city"] for r in query(ex, select(world_places.c.city))}
    events = query(ex, select(world_events))
    assert cities <= {ev["city"] for ev in events} and len(events) >= 50
    assert len({ev["category"] for ev in events}) == 7
    assert event_titled(ex, "Palace Museum general admission")["booking_app_id"] == "palacemuseum"
    assert len(query(ex, select(world_parcels))) == 12
    beijing = query(ex, select(world_service_providers).where(world_service_providers.c.city == "Beijing"))
    offered = {s for p in beijing for s in json.loads(p["service_types_json"])}
    assert len(offered) == 11 and any(not p["online_booking"] for p in beijing)
    assert len(query(ex, select(world_service_slots))) > 300
    assert [
        a["status"] for a in query(ex, select(service_appointments).order_by(service_appointments.c.appointment_id))
    ] == ["completed", "completed", "cancelled", "booked", "booked"]
    assert "HH123456" in {c["card_number"] for c in query(ex, select(membership_cards))}
    paid = {t["ref_id"] for t in query(ex, select(transactions))}
    assert {"ticket_001", "ticket_002", "courier_002", "sappt_004", "sappt_005"} <= paid


# ---- 13.1 Events & Attraction Tickets -----------------------------------------------------------


def test_search_events_finds_the_museum(ex: Executor) -> None:
    out = ok(
        ex,
        "search_events",
        {"city": "shanghai", "category": "museum", "date_from": "2025-06-21", "date_to": "2025-06-21"},
    )
    [museum] = [ev for ev in out["events"] if ev["event_id"] == MUSEUM]
    assert museum["sessions"] == ["2025-06-21T09:00", "2025-06-21T13:00"]
    assert (museum["api_bookable"], museum["booking_app_id"], museum["realname_required"]) == (False, "shmuseum", True)
    assert diff(ex) == {}


def test_search_events_only_upcoming_sessions(ex: Executor) -> None:
    used = query(ex, select(event_tickets).where(event_tickets.c.status == "used"))[0]
    out = ok(ex, "search_events", {"query": event_titled_by_id(ex, used["event_id"])["title"], "limit": 50})
    [ev] = [e for e in out["events"] if e["event_id"] == used["event_id"]]
    assert used["session_time"] not in ev["sessions"] and all(s >= "2025-06-13T09:00" for s in ev["sessions"])
    cheap = ok(ex, "search_events", {"max_price": 100, "limit": 50})["events"]
    assert cheap and all(convert(e["price"], e["currency"], "CNY") <= 100 for e in cheap)
    assert {"CNY", "GBP"} <= {e["currency"] for e in cheap}  # £6.99 is under 100 yuan, ¥489 is not


def test_an_event_abroad_is_priced_where_it_is_and_paid_converted(ex: Executor) -> None:
    e = world_events.c
    events = query(ex, select(world_events).where(e.api_bookable == 1, e.price > 0, e.sections_json == "{}"))
    assert all(ev["currency"] == country_of(ev["city"]).currency for ev in events)
    london = next(ev for ev in events if ev["city"] == "London" and ev["seats_left"] >= 2)
    before = balance(ex, "pm_001")
    out = ok(
        ex,
        "book_event_tickets",
        {
            "event_id": london["event_id"],
            "quantity": 2,
            "session_time": first_session(london),
            "payment_method_id": "pm_001",
        },
    )
    assert (out["total"], out["currency"]) == (round(london["price"] * 2, 2), "GBP")
    [txn] = diff(ex)["transactions"]["inserted"]
    paid = convert(out["total"], "GBP", "CNY")  # about 9.7 yuan a pound
    assert (txn["amount"], txn["currency"]) == (-paid, "CNY") and 9 * out["total"] < paid < 10.5 * out["total"]
    assert balance(ex, "pm_001") == round(before - paid, 2)


def test_search_events_needs_a_filter(ex: Executor) -> None:
    fails(ex, "search_events", {}, ErrorType.INVALID_ARGUMENT_VALUE)
    fails(ex, "search_events", {"date_from": "2025-06-20", "date_to": "2025-06-19"}, ErrorType.INVALID_ARGUMENT_VALUE)


def test_book_event_tickets_in_a_section(ex: Executor) -> None:
    ev = tiered_event(ex)
    session = json.loads(ev["sessions_json"])[1]
    sections = json.loads(ev["sections_json"])
    before = balance(ex, "pm_001")
    out = ok(
        ex,
        "book_event_tickets",
        {
            "event_id": ev["event_id"],
            "quantity": 2,
            "session_time": session,
            "seat_section": "vip",
            "payment_method_id": "pm_001",
        },
    )
    assert (out["ticket_id"], out["session_time"], out["seat_section"], out["total"]) == (
        "ticket_004",
        session,
        "VIP",
        sections["VIP"] * 2,
    )
    d = diff(ex)
    [ticket] = d["event_tickets"]["inserted"]
    assert (ticket["status"], ticket["quantity"], ticket["source"], ticket["qr_code"]) == (
        "booked",
        2,
        "api",
        out["qr_code"],
    )
    [seats] = d["world_events"]["updated"]
    assert seats["after"]["seats_left"] == ev["seats_left"] - 2
    [txn] = d["transactions"]["inserted"]
    assert (txn["amount"], txn["ref_id"]) == (-out["total"], "ticket_004")
    assert balance(ex, "pm_001") == round(before - out["total"], 2)


def test_book_free_realname_tickets(ex: Executor) -> None:
    ev = event_titled(ex, "National Museum of China general admission")
    out = ok(
        ex,
        "book_event_tickets",
        {
            "event_id": ev["event_id"],
            "quantity": 2,
            "session_time": first_session(ev),
            "attendee_names": ["Wang Lei", "Lily Chen"],
        },
    )
    assert out["total"] == 0.0 and out["seat_section"] is None
    d = diff(ex)
    assert "transactions" not in d
    assert json.loads(d["event_tickets"]["inserted"][0]["attendee_names_json"]) == ["Wang Lei", "Lily Chen"]


def test_book_event_tickets_museum_app_only(ex: Executor) -> None:
    payload = fails(ex, "book_event_tickets", {"event_id": MUSEUM, "quantity": 1}, ErrorType.UNSUPPORTED_OPERATION)
    assert (payload["hint"], payload["app_id"]) == ("call_gui_agent(app_id='shmuseum')", "shmuseum")


def test_book_event_tickets_one_name_per_ticket(ex: Executor) -> None:
    ev = event_titled(ex, "National Museum of China general admission")
    fails(
        ex,
        "book_event_tickets",
        {"event_id": ev["event_id"], "quantity": 2, "session_time": first_session(ev), "attendee_names": ["Wang Lei"]},
        ErrorType.INVALID_ARGUMENT_VALUE,
    )


# ---- 13.2 Parcels & Courier ---------------------------------------------------------------------


def test_track_parcel_sources(ex: Executor) -> None:
    parcel = query(ex, select(world_parcels).where(world_parcels.c.status == "exception"))[0]
    messy = " ".join([parcel["tracking_number"][:4].lower(), parcel["tracking_number"][4:]])
    out = ok(ex, "track_parcel", {"tracking_number": messy, "carrier": parcel["carrier"].upper()})
    assert (out["tracking_number"], out["status"], out["sender"]) == (
        parcel["tracking_number"],
        "exception",
        parcel["sender"],
    )
    ship = query(ex, select(shipments))[0]
    assert ok(ex, "track_parcel", {"tracking_number": ship["tracking_number"]})["order_id"] == ship["order_id"]
    pickup = query(ex, select(courier_orders).where(courier_orders.c.status == "scheduled"))[0]
    out = ok(ex, "track_parcel", {"tracking_number": pickup["tracking_number"]})
    assert out["courier_order_id"] == pickup["courier_order_id"] and out["status"] == "scheduled"
    assert diff(ex) == {}


def test_schedule_courier_pickup(ex: Executor) -> None:
    out = ok(
        ex,
        "schedule_courier_pickup",
        {
            "pickup_address_id": "address_001",
            "package_size": "medium",
            "insured_value": 500,
            "recipient": {"name": "Zhang Min", "phone": "+86 139 5555 6666", "address": "3 Hill Road, Beijing"},
            "pickup_window": {"start": f"{TOMORROW}T09:00", "end": f"{TOMORROW}T11:00"},
        },
    )
    assert (out["courier_order_id"], out["carrier"], out["price"]) == ("courier_003", "SF Express", 27.0)
    assert out["tracking_number"].startswith("SF") and len(out["tracking_number"]) == 14
    d = diff(ex)
    [row] = d["courier_orders"]["inserted"]
    assert json.loads(row["recipient_json"])["phone"] == "+8613955556666"
    assert (row["window_start"], row["window_end"], row["status"]) == (
        f"{TOMORROW}T09:00",
        f"{TOMORROW}T11:00",
        "scheduled",
    )
    [txn] = d["transactions"]["inserted"]
    assert (txn["amount"], txn["ref_id"], txn["method_id"]) == (-27.0, "courier_003", "pm_002")


def test_schedule_courier_pickup_default_window(ex: Executor) -> None:
    out = ok(
        ex,
        "schedule_courier_pickup",
        {
            "pickup_address_id": "address_002",
            "package_size": "document",
            "recipient": {"name": "Tom Baker", "phone": "13912345678", "address": "9 Park Avenue, Beijing"},
        },
    )
    assert out["window"] == {"start": "2025-06-13T10:00", "end": "2025-06-13T12:00"}


@pytest.mark.parametrize(
    "window",
    [
        {"start": f"{TOMORROW}T07:00", "end": f"{TOMORROW}T09:00"},
        {"start": f"{TOMORROW}T19:30", "end": f"{TOMORROW}T20:30"},
        {"start": f"{TOMORROW}T10:00", "end": f"{TOMORROW}T10:30"},
        {"start": f"{TOMORROW}T18:00", "end": "2025-06-15T09:00"},
    ],
)
def test_courier_window_rules(ex: Executor, window: dict[str, str]) -> None:
    fails(
        ex,
        "schedule_courier_pickup",
        {
            "pickup_address_id": "address_001",
            "package_size": "small",
            "pickup_window": window,
            "recipient": {"name": "Tom Baker", "phone": "13912345678", "address": "9 Park Avenue"},
        },
        ErrorType.INVALID_ARGUMENT_VALUE,
    )


# ---- 13.3 Home & Repair Services, 13.4 Personal Care --------------------------------------------


def test_search_local_services(ex: Executor) -> None:
    out = ok(ex, "search_local_services", {"service_type": "haircut"})
    names = [p["name"] for p in out["providers"]]
    assert out["city"] == "Beijing" and {"Studio 8 Salon", "Urban Cuts Barbershop"} <= set(names)
    ratings = [p["rating"] for p in out["providers"]]
    assert ratings == sorted(ratings, reverse=True)
    assert all(s > "2025-06-13T09:00" for p in out["providers"] for s in p["open_slots"])
    day = ok(
        ex,
        "search_local_services",
        {"service_type": "cleaning", "near": "home", "date": TOMORROW, "max_price": 10000, "min_rating": 1},
    )
    assert day["providers"] and all(
        p["comes_to_you"] and p["open_slots"] and all(s.startswith(TOMORROW) for s in p["open_slots"])
        for p in day["providers"]
    )
    salon = query(ex, select(world_places).where(world_places.c.category == "salon", world_places.c.city == "Beijing"))[
        0
    ]
    assert ok(ex, "search_local_services", {"service_type": "nail", "near": salon["place_id"]})["city"] == "Beijing"
    assert ok(ex, "search_local_services", {"service_type": "nail", "near": "Atlantis"})["providers"] == []
    assert diff(ex) == {}


def test_book_service_appointment(ex: Executor) -> None:
    salon = provider(ex, "Studio 8 Salon")
    start = open_slot(ex, salon["provider_id"])
    out = ok(
        ex,
        "book_service_appointment",
        {"provider_id": salon["provider_id"], "service": "Haircut", "start": start, "staff_preference": "Tony"},
    )
    price = json.loads(salon["price_json"])["haircut"]
    assert (out["appointment_id"], out["service"], out["price"], out["location"]) == (
        "sappt_006",
        "haircut",
        price,
        salon["address"],
    )
    d = diff(ex)
    [appt] = d["service_appointments"]["inserted"]
    assert (appt["start"], appt["status"], appt["staff_preference"], appt["address_id"]) == (
        start,
        "booked",
        "Tony",
        None,
    )
    [slot] = d["world_service_slots"]["updated"]
    assert (slot["before"]["available"], slot["after"]["available"]) == (1, 0)
    assert [t["amount"] for t in d["transactions"]["inserted"]] == [-price]


def test_book_home_service_at_an_address(ex: Executor) -> None:
    cleaners = provider(ex, "TidyNest Cleaners")
    out = ok(
        ex,
        "book_service_appointment",
        {
            "provider_id": cleaners["provider_id"],
            "service": "cleaning",
            "start": open_slot(ex, cleaners["provider_id"]),
            "address_id": "address_002",
        },
    )
    [a] = query(ex, select(addresses).where(addresses.c.address_id == "address_002"))
    # the address resolved, so the model can confirm where the cleaners go
    assert out["location"] == f"{a['label']}: {a['address_line']}, {a['city']} (address_002)"
    assert diff(ex)["service_appointments"]["inserted"][0]["address_id"] == "address_002"


def test_saved_addresses_are_named_by_label(ex: Executor) -> None:
    """Nothing in D13 lists the saved addresses, so their labels work, and an unknown one lists them."""
    out = ok(ex, "schedule_courier_pickup", {**PICKUP, "pickup_address_id": "my home"})
    assert diff(ex)["courier_orders"]["inserted"][0]["pickup_address_id"] == "address_001"
    cleaners = provider(ex, "TidyNest Cleaners")
    ok(
        ex,
        "book_service_appointment",
        {
            "provider_id": cleaners["provider_id"],
            "service": "cleaning",
            "start": open_slot(ex, cleaners["provider_id"]),
            "address_id": "Work",
        },
    )
    assert diff(ex)["service_appointments"]["inserted"][0]["address_id"] == "address_002"
    error = fails(ex, "schedule_courier_pickup", {**PICKUP, "pickup_address_id": "cabin"}, ErrorType.ENTITY_NOT_FOUND)
    assert [a["label"] for a in error["saved_addresses"]] == ["Home", "Work"]
    assert out["courier_order_id"] == "courier_003"


def test_cancel_service_appointment_early(ex: Executor) -> None:
    appt = query(ex, select(service_appointments).where(service_appointments.c.appointment_id == "sappt_005"))[0]
    out = ok(ex, "cancel_service_appointment", {"appointment_id": "sappt_005", "reason": "trip"})
    assert out == {
        "appointment_id": "sappt_005",
        "status": "cancelled",
        "refunded": appt["price"],
        "cancellation_fee": 0.0,
        "currency": "CNY",
    }
    d = diff(ex)
    assert [u["after"]["status"] for u in d["service_appointments"]["updated"]] == ["cancelled"]
    assert [(u["before"]["available"], u["after"]["available"]) for u in d["world_service_slots"]["updated"]] == [
        (0, 1)
    ]
    assert [u["after"]["status"] for u in d["transactions"]["updated"]] == ["refunded"]


def test_cancel_service_appointment_late_costs_a_fee(ex: Executor) -> None:
    appt = query(ex, select(service_appointments).where(service_appointments.c.appointment_id == "sappt_004"))[0]
    payload = fails(ex, "cancel_service_appointment", {"appointment_id": "sappt_004"}, ErrorType.CONFIRMATION_REQUIRED)
    assert payload["fee"] == round(appt["price"] / 2, 2)
    out = ok(ex, "cancel_service_appointment", {"appointment_id": "sappt_004", "confirm": True})
    assert (out["cancellation_fee"], out["refunded"]) == (payload["fee"], round(appt["price"] - payload["fee"], 2))
    [fee] = diff(ex)["transactions"]["inserted"]
    assert (fee["amount"], fee["ref_id"]) == (-payload["fee"], "sappt_004")


# ---- 13.5 Loyalty & Memberships -----------------------------------------------------------------


def test_add_membership_card(ex: Executor) -> None:
    out = ok(ex, "add_membership_card", {"merchant": "Decathlon", "card_number": "2090 0011 7788", "points": 120})
    assert out == {
        "card_id": "mcard_004",
        "action": "added",
        "merchant": "Decathlon",
        "card_number": "209000117788",
        "holder_name": "Wang Lei",
        "points": 120,
    }
    [row] = diff(ex)["membership_cards"]["inserted"]
    assert (row["card_number"], row["holder_name"], row["points"]) == ("209000117788", "Wang Lei", 120)


def test_add_membership_card_refreshes_points(ex: Executor) -> None:
    out = ok(ex, "add_membership_card", {"merchant": "hilton honors", "card_number": "hh-123 456", "points": 50000})
    assert (out["card_id"], out["action"], out["previous_points"]) == ("mcard_003", "points_updated", 48200)
    [upd] = diff(ex)["membership_cards"]["updated"]
    assert upd["after"]["points"] == 50000


def test_add_membership_card_finds_the_number_under_another_merchant_spelling(ex: Executor) -> None:
    """The saved card's number identifies it: "Hilton" with Hilton Honors' number updates that card."""
    out = ok(ex, "add_membership_card", {"merchant": "Hilton", "card_number": "HH 123456", "points": 51000})
    assert (out["card_id"], out["action"], out["merchant"]) == ("mcard_003", "points_updated", "Hilton Honors")
    assert not diff(ex)["membership_cards"]["inserted"]
    fails(ex, "add_membership_card", {"merchant": "Hilton", "card_number": "HH123456"}, ErrorType.DUPLICATE_ENTITY)
    payload = fails(
        ex,
        "add_membership_card",
        {"merchant": "Costco", "card_number": "HH123456", "points": 5},
        ErrorType.DUPLICATE_ENTITY,
    )  # the number is another programme's card
    assert (payload["existing_id"], payload["merchant"]) == ("mcard_003", "Hilton Honors")


# ---- every declared error -----------------------------------------------------------------------

Args = dict[str, Any] | Callable[[Executor], dict[str, Any]]
Setup = Callable[[Executor], list[Executable]]
RECIPIENT = {"name": "Tom Baker", "phone": "13912345678", "address": "9 Park Avenue, Beijing"}
PICKUP = {
    "pickup_address_id": "address_001",
    "recipient": RECIPIENT,
    "package_size": "small",
    "pickup_window": {"start": f"{TOMORROW}T09:00", "end": f"{TOMORROW}T11:00"},
}


def _tiered(**extra: Any) -> Callable[[Executor], dict[str, Any]]:
    return lambda ex: {
        "event_id": tiered_event(ex)["event_id"],
        "quantity": 1,
        "session_time": first_session(tiered_event(ex)),
        **extra,
    }


def _national(**extra: Any) -> Callable[[Executor], dict[str, Any]]:
    def args(ex: Executor) -> dict[str, Any]:
        ev = event_titled(ex, "National Museum of China general admission")
        return {"event_id": ev["event_id"], "quantity": 1, "session_time": first_session(ev), **extra}

    return args


def _held_ticket(ex: Executor) -> dict[str, Any]:
    ticket = query(ex, select(event_tickets).where(event_tickets.c.ticket_id == "ticket_002"))[0]
    return {"event_id": ticket["event_id"], "quantity": 1, "session_time": ticket["session_time"]}


def _event_update(values: dict[str, Any]) -> Setup:
    return lambda ex: [
        update(world_events).where(world_events.c.event_id == tiered_event(ex)["event_id"]).values(**values)
    ]


def _scheduled_pickup(ex: Executor) -> dict[str, Any]:
    row = query(ex, select(courier_orders).where(courier_orders.c.courier_order_id == "courier_002"))[0]
    who = json.loads(row["recipient_json"])
    return {
        "pickup_address_id": "address_001",
        "package_size": "small",
        "recipient": who,
        "pickup_window": {"start": row["window_start"], "end": row["window_end"]},
    }


def _book(name: str, service: str, start: str, **extra: Any) -> Callable[[Executor], dict[str, Any]]:
    return lambda ex: {"provider_id": provider(ex, name)["provider_id"], "service": service, "start": start, **extra}


def _taken_slot(ex: Executor) -> dict[str, Any]:
    salon = provider(ex, "Studio 8 Salon")
    s = world_service_slots.c
    taken = query(
        ex,
        select(s.start)
        .where(s.provider_id == salon["provider_id"], s.available == 0, s.start > "2025-06-13T09:00")
        .order_by(s.start),
    )[0]["start"]
    return {"provider_id": salon["provider_id"], "service": "haircut", "start": taken}


# sappt_005 is a cleaning on 2025-06-15 15:00-18:00; sappt_004 a haircut today at 10:00.
SUNDAY_3PM = "2025-06-15T15:00"

# (tool, arguments (or a function of the world), setup statements, expected error)
ERROR_CASES: list[tuple[str, Args, Setup | None, str]] = [
    ("book_event_tickets", {"event_id": "evt_999", "quantity": 1}, None, "EntityNotFound"),
    ("book_event_tickets", _tiered(payment_method_id="pm_999"), None, "EntityNotFound"),
    ("book_event_tickets", _tiered(), frozen("pm_002"), "StateConflict"),
    ("book_event_tickets", _tiered(), _event_update({"sessions_json": '["2025-06-01T19:30"]'}), "StateConflict"),
    ("book_event_tickets", {"event_id": MUSEUM, "quantity": 1}, None, "UnsupportedOperation"),
    (
        "book_event_tickets",
        lambda ex: {"event_id": tiered_event(ex)["event_id"], "quantity": 1},
        None,
        "MissingRequiredArgument",
    ),
    ("book_event_tickets", _tiered(session_time="2030-01-01T19:30"), None, "InvalidArgumentValue"),
    ("book_event_tickets", _tiered(seat_section="Balcony"), None, "InvalidArgumentValue"),
    ("book_event_tickets", _national(seat_section="VIP", attendee_names=["Wang Lei"]), None, "InvalidArgumentValue"),
    ("book_event_tickets", _national(), None, "MissingRequiredArgument"),
    ("book_event_tickets", _tiered(), _event_update({"seats_left": 0}), "ResourceUnavailable"),
    ("book_event_tickets", _held_ticket, None, "DuplicateEntity"),
    (
        "book_event_tickets",
        lambda ex: {**_tiered(seat_section="VIP")(ex), "quantity": 10, "payment_method_id": "pm_003"},
        None,
        "LimitExceeded",
    ),
    ("track_parcel", {"tracking_number": "SF000000000000"}, None, "EntityNotFound"),
    (
        "track_parcel",
        lambda ex: {"tracking_number": query(ex, select(world_parcels))[0]["tracking_number"], "carrier": "Royal Mail"},
        None,
        "EntityNotFound",
    ),
    ("schedule_courier_pickup", {**PICKUP, "pickup_address_id": "address_999"}, None, "EntityNotFound"),
    ("schedule_courier_pickup", {**PICKUP, "payment_method_id": "pm_999"}, None, "EntityNotFound"),
    ("schedule_courier_pickup", PICKUP, frozen("pm_002"), "StateConflict"),
    (
        "schedule_courier_pickup",
        {**PICKUP, "pickup_window": {"start": "2025-06-13T08:00", "end": "2025-06-13T10:00"}},
        None,
        "InvalidArgumentValue",
    ),
    (
        "schedule_courier_pickup",
        {**PICKUP, "pickup_window": {"start": "2025-06-13T09:30", "end": "2025-06-13T11:00"}},
        None,
        "ResourceUnavailable",
    ),
    ("schedule_courier_pickup", _scheduled_pickup, None, "DuplicateEntity"),
    (
        "schedule_courier_pickup",
        {**PICKUP, "insured_value": 100000, "payment_method_id": "pm_003"},
        None,
        "LimitExceeded",
    ),
    ("search_local_services", {"service_type": "plumbing", "near": "address_999"}, None, "EntityNotFound"),
    ("search_local_services", {"service_type": "plumbing", "near": "place_999"}, None, "EntityNotFound"),
    ("cancel_service_appointment", {"appointment_id": "sappt_999"}, None, "EntityNotFound"),
    ("cancel_service_appointment", {"appointment_id": "sappt_001"}, None, "StateConflict"),
    (
        "cancel_service_appointment",
        {"appointment_id": "sappt_004", "confirm": True},
        lambda ex: [
            update(service_appointments)
            .where(service_appointments.c.appointment_id == "sappt_004")
            .values(start="2025-06-13T08:30")
        ],
        "StateConflict",
    ),
    ("cancel_service_appointment", {"appointment_id": "sappt_004"}, None, "ConfirmationRequired"),
    (
        "book_service_appointment",
        {"provider_id": "provider_999", "service": "haircut", "start": SUNDAY_3PM},
        None,
        "EntityNotFound",
    ),
    (
        "book_service_appointment",
        _book("TidyNest Cleaners", "cleaning", SUNDAY_3PM, address_id="address_999"),
        None,
        "EntityNotFound",
    ),
    (
        "book_service_appointment",
        _book("Studio 8 Salon", "haircut", SUNDAY_3PM, payment_method_id="pm_999"),
        None,
        "EntityNotFound",
    ),
    ("book_service_appointment", _book("Studio 8 Salon", "haircut", SUNDAY_3PM), frozen("pm_002"), "StateConflict"),
    ("book_service_appointment", _book("Studio 8 Salon", "massage", SUNDAY_3PM), None, "InvalidArgumentValue"),
    ("book_service_appointment", _book("TidyNest Cleaners", "cleaning", SUNDAY_3PM), None, "MissingRequiredArgument"),
    (
        "book_service_appointment",
        _book("PipePro Services", "plumbing", SUNDAY_3PM, address_id="address_001"),
        None,
        "UnsupportedOperation",
    ),
    ("book_service_appointment", _taken_slot, None, "ResourceUnavailable"),
    (
        "book_service_appointment",
        _book("Studio 8 Salon", "haircut", SUNDAY_3PM),
        free_slot("Studio 8 Salon", SUNDAY_3PM),
        "TimeConflict",
    ),
    (
        "book_service_appointment",
        _book("SwiftMove Movers", "moving", "2025-06-16T10:00", address_id="address_001", payment_method_id="pm_003"),
        free_slot("SwiftMove Movers", "2025-06-16T10:00"),
        "LimitExceeded",
    ),
    ("add_membership_card", {"merchant": "Hilton Honors", "card_number": "HH123456"}, None, "DuplicateEntity"),
    (
        "add_membership_card",
        {"merchant": "IKEA family", "card_number": "if 8812 0047", "points": 1560},
        None,
        "DuplicateEntity",
    ),
]


@pytest.mark.parametrize(
    ("name", "args", "setup", "error"), ERROR_CASES, ids=[f"{c[0]}-{c[3]}-{i}" for i, c in enumerate(ERROR_CASES)]
)
def test_declared_error_changes_nothing(ex: Executor, name: str, args: Args, setup: Setup | None, error: str) -> None:
    arguments = args(ex) if callable(args) else args  # read from the world before the setup changes it
    if setup:
        prepare(ex.conn, *setup(ex))
    fails(ex, name, arguments, ErrorType(error))


def test_every_declared_error_is_tested() -> None:
    declared = {(n, e.value) for n in TOOLS for e in REGISTRY[n].errors}
    assert {(c[0], c[3]) for c in ERROR_CASES} == declared
