"""The travel domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import datetime as dt
import json
import random
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Table, insert, select

from sandbox.domains.common import CITY_CENTRES, addresses, payment_methods, transactions, world_places
from sandbox.domains.communication.schema import contacts
from sandbox.domains.travel.schema import (
    AIRLINES,
    AIRPORTS,
    CITY_AIRPORT,
    COUNTRY,
    DT_FMT,
    REALNAME_COUNTRIES,
    USD_RATE,
    device_location,
    flight_bookings,
    hotel_bookings,
    navigation_sessions,
    rides,
    saved_places,
    train_bookings,
    travel_documents,
    trip_items,
    trips,
    wallet_passes,
    world_flight_status,
    world_flights,
    world_hotel_rooms,
    world_hotels,
    world_parking_charging,
    world_trains,
)
from sandbox.domains.travel.tools import (
    Spot,
    _amount,
    _apart,
    _at,
    _free_until,
    _hash,
    _km,
    _minutes_between,
    _ride_fare_usd,
    arrival_time,
    flight_minutes,
)
from sandbox.executor import rows
from sandbox.locales import convert, country_of, minor_units
from sandbox.personas import Persona, seeder

# ---- World data -------------------------------------------------------------------------------

FLIGHT_DAYS = (-1, 14)  # flights from yesterday to two weeks ahead
TRAIN_DAYS = (0, 9)
# (origin, destination, operator, mode, number, departure, minutes, {seat class: USD price})
RAIL_SERVICES: list[tuple[str, str, str, str, str, str, int, dict[str, float]]] = [
    (
        "Beijing",
        "Shanghai",
        "China Railway",
        "train",
        "G1",
        "09:00",
        268,
        {"second": 77, "first": 130, "business": 245},
    ),
    ("Beijing", "Shanghai", "China Railway", "train", "G7", "14:00", 275, {"second": 77, "first": 130}),
    ("Beijing", "Shanghai", "China Railway", "train", "D701", "19:36", 714, {"sleeper": 110}),
    ("Beijing", "Shanghai", "Spring Coach", "bus", "B602", "18:30", 780, {"second": 42}),
    (
        "Shanghai",
        "Beijing",
        "China Railway",
        "train",
        "G2",
        "09:00",
        268,
        {"second": 77, "first": 130, "business": 245},
    ),
    ("Shanghai", "Beijing", "China Railway", "train", "G8", "14:00", 275, {"second": 77, "first": 130}),
    ("Shanghai", "Beijing", "China Railway", "train", "D702", "19:24", 722, {"sleeper": 110}),
    ("Shanghai", "Beijing", "Spring Coach", "bus", "B601", "18:00", 780, {"second": 42}),
    ("San Francisco", "Palo Alto", "Caltrain", "train", "103", "07:10", 52, {"second": 5.5}),
    ("San Francisco", "Palo Alto", "Caltrain", "train", "129", "12:30", 55, {"second": 5.5}),
    ("San Francisco", "Palo Alto", "Caltrain", "train", "153", "17:40", 50, {"second": 5.5}),
    ("San Francisco", "Palo Alto", "SamTrans", "bus", "398", "08:15", 95, {"second": 2.5}),
    ("Palo Alto", "San Francisco", "Caltrain", "train", "104", "07:45", 52, {"second": 5.5}),
    ("Palo Alto", "San Francisco", "Caltrain", "train", "130", "13:00", 55, {"second": 5.5}),
    ("Palo Alto", "San Francisco", "Caltrain", "train", "158", "18:20", 50, {"second": 5.5}),
    ("Palo Alto", "San Francisco", "SamTrans", "bus", "397", "17:30", 95, {"second": 2.5}),
]
HOTEL_NIGHT_USD = {
    "Beijing": 95,
    "Shanghai": 110,
    "San Francisco": 230,
    "Palo Alto": 210,
    "London": 210,
    "Tokyo": 160,
    "Berlin": 125,
    "Madrid": 115,
    "Seoul": 130,
    "Toronto": 170,
    "Sydney": 175,
    "Mumbai": 85,
}
HOTEL_BRANDS = [
    ("Hilton", 1.35),
    ("Marriott", 1.3),
    ("Hyatt", 1.4),
    ("Holiday Inn", 0.9),
    ("Ibis", 0.6),
    ("Atour", 0.8),
]
DISTRICTS = ["Central", "Riverside", "Old Town", "Station", "Harbour", "Park View", "Airport"]
ROOM_TYPES = [("standard", 2, 1.0), ("deluxe", 2, 1.35), ("family", 4, 1.6), ("suite", 4, 2.2)]
AMENITIES = ["breakfast", "gym", "pool", "parking", "spa", "airport_shuttle", "ev_charging", "pet_friendly"]
CONNECTORS = {"CN": ["gbt", "ccs"], "JP": ["chademo", "ccs"], "US": ["ccs", "chademo"]}
SPOT_PRICES = {"hour": (1.5, 6.0, (40, 300)), "litre": (0.9, 1.7, (6, 16)), "kWh": (0.25, 0.6, (4, 12))}  # USD, spaces
STREETS = ["Garden Road", "Harbor Street", "Lake Avenue", "Station Road", "Market Street", "Park Avenue"]


@dataclass
class _Seed:
    """What the travel seeders share: the persona, its clock, money and id counters."""

    conn: Connection
    rng: random.Random
    persona: Persona
    now: dt.datetime
    currency: str
    rate: float

    @property
    def stamp(self) -> str:
        return self.persona.now

    def ago(self, days: float) -> str:
        return (self.now - dt.timedelta(days=days)).isoformat()

    def at(self, days: int, hm: str) -> str:
        return f"{self.now.date() + dt.timedelta(days=days)}T{hm}"

    def hours(self, hours: float) -> str:
        return (self.now + dt.timedelta(hours=hours)).strftime(DT_FMT)

    def money(self, usd: float) -> float:
        return _amount(usd * self.rate)


def _next_number(conn: Connection, tbl: Table, prefix: str) -> int:
    """One above the highest ``<prefix>_N`` already in the table (another domain may have seeded some)."""
    key = next(iter(tbl.primary_key.columns))
    ids = conn.execute(select(key).where(key.like(f"{prefix}\\_%", escape="\\"))).scalars()
    return max((int(i.rsplit("_", 1)[1]) for i in ids if i.rsplit("_", 1)[1].isdigit()), default=0) + 1


def _seed_places(s: _Seed, places: list[dict[str, Any]]) -> dict[str, Spot]:
    """Saved places (home, work, three favourites), where the phone is, and parking/fuel/charging details."""
    spots: dict[str, Spot] = {
        a.label: Spot(a.label, a.address_line, a.city, a.lat, a.lon)
        for a in s.conn.execute(select(addresses).where(addresses.c.label.in_(("Home", "Work"))))
    }
    local = [p for p in places if p["city"] == s.persona.home_city]
    for label, category in (("Gym", "gym"), ("Coffee", "cafe"), ("Groceries", "supermarket")):
        p = s.rng.choice([x for x in local if x["category"] == category])
        spots[label] = Spot(p["name"], p["address"], p["city"], p["lat"], p["lon"], p["place_id"])
    s.conn.execute(
        insert(saved_places),
        [
            {
                "label": label,
                "kind": label.lower() if label in ("Home", "Work") else "favorite",
                "place_id": spot.place_id,
                "name": spot.name,
                "address": spot.address,
                "city": spot.city,
                "lat": spot.lat,
                "lon": spot.lon,
                "created_at": s.ago(200),
                "updated_at": s.ago(200),
            }
            for label, spot in spots.items()
        ],
    )
    home = spots["Home"]
    s.conn.execute(
        insert(device_location).values(
            device="phone",
            place_id=None,
            name=home.name,
            address=home.address,
            city=home.city,
            lat=home.lat,
            lon=home.lon,
            accuracy_m=12,
            created_at=s.stamp,
            updated_at=s.stamp,
        )
    )
    details = []
    for p in places:
        unit = {"parking": "hour", "gas_station": "litre", "ev_charger": "kWh"}.get(p["category"])
        if unit is None:
            continue
        lo, hi, spaces = SPOT_PRICES[unit]
        plugs = CONNECTORS.get(COUNTRY.get(p["city"], ""), ["type2", "ccs"])
        total = s.rng.randint(*spaces)
        details.append(
            {
                "place_id": p["place_id"],
                "price": round(s.rng.uniform(lo, hi) * s.rate, 2),
                "price_unit": unit,
                "connectors_json": json.dumps(
                    sorted(s.rng.sample(plugs, s.rng.randint(1, len(plugs)))) if unit == "kWh" else []
                ),
                "total_spaces": total,
                "free_spaces": 0 if s.rng.random() < 0.15 else s.rng.randint(1, total),
            }
        )
    s.conn.execute(insert(world_parking_charging), details)
    return spots


def _seed_flights(s: _Seed, world_cities: set[str]) -> list[dict[str, Any]]:
    """Daily flights from the home airport to every other airport and back; busier to the persona's cities."""
    hub = CITY_AIRPORT[s.persona.home_city]
    numbers: dict[str, int] = {}
    found: list[dict[str, Any]] = []
    days = [s.now.date() + dt.timedelta(days=k) for k in range(FLIGHT_DAYS[0], FLIGHT_DAYS[1] + 1)]
    for code in sorted(AIRPORTS):
        city, country = AIRPORTS[code]
        if code == hub:
            continue
        busy = city in world_cities or country == AIRPORTS[hub][1]
        for a, b in ((hub, code), (code, hub)):
            km = _km(*CITY_CENTRES[AIRPORTS[a][0]], *CITY_CENTRES[AIRPORTS[b][0]])
            carriers = AIRLINES[AIRPORTS[a][1]] + AIRLINES[AIRPORTS[b][1]]
            slots = [(s.rng.randint(6, 11), 0), (s.rng.randint(15, 21), int(km > 3000))][: 2 if busy else 1]
            for n, (hour, stops) in enumerate(slots):
                carrier, airline = carriers[n % len(carriers)]
                numbers[carrier] = numbers.get(carrier, 100) + s.rng.randint(3, 60)
                number, minute = f"{carrier}{numbers[carrier]}", s.rng.choice((0, 15, 30, 45))
                length = round(km / 820 * 60 + 35 + 95 * stops)
                cabins = [("economy", 1.0), ("business", 3.3)] if busy and n == 0 else [("economy", 1.0)]
                for day in days:
                    depart = dt.datetime.combine(day, dt.time(hour, minute))
                    factor = s.rng.uniform(0.85, 1.3) * (0.8 if stops else 1.0)
                    for cabin, mult in cabins:
                        seats = (
                            s.rng.randint(0, 9)
                            if cabin == "business"
                            else (0 if s.rng.random() < 0.05 else s.rng.randint(1, 80))
                        )
                        found.append(
                            {
                                "flight_number": number,
                                "airline": airline,
                                "origin": a,
                                "destination": b,
                                "depart_at": depart.strftime(DT_FMT),
                                "arrive_at": arrival_time(a, b, depart.strftime(DT_FMT), length),
                                "stops": stops,
                                "cabin": cabin,
                                "price": s.money((60 + 0.085 * km) * factor * mult),
                                "seats_left": seats,
                                "international": int(AIRPORTS[a][1] != AIRPORTS[b][1]),
                            }
                        )
    found.sort(key=lambda f: (f["depart_at"], f["flight_number"], f["cabin"]))
    for i, f in enumerate(found, start=1):
        f["flight_id"] = f"flight_{i:03d}"
    s.conn.execute(insert(world_flights), found)
    return found


