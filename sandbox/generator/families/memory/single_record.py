"""Memory families of single-record grounding: one remembered fact decides the domain call (read-only or
with a memory write).
"""

from __future__ import annotations

import datetime as dt
import json

from sandbox.domains.travel.schema import CITY_AIRPORT
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import history as hist
from sandbox.generator.families._common import origin_names, peek
from sandbox.generator.families.memory.helpers import (
    ACTIVITIES,
    DAY_NAME,
    DAYS,
    GROUPS,
    RELATIVES,
    TZ_CITIES,
    Mem,
    _num,
    add_check,
    airport,
    ask,
    away_city,
    brands_offered,
    days_until,
    delete_check,
    dt_plus,
    flight_offers,
    forecast,
    free_start,
    helper,
    hhmm,
    listed,
    local_time,
    nice_time,
    old,
    person,
    plus,
    replace_check,
    served,
    slot,
    sr,
    weather_day,
)


@family("memory", None, **sr("single", "api"))
def weather_where_relative_lives(g: Gen) -> Draft:
    m = Mem(g)
    rel, city = g.pick(RELATIVES), away_city(g)
    name = person(g, rel)
    mid = m.add("relationship", f"My {rel} {name} lives in {city}", [name, rel], old(g))
    other = g.pick([r for r in RELATIVES if r != rel])
    m.add("relationship", f"My {other} {person(g, other)} works as a nurse", ["nurse"], old(g))
    d = weather_day(g)
    when = g.when(d)
    query, asks = ask(
        g,
        {
            "what's the weather going to be where my {rel} lives {when}?": "any",
            "check the forecast {when} for my {rel}'s city": "any",
            "is it going to rain {when} where my {rel} lives?": "rain",
            "how warm will it be {when} in the city my {rel} lives in?": "warm",
        },
        rel=rel,
        when=when,
    )
    answer, facts = forecast(g, m.patches(), city, g.date(d), asks)
    return Draft(
        query,
        [m.search(f"{rel} lives city", mid), act("get_weather", location=city, date=g.date(d)), done(answer)],
        "tool_call",
        {"calls": [{"tool": "get_weather", "args": {"location": city, "date": g.date(d)}}]},
        patches=m.patches(),
        memory_ids=[mid],
        l2="12.1",
        answer=facts,
    )


@family("memory", None, **sr("single", "api"))
def world_time_where_relative_lives(g: Gen) -> Draft:
    m = Mem(g)
    rel, city = g.pick(RELATIVES), g.pick(TZ_CITIES)
    name = person(g, rel)
    verb = g.pick(("is studying in", "lives in", "moved to", "is working in"))
    mid = m.add("relationship", f"My {rel} {name} {verb} {city}", [name, rel, city], old(g))
    other = g.pick([r for r in RELATIVES if r != rel])
    m.add("relationship", f"My {other} {person(g, other)} likes hiking", ["hiking"], old(g))
    query = g.say(
        "what time is it right now where my {rel} is?",
        "what's the local time for my {rel} {name}?",
        "is it late at night for my {rel} right now? what time is it there?",
        "can I call my {rel} now, what time is it in their city?",
        rel=rel,
        name=name,
    )
    answer, facts = local_time(g, m.patches(), city, query)
    return Draft(
        query,
        [m.search(f"{rel} {name}", mid), act("get_world_time", location=city), done(answer)],
        "tool_call",
        {"calls": [{"tool": "get_world_time", "args": {"location": city}}]},
        patches=m.patches(),
        memory_ids=[mid],
        l2="12.6",
        answer=facts,
    )


