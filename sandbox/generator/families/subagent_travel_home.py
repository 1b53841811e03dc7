"""Sub-agent Collaboration families for Travel & Transportation (D5) and Smart Home & Vehicle (D10).

Framework note: a monitor's ``on_trigger`` tools must be in the task's action space, and the build
only guarantees the gold's own calls are there, so monitors that act use a tool the gold also calls
directly (or notify only).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sandbox.domains.home.seed import dev_id
from sandbox.domains.travel.schema import AIRPORTS, CITY_AIRPORT
from sandbox.executor import normalise_phone
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import history, later, local_line, screen_rows, told_agent
from sandbox.generator.families.basic_home import dev_update, devices
from sandbox.generator.families.basic_travel.flights import cheapest_flight, soon_booking
from sandbox.generator.families.basic_travel.helpers import PAID, dest_any, grant, guarded, here, hm, nearest
from sandbox.generator.families.basic_travel.trips import trains_on


def phone_service(phone: str, name: str, handler: str, rules: dict[str, Any]) -> dict[str, Any]:
    return {
        "world_phone_services": [
            {
                "phone": normalise_phone(phone),
                "place_id": None,
                "name": name,
                "handler": handler,
                "rules_json": json.dumps(rules),
            }
        ]
    }


# ---- 5.1 screen reader: navigate to the venue in a message on screen ---------------------------------


@family("subagent", "5.1", agent="screen_reader_agent")
@guarded
def navigate_to_address_on_screen(g: Gen) -> Draft:
    me = here(g)
    places = g.rows("world_places")
    spot = g.one(
        "world_places",
        filter=lambda p: (
            p["city"] == me["city"]
            and p["category"] in ("restaurant", "museum", "cinema", "park", "cafe")
            and sum((q["address"], q["city"]) == (p["address"], p["city"]) for q in places) == 1
        ),
    )
    friend = g.pick(("Mia", "Tom", "Ravi", "Lea", "Ken", "Sara"))
    sid = "snapshot_951"
    text = f"{friend}: See you tonight at {spot['name']}!\n{spot['address']}, {spot['city']}"
    mode = g.pick(("driving", "walking", "transit"))
    query = g.say(
        "take me to the place in the message on my screen ({sid}), {m}",
        "navigate to the address {f} just sent me (it's on screen, {sid}), {m}",
        "start {m} directions to where {f}'s message on screen {sid} says",
        m=mode,
        f=friend,
        sid=sid,
    )
    return Draft(
        query=query,
        gold=[
            act("call_screen_reader_agent", source={"type": "screen", "id": sid}, extract_fields=["venue", "address"]),
            act("start_navigation", destination=f"{spot['address']}, {spot['city']}", mode=mode),
            done(f"Navigating to {spot['name']}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": {"source": {"id": sid}},
            "state": {"insert": {"navigation_sessions": [{"destination_place_id": spot["place_id"], "mode": mode}]}},
        },
        patches={
            "insert": screen_rows(
                sid, "messages", text, {"venue": spot["name"], "address": spot["address"], "city": spot["city"]}
            ),
            "update": {"app_permissions": [grant("maps")]},
        },
    )


# ---- 5.2 GUI: report an item left in the last ride ---------------------------------------------------


@family("subagent", "5.2", agent="gui_agent")
@guarded
def report_lost_item_in_ride(g: Gen) -> Draft:
    item, desc = g.pick(
        (
            ("umbrella", "black folding umbrella"),
            ("phone charger", "white USB-C charger"),
            ("scarf", "grey wool scarf"),
            ("sunglasses", "brown Ray-Ban sunglasses"),
            ("laptop bag", "navy laptop bag"),
            ("water bottle", "green steel bottle"),
        )
    )
    rides = [r for r in g.rows("rides") if r["status"] == "completed"]
    if not rides:
        raise BuildError("no finished ride")
    last = max(rides, key=lambda r: (r["created_at"], r["ride_id"]))
    query = g.say(
        "I left my {d} in my last ride. Report it in the ride app",
        "file a lost item report for my {i} ({d}) in the last taxi I took",
        "I forgot a {d} in the car on my last ride; let the ride app know",
        i=item,
        d=desc,
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_gui_agent",
                app_id="ride",
                goal=f"Report a lost {item} left in my last ride",
                inputs={"item": item, "description": desc},
                expected_outputs=["report_id"],
            ),
            done("Reported the lost item."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "ride"},
            "state": {
                "insert": {
                    "ride_lost_items": [
                        {
                            "ride_id": last["ride_id"],
                            "item": {"$contains": item},
                            "description": {"$contains": desc.split()[0]},
                        }
                    ]
                }
            },
        },
    )


# ---- 5.3 monitor: tell me when the fare drops -----------------------------------------------------------


@family("subagent", "5.3", agent="monitor_agent")
@guarded
def flight_fare_drop_alert(g: Gen) -> Draft:
    hub = CITY_AIRPORT[g.persona.home_city]
    code = g.pick(sorted({f["destination"] for f in g.rows("world_flights") if f["origin"] == hub}))
    days = g.rng.randint(4, 12)
    date = g.date(days)
    f = cheapest_flight(g, hub, code, date)
    limit = int(f["price"] * 0.85)
    city = AIRPORTS[code][0]
    query = g.say(
        "the cheapest flight to {c} on {d} is too pricey; tell me when it drops under {x}",
        "watch fares from {h} to {c} on {d} and let me know once one is below {x}",
        "alert me if a {c} flight on {d} gets cheaper than {x}",
        c=city,
        d=date,
        x=limit,
        h=g.persona.home_city,
    )
    cond = {
        "tool": "search_flights",
        "args": {"origin": hub, "destination": code, "date": date},
        "path": "$.offers[0].price_per_passenger",
        "op": "lt",
        "value": limit,
    }
    return Draft(
        query=query,
        gold=[
            act("search_flights", origin=hub, destination=code, date=date),
            act(
                "call_monitor_agent",
                condition=cond,
                notify_only=True,
                description=f"Fare {hub}-{code} on {date} under {limit}",
            ),
            done("I'll tell you when it drops."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {"condition": {"tool": "search_flights", "args": {"date": date}}, "notify_only": True},
            "state": {"insert": {"monitors": [{"status": "triggered", "notify_only": 1}]}},
        },
        events=[
            {
                "at": later(g, 30),
                "changes": {
                    "update": {
                        "world_flights": [
                            {"match": {"flight_id": f["flight_id"]}, "set": {"price": round(limit * 0.9, 2)}}
                        ]
                    }
                },
            }
        ],
    )


# ---- 5.4 voice: ask the hotel about early check-in, note it in the trip -----------------------------------


@family("subagent", "5.4", agent="voice_agent")
@guarded
def hotel_early_checkin_call(g: Gen) -> Draft:
    b = g.rows("hotel_bookings", {"booking_id": "hbooking_003"})[0]
    trip = g.rows("trips", {"trip_id": "trip_003"})[0]
    at = g.pick(("10:00", "11:00", "12:00"))
    hotel_phone = local_line(g, b["city"])
    answer = g.pick(
        ("Early check-in from 09:30 is free for you.", "Rooms are ready from 14:00; bags can be left earlier.")
    )
    hist = history(
        "Which hotel do I have for my holiday?",
        f"{b['hotel_name']} in {b['city']} ({b['booking_id']}), {b['check_in']} to {b['check_out']}, "
        f"phone {hotel_phone}; it's in your trip {trip['trip_id']}.",
    )
    query = g.say(
        "call them and ask if I can check in early, around {t}, then note the answer in the trip",
        "phone the hotel to ask about checking in early, around {t}, and add what they say to my itinerary",
        t=at,
    )
    when = f"{b['check_in']}T{at}"
    return Draft(
        query=query,
        history=hist,
        gold=[
            act(
                "call_voice_agent",
                callee={"phone": hotel_phone},
                objective=f"Ask whether early check-in at {at} on {b['check_in']} is possible",
                facts={"guest": g.persona.name, "check_in": b["check_in"], "time": at},
            ),
            act(
                "add_itinerary_item",
                trip_id=trip["trip_id"],
                item_type="note",
                title=f"Early check-in: {answer}",
                start=when,
            ),
            done(answer),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_voice_agent",
            "handoff": {"callee": {"phone": {"$phone": hotel_phone}}},
            "state": {
                "insert": {
                    "trip_items": [
                        # the note's time is the model's choice (the user's or the hotel's): the check-in day holds
                        {
                            "trip_id": trip["trip_id"],
                            "title": {"$regex": "check|early|arriv"},
                            "start": {"$dt_between": [f"{b['check_in']}T00:00", f"{b['check_in']}T23:59"]},
                        }
                    ],
                    "subagent_jobs": [told_agent("voice_agent", "early|check.?in|arriv")],
                }
            },
        },
        patches={
            "insert": phone_service(hotel_phone, b["hotel_name"], "inquiry", {"answers": {"early|check|arriv": answer}})
        },
    )


# ---- 5.5 screen reader: book the train in the ticket screenshot --------------------------------------------


@family("subagent", "5.5", agent="screen_reader_agent")
@guarded
def book_train_from_screenshot(g: Gen) -> Draft:
    origin, destination = g.pick(
        (
            ("Beijing", "Shanghai"),
            ("Shanghai", "Beijing"),
            ("San Francisco", "Palo Alto"),
            ("Palo Alto", "San Francisco"),
        )
    )
    date = g.date(g.rng.randint(1, 8))
    options = trains_on(g, origin, destination, date, "train", None)
    if not options:
        raise BuildError("no trains")
    t = g.pick(options)
    if any(b["number"] == t["number"] and b["depart_at"] == t["depart_at"] for b in g.rows("train_bookings")):
        raise BuildError("already booked")
    sid = "snapshot_955"
    text = (
        f"Colleague: Let's all take train {t['number']} on {date}, {origin} {hm(t['depart_at'])} -> "
        f"{destination}, {t['seat_class']} class."
    )
    query = g.say(
        "book me on the train to {d} my colleague mentions in the chat on screen ({sid})",
        "get me a ticket for the {d} train in the message on screen {sid}",
        "book the same train to {d} as in screenshot {sid} for me",
        d=destination,
        sid=sid,
    ) + g.pick(("", " Just me.", " Only one seat.", " Thanks!"))
    return Draft(
        query=query,
        gold=[
            act(
                "call_screen_reader_agent",
                source={"type": "screen", "id": sid},
                extract_fields=["train_number", "date", "origin", "destination", "seat_class"],
            ),
            act(
                "search_trains",
                origin=origin,
                destination=destination,
                date=date,
                seat_class=t["seat_class"],
                depart_after=hm(t["depart_at"]),
                depart_before=hm(t["depart_at"]),
            ),
            act("book_train_ticket", offer_id=g.ref(2, "offers[0].offer_id"), passengers=[{"self": True}]),
            done(f"Booked {t['number']}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": {"source": {"id": sid}},
            "state": {
                "insert": {
                    "train_bookings": [
                        {"number": t["number"], "depart_at": t["depart_at"], "seat_class": t["seat_class"]}
                    ],
                    "transactions": [{"status": "posted"}],
                },
                "ignore_tables": PAID,
            },
        },
        patches={
            "insert": screen_rows(
                sid,
                "chat",
                text,
                {
                    "train_number": t["number"],
                    "date": date,
                    "origin": origin,
                    "destination": destination,
                    "seat_class": t["seat_class"],
                },
            )
        },
    )


# ---- 5.6 voice: book a tour by phone, then put it in the trip ---------------------------------------------


@family("subagent", "5.6", agent="voice_agent")
@guarded
def phone_tour_into_trip(g: Gen) -> Draft:
    trip = g.rows("trips", {"trip_id": "trip_003"})[0]
    start = dt.date.fromisoformat(trip["start_date"])
    day = (start + dt.timedelta(days=g.rng.randint(1, 3))).isoformat()
    at = g.pick(("10:00", "14:00", "17:00"))
    party = g.rng.randint(1, 3)
    tour = g.pick(("River Boat Tours", "Old Town Walks", "Food Trail Tours"))
    tour_phone = local_line(g, trip["destination"])
    hist = history(
        "What's planned for my holiday?",
        f"{trip['trip_id']} {trip['name']}, {trip['start_date']} to {trip['end_date']}. "
        f"{tour} takes phone bookings at {tour_phone}.",
    )
    query = g.say(
        "call {t} and book {n} places on {d} at {a}, then add it to the holiday itinerary",
        "phone {t} to reserve the {a} tour on {d} for {n}, and put it in my trip",
        t=tour,
        n=party,
        d=day,
        a=at,
    )
    return Draft(
        query=query,
        history=hist,
        gold=[
            act(
                "call_voice_agent",
                callee={"phone": tour_phone},
                objective=f"Book the {at} tour on {day}",
                facts={"date": day, "time": at, "party_size": party, "name": g.persona.name},
            ),
            act(
                "add_itinerary_item",
                trip_id=trip["trip_id"],
                item_type="activity",
                title=f"{tour} tour",
                start=f"{day}T{at}",
            ),
            done("Booked and added."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_voice_agent",
            "handoff": {
                "callee": {"phone": {"$phone": tour_phone}},
                "facts": {"date": day, "time": at, "party_size": {"$any": [party, str(party)]}},
            },
            "state": {
                "insert": {
                    "phone_bookings": [{"date": day, "time": at, "party_size": party}],
                    "trip_items": [
                        {"trip_id": trip["trip_id"], "start": f"{day}T{at}", "title": {"$contains": tour.split()[0]}}
                    ],
                }
            },
        },
        patches={
            "insert": phone_service(
                tour_phone, tour, "booking", {"open": "08:00", "close": "20:00", "slots": ["10:00", "14:00", "17:00"]}
            )
        },
    )


# ---- 5.7 monitor: tell me when a charger near a saved place frees up --------------------------------------


@family("subagent", "5.7", agent="monitor_agent")
@guarded
def charger_free_alert(g: Gen) -> Draft:
    label = g.pick(("Work", "Gym", "Groceries", "Coffee"))
    spot = g.rows("saved_places", {"label": label})[0]
    details = {d["place_id"]: d for d in g.rows("world_parking_charging")}
    near = [p for p in g.rows("world_places", {"category": "ev_charger"}) if p["place_id"] in details]
    target = nearest(g, "ev_charger", spot["lat"], spot["lon"], extra=lambda p: p["place_id"] in details)
    from sandbox.domains.travel.tools import _km

    close = [p for p in near if _km(spot["lat"], spot["lon"], p["lat"], p["lon"]) <= 5.0]
    word = {"Work": "the office", "Gym": "the gym", "Groceries": "the supermarket", "Coffee": "my coffee place"}[label]
    query = g.say(
        "all chargers near {w} are busy; tell me as soon as one is free",
        "let me know when an EV charger near {w} frees up",
        "watch the charging points around {w} and ping me when one is available",
        w=word,
    )
    cond = {
        "tool": "find_parking_or_charging",
        "args": {"kind": "ev_charging", "near": label, "available_now": True},
        "path": "$.count",
        "op": "gt",
        "value": 0,
    }
    return Draft(
        query=query,
        gold=[
            act("find_parking_or_charging", kind="ev_charging", near=label, available_now=True),
            act("call_monitor_agent", condition=cond, notify_only=True, description=f"A free charger near {label}"),
            done("I'll tell you when one frees up."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {
                "condition": {
                    "tool": "find_parking_or_charging",
                    "args": {"kind": "ev_charging", "near": dest_any(spot)},
                },
                "notify_only": True,
            },
            # fired on the event, watching for a free charger: only those listed free now, or a free-space count
            "state": {
                "insert": {
                    "monitors": [
                        {
                            "status": "triggered",
                            "condition_json": {
                                "$any": [
                                    {"$json": {"args": {"available_now": True}}},
                                    {"$json": {"path": {"$regex": r"free_spaces"}}},
                                ]
                            },
                        }
                    ]
                }
            },
        },
        patches={
            "update": {
                "world_parking_charging": [
                    {"match": {"place_id": p["place_id"]}, "set": {"free_spaces": 0}} for p in close
                ],
                "app_permissions": [grant("maps")],
            }
        },
        events=[
            {
                "at": later(g, 1),
                "changes": {
                    "update": {
                        "world_parking_charging": [
                            {"match": {"place_id": target["place_id"]}, "set": {"free_spaces": 2}}
                        ],
                        "world_places": [{"match": {"place_id": target["place_id"]}, "set": {"open_now": 1}}],
                    }
                },
            }
        ],
    )


# ---- 5.8 monitor: tell me when boarding starts ---------------------------------------------------------------


@family("subagent", "5.8", agent="monitor_agent")
@guarded
def boarding_alert(g: Gen) -> Draft:
    b = soon_booking(g)
    date = b["depart_at"][:10]
    hist = history(
        "When is my next flight?",
        f"{b['flight_number']} at {hm(b['depart_at'])} on {date} (booking {b['booking_id']}).",
    )
    query = g.say(
        "let me know when it starts boarding",
        "ping me once boarding opens for that flight",
        "watch the flight and tell me when they begin boarding",
    )
    cond = {
        "tool": "get_flight_status",
        "args": {"flight_number": b["flight_number"], "date": date},
        "path": "$.status",
        "op": "eq",
        "value": "boarding",
    }
    return Draft(
        query=query,
        history=hist,
        gold=[
            act("get_flight_status", flight_number=b["flight_number"], date=date),
            act(
                "call_monitor_agent", condition=cond, notify_only=True, description=f"Boarding of {b['flight_number']}"
            ),
            done("I'll tell you when boarding starts."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {
                "condition": {"tool": "get_flight_status", "args": {"flight_number": b["flight_number"], "date": date}},
                "notify_only": True,
            },
            "state": {"insert": {"monitors": [{"status": "triggered"}]}},
        },
        events=[
            {
                "at": later(g, 2),
                "changes": {
                    "update": {
                        "world_flight_status": [
                            {
                                "match": {"flight_number": b["flight_number"], "date": date},
                                "set": {"status": "boarding"},
                            }
                        ]
                    }
                },
            }
        ],
    )


# ---- 10.1 GUI: create a scene in the home app, then run it -----------------------------------------------------


@family("subagent", "10.1", agent="gui_agent")
@guarded
def create_scene_then_run(g: Gen) -> Draft:
    name = g.pick(("Reading", "Date night", "Homework", "Cosy evening", "Late snack", "Yoga"))
    lamps = g.pick(
        (
            ["Floor lamp", "Desk lamp"],
            ["Bedside lamp", "Floor lamp"],
            ["Desk lamp", "Kids room light"],
            ["Floor lamp", "Kitchen light"],
        )
    )
    level = g.pick((30, 40, 50, 60))
    query = g.say(
        "make a new scene called '{n}' with the {a} and {b} at {l}%, and turn it on now",
        "create a '{n}' scene: {a} and {b}, brightness {l}. Then activate it",
        n=name,
        a=lamps[0].lower(),
        b=lamps[1].lower(),
        l=level,
    )
    ids = [dev_id(x) for x in lamps]
    return Draft(
        query=query,
        gold=[
            act(
                "call_gui_agent",
                app_id="home",
                goal=f"Create a scene named {name}",
                inputs={"scene_name": name, "devices": lamps, "brightness": level},
            ),
            act("activate_scene", scene_name=name),
            done(f"{name} is created and on."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "home"},
            "state": {
                "insert": {"home_scenes": [{"scene_name": name}]},
                "update": {"home_devices": [dev_update(i, on=True, brightness=level) for i in ids]},
            },
        },
    )


# ---- 10.2 monitor: cool the living room if it gets hot -------------------------------------------------------


@family("subagent", "10.2", agent="monitor_agent")
@guarded
def cool_when_hot(g: Gen) -> Draft:
    bed = devices(g, name="Bedroom AC")[0]
    living = devices(g, name="Living room thermostat")[0]
    bed_t = g.pick([t for t in (22, 23, 24, 25) if t != bed["state"]["target_c"]])
    hot = g.pick((28, 29, 30))
    cool_to = g.pick((22, 23, 24))
    query = g.say(
        "set the bedroom AC to {b} on cool now, and if the living room goes above {h} degrees, cool it to {c}",
        "bedroom AC {b}°C cooling please; also watch the living room and cool it to {c} if it passes {h}",
        b=bed_t,
        h=hot,
        c=cool_to,
    )
    cond = {
        "tool": "list_smart_devices",
        "args": {"room": "Living room", "type": "thermostat"},
        "path": "$.devices[0].state.current_c",
        "op": "gt",
        "value": hot,
    }
    return Draft(
        query=query,
        gold=[
            act("set_thermostat", target="Master bedroom", target_c=bed_t, mode="cool"),
            act(
                "call_monitor_agent",
                condition=cond,
                on_trigger=[
                    {"tool": "set_thermostat", "args": {"target": "Living room", "target_c": cool_to, "mode": "cool"}}
                ],
                description=f"Cool the living room to {cool_to} above {hot}",
            ),
            done("Done; I'll cool the living room if it gets hot."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {"condition": {"tool": "list_smart_devices"}},
            "state": {
                "insert": {"monitors": [{"status": "triggered"}]},
                "update": {
                    "home_devices": [
                        dev_update(bed["device_id"], target_c=bed_t, mode="cool"),
                        dev_update(living["device_id"], target_c=cool_to, current_c=hot + 1.5),
                    ]
                },
            },
        },
        events=[
            {
                "at": later(g, 3),
                "changes": {
                    "update": {
                        "home_devices": [
                            {
                                "match": {"device_id": living["device_id"]},
                                "set": {
                                    "state_json": json.dumps(
                                        {**living["state"], "current_c": hot + 1.5}, sort_keys=True
                                    )
                                },
                            }
                        ]
                    }
                },
            }
        ],
    )


# ---- 10.3 screen reader: give the guest in the message a keypad code ------------------------------------------


@family("subagent", "10.3", agent="screen_reader_agent")
@guarded
def guest_code_from_message(g: Gen) -> Draft:
    guest = g.pick(("Maria (cleaner)", "Sam the plumber", "Aunt Rose", "Dog sitter Jo", "Babysitter Lucy"))
    days = g.rng.randint(1, 5)
    until = f"{g.date(days)}T{g.rng.randint(12, 19):02d}:00"
    sid = "snapshot_961"
    text = f"{guest}: Hi! I'll come {g.date(days)}. Could I get a door code valid until {until[11:]} that day?"
    query = g.say(
        "give the person in this message ({sid}) a front door code until when they ask.",
        "read the message on screen {sid} and set up the keypad code they need on the front door.",
        "someone texted asking for a door code; it's on my screen ({sid}). Set it up for the front door.",
        "sort out the front door code requested in the message I'm looking at, {sid}.",
        sid=sid,
    ) + g.pick(("", " Thanks.", " Then tell me the code.", " Please.", " Quickly, please."))
    lock = dev_id("Front door lock")
    args = {"device_id": lock, "locked": True, "guest_code_label": guest, "code_valid_until": until}
    return Draft(
        query=query,
        gold=[
            act(
                "call_screen_reader_agent",
                source={"type": "screen", "id": sid},
                extract_fields=["guest", "valid_until"],
            ),
            act("list_smart_devices", type="lock"),
            act("ask_user", question=f"Issue a front door code for {guest} until {until}?", kind="confirm"),
            act("set_lock_state", **args, confirm=True),
            done("Code issued."),
        ],
        bucket="agent_behavior",
        # the guest and the validity come from a message, not from the user: set_lock_state wants them confirmed
        check={
            "route": "call_screen_reader_agent",
            "handoff": {"source": {"id": sid}},
            "follow_up": {"tool": "ask_user", "args": {}},
            "state": {"insert": {"access_codes": [{"device_id": lock, "valid_until": until}]}},
        },
        patches={"insert": screen_rows(sid, "messages", text, {"guest": guest, "valid_until": until})},
        script=[{"answer": "Yes, go ahead.", "keywords": ["code", "confirm", "issue"], "kind": "confirm"}],
    )


# ---- 10.4 monitor: start the vacuum once it has charged -----------------------------------------------------


@family("subagent", "10.4", agent="monitor_agent")
@guarded
def vacuum_after_charge(g: Gen) -> Draft:
    vac = devices(g, name="Robot vacuum")[0]
    low = g.pick((5, 8, 10, 12))
    ready = g.pick((50, 60, 80))
    query = g.say(
        "start the robot vacuum; if the battery is too low, start it once it's charged to {r}%",
        "vacuum the house now, or as soon as the robot has {r}% battery",
        r=ready,
    )
    cond = {
        "tool": "list_smart_devices",
        "args": {"type": "vacuum"},
        "path": "$.devices[0].state.battery_pct",
        "op": "ge",
        "value": ready,
    }
    charged = {**vac["state"], "battery_pct": ready + 5}
    from sandbox.errors import ErrorType

    return Draft(
        query=query,
        gold=[
            act("list_smart_devices", type="vacuum"),
            act("start_robot_vacuum", device_id=vac["device_id"], action="start"),
            act(
                "call_monitor_agent",
                condition=cond,
                on_trigger=[{"tool": "start_robot_vacuum", "args": {"device_id": vac["device_id"], "action": "start"}}],
                description=f"Start the vacuum at {ready}% battery",
            ),
            done("The battery is low; it will start once charged."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {"condition": {"tool": "list_smart_devices"}},
            "state": {
                "insert": {"monitors": [{"status": "triggered"}]},
                "update": {"home_devices": [dev_update(vac["device_id"], status="cleaning")]},
            },
        },
        patches={
            "update": {
                "home_devices": [
                    {
                        "match": {"device_id": vac["device_id"]},
                        "set": {"state_json": json.dumps({**vac["state"], "battery_pct": low}, sort_keys=True)},
                    }
                ]
            }
        },
        events=[
            {
                "at": later(g, 2),
                "changes": {
                    "update": {
                        "home_devices": [
                            {
                                "match": {"device_id": vac["device_id"]},
                                "set": {"state_json": json.dumps(charged, sort_keys=True)},
                            }
                        ]
                    }
                },
            }
        ],
        recovers=(ErrorType.STATE_CONFLICT,),
    )


# ---- 10.5 GUI: switch an automation on or off in the home app --------------------------------------------


@family("subagent", "10.5", agent="gui_agent")
@guarded
def toggle_automation_in_app(g: Gen) -> Draft:
    rows = g.rows("home_automations")
    a = g.pick(rows)
    on = not a["enabled"]
    query = g.say(
        "{v} the '{n}' automation",
        "please {v} my {n} routine in the home app",
        "can you {v} the {n} automation?",
        v="turn on" if on else "pause",
        n=a["name"],
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_gui_agent",
                app_id="home",
                goal=f"{'Enable' if on else 'Disable'} the {a['name']} automation",
                inputs={"name": a["name"], "enabled": on},
            ),
            done("Done."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "home"},
            "state": {
                "update": {
                    "home_automations": [{"match": {"automation_id": a["automation_id"]}, "set": {"enabled": int(on)}}]
                }
            },
        },
    )


# ---- 10.6 voice: low tyre pressure, book a check at the garage -------------------------------------------

TYRE_TOPIC = r"\btyres?\b|\btires?\b|pressure|inspect|\bcheck"


@family("subagent", "10.6", agent="voice_agent")
@guarded
def tyre_check_call(g: Gen) -> Draft:
    days = g.rng.randint(1, 5)
    at = g.pick(("09:00", "11:00", "15:00"))
    garage = g.pick(("QuickFit Garage", "City Tyres", "AutoCare Service"))
    garage_phone = local_line(g)
    query = g.say(
        "check my car's tyres and, if one is low, call {gar} at {p} to book a check {w} at {t}",
        "if the car's tyre pressure looks off, phone {gar} ({p}) and book me a slot {w} at {t}",
        gar=garage,
        p=garage_phone,
        w=g.when(days),
        t=at,
    )
    day = g.date(days)
    tyres = json.loads(next(r["value"] for r in g.rows("vehicle_state") if r["key"] == "tire_pressure_json"))
    low = min(tyres, key=lambda k: (tyres[k], k))  # the world's slow leak, under the dashboard's threshold
    side, end = low.split("_")[1], low.split("_")[0]
    names = {f"{end} {side}", f"{side} {end}"} | ({f"back {side}", f"{side} back"} if end == "rear" else set())
    return Draft(
        query=query,
        gold=[
            act("get_vehicle_status"),
            act(
                "call_voice_agent",
                callee={"phone": garage_phone},
                objective="Book a tyre pressure check",
                facts={"date": day, "time": at, "name": g.persona.name},
            ),
            done(f"The {end} {side} tyre is low ({tyres[low]} bar); {garage} booked you in."),
        ],
        bucket="agent_behavior",
        # Naming the low tyre shows the car was checked: booking blind must not pass.
        answer=[{"$any": [{"$name": n} for n in sorted(names)]}],
        check={
            "route": "call_voice_agent",
            "handoff": {"callee": {"phone": {"$phone": garage_phone}}, "facts": {"date": day, "time": at}},
            "state": {
                "insert": {
                    "phone_bookings": [{"date": day, "time": at}],
                    "subagent_jobs": [told_agent("voice_agent", TYRE_TOPIC)],
                }
            },
        },
        patches={
            "insert": phone_service(
                garage_phone,
                garage,
                "appointment",
                {"open": "08:00", "close": "18:00", "slots": ["09:00", "11:00", "15:00"]},
            )
        },
    )
