"""Basic Tool Use families for getting around: navigation and routes (5.1), ride hailing (5.2), and parking,
fuel and EV charging (5.7).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sandbox.domains.travel.schema import USD_RATE
from sandbox.domains.travel.tools import SPOT_CATEGORY, _km, _ride_fare_usd, _spot, route_options
from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import history
from sandbox.generator.families.basic_travel.helpers import (
    FAV_LABELS,
    MODE_WORDS,
    PAID,
    currency,
    dest_any,
    grant,
    guarded,
    here,
    hm,
    location_ready,
    nearest,
    saved,
)
from sandbox.locales import minor_units

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