@family("memory", None, **sr("single", "api"))
def restaurants_favourite_cuisine(g: Gen) -> Draft:
    m = Mem(g)
    who = g.pick(("my", "my partner's", "my kids'", "my team's", "my parents'", "my book club's"))
    # where the user means: "near home" and "near work" name an origin (the check holds the search to it);
    # "in town" names only the city
    where, label, city = g.pick(
        (
            ("near home", "home", g.persona.home_city),
            ("near work", "work", g.persona.work_city),
            ("in town", "home", g.persona.home_city),
        )
    )
    cuisine = g.pick(served(g, city))
    owner = who.replace("my ", "").replace("'s", "").replace("'", "") if who != "my" else "I"
    text = f"Favourite cuisine is {cuisine}" if who == "my" else f"{owner.capitalize()} favourite cuisine is {cuisine}"
    mid = m.add("preference", text, ["favourite cuisine", owner], old(g))
    query = g.say(
        "find a restaurant {where} serving {who} favourite cuisine",
        "look for {who} favourite kind of restaurant {where}",
        "search for places {where} that do {who} favourite food",
        who=who,
        where=where,
    )
    key = "favourite cuisine" if who == "my" else f"{owner} favourite cuisine"
    # "in town" names no origin: any point of the home city will do
    same_city = ("home", "work", "current") if g.persona.work_city == city else ("home", "current")
    in_town = {"$any": [*same_city, city]}
    found = peek(g, "search_restaurants", m.patches(), cuisine=cuisine, near=label)["restaurants"]
    answer, facts = listed(found, "name", f"{cuisine} restaurants {where}")
    return Draft(
        query,
        [m.search(key, mid), act("search_restaurants", cuisine=cuisine, near=label), done(answer)],
        "tool_call",
        {
            "calls": [
                {
                    "tool": "search_restaurants",
                    "args": {
                        "cuisine": {"$contains": cuisine},
                        "near": origin_names(g, label) if where.startswith("near") else in_town,
                    },
                }
            ]
        },
        patches=m.patches(),
        memory_ids=[mid],
        l2="8.1",
        answer=facts,
    )


@family("memory", None, **sr("single", "db"))
def alarm_for_routine(g: Gen) -> Draft:
    m = Mem(g)
    act_name, day = g.pick(ACTIVITIES), g.pick(DAYS)
    start = hhmm(g.rng.choice((6, 7, 8, 17, 18, 19)), g.pick((0, 15, 30, 45)))
    lead = g.pick((30, 45, 60))
    mid = m.add("routine", f"{act_name.capitalize()} every {DAY_NAME[day]} at {start}", [act_name, "routine"], old(g))
    m.add(
        "routine",
        f"{g.pick([a for a in ACTIVITIES if a != act_name]).capitalize()} on the first Sunday of the month",
        ["routine"],
        old(g),
    )
    time = plus(start, -lead)
    query = g.say(
        "set a weekly alarm {lead} minutes before my {a}",
        "wake me {lead} minutes before {a} every week",
        "I need an alarm {lead} minutes ahead of my {a}, every week on that day",
        lead=lead,
        a=act_name,
    )
    return Draft(
        query,
        [
            m.search(act_name, mid),
            act("set_alarm", time=time, days=[day], label=act_name.capitalize()),
            done(f"Alarm set for {time} on {DAY_NAME[day]}s."),
        ],
        "state_change",
        {"insert": {"alarms": [{"time": time, "days_json": {"$json": [day]}}]}},
        patches=m.patches(),
        memory_ids=[mid],
        l2="1.3",
    )


@family("memory", None, **sr("single", "db"))
def reservation_group_size(g: Gen) -> Draft:
    m = Mem(g)
    grp, n = g.pick(GROUPS), g.rng.randint(3, 8)
    mid = m.add("relationship", f"The {grp} has {n} people including me", [grp], old(g))
    m.add("relationship", f"The {g.pick([x for x in GROUPS if x != grp])} meets monthly", ["meets"], old(g))
    r, when = slot(g, n)
    day = (dt.date.fromisoformat(when[:10]) - g.now.date()).days
    query = g.say(
        "book {rest} {when} at {t} for my {grp}, everyone in it",
        "reserve a table at {rest} for the whole {grp} {when}, {t}",
        "get the {grp} a table at {rest} {when} at {t}",
        rest=r["name"],
        when=g.when(day),
        t=nice_time(when),
        grp=grp,
    )
    return Draft(
        query,
        [
            m.search(f"{grp} people", mid),
            act("search_restaurants", query=r["name"]),
            act("make_restaurant_reservation", restaurant_id=r["restaurant_id"], datetime=when, party_size=n),
            done(f"Booked for {n}."),
        ],
        "state_change",
        {
            "insert": {
                "restaurant_reservations": [{"restaurant_id": r["restaurant_id"], "datetime": when, "party_size": n}]
            }
        },
        patches=m.patches(),
        memory_ids=[mid],
        l2="8.2",
    )