def _seed_flight_status(s: _Seed, flights: list[dict[str, Any]], on_time: set[str]) -> None:
    """Live status for flights from yesterday to tomorrow (``on_time`` flight numbers keep to schedule)."""
    first, last = (s.now.date() + dt.timedelta(days=d) for d in (-1, 1))
    now = s.now.strftime(DT_FMT)
    seen, found = set(), []
    for f in flights:
        day = f["depart_at"][:10]
        if not first.isoformat() <= day <= last.isoformat() or (f["flight_number"], day) in seen:
            continue
        seen.add((f["flight_number"], day))
        roll = s.rng.random()
        cancelled = roll < 0.04 and f["flight_number"] not in on_time
        late = 0.04 <= roll < 0.24 and f["flight_number"] not in on_time
        delay = s.rng.choice((15, 25, 40, 65, 90, 140)) if late else 0
        leave = (_at(f["depart_at"]) + dt.timedelta(minutes=delay)).strftime(DT_FMT)
        land = (_at(f["depart_at"]) + dt.timedelta(minutes=flight_minutes(f) + delay)).strftime(DT_FMT)
        status = (
            "cancelled"
            if cancelled
            else "landed"
            if land <= now
            else "departed"
            if leave <= now
            else "boarding"
            if _minutes_between(now, leave) <= 40
            else "delayed"
            if delay
            else "scheduled"
        )
        found.append(
            {
                "flight_number": f["flight_number"],
                "date": day,
                "status": status,
                "delay_min": delay,
                "gate": None if cancelled else f"{s.rng.choice('ABCDE')}{s.rng.randint(1, 60)}",
            }
        )
    s.conn.execute(insert(world_flight_status), found)


