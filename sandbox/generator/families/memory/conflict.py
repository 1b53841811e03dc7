"""Memory Usage families: the gold recalls facts with search_memory and uses them in a domain call.

Every draft inserts its own records (ids mem_901...) through patches, with distractors, and checks that
the gold's search really returns the required ids (the BM25 of ``sandbox.memory`` on the patched world).
Tags: memory_type, turn, primary, write, conflict_rule (see PLAN at the bottom for the counts).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Literal

from sandbox.domains.travel.schema import CITY_AIRPORT
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import history as hist
from sandbox.generator.families._common import origin_names, peek
from sandbox.memory import bm25_rank

CATEGORY = "memory"

FEMALE = ("Anna", "Clara", "Elif", "Farah", "Ines", "Kira", "Mina", "Olga", "Rosa", "Tess", "Vera", "Yara", "Zoe")
MALE = ("Ben", "Diego", "Gus", "Hiro", "Jonah", "Leo", "Nico", "Pablo", "Umar", "Wes")
FIRST = tuple(sorted(FEMALE + MALE + ("Quinn", "Sami")))
# a gendered role takes a name of that gender ("my son Anna" reads as a generator slip)
GENDERED = {
    **dict.fromkeys(("sister", "daughter", "grandmother", "aunt", "niece", "godmother"), FEMALE),
    **dict.fromkeys(("brother", "son", "uncle", "nephew", "godson", "grandfather"), MALE),
}
RELATIVES = (
    "sister",
    "brother",
    "daughter",
    "son",
    "best friend",
    "cousin",
    "grandmother",
    "uncle",
    "aunt",
    "niece",
    "nephew",
    "godmother",
)
CITIES = (
    "Beijing",
    "Berlin",
    "London",
    "Madrid",
    "Mumbai",
    "Palo Alto",
    "San Francisco",
    "Seoul",
    "Shanghai",
    "Sydney",
    "Tokyo",
    "Toronto",
)
TZ_CITIES = (
    "Amsterdam",
    "Athens",
    "Auckland",
    "Bangkok",
    "Chicago",
    "Denver",
    "Dubai",
    "Dublin",
    "Hong Kong",
    "Honolulu",
    "Istanbul",
    "Johannesburg",
    "Los Angeles",
    "Mexico City",
    "Nairobi",
    "New York",
    "Paris",
    "Rome",
    "Seattle",
    "Singapore",
    "Taipei",
    "Vancouver",
    "Zurich",
    "Melbourne",
)
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DAY_NAME = dict(zip(DAYS, ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")))


# ---- helpers ----------------------------------------------------------------------------------------------------


class Mem:
    """The records a draft inserts, and searches proven to return the required ones."""

    def __init__(self, g: Gen) -> None:
        self.g = g
        self.rows: list[dict[str, Any]] = []

    def add(self, category: str, content: str, entities: list[str], valid_from: str, status: str = "active") -> str:
        mid = f"mem_{901 + len(self.rows)}"
        self.rows.append(
            {
                "memory_id": mid,
                "category": category,
                "content": content,
                "entities_json": json.dumps(entities),
                "source": "user_stated",
                "valid_from": valid_from,
                "valid_to": None,
                "status": status,
                "superseded_by": None,
                "created_at": valid_from,
                "updated_at": valid_from,
            }
        )
        return mid

    def search(self, query: str, *ids: str, top_k: int = 5) -> dict[str, Any]:
        recs = [r for r in self.g.rows("memory_records") + self.rows if r["status"] == "active"]
        docs = [
            (r["memory_id"], r["content"] + " " + " ".join(json.loads(r["entities_json"])), r["valid_from"])
            for r in recs
        ]
        hits = [d for d, _ in bm25_rank(query, docs)[:top_k]]
        missing = [i for i in ids if i not in hits]
        if missing:
            raise BuildError(f"search_memory({query!r}) misses {missing}; top: {hits}")
        return act("search_memory", query=query) if top_k == 5 else act("search_memory", query=query, top_k=top_k)

    def patches(self, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {k: dict(v) for k, v in (extra or {}).items()}
        out.setdefault("insert", {})["memory_records"] = self.rows
        return out


def shifted(at: str, *, minutes: int) -> str:
    """A YYYY-MM-DDTHH:MM moved by ``minutes``."""
    return (dt.datetime.fromisoformat(at) + dt.timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M")


def ago(g: Gen, lo: int, hi: int) -> str:
    return g.date(-g.rng.randint(lo, hi))


def old(g: Gen) -> str:
    return f"{g.rng.choice((2022, 2023))}-{g.rng.randint(1, 12):02d}-{g.rng.randint(1, 28):02d}"


def person(g: Gen, role: str = "") -> str:
    """A first name that fits ``role`` (a brother gets a man's name)."""
    return g.pick(GENDERED.get(role, FIRST))


def days_until(g: Gen, day: str, min_days: int = 1) -> int:
    """Days from today to the next ``day`` (mon..sun), at least ``min_days``."""
    d = min_days
    while g.weekday(d)[:3] != day:
        d += 1
    return d


def hhmm(h: int, m: int) -> str:
    return f"{h:02d}:{m:02d}"


def plus(time: str, minutes: int) -> str:
    t = dt.datetime.strptime(time, "%H:%M") + dt.timedelta(minutes=minutes)
    return t.strftime("%H:%M")


def dt_plus(stamp: str, minutes: int) -> str:
    return (dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M") + dt.timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M")


def away_city(g: Gen) -> str:
    return g.pick([c for c in CITIES if c not in (g.persona.home_city, g.persona.work_city)])


def contact(g: Gen) -> dict[str, Any]:
    return g.one(
        "contacts",
        filter=lambda r: r["relationship"] in (None, "friend", "neighbor", "classmate") and bool(r["phone_number"]),
    )


def helper(g: Gen) -> dict[str, Any]:
    """A contact to bind to a household role (cleaner, landlord, trainer): one the address book tags with no
    relationship, so it does not contradict the memory (a "classmate" as the cleaner)."""
    return g.one("contacts", filter=lambda r: r["relationship"] is None and bool(r["phone_number"]))


def first(c: dict[str, Any]) -> str:
    return c["name"].split()[0]


def slot(g: Gen, party: int, day: int | None = None, lo: int = 1, hi: int = 9) -> tuple[dict[str, Any], str]:
    """A bookable restaurant and one of its free table times ``lo``..``hi`` days ahead (or on ``day``)."""
    rests = {
        r["restaurant_id"]: r for r in g.rows("world_restaurants") if r["online_booking"] and r["max_party"] >= party
    }
    dates = {g.date(day)} if day is not None else {g.date(d) for d in range(lo, hi + 1)}
    free = [
        s
        for s in g.rows("world_table_slots")
        if s["restaurant_id"] in rests
        and s["capacity_left"] >= party
        and s["slot_dt"][:10] in dates
        and s["slot_dt"][11:] >= "17:00"
    ]
    booked = {r["restaurant_id"] + r["datetime"][:10] for r in g.rows("restaurant_reservations")}
    free = [s for s in free if s["restaurant_id"] + s["slot_dt"][:10] not in booked]
    if not free:
        raise BuildError("no free dinner table")
    s = g.rng.choice(free)
    return rests[s["restaurant_id"]], s["slot_dt"]


def nice_time(stamp: str) -> str:
    h, m = int(stamp[11:13]), stamp[14:16]
    return f"{h - 12 if h > 12 else h}{':' + m if m != '00' else ''}{'pm' if h >= 12 else 'am'}"


NUMBER_WORDS = dict(enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")))


def add_check(*words: Any) -> dict[str, Any]:
    return {"memory_records": [{"content": {"$contains_all": list(words)}, "status": "active"}]}


def replace_check(g: Gen, old_id: str, *words: str) -> tuple[dict[str, Any], dict[str, Any]]:
    return (
        {"memory_records": [{"content": {"$contains_all": list(words)}, "status": "active"}]},
        {
            "memory_records": [
                {
                    "match": {"memory_id": old_id},
                    "set": {"status": "superseded", "superseded_by": {"$regex": "^mem_"}, "valid_to": g.date(0)},
                }
            ]
        },
    )


def delete_check(mid: str) -> dict[str, Any]:
    return {"memory_records": [{"match": {"memory_id": mid}, "set": {"status": "deleted"}}]}


def retired(g: Gen, *ids: str) -> list[dict[str, Any]]:
    """Each record gone, either way: replaced (superseded, pointing at its successor) or deleted. Two
    symmetric conflicting records may be retired in any roles (replace one, delete the other, or delete
    both and add the corrected fact); the insert check asks for the single active corrected record."""
    return [
        {
            "match": {"memory_id": mid},
            "set": {
                "status": {"$any": ["superseded", "deleted"]},
                "superseded_by": {"$any": [None, {"$regex": "^mem_"}]},
                "valid_to": {"$any": [None, g.date(0)]},
            },
        }
        for mid in ids
    ]


def may_retire(stale: str) -> dict[str, Any]:
    """Check parts for a conflict task whose winner proves ``stale`` outdated: correcting it (replace_memory
    or delete_memory) is housekeeping, not collateral, so memory_records changes are tolerated, except
    that no other record may be retired. The check's own memory expectations still hold."""
    return {
        "ignore_tables": ["memory_records"],
        "forbid": {
            "memory_records": [
                {"memory_id": {"$regex": f"^(?!{stale}$)"}, "status": {"$any": ["superseded", "deleted"]}}
            ]
        },
    }


def merge(*parts: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in parts:
        for kind, tables in p.items():
            for table, rows in tables.items():
                out.setdefault(kind, {}).setdefault(table, []).extend(rows)
    return out


def sr(turn: str, primary: str, write: str = "none", **extra: str) -> dict[str, str]:
    return {"memory_type": "single_record", "turn": turn, "primary": primary, "write": write, **extra}


def cf(turn: str, primary: str, rule: str, write: str = "none") -> dict[str, str]:
    return {"memory_type": "conflict", "turn": turn, "primary": primary, "write": write, "conflict_rule": rule}


def co(turn: str, primary: str, write: str = "none") -> dict[str, str]:
    return {"memory_type": "composition", "turn": turn, "primary": primary, "write": write}


# A booked ride charges the default card: the charge is expected, the card's balance is its bookkeeping.
RIDE_IGNORE = ["payment_methods"]
RIDE_CHARGE = [{"merchant": "RideNow", "category": "transport"}]


def from_home(g: Gen) -> dict[str, Any]:
    """A booked ride's pickup when the user said "from home": the saved Home address."""
    return {"$contains": g.rows("saved_places", {"label": "Home"})[0]["address"]}


def ride_ok(g: Gen) -> None:
    if any(r["app_id"] == "ride" and r["state"] != "granted" for r in g.rows("app_permissions")):
        raise BuildError("the ride app lacks a permission")


def weather_day(g: Gen) -> int:
    return g.rng.randint(1, 7)


# -- what the gold's reads return, so its finish answer states the facts the user asked for --


def _num(value: float) -> dict[str, Any]:
    """A number as stated: "22°C" and "22.3" both state 22.3 (the text's own rounding), "22.2" does not."""
    return {"$number": value}


def _on(g: Gen, iso: str) -> dict[str, Any]:
    """A date as a person may state it: the date, or its weekday when it falls in the coming week."""
    days = (dt.date.fromisoformat(iso) - g.now.date()).days
    if not 0 <= days <= 6:
        return {"$date": iso}
    return {
        "$any": [
            {"$date": iso},
            {"$name": dt.date.fromisoformat(iso).strftime("%A")},
            *([{"$name": ("today", "tomorrow")[days]}] if days < 2 else []),
        ]
    }


# what a weather question asks of the day's forecast
Asks = Literal["any", "warm", "cold", "rain"]


def ask(g: Gen, templates: dict[str, Asks], **fields: Any) -> tuple[str, Asks]:
    """``g.say`` over the templates (the same draw), and what the chosen one asks of the forecast."""
    template = g.rng.choice(list(templates))
    text = template.format(**fields)
    return text[:1].upper() + text[1:], templates[template]


def forecast(
    g: Gen,
    patches: dict[str, Any],
    location: str,
    date: str,
    asks: Asks,
    *,
    name_city: bool = True,
    name_date: bool = False,
) -> tuple[str, list[Any]]:
    """The gold's answer for one day's forecast, and its facts: what the user asked ("how warm": the high in C
    or F, never the rain chance; "how cold": the high or the low; "will it rain": the rain chance or the
    condition; a general forecast any of the high and the rain chance), the city where the user did not name
    it, the day where it came from elsewhere."""
    payload = peek(g, "get_weather", patches, location=location, date=date)
    day, city = payload["days"][0], payload["location"]
    text = (
        f"On {day['date']} in {city}: {day['condition'].replace('_', ' ')}, "
        f"high {day['high_c']}°C, low {day['low_c']}°C, {day['precip_pct']}% chance of rain."
    )
    high = [_num(day["high_c"]), _num(_f(day["high_c"]))]
    stated = {
        "any": [*high, _num(day["precip_pct"])],
        "warm": high,
        "cold": [*high, _num(day["low_c"]), _num(_f(day["low_c"]))],
        "rain": [_num(day["precip_pct"]), rain_word(day["condition"])],
    }[asks]
    facts: list[Any] = [{"$any": stated}]
    if name_city:
        facts.append({"$name": city})
    if name_date:
        facts.append(_on(g, day["date"]))
    return text, facts


def rain_word(condition: str) -> dict[str, Any]:
    """The day's condition as an answer to "will it rain?" ("sunny", "thunderstorms"), where the answer
    states no percentage (one it states is the rain chance, checked as a number: "sunny, 95% chance of
    rain" is wrong); rain only where nothing negates it or makes it a chance ("no rain" is not rain)."""
    words = {
        "partly_cloudy": r"partly\W+cloudy",
        "cloudy": r"(?<!partly )cloudy",
        "rain": r"(?:rain|raining|rainy|showers)\b",
    }.get(condition, condition)
    guard = (
        r"(?!.*\b(?:no|not|n't|unlikely|dry|chance|probability|likelihood|odds|sunny|clear|cloudy)\b)"
        if condition == "rain"
        else ""
    )
    return {"$regex": rf"^(?!.*(?:\d\s*%|\bper\s?cent\b)){guard}.*\b{words}"}


def local_time(g: Gen, patches: dict[str, Any], location: str) -> tuple[str, list[Any]]:
    payload = peek(g, "get_world_time", patches, location=location)
    clock = payload["local_time"][11:]
    return (
        f"It is {clock} ({payload['weekday']}) in {payload['location']} now.",
        [{"$time": clock}, {"$name": payload["location"]}],
    )


def listed(records: list[dict[str, Any]], key: str, noun: str, top: int = 3) -> tuple[str, list[Any]]:
    """An answer naming the first results (any one of them named passes), or saying there are none."""
    if not records:
        return f"I found no {noun}.", [{"$none": True}]
    names = list(dict.fromkeys(r[key] for r in records))
    return f"Top {noun}: {', '.join(names[:top])}.", [{"$any": [{"$name": n} for n in names]}]


def airport(code: str) -> dict[str, Any]:
    """An airport argument as search_flights takes it: the code or a city it serves."""
    return {"$any": [code, *(c for c, a in CITY_AIRPORT.items() if a == code)]}


def brands_offered(g: Gen, city: str, check_in: str, check_out: str) -> list[str]:
    """The hotel brands with a room in ``city`` for those nights (a preferred brand the search finds)."""
    offers = peek(g, "search_hotels", {}, city=city, check_in=check_in, check_out=check_out, limit=20)["offers"]
    found = sorted({o["brand"] for o in offers if o["brand"]})
    if not found:
        raise BuildError(f"no branded hotel has rooms in {city}")
    return found


def flight_offers(g: Gen, patches: dict[str, Any], **search: Any) -> tuple[str, list[Any]]:
    offers = peek(g, "search_flights", patches, **search)["offers"]
    if not offers:
        return "There are no flights that day.", [{"$none": True}]
    best = min(offers, key=lambda o: o["total_price"])
    leg = best["legs"][0]
    text = (
        f"{len(offers)} offer{'s' if len(offers) > 1 else ''}; "
        f"the cheapest is {leg['airline']} {leg['flight_number']}, departing "
        f"{leg['depart_at'][11:]}, for {best['total_price']} {best['currency']}."
    )
    return text, [
        {
            "$any": [
                *({"$name": o["legs"][0]["flight_number"]} for o in offers),
                *({"$amount": {"value": o["total_price"], "currency": o["currency"]}} for o in offers),
            ]
        }
    ]


# ==== single_record ==============================================================================================


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
    answer, facts = local_time(g, m.patches(), city)
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


CUISINES = (
    "Sichuan",
    "Italian",
    "Thai",
    "Mexican",
    "Japanese",
    "Korean",
    "Indian",
    "French",
    "Vietnamese",
    "Spanish",
    "Cantonese",
    "Middle Eastern",
)


def served(g: Gen, city: str, diet: str | None = None) -> list[str]:
    """The CUISINES some restaurant in ``city`` serves (catering for ``diet``): a remembered taste the search finds."""
    cities = {p["place_id"]: p["city"] for p in g.rows("world_places")}
    found = sorted(
        {
            r["cuisine"]
            for r in g.rows("world_restaurants")
            if cities.get(r["place_id"]) == city
            and r["cuisine"] in CUISINES
            and (diet is None or diet in json.loads(r["dietary_json"]))
        }
    )
    if not found:
        raise BuildError(f"no restaurant in {city} serves one of the cuisines")
    return found


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


ACTIVITIES = (
    "swim practice",
    "yoga class",
    "pottery class",
    "choir rehearsal",
    "spin class",
    "chess club",
    "climbing session",
    "Spanish lesson",
    "boxing class",
    "dance class",
    "running club",
    "piano lesson",
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


GROUPS = (
    "book club",
    "running crew",
    "board game group",
    "study group",
    "family dinner group",
    "poker night crew",
    "wine club",
    "hiking group",
    "volunteer team",
    "band",
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
    answer, facts = flight_offers(g, m.patches(), origin=home, destination=CITY_AIRPORT[dest], date=g.date(d))
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


def free_start(g: Gen, day: int, time: str, minutes: int) -> str:
    start = f"{g.date(day)}T{time}"
    end = dt_plus(start, minutes)
    for e in g.rows("calendar_events"):
        if e["start"] < end and e["end"] > start:
            raise BuildError("calendar clash")
    return start


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


# ==== conflict ===================================================================================================


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
    answer, facts = local_time(g, m.patches(), b)
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


def _f(celsius: float) -> float:
    return round(celsius * 9 / 5 + 32, 1)


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
    return Draft(
        query,
        [
            m.search(appt, mid),
            act("search_calendar_events", query=appt.split()[0]),
            act("get_weather", location=city, date=start[:10]),
            done(f"Your {appt} is on {start[:10]}. {answer}"),
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
    who = g.pick(("the kids", "my parents", "the dog", "my team", "my partner"))
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


# ==== composition ================================================================================================


@family("memory", None, **co("single", "api"))
def flights_home_to_relative(g: Gen) -> Draft:
    m = Mem(g)
    home = CITY_AIRPORT.get(g.persona.home_city)
    if not home:
        raise BuildError("no home airport")
    rel = g.pick(RELATIVES)
    name = person(g, rel)
    city = g.pick([c for c in CITY_AIRPORT if CITY_AIRPORT[c] != home])
    a = m.add("profile", f"Home airport is {home}", ["home airport", "flights"], old(g))
    b = m.add("relationship", f"My {rel} {name} lives in {city}", [rel, name], old(g))
    other = g.pick([r for r in RELATIVES if r != rel])
    m.add("relationship", f"My {other} {person(g, other)} lives nearby", ["nearby"], old(g))
    d = g.rng.randint(3, 13)
    query = g.say(
        "find flights on {date} from my home airport to where my {rel} lives",
        "search flights to my {rel}'s city on {date}, leaving from my usual airport",
        "I want to fly to see my {rel} on {date}; what flights are there from my home airport?",
        rel=rel,
        date=g.date(d),
    )
    answer, facts = flight_offers(g, m.patches(), origin=home, destination=CITY_AIRPORT[city], date=g.date(d))
    return Draft(
        query,
        [
            m.search("home airport", a),
            m.search(f"{rel} lives", b),
            act("search_flights", origin=home, destination=CITY_AIRPORT[city], date=g.date(d)),
            done(answer),
        ],
        "tool_call",
        {
            "calls": [
                {
                    "tool": "search_flights",
                    "args": {"origin": airport(home), "destination": airport(CITY_AIRPORT[city]), "date": g.date(d)},
                }
            ]
        },
        patches=m.patches(),
        memory_ids=[a, b],
        l2="5.3",
        answer=facts,
    )


DIETS = {
    "vegetarian": "is vegetarian",
    "vegan": "is vegan",
    "halal": "only eats halal food",
    "gluten_free": "has coeliac disease and must eat gluten-free",
    "nut_free": "is allergic to nuts",
}


@family("memory", None, **co("single", "api"))
def restaurants_cuisine_and_diet(g: Gen) -> Draft:
    m = Mem(g)
    rel = g.pick((*RELATIVES, "partner", "boss", "colleague"))
    name = person(g, rel)
    diet = g.pick(sorted(DIETS))
    cuisine = g.pick(served(g, g.persona.home_city, diet))
    a = m.add("preference", f"Favourite cuisine is {cuisine}", ["favourite cuisine", "food"], old(g))
    b = m.add("relationship", f"My {rel} {name} {DIETS[diet]}", [rel, name, "diet"], old(g))
    query = g.say(
        "find a restaurant near home with my favourite cuisine that also works for my {rel}'s diet",
        "I'm taking my {rel} out; search near home for my favourite kind of restaurant that suits their dietary needs",
        "look up places near home serving my favourite food that can cater for my {rel}",
        rel=rel,
    )
    answer, facts = listed(
        peek(g, "search_restaurants", m.patches(), cuisine=cuisine, dietary=[diet], near="home")["restaurants"],
        "name",
        f"{cuisine} restaurants near home for a {diet.replace('_', '-')} diet",
    )
    return Draft(
        query,
        [
            m.search("favourite cuisine", a),
            m.search(f"{rel} {name} diet", b),
            act("search_restaurants", cuisine=cuisine, dietary=[diet], near="home"),
            done(answer),
        ],
        "tool_call",
        {
            "calls": [
                {
                    "tool": "search_restaurants",
                    "args": {
                        "cuisine": {"$contains": cuisine},
                        "dietary": [diet],
                        "near": origin_names(g, "home"),
                    },
                }
            ]
        },
        patches=m.patches(),
        memory_ids=[a, b],
        l2="8.1",
        answer=facts,
    )


OCCASIONS = (
    "anniversary",
    "birthday dinners",
    "celebrations",
    "graduation dinners",
    "promotion dinners",
    "family dinners",
    "family reunions",
)


@family("memory", None, **co("single", "db"))
def reservation_usual_place_household(g: Gen) -> Draft:
    m = Mem(g)
    n = g.rng.randint(3, 6)
    r, when = slot(g, n)
    occ = g.pick(OCCASIONS)
    a = m.add("preference", f"For {occ} we always go to {r['name']}", [occ, "restaurant"], old(g))
    b = m.add("profile", f"Household of {n}: me, my partner and the kids", ["household", "family size"], old(g))
    day = (dt.date.fromisoformat(when[:10]) - g.now.date()).days
    query = g.say(
        "book our usual {occ} restaurant {when} at {t} for the whole household",
        "reserve the place we go to for {occ}, {when} at {t}, for all of us at home",
        "get a table at our {occ} spot {when}, {t}, for the household",
        occ=occ,
        when=g.when(day),
        t=nice_time(when),
    )
    return Draft(
        query,
        [
            m.search(f"{occ} restaurant", a),
            m.search("household family size", b),
            act("search_restaurants", query=r["name"]),
            act("make_restaurant_reservation", restaurant_id=r["restaurant_id"], datetime=when, party_size=n),
            done("Booked."),
        ],
        "state_change",
        {
            "insert": {
                "restaurant_reservations": [{"restaurant_id": r["restaurant_id"], "datetime": when, "party_size": n}]
            }
        },
        patches=m.patches(),
        memory_ids=[a, b],
        l2="8.2",
    )


CODES = ("gate code", "door code", "garage code", "wifi password", "alarm code", "bike lock code", "locker code")


@family("memory", None, **co("single", "db"))
def text_code_to_helper(g: Gen) -> Draft:
    m = Mem(g)
    c = helper(g)
    role = g.pick(("babysitter", "dog walker", "cleaner", "plant sitter", "house sitter", "handyman", "nanny"))
    what = g.pick(CODES)
    code = str(g.rng.randint(1000, 999999)) if "password" not in what else f"sunny{g.rng.randint(100, 999)}"
    a = m.add("relationship", f"Our {role} is {c['name']}", [role, c["name"]], old(g))
    b = m.add("profile", f"The {what} at home is {code}", [what, "home"], old(g))
    query = g.say(
        "text our {role} the {what}",
        "send the {what} to our {role} by SMS",
        "please message our {role} with the {what} for the house",
        role=role,
        what=what,
    )
    return Draft(
        query,
        [
            m.search(role, a),
            m.search(what, b),
            act("search_contacts", name=c["name"]),
            act("send_sms", to=[c["contact_id"]], body=f"The {what} is {code}"),
            done("Sent."),
        ],
        "state_change",
        {"insert": {"messages": [{"contact_id": c["contact_id"], "body": {"$contains": code}}]}},
        patches=m.patches(),
        memory_ids=[a, b],
        l2="3.2",
    )


@family("memory", None, **co("multi", "api"))
def ride_fare_between_remembered_places(g: Gen) -> Draft:
    m = Mem(g)
    # the spot is a gym of the home city (a "gym" named after a tapas bar reads as a generator slip)
    spot = g.pick(("gym", "climbing gym", "fitness studio", "boxing gym"))
    p1 = g.one("world_places", {"city": g.persona.home_city, "category": "gym"})
    p2 = g.one("world_places", {"city": g.persona.home_city}, filter=lambda r: r["category"] not in ("gym", "park"))
    rel = g.pick(("partner", "sister", "brother", "best friend", "daughter", "son", "flatmate"))
    a = m.add("profile", f"My {spot} is {p1['name']}, {p1['address']}", [spot], old(g))
    b = m.add("relationship", f"My {rel} works at {p2['name']}, {p2['address']}", [rel, "works"], old(g))
    ride_type = g.pick(("economy", "comfort", "premium", "xl"))
    history = hist(
        g.say(
            "After my {spot} session I'll meet my {rel} at their work.",
            "I'm going from the {spot} to pick up my {rel} from work today.",
            spot=spot,
            rel=rel,
        ),
        "Sounds like a plan.",
    )
    kind = {"economy": "an economy", "comfort": "a comfort", "premium": "a premium", "xl": "an XL"}[ride_type]
    query = g.say(
        "how much would {t} ride between the two cost?",
        "estimate the fare for {t} ride for that trip",
        "what would that cost by {t} ride?",
        t=kind,
    )
    quote = peek(
        g, "estimate_ride_fare", m.patches(), pickup=p1["address"], dropoff=p2["address"], ride_type=ride_type
    )["quotes"][0]
    answer = (
        f"{kind[:1].upper()}{kind[1:]} ride from {p1['name']} to {p2['name']} "
        f"is about {quote['fare']} {quote['currency']}."
    )
    return Draft(
        query,
        [
            m.search(spot, a),
            m.search(f"{rel} works", b),
            act("estimate_ride_fare", pickup=p1["address"], dropoff=p2["address"], ride_type=ride_type),
            done(answer),
        ],
        "tool_call",
        {
            "calls": [
                {
                    "tool": "estimate_ride_fare",
                    "args": {
                        "pickup": {"$any": [{"$contains": p1["address"]}, p1["place_id"], {"$contains": p1["name"]}]},
                        "dropoff": {"$any": [{"$contains": p2["address"]}, p2["place_id"], {"$contains": p2["name"]}]},
                        "ride_type": ride_type,
                    },
                }
            ]
        },
        patches=m.patches(),
        history=history,
        memory_ids=[a, b],
        l2="5.2",
        answer=[{"$amount": {"value": quote["fare"], "currency": quote["currency"]}}],
    )


CITY_CUR = {
    "Tokyo": "JPY",
    "London": "GBP",
    "Berlin": "EUR",
    "Madrid": "EUR",
    "Seoul": "KRW",
    "Beijing": "CNY",
    "Shanghai": "CNY",
    "San Francisco": "USD",
    "Palo Alto": "USD",
    "Paris": "EUR",
    "Rome": "EUR",
    "Amsterdam": "EUR",
    "Dublin": "EUR",
    "New York": "USD",
    "Chicago": "USD",
}


@family("memory", None, **co("multi", "api"))
def convert_to_relative_currency(g: Gen) -> Draft:
    m = Mem(g)
    mine = g.rows("payment_methods")[0]["currency"]
    city = g.pick([c for c, cur in CITY_CUR.items() if cur != mine])
    rel = g.pick(RELATIVES)
    name = person(g, rel)
    a = m.add("relationship", f"{name} is my {rel}", [rel, name], old(g))
    b = m.add("profile", f"{name} is spending the year in {city}", [name, city], ago(g, 14, 150))
    amount = g.pick((50, 80, 100, 150, 200, 250, 300, 500, 750, 1000))
    history = hist(f"I want to send my {rel} {amount} {mine} for their birthday.", "That's generous! How can I help?")
    query = g.say(
        "how much is that in the currency where they live now?",
        "convert that amount to their local currency",
        "what does that come to in the money they use there?",
    )
    to = CITY_CUR[city]
    converted = peek(g, "convert_currency", m.patches(), amount=amount, from_currency=mine, to_currency=to)["converted"]
    return Draft(
        query,
        [
            m.search(rel, a),
            m.search(name, b),
            act("convert_currency", amount=amount, from_currency=mine, to_currency=to),
            done(f"{amount} {mine} is about {converted} {to} in {city}."),
        ],
        "tool_call",
        {"calls": [{"tool": "convert_currency", "args": {"amount": amount, "from_currency": mine, "to_currency": to}}]},
        patches=m.patches(),
        history=history,
        memory_ids=[a, b],
        l2="7.7",
        answer=[{"$amount": {"value": converted, "currency": to}}],
    )


@family("memory", None, **co("multi", "db", "add"))
def dinner_guest_add_then_book(g: Gen) -> Draft:
    m = Mem(g)
    n = g.rng.randint(2, 5)
    r, when = slot(g, n + 1)
    occ = g.pick(OCCASIONS)
    a = m.add("preference", f"For {occ} we always go to {r['name']}", [occ, "restaurant"], old(g))
    b = m.add("profile", f"Household of {n} people", ["household", "family size"], old(g))
    rel = g.pick(("cousin", "godson", "exchange student", "grandfather", "aunt", "niece"))
    guest = person(g, rel)
    day = (dt.date.fromisoformat(when[:10]) - g.now.date()).days
    history = hist(f"My {rel} {guest} is staying with us and will join our {occ} from now on.", "How nice!")
    query = g.say(
        "remember that, and book our {occ} place {when} at {t} for the household plus {guest}",
        "save it to memory; then reserve our usual {occ} restaurant {when}, {t}, for all of us including {guest}",
        occ=occ,
        when=g.when(day),
        t=nice_time(when),
        guest=guest,
    )
    return Draft(
        query,
        [
            act(
                "add_memory",
                content=f"{rel.capitalize()} {guest} joins our {occ}",
                category="relationship",
                entities=[guest, rel],
            ),
            m.search(f"{occ} restaurant", a),
            m.search("household family size", b),
            act("search_restaurants", query=r["name"]),
            act("make_restaurant_reservation", restaurant_id=r["restaurant_id"], datetime=when, party_size=n + 1),
            done("Booked."),
        ],
        "state_change",
        {
            "insert": {
                **add_check(guest),
                "restaurant_reservations": [
                    {"restaurant_id": r["restaurant_id"], "datetime": when, "party_size": n + 1}
                ],
            }
        },
        patches=m.patches(),
        history=history,
        memory_ids=[a, b],
        l2="8.2",
    )


def homes(g: Gen, k: int) -> list[dict[str, Any]]:
    """``k`` residential addresses in the home city, as world places a ride can go to (a relative lives at
    "212 Station Road", not at a pharmacy): new house numbers on the city's streets, beside a place there."""
    taken = {p["address"] for p in g.rows("world_places")}
    out: list[dict[str, Any]] = []
    for n, base in enumerate(g.some("world_places", k, {"city": g.persona.home_city}), start=901):
        street = base["address"].split(" ", 1)[1]
        address = next(a for a in (f"{g.rng.randint(200, 299)} {street}" for _ in range(50)) if a not in taken)
        taken.add(address)
        out.append(
            {
                "place_id": f"place_{n}",
                "name": "Private residence",
                "category": "residence",
                "address": address,
                "city": base["city"],
                "lat": round(base["lat"] + 0.002, 5),
                "lon": base["lon"],
                "rating": None,
                "phone": None,
                "open_now": 1,
            }
        )
    return out


@family("memory", None, **co("multi", "db", "replace"))
def relative_moved_replace_then_ride(g: Gen) -> Draft:
    m = Mem(g)
    ride_ok(g)
    p_old, p_new = homes(g, 2)
    rel = g.pick(RELATIVES)
    name = person(g, rel)
    t = g.pick(("economy", "comfort", "premium", "xl"))
    a = m.add("relationship", f"My {rel} {name} lives at {p_old['address']}", [rel, name, "address"], old(g))
    b = m.add("preference", f"Preferred ride type is {t}", ["ride type", "ride"], old(g))
    d, h = g.rng.randint(1, 6), g.rng.randint(8, 20)
    at = f"{g.date(d)}T{h:02d}:00"
    history = hist(f"My {rel} moved last week; the new address is {p_new['address']}.", "Thanks for telling me.")
    query = g.say(
        "update that in memory and book my preferred kind of ride from home to their place {when} at {h}:00",
        "replace the old address in memory, then get me my usual ride type from home to the new place {when} at {h}:00",
        when=g.when(d),
        h=f"{h:02d}",
    )
    ins, upd = replace_check(g, a, p_new["address"])
    return Draft(
        query,
        [
            m.search(f"{rel} address", a),
            act("replace_memory", memory_id=a, new_content=f"My {rel} {name} lives at {p_new['address']}"),
            m.search("preferred ride type", b),
            act("book_ride", pickup="home", dropoff=p_new["address"], ride_type=t, scheduled_at=at),
            done("Booked."),
        ],
        "state_change",
        {
            "insert": {
                **ins,
                "rides": [
                    {
                        "ride_type": t,
                        "scheduled_at": at,
                        "pickup": from_home(g),
                        "dropoff": {"$contains": p_new["address"]},
                    }
                ],
                "transactions": RIDE_CHARGE,
            },
            "update": upd,
            "ignore_tables": RIDE_IGNORE,
        },
        patches=m.patches({"insert": {"world_places": [p_new]}}),
        history=history,
        memory_ids=[a, b],
        l2="5.2",
    )


@family("memory", None, **co("multi", "db", "delete"))
def forget_carpool_then_text(g: Gen) -> Draft:
    m = Mem(g)
    c = contact(g)
    d1, d2 = g.rng.sample(DAYS[:5], 2)
    a = m.add("relationship", f"My carpool buddy is {c['name']}", ["carpool buddy", c["name"]], old(g))
    b = m.add("routine", f"Carpool to work on {DAY_NAME[d1]}s and {DAY_NAME[d2]}s", ["carpool", "work"], old(g))
    history = hist(
        g.say("My carpool buddy changed jobs, so the carpool is over.", "The carpool has ended; my buddy moved away."),
        "Ah, I see.",
    )
    query = g.say(
        "forget the carpool schedule and text my buddy thanks for all the {d} rides",
        "delete the carpool days from memory and send my carpool buddy a thank-you text mentioning our {d} rides",
        d=f"{DAY_NAME[d1]} and {DAY_NAME[d2]}",
    )
    body = f"Thanks for all the {DAY_NAME[d1]} and {DAY_NAME[d2]} rides!"
    return Draft(
        query,
        [
            m.search("carpool", a, b),
            act("delete_memory", memory_id=b),
            act("search_contacts", name=c["name"]),
            act("send_sms", to=[c["contact_id"]], body=body),
            done("Done."),
        ],
        "state_change",
        {
            "update": delete_check(b),
            "insert": {
                "messages": [{"contact_id": c["contact_id"], "body": {"$contains_all": [DAY_NAME[d1], DAY_NAME[d2]]}}]
            },
        },
        patches=m.patches(),
        history=history,
        memory_ids=[a, b],
        l2="3.2",
    )


# ==== plan =======================================================================================================
# (family, count); tags per family are in its @family line. Sub-counts: single_record 80 single (40 db / 40 api)
# + 72 multi (36 / 36); conflict 40 single (20 / 20) + 60 multi (30 / 30); composition 56 single (28 / 28) + 68
# multi (34 / 34). Writes (multi db only): add 40, replace 40, delete 20. Conflict rules: recency 45,
# specificity 20, source_authority 10, ask_user 25.
PLAN = [
    (f"memory.{name}", n)
    for name, n in (
        # single_record, single-turn
        ("weather_where_relative_lives", 14),
        ("world_time_where_relative_lives", 13),
        ("restaurants_favourite_cuisine", 13),
        ("alarm_for_routine", 14),
        ("reservation_group_size", 13),
        ("thermostat_preference", 13),
        # single_record, multi-turn
        ("flights_from_usual_airport", 12),
        ("directions_to_remembered_place", 12),
        ("hotels_preferred_brand", 12),
        ("add_fact_then_text_helper", 10),
        ("add_class_then_calendar", 10),
        ("replace_lesson_time_then_calendar", 10),
        ("forget_routine_and_event", 6),
        # conflict, single-turn
        ("recency_weather_relative_moved", 10),
        ("specificity_cuisine_for_occasion", 6),
        ("source_weather_on_appointment_day", 4),
        ("ask_which_partner_to_text", 10),
        ("recency_alarm_for_practice", 5),
        ("specificity_party_size_friday", 3),
        ("source_reminder_before_appointment", 2),
        # conflict, multi-turn
        ("recency_weather_relative_moved_multi", 10),
        ("recency_world_time_relative", 10),
        ("specificity_hotel_brand_with_kids", 8),
        ("source_weather_on_appointment_day_multi", 2),
        ("ask_ride_type_then_forget_wrong", 10),
        ("ask_group_size_then_correct", 5),
        ("recency_shift_then_alarm", 10),
        ("specificity_airport_ride_add", 3),
        ("source_reminder_before_appointment_add", 2),
        # composition, single-turn
        ("flights_home_to_relative", 14),
        ("restaurants_cuisine_and_diet", 14),
        ("reservation_usual_place_household", 14),
        ("text_code_to_helper", 14),
        # composition, multi-turn
        ("ride_fare_between_remembered_places", 17),
        ("convert_to_relative_currency", 17),
        ("dinner_guest_add_then_book", 15),
        ("relative_moved_replace_then_ride", 15),
        ("forget_carpool_then_text", 4),
    )
]