@family("memory", None, **sr("single", "db"))
def thermostat_preference(g: Gen) -> Draft:
    m = Mem(g)
    dev = g.one("home_devices", {"type": "thermostat"}, filter=lambda r: r["online"] == 1)
    state = json.loads(dev["state_json"])
    ctx = g.pick(("sleeping", "working from home", "reading", "the baby's nap", "movie night", "yoga at home"))
    t = g.pick([x / 2 for x in range(36, 53) if x / 2 != state.get("target_c")])
    mid = m.add("preference", f"Likes the temperature at {t} degrees for {ctx}", ["temperature", ctx], old(g))
    m.add("preference", "Likes the lights dim in the evening", ["lights"], old(g))
    query = g.say(
        "set the {dev} to my usual temperature for {ctx}",
        "it's time for {ctx}; put the {dev} where I like it",
        "adjust the {dev} to how I like it for {ctx}",
        dev=dev["name"],
        ctx=ctx,
    )
    return Draft(
        query,
        [
            m.search(f"temperature {ctx}", mid),
            act("list_smart_devices", type="thermostat"),
            act("set_thermostat", target=dev["device_id"], target_c=t),
            done(f"Set to {t}°C."),
        ],
        "state_change",
        {
            "update": {
                "home_devices": [
                    {"match": {"device_id": dev["device_id"]}, "set": {"state_json": {"$json": {"target_c": t}}}}
                ]
            }
        },
        patches=m.patches(),
        memory_ids=[mid],
        l2="10.2",
    )


# -- multi-turn, read-only --


@family("memory", None, **sr("multi", "api"))
def flights_from_usual_airport(g: Gen) -> Draft:
    m = Mem(g)
    home = CITY_AIRPORT.get(g.persona.home_city)
    if not home:
        raise BuildError("no home airport")
    dest = g.pick([c for c in CITY_AIRPORT if CITY_AIRPORT[c] != home])
    mid = m.add("preference", f"Always flies out of {home} airport", ["airport", "flights", home], old(g))
    m.add("preference", "Prefers aisle seats on short flights", ["seat"], old(g))
    d = g.rng.randint(3, 13)
    why = g.pick(
        ("a conference", "a wedding", "a job interview", "my friend's birthday", "a workshop", "a client visit")
    )
    history = hist(
        g.say(
            "I have to be in {dest} on {date} for {why}.",
            "{why} in {dest} on {date}, I need to go.",
            dest=dest,
            date=g.date(d),
            why=why,
        ),
        "Sounds good, I can help you plan the trip.",
    )
    query = g.say(
        "find me flights there that day from the airport I usually use",
        "search flights on that very day from my usual airport",
        "what flights are there that day from my regular airport?",
    )
    answer, facts = flight_offers(
        g, m.patches(), "what flights" in query.lower(), origin=home, destination=CITY_AIRPORT[dest], date=g.date(d)
    )
    return Draft(
        query,
        [
            m.search("usual airport flights", mid),
            act("search_flights", origin=home, destination=CITY_AIRPORT[dest], date=g.date(d)),
            done(answer),
        ],
        "tool_call",
        {
            "calls": [
                {
                    "tool": "search_flights",
                    "args": {"origin": airport(home), "destination": airport(CITY_AIRPORT[dest]), "date": g.date(d)},
                }
            ]
        },
        patches=m.patches(),
        history=history,
        memory_ids=[mid],
        l2="5.3",
        answer=facts,
    )


