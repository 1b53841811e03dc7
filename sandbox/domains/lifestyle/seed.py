"""The lifestyle domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import datetime as dt
import json
import random
from typing import Any

from sqlalchemy import Connection, insert, select

from sandbox.domains.common import STREETS, world_places
from sandbox.domains.lifestyle.schema import (
    COURIER_FEES,
    DT_FMT,
    DURATION_MIN,
    HOME_SERVICES,
    courier_orders,
    event_tickets,
    membership_cards,
    service_appointments,
    world_events,
    world_parcels,
    world_service_providers,
    world_service_slots,
)
from sandbox.domains.lifestyle.tools import _qr, _tracking
from sandbox.domains.shopping.seed import CARRIERS, local_price, seed_payments, tracking_number, world_currency
from sandbox.executor import normalise_phone, rows
from sandbox.locales import business_phone, convert, country_of, figures, mobile_phone, shelf_price
from sandbox.personas import Persona, seeder
from sandbox.schema import apps

# ---- World data ---------------------------------------------------------------------------------

# (category, title, venue, USD price of the cheapest ticket, tiered seating); "{city}" is filled in.
EVENT_TEMPLATES = [
    ("concert", "{city} Symphony Orchestra: Summer Gala", "{city} Concert Hall", 40, True),
    ("concert", "Midnight Echoes World Tour", "{city} Arena", 70, True),
    ("concert", "Jazz Night with the Blue Quartet", "Blue Note {city}", 35, False),
    ("exhibition", "Impressionist Masters: Monet to Cezanne", "{city} Art Museum", 20, False),
    ("exhibition", "Van Gogh Immersive Experience", "{city} Expo Center", 28, False),
    ("exhibition", "Future Cities: Architecture Biennale", "{city} Design Hall", 15, False),
    ("museum", "{city} Science & Technology Museum general admission", "{city} Science & Technology Museum", 12, False),
    ("museum", "{city} Natural History Museum general admission", "{city} Natural History Museum", 10, False),
    ("sports", "{city} FC vs Harbor United", "{city} Stadium", 30, True),
    ("sports", "International Tennis Open: Quarterfinals", "{city} Tennis Center", 45, True),
    ("theater", "Swan Lake (National Ballet)", "{city} Grand Theatre", 50, True),
    ("theater", "The Phantom of the Opera", "{city} Opera House", 60, True),
    ("theater", "Stand-up Comedy Night", "The Laugh Box {city}", 18, False),
    ("family", "Ocean World Aquarium day pass", "{city} Ocean World", 25, False),
    ("family", "Puppet Theatre: The Little Prince", "{city} Children's Theatre", 12, False),
    ("family", "Dinosaur Park Adventure", "{city} Dinosaur Park", 22, False),
    ("festival", "{city} Food & Wine Festival", "{city} Riverside Park", 15, False),
    ("festival", "Summer Music Festival", "{city} Expo Grounds", 55, True),
    ("festival", "Lantern & Light Festival", "{city} Old Town", 8, False),
]
# Landmarks sold through their own apps or with real-name booking:
# (city, title, venue, USD price, api_bookable, realname_required, booking app)
LANDMARKS = [
    ("Beijing", "Palace Museum general admission", "Palace Museum", 8, 0, 1, "palacemuseum"),
    ("Beijing", "National Museum of China general admission", "National Museum of China", 0, 1, 1, None),
    ("San Francisco", "de Young Museum general admission", "de Young Museum", 20, 0, 0, "deyoung"),
    ("San Francisco", "SFMOMA general admission", "San Francisco Museum of Modern Art", 30, 1, 0, None),
    ("London", "Tower of London admission", "Tower of London", 38, 0, 0, "toweroflondon"),
    ("Tokyo", "Ghibli Museum admission", "Ghibli Museum, Mitaka", 7, 0, 1, "ghiblimuseum"),
]
# The paper's Shanghai museum (task SA1): evt_044 in every world, sold only in its own app.
MUSEUM_ANCHOR = ("Shanghai", "Shanghai Museum (East) general admission", "Shanghai Museum (East)", 7, 0, 1, "shmuseum")
ANCHOR_INDEX = 43
EVENTS_PER_CITY = 9
TIMES = {
    "concert": ["19:30"],
    "exhibition": ["10:00", "14:00"],
    "museum": ["09:00", "13:00"],
    "sports": ["15:00", "19:35"],
    "theater": ["14:00", "19:30"],
    "family": ["10:00", "14:30"],
    "festival": ["11:00"],
}

# (name, {service: USD base price}, online booking)
PROVIDERS = [
    ("Sparkle Home Cleaning", {"cleaning": 60}, 1),
    ("TidyNest Cleaners", {"cleaning": 55, "laundry": 25}, 1),
    ("QuickFix Plumbing", {"plumbing": 80}, 1),
    ("PipePro Services", {"plumbing": 70}, 0),
    ("BrightSpark Electric", {"electrician": 75}, 1),
    ("FixIt Appliance Repair", {"appliance_repair": 70, "electrician": 80}, 1),
    ("ApplianceDoc", {"appliance_repair": 65}, 1),
    ("SwiftMove Movers", {"moving": 250}, 1),
    ("EasyHaul Moving", {"moving": 220}, 1),
    ("WashDash Laundry", {"laundry": 20}, 1),
    ("Studio 8 Salon", {"haircut": 30, "nail": 35}, 1),
    ("Urban Cuts Barbershop", {"haircut": 22}, 0),
    ("Lotus Spa & Massage", {"massage": 70, "nail": 40}, 1),
    ("Serenity Massage", {"massage": 60}, 1),
    ("Polished Nail Bar", {"nail": 30}, 1),
    ("Shine Auto Spa", {"car_wash": 20}, 1),
    ("SpeedyWash", {"car_wash": 15}, 1),
    ("Pawfect Grooming", {"pet_grooming": 45}, 1),
    ("Happy Tails Pet Spa", {"pet_grooming": 50}, 1),
]
SLOT_TIMES = ["10:00", "12:00", "15:00", "18:00"]
SLOT_DAYS = 4
PARCEL_SENDERS = [
    "Grandma",
    "Acme Books",
    "Mobile Store",
    "Uni Alumni Office",
    "Photo Print Lab",
    "Tea House",
    "Sports Club",
    "Pharmacy Online",
    "Camera Repair Center",
    "Friend abroad",
    "Bank card center",
    "Flower Shop",
]
PARCEL_STATUSES = [
    "in_transit",
    "in_transit",
    "in_transit",
    "out_for_delivery",
    "out_for_delivery",
    "delivered",
    "delivered",
    "delivered",
    "delivered",
    "exception",
    "ready_for_pickup",
    "returned_to_sender",
]
PARCEL_STEPS = ["picked_up", "in_transit", "arrived_at_hub", "out_for_delivery"]
CARDS = {
    "CNY": [
        ("Starbucks Rewards", "6104 2217 8890 3321", 320),
        ("IKEA Family", "IF-88120047", 1560),
        ("Hilton Honors", "HH123456", 48200),
    ],
    "USD": [
        ("Starbucks Rewards", "6104 9931 2210 7784", 410),
        ("Costco", "1118-4471-2093", 0),
        ("Hilton Honors", "HH654321", 23150),
    ],
}


def _fmt(at: dt.datetime) -> str:
    return at.strftime(DT_FMT)


def _sessions(rng: random.Random, category: str, today: dt.date) -> list[str]:
    first = today + dt.timedelta(days=rng.randint(1, 40))
    days = [first + dt.timedelta(days=d) for d in range(rng.randint(1, 3))]
    return sorted(f"{d}T{t}" for d in days for t in TIMES[category])


def _event_row(
    rng: random.Random,
    city: str,
    category: str,
    title: str,
    venue: str,
    usd: float,
    tiers: bool,
    venues: dict[tuple[str, str], str],
) -> dict[str, Any]:
    currency = country_of(city).currency  # priced where it is: a Tokyo concert in yen for every visitor
    price = local_price(usd, currency) if usd else 0.0
    sections = (
        {"B": price, "A": local_price(usd * 1.8, currency), "VIP": local_price(usd * 3.5, currency)} if tiers else {}
    )
    roll = rng.random()
    seats = 0 if roll < 0.08 else rng.randint(1, 3) if roll < 0.16 else rng.randint(20, 800)
    return {
        "title": title.format(city=city),
        "category": category,
        "venue": venue.format(city=city),
        "venue_place_id": venues.get((city, category)),
        "city": city,
        "price": price,
        "sections_json": json.dumps(sections),
        "currency": currency,
        "seats_left": seats,
        "api_bookable": 1,
        "realname_required": 0,
        "booking_app_id": None,
    }


def _events(
    rng: random.Random, cities: list[str], home: str, today: dt.date, venues: dict[tuple[str, str], str]
) -> list[dict[str, Any]]:
    made = []
    for city in cities:
        for category, title, venue, usd, tiers in rng.sample(EVENT_TEMPLATES, EVENTS_PER_CITY + 3 * (city == home)):
            ev = _event_row(rng, city, category, title, venue, usd, tiers, venues)
            made.append({**ev, "sessions_json": json.dumps(_sessions(rng, category, today))})
    for city, title, venue, usd, bookable, realname, app in LANDMARKS:
        if city in cities:
            ev = _event_row(rng, city, "museum", title, venue, usd, False, venues)
            ev.update(api_bookable=bookable, realname_required=realname, booking_app_id=app, seats_left=500)
            made.append({**ev, "sessions_json": json.dumps(_sessions(rng, "museum", today))})
    made.sort(key=lambda ev: (ev["city"], ev["title"]))
    city, title, venue, usd, bookable, realname, app = MUSEUM_ANCHOR
    anchor = _event_row(rng, city, "museum", title, venue, usd, False, venues)
    saturday = today + dt.timedelta(days=7 + (5 - (today + dt.timedelta(days=7)).weekday()) % 7)
    days = (saturday, saturday + dt.timedelta(days=1))
    anchor.update(
        api_bookable=bookable,
        realname_required=realname,
        booking_app_id=app,
        seats_left=300,
        sessions_json=json.dumps([f"{d}T{t}" for d in days for t in TIMES["museum"]]),
    )
    made.insert(ANCHOR_INDEX, anchor)
    for i, ev in enumerate(made, start=1):
        ev["event_id"] = f"evt_{i:03d}"
    return made


def _parcels(rng: random.Random, now: dt.datetime, currency: str, home: str, cities: list[str]) -> list[dict[str, Any]]:
    made = []
    for sender, status in zip(PARCEL_SENDERS, PARCEL_STATUSES, strict=True):
        carrier, prefix, digits = rng.choice(CARRIERS[currency])
        origin = rng.choice(cities)
        sent = now - dt.timedelta(hours=rng.randint(40, 90) if status != "delivered" else rng.randint(100, 600))
        steps = PARCEL_STEPS[: PARCEL_STEPS.index(status) + 1] if status in PARCEL_STEPS else [*PARCEL_STEPS, status]
        events = [
            {"ts": _fmt(sent + dt.timedelta(hours=8 * i)), "status": step, "location": origin if i < 2 else home}
            for i, step in enumerate(steps)
        ]
        done = status in ("delivered", "returned_to_sender")
        made.append(
            {
                "tracking_number": tracking_number(rng, prefix, digits),
                "carrier": carrier,
                "sender": sender,
                "origin_city": origin,
                "destination_city": home,
                "status": status,
                "eta": None if done else (sent + dt.timedelta(hours=8 * len(PARCEL_STEPS))).date().isoformat(),
                "events_json": json.dumps(events),
            }
        )
    return made


def _providers(
    rng: random.Random,
    local: list[tuple[str, list[tuple[str, dict[str, int], int]]]],
    currency: str,
    salons: dict[str, str],
) -> list[dict[str, Any]]:
    """Providers per city; salons and spas sit at the city's salon place when there is one."""
    made: list[dict[str, Any]] = []
    for city, chosen in local:
        for name, prices, online in chosen:
            n = len(made) + 1
            personal = not set(prices) & HOME_SERVICES
            made.append(
                {
                    "provider_id": f"provider_{n:03d}",
                    "name": name,
                    "service_types_json": json.dumps(sorted(prices)),
                    "price_json": json.dumps(
                        {s: local_price(usd * rng.uniform(0.85, 1.3), currency) for s, usd in sorted(prices.items())}
                    ),
                    "currency": currency,
                    "place_id": salons.get(city) if personal else None,
                    "address": f"{rng.randint(1, 300)} {rng.choice(STREETS)}",
                    "city": city,
                    "rating": round(rng.uniform(3.6, 4.9), 1),
                    "review_count": rng.randint(15, 2400),
                    "phone": business_phone(city, rng),
                    "online_booking": online,
                }
            )
    return made


