"""Tables several domains share: places, the user's addresses, payment methods, money movements.

Travel, food, shopping, health and local services all charge a payment method, ship to an
address or point at a place; declaring those once here keeps one obvious place for each.
"""

from __future__ import annotations

import math
import random
from typing import Any

from sqlalchemy import Column, Connection, Float, Integer, Text, bindparam, func, insert, or_, select, update

from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, rows
from sandbox.locales import CITIES, business_phone, convert, local_money
from sandbox.personas import Address, Persona, seeder
from sandbox.schema import USER, WORLD, stamps, table

world_places = table(
    "world_places",
    WORLD,
    Column("place_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("category", Text, nullable=False),  # cafe, restaurant, airport, station, hospital, store, ...
    Column("address", Text, nullable=False),
    Column("city", Text, nullable=False),
    Column("lat", Float, nullable=False),
    Column("lon", Float, nullable=False),
    Column("rating", Float),
    Column("phone", Text),
    Column("open_now", Integer, nullable=False),
)

addresses = table(
    "addresses",
    USER,
    Column("address_id", Text, primary_key=True),
    Column("label", Text, nullable=False),
    Column("recipient", Text, nullable=False),
    Column("phone", Text, nullable=False),
    Column("address_line", Text, nullable=False),
    Column("city", Text, nullable=False),
    Column("postal_code", Text),
    Column("district", Text),
    Column("lat", Float),  # the point it stands on; unknown for an address the user typed in (its city's centre)
    Column("lon", Float),
    Column("is_default", Integer, nullable=False),
    *stamps(),
    natural_key=("label",),
)

payment_methods = table(
    "payment_methods",
    USER,
    Column("method_id", Text, primary_key=True),
    Column("kind", Text, nullable=False),  # card | bank | wallet
    Column("nickname", Text, nullable=False),
    Column("last4", Text, nullable=False),
    Column("status", Text, nullable=False),  # active | frozen
    Column("is_default", Integer, nullable=False),
    Column("balance", Float, nullable=False),  # available funds or remaining credit
    Column("currency", Text, nullable=False),
    *stamps(),
    natural_key=("last4",),
    id_prefix="pm",
)

transactions = table(
    "transactions",
    USER,
    Column("txn_id", Text, primary_key=True),
    Column("method_id", Text, nullable=False),
    Column("amount", Float, nullable=False),  # negative = money out
    Column("currency", Text, nullable=False),
    Column("merchant", Text, nullable=False),
    Column("category", Text, nullable=False),
    Column("ref_id", Text),  # the booking, order or bill this paid for
    Column("ts", Text, nullable=False),
    Column("status", Text, nullable=False),  # posted | refunded
    *stamps(),
)


_DEFAULT_PAYMENT_METHOD = select(payment_methods).where(payment_methods.c.is_default == 1)
_PAYMENT_METHOD = select(payment_methods).where(payment_methods.c.method_id == bindparam("method_id"))


def payment_method(ctx: Ctx, method_id: str | None) -> dict[str, Any]:
    """The named payment method, or the default one; frozen methods cannot pay."""
    row = (
        ctx.conn.execute(_DEFAULT_PAYMENT_METHOD)
        if method_id is None
        else ctx.conn.execute(_PAYMENT_METHOD, {"method_id": method_id})
    ).first()
    if row is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no payment method {method_id!r}" if method_id is not None else "no default payment method",
            field="payment_method_id",
        )
    if row.status != "active":
        raise ToolError(
            ErrorType.STATE_CONFLICT, f"payment method {row.method_id} is {row.status}", method_id=row.method_id
        )
    return dict(row._mapping)


_SET_PAYMENT_METHOD = update(payment_methods).where(payment_methods.c.method_id == bindparam("match_method_id"))
_ADD_TRANSACTION = insert(transactions)


