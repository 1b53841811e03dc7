"""What the memory families share: name pools, the record a draft inserts, time and phrasing helpers,
checks, tags, the reads a gold's answer states, and the pools of remembered routines, groups and cuisines.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Literal

from sandbox.domains.travel.schema import CITY_AIRPORT
from sandbox.generator.core import BuildError, Gen, act
from sandbox.generator.families._common import EVERY_ITEM_BOUND, cold_verdict, opened, peek, rain_verdict
from sandbox.memory import bm25_rank

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


def _f(celsius: float) -> float:
    return round(celsius * 9 / 5 + 32, 1)


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
    it, the day where it came from elsewhere; a yes/no question ("will it rain?", "will it be cold?") is
    answered yes or no first where the forecast leaves no doubt (the build checks that verdict)."""
    payload = peek(g, "get_weather", patches, location=location, date=date)
    day, city = payload["days"][0], payload["location"]
    text = opened(
        {"rain": rain_verdict, "cold": cold_verdict}.get(asks, lambda _: None)(day),
        f"On {day['date']} in {city}: {day['condition'].replace('_', ' ')}, "
        f"high {day['high_c']}°C, low {day['low_c']}°C, {day['precip_pct']}% chance of rain.",
    )
    high = [_num(day["high_c"]), _num(_f(day["high_c"]))]
    stated = {
        "any": [*high, _num(day["precip_pct"])],
        "warm": high,
        "cold": [*high, _num(day["low_c"]), _num(_f(day["low_c"]))],
        "rain": [_num(day["precip_pct"]), rain_word(day["condition"]), *verdict_words(day)],
    }[asks]
    facts: list[Any] = [{"$any": stated}]
    if name_city:
        facts.append({"$name": city})
    if name_date:
        facts.append(_on(g, day["date"]))
    return text, facts


def verdict_words(day: dict[str, Any]) -> list[dict[str, Any]]:
    """What states a clear verdict on the day's rain without the sky's word: "a good chance of rain", "it
    stays dry" (none where the sky's word is rain already, or the verdict is in doubt)."""
    verdict = rain_verdict(day)
    if verdict is None or day["condition"] == "rain":
        return []
    return [
        rain_word("rain") if verdict == "yes" else {"$regex": r"^(?!.*(?:\d\s*%|\bper\s?cent\b)).*\b(?:dry|no rain)\b"}
    ]


def rain_word(condition: str) -> dict[str, Any]:
    """The day's condition as an answer to "will it rain?" ("sunny", "thunderstorms"), where the answer
    states no percentage (one it states is the rain chance, checked as a number: "sunny, 95% chance of
    rain" is wrong). Whether it rains is the answer's verdict (``$verdict``), so "no rain" is read there,
    and "a good chance of rain" states rain."""
    words = {
        "partly_cloudy": r"partly\W+cloudy",
        "cloudy": r"(?<!partly )cloudy",
        "rain": r"(?:rain|raining|rainy|showers)\b",
    }.get(condition, condition)
    return {"$regex": rf"^(?!.*(?:\d\s*%|\bper\s?cent\b)).*\b{words}"}


def local_time(g: Gen, patches: dict[str, Any], location: str, query: str = "") -> tuple[str, list[Any]]:
    """The gold's answer for a city's local time and its facts; where the query asks whether it is late
    there ("is it late at night …?", "is it a reasonable hour …?") the answer opens with that verdict
    where the hour leaves no doubt (late: 22:00 to 05:59; a reasonable hour: 08:00 to 20:59)."""
    payload = peek(g, "get_world_time", patches, location=location)
    clock = payload["local_time"][11:]
    hour = int(clock[:2])
    late = "yes" if hour >= 22 or hour < 6 else "no" if 8 <= hour < 21 else None
    reasonable = {"yes": "no", "no": "yes", None: None}[late]
    asked = {"late at night": late, "reasonable hour": reasonable}
    return (
        opened(
            next((v for k, v in asked.items() if k in query.lower()), None),
            f"It is {clock} ({payload['weekday']}) in {payload['location']} now.",
        ),
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


def flight_offers(g: Gen, patches: dict[str, Any], every: bool = False, **search: Any) -> tuple[str, list[Any]]:
    """The gold's answer on a flight search and its facts: the cheapest offer, any offer named passing; where
    the query asks for ``every`` flight ("what flights are there?") and they are few (``EVERY_ITEM_BOUND``),
    each of them, by its flight number or its price."""
    offers = peek(g, "search_flights", patches, **search)["offers"]
    if not offers:
        return "There are no flights that day.", [{"$none": True}]
    if every and len(offers) <= EVERY_ITEM_BOUND:
        said = [
            f"{o['legs'][0]['airline']} {o['legs'][0]['flight_number']} at {o['legs'][0]['depart_at'][11:]} "
            f"for {o['total_price']} {o['currency']}"
            for o in offers
        ]
        facts: list[Any] = [
            {
                "$any": [
                    {"$name": o["legs"][0]["flight_number"]},
                    {"$amount": {"value": o["total_price"], "currency": o["currency"]}},
                ]
            }
            for o in offers
        ]
        return f"{len(offers)} flight{'s' if len(offers) > 1 else ''}: {'; '.join(said)}.", facts
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


def free_start(g: Gen, day: int, time: str, minutes: int) -> str:
    start = f"{g.date(day)}T{time}"
    end = dt_plus(start, minutes)
    for e in g.rows("calendar_events"):
        if e["start"] < end and e["end"] > start:
            raise BuildError("calendar clash")
    return start
