"""Memory families of conflicting records: the gold settles which record holds by recency, specificity,
the source's authority, or by asking the user.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import history as hist
from sandbox.generator.families._common import opened, origin_names, peek
from sandbox.generator.families.memory.helpers import (
    ACTIVITIES,
    CITIES,
    CUISINES,
    DAY_NAME,
    DAYS,
    GROUPS,
    NUMBER_WORDS,
    RELATIVES,
    RIDE_CHARGE,
    RIDE_IGNORE,
    TZ_CITIES,
    Mem,
    _f,
    add_check,
    ago,
    ask,
    away_city,
    brands_offered,
    cf,
    delete_check,
    dt_plus,
    first,
    forecast,
    free_start,
    from_home,
    hhmm,
    listed,
    local_time,
    may_retire,
    nice_time,
    old,
    person,
    plus,
    replace_check,
    retired,
    ride_ok,
    served,
    shifted,
    slot,
    weather_day,
)


def event_row(eid: str, title: str, start: str, minutes: int, g: Gen) -> dict[str, Any]:
    return {
        "event_id": eid,
        "title": title,
        "start": start,
        "end": dt_plus(start, minutes),
        "location": None,
        "description": None,
        "calendar": "personal",
        "reminder_min": None,
        "status": "confirmed",
        "is_organizer": 1,
        "organizer": None,
        "my_response": None,
        "created_at": g.date(-5),
        "updated_at": g.date(-5),
    }


def _recency_weather(g: Gen, multi: bool) -> Draft:
    m = Mem(g)
    rel = g.pick(RELATIVES)
    name = person(g, rel)
    a, b = g.rng.sample([c for c in CITIES if c != g.persona.home_city], 2)
    m.add("relationship", f"My {rel} {name} lives in {a}", [name, rel, "lives"], old(g))
    new = m.add(
        "relationship", f"My {rel} {name} now lives in {b} after moving for work", [name, rel, "lives"], ago(g, 20, 200)
    )
    d = weather_day(g)
    if multi:
        history = hist(
            g.say("I'm visiting my {rel} {when}.", "My {rel} invited me over {when}.", rel=rel, when=g.when(d)),
            "That sounds lovely!",
        )
        query, asks = ask(
            g,
            {
                "what will the weather be like where they live that day?": "any",
                "check the forecast for that day in their city": "any",
                "will I need an umbrella there that day?": "rain",
            },
        )
    else:
        history = []
        query, asks = ask(
            g,
            {
                "what's the weather {when} where my {rel} lives?": "any",
                "forecast for my {rel}'s city {when}, please": "any",
                "will it be cold {when} where my {rel} lives?": "cold",
            },
            rel=rel,
            when=g.when(d),
        )
    answer, facts = forecast(g, m.patches(), b, g.date(d), asks)
    return Draft(
        query,
        [m.search(f"{rel} {name} lives", new), act("get_weather", location=b, date=g.date(d)), done(answer)],
        "tool_call",
        {"calls": [{"tool": "get_weather", "args": {"location": b, "date": g.date(d)}}]},
        patches=m.patches(),
        history=history,
        memory_ids=[new],
        l2="12.1",
        answer=facts,
    )


@family("memory", None, **cf("single", "api", "recency"))
def recency_weather_relative_moved(g: Gen) -> Draft:
    return _recency_weather(g, False)


@family("memory", None, **cf("multi", "api", "recency"))
def recency_weather_relative_moved_multi(g: Gen) -> Draft:
    return _recency_weather(g, True)


@family("memory", None, **cf("multi", "api", "recency"))
def recency_world_time_relative(g: Gen) -> Draft:
    m = Mem(g)
    rel = g.pick(RELATIVES)
    name = person(g, rel)
    a, b = g.rng.sample(TZ_CITIES, 2)
    m.add("relationship", f"{name}, my {rel}, is based in {a}", [name, rel], old(g))
    new = m.add("relationship", f"{name}, my {rel}, relocated to {b}", [name, rel], ago(g, 10, 150))
    history = hist(
        g.say("I want to video call my {rel} {name} tonight.", "I owe my {rel} {name} a call.", rel=rel, name=name),
        "Sure, when would you like to call?",
    )
    query = g.say(
        "what time is it for them right now?",
        "first tell me the current local time where they are",
        "is it a reasonable hour there now? what's their time?",
    )
    answer, facts = local_time(g, m.patches(), b, query)
    return Draft(
        query,
        [m.search(f"{name} {rel}", new), act("get_world_time", location=b), done(answer)],
        "tool_call",
        {"calls": [{"tool": "get_world_time", "args": {"location": b}}]},
        patches=m.patches(),
        history=history,
        memory_ids=[new],
        l2="12.6",
        answer=facts,
    )


CONTEXTS = (
    "business lunches",
    "date nights",
    "dinners with the kids",
    "team dinners",
    "brunch with friends",
    "late-night meals",
    "my parents' visits",
    "birthday dinners",
)


@family("memory", None, **cf("single", "api", "specificity"))
def specificity_cuisine_for_occasion(g: Gen) -> Draft:
    m = Mem(g)
    spec_c = g.pick(served(g, g.persona.home_city))
    gen_c = g.pick([c for c in CUISINES if c != spec_c])
    ctx = g.pick(CONTEXTS)
    m.add("preference", f"Generally likes {gen_c} food when eating out", ["restaurants", "cuisine"], ago(g, 5, 60))
    spec = m.add("preference", f"For {ctx}, always picks {spec_c} restaurants", ["restaurants", "cuisine", ctx], old(g))
    query = g.say(
        "find a restaurant near home for {ctx} this week, the kind I go for",
        "search for a good spot near home for {ctx}, my usual cuisine for that",
        "I need a place near home for {ctx}; look up restaurants of the type I like for that",
        ctx=ctx,
    )
    answer, facts = listed(
        peek(g, "search_restaurants", m.patches(), cuisine=spec_c, near="home")["restaurants"],
        "name",
        f"{spec_c} restaurants near home",
    )
    return Draft(
        query,
        [
            m.search(f"restaurants cuisine {ctx}", spec),
            act("search_restaurants", cuisine=spec_c, near="home"),
            done(answer),
        ],
        "tool_call",
        {
            "calls": [
                {
                    "tool": "search_restaurants",
                    "args": {"cuisine": {"$contains": spec_c}, "near": origin_names(g, "home")},
                }
            ]
        },
        patches=m.patches(),
        memory_ids=[spec],
        l2="8.1",
        answer=facts,
    )


APPTS = (
    "dentist appointment",
    "eye exam",
    "haircut",
    "physio session",
    "car service",
    "vet visit",
    "tax advisor meeting",
    "passport appointment",
)


def _source_appointment(g: Gen) -> tuple[Mem, str, str, str, dict[str, Any]]:
    """A remembered appointment (mem_901, its stale date) and the calendar's event for it (the authority).
    No other upcoming event names the appointment within two weeks, so "my haircut" is that event."""
    m = Mem(g)
    appt = g.pick(APPTS)
    word = appt.split()[0].lower()
    if any(
        word in f"{e['title']} {e['description'] or ''}".lower()
        for e in g.rows("calendar_events")
        if g.date(0) <= e["start"][:10] <= g.date(16)
    ):
        raise BuildError(f"the calendar already has an upcoming {appt}")
    d1, d2 = g.rng.sample(range(2, 9), 2)
    t1, t2 = hhmm(g.rng.randint(9, 16), 0), hhmm(g.rng.randint(9, 16), 30)
    mid = m.add("commitment", f"{appt.capitalize()} booked for {g.date(d1)} at {t1}", [appt], ago(g, 10, 30))
    start = free_start(g, d2, t2, 60)
    return m, mid, appt, start, event_row("event_901", appt.capitalize(), start, 60, g)


def unlike_day(g: Gen, city: str, win: str, lose: str) -> list[dict[str, Any]]:
    """World patches that make ``lose``'s forecast differ from ``win``'s in every fact an answer states
    (condition, high and low in C and F, rain chance), so a forecast for the stale day cannot pass for the
    winning one. Empty where the forecasts already differ."""
    (w,), (l,) = (  # noqa: E741  (w, l: the winning and the losing day's forecast)
        [r for r in g.rows("world_weather", {"location_key": city, "date": d}) if r["hour"] is None]
        for d in (win, lose)
    )
    facts = (w["high_c"], _f(w["high_c"]), w["low_c"], _f(w["low_c"]), w["precip_pct"])

    def clear(*stated: float) -> bool:
        return all(abs(x - y) >= 2 for x in stated for y in facts)

    # "cloudy" is stated by "partly cloudy": the stale day's condition may not hold the winning one's word
    other_sky = w["condition"].replace("_", " ") not in l["condition"].replace("_", " ")
    if other_sky and clear(l["high_c"], l["low_c"], _f(l["high_c"]), _f(l["low_c"]), l["precip_pct"]):
        return []
    for shift in (6, -6, 9, -9, 12, -12):
        high, low = round(l["high_c"] + shift, 1), round(l["low_c"] + shift, 1)
        wet = w["condition"] not in ("rain", "thunderstorm")
        condition, rain = ("rain", 80 + shift % 7) if wet else ("sunny", 5 + shift % 7)
        if clear(high, low, _f(high), _f(low), rain):
            return [
                {
                    "match": {"weather_id": l["weather_id"]},
                    "set": {
                        "condition": condition,
                        "high_c": high,
                        "low_c": low,
                        "precip_pct": rain,
                        "temp_c": round(l["temp_c"] + shift, 1),
                    },
                }
            ]
    raise BuildError("no distinct forecast for the stale day")


def _source_weather(g: Gen, multi: bool) -> Draft:
    m, mid, appt, start, ev = _source_appointment(g)
    city = g.persona.home_city
    if multi:
        history = hist(
            g.say(
                "My {a} got moved around a bit, I think.",
                "I keep forgetting when my {a} is.",
                "The clinic called about my {a} again.",
                "I'm not sure my {a} is still when I thought.",
                a=appt,
            ),
            "Okay. Your calendar should have the latest time.",
        )
        query, asks = ask(
            g,
            {
                "what's the weather at home going to be that day?": "any",
                "check the weather at home for the day of it": "any",
                "will I need an umbrella at home that day?": "rain",
                "how cold will it be at home on that day?": "cold",
            },
        )
    else:
        history = []
        query, asks = ask(
            g,
            {
                "what's the weather at home on the day of my {a}?": "any",
                "forecast at home for my {a} day, please": "any",
                "will it rain at home the day of my {a}?": "rain",
            },
            a=appt,
        )
    stale = m.rows[0]["content"].split(" booked for ")[1][:10]
    patches = m.patches(
        {"insert": {"calendar_events": [ev]}, "update": {"world_weather": unlike_day(g, city, start[:10], stale)}}
    )
    answer, facts = forecast(g, patches, city, start[:10], asks, name_city=False, name_date=True)
    verdict = next((v for v in ("Yes", "No") if answer.startswith(f"{v}. ")), None)  # a yes/no answer opens with it
    return Draft(
        query,
        [
            m.search(appt, mid),
            act("search_calendar_events", query=appt.split()[0]),
            act("get_weather", location=city, date=start[:10]),
            done(opened(verdict, f"Your {appt} is on {start[:10]}. {answer.removeprefix(f'{verdict}. ')}")),
        ],
        "tool_call",
        {"calls": [{"tool": "get_weather", "args": {"location": {"$any": [city, "home"]}, "date": start[:10]}}]},
        patches=patches,
        history=history,
        memory_ids=[mid],
        l2="12.1",
        answer=facts,
    )


@family("memory", None, **cf("single", "api", "source_authority"))
def source_weather_on_appointment_day(g: Gen) -> Draft:
    return _source_weather(g, False)


@family("memory", None, **cf("multi", "api", "source_authority"))
def source_weather_on_appointment_day_multi(g: Gen) -> Draft:
    return _source_weather(g, True)


@family("memory", None, **cf("single", "db", "source_authority"))
def source_reminder_before_appointment(g: Gen) -> Draft:
    m, mid, appt, start, ev = _source_appointment(g)
    lead = g.pick((30, 60, 90, 120))
    at = dt_plus(start, -lead)
    query = g.say(
        "remind me {lead} minutes before my {a}",
        "set a reminder {lead} minutes ahead of my {a}",
        "I want a reminder {lead} minutes before the {a}",
        lead=lead,
        a=appt,
    )
    return Draft(
        query,
        [
            m.search(appt, mid),
            act("search_calendar_events", query=appt.split()[0]),
            act("create_reminder", text=appt.capitalize(), remind_at=at),
            done(f"Reminder at {at}."),
        ],
        "state_change",
        {"insert": {"tasks": [{"title": {"$contains": appt.split()[0]}, "remind_at": at}]}, **may_retire(mid)},
        patches=m.patches({"insert": {"calendar_events": [ev]}}),
        memory_ids=[mid],
        l2="1.3",
    )


@family("memory", None, **cf("multi", "db", "source_authority", "add"))
def source_reminder_before_appointment_add(g: Gen) -> Draft:
    m, mid, appt, start, ev = _source_appointment(g)
    bring = g.pick(("my insurance card", "the old X-rays", "my ID", "the paperwork", "the spare key", "the receipts"))
    history = hist(f"They told me to bring {bring} to my {appt}.", "Good to know.")
    at = dt_plus(start, -60)
    query = g.say(
        "remember that, and set a reminder an hour before it", "save that to memory and remind me an hour before"
    )
    return Draft(
        query,
        [
            act("add_memory", content=f"Bring {bring} to the {appt}", category="commitment"),
            m.search(appt, mid),
            act("search_calendar_events", query=appt.split()[0]),
            act("create_reminder", text=f"{appt.capitalize()}: bring {bring}", remind_at=at),
            done("Done."),
        ],
        "state_change",
        {
            "insert": {
                **add_check(bring.split()[-1]),
                "tasks": [{"title": {"$contains": appt.split()[0]}, "remind_at": at}],
            },
            **may_retire(mid),
        },
        patches=m.patches({"insert": {"calendar_events": [ev]}}),
        history=history,
        memory_ids=[mid],
        l2="1.3",
    )


def _sms_body(g: Gen) -> str:
    return g.pick(
        (
            "running 10 minutes late",
            "see you at the usual place",
            "can we move to tomorrow?",
            "I booked the court",
            "bring the rackets please",
            "practice is cancelled today",
            "happy birthday!",
            "thanks for yesterday",
        )
    )


@family("memory", None, **cf("single", "db", "ask_user"))
def ask_which_partner_to_text(g: Gen) -> Draft:
    m = Mem(g)
    role = g.pick(
        (
            "tennis partner",
            "running buddy",
            "study partner",
            "squash partner",
            "gym buddy",
            "chess partner",
            "climbing partner",
            "language exchange partner",
        )
    )
    c1, c2 = g.some(
        "contacts",
        2,
        filter=lambda r: r["relationship"] in (None, "friend", "neighbor", "classmate") and r["name"].split()[0] != "",
    )
    if first(c1) == first(c2):
        raise BuildError("same first names")
    vf = ago(g, 30, 200)
    a = m.add("relationship", f"My {role} is {c1['name']}", [role, c1["name"]], vf)
    b = m.add("relationship", f"{c2['name']} is my {role}", [role, c2["name"]], vf)
    body = _sms_body(g)
    query = g.say(
        "text my {role}: {body}",
        "send my {role} a message saying {body}",
        "tell my {role} by SMS: {body}",
        role=role,
        body=body,
    )
    q = f"Your memory lists two {role}s, {c1['name']} and {c2['name']}. Which one should I text?"
    return Draft(
        query,
        [
            m.search(role, a, b),
            act("ask_user", question=q, kind="choose", options=[c1["name"], c2["name"]]),
            act("search_contacts", name=c2["name"]),
            act("send_sms", to=[c2["contact_id"]], body=body),
            done(f"Texted {first(c2)}."),
        ],
        "agent_behavior",
        {
            "follow_up": {"tool": "ask_user"},
            "state": {
                "insert": {
                    "messages": [{"contact_id": c2["contact_id"], "body": {"$contains": body.split()[-1].strip("?!")}}]
                }
            },
        },
        script=[{"answer": f"{c2['name']}.", "keywords": ["which", "who", role.split()[0], first(c1).lower()]}],
        patches=m.patches(),
        memory_ids=[a, b],
        l2="3.2",
    )


@family("memory", None, **cf("single", "db", "recency"))
def recency_alarm_for_practice(g: Gen) -> Draft:
    m = Mem(g)
    a = g.pick(ACTIVITIES)
    t_old, t_new = g.rng.sample([hhmm(h, mm) for h in (5, 6, 7) for mm in (0, 15, 30, 45)], 2)
    stale = m.add("routine", f"Gets up at {t_old} on days with {a}", [a, "gets up"], old(g))
    new = m.add("routine", f"Since the new season, gets up at {t_new} on days with {a}", [a, "gets up"], ago(g, 5, 90))
    day = g.pick(DAYS)
    # a phone alarm repeats on weekdays (no date): the user asks for a weekly one
    query = g.say(
        "set an alarm for every {wd} at the time I get up for {a} these days",
        "a weekly {wd} alarm for my {a} wake-up time, the current one",
        "wake me every {wd} when I normally get up for {a} now",
        wd=DAY_NAME[day],
        a=a,
    )
    return Draft(
        query,
        [
            m.search(f"gets up {a}", new),
            act("set_alarm", time=t_new, days=[day], label=a.capitalize()),
            done(f"Alarm at {t_new}."),
        ],
        "state_change",
        {"insert": {"alarms": [{"time": t_new, "days_json": {"$json": [day]}}]}, **may_retire(stale)},
        patches=m.patches(),
        memory_ids=[new],
        l2="1.3",
    )


@family("memory", None, **cf("single", "db", "specificity"))
def specificity_party_size_friday(g: Gen) -> Draft:
    m = Mem(g)
    n_spec = g.rng.randint(3, 6)
    m.add(
        "relationship",
        "Dinner reservations are usually for 2 people",
        ["dinner", "reservations", "people"],
        ago(g, 5, 60),
    )
    r, when = slot(g, n_spec)
    wd = DAY_NAME[g.weekday((dt.date.fromisoformat(when[:10]) - g.now.date()).days)[:3]]
    spec = m.add(
        "relationship",
        f"On {wd} dinners the whole family comes: {n_spec} people",
        ["dinner", "reservations", "people", wd],
        old(g),
    )
    day = (dt.date.fromisoformat(when[:10]) - g.now.date()).days
    query = g.say(
        "book {rest} for our {wd} family dinner, {when} at {t}, usual headcount for that",
        "reserve {rest} {when} at {t} for the {wd} dinner, as many people as usual",
        rest=r["name"],
        wd=wd,
        when=g.when(day),
        t=nice_time(when),
    )
    return Draft(
        query,
        [
            m.search(f"{wd} dinner people", spec),
            act("search_restaurants", query=r["name"]),
            act("make_restaurant_reservation", restaurant_id=r["restaurant_id"], datetime=when, party_size=n_spec),
            done("Booked."),
        ],
        "state_change",
        {
            "insert": {
                "restaurant_reservations": [
                    {"restaurant_id": r["restaurant_id"], "datetime": when, "party_size": n_spec}
                ]
            }
        },
        patches=m.patches(),
        memory_ids=[spec],
        l2="8.2",
    )


@family("memory", None, **cf("multi", "api", "specificity"))
def specificity_hotel_brand_with_kids(g: Gen) -> Draft:
    m = Mem(g)
    hotels = g.rows("world_hotels")
    city = g.pick(sorted({h["city"] for h in hotels if h["city"] != g.persona.home_city}))
    a, n = g.rng.randint(2, 10), g.rng.randint(2, 5)
    b2 = g.pick(brands_offered(g, city, g.date(a), g.date(a + n)))
    b1 = g.pick(sorted({h["brand"] for h in hotels if h["brand"] and h["brand"] != b2}))
    # the dog comes along only where b2's hotels take pets: the remembered habit must be one the world allows
    takes_pets = all(
        "pet_friendly" in json.loads(h["amenities_json"]) for h in hotels if h["city"] == city and h["brand"] == b2
    )
    who = g.pick(
        tuple(w for w in ("the kids", "my parents", "the dog", "my team", "my partner") if takes_pets or w != "the dog")
    )
    m.add("preference", f"Usually books {b1} hotels", ["hotels", "books"], ago(g, 5, 60))
    spec = m.add("preference", f"When travelling with {who}, books {b2} hotels", ["hotels", "books", who], old(g))
    answer, facts = listed(
        peek(g, "search_hotels", m.patches(), city=city, check_in=g.date(a), check_out=g.date(a + n), brand=b2)[
            "offers"
        ],
        "hotel_name",
        f"{b2} hotels in {city}",
    )
    history = hist(f"I'm taking {who} to {city} on {g.date(a)} for {n} nights.", "Fun! Want help with the hotel?")
    query = g.say(
        "yes, search hotels there of the brand I use for trips like this",
        "find hotels, the brand I pick when they come along",
        "look up my usual hotel chain for that kind of trip",
    )
    return Draft(
        query,
        [
            m.search(f"hotels {who}", spec),
            act("search_hotels", city=city, check_in=g.date(a), check_out=g.date(a + n), brand=b2),
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
                        "brand": {"$contains": b2},
                    },
                }
            ]
        },
        patches=m.patches(),
        history=history,
        memory_ids=[spec],
        l2="5.4",
        answer=facts,
    )


@family("memory", None, **cf("multi", "db", "ask_user", "delete"))
def ask_ride_type_then_forget_wrong(g: Gen) -> Draft:
    m = Mem(g)
    t1, t2 = g.rng.sample(("economy", "comfort", "premium", "xl"), 2)
    vf = ago(g, 30, 300)
    a = m.add("preference", f"Preferred ride type is {t1}", ["ride", "ride type"], vf)
    b = m.add("preference", f"Preferred ride type is {t2}", ["ride", "ride type"], vf)
    ride_ok(g)
    dest = g.one("world_places", {"city": g.persona.home_city})
    d, h = g.rng.randint(1, 5), g.rng.randint(7, 20)
    at = f"{g.date(d)}T{h:02d}:00"
    history = hist(
        f"I need to get to {dest['name']} ({dest['address']}) {g.when(d)} at {h:02d}:00.",
        "Would you like me to book a ride?",
    )
    query = g.say(
        "yes, book my preferred ride type from home, and fix your memory if it's unclear",
        "please book it from home, usual ride type; clean up your memory if needed",
        "book it from home with my usual ride type and correct your memory afterwards",
    )
    q = f"I have two preferred ride types saved, {t1} and {t2}. Which one is right?"
    return Draft(
        query,
        [
            m.search("preferred ride type", a, b),
            act("ask_user", question=q, kind="choose", options=[t1, t2]),
            act("delete_memory", memory_id=a),
            act("book_ride", pickup="home", dropoff=dest["address"], ride_type=t2, scheduled_at=at),
            done(f"Booked a {t2} ride."),
        ],
        "agent_behavior",
        {
            "follow_up": {"tool": "ask_user"},
            "state": {
                "update": delete_check(a),
                "insert": {
                    "rides": [
                        {
                            "ride_type": t2,
                            # the user named an arrival time: a pickup up to 90 minutes before it arrives in time
                            "scheduled_at": {"$dt_between": [shifted(at, minutes=-90), at]},
                            "pickup": from_home(g),
                            "dropoff": {"$contains": dest["address"]},
                        }
                    ],
                    "transactions": RIDE_CHARGE,
                },
                "ignore_tables": RIDE_IGNORE,
            },
        },
        script=[{"answer": f"{t2}, the {t1} one is outdated.", "keywords": ["which", "ride", t1, t2]}],
        patches=m.patches(),
        history=history,
        memory_ids=[a, b],
        l2="5.2",
    )


@family("memory", None, **cf("multi", "db", "ask_user", "replace"))
def ask_group_size_then_correct(g: Gen) -> Draft:
    m = Mem(g)
    grp = g.pick(GROUPS)
    n1, n2 = g.rng.sample(range(3, 7), 2)
    n3 = g.pick([x for x in range(3, 9) if x not in (n1, n2)])
    vf = ago(g, 30, 300)
    a = m.add("relationship", f"The {grp} has {n1} members", [grp, "members"], vf)
    b = m.add("relationship", f"The {grp} has {n2} members", [grp, "members"], vf)
    r, when = slot(g, n3)
    day = (dt.date.fromisoformat(when[:10]) - g.now.date()).days
    history = hist(
        f"The {grp} wants to meet at {r['name']} {g.when(day)} at {nice_time(when)}.", "Shall I reserve a table?"
    )
    query = g.say(
        "yes, for the whole {grp}; and sort out your memory on the size",
        "please book it for all of the {grp}, and fix what you remember about its size",
        grp=grp,
    )
    q = f"I have the {grp} saved as both {n1} and {n2} members. How many people should I book for?"
    ins = add_check({"$any": [str(n3), NUMBER_WORDS[n3]]})
    return Draft(
        query,
        [
            m.search(f"{grp} members", a, b),
            act("ask_user", question=q, slot="party_size"),
            act("replace_memory", memory_id=a, new_content=f"The {grp} has {n3} members"),
            act("delete_memory", memory_id=b),
            act("search_restaurants", query=r["name"]),
            act("make_restaurant_reservation", restaurant_id=r["restaurant_id"], datetime=when, party_size=n3),
            done(f"Booked for {n3}."),
        ],
        "agent_behavior",
        {
            "follow_up": {"tool": "ask_user"},
            "state": {
                "insert": {
                    **ins,
                    "restaurant_reservations": [
                        {"restaurant_id": r["restaurant_id"], "datetime": when, "party_size": n3}
                    ],
                },
                "update": {"memory_records": retired(g, a, b)},
            },
        },
        script=[
            {
                "answer": f"Neither, we're {n3} now.",
                "slot": "party_size",
                "keywords": ["how many", "members", "people", "size"],
            }
        ],
        patches=m.patches(),
        history=history,
        memory_ids=[a, b],
        l2="8.2",
    )


@family("memory", None, **cf("multi", "db", "recency", "replace"))
def recency_shift_then_alarm(g: Gen) -> Draft:
    m = Mem(g)
    a = g.pick(ACTIVITIES)
    times = g.rng.sample([hhmm(h, mm) for h in (5, 6, 7) for mm in (0, 30)], 2)
    m.add("routine", f"{a.capitalize()} starts at {times[0]}", [a, "starts"], old(g))
    new = m.add("routine", f"{a.capitalize()} now starts at {times[1]}", [a, "starts"], ago(g, 5, 90))
    shift = g.pick((15, 30, 45))
    later = plus(times[1], shift)
    day = g.pick(DAYS)
    history = hist(f"From this week {a} starts {shift} minutes later than it does now.", "Got it.")
    query = g.say(
        "update that in your memory and set an alarm every {wd} at the new start time",
        "replace what you have about it, then add a weekly {wd} alarm for when it starts",
        "fix your memory and set me an alarm for the new start, repeating every {wd}",
        wd=DAY_NAME[day],
    )
    ins, upd = replace_check(g, new, later)
    return Draft(
        query,
        [
            m.search(f"{a} starts", new),
            act("replace_memory", memory_id=new, new_content=f"{a.capitalize()} now starts at {later}"),
            act("set_alarm", time=later, days=[day], label=a.capitalize()),
            done(f"Alarm at {later}."),
        ],
        "state_change",
        {"insert": {**ins, "alarms": [{"time": later, "days_json": {"$json": [day]}}]}, "update": upd},
        patches=m.patches(),
        history=history,
        memory_ids=[new],
        l2="1.3",
    )


@family("memory", None, **cf("multi", "db", "specificity", "add"))
def specificity_airport_ride_add(g: Gen) -> Draft:
    m = Mem(g)
    t_gen, t_spec = g.rng.sample(("economy", "comfort", "premium"), 1)[0], "xl"
    m.add("preference", f"Books {t_gen} rides", ["ride", "books"], ago(g, 5, 60))
    spec = m.add(
        "preference", "Books xl rides for airport trips because of the luggage", ["ride", "books", "airport"], old(g)
    )
    ride_ok(g)
    port = g.one("world_places", {"city": g.persona.home_city}, filter=lambda r: "Airport" in r["name"])
    dest = away_city(g)
    d, h = g.rng.randint(1, 6), g.rng.randint(5, 11)
    at = f"{g.date(d)}T{h:02d}:00"
    history = hist(
        f"I'm flying to {dest} {g.when(d)} from {port['name']} ({port['address']}); I need to leave home "
        f"at {h:02d}:00.",
        "Safe travels!",
    )
    query = g.say(
        "remember the trip, and book me the ride I use for airport runs",
        "save that trip to memory and get me my usual airport ride",
    )
    return Draft(
        query,
        [
            act("add_memory", content=f"Trip to {dest} on {g.date(d)}", category="commitment"),
            m.search("ride airport", spec),
            act("book_ride", pickup="home", dropoff=port["address"], ride_type=t_spec, scheduled_at=at),
            done("Booked an XL ride."),
        ],
        "state_change",
        {
            "insert": {
                **add_check(dest),
                "rides": [
                    {
                        "ride_type": t_spec,
                        "scheduled_at": at,
                        "pickup": from_home(g),
                        "dropoff": {"$contains": port["address"]},
                    }
                ],
                "transactions": RIDE_CHARGE,
            },
            "ignore_tables": RIDE_IGNORE,
        },
        patches=m.patches(),
        history=history,
        memory_ids=[spec],
        l2="5.2",
    )