def charge(
    ctx: Ctx,
    amount: float,
    merchant: str,
    category: str,
    ref_id: str | None,
    method_id: str | None = None,
    currency: str | None = None,
) -> str:
    """Pay ``amount`` with a payment method: checks funds, debits it, records a transaction. A price in
    another ``currency`` than the method's (a ticket abroad) is converted at the world's rates."""
    method = payment_method(ctx, method_id)
    if currency is not None:
        amount = convert(amount, currency, method["currency"])
    if amount > method["balance"]:
        raise ToolError(
            ErrorType.LIMIT_EXCEEDED,
            f"{method['nickname']} has {method['balance']:.2f} available, {amount:.2f} needed",
            method_id=method["method_id"],
        )
    ctx.conn.execute(
        _SET_PAYMENT_METHOD,
        {
            "match_method_id": method["method_id"],
            "balance": round(method["balance"] - amount, 2),
            "updated_at": ctx.ts(),
        },
    )
    txn_id = ctx.new_id(transactions)
    ctx.conn.execute(
        _ADD_TRANSACTION,
        {
            "txn_id": txn_id,
            "method_id": method["method_id"],
            "amount": -round(amount, 2),
            "currency": method["currency"],
            "merchant": merchant,
            "category": category,
            "ref_id": ref_id,
            "ts": ctx.ts(),
            "status": "posted",
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return txn_id


_POSTED_PAYMENTS_FOR = select(transactions).where(
    transactions.c.ref_id == bindparam("ref_id"), transactions.c.status == "posted", transactions.c.amount < 0
)
_SET_TRANSACTION = update(transactions).where(transactions.c.txn_id == bindparam("match_txn_id"))
_BALANCE = select(payment_methods.c.balance).where(payment_methods.c.method_id == bindparam("method_id"))


def refund(ctx: Ctx, ref_id: str) -> float:
    """Refund every posted payment for ``ref_id`` back to its method; returns the amount."""
    total = 0.0
    for txn in ctx.conn.execute(_POSTED_PAYMENTS_FOR, {"ref_id": ref_id}).all():
        ctx.conn.execute(_SET_TRANSACTION, {"match_txn_id": txn.txn_id, "status": "refunded", "updated_at": ctx.ts()})
        method = ctx.conn.execute(_BALANCE, {"method_id": txn.method_id}).scalar() or 0.0
        ctx.conn.execute(
            _SET_PAYMENT_METHOD,
            {"match_method_id": txn.method_id, "balance": round(method - txn.amount, 2), "updated_at": ctx.ts()},
        )
        total += -txn.amount
    return round(total, 2)


_PLACE = select(world_places).where(world_places.c.place_id == bindparam("place_id"))


def place(ctx: Ctx, place_id: str) -> dict[str, Any]:
    row = ctx.conn.execute(_PLACE, {"place_id": place_id}).first()
    if row is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no place {place_id!r}", field="place_id", hint="search_places")
    return dict(row._mapping)


CITY_CENTRES = {name: (c.lat, c.lon) for name, c in CITIES.items()}
PLACE_KINDS = [
    "cafe",
    "restaurant",
    "supermarket",
    "pharmacy",
    "hospital",
    "gym",
    "park",
    "museum",
    "parking",
    "ev_charger",
    "gas_station",
    "station",
    "airport",
    "hotel",
    "cinema",
    "salon",
]
STREETS = [
    "Garden Road",
    "Harbor Street",
    "Lake Avenue",
    "Maple Lane",
    "Station Road",
    "Market Street",
    "Hill Road",
    "River Walk",
    "Park Avenue",
    "Bridge Street",
]
NAME_PARTS = ["Blue", "Golden", "Harbor", "Dune", "Cedar", "Sunny", "Corner", "Old Town", "Green", "Lucky"]


@seeder
def seed_common(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """Places in the persona's cities and a few travel cities; two addresses; three payment methods."""
    cities = sorted({persona.home_city, persona.work_city, *rng.sample(sorted(CITY_CENTRES), 4)})
    rows, n = [], 0
    for city in cities:
        lat0, lon0 = CITY_CENTRES.get(city, (0.0, 0.0))
        for kind in PLACE_KINDS:
            for _ in range(3 if city == persona.home_city else 1):
                n += 1
                name = f"{rng.choice(NAME_PARTS)} {kind.replace('_', ' ').title()}"
                rows.append(
                    {
                        "place_id": f"place_{n:03d}",
                        "name": name,
                        "category": kind,
                        "address": f"{rng.randint(1, 200)} {rng.choice(STREETS)}",
                        "city": city,
                        "lat": round(lat0 + rng.uniform(-0.05, 0.05), 5),
                        "lon": round(lon0 + rng.uniform(-0.05, 0.05), 5),
                        "rating": round(rng.uniform(3.0, 5.0), 1),
                        "phone": business_phone(city, rng),
                        "open_now": int(rng.random() < 0.8),
                    }
                )
    conn.execute(insert(world_places), rows)
    now = persona.now
    conn.execute(
        insert(addresses),
        [
            _address_row(f"address_{n:03d}", label, where, city, persona, now)
            for n, (label, where, city) in enumerate(
                (("Home", persona.home, persona.home_city), ("Work", persona.work, persona.work_city)), start=1
            )
        ],
    )
    currency = persona.currency
    conn.execute(
        insert(payment_methods),
        [
            {
                "method_id": "pm_001",
                "kind": "card",
                "nickname": "Visa credit",
                "last4": f"{rng.randint(1000, 9999)}",
                "status": "active",
                "is_default": 0,
                "balance": _balance(20000.0, currency),
                "currency": currency,
                "created_at": now,
                "updated_at": now,
            },
            {
                "method_id": "pm_002",
                "kind": "card",
                "nickname": "Debit card",
                "last4": f"{rng.randint(1000, 9999)}",
                "status": "active",
                "is_default": 1,
                "balance": _balance(8500.0, currency),
                "currency": currency,
                "created_at": now,
                "updated_at": now,
            },
            {
                "method_id": "pm_003",
                "kind": "wallet",
                "nickname": "Wallet balance",
                "last4": "0000",
                "status": "active",
                "is_default": 0,
                "balance": _balance(320.0, currency),
                "currency": currency,
                "created_at": now,
                "updated_at": now,
            },
        ],
    )


def _balance(amount: float, currency: str) -> float:
    """A seeded balance: the same figure in yuan and dollars (as the finance seed assumes), converted
    from dollars in every other currency."""
    return amount if currency in ("CNY", "USD") else local_money(amount, currency)


def _address_row(address_id: str, label: str, where: Address, city: str, persona: Persona, now: str) -> dict[str, Any]:
    return {
        "address_id": address_id,
        "label": label,
        "recipient": persona.name,
        "phone": persona.phone,
        "address_line": where.line,
        "city": city,
        "postal_code": where.postal_code,
        "district": where.district,
        "lat": where.lat,
        "lon": where.lon,
        "is_default": int(label == "Home"),
        "created_at": now,
        "updated_at": now,
    }


# ---- locations --------------------------------------------------------------------------------------

# what people call their saved places ("the office", "my house") -> the saved label
LABEL_ALIASES = {
    "office": "work",
    "the office": "work",
    "workplace": "work",
    "house": "home",
    "place": "home",
    "home address": "home",
}


def km_between(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in km, to 0.1 km."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return round(2 * 6371 * math.asin(math.sqrt(a)), 1)


_CURRENT_ADDRESS = select(addresses).order_by(addresses.c.is_default.desc(), addresses.c.address_id)
# a saved address by its id, its label, or its street line as the user knows it ("18 Garden Road", "…, Tokyo")
_ADDRESS_NAMED = (
    select(addresses)
    .where(
        or_(
            func.lower(addresses.c.address_id) == bindparam("key"),
            func.lower(addresses.c.label) == bindparam("label"),
            func.lower(addresses.c.address_line) == bindparam("key"),
            func.lower(addresses.c.address_line + ", " + addresses.c.city) == bindparam("key"),
        )
    )
    .order_by(addresses.c.address_id)
)
_CITY_NAMED = select(world_places.c.city).where(func.lower(world_places.c.city) == bindparam("city"))
_CITY_CENTRE = select(func.avg(world_places.c.lat), func.avg(world_places.c.lon)).where(
    world_places.c.city == bindparam("city")
)
_PLACES_NAMED = (
    select(world_places).where(func.lower(world_places.c.name) == bindparam("name")).order_by(world_places.c.place_id)
)


def find_address(ctx: Ctx, text: str) -> dict[str, Any] | None:
    """The saved address a location argument names: "current" (the default one), an address id, a label
    or what people call it ("home", "the office"), or its street line; None when it names none."""
    key = " ".join(text.split()).lower()
    bare = key.removeprefix("my ")
    found = (
        ctx.conn.execute(_CURRENT_ADDRESS).first()
        if key == "current"
        else ctx.conn.execute(_ADDRESS_NAMED, {"key": key, "label": LABEL_ALIASES.get(bare, bare)}).first()
    )
    return dict(found._mapping) if found is not None else None


def locate(ctx: Ctx, near: str) -> dict[str, Any]:
    """Resolve a location argument to a city and a point.

    Accepted: a place id, "current" (the phone's position: the default address), a saved address (its id,
    its label such as "home" or "work", or its street line), a city, or the exact name of a place. A
    saved address resolves to its own point (home and work are apart), a city to its centre (the mean of
    its places).
    """
    text = near.strip()
    lowered = text.lower()
    if lowered.startswith("place_"):
        p = place(ctx, text)
        return {"city": p["city"], "lat": p["lat"], "lon": p["lon"], "resolved": p["name"]}
    address = find_address(ctx, text)
    if address is not None and address["lat"] is not None:
        where = ", ".join(x for x in (address["address_line"], address["district"], address["city"]) if x)
        return {
            "city": address["city"],
            "lat": address["lat"],
            "lon": address["lon"],
            "resolved": f"{address['label']} ({where})",
        }
    city = address["city"] if address is not None else ctx.conn.execute(_CITY_NAMED, {"city": lowered}).scalar()
    if city is not None:
        lat, lon = ctx.conn.execute(_CITY_CENTRE, {"city": city}).one()
        return {"city": city, "lat": lat or 0.0, "lon": lon or 0.0, "resolved": city}
    named = rows(ctx.conn.execute(_PLACES_NAMED, {"name": lowered}))
    if len(named) > 1:
        raise ToolError(
            ErrorType.AMBIGUOUS_ENTITY,
            f"{len(named)} places are called {text!r}",
            field="near",
            candidates=[{k: p[k] for k in ("place_id", "name", "address", "city")} for p in named],
        )
    if not named:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"cannot place {text!r}: give a place id, a city, home or work",
            field="near",
            hint="search_places",
        )
    return {"city": named[0]["city"], "lat": named[0]["lat"], "lon": named[0]["lon"], "resolved": named[0]["name"]}