@family("memory", None, **sr("multi", "api"))
def directions_to_remembered_place(g: Gen) -> Draft:
    m = Mem(g)
    # the remembered place is of the kind its role names (a physio at a clinic, not at a cafe)
    who, kind = g.pick(
        (
            ("my physio", "clinic"),
            ("my doctor's practice", "clinic"),
            ("my barber", "salon"),
            ("my hairdresser", "salon"),
            ("my climbing gym", "gym"),
            ("my usual pharmacy", "pharmacy"),
            ("my favourite park", "park"),
            ("my usual cafe", "cafe"),
        )
    )
    place = g.one("world_places", {"city": g.persona.home_city, "category": kind})
    mid = m.add(
        "profile",
        f"{who.replace('my ', '').capitalize()} is {place['name']} at {place['address']}",
        [who.replace("my ", "")],
        old(g),
    )
    mode = g.pick(("transit", "walking", "cycling", "driving"))
    history = hist(
        g.say("I need to go to {who} later today.", "I'm heading to {who} this afternoon.", who=who),
        "Okay. Do you want directions?",
    )
    word = {"transit": "by public transport", "walking": "on foot", "cycling": "by bike", "driving": "by car"}[mode]
    query = g.say(
        "yes, how do I get there from home {w}?",
        "give me directions there from home {w}",
        "what's the route from home {w}?",
        w=word,
    )
    routes = peek(g, "get_directions", m.patches(), destination=place["address"], origin="home", mode=mode)["routes"]
    if not routes:
        raise BuildError("no route")
    best = min(routes, key=lambda r: r["duration_min"])
    answer = f"From home to {place['name']} {word}: about {best['duration_min']} minutes, {best['distance_km']} km."
    facts = [{"$any": [*(_num(r["duration_min"]) for r in routes), *(_num(r["distance_km"]) for r in routes)]}]
    return Draft(
        query,
        [
            m.search(who.replace("my ", "").replace("'s", ""), mid),
            act("get_directions", destination=place["address"], origin="home", mode=mode),
            done(answer),
        ],
        "tool_call",
        {
            "calls": [
                {
                    "tool": "get_directions",
                    "args": {
                        "destination": {
                            "$any": [{"$contains": place["address"]}, place["place_id"], {"$contains": place["name"]}]
                        },
                        "mode": mode,
                    },
                }
            ]
        },
        patches=m.patches(),
        history=history,
        memory_ids=[mid],
        l2="5.1",
        answer=facts,
    )


@family("memory", None, **sr("multi", "api"))
def hotels_preferred_brand(g: Gen) -> Draft:
    m = Mem(g)
    city = g.pick(sorted({h["city"] for h in g.rows("world_hotels") if h["city"] != g.persona.home_city}))
    a = g.rng.randint(2, 10)
    n = g.rng.randint(1, 4)
    brand = g.pick(brands_offered(g, city, g.date(a), g.date(a + n)))
    mid = m.add("preference", f"Prefers {brand} hotels for the loyalty points", ["hotel", brand], old(g))
    m.add("preference", "Likes a quiet room on a high floor", ["room"], old(g))
    answer, facts = listed(
        peek(g, "search_hotels", m.patches(), city=city, check_in=g.date(a), check_out=g.date(a + n), brand=brand)[
            "offers"
        ],
        "hotel_name",
        f"{brand} hotels in {city}",
    )
    history = hist(
        g.say(
            "I'm going to {city} from {a} for {n} nights.",
            "Trip to {city}: arriving {a}, {n} nights.",
            city=city,
            a=g.date(a),
            n=n,
        ),
        "Nice, want me to look at places to stay?",
    )
    query = g.say(
        "yes, find hotels of the chain I like",
        "look for my preferred hotel brand there",
        "search hotels there, my usual brand",
    )
    return Draft(
        query,
        [
            m.search("preferred hotels brand", mid),
            act("search_hotels", city=city, check_in=g.date(a), check_out=g.date(a + n), brand=brand),
            done(answer),
        ],
        "tool_call",
        {
            "calls": [
                {
                    "tool": "search_hotels",
                    "args": {
                        "city": city,
                        "check_in": g.date(a),
                        "check_out": g.date(a + n),
                        "brand": {"$contains": brand},
                    },
                }
            ]
        },
        patches=m.patches(),
        history=history,
        memory_ids=[mid],
        l2="5.4",
        answer=facts,
    )


# -- multi-turn, with a memory write --

LANDLORD_NEWS = (
    "the rent goes up to {x} from next month",
    "the boiler was fixed",
    "the building gets new windows",
    "the parking spot is now number {n}",
)


