"""Basic Tool Use families for Food & Dining (D8): restaurants, table bookings, delivery, recipes, groceries.

The helpers at the top are shared with ``subagent_food_health``.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import every_named, opened, peek

DT = "%Y-%m-%dT%H:%M"


# ---- shared helpers ---------------------------------------------------------------------------


def clock(hm: str) -> str:
    """How a user says a time: 19:30 -> 7:30pm, 12:00 -> noon."""
    h, m = int(hm[:2]), int(hm[3:])
    if (h, m) == (12, 0):
        return "noon"
    suffix = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return f"{h12}{suffix}" if m == 0 else f"{h12}:{m:02d}{suffix}"


def days_ahead(g: Gen, stamp: str) -> int:
    return (dt.date.fromisoformat(stamp[:10]) - g.now.date()).days


def now_minute(g: Gen) -> str:
    return g.now.strftime(DT)


def home_city(g: Gen) -> str:
    return g.persona.home_city


def restaurants(g: Gen, *, city: str | None = None, unique: bool = True, **where: Any) -> list[dict[str, Any]]:
    """Restaurants (with their place's city and address), optionally in one city and with a name unique world-wide."""
    places = {p["place_id"]: p for p in g.rows("world_places")}
    found = []
    everything = g.rows("world_restaurants")
    names: dict[str, int] = {}
    for r in everything:
        names[r["name"].lower()] = names.get(r["name"].lower(), 0) + 1
    for r in everything:
        p = places[r["place_id"]]
        if city and p["city"] != city:
            continue
        if unique and names[r["name"].lower()] > 1:
            continue
        if any(r[k] != v for k, v in where.items()):
            continue
        found.append({**r, "city": p["city"], "address": p["address"], "hours": json.loads(r["hours_json"])})
    return found


def open_at(r: dict[str, Any], stamp: str) -> bool:
    day = dt.datetime.strptime(stamp, DT)
    if ("mon", "tue", "wed", "thu", "fri", "sat", "sun")[day.weekday()] in r["hours"]["closed"]:
        return False
    return any(a <= stamp[11:] < b for a, b in r["hours"]["windows"])


def menu(g: Gen, restaurant_id: str) -> list[dict[str, Any]]:
    return g.rows("world_menu_items", {"restaurant_id": restaurant_id})


def slots(g: Gen, restaurant_id: str, day: str | None = None) -> list[dict[str, Any]]:
    out = [s for s in g.rows("world_table_slots", {"restaurant_id": restaurant_id}) if s["slot_dt"] > now_minute(g)]
    return [s for s in out if day is None or s["slot_dt"].startswith(day)]


def my_bookings(g: Gen, restaurant_id: str) -> list[dict[str, Any]]:
    return [
        b
        for b in g.rows("restaurant_reservations", {"restaurant_id": restaurant_id, "status": "confirmed"})
        if b["datetime"] > now_minute(g)
    ]


def default_method(g: Gen) -> dict[str, Any]:
    return g.one("payment_methods", {"is_default": 1})


def home_address(g: Gen) -> dict[str, Any]:
    return g.one("addresses", {"label": "Home"})


def payment_effects(g: Gen, total: float) -> dict[str, Any]:
    """The charge a paid order leaves: a transaction and the default method's lower balance."""
    method = default_method(g)
    return {
        "insert": {"transactions": [{"amount": {"$approx": [-total, 0.02]}, "method_id": method["method_id"]}]},
        "update": {
            "payment_methods": [
                {
                    "match": {"method_id": method["method_id"]},
                    "set": {"balance": {"$approx": [method["balance"] - total, 0.02]}},
                }
            ]
        },
    }


def merge(*checks: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for c in checks:
        for kind, tables in c.items():
            if isinstance(tables, dict):
                slot = out.setdefault(kind, {})
                for t, specs in tables.items():
                    slot.setdefault(t, []).extend(specs)
            else:
                out[kind] = tables
    return out


def grant(g: Gen, app: str, *perms: str) -> dict[str, Any]:
    """Patches that make sure the app holds these permissions (some personas start without them)."""
    fixes = []
    for perm in perms:
        found = g.rows("app_permissions", {"app_id": app, "permission": perm})
        if not found or found[0]["state"] != "granted":
            if not found:
                raise BuildError(f"{app} has no {perm} row on {g.persona.persona_id}")
            fixes.append({"match": {"app_id": app, "permission": perm}, "set": {"state": "granted"}})
    return {"update": {"app_permissions": fixes}} if fixes else {}


def recipes(g: Gen) -> list[dict[str, Any]]:
    out = []
    for r in g.rows("world_recipes"):
        out.append(
            {
                **r,
                "diet": json.loads(r["diet_json"]),
                "tags": json.loads(r["tags_json"]),
                "ingredients": json.loads(r["ingredients_json"]),
            }
        )
    return out


# ---- 8.1 Restaurant Discovery ------------------------------------------------------------------


@family("basic", "8.1", pattern="single_call")
def find_restaurants_by_cuisine(g: Gen) -> Draft:
    city = home_city(g)
    local = restaurants(g, city=city, unique=False)
    cuisine = g.pick(sorted({r["cuisine"] for r in local}))
    kind = g.pick(("rating", "price", "diet"))
    args: dict[str, Any]
    if kind == "rating":
        rating = g.pick((4.0, 4.2, 4.5))
        extra = g.pick((f"rated {rating} or higher", f"with at least {rating} stars", f"with a rating of {rating}+"))
        args = {"min_rating": rating}
    elif kind == "price":
        level = g.pick((1, 2))
        extra = {1: "that are cheap", 2: "that aren't expensive (price level 2 at most)"}[level]
        args = {"price_level": level}
    else:
        diet = g.pick(("vegetarian", "vegan", "halal", "gluten_free"))
        extra = f"that have {diet.replace('_', '-')} options"
        args = {"dietary": [diet]}
    query = g.say(
        "find {cuisine} restaurants in {city} {extra}",
        "show me {cuisine} places in {city} {extra}",
        "I'm looking for {cuisine} food in {city}: list restaurants {extra}",
        "which {cuisine} restaurants in {city} are there {extra}?",
        cuisine=cuisine,
        city=city,
        extra=extra,
    )
    near = {"$any": [city, "home", "current"]}
    check_args = {
        "$any": [
            {**a, **args, "near": near}
            for a in ({"cuisine": {"$contains": cuisine}}, {"query": {"$contains": cuisine}})
        ]
    }
    found = peek(g, "search_restaurants", cuisine=cuisine, near=city, **args)["restaurants"]
    # every place found is named; two would let an answer that swaps them for each other pass the self-check's
    # wrong-entity ending, so a draft finds one, or three to five
    if len(found) == 2 or len(found) > 5:
        raise BuildError(f"{len(found)} restaurants found")
    names = [r["name"] for r in found]
    answer = (
        f"{cuisine} restaurants in {city} {extra}: {', '.join(names)}."
        if found
        else f"I found no {cuisine} restaurants in {city} {extra}."
    )
    return Draft(
        query=query,
        gold=[act("search_restaurants", cuisine=cuisine, near=city, **args), done(answer)],
        bucket="tool_call",
        check={"calls": [{"tool": "search_restaurants", "args": check_args}]},
        answer=[{"$name": n} for n in names] or [{"$none": True}],
    )


@family("basic", "8.1", pattern="lookup_then_act")
def restaurant_free_tables(g: Gen) -> Draft:
    r = g.pick(restaurants(g, city=home_city(g), online_booking=1))
    days = g.rng.randint(1, 9)
    party = g.rng.randint(2, 6)
    if party > r["max_party"]:
        raise BuildError("party too large")
    when, day = g.when(days), g.date(days)
    ask = g.pick(("tables", "menu"))
    if ask == "tables":
        query = g.say(
            "does {name} have a free table for {n} {when}?",
            "what times can I get a table for {n} at {name} {when}?",
            "check {name}'s free tables {when} for a party of {n}",
            name=r["name"],
            n=party,
            when=when,
        )
        gold = [
            act("search_restaurants", query=r["name"]),
            act("get_restaurant_details", restaurant_id=r["restaurant_id"], date=day, party_size=party),
        ]
        args: dict[str, Any] = {"restaurant_id": r["restaurant_id"], "date": day, "party_size": party}
        times = [t["time"] for t in peek(g, "get_restaurant_details", **args)["free_tables"]]
        # one, three or four free times are all stated; of two (which the self-check's wrong-entity ending,
        # swapping them, cannot tell apart) or of many, any one answers
        every = [{"$time": t} for t in times]
        facts: list[Any] = (every if len(times) in (1, 3, 4) else [{"$any": every}]) if times else [{"$none": True}]
        answer = opened(
            ("no", "yes")[bool(times)] if query.lower().startswith("does") else None,
            f"{r['name']} has free tables for {party} {when} at {', '.join(times)}."
            if times
            else f"{r['name']} has no free table for {party} {when}.",
        )
    else:
        query = g.say(
            "what's on the menu at {name} in {city}?",
            "show me {name}'s menu ({city})",
            "what dishes does {name} in {city} serve, and what are their hours?",
            name=r["name"],
            city=r["city"],
        )
        gold = [
            act("search_restaurants", query=r["name"], near=r["city"]),
            act("get_restaurant_details", restaurant_id=r["restaurant_id"]),
        ]
        args = {"restaurant_id": r["restaurant_id"]}
        info = peek(g, "get_restaurant_details", **args)
        dishes = [m["name"] for m in info["menu"]]
        opening = [t for window in info["hours"]["open"] for t in window.split("-")]
        facts = every_named(dishes)
        answer = f"{r['name']} serves {', '.join(dishes)}"
        if "hours" in query:
            facts.append({"$any": [{"$time": t} for t in opening]})
            answer += f"; it is open {', '.join(info['hours']['open'])}"
        answer += "."
    return Draft(
        query=query,
        gold=[*gold, done(answer)],
        bucket="tool_call",
        check={"calls": [{"tool": "get_restaurant_details", "args": args}]},
        answer=facts,
    )


# ---- 8.2 Table Reservations --------------------------------------------------------------------


def _bookable_slot(g: Gen, party: int, lo: int = 1, hi: int = 10) -> tuple[dict[str, Any], dict[str, Any]]:
    """An online restaurant at home and a free seating for the party on a day without a booking there."""
    options = []
    for r in restaurants(g, city=home_city(g), online_booking=1):
        if party > r["max_party"]:
            continue
        booked_days = {b["datetime"][:10] for b in my_bookings(g, r["restaurant_id"])}
        for s in slots(g, r["restaurant_id"]):
            if (
                s["capacity_left"] >= party
                and s["slot_dt"][:10] not in booked_days
                and lo <= days_ahead(g, s["slot_dt"]) <= hi
                and open_at(r, s["slot_dt"])
            ):
                options.append((r, s))
    if not options:
        raise BuildError("no bookable seating")
    return g.pick(options)


@family("basic", "8.2", pattern="lookup_then_act")
def book_table(g: Gen) -> Draft:
    party = g.rng.randint(2, 6)
    r, s = _bookable_slot(g, party)
    when, at = g.when(days_ahead(g, s["slot_dt"])), s["slot_dt"]
    extra = g.pick(("", " by the window", " for a birthday"))
    query = g.say(
        "book a table for {n} at {name} {when} at {t}{extra}",
        "reserve {name} for {n} people {when}, {t}{extra}",
        "can you get us a table at {name} {when} at {t}? We're {n}{extra}.",
        name=r["name"],
        n=party,
        when=when,
        t=clock(at[11:]),
        extra=extra,
    )
    return Draft(
        query=query,
        gold=[
            act("search_restaurants", query=r["name"]),
            act(
                "make_restaurant_reservation",
                restaurant_id=r["restaurant_id"],
                datetime=at,
                party_size=party,
                **({"special_requests": extra.strip()} if extra else {}),
            ),
            done(f"Booked {r['name']} for {party} at {at}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "restaurant_reservations": [
                    {
                        "restaurant_id": r["restaurant_id"],
                        "datetime": at,
                        "party_size": party,
                        "status": "confirmed",
                        **({"special_requests": {"$regex": extra.split()[-1]}} if extra else {}),
                    }
                ]
            }
        },
    )


@family("basic", "8.2", pattern="friction", friction="resource_unavailable")
def book_table_full_take_nearest(g: Gen) -> Draft:
    party = g.rng.randint(2, 5)
    r, s = _bookable_slot(g, party)
    day = s["slot_dt"][:10]
    others = [
        o
        for o in slots(g, r["restaurant_id"], day)
        if o["slot_dt"] != s["slot_dt"] and o["capacity_left"] >= party and open_at(r, o["slot_dt"])
    ]
    if not others:
        raise BuildError("no other seating that day")

    def gap(o: dict[str, Any]) -> int:
        a, b = (dt.datetime.strptime(x, DT) for x in (o["slot_dt"], s["slot_dt"]))
        return abs(int((a - b).total_seconds()))

    others.sort(key=lambda o: (gap(o), o["slot_dt"]))
    if len(others) > 1 and gap(others[0]) == gap(others[1]):
        raise BuildError("two seatings are equally close")
    alt = others[0]["slot_dt"]
    query = g.say(
        "book {name} for {n} {when} at {t}; if that's full, take the closest time that's still free that day",
        "I'd like a table for {n} at {name} {when} at {t}. If they're full then, book the nearest free "
        "time the same day.",
        "reserve a table at {name} for {n} at {t} {when}, or whatever free time is closest to it that day",
        name=r["name"],
        n=party,
        when=g.when(days_ahead(g, day)),
        t=clock(s["slot_dt"][11:]),
    )
    return Draft(
        query=query,
        gold=[
            act("search_restaurants", query=r["name"]),
            act(
                "make_restaurant_reservation", restaurant_id=r["restaurant_id"], datetime=s["slot_dt"], party_size=party
            ),
            act("make_restaurant_reservation", restaurant_id=r["restaurant_id"], datetime=alt, party_size=party),
            done(f"{clock(s['slot_dt'][11:])} was full; booked {clock(alt[11:])} instead."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "restaurant_reservations": [
                    {"restaurant_id": r["restaurant_id"], "datetime": alt, "party_size": party, "status": "confirmed"}
                ]
            }
        },
        patches={
            "update": {
                "world_table_slots": [
                    {
                        "match": {"restaurant_id": r["restaurant_id"], "slot_dt": s["slot_dt"]},
                        "set": {"capacity_left": 0},
                    }
                ]
            }
        },
        recovers=(ErrorType.RESOURCE_UNAVAILABLE,),
    )


def _my_online_booking(g: Gen) -> tuple[dict[str, Any], dict[str, Any]]:
    online = {r["restaurant_id"]: r for r in restaurants(g, online_booking=1)}
    mine = [
        b
        for b in g.rows("restaurant_reservations", {"status": "confirmed"})
        if b["datetime"] > now_minute(g) and b["restaurant_id"] in online
    ]
    if not mine:
        raise BuildError("no upcoming online booking")
    b = g.pick(mine)
    return b, online[b["restaurant_id"]]


@family("basic", "8.2", pattern="lookup_then_act")
def change_reservation(g: Gen) -> Draft:
    b, r = _my_online_booking(g)
    when = g.when(days_ahead(g, b["datetime"]))
    day = b["datetime"][:10]
    change = g.pick(("time", "party"))
    if change == "time":
        free = [
            s
            for s in slots(g, r["restaurant_id"], day)
            if s["slot_dt"] != b["datetime"] and s["capacity_left"] >= b["party_size"] and open_at(r, s["slot_dt"])
        ]
        if not free:
            raise BuildError("no other time that day")
        new = g.pick(free)["slot_dt"]
        query = g.say(
            "move my {name} reservation {when} to {t}",
            "can you change my table at {name} {when} to {t}?",
            "push my booking at {name} {when} to {t} please",
            name=r["name"],
            when=when,
            t=clock(new[11:]),
        )
        arg, setv = {"datetime": new}, {"datetime": new}
    else:
        left = next((s["capacity_left"] for s in slots(g, r["restaurant_id"], day) if s["slot_dt"] == b["datetime"]), 0)
        sizes = [n for n in range(2, min(r["max_party"], left + b["party_size"]) + 1) if n != b["party_size"]]
        if not sizes:
            raise BuildError("no other party size fits")
        n = g.pick(sizes)
        query = g.say(
            "we'll be {n} at {name} {when}; update the reservation",
            "change my {name} booking {when} to {n} people",
            "make my table at {name} {when} for {n} instead",
            name=r["name"],
            when=when,
            n=n,
        )
        arg, setv = {"party_size": n}, {"party_size": n}
    return Draft(
        query=query,
        gold=[
            act("search_restaurants", query=r["name"]),
            act("get_restaurant_details", restaurant_id=r["restaurant_id"], date=day),
            act("update_restaurant_reservation", reservation_id=b["reservation_id"], **arg),
            done("Updated the booking."),
        ],
        bucket="state_change",
        check={
            "update": {"restaurant_reservations": [{"match": {"reservation_id": b["reservation_id"]}, "set": setv}]}
        },
    )


# why the user cancels -> what a cancel reason mentions (or none is recorded)
CANCEL_WHY = {"plans changed": "plan|chang", "someone is sick": "sick|ill", "we're travelling": "travel|trip|away"}


@family("basic", "8.2", pattern="lookup_then_act")
def cancel_reservation(g: Gen) -> Draft:
    b, r = _my_online_booking(g)
    when = g.when(days_ahead(g, b["datetime"]))
    reason = g.pick((None, *CANCEL_WHY))
    why = f" ({reason})" if reason else ""
    query = g.say(
        "cancel my reservation at {name} {when}{why}",
        "please call off our table at {name} {when}{why}",
        "I can't make it to {name} {when}{why}; cancel the booking",
        name=r["name"],
        when=when,
        why=why,
    )
    return Draft(
        query=query,
        gold=[
            act("search_restaurants", query=r["name"]),
            act("get_restaurant_details", restaurant_id=r["restaurant_id"]),
            act(
                "cancel_restaurant_reservation",
                reservation_id=b["reservation_id"],
                **({"reason": reason} if reason else {}),
            ),
            done("Cancelled."),
        ],
        bucket="state_change",
        check={
            "update": {
                "restaurant_reservations": [
                    {
                        "match": {"reservation_id": b["reservation_id"]},
                        "set": {
                            "status": "cancelled",
                            "cancel_reason": {"$any": [None, {"$regex": CANCEL_WHY[reason] if reason else "."}]},
                        },
                    }
                ]
            }
        },
    )


# ---- 8.3 Food Delivery -------------------------------------------------------------------------


def _delivery_time(g: Gen, r: dict[str, Any]) -> str:
    """A time later today or in the next days when the restaurant is open (at least an hour ahead)."""
    options = []
    for days in range(3):
        for a, b in r["hours"]["windows"]:
            for hm in (a, b):
                base = dt.datetime.strptime(f"{g.date(days)}T{hm}", DT)
                for shift in (60, 90, 120):
                    t = (base + dt.timedelta(minutes=shift if hm == a else -shift)).strftime(DT)
                    if (
                        t[11:] >= "10:00"
                        and t > (g.now + dt.timedelta(hours=1)).strftime(DT)
                        and open_at(r, t)
                        and t[14:] in ("00", "30")
                    ):
                        options.append(t)
    if not options:
        raise BuildError("no delivery time")
    return g.pick(sorted(set(options)))


def _delivering(g: Gen) -> list[dict[str, Any]]:
    return [r for r in restaurants(g, city=home_address(g)["city"], delivery=1) if r["min_order"] > 0]


def _lines(g: Gen, r: dict[str, Any], k: int) -> list[tuple[dict[str, Any], int]]:
    dishes = [m for m in menu(g, r["restaurant_id"]) if m["available"] and m["category"] in ("main", "starter")]
    if len(dishes) < k:
        raise BuildError("not enough dishes")
    picked = g.rng.sample(dishes, k)
    lines = [(m, g.rng.randint(1, 2)) for m in picked]
    while sum(m["price"] * q for m, q in lines) < r["min_order"]:
        m, q = lines[0]
        lines[0] = (m, q + 1)
    return lines


def _order_check(
    g: Gen, r: dict[str, Any], lines: list[tuple[dict[str, Any], int]], address_id: str, **fields: Any
) -> dict[str, Any]:
    total = round(sum(m["price"] * q for m, q in lines) + r["delivery_fee"], 2)
    order = {
        "restaurant_id": r["restaurant_id"],
        "address_id": address_id,
        "items_json": {"$json": {"$set": [{"menu_item_id": m["menu_item_id"], "quantity": q} for m, q in lines]}},
        **fields,
    }
    return merge({"insert": {"food_orders": [order]}}, payment_effects(g, total))


def _say_lines(lines: list[tuple[dict[str, Any], int]]) -> str:
    parts = [f"{q} {m['name']}" if q > 1 else f"one {m['name']}" for m, q in lines]
    return " and ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " and " + parts[-1]


@family("basic", "8.3", pattern="lookup_then_act")
def schedule_delivery(g: Gen) -> Draft:
    r = g.pick(_delivering(g))
    lines = _lines(g, r, g.pick((1, 2)))
    at = _delivery_time(g, r)
    address = home_address(g)
    what = _say_lines(lines)
    query = g.say(
        "order {what} from {name}, delivered home {when} at {t}",
        "get {what} from {name} delivered to my home address {when} at {t}",
        "I want {what} from {name} at {t} {when}: deliver it to my home",
        what=what,
        name=r["name"],
        when=g.when(days_ahead(g, at)),
        t=clock(at[11:]),
    )
    items = [{"menu_item_id": m["menu_item_id"], "quantity": q} for m, q in lines]
    return Draft(
        query=query,
        gold=[
            act("search_restaurants", query=r["name"], delivery_only=True),
            act("get_restaurant_details", restaurant_id=r["restaurant_id"]),
            act(
                "order_food_delivery",
                restaurant_id=r["restaurant_id"],
                items=items,
                address_id=address["address_id"],
                scheduled_at=at,
            ),
            done("Ordered."),
        ],
        bucket="state_change",
        check=_order_check(g, r, lines, address["address_id"], scheduled_at=at),
    )


@family("basic", "8.3", pattern="friction", friction="resource_unavailable")
def delivery_skip_sold_out(g: Gen) -> Draft:
    r = g.pick(_delivering(g))
    lines = _lines(g, r, 2)
    keep, gone = lines[0], lines[1]
    if keep[0]["price"] * keep[1] < r["min_order"]:
        raise BuildError("the remaining dish is under the minimum order")
    at = _delivery_time(g, r)
    address = home_address(g)
    query = g.say(
        "order {what} from {name} for delivery home at {t} {when}; if something is sold out, just send the rest",
        "get {what} from {name} delivered to my home {when} at {t}. Skip anything that's sold out.",
        "deliver {what} from {name} home at {t} {when} (leave out whatever they don't have)",
        what=_say_lines(lines),
        name=r["name"],
        when=g.when(days_ahead(g, at)),
        t=clock(at[11:]),
    )
    both = [{"menu_item_id": m["menu_item_id"], "quantity": q} for m, q in lines]
    return Draft(
        query=query,
        gold=[
            act("search_restaurants", query=r["name"]),
            act("get_restaurant_details", restaurant_id=r["restaurant_id"]),
            act(
                "order_food_delivery",
                restaurant_id=r["restaurant_id"],
                items=both,
                address_id=address["address_id"],
                scheduled_at=at,
            ),
            act(
                "order_food_delivery",
                restaurant_id=r["restaurant_id"],
                items=both[:1],
                address_id=address["address_id"],
                scheduled_at=at,
            ),
            done(f"{gone[0]['name']} was sold out; ordered the rest."),
        ],
        bucket="state_change",
        check=_order_check(g, r, [keep], address["address_id"], scheduled_at=at),
        patches={
            "update": {
                "world_menu_items": [{"match": {"menu_item_id": gone[0]["menu_item_id"]}, "set": {"available": 0}}]
            }
        },
        recovers=(ErrorType.RESOURCE_UNAVAILABLE,),
    )


def _favourite_orders(g: Gen) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(restaurant, its latest non-cancelled past order) for the restaurants the user orders from."""
    rs = {r["restaurant_id"]: r for r in restaurants(g, delivery=1)}
    latest: dict[str, dict[str, Any]] = {}
    for o in g.rows("food_orders"):
        newer = o["placed_at"] > latest.get(o["restaurant_id"], {"placed_at": ""})["placed_at"]
        if o["restaurant_id"] in rs and o["status"] == "delivered" and newer:
            latest[o["restaurant_id"]] = o
    return [(rs[k], v) for k, v in sorted(latest.items())]


@family("basic", "8.3", pattern="cross_app")
def reorder_from_history(g: Gen) -> Draft:
    pairs = []
    available = {m["menu_item_id"]: m for m in g.rows("world_menu_items") if m["available"]}
    active = {o["restaurant_id"] for o in g.rows("food_orders") if o["status"] not in ("delivered", "cancelled")}
    for r, o in _favourite_orders(g):
        items = json.loads(o["items_json"])
        if r["restaurant_id"] in active or any(i["menu_item_id"] not in available for i in items):
            continue
        pairs.append((r, o))
    if not pairs:
        raise BuildError("no reorderable order")
    r, o = g.pick(pairs)
    at = _delivery_time(g, r)
    items = json.loads(o["items_json"])
    lines = [(available[i["menu_item_id"]], i["quantity"]) for i in items]
    query = g.say(
        "reorder what I last got from {name}, for delivery {when} at {t}",
        "order my last {name} order again, to arrive {when} at {t}",
        "same as my previous {name} delivery please, {when} at {t}",
        name=r["name"],
        when=g.when(days_ahead(g, at)),
        t=clock(at[11:]),
    )
    total = round(sum(m["price"] * q for m, q in lines) + r["delivery_fee"] + o["tip"], 2)
    order = {
        "restaurant_id": r["restaurant_id"],
        "address_id": o["address_id"],
        "scheduled_at": at,
        "items_json": {"$json": {"$set": [{"menu_item_id": m["menu_item_id"], "quantity": q} for m, q in lines]}},
    }
    return Draft(
        query=query,
        gold=[
            act("list_transactions", merchant=r["name"], category="dining"),
            act("track_food_order", order_id=o["order_id"]),
            act("reorder_past_order", order_id=o["order_id"], scheduled_at=at),
            done("Reordered."),
        ],
        bucket="state_change",
        check=merge({"insert": {"food_orders": [order]}}, payment_effects(g, total)),
    )


@family("basic", "8.3", pattern="lookup_then_act")
def track_current_order(g: Gen) -> Draft:
    current = [o for o in g.rows("food_orders") if o["status"] == "on_the_way"]
    if not current:
        raise BuildError("no order on its way")
    o = current[-1]
    name = next(r["name"] for r in g.rows("world_restaurants") if r["restaurant_id"] == o["restaurant_id"])
    query = g.say(
        "when will my {name} order get here?",
        "where's my food from {name}? Is it close?",
        "track my delivery from {name}",
        "how long until the {name} food arrives?",
        name=name,
    )
    info = peek(g, "track_food_order", order_id=o["order_id"])
    eta, minutes = info["eta"][11:16], info["minutes_to_arrival"]
    return Draft(
        query=query,
        gold=[
            act("list_transactions", merchant=name, limit=3),
            act("track_food_order", order_id=o["order_id"]),
            done(f"Your {name} order is on the way and should arrive at {eta}, in about {minutes} minutes."),
        ],
        bucket="tool_call",
        check={"calls": [{"tool": "track_food_order", "args": {"order_id": o["order_id"]}}]},
        answer=[{"$any": [{"$time": eta}, {"$number": {"value": minutes, "tolerance": 2}}]}],
    )


# ---- 8.4 Recipes & Cooking ---------------------------------------------------------------------

KEYWORDS = (
    "chicken",
    "tofu",
    "egg",
    "beef",
    "salmon",
    "pasta",
    "soup",
    "curry",
    "salad",
    "noodles",
    "rice",
    "pork",
    "shrimp",
    "mushroom",
    "lentil",
    "pancakes",
    "oats",
    "fish",
)
DIET_WORDS = {
    "vegetarian": "vegetarian",
    "vegan": "vegan",
    "gluten_free": "gluten-free",
    "dairy_free": "dairy-free",
    "low_carb": "low-carb",
    "high_protein": "high-protein",
    "nut_free": "nut-free",
}


@family("basic", "8.4", pattern="single_call")
def find_recipe(g: Gen) -> Draft:
    options = []
    for r in recipes(g):
        text = (r["title"] + " " + " ".join(i["name"] for i in r["ingredients"])).lower()
        for kw in KEYWORDS:
            if kw in text:
                for diet in r["diet"]:
                    options.append((r, kw, diet))
    r, kw, diet = g.pick(options)
    limit = max(10, ((r["time_min"] + 9) // 10) * 10)
    query = g.say(
        "find me a {d} recipe with {kw} that takes at most {m} minutes",
        "any {d} {kw} recipes I can make in {m} minutes or less?",
        "look up {d} recipes using {kw}, {m} minutes max",
        d=DIET_WORDS[diet],
        kw=kw,
        m=limit,
    )
    titles = [x["title"] for x in peek(g, "search_recipes", query=kw, diet=diet, max_time_min=limit)["recipes"]]
    return Draft(
        query=query,
        gold=[
            act("search_recipes", query=kw, diet=diet, max_time_min=limit),
            done(f"{DIET_WORDS[diet].capitalize()} {kw} recipes within {limit} minutes: {', '.join(titles)}."),
        ],
        answer=[{"$any": [{"$name": t} for t in titles]}],
        bucket="tool_call",
        check={
            "calls": [
                {
                    "tool": "search_recipes",
                    "args": {"query": {"$contains": kw}, "diet": diet, "max_time_min": {"$range": [limit - 5, limit]}},
                }
            ]
        },
    )


@family("basic", "8.4", pattern="lookup_then_act")
def save_recipe_to_collection(g: Gen) -> Draft:
    saved = {s["recipe_id"] for s in g.rows("saved_recipes")}
    r = g.pick([r for r in recipes(g) if r["recipe_id"] not in saved])
    collection = g.pick(("Weeknight", "Family favourites", "Party food", "Meal prep", "Date night", "Quick lunches"))
    query = g.say(
        "save the {title} recipe to my {c} collection",
        "add {title} to my {c} recipes",
        'keep the recipe for {title} in my "{c}" collection',
        title=r["title"],
        c=collection,
    )
    return Draft(
        query=query,
        gold=[
            act("search_recipes", query=r["title"], limit=3),
            act("save_recipe", recipe_id=r["recipe_id"], collection=collection),
            done("Saved."),
        ],
        bucket="state_change",
        check={"insert": {"saved_recipes": [{"recipe_id": r["recipe_id"], "collection": collection}]}},
    )


@family("basic", "8.4", pattern="single_call")
def scaled_recipe_ingredients(g: Gen) -> Draft:
    r = g.pick(recipes(g))
    n = g.pick([k for k in (2, 3, 4, 6, 8, 10) if k != r["servings"]])
    key = max((w for w in r["title"].lower().replace(",", "").split() if len(w) > 3), key=len)
    query = g.say(
        "what do I need to make {title} for {n} people?",
        "give me the ingredients for {title}, scaled to {n} servings",
        "how much of everything goes into {title} for {n}?",
        title=r["title"],
        n=n,
    )
    found = peek(g, "search_recipes", query=r["title"], servings=n, limit=3)["recipes"]
    scaled = next(x for x in found if x["recipe_id"] == r["recipe_id"])["ingredients"]
    listed = ", ".join(f"{i['quantity']:g} {i['unit'] or ''} {i['name']}".replace("  ", " ") for i in scaled)
    return Draft(
        query=query,
        gold=[
            act("search_recipes", query=r["title"], servings=n, limit=3),
            done(f"For {r['title']} for {n}: {listed}."),
        ],
        # every ingredient, and the main one's scaled amount
        answer=[
            *({"$name": i["name"]} for i in scaled),
            {"$number": {"value": scaled[0]["quantity"], "tolerance": 0.01 * scaled[0]["quantity"]}},
        ],
        bucket="tool_call",
        check={"calls": [{"tool": "search_recipes", "args": {"query": {"$contains": key}, "servings": n}}]},
    )


# ---- 8.5 Grocery & Meal Planning ---------------------------------------------------------------

GROCERY = (  # (spoken, name, quantity, unit, name matcher)
    ("a dozen eggs", "Eggs", 12, "pc", "egg"),
    ("2 litres of milk", "Milk", 2, "l", "milk"),
    ("a loaf of bread", "Bread", 1, "loaf", "bread"),
    ("500 g of ground beef", "Ground beef", 500, "g", "beef"),
    ("3 avocados", "Avocados", 3, "pc", "avocado"),
    ("a bag of coffee beans", "Coffee beans", 1, "bag", "coffee"),
    ("6 apples", "Apples", 6, "pc", "apple"),
    ("a block of cheddar", "Cheddar", 1, "block", "cheddar"),
    ("1 kg of potatoes", "Potatoes", 1, "kg", "potato"),
    ("2 lemons", "Lemons", 2, "pc", "lemon"),
    ("a bunch of coriander", "Coriander", 1, "bunch", "coriander"),
    ("4 yogurts", "Yogurt", 4, "pc", "yog"),
    ("a pack of butter", "Butter", 1, "pack", "butter"),
    ("some dish soap", "Dish soap", 1, None, "soap"),
    ("toilet paper", "Toilet paper", 1, None, "toilet"),
    ("2 cans of chickpeas", "Chickpeas", 2, "can", "chickpea"),
)


# the quantities a dictated amount may be stored as (a dozen eggs: 12 eggs or 1 dozen; 1 kg: 1 kg or 1000 g)
AMOUNTS = {
    "a dozen eggs": [12, 1],
    "2 litres of milk": [2, 2000],
    "500 g of ground beef": [500, 0.5],
    "3 avocados": [3],
    "6 apples": [6],
    "1 kg of potatoes": [1, 1000],
    "2 lemons": [2],
    "4 yogurts": [4],
    "2 cans of chickpeas": [2],
}


@family("basic", "8.5", pattern="single_call")
def add_groceries(g: Gen) -> Draft:
    lists = sorted({i["list_name"] for i in g.rows("grocery_items")} | {"Groceries", "Camping trip", "Costco run"})
    list_name = g.pick(lists)
    on_list = {i["name"].lower() for i in g.rows("grocery_items", {"list_name": list_name})}
    picks = g.rng.sample([x for x in GROCERY if not any(x[4] in n for n in on_list)], g.pick((1, 2, 3)))
    spoken = " and ".join(p[0] for p in picks) if len(picks) < 3 else f"{picks[0][0]}, {picks[1][0]} and {picks[2][0]}"
    query = g.say(
        "add {s} to my {l} list",
        "put {s} on the {l} shopping list",
        "I need {s}; add them to {l}",
        s=spoken,
        l=list_name,
    )
    items = [{"name": p[1], "quantity": p[2], **({"unit": p[3]} if p[3] else {})} for p in picks]
    return Draft(
        query=query,
        gold=[act("add_grocery_items", items=items, list_name=list_name), done("Added.")],
        bucket="state_change",
        check={
            "insert": {
                "grocery_items": [
                    {
                        "name": {"$contains": p[4]},
                        "list_name": list_name,
                        **({"quantity": {"$any": AMOUNTS[p[0]]}} if p[0] in AMOUNTS else {}),
                    }
                    for p in picks
                ]
            }
        },
    )


def _free_meal(g: Gen, lo: int = 1, hi: int = 9) -> tuple[int, str]:
    planned = {(p["date"], p["meal"]) for p in g.rows("meal_plans")}
    options = [(d, m) for d in range(lo, hi + 1) for m in ("lunch", "dinner") if (g.date(d), m) not in planned]
    if not options:
        raise BuildError("no free meal slot")
    return g.pick(options)


@family("basic", "8.5", pattern="lookup_then_act")
def plan_meal_and_shop(g: Gen) -> Draft:
    unticked = {i["name"].lower() for i in g.rows("grocery_items", {"list_name": "Groceries", "checked": 0})}
    options = [
        r
        for r in recipes(g)
        if not any(i["name"].lower() in unticked for i in r["ingredients"]) and len(r["ingredients"]) <= 6
    ]
    r = g.pick(options)
    days, meal = _free_meal(g)
    query = g.say(
        "plan {title} for {meal} {when} and put its ingredients on my Groceries list",
        "I'll cook {title} for {meal} {when}: add it to the meal plan and the ingredients to Groceries",
        "schedule {title} as {meal} {when}, then add what I need for it to my Groceries list",
        title=r["title"],
        meal=meal,
        when=g.when(days),
    )
    items = [{"name": i["name"], "quantity": i["quantity"], "unit": i["unit"]} for i in r["ingredients"]]
    return Draft(
        query=query,
        gold=[
            act("search_recipes", query=r["title"], limit=3),
            act("create_meal_plan", date=g.date(days), meal=meal, recipe_id=r["recipe_id"]),
            act("add_grocery_items", items=items, list_name="Groceries", from_recipe_id=r["recipe_id"]),
            done("Planned and added the ingredients."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "meal_plans": [{"date": g.date(days), "meal": meal, "recipe_id": r["recipe_id"]}],
                "grocery_items": [
                    {"name": {"$contains": i["name"]}, "list_name": "Groceries"} for i in r["ingredients"]
                ],
            }
        },
    )


@family("basic", "8.5", pattern="friction", friction="duplicate_entity")
def replace_planned_meal(g: Gen) -> Draft:
    planned = [p for p in g.rows("meal_plans") if p["date"] >= g.date(0)]
    if not planned:
        raise BuildError("nothing planned")
    p = g.pick(planned)
    r = g.pick([r for r in recipes(g) if r["recipe_id"] != p["recipe_id"]])
    days = days_ahead(g, p["date"])
    when = g.when(days)
    query = g.say(
        "make {title} the {meal} {when} instead of what's planned",
        "replace the {meal} planned {when} with {title}",
        "change the {meal} plan {when} to {title}",
        title=r["title"],
        meal=p["meal"],
        when=when,
    )
    setv: dict[str, Any] = {"recipe_id": r["recipe_id"]}
    if r["servings"] != p["servings"]:
        setv["servings"] = {"$any": [r["servings"], p["servings"]]}
    return Draft(
        query=query,
        gold=[
            act("search_recipes", query=r["title"], limit=3),
            act("create_meal_plan", date=p["date"], meal=p["meal"], recipe_id=r["recipe_id"]),
            act("create_meal_plan", date=p["date"], meal=p["meal"], recipe_id=r["recipe_id"], replace=True),
            done(f"{title_of(g, p['recipe_id'])} is replaced by {r['title']}."),
        ],
        bucket="state_change",
        check={"update": {"meal_plans": [{"match": {"date": p["date"], "meal": p["meal"]}, "set": setv}]}},
        recovers=(ErrorType.DUPLICATE_ENTITY,),
    )


def title_of(g: Gen, recipe_id: str) -> str:
    return g.rows("world_recipes", {"recipe_id": recipe_id})[0]["title"]
