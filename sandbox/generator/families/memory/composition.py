"""Memory families of multi-record composition: the domain call combines several remembered facts."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sandbox.domains.travel.schema import CITY_AIRPORT
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import history as hist
from sandbox.generator.families._common import origin_names, peek
from sandbox.generator.families.memory.helpers import (
    DAY_NAME,
    DAYS,
    RELATIVES,
    RIDE_CHARGE,
    RIDE_IGNORE,
    Mem,
    add_check,
    ago,
    airport,
    co,
    contact,
    delete_check,
    flight_offers,
    from_home,
    helper,
    listed,
    nice_time,
    old,
    person,
    replace_check,
    ride_ok,
    served,
    slot,
)


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
    answer, facts = flight_offers(
        g, m.patches(), "what flights" in query.lower(), origin=home, destination=CITY_AIRPORT[city], date=g.date(d)
    )
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
