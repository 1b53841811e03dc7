"""Basic Tool Use families for the stay and the trip: hotels (5.4), trains and buses (5.5), and trip
planning and itineraries (5.6).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import history
from sandbox.generator.families.basic_travel.helpers import PAID, guarded, hm, name_of, stamp

# ---- 5.4 Hotel Booking --------------------------------------------------------------------------


def hotel_offers(
    g: Gen,
    city: str,
    guests: int = 1,
    min_rating: float | None = None,
    amenity: str | None = None,
    brand: str | None = None,
) -> list[dict[str, Any]]:
    hotels = {h["hotel_id"]: h for h in g.rows("world_hotels", {"city": city})}
    found = []
    for r in g.rows("world_hotel_rooms"):
        h = hotels.get(r["hotel_id"])
        if h is None or r["capacity"] < guests or r["rooms_left"] < 1:
            continue
        if min_rating is not None and h["rating"] < min_rating:
            continue
        if amenity and amenity not in json.loads(h["amenities_json"]):
            continue
        if brand and brand.lower() not in (h["brand"] or "").lower() and brand.lower() not in h["name"].lower():
            continue
        found.append({**r, "hotel": h})
    found.sort(key=lambda x: (x["price"], -x["hotel"]["rating"], x["room_id"]))
    return found


def stay_dates(g: Gen, city: str) -> tuple[str, str, int]:
    start = g.rng.randint(2, 20)
    nights = g.rng.randint(1, 4)
    check_in, check_out = g.date(start), g.date(start + nights)
    for b in g.rows("hotel_bookings", {"city": city, "status": "confirmed"}):
        if b["check_in"] < check_out and b["check_out"] > check_in:
            raise BuildError("overlapping stay")
    return check_in, check_out, nights


HOTEL_CITIES = (
    "Beijing",
    "Shanghai",
    "San Francisco",
    "London",
    "Tokyo",
    "Berlin",
    "Madrid",
    "Seoul",
    "Toronto",
    "Sydney",
    "Mumbai",
    "Palo Alto",
)


@family("basic", "5.4", pattern="lookup_then_act")
@guarded
def book_cheapest_hotel(g: Gen) -> Draft:
    city = g.pick([c for c in HOTEL_CITIES if c != g.persona.home_city])
    check_in, check_out, _ = stay_dates(g, city)
    extra = g.pick((None, "rating", "breakfast", "gym", "pool", "parking"))
    args: dict[str, Any] = {}
    if extra == "rating":
        args["min_rating"] = 4.0
        want, phrase = hotel_offers(g, city, min_rating=4.0), " rated 4 or better"
    elif extra:
        args["amenities"] = [extra]
        want, phrase = hotel_offers(g, city, amenity=extra), f" with {extra}"
    else:
        want, phrase = hotel_offers(g, city), ""
    if not want:
        raise BuildError("no room")
    room = want[0]
    query = g.say(
        "book the cheapest hotel{phrase} in {city} from {a} to {b}",
        "I need a room in {city}, checking in {a} and out {b}. Cheapest one{phrase}, please book it",
        "find me the lowest-priced hotel{phrase} in {city} for {a} to {b} and reserve it",
        phrase=phrase,
        city=city,
        a=check_in,
        b=check_out,
    )
    return Draft(
        query=query,
        gold=[
            act("search_hotels", city=city, check_in=check_in, check_out=check_out, **args),
            act("book_hotel", offer_id=g.ref(1, "offers[0].offer_id"), guest_name=name_of(g)),
            done(f"Booked {room['hotel']['name']}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "hotel_bookings": [
                    {
                        "hotel_id": room["hotel_id"],
                        "room_id": room["room_id"],
                        "check_in": check_in,
                        "check_out": check_out,
                        "guest_name": {"$contains": name_of(g).split()[-1]},
                    }
                ],
                "transactions": [{"status": "posted", "category": "travel"}],
            },
            "ignore_tables": PAID,
        },
    )


@family("basic", "5.4", pattern="friction", friction="changed_state")
@guarded
def hotel_offer_expired(g: Gen) -> Draft:
    city = g.pick([c for c in HOTEL_CITIES if c != g.persona.home_city])
    check_in, check_out, nights = stay_dates(g, city)
    options = hotel_offers(g, city)
    hotels = list(dict.fromkeys(o["hotel"]["name"] for o in options))
    if len(hotels) < 2:
        raise BuildError("too few hotels")
    chosen = g.pick(hotels[:3])
    room = hotel_offers(g, city, brand=chosen)[0]
    if room["hotel"]["name"] != chosen:
        raise BuildError("brand filter not unique")
    cur = room["hotel"]["currency"]  # rooms are priced where the hotel is
    offer = "offer_901"
    hist = history(
        f"Show me hotels in {city} from {check_in} to {check_out}.",
        "Options: "
        + "; ".join(f"{h}" for h in hotels[:3])
        + f". {chosen} has a {room['room_type']} room at {room['price']} {cur} a night (offer {offer}).",
    )
    query = g.say("book the {h} one", "let's take {h}, please book it", "go ahead and reserve {h} for me", h=chosen)
    return Draft(
        query=query,
        history=hist,
        gold=[
            act("book_hotel", offer_id=offer, guest_name=name_of(g)),
            act("search_hotels", city=city, check_in=check_in, check_out=check_out, brand=chosen),
            act("book_hotel", offer_id=g.ref(2, "offers[0].offer_id"), guest_name=name_of(g)),
            done(f"The offer had expired; I searched again and booked {chosen}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "hotel_bookings": [
                    {
                        "hotel_id": room["hotel_id"],
                        "check_in": check_in,
                        "check_out": check_out,
                        "guest_name": {"$contains": name_of(g).split()[-1]},
                    }
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
                        "kind": "hotel",
                        "ref_id": room["room_id"],
                        "price": room["price"],
                        "currency": cur,
                        "params_json": json.dumps(
                            {
                                "hotel_id": room["hotel_id"],
                                "check_in": check_in,
                                "check_out": check_out,
                                "nights": nights,
                                "rooms": 1,
                                "guests": 1,
                            }
                        ),
                        "expires_at": stamp(g, -20),
                        "status": "valid",
                        "created_at": stamp(g, -50),
                    }
                ]
            }
        },
        recovers=(ErrorType.STALE_REFERENCE,),
    )


@family("basic", "5.4", pattern="single_call")
@guarded
def cancel_hotel_stay(g: Gen) -> Draft:
    b = g.one(
        "hotel_bookings",
        filter=lambda r: (
            r["status"] == "confirmed"
            and r["check_in"] > g.date(0)
            and r["free_cancel_until"] > g.now.strftime("%Y-%m-%dT%H:%M")
        ),
    )
    hist = history(
        g.pick(
            (
                "What hotel stays do I have coming up?",
                "Which hotels have I booked?",
                "Do I have any hotel reservations?",
            )
        ),
        f"You have {b['booking_id']}: {b['hotel_name']} in {b['city']}, {b['check_in']} to "
        f"{b['check_out']}, free cancellation until {b['free_cancel_until']}.",
    )
    query = g.say(
        "cancel it please",
        "cancel the {city} hotel",
        "please cancel that reservation while it's free",
        "I won't need the room in {city}; cancel it",
        city=b["city"],
    )
    return Draft(
        query=query,
        history=hist,
        gold=[act("cancel_hotel_booking", booking_id=b["booking_id"]), done("Cancelled for free.")],
        bucket="state_change",
        check={
            "update": {
                "hotel_bookings": [{"match": {"booking_id": b["booking_id"]}, "set": {"status": "cancelled"}}],
                "transactions": [{"match": {"ref_id": b["booking_id"]}, "set": {"status": "refunded"}}],
            },
            "ignore_tables": PAID,
        },
    )


# ---- 5.5 Train & Bus Tickets -----------------------------------------------------------------------

CLASS_WORDS = {"second": "second class", "first": "first class", "business": "business class", "sleeper": "a sleeper"}


def trains_on(
    g: Gen, origin: str, destination: str, date: str, mode: str, seat_class: str | None, after: str | None = None
) -> list[dict[str, Any]]:
    out = [
        t
        for t in g.rows("world_trains")
        if t["origin"] == origin
        and t["destination"] == destination
        and t["depart_at"].startswith(date)
        and t["mode"] == mode
        and t["seats_left"] >= 1
        and (seat_class is None or t["seat_class"] == seat_class)
        and (after is None or hm(t["depart_at"]) >= after)
    ]
    out.sort(key=lambda t: (t["depart_at"], t["price"], t["train_id"]))
    return out


def rail_trip(g: Gen) -> tuple[str, str, str]:
    pair = g.pick(
        (
            ("Beijing", "Shanghai"),
            ("Shanghai", "Beijing"),
            ("San Francisco", "Palo Alto"),
            ("Palo Alto", "San Francisco"),
        )
    )
    return pair[0], pair[1], g.date(g.rng.randint(1, 8))


def not_booked(g: Gen, train: dict[str, Any]) -> None:
    if any(b["number"] == train["number"] and b["depart_at"] == train["depart_at"] for b in g.rows("train_bookings")):
        raise BuildError("already booked")


@family("basic", "5.5", pattern="lookup_then_act")
@guarded
def book_train_ticket_family(g: Gen) -> Draft:
    origin, destination, date = rail_trip(g)
    mode = g.pick(("train", "train", "bus"))
    options = trains_on(g, origin, destination, date, mode, None)
    classes = sorted({t["seat_class"] for t in options})
    if not classes:
        raise BuildError("no service")
    seat_class = g.pick(classes)
    part = g.pick(("morning", "afternoon", "evening", "any"))
    window = {
        "morning": ("05:00", "12:00"),
        "afternoon": ("12:00", "18:00"),
        "evening": ("18:00", "23:59"),
        "any": (None, None),
    }[part]
    found = [
        t
        for t in trains_on(g, origin, destination, date, mode, seat_class, window[0])
        if window[1] is None or hm(t["depart_at"]) <= window[1]
    ]
    if not found:
        raise BuildError("no service in the window")
    t = found[0]
    not_booked(g, t)
    what = "coach" if mode == "bus" else "train"
    when = "" if part == "any" else f" in the {part}"
    cls = "" if mode == "bus" else f", {CLASS_WORDS[seat_class]}"
    query = g.say(
        "book me the first {what} from {o} to {d} on {date}{when}{cls}",
        "I need a {what} ticket {o} to {d} on {date}{when}{cls}; take the earliest one",
        "get me on the earliest {what}{when} from {o} to {d} on {date}{cls}",
        what=what,
        o=origin,
        d=destination,
        date=date,
        when=when,
        cls=cls,
    )
    search: dict[str, Any] = {"origin": origin, "destination": destination, "date": date}
    if mode == "bus":
        search["mode"] = "bus"
    else:
        search["seat_class"] = seat_class
    if window[0]:
        search["depart_after"] = window[0]
        search["depart_before"] = window[1]
    return Draft(
        query=query,
        gold=[
            act("search_trains", **search),
            act("book_train_ticket", offer_id=g.ref(1, "offers[0].offer_id"), passengers=[{"self": True}]),
            done(f"Booked {t['number']} at {hm(t['depart_at'])}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "train_bookings": [
                    {
                        "number": t["number"],
                        "depart_at": t["depart_at"],
                        "seat_class": t["seat_class"],
                        "status": "confirmed",
                    }
                ],
                "transactions": [{"status": "posted", "category": "travel"}],
            },
            "ignore_tables": PAID,
        },
    )


@family("basic", "5.5", pattern="friction", friction="resource_unavailable")
@guarded
def train_sold_out_next(g: Gen) -> Draft:
    origin, destination, date = rail_trip(g)
    options = trains_on(g, origin, destination, date, "train", None)
    seat_class = g.pick(sorted({t["seat_class"] for t in options} & {"second", "first"}) or ["x"])
    chain = trains_on(g, origin, destination, date, "train", seat_class)
    if len(chain) < 2:
        raise BuildError("no later train")
    first, second = chain[0], chain[1]
    not_booked(g, second)
    cur = first["currency"]  # fares are priced where the train runs
    offer = "offer_901"
    hist = history(
        f"What trains go from {origin} to {destination} on {date}?",
        f"The first is {first['number']} at {hm(first['depart_at'])}, {CLASS_WORDS[seat_class]} "
        f"{first['price']} {cur} (offer {offer}); then {second['number']} at {hm(second['depart_at'])}.",
    )
    query = g.say(
        "book the {n}, and if it's sold out take the next train that day in the same class",
        "get me a seat on {n}; failing that, the next train after it",
        "book {n} for me. If there's nothing left, the following train is fine",
        n=first["number"],
    )
    return Draft(
        query=query,
        history=hist,
        gold=[
            act("book_train_ticket", offer_id=offer, passengers=[{"self": True}]),
            act(
                "search_trains",
                origin=origin,
                destination=destination,
                date=date,
                seat_class=seat_class,
                depart_after=hm(first["depart_at"]),
            ),
            act("book_train_ticket", offer_id=g.ref(2, "offers[0].offer_id"), passengers=[{"self": True}]),
            done(f"{first['number']} was sold out, so I booked {second['number']}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "train_bookings": [
                    {
                        "number": second["number"],
                        "depart_at": second["depart_at"],
                        "seat_class": seat_class,
                        "status": "confirmed",
                    }
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
                        "kind": "train",
                        "ref_id": first["train_id"],
                        "price": first["price"],
                        "currency": cur,
                        "params_json": json.dumps({"passengers": 1}),
                        "expires_at": stamp(g, 20),
                        "status": "valid",
                        "created_at": stamp(g, -5),
                    }
                ]
            },
            "update": {"world_trains": [{"match": {"train_id": first["train_id"]}, "set": {"seats_left": 0}}]},
        },
        recovers=(ErrorType.RESOURCE_UNAVAILABLE,),
    )


# ---- 5.6 Trip Planning & Itinerary -----------------------------------------------------------------

TRIP_KINDS = ("weekend trip", "work trip", "family visit", "conference trip", "city break", "long weekend")


def free_trip_window(g: Gen, city: str) -> tuple[str, str, int]:
    start = g.rng.randint(16, 60)
    length = g.rng.randint(1, 5)
    a, b = g.date(start), g.date(start + length)
    for t in g.rows("trips"):
        if t["destination"].lower() == city.lower() and t["start_date"] <= b and t["end_date"] >= a:
            raise BuildError("overlapping trip")
    return a, b, start


@family("basic", "5.6", pattern="single_call")
@guarded
def create_trip(g: Gen) -> Draft:
    city = g.pick([c for c in HOTEL_CITIES if c != g.persona.home_city])
    a, b, _ = free_trip_window(g, city)
    kind = g.pick(TRIP_KINDS)
    name = f"{city} {kind}"
    query = g.say(
        "create a trip called '{name}' to {city} from {a} to {b}",
        "set up a new itinerary, {name}, {a} to {b}, destination {city}",
        "start planning my {kind} to {city}: make a trip named {name} for {a} through {b}",
        name=name,
        city=city,
        a=a,
        b=b,
        kind=kind,
    )
    return Draft(
        query=query,
        gold=[
            act("create_trip_itinerary", name=name, destination=city, start_date=a, end_date=b),
            done(f"Created {name}."),
        ],
        bucket="state_change",
        check={
            "insert": {"trips": [{"name": name, "destination": {"$contains": city}, "start_date": a, "end_date": b}]}
        },
    )


ACTIVITIES = (
    ("a food tour", "food tour", "activity"),
    ("dinner at the harbour", "dinner", "restaurant"),
    ("a museum visit", "museum", "activity"),
    ("a concert", "concert", "event"),
    ("a boat trip", "boat", "activity"),
    ("a cooking class", "cooking", "activity"),
    ("lunch with friends", "lunch", "restaurant"),
    ("a city bike tour", "bike", "activity"),
)
MEAL_HOURS = {"lunch": (11, 13), "dinner": (18, 20)}  # a meal's hours; anything else fits 9:00-20:00


def activity_hour(g: Gen, key: str, last: int) -> int:
    lo, hi = MEAL_HOURS.get(key, (9, last))
    return g.rng.randint(lo, min(hi, last))


@family("basic", "5.6", pattern="single_call")
@guarded
def add_activity_to_trip(g: Gen) -> Draft:
    trip = g.one("trips", filter=lambda t: t["start_date"] > g.date(0))
    phrase, key, kind = g.pick(ACTIVITIES)
    start = dt.date.fromisoformat(trip["start_date"])
    end = dt.date.fromisoformat(trip["end_date"])
    day = start + dt.timedelta(days=g.rng.randint(0, (end - start).days))
    at = f"{activity_hour(g, key, 20):02d}:{g.pick(('00', '30'))}"
    hist = history(
        g.pick(("What trips do I have planned?", "Show my upcoming trips.")),
        "Upcoming: "
        + "; ".join(
            f"{t['trip_id']} {t['name']} ({t['start_date']} to {t['end_date']})"
            for t in g.rows("trips")
            if t["start_date"] > g.date(0)
        )
        + ".",
    )
    query = g.say(
        "add {phrase} on {day} at {at} to the {name} itinerary",
        "put {phrase} into my {name} plan: {day}, {at}",
        "for {name}, schedule {phrase} on {day} at {at}",
        phrase=phrase,
        day=day.isoformat(),
        at=at,
        name=trip["name"],
    )
    when = f"{day.isoformat()}T{at}"
    return Draft(
        query=query,
        history=hist,
        gold=[
            act(
                "add_itinerary_item",
                trip_id=trip["trip_id"],
                item_type=kind,
                title=phrase[0].upper() + phrase[1:].removeprefix("a ").removeprefix("an "),
                start=when,
            ),
            done("Added to the itinerary."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "trip_items": [
                    {
                        "trip_id": trip["trip_id"],
                        "title": {"$contains": key},
                        "start": when,
                        "item_type": {"$any": [kind, "activity", "event", "restaurant"]},
                    }
                ]
            }
        },
    )


@family("basic", "5.6", pattern="lookup_then_act")
@guarded
def plan_trip_with_activity(g: Gen) -> Draft:
    city = g.pick([c for c in HOTEL_CITIES if c != g.persona.home_city])
    a, b, start = free_trip_window(g, city)
    phrase, key, kind = g.pick(ACTIVITIES)
    at = f"{activity_hour(g, key, 19):02d}:00"
    when = f"{g.date(start + 1 if a != b else start)}T{at}"
    if when[:10] > b:
        raise BuildError("short trip")
    name = f"{city} {g.pick(TRIP_KINDS)}"
    query = g.say(
        "make a trip '{name}' to {city} for {a} to {b} and add {phrase} on {day} at {at}",
        "plan {name}: {city}, {a} till {b}. First item: {phrase}, {day} {at}",
        name=name,
        city=city,
        a=a,
        b=b,
        phrase=phrase,
        day=when[:10],
        at=at,
    )
    return Draft(
        query=query,
        gold=[
            act("create_trip_itinerary", name=name, destination=city, start_date=a, end_date=b),
            act("add_itinerary_item", trip_id=g.ref(1, "trip_id"), item_type=kind, title=phrase, start=when),
            done("Trip created with the activity."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "trips": [{"name": name, "destination": {"$contains": city}, "start_date": a, "end_date": b}],
                "trip_items": [{"title": {"$contains": key}, "start": when}],
            }
        },
    )
