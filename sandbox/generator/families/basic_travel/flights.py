"""Basic Tool Use families for flights: booking (5.3), and check-in and seats (5.8)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sandbox.domains.travel.schema import AIRPORTS, CITY_AIRPORT
from sandbox.domains.travel.tools import _assign_seats, _hash
from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import history, opened
from sandbox.generator.families.basic_travel.helpers import PAID, currency, guarded, hm, name_of, stamp

# ---- 5.3 Flight Booking -------------------------------------------------------------------------

# how people say a flight's status (get_flight_status's words first)
STATUS_WORDS = {
    "scheduled": ("on time", "scheduled", "on schedule", "not delayed", "no delay", "no delays"),
    "delayed": ("delayed", "delay", "late", "not on time"),
    "boarding": ("boarding",),
    "departed": ("departed", "took off", "in the air", "airborne", "en route"),
    "landed": ("landed", "arrived"),
    "cancelled": ("cancelled", "canceled"),
}


def flight_status(g: Gen, number: str, date: str) -> tuple[str, str, str, int]:
    """(status, expected departure HH:MM, expected arrival HH:MM, delay in minutes) as get_flight_status
    reports them."""
    flight = next(f for f in g.rows("world_flights", {"flight_number": number}) if f["depart_at"].startswith(date))
    live = g.rows("world_flight_status", {"flight_number": number, "date": date})
    if not live:
        raise BuildError(f"no live status for {number} on {date}")
    delay = dt.timedelta(minutes=live[0]["delay_min"])
    leave, land = (dt.datetime.fromisoformat(flight[k][:16]) + delay for k in ("depart_at", "arrive_at"))
    return live[0]["status"], leave.strftime("%H:%M"), land.strftime("%H:%M"), live[0]["delay_min"]


@family("basic", "5.3", pattern="single_call")
@guarded
def flight_status_check(g: Gen) -> Draft:
    day = g.rng.randint(-1, 1)
    date = g.date(day)
    flights = sorted({f["flight_number"] for f in g.rows("world_flights") if f["depart_at"].startswith(date)})
    if not flights:
        raise BuildError("no flights that day")
    number = g.pick(flights)
    when = {-1: "yesterday", 0: "today", 1: "tomorrow"}[day]
    query = g.say(
        "is flight {n} {when} on time?",
        "what's the status of {n} {when}?",
        "has {n} {when} been delayed?",
        "check flight {n} for {when} ({date}) for me",
        "any news on {when}'s {n}? gate, delay?",
        n=number,
        when=when,
        date=date,
    )
    status, leave, land, delay = flight_status(g, number, date)
    said = {
        "scheduled": "is on time",
        "landed": "has landed",
        "departed": "has departed",
        "cancelled": "is cancelled",
        "boarding": "is boarding",
        "delayed": "is delayed",
    }[status]
    times = (
        ""
        if status == "cancelled"
        else (f", landing at {land}" if status in ("departed", "landed") else f", departing at {leave}")
    )
    answer: list[Any] = [{"$any": [{"$name": w} for w in STATUS_WORDS[status]]}]
    if status in ("departed", "landed"):
        answer.append({"$any": [{"$time": leave}, {"$time": land}]})
    elif status != "cancelled":
        answer.append({"$time": leave})
    text = f"{number} {said}{times}."
    # a yes/no question is answered by the delay, whatever the status: the verdict first (the build checks
    # it), then the delay or the times it gives ("No, not delayed: departed at 20:15" need not say "landed")
    if status != "cancelled" and query.endswith(("on time?", "been delayed?")):
        delayed = delay > 0
        text = opened(("no", "yes")[delayed == query.endswith("delayed?")], f"{text[:-1]} ({delay} min delay).")
        times_said = [{"$time": leave}, *([{"$time": land}] if status in ("departed", "landed") else [])]
        answer = [
            {"$any": [{"$number": {"value": delay, "tolerance": 2}}, *times_said]}
            if delayed
            else {"$any": [*({"$name": w} for w in STATUS_WORDS["scheduled"]), *times_said]}
        ]
    return Draft(
        query=query,
        gold=[act("get_flight_status", flight_number=number, date=date), done(text)],
        bucket="tool_call",
        answer=answer,
        check={
            "calls": [
                {
                    "tool": "get_flight_status",
                    "args": {
                        "flight_number": {"$regex": number.replace(number[:2], number[:2] + r"\s?")},
                        "date": date,
                    },
                }
            ]
        },
    )


def cheapest_flight(
    g: Gen, origin: str, destination: str, date: str, cabin: str = "economy", skip: set[str] | None = None
) -> dict[str, Any]:
    options = [
        f
        for f in g.rows("world_flights")
        if f["origin"] == origin
        and f["destination"] == destination
        and f["depart_at"].startswith(date)
        and f["cabin"] == cabin
        and f["seats_left"] >= 1
        and f["flight_id"] not in (skip or set())
    ]
    if not options:
        raise BuildError("no flight")
    return min(options, key=lambda f: (f["price"], f["depart_at"], f["flight_id"]))


def flight_route(g: Gen) -> tuple[str, str, str, int]:
    hub = CITY_AIRPORT[g.persona.home_city]
    others = sorted({f["destination"] for f in g.rows("world_flights") if f["origin"] == hub})
    code = g.pick(others)
    days = g.rng.randint(2, 8)
    booked = {(b["flight_number"], b["depart_at"][:10]) for b in g.rows("flight_bookings")}
    date = g.date(days)
    if any(d == date for _, d in booked):
        raise BuildError("already flying that day")
    return hub, code, date, days


@family("basic", "5.3", pattern="lookup_then_act")
@guarded
def book_cheapest_flight(g: Gen) -> Draft:
    hub, code, date, _ = flight_route(g)
    f = cheapest_flight(g, hub, code, date)
    city = AIRPORTS[code][0]
    query = g.say(
        "book me the cheapest economy flight from {home} to {city} on {date}",
        "find the cheapest flight to {city} on {date} and book it for me",
        "I need to fly {home} to {city} on {date}. Book whatever is cheapest in economy, just me",
        "get me a one-way ticket to {city} on {date}, the lowest fare please",
        home=g.persona.home_city,
        city=city,
        date=date,
    )
    return Draft(
        query=query,
        gold=[
            act("search_flights", origin=hub, destination=code, date=date, sort="price"),
            act("book_flight", offer_id=g.ref(1, "offers[0].offer_id"), passengers=[{"self": True}]),
            done(f"Booked {f['flight_number']} to {city}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "flight_bookings": [
                    {
                        "flight_number": f["flight_number"],
                        "depart_at": f["depart_at"],
                        "status": "confirmed",
                        "passengers_json": {"$contains": name_of(g)},
                    }
                ],
                "transactions": [{"status": "posted", "category": "travel"}],
            },
            "ignore_tables": PAID,
        },
    )


@family("basic", "5.3", pattern="friction", friction="resource_unavailable")
@guarded
def flight_sold_out_take_next(g: Gen) -> Draft:
    hub, code, date, _ = flight_route(g)
    first = cheapest_flight(g, hub, code, date)
    second = cheapest_flight(g, hub, code, date, skip={first["flight_id"]})
    city = AIRPORTS[code][0]
    cur = currency(g)
    offer = "offer_901"
    hist = history(
        f"Find me flights from {g.persona.home_city} to {city} on {date}.",
        f"The cheapest is {first['flight_number']} at {hm(first['depart_at'])} for {first['price']} {cur} "
        f"(offer {offer}); next is {second['flight_number']} at {hm(second['depart_at'])} for "
        f"{second['price']} {cur}.",
    )
    query = g.say(
        "book the first one for me; if it's gone, take the next cheapest",
        "go with {a}. If that sells out, the next cheapest is fine",
        "book {a} for me, or the next cheapest one if it's full",
        a=first["flight_number"],
    )
    return Draft(
        query=query,
        history=hist,
        gold=[
            act("book_flight", offer_id=offer, passengers=[{"self": True}]),
            act("search_flights", origin=hub, destination=code, date=date, sort="price"),
            act("book_flight", offer_id=g.ref(2, "offers[0].offer_id"), passengers=[{"self": True}]),
            done(f"{first['flight_number']} sold out; booked {second['flight_number']} instead."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "flight_bookings": [
                    {"flight_number": second["flight_number"], "depart_at": second["depart_at"], "status": "confirmed"}
                ],
                "transactions": [{"status": "posted", "category": "travel"}],
            },
            "ignore_tables": PAID,
        },
        patches={
            "insert": {
                "offers": [
                    {
                        "offer_id": offer,
                        "kind": "flight",
                        "ref_id": first["flight_id"],
                        "price": first["price"],
                        "currency": cur,
                        "params_json": json.dumps(
                            {"flight_ids": [first["flight_id"]], "passengers": 1, "cabin": "economy"}
                        ),
                        "expires_at": stamp(g, 20),
                        "status": "valid",
                        "created_at": stamp(g, -5),
                    }
                ]
            },
            "update": {"world_flights": [{"match": {"flight_id": first["flight_id"]}, "set": {"seats_left": 0}}]},
        },
        recovers=(ErrorType.RESOURCE_UNAVAILABLE,),
    )


def bookings_summary(g: Gen) -> str:
    parts = []
    for b in g.rows("flight_bookings"):
        if b["status"] == "confirmed" and b["depart_at"] > g.now.strftime("%Y-%m-%dT%H:%M"):
            parts.append(
                f"{b['booking_id']}: {b['flight_number']} {AIRPORTS[b['origin']][0]} to "
                f"{AIRPORTS[b['destination']][0]} on {b['depart_at'][:10]} at {hm(b['depart_at'])}"
            )
    return "; ".join(parts) + "."


@family("basic", "5.3", pattern="friction", friction="confirmation_required")
@guarded
def cancel_flight_with_fee(g: Gen) -> Draft:
    booking = g.one("flight_bookings", filter=lambda b: b["booking_id"] in ("fbooking_003", "fbooking_004"))
    hist = history(
        g.pick(("Which flights have I booked?", "List my upcoming flights.", "What flights do I have?")),
        "Your upcoming flights: " + bookings_summary(g),
    )
    origin, dest = AIRPORTS[booking["origin"]][0], AIRPORTS[booking["destination"]][0]
    query = g.say(
        "cancel the {o} to {d} flight on {date}",
        "please cancel {n}, I won't need it",
        "drop my {date} flight from {o} to {d}",
        "cancel booking {b}",
        o=origin,
        d=dest,
        date=booking["depart_at"][:10],
        n=booking["flight_number"],
        b=booking["booking_id"],
    )
    return Draft(
        query=query,
        history=hist,
        gold=[
            act("cancel_flight_booking", booking_id=booking["booking_id"]),
            act("ask_user", question="Cancelling now keeps a fee per the fare rules. Cancel anyway?", kind="confirm"),
            act("cancel_flight_booking", booking_id=booking["booking_id"], confirm=True),
            done("Cancelled; the fare rules kept a fee."),
        ],
        bucket="state_change",
        check={
            "update": {
                "flight_bookings": [{"match": {"booking_id": booking["booking_id"]}, "set": {"status": "cancelled"}}],
                "transactions": [{"match": {"ref_id": booking["booking_id"]}, "set": {"status": "refunded"}}],
            },
            "insert": {"transactions": [{"ref_id": booking["booking_id"], "status": "posted"}]},
            "ignore_tables": PAID,
        },
        script=[{"answer": "Yes, cancel it anyway.", "keywords": ["fee", "cancel", "sure", "confirm"]}],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )


# ---- 5.8 Travel Check-in & Documents ---------------------------------------------------------------


def soon_booking(g: Gen) -> dict[str, Any]:
    b = g.rows("flight_bookings", {"booking_id": "fbooking_002"})[0]
    depart = dt.datetime.strptime(b["depart_at"], "%Y-%m-%dT%H:%M")
    if not depart - dt.timedelta(hours=24) <= g.now <= depart - dt.timedelta(hours=1) or b["checked_in"]:
        raise BuildError("check-in not open")
    return b


def taken_seats(b: dict[str, Any]) -> set[str]:
    return {
        f"{r}{c}"
        for r in range(1, 41)
        for c in "ABCDEF"
        if _hash(b["flight_number"], b["depart_at"], f"{r}{c}") % 100 < 50
    }


@family("basic", "5.8", pattern="single_call")
@guarded
def check_in_next_flight(g: Gen) -> Draft:
    b = soon_booking(g)
    wallet = g.pick((True, False))
    hist = history(
        g.pick(("When is my next flight?", "What's my next trip?", "Do I fly soon?")),
        f"{b['flight_number']} to {AIRPORTS[b['destination']][0]} at {hm(b['depart_at'])} on "
        f"{b['depart_at'][:10]} (booking {b['booking_id']}); online check-in is open.",
    )
    extra = (
        ""
        if wallet
        else g.pick((", but don't put the boarding pass in my wallet", "; no need to add it to the wallet"))
    )
    query = g.say(
        "check me in for it{extra}",
        "please do the online check-in{extra}",
        "ok, check in for that flight{extra}",
        extra=extra,
    )
    args: dict[str, Any] = {"booking_id": b["booking_id"]}
    if not wallet:
        args["add_to_wallet"] = False
    check: dict[str, Any] = {
        "update": {"flight_bookings": [{"match": {"booking_id": b["booking_id"]}, "set": {"checked_in": 1}}]}
    }
    if wallet:
        check["insert"] = {"wallet_passes": [{"kind": "boarding_pass", "ref_id": b["booking_id"]}]}
    check["ignore_columns"] = ["seats_json", "boarding_pass"]
    return Draft(
        query=query,
        history=hist,
        gold=[act("check_in_flight", **args), done("You're checked in.")],
        bucket="state_change",
        check=check,
    )


@family("basic", "5.8", pattern="friction", friction="resource_unavailable")
@guarded
def check_in_seat_taken(g: Gen) -> Draft:
    b = soon_booking(g)
    taken = taken_seats(b)
    rows_ = range(10, 41) if b["cabin"] == "economy" else range(1, 5)
    wanted = g.pick([f"{r}{c}" for r in rows_ for c in "AF" if f"{r}{c}" in taken])
    side = g.pick(("window", "aisle"))
    alt = _assign_seats(taken, b["cabin"], side, 1)[0]
    hist = history(
        "When is my next flight?",
        f"{b['flight_number']} to {AIRPORTS[b['destination']][0]} at {hm(b['depart_at'])} "
        f"(booking {b['booking_id']}); check-in is open.",
    )
    query = g.say(
        "check me in and get me seat {s}; if it's taken, any {side} seat will do",
        "do my check-in, seat {s} please, otherwise any free {side} seat",
        "check in for it. I'd like {s}, or else another {side} seat",
        s=wanted,
        side=side,
    )
    letters = "AF" if side == "window" else "CD"
    return Draft(
        query=query,
        history=hist,
        gold=[
            act("check_in_flight", booking_id=b["booking_id"], seat=wanted),
            act("check_in_flight", booking_id=b["booking_id"], seat=alt),
            done(f"{wanted} was taken; you're checked in in {alt}."),
        ],
        bucket="state_change",
        check={
            "update": {
                "flight_bookings": [
                    {
                        "match": {"booking_id": b["booking_id"]},
                        "set": {"checked_in": 1, "seats_json": {"$regex": f'[{letters}]"'}},
                    }
                ]
            },
            "insert": {"wallet_passes": [{"ref_id": b["booking_id"]}]},
            "ignore_columns": ["boarding_pass"],
        },
        recovers=(ErrorType.RESOURCE_UNAVAILABLE,),
    )