@family("memory", None, **sr("multi", "db", "add"))
def add_fact_then_text_helper(g: Gen) -> Draft:
    m = Mem(g)
    c = helper(g)
    role = g.pick(
        (
            "landlord",
            "babysitter",
            "dog walker",
            "cleaner",
            "piano teacher",
            "personal trainer",
            "carpool buddy",
            "building manager",
        )
    )
    mid = m.add("relationship", f"My {role} is {c['name']}", [role, c["name"]], old(g))
    fact = g.pick(
        (
            "my new work phone is {p}",
            "my second bedroom is now a home office",
            "we got a cat named {nm}",
            "the spare key is with neighbour {nm}",
            "my new car plate is {pl}",
        )
    )
    fact = fact.format(p=f"+1 555 {g.rng.randint(1000, 9999)}", nm=person(g), pl=f"K{g.rng.randint(100, 999)}X")
    key = fact.split()[-1]
    history = hist(f"FYI, {fact}.", "Good to know.")
    body = g.pick(
        (
            "I'll be away next week",
            "please call me tomorrow",
            "thanks for everything this month",
            "can we reschedule to Thursday?",
            "I left the payment in the mailbox",
        )
    )
    query = g.say(
        "remember that, and text my {role}: {body}",
        "save that in your memory; also message my {role}: {body}",
        "keep that in memory please. then send my {role} a text saying {body}",
        role=role,
        body=body,
    )
    return Draft(
        query,
        [
            act("add_memory", content=fact[0].upper() + fact[1:], category="profile"),
            m.search(role, mid),
            act("search_contacts", name=c["name"]),
            act("send_sms", to=[c["contact_id"]], body=body),
            done("Done."),
        ],
        "state_change",
        {
            "insert": {
                **add_check(key),
                "messages": [
                    {"contact_id": c["contact_id"], "body": {"$contains": max(body.strip("?!").split(), key=len)}}
                ],
            }
        },
        patches=m.patches(),
        history=history,
        memory_ids=[mid],
        l2="3.2",
    )


@family("memory", None, **sr("multi", "db", "add"))
def add_class_then_calendar(g: Gen) -> Draft:
    m = Mem(g)
    a = g.pick(ACTIVITIES)
    place = g.pick(
        (
            "Riverside Studio",
            "Northside Centre",
            "Harbour Hall",
            "Elm Street Gym",
            "Lakeside Club",
            "Oak Park Pavilion",
            "Sunrise Studio",
            "City Arts Centre",
        )
    )
    dur = g.pick((45, 60, 75, 90))
    mid = m.add("routine", f"{a.capitalize()} takes place at {place} and lasts {dur} minutes", [a, place], old(g))
    day = g.rng.randint(2, 9)
    time = hhmm(g.rng.choice((7, 8, 12, 17, 18, 19, 20)), g.pick((0, 30)))
    start = free_start(g, day, time, dur)
    history = hist(
        g.say(
            "I signed up for an extra {a} on {wd}s at {t}.",
            "There's an additional {a} I'm joining: {wd}s, {t}.",
            a=a,
            wd=DAY_NAME[g.weekday(day)[:3]],
            t=time,
        ),
        "Great, enjoy it!",
    )
    query = g.say(
        "remember that, and put the one on {date} in my calendar",
        "add it to your memory and to my calendar for {date}",
        "note that in memory and create the calendar entry for {date}",
        date=g.date(day),
    )
    return Draft(
        query,
        [
            act(
                "add_memory",
                content=f"Extra {a} on {DAY_NAME[g.weekday(day)[:3]]}s at {time}",
                category="routine",
                entities=[a],
            ),
            m.search(a, mid),
            act("create_calendar_event", title=a.capitalize(), start=start, end=dt_plus(start, dur), location=place),
            done("Added."),
        ],
        "state_change",
        {
            "insert": {
                **add_check(a.split()[0], time),
                "calendar_events": [
                    {
                        "title": {"$contains": a.split()[0]},
                        "start": start,
                        "end": dt_plus(start, dur),
                        "location": {"$contains": place.split()[0]},
                    }
                ],
            }
        },
        patches=m.patches(),
        history=history,
        memory_ids=[mid],
        l2="1.2",
    )