def _slot_rows(rng: random.Random, providers: list[dict[str, Any]], now: dt.datetime) -> list[dict[str, Any]]:
    made = []
    for prov in providers:
        for d in range(SLOT_DAYS):
            day = now.date() + dt.timedelta(days=d)
            for hm in SLOT_TIMES:
                start = f"{day}T{hm}"
                if start > _fmt(now):
                    made.append(
                        {"provider_id": prov["provider_id"], "start": start, "available": int(rng.random() < 0.7)}
                    )
    return made


def _tickets(events: list[dict[str, Any]], now: dt.datetime) -> list[dict[str, Any]]:
    """One past visit and two upcoming bookings (the past session is added to its event's list)."""
    bookable = [ev for ev in events if ev["api_bookable"] and ev["seats_left"] > 10 and ev["price"] > 0]
    past_ev = bookable[3]
    past = json.loads(past_ev["sessions_json"])
    past_session = f"{now.date() - dt.timedelta(days=20)}T{past[0][11:]}"
    past_ev["sessions_json"] = json.dumps([past_session, *past])
    made = []
    for i, (ev, session, qty, status, booked_days) in enumerate(
        [
            (past_ev, past_session, 2, "used", 30),
            (bookable[10], json.loads(bookable[10]["sessions_json"])[0], 2, "booked", 6),
            (bookable[20], json.loads(bookable[20]["sessions_json"])[-1], 1, "booked", 2),
        ],
        start=1,
    ):
        tid = f"ticket_{i:03d}"
        sections = json.loads(ev["sections_json"])
        booked_at = f"{now.date() - dt.timedelta(days=booked_days)}T21:10:00"
        made.append(
            {
                "ticket_id": tid,
                "event_id": ev["event_id"],
                "session_time": session,
                "quantity": qty,
                "seat_section": min(sections, key=sections.get) if sections else None,
                "attendee_names_json": "[]",
                "price": round(ev["price"] * qty, 2),
                "currency": ev["currency"],
                "payment_method_id": "pm_001",
                "status": status,
                "qr_code": _qr(tid, ev["event_id"], session),
                "source": "api",
                "created_at": booked_at,
                "updated_at": booked_at,
            }
        )
    return made


