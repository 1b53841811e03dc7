"""Basic Tool Use families for Travel & Transportation (D5).

No tool lists the user's bookings, trips or rides, so families that act on one hand its id over in an
earlier turn (``history``), as a travel app's summary would.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sandbox.domains.travel.schema import AIRPORTS, CITY_AIRPORT, USD_RATE
from sandbox.domains.travel.tools import SPOT_CATEGORY, _assign_seats, _hash, _km, _ride_fare_usd, _spot, route_options
from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import history
from sandbox.locales import minor_units

# ---- retrieval guard --------------------------------------------------------------------------------


def space_ok(draft: Draft) -> Draft:
    """BuildError instead of the ValueError ``retrieval.action_space`` raises when BM25 finds fewer tools
    than A0 holds and cannot make room for every gold tool (a framework limitation: very short queries)."""
    from sandbox.retrieval import hidden_tools, retrieve
    from sandbox.tooling import REGISTRY

    hide = hidden_tools(draft.skills)
    needed = list(
        dict.fromkeys(
            a["name"]
            for a in draft.gold
            if a["name"] in REGISTRY and REGISTRY[a["name"]].is_domain_tool and a["name"] not in hide
        )
    )
    found = retrieve(draft.query, [m["content"] for m in draft.history], exclude=hide)
    spare = [t for t in found if t not in needed]
    if len(spare) < len([t for t in needed if t not in found]):
        raise BuildError("retrieval finds too few tools for this query to fit the gold in A0")
    return draft


def guarded(fn):
    import functools

    @functools.wraps(fn)
    def wrapper(g: Gen) -> Draft:
        return space_ok(fn(g))

    return wrapper


MODE_WORDS = {
    "driving": ("drive", "driving", "by car"),
    "walking": ("walk", "walking", "on foot"),
    "transit": ("take transit", "public transport", "by public transport"),
    "cycling": ("cycle", "cycling", "by bike"),
}
FAV_LABELS = ("Gym", "Coffee", "Groceries")
PAID = ["payment_methods"]  # balances move with every charge; the transactions rows are checked instead


# ---- shared helpers ---------------------------------------------------------------------------


def name_of(g: Gen) -> str:
    return g.persona.name


def currency(g: Gen) -> str:
    pm = sorted(g.rows("payment_methods"), key=lambda r: (-r["is_default"], r["method_id"]))
    return pm[0]["currency"] if pm else "USD"


def stamp(g: Gen, minutes: float) -> str:
    return (g.now + dt.timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S")


def grant(app: str, perm: str = "LOCATION") -> dict[str, Any]:
    return {"match": {"app_id": app, "permission": perm}, "set": {"state": "granted"}}


def location_ready(*apps: str) -> dict[str, Any]:
    """Patches that give these apps the LOCATION permission (some personas have not granted it)."""
    return {"update": {"app_permissions": [grant(a) for a in apps]}}


def here(g: Gen) -> dict[str, Any]:
    return g.rows("device_location")[0]


def saved(g: Gen, label: str) -> dict[str, Any]:
    return g.rows("saved_places", {"label": label})[0]


def dest_any(row: dict[str, Any]) -> dict[str, Any]:
    """How an agent may name a saved place: its label, place id, name or address."""
    options = [row["label"], row["name"], row["address"], f"{row['name']}, {row['city']}"]
    if row.get("place_id"):
        options.append(row["place_id"])
    return {"$any": list(dict.fromkeys(options))}


def nearest(g: Gen, category: str, lat: float, lon: float, radius: float = 5.0, extra: Any = None) -> dict[str, Any]:
    found = []
    for p in g.rows("world_places", {"category": category}):
        km = _km(lat, lon, p["lat"], p["lon"])
        if km <= radius and (extra is None or extra(p)):
            found.append((round(km, 2), p["place_id"], p))
    if not found:
        raise BuildError(f"no {category} within {radius} km")
    found.sort(key=lambda t: (t[0], t[1]))
    return found[0][2]


def hm(value: str) -> str:
    return value[11:16]


# ---- 5.1 Navigation & Routes ------------------------------------------------------------------


@family("basic", "5.1", pattern="single_call")
@guarded
def navigate_to_saved_place(g: Gen) -> Draft:
    label = g.pick((*FAV_LABELS, "Work"))
    row = saved(g, label)
    if _km(row["lat"], row["lon"], here(g)["lat"], here(g)["lon"]) < 0.3:
        raise BuildError("already there")
    mode = g.pick(list(MODE_WORDS))
    verb, noun, by = MODE_WORDS[mode]
    spot = {"Gym": "the gym", "Coffee": "my usual coffee place", "Groceries": "my grocery store", "Work": "work"}[label]
    query = g.say(
        "start {noun} navigation to {spot}",
        "navigate me to {spot} {by}",
        "I want to {verb} to {spot}, start the navigation",
        "take me to {spot} {by}, turn-by-turn please",
        noun=noun,
        spot=spot,
        by=by,
        verb=verb,
    )
    return Draft(
        query=query,
        gold=[act("start_navigation", destination=label, mode=mode), done(f"Navigating to {row['name']}.")],
        bucket="state_change",
        check={
            "insert": {
                "navigation_sessions": [
                    {"destination": {"$contains": row["address"]}, "mode": mode, "status": "active"}
                ]
            }
        },
        patches=location_ready("maps"),
    )


SEARCHABLE = ("pharmacy", "supermarket", "cafe", "gym", "museum", "hospital", "cinema", "salon")


@family("basic", "5.1", pattern="lookup_then_act")
@guarded
def nearest_place_then_navigate(g: Gen) -> Draft:
    me = here(g)
    category = g.pick(SEARCHABLE)
    target = nearest(g, category, me["lat"], me["lon"])
    mode = g.pick(("driving", "walking", "cycling"))
    verb, noun, by = MODE_WORDS[mode]
    word = {"cafe": "café", "supermarket": "supermarket", "salon": "hair salon"}.get(category, category)
    query = g.say(
        "find the nearest {word} and navigate me there {by}",
        "where's the closest {word}? start {noun} directions to it",
        "I need a {word}: take me to the nearest one {by}",
        "get me to the closest {word}, I'll {verb}",
        word=word,
        by=by,
        noun=noun,
        verb=verb,
    )
    return Draft(
        query=query,
        gold=[
            act("search_places", query=category, category=category),
            act("start_navigation", destination=target["place_id"], mode=mode),
            done(f"Navigating to {target['name']}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "navigation_sessions": [{"destination_place_id": target["place_id"], "mode": mode, "status": "active"}]
            }
        },
        patches=location_ready("maps"),
    )


@family("basic", "5.1", pattern="friction", friction="service_disabled")
@guarded
def navigate_location_off(g: Gen) -> Draft:
    me = here(g)
    category = g.pick(("museum", "park", "cinema", "hospital", "station", "restaurant"))
    places = [
        p
        for p in g.rows("world_places", {"category": category, "city": me["city"]})
        if len([q for q in g.rows("world_places", {"name": p["name"]}) if q["city"] == p["city"]]) == 1
    ]
    if not places:
        raise BuildError("no unambiguous place")
    target = g.pick(places)
    mode = g.pick(("driving", "transit", "cycling"))
    verb, noun, by = MODE_WORDS[mode]
    query = g.say(
        "navigate to {name} {by}",
        "start {noun} directions to {name}",
        "take me to {name} {by}",
        "get me to {name}, I'll {verb}",
        name=target["name"],
        by=by,
        noun=noun,
        verb=verb,
    )
    return Draft(
        query=query,
        gold=[
            act("start_navigation", destination=target["name"], mode=mode),
            act("set_location_services", enabled=True),
            act("start_navigation", destination=target["name"], mode=mode),
            done(f"Location was off; I turned it on and started navigation to {target['name']}."),
        ],
        bucket="state_change",
        check={
            "insert": {"navigation_sessions": [{"destination_place_id": target["place_id"], "mode": mode}]},
            "update": {"device_settings": [{"match": {"key": "location_service"}, "set": {"value": "1"}}]},
        },
        patches={
            "update": {
                "device_settings": [{"match": {"key": "location_service"}, "set": {"value": "0"}}],
                "app_permissions": [grant("maps")],
            }
        },
        recovers=(ErrorType.SERVICE_DISABLED,),
    )


SPOT_LABELS = (
    "Date night",
    "Kids museum",
    "Quiet lunch",
    "Team dinner",
    "Sunday brunch",
    "Rainy day",
    "Mom's favourite",
    "Best noodles",
    "Meeting point",
    "Cheap eats",
)


@family("basic", "5.1", pattern="lookup_then_act")
@guarded
def save_current_spot(g: Gen) -> Draft:
    me = here(g)
    spot = g.one(
        "world_places",
        filter=lambda p: (
            p["city"] == me["city"] and p["category"] in ("restaurant", "museum", "cafe", "park", "cinema")
        ),
    )
    label = g.pick(SPOT_LABELS)
    query = g.say(
        "save where I am right now as '{label}'",
        "add my current location to my places as {label}",
        "bookmark this spot in maps under the name {label}",
        "remember this place for me: call it {label}",
        label=label,
    )
    return Draft(
        query=query,
        gold=[
            act("get_current_location"),
            act("save_place", place=spot["place_id"], label=label),
            done(f"Saved {spot['name']} as {label}."),
        ],
        bucket="state_change",
        check={"insert": {"saved_places": [{"label": label, "place_id": spot["place_id"]}]}},
        patches={
            "update": {
                "device_location": [
                    {
                        "match": {"device": "phone"},
                        "set": {k: spot[k] for k in ("place_id", "name", "address", "city", "lat", "lon")},
                    }
                ],
                "app_permissions": [grant("maps")],
            }
        },
    )


@family("basic", "5.1", pattern="single_call")
@guarded
def directions_arrive_by(g: Gen) -> Draft:
    label = g.pick((*FAV_LABELS, "Work"))
    row = saved(g, label)
    days = g.rng.randint(1, 5)
    at = f"{g.rng.randint(8, 19):02d}:{g.pick(('00', '15', '30', '45'))}"
    mode = g.pick(("driving", "transit", "walking"))
    verb, _, by = MODE_WORDS[mode]
    spot = {
        "Gym": "the gym",
        "Coffee": "my coffee place",
        "Groceries": "the supermarket I saved",
        "Work": "the office",
    }[label]
    query = g.say(
        "when do I need to leave to be at {spot} by {at} {when} if I {verb}?",
        "I have to reach {spot} by {at} {when}, {by}. What time should I set off?",
        "how long does it take {by} to get to {spot}? I need to arrive {when} at {at}",
        spot=spot,
        at=at,
        when=g.when(days),
        verb=verb,
        by=by,
    )
    arrive = f"{g.date(days)}T{at}"
    routes = route_options([_spot(here(g)), _spot(row)], mode)
    leave = [
        (dt.datetime.fromisoformat(arrive) - dt.timedelta(minutes=r["duration_min"])).strftime("%H:%M") for r in routes
    ]
    best = routes[0]
    return Draft(
        query=query,
        gold=[
            act("get_directions", destination=label, mode=mode, arrive_by=arrive),
            done(
                f"Leave at {leave[0]}: {by} it takes about {best['duration_min']} minutes "
                f"({best['summary']}), so you arrive by {at}."
            ),
        ],
        bucket="tool_call",
        check={
            "calls": [
                {"tool": "get_directions", "args": {"destination": dest_any(row), "mode": mode, "arrive_by": arrive}}
            ]
        },
        # the departure time of either route the app offers (the date is the one the user named)
        answer=[{"$any": [{"$time": t} for t in dict.fromkeys(leave)]}],
        patches=location_ready("maps"),
    )


# ---- 5.2 Ride Hailing ---------------------------------------------------------------------------

RIDE_WORDS = {"economy": "an economy", "comfort": "a comfort", "premium": "a premium", "xl": "an XL"}
PLACE_WORDS = {
    "Home": "home",
    "Work": "work",
    "Gym": "the gym",
    "Coffee": "my coffee place",
    "Groceries": "the supermarket",
}


def yours(label: str) -> str:
    """A saved place as the assistant names it back to the user."""
    return PLACE_WORDS[label].replace("my ", "your ")


def ride_pair(g: Gen) -> tuple[dict[str, Any], dict[str, Any]]:
    for _ in range(10):
        a, b = g.rng.sample(list(PLACE_WORDS), 2)
        ra, rb = saved(g, a), saved(g, b)
        if _km(ra["lat"], ra["lon"], rb["lat"], rb["lon"]) > 0.5:
            return ra, rb
    raise BuildError("no distinct pair of saved places")


@family("basic", "5.2", pattern="lookup_then_act")
@guarded
def book_ride_from_quote(g: Gen) -> Draft:
    a, b = ride_pair(g)
    kind = g.pick(list(RIDE_WORDS))
    query = g.say(
        "book me {kind} ride from {a} to {b}",
        "get me {kind} car from {a} to {b} now",
        "I need {kind} ride right now, {a} to {b}. Check the fare and book it",
        "order {kind} taxi to take me from {a} to {b}",
        kind=RIDE_WORDS[kind],
        a=PLACE_WORDS[a["label"]],
        b=PLACE_WORDS[b["label"]],
    )
    return Draft(
        query=query,
        gold=[
            act("estimate_ride_fare", pickup=a["label"], dropoff=b["label"], ride_type=kind),
            act(
                "book_ride",
                pickup=a["label"],
                dropoff=b["label"],
                ride_type=kind,
                quote_id=g.ref(1, "quotes[0].quote_id"),
            ),
            done("Your ride is booked."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "rides": [
                    {
                        "pickup": {"$contains": a["address"]},
                        "dropoff": {"$contains": b["address"]},
                        "ride_type": kind,
                        "status": "requested",
                    }
                ],
                "transactions": [{"merchant": "RideNow", "status": "posted"}],
            },
            "ignore_tables": PAID,
        },
        patches=location_ready("ride"),
    )


@family("basic", "5.2", pattern="single_call")
@guarded
def estimate_ride_cost(g: Gen) -> Draft:
    a, b = ride_pair(g)
    kind = g.pick(list(RIDE_WORDS))
    query = g.say(
        "how much would {kind} ride from {a} to {b} cost?",
        "what's the fare for {kind} car {a} to {b}?",
        "price check: {kind} ride, {a} to {b}",
        "give me a quote for {kind} ride from {a} to {b}",
        kind=RIDE_WORDS[kind],
        a=PLACE_WORDS[a["label"]],
        b=PLACE_WORDS[b["label"]],
    )
    cur = currency(g)  # the fare as estimate_ride_fare quotes it, in the user's currency
    fare = minor_units(_ride_fare_usd(_km(a["lat"], a["lon"], b["lat"], b["lon"]), kind) * USD_RATE.get(cur, 1.0), cur)
    return Draft(
        query=query,
        gold=[
            act("estimate_ride_fare", pickup=a["label"], dropoff=b["label"], ride_type=kind),
            done(
                f"{RIDE_WORDS[kind][:1].upper()}{RIDE_WORDS[kind][1:]} ride from {yours(a['label'])} to "
                f"{yours(b['label'])} costs about {fare:.2f} {cur}."
            ),
        ],
        bucket="tool_call",
        check={"calls": [{"tool": "estimate_ride_fare", "args": {"pickup": dest_any(a), "dropoff": dest_any(b)}}]},
        answer=[{"$amount": {"value": fare, "currency": cur, "tolerance": round(fare * 0.01, 2)}}],
        patches=location_ready("ride"),
    )


@family("basic", "5.2", pattern="friction", friction="confirmation_required")
@guarded
def cancel_assigned_ride(g: Gen) -> Draft:
    ride = g.one("rides", filter=lambda r: r["status"] == "requested" and bool(r["scheduled_at"]))
    place = ride["dropoff"].split(",")[0]
    hist = history(
        g.pick(("Do I have a ride booked?", "Any taxis scheduled for me?", "What rides are coming up?")),
        f"Yes: {ride['ride_id']}, a {ride['ride_type']} ride from home to {place}, pickup at "
        f"{hm(ride['scheduled_at'])}. A driver has been assigned.",
    )
    reason = g.pick(("plans changed", "I'm getting a lift instead", "the meeting was cancelled", "I'll take the train"))
    query = g.say(
        "cancel it, {reason}", "please cancel that ride; {reason}", "I don't need it anymore, {reason}", reason=reason
    )
    return Draft(
        query=query,
        history=hist,
        gold=[
            act("cancel_ride", ride_id=ride["ride_id"], reason=reason),
            act("ask_user", question="A driver is assigned, so cancelling costs a fee. Cancel anyway?", kind="confirm"),
            act("cancel_ride", ride_id=ride["ride_id"], reason=reason, confirm=True),
            done("Cancelled the ride; a cancellation fee applied."),
        ],
        bucket="state_change",
        check={
            "update": {
                "rides": [{"match": {"ride_id": ride["ride_id"]}, "set": {"status": "cancelled"}}],
                "transactions": [{"match": {"ref_id": ride["ride_id"]}, "set": {"status": "refunded"}}],
            },
            "insert": {"transactions": [{"ref_id": ride["ride_id"], "status": "posted"}]},
            "ignore_tables": PAID,
            "ignore_columns": ["cancel_reason"],
        },
        patches={"update": {"rides": [{"match": {"ride_id": ride["ride_id"]}, "set": {"status": "driver_assigned"}}]}},
        script=[{"answer": "Yes, cancel it anyway.", "keywords": ["fee", "cancel", "sure", "confirm"]}],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )


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


def flight_status(g: Gen, number: str, date: str) -> tuple[str, str, str]:
    """(status, expected departure HH:MM, expected arrival HH:MM) as get_flight_status reports them."""
    flight = next(f for f in g.rows("world_flights", {"flight_number": number}) if f["depart_at"].startswith(date))
    live = g.rows("world_flight_status", {"flight_number": number, "date": date})
    if not live:
        raise BuildError(f"no live status for {number} on {date}")
    delay = dt.timedelta(minutes=live[0]["delay_min"])
    leave, land = (dt.datetime.fromisoformat(flight[k][:16]) + delay for k in ("depart_at", "arrive_at"))
    return live[0]["status"], leave.strftime("%H:%M"), land.strftime("%H:%M")


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
    status, leave, land = flight_status(g, number, date)
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
    return Draft(
        query=query,
        gold=[act("get_flight_status", flight_number=number, date=date), done(f"{number} {said}{times}.")],
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
    cur = currency(g)
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
    cur = currency(g)
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


# ---- 5.7 Parking, Fuel & EV Charging ---------------------------------------------------------------

KIND_NOUNS = {"parking": "car park", "fuel": "fuel station", "ev_charging": "EV charger"}
KIND_WORDS = {
    "parking": ("parking", "a car park", "somewhere to park"),
    "fuel": ("a petrol station", "fuel", "a gas station"),
    "ev_charging": ("an EV charger", "a charging point", "somewhere to charge the car"),
}


@family("basic", "5.7", pattern="single_call")
@guarded
def find_spot_near_saved_place(g: Gen) -> Draft:
    label = g.pick(PLACE_WORDS)
    row = saved(g, label)
    kind = g.pick(list(KIND_WORDS))
    word = g.pick(KIND_WORDS[kind])
    query = g.say(
        "find {word} near {p}",
        "is there {word} close to {p}?",
        "look up {word} around {p} for me",
        "I'm heading to {p}; where can I find {word} nearby?",
        word=word,
        p=PLACE_WORDS[label],
    )
    spots = {d["place_id"] for d in g.rows("world_parking_charging")}
    found = sorted(
        (round(_km(row["lat"], row["lon"], p["lat"], p["lon"]), 2), p["place_id"], p["name"])
        for p in g.rows("world_places", {"category": SPOT_CATEGORY[kind]})
        if p["place_id"] in spots
    )
    found = [f for f in found if f[0] <= 5.0]  # find_parking_or_charging's default radius
    if found:
        km, _, name = found[0]
        answer, text = [{"$name": name}], f"The nearest is {name}, {km:.1f} km from {yours(label)}."
    else:
        answer, text = [{"$none": True}], f"There is no {KIND_NOUNS[kind]} within 5 km of {yours(label)}."
    return Draft(
        query=query,
        gold=[act("find_parking_or_charging", kind=kind, near=label), done(text)],
        bucket="tool_call",
        check={"calls": [{"tool": "find_parking_or_charging", "args": {"kind": kind, "near": dest_any(row)}}]},
        answer=answer,
        patches=location_ready("maps"),
    )


@family("basic", "5.7", pattern="lookup_then_act")
@guarded
def charger_then_navigate(g: Gen) -> Draft:
    me = here(g)
    details = {d["place_id"]: d for d in g.rows("world_parking_charging")}
    connector = g.pick(("ccs", "chademo", "type2", "gbt"))
    kind = g.pick(("ev_charging", "parking", "fuel"))
    category = {"ev_charging": "ev_charger", "parking": "parking", "fuel": "gas_station"}[kind]

    def fits(p: dict[str, Any]) -> bool:
        d = details.get(p["place_id"])
        return bool(
            d
            and p["open_now"]
            and d["free_spaces"] > 0
            and (kind != "ev_charging" or connector in json.loads(d["connectors_json"]))
        )

    target = nearest(g, category, me["lat"], me["lon"], extra=fits)
    args: dict[str, Any] = {"kind": kind, "available_now": True}
    if kind == "ev_charging":
        args["connector"] = connector
        what = f"an EV charger with a free {connector.upper()} plug"
    else:
        what = {"parking": "a car park with free spaces", "fuel": "an open fuel station"}[kind]
    query = g.say(
        "find the nearest {what} and navigate me there",
        "take me to the closest {what}",
        "I need {what} right now; start driving directions to the nearest one",
        what=what,
    )
    return Draft(
        query=query,
        gold=[
            act("find_parking_or_charging", **args),
            act("start_navigation", destination=target["place_id"], mode="driving"),
            done(f"Navigating to {target['name']}."),
        ],
        bucket="state_change",
        check={"insert": {"navigation_sessions": [{"destination_place_id": target["place_id"], "status": "active"}]}},
        patches=location_ready("maps"),
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