@family("memory", None, **sr("multi", "db", "replace"))
def replace_lesson_time_then_calendar(g: Gen) -> Draft:
    m = Mem(g)
    a = g.pick(ACTIVITIES)
    place = g.pick(
        (
            "Riverside Courts",
            "Northside Centre",
            "Harbour Hall",
            "Lakeside Club",
            "West End Studio",
            "Maple Community Centre",
        )
    )
    dur = g.pick((45, 60, 90))
    # never today's weekday: "the next one" would be tonight or a week away
    oldday, newday = g.rng.sample([d for d in DAYS[:6] if d != g.weekday(0)[:3]], 2)
    oldt, newt = hhmm(g.rng.randint(16, 18), 0), hhmm(g.rng.randint(17, 20), 30)
    mid = m.add(
        "routine", f"{a.capitalize()} on {DAY_NAME[oldday]}s at {oldt}, at {place}, {dur} minutes", [a, place], old(g)
    )
    d = days_until(g, newday, 1)
    start = free_start(g, d, newt, dur)
    history = hist(f"Heads up: my {a} moved to {DAY_NAME[newday]}s at {newt}.", "Thanks, noted for now.")
    query = g.say(
        "update your memory with that, and put the next one on my calendar",
        "replace the old schedule in memory and add the next session to my calendar",
        "fix what you remember about it and add the upcoming one to my calendar",
    )
    new = f"{a.capitalize()} on {DAY_NAME[newday]}s at {newt}, at {place}, {dur} minutes"
    ins, upd = replace_check(g, mid, DAY_NAME[newday], newt)
    return Draft(
        query,
        [
            m.search(a, mid),
            act("replace_memory", memory_id=mid, new_content=new),
            act("create_calendar_event", title=a.capitalize(), start=start, end=dt_plus(start, dur), location=place),
            done("Updated and added."),
        ],
        "state_change",
        {
            "insert": {
                **ins,
                "calendar_events": [{"title": {"$contains": a.split()[0]}, "start": start, "end": dt_plus(start, dur)}],
            },
            "update": upd,
        },
        patches=m.patches(),
        history=history,
        memory_ids=[mid],
        l2="1.2",
    )


@family("memory", None, **sr("multi", "db", "delete"))
def forget_routine_and_event(g: Gen) -> Draft:
    m = Mem(g)
    a = g.pick(ACTIVITIES)
    day = g.rng.randint(1, 8)
    start = free_start(g, day, hhmm(g.rng.randint(17, 19), 0), 60)
    mid = m.add("routine", f"{a.capitalize()} every {DAY_NAME[g.weekday(day)[:3]]} at {start[11:]}", [a], old(g))
    m.add("routine", f"{g.pick([x for x in ACTIVITIES if x != a]).capitalize()} on Sundays", ["routine"], old(g))
    eid = "event_901"
    ev = {
        "event_id": eid,
        "title": a.capitalize(),
        "start": start,
        "end": dt_plus(start, 60),
        "location": None,
        "description": None,
        "calendar": "personal",
        "reminder_min": None,
        "status": "confirmed",
        "is_organizer": 1,
        "organizer": None,
        "my_response": None,
        "created_at": g.date(-3),
        "updated_at": g.date(-3),
    }
    history = hist(
        g.say("I quit {a}, it wasn't for me.", "No more {a} for me, I stopped going.", a=a),
        "Sorry to hear that. Anything to clean up?",
    )
    query = g.say(
        "yes: forget that routine, and delete the next session from my calendar",
        "drop it from your memory and remove the upcoming one from my calendar",
        "forget about it and take the next one off my calendar",
    )
    return Draft(
        query,
        [
            m.search(a, mid),
            act("delete_memory", memory_id=mid),
            act("search_calendar_events", query=a.split()[0]),
            act("delete_calendar_event", event_id=eid),
            done("Done."),
        ],
        "state_change",
        {
            "update": {
                **delete_check(mid),
                "calendar_events": [{"match": {"event_id": eid}, "set": {"status": "cancelled"}}],
            }
        },
        patches=m.patches({"insert": {"calendar_events": [ev]}}),
        history=history,
        memory_ids=[mid],
        l2="1.2",
    )