def _courier_orders(rng: random.Random, today: dt.date, currency: str, city: str) -> list[dict[str, Any]]:
    """A delivered document to Mom last week and a pickup booked for tomorrow."""
    carrier, prefix, digits = CARRIERS[currency][0]
    made = []
    for i, (days, hm, size, status, name) in enumerate(
        [(-9, "10:00", "document", "delivered", "Zhang Min"), (1, "14:00", "small", "scheduled", "Tom Baker")], start=1
    ):
        day = today + dt.timedelta(days=days)
        booked_at = f"{min(day, today) - dt.timedelta(days=1)}T20:00:00"
        recipient = {
            "name": name,
            "address": f"{rng.randint(1, 99)} {rng.choice(STREETS)}, {city}",
            "phone": normalise_phone(mobile_phone(rng, country_of(city).dial)),
        }
        made.append(
            {
                "courier_order_id": f"courier_{i:03d}",
                "pickup_address_id": "address_001",
                "recipient_json": json.dumps(recipient, sort_keys=True),
                "package_size": size,
                "window_start": f"{day}T{hm}",
                "window_end": f"{day}T{int(hm[:2]) + 2}:00",
                "insured_value": 0.0,
                "price": figures(COURIER_FEES, currency, shelf_price)[size],
                "currency": currency,
                "carrier": carrier,
                "tracking_number": tracking_number(rng, prefix, digits),
                "payment_method_id": "pm_002",
                "status": status,
                "created_at": booked_at,
                "updated_at": booked_at,
            }
        )
    return made