def _seed_hotels(s: _Seed, places: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Three chain hotels per city, plus the hotels among the world's places; three room types each."""
    hotels: list[dict[str, Any]] = []
    for city in sorted(CITY_CENTRES):
        lat, lon = CITY_CENTRES[city]
        for (brand, factor), district in zip(s.rng.sample(HOTEL_BRANDS, 3), s.rng.sample(DISTRICTS, 3)):
            spread = 0.15 if district == "Airport" else 0.04
            hotels.append(
                {
                    "name": f"{brand} {city} {district}",
                    "brand": brand,
                    "city": city,
                    "place_id": None,
                    "address": f"{s.rng.randint(1, 300)} {s.rng.choice(STREETS)}",
                    "lat": round(lat + s.rng.uniform(-spread, spread), 5),
                    "lon": round(lon + s.rng.uniform(-spread, spread), 5),
                    "rating": round(s.rng.uniform(3.6, 4.9), 1),
                    "factor": factor,
                }
            )
        for p in (p for p in places if p["city"] == city and p["category"] == "hotel"):
            hotels.append(
                {
                    "name": p["name"],
                    "brand": None,
                    "city": city,
                    "place_id": p["place_id"],
                    "address": p["address"],
                    "lat": p["lat"],
                    "lon": p["lon"],
                    "rating": p["rating"] or 4.0,
                    "factor": 1.0,
                }
            )
    rooms: list[dict[str, Any]] = []
    for i, h in enumerate(hotels, start=1):
        h["hotel_id"] = f"hotel_{i:03d}"
        h["amenities_json"] = json.dumps(sorted(["wifi", *s.rng.sample(AMENITIES, s.rng.randint(2, 5))]))
        h["currency"] = country_of(h["city"]).currency  # a Toronto hotel in dollars for every visitor
        night = HOTEL_NIGHT_USD[h["city"]] * h.pop("factor") * USD_RATE[h["currency"]]
        for room_type, capacity, mult in sorted(s.rng.sample(ROOM_TYPES, 3), key=lambda t: t[2]):
            rooms.append(
                {
                    "room_id": f"room_{len(rooms) + 1:03d}",
                    "hotel_id": h["hotel_id"],
                    "room_type": room_type,
                    "capacity": capacity,
                    "price": _amount(night * mult * s.rng.uniform(0.9, 1.15)),
                    "rooms_left": 0 if s.rng.random() < 0.08 else s.rng.randint(1, 12),
                    "free_cancel_days": s.rng.choice((0, 1, 2, 3)),
                }
            )
    s.conn.execute(insert(world_hotels), hotels)
    s.conn.execute(insert(world_hotel_rooms), rooms)
    return rooms


def _seed_trains(s: _Seed) -> list[dict[str, Any]]:
    found = []
    for day in range(TRAIN_DAYS[0], TRAIN_DAYS[1] + 1):
        for origin, destination, operator, mode, number, hm, minutes, classes in RAIL_SERVICES:
            depart = _at(s.at(day, hm))
            for seat_class, usd in classes.items():
                found.append(
                    {
                        "number": number,
                        "operator": operator,
                        "mode": mode,
                        "origin": origin,
                        "destination": destination,
                        "depart_at": depart.strftime(DT_FMT),
                        "arrive_at": (depart + dt.timedelta(minutes=minutes)).strftime(DT_FMT),
                        "seat_class": seat_class,
                        "price": _amount(usd * USD_RATE[country_of(origin).currency]),
                        "currency": country_of(origin).currency,
                        "seats_left": 0 if s.rng.random() < 0.06 else s.rng.randint(1, 120),
                        "realname": int(COUNTRY[origin] in REALNAME_COUNTRIES),
                    }
                )
    found.sort(key=lambda t: (t["depart_at"], t["number"], t["seat_class"]))
    for i, t in enumerate(found, start=1):
        t["train_id"] = f"train_{i:03d}"
    s.conn.execute(insert(world_trains), found)
    return found


def _passport(s: _Seed, country: str) -> str:
    return f"{'E' if country == 'CN' else country[0]}{s.rng.randint(10_000_000, 99_999_999)}"


def _seed_documents(s: _Seed) -> dict[str, str]:
    """The user's passport (and national id card where there is one): kind -> number."""
    country = COUNTRY[s.persona.home_city]
    docs = {"passport": _passport(s, country)}
    if country in REALNAME_COUNTRIES:
        docs["national_id"] = f"110105{s.rng.randint(1970, 1999)}0{s.rng.randint(101, 928)}{s.rng.randint(1000, 9999)}"
    expires = f"{s.now.year + s.rng.randint(2, 8)}-{s.rng.randint(1, 12):02d}-15"
    s.conn.execute(
        insert(travel_documents),
        [
            {
                "document_id": f"doc_{i:03d}",
                "kind": kind,
                "number": number,
                "country": country,
                "expires_on": expires if kind == "passport" else None,
                "created_at": s.ago(400),
                "updated_at": s.ago(400),
            }
            for i, (kind, number) in enumerate(docs.items(), start=1)
        ],
    )
    return docs


@dataclass
class _Ledger:
    """The seeded bookings' payments, written as transactions at the end."""

    seed: _Seed
    entries: list[dict[str, Any]]

    def pay(
        self, ref_id: str, amount: float, merchant: str, when: str, method: str = "pm_001", refunded: bool = False
    ) -> None:
        self.entries.append(
            {
                "method_id": method,
                "amount": -round(amount, 2),
                "currency": self.seed.currency,
                "merchant": merchant,
                "category": "transport" if ref_id.startswith("ride_") else "travel",
                "ref_id": ref_id,
                "ts": when[:19],
                "status": "refunded" if refunded else "posted",
                "created_at": when[:19],
                "updated_at": when[:19],
            }
        )

    def write(self) -> None:
        self.entries.sort(key=lambda t: (t["ts"], t["ref_id"]))
        first = _next_number(self.seed.conn, transactions, "txn")
        for n, t in enumerate(self.entries, start=first):
            t["txn_id"] = f"txn_{n:03d}"
        self.seed.conn.execute(insert(transactions), self.entries)


@dataclass
class _Story:
    """The user's journeys: home yesterday, a flight tomorrow, a holiday in nine days."""

    back: dict[str, Any]  # yesterday's flight home (checked in)
    soon: dict[str, Any]  # tomorrow's flight out (check-in open now)
    out: dict[str, Any]  # the holiday's outbound flight, in nine days
    ret: dict[str, Any]  # the holiday's return flight, in fourteen days
    party: list[dict[str, Any]]  # the holiday's travellers: the user and, if any, the spouse
    spouse_id: str | None

    def city(self, flight: dict[str, Any], end: str) -> str:
        return AIRPORTS[flight[end]][0]


def _plan_story(s: _Seed, flights: list[dict[str, Any]], docs: dict[str, str]) -> _Story:
    hub = CITY_AIRPORT[s.persona.home_city]

    def first(origin: str | None, destination: str | None, lo: str, hi: str) -> dict[str, Any]:
        return next(
            f
            for f in flights
            if lo <= f["depart_at"] < hi
            and f["cabin"] == "economy"
            and origin in (None, f["origin"])
            and destination in (None, f["destination"])
        )

    back = first(None, hub, s.hours(-34), s.hours(-4))
    soon = first(hub, None, s.hours(3), s.hours(22))
    away = sorted(
        {
            f["destination"]
            for f in flights
            if f["origin"] == hub
            and f["cabin"] == "business"
            and f["destination"] != soon["destination"]
            and f["international"]
        }
    )
    holiday = s.rng.choice(away)
    spouse = s.conn.execute(
        select(contacts.c.contact_id, contacts.c.name)
        .where(contacts.c.relationship == "spouse")
        .order_by(contacts.c.contact_id)
    ).first()
    me = {"name": s.persona.name, "id_number": docs["passport"]}
    party = [me] + ([{"name": spouse.name, "id_number": _passport(s, COUNTRY[s.persona.home_city])}] if spouse else [])
    return _Story(
        back,
        soon,
        first(hub, holiday, s.at(9, "00:00"), s.at(10, "00:00")),
        first(holiday, hub, s.at(14, "00:00"), s.at(15, "00:00")),
        party,
        spouse.contact_id if spouse else None,
    )


def _seed_flight_bookings(s: _Seed, story: _Story, ledger: _Ledger) -> None:
    me = story.party[:1]
    legs = [
        (story.back, me, s.ago(30), True),
        (story.soon, me, s.ago(12), False),
        (story.out, story.party, s.ago(20), False),
        (story.ret, story.party, s.ago(20), False),
    ]
    found = []
    for i, (f, people, created, flown) in enumerate(legs, start=1):
        bid = f"fbooking_{i:03d}"
        seats = [f"{24 + n}A" for n in range(len(people))] if flown else []
        price = round(f["price"] * len(people), 2)
        found.append(
            {
                "booking_id": bid,
                "offer_id": None,
                "flight_id": f["flight_id"],
                **{
                    k: f[k]
                    for k in ("flight_number", "airline", "origin", "destination", "depart_at", "arrive_at", "cabin")
                },
                "passengers_json": json.dumps(people),
                "seat_preference": "window",
                "seats_json": json.dumps(seats),
                "checked_bags": int(len(people) > 1),
                "status": "confirmed",
                "checked_in": int(flown),
                "boarding_pass": f"BP{_hash(bid, *seats):010d}" if flown else None,
                "price": price,
                "currency": s.currency,
                "payment_method_id": "pm_001",
                "created_at": created,
                "updated_at": created,
            }
        )
        ledger.pay(bid, price, f["airline"], created)
    s.conn.execute(insert(flight_bookings), found)
    back = story.back
    s.conn.execute(
        insert(wallet_passes).values(
            pass_id="pass_001",
            kind="boarding_pass",
            ref_id="fbooking_001",
            barcode=found[0]["boarding_pass"],
            title=f"{back['flight_number']} {back['origin']}-{back['destination']} {back['depart_at']} seat 24A",
            created_at=s.ago(1.5),
            updated_at=s.ago(1.5),
        )
    )


def _seed_hotel_bookings(s: _Seed, story: _Story, rooms: list[dict[str, Any]], ledger: _Ledger) -> list[str]:
    """A finished stay, a cancelled one and the holiday's; returns the hotel names."""
    h = world_hotels.c
    hotels = {x.hotel_id: x for x in s.conn.execute(select(h.hotel_id, h.name, h.city, h.currency))}
    stays = [
        (story.city(story.back, "origin"), -5, -1, "confirmed", s.ago(40), 1),
        (story.city(story.soon, "destination"), 20, 22, "cancelled", s.ago(25), 1),
        (story.city(story.out, "destination"), 9, 14, "confirmed", s.ago(20), len(story.party)),
    ]
    found = []
    for i, (city, first, last, status, created, guests) in enumerate(stays, start=1):
        room = next(r for r in rooms if hotels[r["hotel_id"]].city == city and r["room_type"] in ("standard", "deluxe"))
        bid, name, price_currency = (
            f"hbooking_{i:03d}",
            hotels[room["hotel_id"]].name,
            hotels[room["hotel_id"]].currency,
        )
        check_in, check_out = s.at(first, "00:00")[:10], s.at(last, "00:00")[:10]
        total = round(room["price"] * (last - first), 2)
        found.append(
            {
                "booking_id": bid,
                "offer_id": None,
                "hotel_id": room["hotel_id"],
                "hotel_name": name,
                "room_id": room["room_id"],
                "room_type": room["room_type"],
                "city": city,
                "check_in": check_in,
                "check_out": check_out,
                "rooms": 1,
                "guests": guests,
                "guest_name": s.persona.name,
                "special_requests": None,
                "loyalty_number": None,
                "status": status,
                "price": total,
                "currency": price_currency,
                "free_cancel_until": _free_until(check_in, room["free_cancel_days"]),
                "payment_method_id": "pm_001",
                "created_at": created,
                "updated_at": created,
            }
        )
        paid = convert(total, price_currency, s.currency)  # a stay abroad paid from home, converted
        ledger.pay(bid, paid, name, created, refunded=status == "cancelled")
    s.conn.execute(insert(hotel_bookings), found)
    return [h["hotel_name"] for h in found]


def _seed_train_booking(s: _Seed, trains: list[dict[str, Any]], docs: dict[str, str], ledger: _Ledger) -> None:
    """A ticket in five days on the first service leaving the user's city, where one runs."""
    day = s.at(5, "00:00")[:10]
    train = next(
        (
            t
            for t in trains
            if t["origin"] in (s.persona.home_city, s.persona.work_city)
            and t["depart_at"].startswith(day)
            and t["seats_left"] > 0
        ),
        None,
    )
    if train is None:
        return
    people = [{"name": s.persona.name, "id_number": docs.get("national_id") if train["realname"] else None}]
    s.conn.execute(
        insert(train_bookings).values(
            booking_id="tbooking_001",
            offer_id=None,
            train_id=train["train_id"],
            number=train["number"],
            mode=train["mode"],
            origin=train["origin"],
            destination=train["destination"],
            depart_at=train["depart_at"],
            seat_class=train["seat_class"],
            passengers_json=json.dumps(people),
            seats_json=json.dumps(["Car 05 Seat 8C"]),
            seat_preference="aisle",
            status="confirmed",
            price=train["price"],
            currency=train["currency"],
            payment_method_id="pm_002",
            created_at=s.ago(3),
            updated_at=s.ago(3),
        )
    )
    paid = convert(train["price"], train["currency"], s.currency)
    ledger.pay("tbooking_001", paid, train["operator"], s.ago(3), method="pm_002")


def _seed_trips(s: _Seed, story: _Story, hotel_names: list[str]) -> None:
    past, other, holiday = (
        story.city(story.back, "origin"),
        story.city(story.soon, "destination"),
        story.city(story.out, "destination"),
    )
    leaves = (_at(story.soon["depart_at"]).date() - s.now.date()).days
    found = [
        ("trip_001", f"Trip to {past}", past, -5, -1, [], None),
        ("trip_002", f"{other} visit", other, leaves, leaves + 2, [], "Meetings; bring the laptop charger."),
        (
            "trip_003",
            f"Holiday in {holiday}",
            holiday,
            9,
            14,
            [story.spouse_id] if story.spouse_id else [],
            "Anniversary trip.",
        ),
    ]
    s.conn.execute(
        insert(trips),
        [
            {
                "trip_id": tid,
                "name": name,
                "destination": dest,
                "start_date": s.at(a, "00:00")[:10],
                "end_date": s.at(b, "00:00")[:10],
                "travelers_json": json.dumps(who),
                "notes": notes,
                "created_at": s.ago(40 - 10 * i),
                "updated_at": s.ago(40 - 10 * i),
            }
            for i, (tid, name, dest, a, b, who, notes) in enumerate(found)
        ],
    )
    items = [
        ("trip_001", "hotel", f"Stay at {hotel_names[0]}", s.at(-5, "15:00"), "hbooking_001"),
        ("trip_001", "flight", f"Flight {story.back['flight_number']} home", story.back["depart_at"], "fbooking_001"),
        (
            "trip_002",
            "flight",
            f"Flight {story.soon['flight_number']} to {other}",
            story.soon["depart_at"],
            "fbooking_002",
        ),
        (
            "trip_003",
            "flight",
            f"Flight {story.out['flight_number']} to {holiday}",
            story.out["depart_at"],
            "fbooking_003",
        ),
        ("trip_003", "hotel", f"Stay at {hotel_names[2]}", s.at(9, "15:00"), "hbooking_003"),
        ("trip_003", "activity", "Old town walking tour", s.at(11, "10:00"), None),
        ("trip_003", "flight", f"Flight {story.ret['flight_number']} home", story.ret["depart_at"], "fbooking_004"),
    ]
    s.conn.execute(
        insert(trip_items),
        [
            {
                "item_id": f"tripitem_{i:03d}",
                "trip_id": tid,
                "item_type": kind,
                "title": title,
                "start": start,
                "end": None,
                "ref_id": ref,
                "location": None,
                "created_at": s.ago(10),
                "updated_at": s.ago(10),
            }
            for i, (tid, kind, title, start, ref) in enumerate(items, start=1)
        ],
    )


def _seed_rides(
    s: _Seed, spots: dict[str, Spot], places: list[dict[str, Any]], flight_at: str, ledger: _Ledger
) -> None:
    """Two months of rides between the user's usual places, one cancelled, one booked for tomorrow's flight."""

    def spot(p: dict[str, Any]) -> Spot:
        return Spot(p["name"], p["address"], p["city"], p["lat"], p["lon"], p["place_id"])

    local = [p for p in places if p["city"] == s.persona.home_city]
    usual = [spots[k] for k in ("Home", "Work", "Gym", "Coffee")] + [
        spot(p) for p in local if p["category"] in ("restaurant", "cinema", "museum", "station")
    ]
    made: list[tuple[str, Spot, Spot, str, str, str | None]] = []
    for _ in range(18):
        a, b = s.rng.sample(usual, 2)
        went = (s.now - dt.timedelta(days=s.rng.randint(2, 60))).replace(
            hour=s.rng.randint(7, 22), minute=s.rng.choice((0, 10, 20, 30, 40, 50)), second=0
        )
        made.append((went.isoformat(), a, b, s.rng.choice(("economy", "economy", "comfort", "xl")), "completed", None))
    made.append((s.at(-4, "19:05:00"), spots["Work"], spots["Home"], "comfort", "cancelled", None))
    pickup = (_at(flight_at) - dt.timedelta(minutes=150)).strftime(DT_FMT)
    if pickup > s.hours(0.5):
        airport = next(p for p in local if p["category"] == "airport")
        made.append((s.ago(0.5), spots["Home"], spot(airport), "comfort", "requested", pickup))
    made.sort(key=lambda t: t[0])
    found = []
    for i, (when, a, b, kind, status, scheduled) in enumerate(made, start=1):
        rid, method = f"ride_{i:03d}", "pm_002" if i % 3 else "pm_003"
        fare = minor_units(_ride_fare_usd(_apart(a, b), kind) * s.rate, s.currency)
        found.append(
            {
                "ride_id": rid,
                "quote_id": None,
                "pickup": a.label,
                "dropoff": b.label,
                "ride_type": kind,
                "passengers": 1,
                "fare": fare,
                "currency": s.currency,
                "status": status,
                "scheduled_at": scheduled,
                "note": None,
                "cancel_reason": "Plans changed" if status == "cancelled" else None,
                "payment_method_id": method,
                "created_at": when,
                "updated_at": when,
            }
        )
        ledger.pay(rid, fare, "RideNow", when, method=method, refunded=status == "cancelled")
    s.conn.execute(insert(rides), found)
    sessions = [("Home", "Work", 9), ("Home", "Gym", 5), ("Work", "Home", 2)]
    s.conn.execute(
        insert(navigation_sessions),
        [
            {
                "session_id": f"nav_{i:03d}",
                "origin": spots[a].label,
                "destination": spots[b].label,
                "destination_place_id": spots[b].place_id,
                "stops_json": "[]",
                "mode": "driving",
                "route_index": 0,
                "distance_km": round(_apart(spots[a], spots[b]) * 1.25, 1),
                "eta": s.at(-days, "09:00"),
                "status": "ended",
                "created_at": s.ago(days),
                "updated_at": s.ago(days),
            }
            for i, (a, b, days) in enumerate(sessions, start=1)
        ],
    )


@seeder
def seed_travel(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """Saved places and location, the flight/hotel/train catalogue, bookings and trips, ride history."""
    pm = payment_methods.c
    currency = conn.execute(select(pm.currency).order_by(pm.is_default.desc(), pm.method_id)).scalar() or "USD"
    s = _Seed(conn, rng, persona, dt.datetime.fromisoformat(persona.now), currency, USD_RATE.get(currency, 1.0))
    places = rows(conn.execute(select(world_places).order_by(world_places.c.place_id)))
    spots = _seed_places(s, places)
    flights = _seed_flights(s, {p["city"] for p in places})
    rooms = _seed_hotels(s, places)
    trains = _seed_trains(s)
    docs = _seed_documents(s)
    story = _plan_story(s, flights, docs)
    ledger = _Ledger(s, [])
    _seed_flight_bookings(s, story, ledger)
    _seed_flight_status(s, flights, {f["flight_number"] for f in (story.back, story.soon, story.out, story.ret)})
    _seed_trips(s, story, _seed_hotel_bookings(s, story, rooms, ledger))
    _seed_train_booking(s, trains, docs, ledger)
    _seed_rides(s, spots, places, story.soon["depart_at"], ledger)
    ledger.write()