# (provider name, service, days from today, time, status)
SEED_APPOINTMENTS = [
    ("Studio 8 Salon", "haircut", -30, "14:00", "completed"),
    ("Sparkle Home Cleaning", "cleaning", -14, "10:00", "completed"),
    ("Lotus Spa & Massage", "massage", -5, "18:00", "cancelled"),
    ("Studio 8 Salon", "haircut", 0, "10:00", "booked"),  # within two hours of now
    ("Sparkle Home Cleaning", "cleaning", 2, "15:00", "booked"),
]


def _appointments(
    providers: list[dict[str, Any]], slots: list[dict[str, Any]], today: dt.date, city: str, currency: str
) -> list[dict[str, Any]]:
    """The seeded appointments; the booked ones take their slots."""
    by_name = {p["name"]: p for p in providers if p["city"] == city}
    taken = set()
    made = []
    for i, (name, service, days, hm, status) in enumerate(SEED_APPOINTMENTS, start=1):
        prov = by_name[name]
        start = f"{today + dt.timedelta(days=days)}T{hm}"
        booked_at = f"{today + dt.timedelta(days=min(days, 0) - 3)}T19:00:00"
        made.append(
            {
                "appointment_id": f"sappt_{i:03d}",
                "provider_id": prov["provider_id"],
                "service": service,
                "start": start,
                "end": _fmt(dt.datetime.strptime(start, DT_FMT) + dt.timedelta(minutes=DURATION_MIN[service])),
                "address_id": "address_001" if service in HOME_SERVICES else None,
                "notes": None,
                "staff_preference": None,
                "price": json.loads(prov["price_json"])[service],
                "currency": currency,
                "payment_method_id": "pm_002",
                "status": status,
                "cancellation_fee": 0.0 if status == "cancelled" else None,
                "source": "api",
                "created_at": booked_at,
                "updated_at": booked_at,
            }
        )
        if status == "booked":
            taken.add((prov["provider_id"], start))
    for slot in slots:
        if (slot["provider_id"], slot["start"]) in taken:
            slot["available"] = 0
    return made


def _payment(
    row: dict[str, Any], amount: float, merchant: str, category: str, ref_id: str, refunded: bool = False
) -> dict[str, Any]:
    return {
        "method_id": row["payment_method_id"],
        "amount": -amount,
        "currency": row["currency"],
        "merchant": merchant,
        "category": category,
        "ref_id": ref_id,
        "ts": row["created_at"],
        "status": "refunded" if refunded else "posted",
    }


@seeder
def seed_lifestyle(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """Events in every city of the world, parcels, courier pickups, local providers with slots, appointments, cards."""
    now = dt.datetime.fromisoformat(persona.now)
    today, stamp = now.date(), persona.now
    currency = world_currency(conn)
    places = rows(
        conn.execute(
            select(world_places.c.place_id, world_places.c.city, world_places.c.category).order_by(
                world_places.c.place_id
            )
        )
    )
    cities = sorted({p["city"] for p in places} | {MUSEUM_ANCHOR[0]})
    venues: dict[tuple[str, str], str] = {}
    salons: dict[str, str] = {}
    for p in places:
        kind = {"museum": "museum", "park": "festival", "cinema": "theater"}.get(p["category"])
        if kind:
            venues.setdefault((p["city"], kind), p["place_id"])
        if p["category"] == "salon":
            salons.setdefault(p["city"], p["place_id"])

    events = _events(rng, cities, persona.home_city, today, venues)
    tickets = _tickets(events, now)
    conn.execute(insert(world_events), events)
    conn.execute(insert(event_tickets), tickets)
    # Venue apps the user installed: they sell their events on screens only (the GUI agent's job).
    venue_apps = sorted({e["booking_app_id"] for e in events if e["booking_app_id"]})
    conn.execute(
        insert(apps),
        [
            {"app_id": a, "name": a.title(), "installed": 1, "logged_in": 1, "notifications_enabled": 1}
            for a in venue_apps
        ],
    )
    conn.execute(insert(world_parcels), _parcels(rng, now, currency, persona.home_city, cities))
    couriers = _courier_orders(rng, today, currency, persona.home_city)
    conn.execute(insert(courier_orders), couriers)

    local = [(persona.home_city, PROVIDERS)]
    if persona.work_city != persona.home_city:
        local.append((persona.work_city, rng.sample(PROVIDERS, 8)))
    other = next(c for c in cities if c not in (persona.home_city, persona.work_city))
    local.append((other, rng.sample(PROVIDERS, 4)))
    providers = _providers(rng, local, currency, salons)
    slots = _slot_rows(rng, providers, now)
    appts = _appointments(providers, slots, today, persona.home_city, currency)
    conn.execute(insert(world_service_providers), providers)
    conn.execute(insert(world_service_slots), slots)
    conn.execute(insert(service_appointments), appts)

    names = {p["provider_id"]: p["name"] for p in providers}
    venue_of = {ev["event_id"]: ev["venue"] for ev in events}
    seed_payments(
        conn,
        sorted(
            [  # a ticket abroad was paid from home, converted
                _payment(
                    {**t, "currency": currency},
                    convert(t["price"], t["currency"], currency),
                    venue_of[t["event_id"]],
                    "entertainment",
                    t["ticket_id"],
                )
                for t in tickets
            ]
            + [_payment(c, c["price"], c["carrier"], "courier", c["courier_order_id"]) for c in couriers]
            + [
                _payment(
                    a, a["price"], names[a["provider_id"]], "services", a["appointment_id"], a["status"] == "cancelled"
                )
                for a in appts
            ],
            key=lambda p: (p["ts"], p["ref_id"]),
        ),
    )

    conn.execute(
        insert(membership_cards),
        [
            {
                "card_id": f"mcard_{i:03d}",
                "merchant": merchant,
                "card_number": _tracking(number),
                "holder_name": persona.name,
                "points": points,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, (merchant, number, points) in enumerate(CARDS.get(currency, CARDS["USD"]), start=1)
        ],
    )
