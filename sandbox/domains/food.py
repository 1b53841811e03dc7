"""D8 Food & Dining: restaurants and table bookings, food delivery, recipes, groceries and meal plans.

A restaurant is a ``world_places`` row of category "restaurant" plus a booking and delivery profile. A
table booking takes seats from one of the restaurant's seatings (``world_table_slots``); restaurants
without online booking take reservations by phone only, through the voice agent. Delivery charges a
payment method (``common.charge``) and ships to one of the user's saved addresses in the restaurant's city.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import random
from collections.abc import Callable
from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field
from sqlalchemy import (
    Column,
    Connection,
    Float,
    Integer,
    Select,
    Table,
    Text,
    bindparam,
    cast,
    func,
    insert,
    or_,
    select,
    update,
)
from typing_extensions import TypedDict

from sandbox.domains.common import (
    CITY_CENTRES,
    STREETS,
    addresses,
    charge,
    km_between,
    locate,
    payment_method,
    payment_methods,
    transactions,
    world_places,
)
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, contains_bound, like_escaped, normalise_phone, row_by_key, rows, word_values
from sandbox.locales import CURRENCIES, business_phone, round_amount
from sandbox.personas import Persona, seeder
from sandbox.schema import USER, WORLD, stamps, table, user_profile
from sandbox.subagents import world_phone_services
from sandbox.tooling import Date, DateTime, Phone, tool

world_restaurants = table(
    "world_restaurants",
    WORLD,
    Column("restaurant_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("cuisine", Text, nullable=False),
    Column("place_id", Text, nullable=False),
    Column("price_level", Integer, nullable=False),  # 1 (cheap) .. 4 (fine dining)
    Column("rating", Float, nullable=False),
    Column("dietary_json", Text, nullable=False),  # options it caters for: vegetarian, vegan, halal, ...
    Column("online_booking", Integer, nullable=False),  # 0: reservations by phone only
    Column("delivery", Integer, nullable=False),
    Column("delivery_fee", Float, nullable=False),
    Column("min_order", Float, nullable=False),
    Column("prep_min", Integer, nullable=False),
    Column("max_party", Integer, nullable=False),
    Column("hours_json", Text, nullable=False),  # {"windows": [["11:00", "14:30"], ...], "closed": ["mon"]}
    Column("phone", Text, nullable=False),
    natural_key=("name", "place_id"),
    id_prefix="rest",
)

world_menu_items = table(
    "world_menu_items",
    WORLD,
    Column("menu_item_id", Text, primary_key=True),
    Column("restaurant_id", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("category", Text, nullable=False),  # starter | main | side | dessert | drink
    Column("price", Float, nullable=False),
    Column("available", Integer, nullable=False),  # 0: sold out
    Column("dietary_json", Text, nullable=False),
    natural_key=("restaurant_id", "name"),
    id_prefix="menu",
)

world_table_slots = table(
    "world_table_slots",
    WORLD,
    Column("slot_id", Integer, primary_key=True),
    Column("restaurant_id", Text, nullable=False),
    Column("slot_dt", Text, nullable=False),  # a seating, YYYY-MM-DDTHH:MM
    Column("capacity_left", Integer, nullable=False),  # seats still free
    natural_key=("restaurant_id", "slot_dt"),
)

restaurant_reservations = table(
    "restaurant_reservations",
    USER,
    Column("reservation_id", Text, primary_key=True),
    Column("restaurant_id", Text, nullable=False),
    Column("datetime", Text, nullable=False),
    Column("party_size", Integer, nullable=False),
    Column("name", Text, nullable=False),
    Column("phone", Text, nullable=False),
    Column("special_requests", Text),
    Column("seating", Text),
    Column("status", Text, nullable=False),  # confirmed | cancelled | completed
    Column("source", Text, nullable=False),  # api | voice_agent | gui_agent
    Column("cancel_reason", Text),
    *stamps(),
    natural_key=("restaurant_id", "datetime"),
    id_prefix="resv",
)

food_orders = table(
    "food_orders",
    USER,
    Column("order_id", Text, primary_key=True),
    Column("restaurant_id", Text, nullable=False),
    Column("items_json", Text, nullable=False),  # [{menu_item_id, name, quantity, unit_price, notes?}]
    Column("address_id", Text, nullable=False),
    Column("payment_method_id", Text, nullable=False),
    Column("subtotal", Float, nullable=False),
    Column("delivery_fee", Float, nullable=False),
    Column("tip", Float, nullable=False),
    Column("total", Float, nullable=False),
    Column("currency", Text, nullable=False),
    Column("utensils", Integer, nullable=False),
    Column("status", Text, nullable=False),  # scheduled | placed | preparing | on_the_way | delivered | cancelled
    Column("scheduled_at", Text),
    Column("placed_at", Text, nullable=False),
    Column("eta", Text),
    Column("reordered_from", Text),
    *stamps(),
    natural_key=("restaurant_id", "placed_at"),
    id_prefix="forder",
)

world_recipes = table(
    "world_recipes",
    WORLD,
    Column("recipe_id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("cuisine", Text, nullable=False),
    Column("diet_json", Text, nullable=False),
    Column("tags_json", Text, nullable=False),  # meal types and kinds: dinner, soup, quick, ...
    Column("time_min", Integer, nullable=False),
    Column("servings", Integer, nullable=False),
    Column("calories", Integer, nullable=False),  # per serving
    Column("ingredients_json", Text, nullable=False),  # [{name, quantity, unit}]
    natural_key=("title",),
)

saved_recipes = table(
    "saved_recipes",
    USER,
    Column("recipe_id", Text, primary_key=True),
    Column("collection", Text, nullable=False),
    *stamps(),
    natural_key=("recipe_id",),
)

grocery_items = table(
    "grocery_items",
    USER,
    Column("item_id", Text, primary_key=True),
    Column("list_name", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("quantity", Float, nullable=False),
    Column("unit", Text),
    Column("checked", Integer, nullable=False),
    Column("from_recipe_id", Text),
    *stamps(),
    natural_key=("list_name", "name"),
    id_prefix="grocery",
)

meal_plans = table(
    "meal_plans",
    USER,
    Column("date", Text, primary_key=True),
    Column("meal", Text, primary_key=True),
    Column("recipe_id", Text, nullable=False),
    Column("servings", Integer, nullable=False),
    *stamps(),
    natural_key=("date", "meal"),
)

DT_FMT = "%Y-%m-%dT%H:%M"
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
SCHEDULE_DAYS = 7  # how far ahead a delivery may be scheduled
COURIER_MIN = 20  # minutes from pick-up to the door

Dietary = Literal["vegetarian", "vegan", "halal", "gluten_free", "nut_free"]
Diet = Literal["vegetarian", "vegan", "gluten_free", "dairy_free", "low_carb", "high_protein", "nut_free"]
Meal = Literal["breakfast", "lunch", "dinner", "snack"]
Seating = Literal["indoor", "outdoor", "bar", "private"]
Name = Annotated[str, Field(min_length=1, max_length=120, pattern=r"\S")]
Query = Annotated[str, Field(min_length=1, max_length=200)]
Requests = Annotated[str, Field(min_length=1, max_length=300)]
Limit = Annotated[int, Field(ge=1, le=50)]
PartySize = Annotated[int, Field(ge=1, le=20)]
Money = Annotated[float, Field(ge=0, le=10000)]
Location = Annotated[str, Field(min_length=1, max_length=200)]
Ingredients = Annotated[list[Annotated[str, Field(min_length=1, max_length=60)]], Field(min_length=1, max_length=10)]


class OrderLine(TypedDict):
    """One line of a delivery order."""

    __pydantic_config__ = ConfigDict(extra="forbid", strict=True)  # type: ignore[misc]
    menu_item_id: Annotated[str, Field(min_length=1, max_length=64, description="Menu item id, e.g. menu_912.")]
    quantity: Annotated[int, Field(ge=1, le=50, description="How many.")]
    notes: NotRequired[Annotated[str, Field(max_length=200, description="Requests for this dish.")] | None]


class GroceryLine(TypedDict):
    """One item to put on a grocery list."""

    __pydantic_config__ = ConfigDict(extra="forbid", strict=True)  # type: ignore[misc]
    name: Annotated[str, Field(min_length=1, max_length=80, pattern=r"\S", description='What to buy, e.g. "eggs".')]
    quantity: NotRequired[Annotated[float, Field(gt=0, le=10000, description="Amount (default 1).")] | None]
    unit: NotRequired[Annotated[str, Field(min_length=1, max_length=20, description="Unit, e.g. g, ml, pc.")] | None]


# ---- shared helpers ---------------------------------------------------------------------------


def _minute(ctx: Ctx) -> str:
    return ctx.now.strftime(DT_FMT)


def _shift(stamp: str, minutes: int) -> str:
    return (dt.datetime.strptime(stamp, DT_FMT) + dt.timedelta(minutes=minutes)).strftime(DT_FMT)


def _one_of(*names: str) -> Callable[[dict[str, Any]], str | None]:
    """A cross-field check: at least one of these arguments is given."""

    def check(args: dict[str, Any]) -> str | None:
        return None if any(args.get(n) is not None for n in names) else f"give at least one of {', '.join(names)}"

    check.__doc__ = f"Give at least one of {', '.join(names)}."
    return check


def _get(ctx: Ctx, tbl: Table, value: str, hint: str | None = None) -> dict[str, Any]:
    """The row with this id, or EntityNotFound (naming the tool that lists such ids)."""
    key = next(iter(tbl.primary_key.columns)).name
    row = ctx.conn.execute(row_by_key(tbl), {"key": value}).first()
    if row is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no {key.removesuffix('_id').replace('_', ' ')} {value!r}",
            field=key,
            **({"hint": hint} if hint else {}),
        )
    return dict(row._mapping)


# ---- restaurants ------------------------------------------------------------------------------

R, M, S = world_restaurants.c, world_menu_items.c, world_table_slots.c
RESTAURANTS = select(
    world_restaurants, world_places.c.address, world_places.c.city, world_places.c.lat, world_places.c.lon
).join(world_places, world_places.c.place_id == R.place_id)
_RESTAURANT = RESTAURANTS.where(R.restaurant_id == bindparam("restaurant_id"))


def _restaurant(ctx: Ctx, restaurant_id: str) -> dict[str, Any]:
    row = ctx.conn.execute(_RESTAURANT, {"restaurant_id": restaurant_id}).first()
    if row is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no restaurant {restaurant_id!r}",
            field="restaurant_id",
            hint="search_restaurants",
        )
    r = dict(row._mapping)
    r["hours"], r["dietary"] = json.loads(r["hours_json"]), json.loads(r["dietary_json"])
    return r


@functools.lru_cache(maxsize=1024)
def _weekday(when: str) -> str:
    """``mon``..``sun`` of a YYYY-MM-DDTHH:MM stamp (memoised: a search asks it of every restaurant)."""
    return WEEKDAYS[dt.datetime.strptime(when, DT_FMT).weekday()]


def _open_at(hours: dict[str, Any], when: str) -> bool:
    """Whether the restaurant is open at ``when`` (YYYY-MM-DDTHH:MM)."""
    if _weekday(when) in hours["closed"]:
        return False
    return any(start <= when[11:] < end for start, end in hours["windows"])


def _hours_out(hours: dict[str, Any]) -> dict[str, Any]:
    return {"open": [f"{a}-{b}" for a, b in hours["windows"]], "closed_on": hours["closed"]}


def _summary(ctx: Ctx, r: dict[str, Any]) -> dict[str, Any]:
    return {
        "restaurant_id": r["restaurant_id"],
        "name": r["name"],
        "cuisine": r["cuisine"],
        "address": r["address"],
        "city": r["city"],
        "price_level": r["price_level"],
        "rating": r["rating"],
        "dietary": r["dietary"],
        "online_booking": bool(r["online_booking"]),
        "delivery": bool(r["delivery"]),
        "open_now": _open_at(r["hours"], _minute(ctx)),
    }


_FREE_SEATINGS = (
    select(S.slot_dt, S.capacity_left)
    .where(
        S.restaurant_id == bindparam("restaurant_id"),
        S.slot_dt.like(bindparam("day_pattern")),
        S.slot_dt > bindparam("after"),
        S.capacity_left >= bindparam("party_size"),
    )
    .order_by(S.slot_dt)
)


def _free_times(ctx: Ctx, restaurant_id: str, date: str, party_size: int) -> list[dict[str, Any]]:
    """Future seatings of that day with room for the party."""
    found = ctx.conn.execute(
        _FREE_SEATINGS,
        {"restaurant_id": restaurant_id, "day_pattern": f"{date}T%", "after": _minute(ctx), "party_size": party_size},
    ).all()
    return [{"time": when[11:], "seats_left": left} for when, left in found]


_SEATS_LEFT = select(S.capacity_left).where(
    S.restaurant_id == bindparam("restaurant_id"), S.slot_dt == bindparam("slot_dt")
)


def _seats_left(ctx: Ctx, restaurant_id: str, when: str) -> int | None:
    return ctx.conn.execute(_SEATS_LEFT, {"restaurant_id": restaurant_id, "slot_dt": when}).scalar()


_TAKE_SEATS = (
    update(world_table_slots)
    .where(S.restaurant_id == bindparam("match_restaurant_id"), S.slot_dt == bindparam("match_slot_dt"))
    .values(capacity_left=S.capacity_left - bindparam("seats"))
)


def _take_seats(ctx: Ctx, restaurant_id: str, when: str, seats: int) -> None:
    """Take (or, negative, give back) seats of a seating; past seatings have no row and are left alone."""
    ctx.conn.execute(_TAKE_SEATS, {"match_restaurant_id": restaurant_id, "match_slot_dt": when, "seats": seats})


@functools.lru_cache(maxsize=256)
def _restaurant_search(
    words: int, cuisine: bool, city: bool, price_level: bool, min_rating: bool, party_size: bool, delivery_only: bool
) -> Select[Any]:
    """search_restaurants' statement for one combination of filters, built once (its values are bound): each
    word in the name, the cuisine or a dish on the menu."""
    q = RESTAURANTS
    for i in range(words):
        on_menu = (
            select(M.menu_item_id)
            .where(M.restaurant_id == R.restaurant_id, contains_bound(func.lower(M.name), f"word_{i}"))
            .exists()
        )
        q = q.where(
            or_(
                contains_bound(func.lower(R.name), f"word_{i}"),
                contains_bound(func.lower(R.cuisine), f"word_{i}"),
                on_menu,
            )
        )
    if cuisine:
        q = q.where(contains_bound(func.lower(R.cuisine), "cuisine"))
    if city:
        q = q.where(world_places.c.city == bindparam("city"))
    if price_level:
        q = q.where(R.price_level <= bindparam("price_level"))
    if min_rating:
        q = q.where(R.rating >= bindparam("min_rating"))
    if party_size:
        q = q.where(R.max_party >= bindparam("party_size"))
    if delivery_only:
        q = q.where(R.delivery == 1)
    return q.order_by(R.rating.desc(), R.restaurant_id)


@tool(
    l2="8.1",
    app="dining",
    mutating=False,
    permissions=("LOCATION",),
    services=("location_service",),
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.AMBIGUOUS_ENTITY),
    check=_one_of(
        "query", "cuisine", "near", "price_level", "min_rating", "open_now", "party_size", "delivery_only", "dietary"
    ),
)
def search_restaurants(
    ctx: Ctx,
    query: Query | None = None,
    cuisine: Annotated[str, Field(min_length=1, max_length=40)] | None = None,
    near: Location | None = None,
    price_level: Annotated[int, Field(ge=1, le=4)] | None = None,
    min_rating: Annotated[float, Field(ge=0, le=5)] | None = None,
    open_now: bool | None = None,
    party_size: PartySize | None = None,
    delivery_only: bool | None = None,
    dietary: Annotated[list[Dietary], Field(min_length=1, max_length=5)] | None = None,
    limit: Limit = 10,
) -> dict[str, Any]:
    """Search restaurants by name or dish, cuisine, location, price, rating, opening, party size, delivery or diet.

    Args:
        query: Words that must each appear in the name, the cuisine or a dish on the menu.
        cuisine: Cuisine, e.g. "Cantonese", "Italian".
        near: Where: a place id, "home", "work", "current", a city, or a place name; results are in that
            city, nearest first.
        price_level: Highest price level, 1 (cheap) to 4 (fine dining).
        min_rating: Lowest rating, 0 to 5.
        open_now: true for restaurants open now, false for closed ones.
        party_size: Only restaurants that seat a party this large.
        delivery_only: Only restaurants that deliver.
        dietary: Options every result must cater for.
        limit: Maximum number of results.
    """
    origin = locate(ctx, near) if near else None
    words = word_values(query or "")
    values: dict[str, Any] = {
        **words,
        "cuisine": like_escaped(cuisine.lower()) if cuisine else None,
        "city": origin["city"] if origin else None,
        "price_level": price_level or None,
        "min_rating": min_rating,
        "party_size": party_size or None,
    }
    values = {k: v for k, v in values.items() if v is not None}
    q = _restaurant_search(
        len(words),
        bool(cuisine),
        bool(origin),
        bool(price_level),
        min_rating is not None,
        bool(party_size),
        bool(delivery_only),
    )
    found = []
    for row in rows(ctx.conn.execute(q, values)):
        row["hours"], row["dietary"] = json.loads(row["hours_json"]), json.loads(row["dietary_json"])
        item = _summary(ctx, row)
        if set(dietary or []) - set(row["dietary"]) or (open_now is not None and item["open_now"] != open_now):
            continue
        if origin:
            item["distance_km"] = km_between(origin["lat"], origin["lon"], row["lat"], row["lon"])
        found.append(item)
    if origin:
        found.sort(key=lambda r: r["distance_km"])
    return {
        "restaurants": found[:limit],
        "count": min(len(found), limit),
        "total_matches": len(found),
        **({"near": origin["resolved"]} if origin else {}),
    }


RV = restaurant_reservations.c
_RESERVATIONS_AHEAD = (
    select(RV.reservation_id, RV.datetime, RV.party_size)
    .where(RV.restaurant_id == bindparam("restaurant_id"), RV.status == "confirmed", RV.datetime > bindparam("after"))
    .order_by(RV.datetime)
)


def _upcoming_reservations(ctx: Ctx, restaurant_id: str) -> list[dict[str, Any]]:
    """The user's confirmed bookings at this restaurant that are still ahead (the app shows them)."""
    return rows(ctx.conn.execute(_RESERVATIONS_AHEAD, {"restaurant_id": restaurant_id, "after": _minute(ctx)}))


_MENU = select(world_menu_items).where(M.restaurant_id == bindparam("restaurant_id")).order_by(M.menu_item_id)
_DELIVER_TO = (
    select(
        addresses.c.address_id, addresses.c.label, addresses.c.address_line, addresses.c.city, addresses.c.is_default
    )
    .where(addresses.c.city == bindparam("city"))
    .order_by(addresses.c.address_id)
)


@tool(l2="8.1", app="dining", mutating=False, network="internet", errors=(ErrorType.ENTITY_NOT_FOUND,))
def get_restaurant_details(
    ctx: Ctx,
    restaurant_id: str,
    date: Date | None = None,
    party_size: PartySize = 2,
) -> dict[str, Any]:
    """Show a restaurant's address, hours, menu, the table times still free on a day and the user's bookings
    there; for a restaurant that delivers, also the user's saved addresses in its delivery area (its city), as the
    order page shows them.

    Args:
        restaurant_id: Id of the restaurant, e.g. rest_914.
        date: Day to list free table times for, YYYY-MM-DD (default today).
        party_size: Party size the free table times must fit.
    """
    r = _restaurant(ctx, restaurant_id)
    day = date or ctx.now.date().isoformat()
    menu = rows(ctx.conn.execute(_MENU, {"restaurant_id": restaurant_id}))
    out = {
        **_summary(ctx, r),
        "phone": r["phone"],
        "hours": _hours_out(r["hours"]),
        "max_party": r["max_party"],
        "delivery_fee": r["delivery_fee"] if r["delivery"] else None,
        "min_order": r["min_order"] if r["delivery"] else None,
        "menu": [
            {
                "menu_item_id": m["menu_item_id"],
                "name": m["name"],
                "category": m["category"],
                "price": m["price"],
                "available": bool(m["available"]),
                "dietary": json.loads(m["dietary_json"]),
            }
            for m in menu
        ],
        "date": day,
        "party_size": party_size,
        "my_reservations": _upcoming_reservations(ctx, restaurant_id),
    }
    if r["delivery"]:
        saved = rows(ctx.conn.execute(_DELIVER_TO, {"city": r["city"]}))
        out["deliver_to"] = [{**a, "is_default": bool(a["is_default"])} for a in saved]
    if r["online_booking"]:
        out["free_tables"] = _free_times(ctx, restaurant_id, day, party_size)
    else:
        out["free_tables"] = None
        out["booking_note"] = f"phone reservations only: call {r['phone']} (call_voice_agent)"
    return out


# ---- Table Reservations (8.2) -----------------------------------------------------------------

RESERVATION_KEYS = (
    "reservation_id",
    "restaurant_id",
    "datetime",
    "party_size",
    "name",
    "phone",
    "special_requests",
    "seating",
    "status",
)


def _bookable(ctx: Ctx, r: dict[str, Any], when: str, party_size: int, seats_back: int = 0) -> None:
    """Refuse a booking at ``when`` the restaurant cannot take: value problems first, then capacity.

    ``seats_back`` are seats the caller's own booking already holds at ``when`` (a change of party size).
    """
    if when <= _minute(ctx):
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, f"{when} is not in the future", field="datetime")
    if not _open_at(r["hours"], when):
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"{r['name']} is closed at {when}",
            field="datetime",
            hours=_hours_out(r["hours"]),
        )
    if party_size > r["max_party"]:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"{r['name']} seats parties of up to {r['max_party']}",
            max_party=r["max_party"],
        )
    left = _seats_left(ctx, r["restaurant_id"], when)
    if left is None or left + seats_back < party_size:
        reason = "no seating" if left is None else "not enough seats"
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"{r['name']}: {reason} for {party_size} at {when}",
            free_tables=_free_times(ctx, r["restaurant_id"], when[:10], party_size),
            hint="pick one of free_tables or another day",
        )


_SAME_DAY_BOOKING = select(RV.reservation_id).where(
    RV.restaurant_id == bindparam("restaurant_id"),
    RV.status == "confirmed",
    RV.datetime.like(bindparam("day_pattern")),
    RV.reservation_id != bindparam("exclude"),
)


def _same_day_booking(ctx: Ctx, restaurant_id: str, when: str, exclude: str = "") -> None:
    other = ctx.conn.execute(
        _SAME_DAY_BOOKING, {"restaurant_id": restaurant_id, "day_pattern": f"{when[:10]}T%", "exclude": exclude}
    ).scalar()
    if other:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"you already have a table there that day: {other}",
            existing_id=other,
            hint="update_restaurant_reservation",
        )


def _phone_only(r: dict[str, Any], action: str) -> None:
    if not r["online_booking"]:
        raise ToolError(
            ErrorType.UNSUPPORTED_OPERATION,
            f"{r['name']} takes {action} by phone only",
            phone=r["phone"],
            place_id=r["place_id"],
            hint="call_voice_agent",
        )


_PROFILE = select(user_profile.c.name, user_profile.c.phone)
_ADD_RESERVATION = insert(restaurant_reservations)


@tool(
    l2="8.2",
    app="dining",
    mutating=True,
    network="internet",
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.UNSUPPORTED_OPERATION,
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.DUPLICATE_ENTITY,
    ),
)
def make_restaurant_reservation(
    ctx: Ctx,
    restaurant_id: str,
    datetime: DateTime,
    party_size: PartySize,
    name: Name | None = None,
    phone: Phone | None = None,
    special_requests: Requests | None = None,
    seating: Seating | None = None,
) -> dict[str, Any]:
    """Book a table at a restaurant that takes online reservations.

    Args:
        restaurant_id: Id of the restaurant, e.g. rest_914.
        datetime: Time of the booking, YYYY-MM-DDTHH:MM; must be one of its free table times.
        party_size: Number of guests.
        name: Name the table is booked under (default the user's name).
        phone: Contact number for the restaurant (default the user's phone).
        special_requests: Requests such as "high chair" or "birthday cake".
        seating: Preferred seating area.
    """
    r = _restaurant(ctx, restaurant_id)
    _phone_only(r, "reservations")
    _bookable(ctx, r, datetime, party_size)
    _same_day_booking(ctx, restaurant_id, datetime)
    profile = ctx.conn.execute(_PROFILE).one()
    row = {
        "reservation_id": ctx.new_id(restaurant_reservations),
        "restaurant_id": restaurant_id,
        "datetime": datetime,
        "party_size": party_size,
        "name": name or profile.name,
        "phone": normalise_phone(phone or profile.phone),
        "special_requests": special_requests,
        "seating": seating,
        "status": "confirmed",
    }
    ctx.conn.execute(_ADD_RESERVATION, {**row, "source": "api", "created_at": ctx.ts(), "updated_at": ctx.ts()})
    _take_seats(ctx, restaurant_id, datetime, party_size)
    return {**row, "restaurant": r["name"], "address": r["address"]}


def _active_reservation(ctx: Ctx, reservation_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A confirmed, upcoming reservation and its restaurant (which must take online changes)."""
    resv = _get(ctx, restaurant_reservations, reservation_id)
    if resv["status"] != "confirmed":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{reservation_id} is {resv['status']}", status=resv["status"])
    if resv["datetime"] <= _minute(ctx):
        raise ToolError(ErrorType.STATE_CONFLICT, f"{reservation_id} was for {resv['datetime']}, already past")
    r = _restaurant(ctx, resv["restaurant_id"])
    _phone_only(r, "changes")
    return resv, r


_SET_RESERVATION = update(restaurant_reservations).where(RV.reservation_id == bindparam("match_reservation_id"))


@tool(
    l2="8.2",
    app="dining",
    mutating=True,
    network="internet",
    check=_one_of("datetime", "party_size", "special_requests", "seating"),
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.STATE_CONFLICT,
        ErrorType.UNSUPPORTED_OPERATION,
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.DUPLICATE_ENTITY,
    ),
)
def update_restaurant_reservation(
    ctx: Ctx,
    reservation_id: str,
    datetime: DateTime | None = None,
    party_size: PartySize | None = None,
    special_requests: Requests | None = None,
    seating: Seating | None = None,
) -> dict[str, Any]:
    """Move a table booking to another time, change its party size, requests or seating.

    Args:
        reservation_id: Id of the reservation, e.g. resv_903.
        datetime: New time, YYYY-MM-DDTHH:MM (a free table time of the restaurant).
        party_size: New number of guests.
        special_requests: New special requests (replace the old ones).
        seating: New seating preference.
    """
    resv, r = _active_reservation(ctx, reservation_id)
    when, party = datetime or resv["datetime"], party_size or resv["party_size"]
    changes = {
        k: v
        for k, v in {
            "datetime": datetime,
            "party_size": party_size,
            "special_requests": special_requests,
            "seating": seating,
        }.items()
        if v is not None and v != resv[k]
    }
    if "datetime" in changes or "party_size" in changes:
        _bookable(ctx, r, when, party, seats_back=resv["party_size"] if when == resv["datetime"] else 0)
        if when[:10] != resv["datetime"][:10]:
            _same_day_booking(ctx, r["restaurant_id"], when, exclude=reservation_id)
        _take_seats(ctx, r["restaurant_id"], resv["datetime"], -resv["party_size"])
        _take_seats(ctx, r["restaurant_id"], when, party)
    if changes:
        ctx.conn.execute(_SET_RESERVATION, {"match_reservation_id": reservation_id, **changes, "updated_at": ctx.ts()})
    after = {**resv, **changes}
    return {**{k: after[k] for k in RESERVATION_KEYS}, "restaurant": r["name"], "updated": sorted(changes)}


@tool(
    l2="8.2",
    app="dining",
    mutating=True,
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.UNSUPPORTED_OPERATION),
)
def cancel_restaurant_reservation(ctx: Ctx, reservation_id: str, reason: Requests | None = None) -> dict[str, Any]:
    """Cancel an upcoming table booking and free its seats.

    Args:
        reservation_id: Id of the reservation, e.g. resv_903.
        reason: Why it is cancelled (passed on to the restaurant).
    """
    resv, r = _active_reservation(ctx, reservation_id)
    ctx.conn.execute(
        _SET_RESERVATION,
        {
            "match_reservation_id": reservation_id,
            "status": "cancelled",
            "cancel_reason": reason,
            "updated_at": ctx.ts(),
        },
    )
    _take_seats(ctx, r["restaurant_id"], resv["datetime"], -resv["party_size"])
    return {
        "reservation_id": reservation_id,
        "restaurant": r["name"],
        "datetime": resv["datetime"],
        "status": "cancelled",
    }


# ---- Food Delivery (8.3) ----------------------------------------------------------------------

_MENU_ITEMS_OF = select(world_menu_items).where(
    M.restaurant_id == bindparam("restaurant_id"), M.menu_item_id.in_(bindparam("menu_item_ids", expanding=True))
)


def _menu_rows(ctx: Ctx, restaurant_id: str, item_ids: list[str]) -> dict[str, dict[str, Any]]:
    found = {
        m["menu_item_id"]: m
        for m in rows(ctx.conn.execute(_MENU_ITEMS_OF, {"restaurant_id": restaurant_id, "menu_item_ids": item_ids}))
    }
    missing = sorted(set(item_ids) - set(found))
    if missing:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"not on this restaurant's menu: {', '.join(missing)}",
            field="items",
            missing=missing,
            hint="get_restaurant_details",
        )
    return found


def _schedule_ok(ctx: Ctx, scheduled_at: str | None) -> None:
    latest = (ctx.now + dt.timedelta(days=SCHEDULE_DAYS)).strftime(DT_FMT)
    if scheduled_at is not None and not _minute(ctx) < scheduled_at <= latest:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"scheduled_at must be after now and at most {SCHEDULE_DAYS} days ahead",
            field="scheduled_at",
        )


_ADD_ORDER = insert(food_orders)


def _place_order(
    ctx: Ctx,
    r: dict[str, Any],
    address: dict[str, Any],
    method: dict[str, Any],
    lines: list[dict[str, Any]],
    menu: dict[str, dict[str, Any]],
    tip: float,
    scheduled_at: str | None,
    utensils: bool,
    reordered_from: str | None = None,
) -> dict[str, Any]:
    """Check that the restaurant can deliver these lines, charge the payment method, record the order."""
    when = scheduled_at or _minute(ctx)
    if not r["delivery"]:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"{r['name']} does not deliver",
            hint="search_restaurants with delivery_only",
        )
    if address["city"] != r["city"]:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"{address['label']} ({address['city']}) is outside {r['name']}'s delivery area ({r['city']})",
        )
    if not _open_at(r["hours"], when):
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"{r['name']} is closed at {when}",
            hours=_hours_out(r["hours"]),
            hint="schedule the order for opening hours",
        )
    sold_out = sorted({line["menu_item_id"] for line in lines if not menu[line["menu_item_id"]]["available"]})
    if sold_out:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            "sold out: " + ", ".join(menu[i]["name"] for i in sold_out),
            unavailable=[{"menu_item_id": i, "name": menu[i]["name"]} for i in sold_out],
        )
    items = [
        {
            "menu_item_id": line["menu_item_id"],
            "name": menu[line["menu_item_id"]]["name"],
            "quantity": line["quantity"],
            "unit_price": menu[line["menu_item_id"]]["price"],
            **({"notes": line["notes"]} if line.get("notes") else {}),
        }
        for line in lines
    ]
    subtotal = round(sum(i["quantity"] * i["unit_price"] for i in items), 2)
    if subtotal < r["min_order"]:
        raise ToolError(
            ErrorType.LIMIT_EXCEEDED,
            f"{r['name']} delivers orders from {r['min_order']:.2f}; this one is {subtotal:.2f}",
            min_order=r["min_order"],
            subtotal=subtotal,
        )
    total = round(subtotal + r["delivery_fee"] + tip, 2)
    order_id = ctx.new_id(food_orders)
    txn_id = charge(ctx, total, r["name"], "dining", order_id, method["method_id"])
    row = {
        "order_id": order_id,
        "restaurant_id": r["restaurant_id"],
        "address_id": address["address_id"],
        "payment_method_id": method["method_id"],
        "subtotal": subtotal,
        "delivery_fee": r["delivery_fee"],
        "tip": round(tip, 2),
        "total": total,
        "currency": method["currency"],
        "status": "scheduled" if scheduled_at else "placed",
        "scheduled_at": scheduled_at,
        "eta": _shift(when, r["prep_min"] + COURIER_MIN),
    }
    ctx.conn.execute(
        _ADD_ORDER,
        {
            **row,
            "items_json": json.dumps(items, ensure_ascii=False),
            "utensils": int(utensils),
            "placed_at": ctx.ts()[:16],
            "reordered_from": reordered_from,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {**row, "restaurant": r["name"], "items": items, "txn_id": txn_id}


ORDER_ERRORS = (
    ErrorType.ENTITY_NOT_FOUND,
    ErrorType.STATE_CONFLICT,
    ErrorType.INVALID_ARGUMENT_VALUE,
    ErrorType.RESOURCE_UNAVAILABLE,
    ErrorType.LIMIT_EXCEEDED,
)


@tool(l2="8.3", app="delivery", mutating=True, network="internet", errors=ORDER_ERRORS)
def order_food_delivery(
    ctx: Ctx,
    restaurant_id: str,
    items: Annotated[list[OrderLine], Field(min_length=1, max_length=30)],
    address_id: str,
    payment_method_id: str | None = None,
    tip: Money = 0,
    scheduled_at: DateTime | None = None,
    utensils: bool = False,
) -> dict[str, Any]:
    """Order food for delivery from a restaurant, paid with a payment method, to a saved address.

    Args:
        restaurant_id: Id of the restaurant, e.g. rest_914.
        items: Dishes to order: [{menu_item_id, quantity, notes?}].
        address_id: Saved address to deliver to, e.g. address_901 (get_restaurant_details lists them).
        payment_method_id: Payment method, e.g. pm_902 (default: the default method).
        tip: Tip for the courier.
        scheduled_at: Deliver later, YYYY-MM-DDTHH:MM (at most 7 days ahead); default as soon as possible.
        utensils: Ask for cutlery.
    """
    r = _restaurant(ctx, restaurant_id)
    address = _get(ctx, addresses, address_id)
    menu = _menu_rows(ctx, restaurant_id, [line["menu_item_id"] for line in items])
    method = payment_method(ctx, payment_method_id)
    _schedule_ok(ctx, scheduled_at)
    return _place_order(ctx, r, address, method, list(items), menu, tip, scheduled_at, utensils)  # type: ignore[arg-type]  # OrderLine dicts


ACTIVE_ORDER = ("scheduled", "placed", "preparing", "on_the_way")
_RESTAURANT_NAME = select(R.name).where(R.restaurant_id == bindparam("restaurant_id"))


@tool(l2="8.3", app="delivery", mutating=False, network="internet", errors=(ErrorType.ENTITY_NOT_FOUND,))
def track_food_order(ctx: Ctx, order_id: str) -> dict[str, Any]:
    """Show a delivery order's status, estimated arrival and contents.

    Args:
        order_id: Id of the order, e.g. forder_931.
    """
    order = _get(ctx, food_orders, order_id)
    name = ctx.conn.execute(_RESTAURANT_NAME, {"restaurant_id": order["restaurant_id"]}).scalar()
    active = order["status"] in ACTIVE_ORDER
    minutes = int((dt.datetime.strptime(order["eta"], DT_FMT) - ctx.now).total_seconds() // 60) if active else None
    return {
        "order_id": order_id,
        "restaurant_id": order["restaurant_id"],
        "restaurant": name,
        "status": order["status"],
        "placed_at": order["placed_at"],
        "scheduled_at": order["scheduled_at"],
        "eta": order["eta"] if active else None,
        "minutes_to_arrival": max(minutes, 0) if minutes is not None else None,
        "items": [{"name": i["name"], "quantity": i["quantity"]} for i in json.loads(order["items_json"])],
        "total": order["total"],
        "currency": order["currency"],
        "address_id": order["address_id"],
    }


_MENU_ITEMS = select(world_menu_items).where(M.menu_item_id.in_(bindparam("menu_item_ids", expanding=True)))


@tool(l2="8.3", app="delivery", mutating=True, network="internet", errors=ORDER_ERRORS)
def reorder_past_order(
    ctx: Ctx,
    order_id: str,
    address_id: str | None = None,
    payment_method_id: str | None = None,
    scheduled_at: DateTime | None = None,
) -> dict[str, Any]:
    """Order the same dishes as a past delivery order again, at today's prices and with the same tip.

    Args:
        order_id: Id of the past order, e.g. forder_912.
        address_id: Deliver here instead of the original address.
        payment_method_id: Pay with this method instead of the original one.
        scheduled_at: Deliver later, YYYY-MM-DDTHH:MM (at most 7 days ahead); default as soon as possible.
    """
    old = _get(ctx, food_orders, order_id)
    r = _restaurant(ctx, old["restaurant_id"])
    address = _get(ctx, addresses, address_id or old["address_id"])
    method = payment_method(ctx, payment_method_id or old["payment_method_id"])
    _schedule_ok(ctx, scheduled_at)
    lines = [{k: i[k] for k in ("menu_item_id", "quantity", "notes") if k in i} for i in json.loads(old["items_json"])]
    menu = {
        m["menu_item_id"]: m
        for m in rows(ctx.conn.execute(_MENU_ITEMS, {"menu_item_ids": [line["menu_item_id"] for line in lines]}))
    }
    gone = [i for i in json.loads(old["items_json"]) if i["menu_item_id"] not in menu]
    if gone:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            "no longer on the menu: " + ", ".join(i["name"] for i in gone),
            unavailable=[{"menu_item_id": i["menu_item_id"], "name": i["name"]} for i in gone],
        )
    return _place_order(
        ctx, r, address, method, lines, menu, old["tip"], scheduled_at, bool(old["utensils"]), reordered_from=order_id
    )


# ---- Recipes & Cooking (8.4) ------------------------------------------------------------------

STOP_WORDS = frozenset({"a", "an", "and", "the", "with", "for", "of", "recipe", "recipes", "to", "some", "easy"})


def _recipe_out(r: dict[str, Any], servings: int | None, saved: set[str]) -> dict[str, Any]:
    factor = servings / r["servings"] if servings else 1.0
    return {
        "recipe_id": r["recipe_id"],
        "title": r["title"],
        "cuisine": r["cuisine"],
        "diet": json.loads(r["diet_json"]),
        "time_min": r["time_min"],
        "servings": servings or r["servings"],
        "calories_per_serving": r["calories"],
        "ingredients": [{**i, "quantity": round(i["quantity"] * factor, 2)} for i in json.loads(r["ingredients_json"])],
        "saved": r["recipe_id"] in saved,
    }


_SAVED_RECIPE_IDS = select(saved_recipes.c.recipe_id)
_RECIPES = select(world_recipes).order_by(world_recipes.c.recipe_id)


@tool(l2="8.4", app="recipes", mutating=False)
def search_recipes(
    ctx: Ctx,
    query: Query,
    diet: Diet | None = None,
    max_time_min: Annotated[int, Field(ge=5, le=600)] | None = None,
    include_ingredients: Ingredients | None = None,
    exclude_ingredients: Ingredients | None = None,
    servings: Annotated[int, Field(ge=1, le=50)] | None = None,
    limit: Annotated[int, Field(ge=1, le=20)] = 5,
) -> dict[str, Any]:
    """Search recipes by keywords (title, cuisine, meal type, ingredients), best match first.

    Args:
        query: Keywords, e.g. "quick chicken dinner"; a recipe matches when any keyword matches.
        diet: Only recipes that fit this diet.
        max_time_min: Longest total cooking time in minutes.
        include_ingredients: Ingredients every result must use, e.g. ["tofu"].
        exclude_ingredients: Ingredients no result may use, e.g. ["peanuts"].
        servings: Scale the ingredient quantities to this many servings.
        limit: Maximum number of results.
    """
    words = [w for w in query.lower().split() if w not in STOP_WORDS] or query.lower().split()
    saved = set(ctx.conn.execute(_SAVED_RECIPE_IDS).scalars())
    scored = []
    for r in rows(ctx.conn.execute(_RECIPES)):
        ingredients = " | ".join(i["name"].lower() for i in json.loads(r["ingredients_json"]))
        if (diet and diet not in json.loads(r["diet_json"])) or (max_time_min and r["time_min"] > max_time_min):
            continue
        if any(i.lower() not in ingredients for i in include_ingredients or []):
            continue
        if any(i.lower() in ingredients for i in exclude_ingredients or []):
            continue
        title, about = r["title"].lower(), f"{r['cuisine']} {' '.join(json.loads(r['tags_json']))}".lower()
        score = sum(2 * (w in title) + (w in about or w in ingredients) for w in words)
        if score:
            scored.append((-score, r["title"], r))
    scored.sort(key=lambda s: (s[0], s[1]))
    return {
        "recipes": [_recipe_out(r, servings, saved) for _, _, r in scored[:limit]],
        "count": min(len(scored), limit),
    }


_SAVED_COLLECTION = select(saved_recipes.c.collection).where(saved_recipes.c.recipe_id == bindparam("recipe_id"))
_COLLECTION_NAMED = select(saved_recipes.c.collection).where(
    func.lower(saved_recipes.c.collection) == bindparam("collection")
)
_SAVE_RECIPE = insert(saved_recipes)


@tool(l2="8.4", app="recipes", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY))
def save_recipe(ctx: Ctx, recipe_id: str, collection: Name = "Saved") -> dict[str, Any]:
    """Save a recipe to one of the user's recipe collections.

    Args:
        recipe_id: Id of the recipe, e.g. recipe_907.
        collection: Collection to save it in (created if new), e.g. "Weeknight dinners".
    """
    recipe = _get(ctx, world_recipes, recipe_id, hint="search_recipes")
    existing = ctx.conn.execute(_SAVED_COLLECTION, {"recipe_id": recipe_id}).scalar()
    if existing:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"{recipe['title']!r} is already saved in {existing!r}",
            existing_id=recipe_id,
            collection=existing,
        )
    collection = ctx.conn.execute(_COLLECTION_NAMED, {"collection": collection.lower()}).scalar() or collection
    ctx.conn.execute(
        _SAVE_RECIPE, {"recipe_id": recipe_id, "collection": collection, "created_at": ctx.ts(), "updated_at": ctx.ts()}
    )
    return {"recipe_id": recipe_id, "title": recipe["title"], "collection": collection}


# ---- Grocery & Meal Planning (8.5) ------------------------------------------------------------

_GROCERY_LIST_NAMED = select(grocery_items.c.list_name).where(
    func.lower(grocery_items.c.list_name) == bindparam("list_name")
)
_OPEN_GROCERY_ITEM = select(grocery_items.c.item_id, grocery_items.c.quantity).where(
    grocery_items.c.list_name == bindparam("list_name"),
    grocery_items.c.checked == 0,
    func.lower(grocery_items.c.name) == bindparam("name"),
    grocery_items.c.unit.is_not_distinct_from(bindparam("unit")),
)
_SET_GROCERY_ITEM = update(grocery_items).where(grocery_items.c.item_id == bindparam("match_item_id"))
_ADD_GROCERY_ITEM = insert(grocery_items)


@tool(l2="8.5", app="recipes", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND,))
def add_grocery_items(
    ctx: Ctx,
    items: Annotated[list[GroceryLine], Field(min_length=1, max_length=50)],
    list_name: Name = "Groceries",
    from_recipe_id: str | None = None,
) -> dict[str, Any]:
    """Add items to a grocery list; an unticked item of the same name and unit gets the quantity added instead.

    Args:
        items: Items to add: [{name, quantity?, unit?}].
        list_name: Grocery list to add to (created if new).
        from_recipe_id: Recipe these items are for, e.g. recipe_907.
    """
    if from_recipe_id:
        _get(ctx, world_recipes, from_recipe_id, hint="search_recipes")
    list_name = ctx.conn.execute(_GROCERY_LIST_NAMED, {"list_name": list_name.lower()}).scalar() or list_name
    added, merged = [], []
    for line in items:
        name, quantity, unit = line["name"].strip(), line.get("quantity") or 1.0, line.get("unit")
        same = ctx.conn.execute(
            _OPEN_GROCERY_ITEM, {"list_name": list_name, "name": name.lower(), "unit": unit}
        ).first()
        if same:
            total = round(same.quantity + quantity, 2)
            ctx.conn.execute(
                _SET_GROCERY_ITEM, {"match_item_id": same.item_id, "quantity": total, "updated_at": ctx.ts()}
            )
            merged.append({"item_id": same.item_id, "name": name, "added": quantity, "quantity": total, "unit": unit})
            continue
        item_id = ctx.new_id(grocery_items)
        ctx.conn.execute(
            _ADD_GROCERY_ITEM,
            {
                "item_id": item_id,
                "list_name": list_name,
                "name": name,
                "quantity": quantity,
                "unit": unit,
                "checked": 0,
                "from_recipe_id": from_recipe_id,
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            },
        )
        added.append({"item_id": item_id, "name": name, "quantity": quantity, "unit": unit})
    return {"list_name": list_name, "added": added, "merged": merged}


_PLANNED_RECIPE = select(meal_plans.c.recipe_id).where(
    meal_plans.c.date == bindparam("date"), meal_plans.c.meal == bindparam("meal")
)
_SET_MEAL_PLAN = update(meal_plans).where(
    meal_plans.c.date == bindparam("match_date"), meal_plans.c.meal == bindparam("match_meal")
)
_ADD_MEAL_PLAN = insert(meal_plans)


@tool(
    l2="8.5",
    app="recipes",
    mutating=True,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.DUPLICATE_ENTITY),
)
def create_meal_plan(
    ctx: Ctx,
    date: Date,
    meal: Meal,
    recipe_id: str,
    servings: Annotated[int, Field(ge=1, le=50)] | None = None,
    replace: bool = False,
) -> dict[str, Any]:
    """Plan a recipe for a meal on a day.

    Args:
        date: Day of the meal, YYYY-MM-DD (today or later).
        meal: Which meal.
        recipe_id: Id of the recipe, e.g. recipe_907.
        servings: Servings to cook (default the recipe's).
        replace: Set true to replace the recipe already planned for that meal.
    """
    recipe = _get(ctx, world_recipes, recipe_id, hint="search_recipes")
    if date < ctx.now.date().isoformat():
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, f"{date} is in the past", field="date")
    planned = ctx.conn.execute(_PLANNED_RECIPE, {"date": date, "meal": meal}).scalar()
    if planned and not replace:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"{meal} on {date} is already planned: {planned}",
            existing_id=planned,
            hint="pass replace=true to swap it",
        )
    values = {"recipe_id": recipe_id, "servings": servings or recipe["servings"], "updated_at": ctx.ts()}
    if planned:
        ctx.conn.execute(_SET_MEAL_PLAN, {"match_date": date, "match_meal": meal, **values})
    else:
        ctx.conn.execute(_ADD_MEAL_PLAN, {"date": date, "meal": meal, **values, "created_at": ctx.ts()})
    return {
        "date": date,
        "meal": meal,
        "recipe_id": recipe_id,
        "title": recipe["title"],
        "servings": values["servings"],
        "replaced": planned,
    }


# ---- World data -------------------------------------------------------------------------------

# Dishes: (name, category, price in USD, tags). Tags: v vegetarian, vg vegan, gf gluten-free, n contains nuts.
CUISINES: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str, float, str], ...]]] = {
    "Cantonese": (
        ("Jade Garden", "Pearl River Kitchen", "Golden Lotus", "Dim Sum Palace", "Canton House"),
        (
            ("Har gow shrimp dumplings", "starter", 6, "gf"),
            ("Char siu bao", "starter", 5, ""),
            ("Roast goose", "main", 22, "gf"),
            ("Steamed fish with ginger", "main", 24, "gf"),
            ("Wonton noodle soup", "main", 9, ""),
            ("Stir-fried gai lan", "side", 8, "vg gf"),
            ("Mango pomelo sago", "dessert", 5, "v gf"),
            ("Egg tarts", "dessert", 4, "v"),
        ),
    ),
    "Sichuan": (
        ("Spicy Pavilion", "Red Lantern", "Chengdu Taste", "Mala Kitchen", "Peppercorn House"),
        (
            ("Kung pao chicken", "main", 12, "n"),
            ("Dan dan noodles", "main", 8, "n"),
            ("Mapo tofu", "main", 9, ""),
            ("Boiled fish in chili oil", "main", 22, "gf"),
            ("Twice-cooked pork", "main", 13, "gf"),
            ("Dry-fried green beans", "side", 8, "vg gf"),
            ("Fish-fragrant eggplant", "main", 9, "vg"),
            ("Sichuan cold noodles", "starter", 7, "vg"),
        ),
    ),
    "Beijing": (
        ("Old Hutong", "Imperial Duck House", "Courtyard Kitchen", "Drum Tower Eatery", "Siheyuan"),
        (
            ("Peking roast duck (half)", "main", 28, ""),
            ("Zhajiang noodles", "main", 8, ""),
            ("Pork and chive dumplings", "main", 7, ""),
            ("Lamb skewers", "starter", 10, "gf"),
            ("Sweet and sour pork", "main", 12, ""),
            ("Tomato and egg stir-fry", "main", 7, "v gf"),
            ("Stir-fried cabbage", "side", 5, "vg gf"),
            ("Hawthorn cake", "dessert", 4, "vg gf"),
        ),
    ),
    "Hot pot": (
        ("Bubbling Pot", "Little Lamb Hot Pot", "Copper Pot", "Broth & Co", "Fire Pot Club"),
        (
            ("Spicy broth base", "main", 10, "vg"),
            ("Mushroom broth base", "main", 9, "vg gf"),
            ("Sliced beef", "main", 14, "gf"),
            ("Lamb rolls", "main", 13, "gf"),
            ("Shrimp paste", "main", 11, "gf"),
            ("Tofu skin", "side", 5, "vg"),
            ("Vegetable platter", "side", 7, "vg gf"),
            ("Hand-pulled noodles", "side", 4, "vg"),
        ),
    ),
    "Japanese": (
        ("Sakura Sushi", "Ramen Ichiban", "Kaze Izakaya", "Tsukiji Bar", "Hana Bento"),
        (
            ("Salmon nigiri", "main", 8, "gf"),
            ("Tonkotsu ramen", "main", 14, ""),
            ("Chicken katsu curry", "main", 15, ""),
            ("Vegetable tempura", "starter", 10, "v"),
            ("Edamame", "starter", 5, "vg gf"),
            ("Miso soup", "side", 4, "v gf"),
            ("Spicy tuna roll", "main", 11, ""),
            ("Matcha ice cream", "dessert", 6, "v gf"),
        ),
    ),
    "Korean": (
        ("Seoul Kitchen", "Bulgogi Brothers", "Kimchi House", "Gangnam Grill", "Hanok Table"),
        (
            ("Bibimbap", "main", 13, "v"),
            ("Korean fried chicken", "main", 16, ""),
            ("Beef bulgogi", "main", 18, ""),
            ("Kimchi jjigae", "main", 12, ""),
            ("Japchae", "main", 11, "vg"),
            ("Tteokbokki", "starter", 9, ""),
            ("Seafood pancake", "starter", 13, ""),
            ("Kimchi", "side", 4, "vg gf"),
        ),
    ),
    "Italian": (
        ("Trattoria Roma", "Pasta Fresca", "Luigi's", "Il Forno", "Osteria Bella"),
        (
            ("Margherita pizza", "main", 14, "v"),
            ("Spaghetti carbonara", "main", 16, ""),
            ("Mushroom risotto", "main", 17, "v gf"),
            ("Lasagna", "main", 18, ""),
            ("Caesar salad", "starter", 11, ""),
            ("Penne arrabbiata", "main", 14, "vg"),
            ("Bruschetta", "starter", 8, "vg"),
            ("Tiramisu", "dessert", 8, "v"),
        ),
    ),
    "French": (
        ("Le Petit Bistro", "Chez Marcel", "Maison Rose", "La Belle Epoque", "Brasserie Lumiere"),
        (
            ("French onion soup", "starter", 11, "v"),
            ("Steak frites", "main", 28, "gf"),
            ("Coq au vin", "main", 26, "gf"),
            ("Nicoise salad", "starter", 15, "gf"),
            ("Ratatouille", "main", 18, "vg gf"),
            ("Croque monsieur", "main", 13, ""),
            ("Escargots", "starter", 14, "gf"),
            ("Creme brulee", "dessert", 9, "v gf"),
        ),
    ),
    "Thai": (
        ("Bangkok Street", "Lemongrass", "Thai Orchid", "Siam Spoon", "Coconut Grove"),
        (
            ("Pad thai", "main", 13, "n"),
            ("Green curry chicken", "main", 15, "gf"),
            ("Tom yum goong", "starter", 14, "gf"),
            ("Som tam papaya salad", "starter", 9, "vg gf n"),
            ("Massaman curry", "main", 16, "gf n"),
            ("Basil tofu stir-fry", "main", 12, "vg"),
            ("Spring rolls", "starter", 7, "vg"),
            ("Mango sticky rice", "dessert", 8, "vg gf"),
        ),
    ),
    "Indian": (
        ("Spice Route", "Taj Tandoor", "Masala Art", "Curry Leaf", "Bombay Bites"),
        (
            ("Butter chicken", "main", 16, "gf"),
            ("Chana masala", "main", 12, "vg gf"),
            ("Lamb rogan josh", "main", 18, "gf"),
            ("Palak paneer", "main", 14, "v gf"),
            ("Vegetable biryani", "main", 13, "v gf n"),
            ("Garlic naan", "side", 4, "v"),
            ("Samosas", "starter", 6, "vg"),
            ("Mango lassi", "drink", 5, "v gf"),
        ),
    ),
    "Mexican": (
        ("Casa Verde", "El Taquito", "Cantina Sol", "La Palma", "Burrito Bros"),
        (
            ("Tacos al pastor", "main", 12, "gf"),
            ("Chicken burrito", "main", 13, ""),
            ("Veggie quesadilla", "main", 11, "v"),
            ("Guacamole and chips", "starter", 8, "vg gf"),
            ("Beef enchiladas", "main", 14, ""),
            ("Black bean soup", "starter", 9, "vg gf"),
            ("Elote", "side", 5, "v gf"),
            ("Churros", "dessert", 6, "v"),
        ),
    ),
    "American": (
        ("Liberty Burger", "Smokestack Diner", "Patty & Bun", "Five Bros Grill", "Route 66 Diner"),
        (
            ("Classic cheeseburger", "main", 14, ""),
            ("Bacon double burger", "main", 17, ""),
            ("Plant-based burger", "main", 15, "vg"),
            ("Fries", "side", 5, "vg gf"),
            ("Buffalo wings", "starter", 12, "gf"),
            ("Onion rings", "side", 6, "v"),
            ("Pecan pie", "dessert", 7, "v n"),
            ("Vanilla milkshake", "drink", 7, "v gf"),
        ),
    ),
    "Middle Eastern": (
        ("Sahara Grill", "Cedar Tree", "Falafel Corner", "Levant Kitchen", "Olive & Zaatar"),
        (
            ("Chicken shawarma wrap", "main", 11, ""),
            ("Falafel plate", "main", 12, "vg"),
            ("Hummus with pita", "starter", 8, "vg"),
            ("Lamb kofta", "main", 17, "gf"),
            ("Tabbouleh", "starter", 8, "vg"),
            ("Baba ganoush", "starter", 8, "vg gf"),
            ("Mixed grill", "main", 24, "gf"),
            ("Baklava", "dessert", 6, "v n"),
        ),
    ),
    "Vietnamese": (
        ("Pho Saigon", "Little Hanoi", "Banh Mi Box", "Lotus Pho", "Mekong Kitchen"),
        (
            ("Pho bo", "main", 13, "gf"),
            ("Banh mi", "main", 9, ""),
            ("Fresh spring rolls", "starter", 8, "gf n"),
            ("Bun cha", "main", 13, ""),
            ("Tofu pho", "main", 12, "vg gf"),
            ("Lemongrass chicken", "main", 14, "gf"),
            ("Broken rice with pork", "main", 13, ""),
            ("Vietnamese iced coffee", "drink", 5, "v gf"),
        ),
    ),
    "Plant-based": (
        ("Green Bowl", "Leaf & Root", "Sprout Kitchen", "Veggie Lab", "Bodhi Garden"),
        (
            ("Buddha bowl", "main", 14, "vg gf"),
            ("Mushroom burger", "main", 15, "vg"),
            ("Lentil soup", "starter", 9, "vg gf"),
            ("Tofu steak", "main", 16, "vg gf"),
            ("Avocado toast", "main", 11, "vg"),
            ("Quinoa salad", "main", 13, "vg gf n"),
            ("Vegan brownie", "dessert", 6, "vg"),
            ("Green smoothie", "drink", 7, "vg gf"),
        ),
    ),
    "Cafe": (
        ("Morning Glory Cafe", "Bean & Brew", "Sunday Brunch Club", "Daily Grind", "Toast House"),
        (
            ("Eggs Benedict", "main", 14, ""),
            ("Avocado toast", "main", 12, "vg"),
            ("Buttermilk pancakes", "main", 11, "v"),
            ("Butter croissant", "starter", 4, "v"),
            ("Granola bowl", "main", 9, "v n"),
            ("Flat white", "drink", 5, "v gf"),
            ("Club sandwich", "main", 13, ""),
            ("Cheesecake", "dessert", 7, "v"),
        ),
    ),
    "Spanish": (
        ("Casa Tapas", "La Bodega", "Sol y Sombra", "El Mercado", "Barcelona Bites"),
        (
            ("Patatas bravas", "starter", 8, "vg gf"),
            ("Gambas al ajillo", "starter", 14, "gf"),
            ("Seafood paella", "main", 26, "gf"),
            ("Jamon iberico", "starter", 18, "gf"),
            ("Tortilla espanola", "main", 9, "v gf"),
            ("Croquetas", "starter", 9, ""),
            ("Pimientos de padron", "side", 8, "vg gf"),
            ("Churros con chocolate", "dessert", 7, "v"),
        ),
    ),
}
CHINESE = ("Beijing", "Cantonese", "Sichuan", "Hot pot")
LOCAL_CUISINES = {
    "Beijing": CHINESE,
    "Shanghai": CHINESE,
    "Tokyo": ("Japanese",),
    "Seoul": ("Korean",),
    "Madrid": ("Spanish",),
    "Mumbai": ("Indian",),
    "Berlin": ("Plant-based", "Cafe"),
    "London": ("Indian", "French"),
    "San Francisco": ("Mexican", "American", "Cafe"),
    "Palo Alto": ("American", "Cafe"),
    "Toronto": ("American", "Cafe"),
    "Sydney": ("Cafe", "Vietnamese"),
}
HALAL_CUISINES = {"Middle Eastern": 1.0, "Indian": 0.5}
HOURS = {  # cuisine -> opening windows
    "Cafe": [["07:30", "18:00"]],
    "Hot pot": [["11:00", "23:30"]],
    "Beijing": [["11:00", "14:00"], ["17:00", "21:30"]],
}
DEFAULT_HOURS = ([["11:00", "14:30"], ["17:00", "22:00"]], [["11:30", "22:00"]], [["17:00", "23:00"]])
# USD-denominated seed prices -> local prices in the user's currency: what a meal costs there, where it differs
# from the exchange rate (``locales.CURRENCIES``)
FX = {"CNY": 5.0}


def menu_price(usd: float, currency: str) -> float:
    """A menu price: whole yuan, two round figures in yen and won, halves elsewhere."""
    if currency in FX:
        return float(round(usd * FX[currency]))
    if CURRENCIES[currency].step >= 1:
        return round_amount(usd, currency)
    return round(usd * CURRENCIES[currency].per_usd * 2) / 2


DISHES_PER_MENU = 6  # of the cuisine's eight, so that two places of one cuisine differ

# Recipes: (title, cuisine, diets, minutes, servings, kcal/serving, tags, ingredients "qty unit name; ...").
# Diets: veg vegetarian, vgn vegan, gf gluten_free, df dairy_free, lc low_carb, hp high_protein, nf nut_free.
RECIPES = [
    (
        "Tomato and egg stir-fry",
        "Chinese",
        "veg gf nf",
        15,
        2,
        220,
        "dinner lunch",
        "4 pc egg; 3 pc tomato; 2 pc spring onion; 1 tsp sugar; 1 tbsp vegetable oil",
    ),
    (
        "Kung pao chicken",
        "Sichuan",
        "df hp",
        25,
        2,
        480,
        "dinner spicy",
        "300 g chicken breast; 40 g roasted peanuts; 6 pc dried chili; 1 tsp sichuan peppercorn; 2 tbsp soy sauce; "
        "1 tbsp black vinegar; 3 clove garlic; 1 tbsp cornstarch",
    ),
    (
        "Mapo tofu",
        "Sichuan",
        "df nf",
        20,
        3,
        350,
        "dinner spicy",
        "400 g silken tofu; 150 g ground pork; 2 tbsp doubanjiang; 1 tsp sichuan peppercorn; 2 clove garlic; "
        "1 tbsp cornstarch; 2 pc spring onion",
    ),
    (
        "Vegetarian mapo tofu",
        "Sichuan",
        "veg vgn df nf",
        20,
        3,
        280,
        "dinner spicy",
        "400 g silken tofu; 150 g shiitake mushrooms; 2 tbsp doubanjiang; 1 tsp sichuan peppercorn; 2 clove garlic; "
        "1 tbsp cornstarch",
    ),
    (
        "Pork and chive dumplings",
        "Chinese",
        "df nf",
        60,
        4,
        420,
        "dinner lunch",
        "500 g ground pork; 200 g garlic chives; 40 pc dumpling wrappers; 2 tbsp soy sauce; 1 tbsp sesame oil; "
        "1 tbsp ginger",
    ),
    (
        "Beef noodle soup",
        "Chinese",
        "df hp nf",
        150,
        4,
        560,
        "dinner soup",
        "800 g beef shank; 400 g wheat noodles; 2 pc star anise; 3 tbsp soy sauce; 1 tbsp chili bean paste; "
        "200 g bok choy; 30 g ginger",
    ),
    (
        "Egg fried rice",
        "Chinese",
        "veg df nf",
        15,
        2,
        450,
        "dinner lunch leftovers",
        "400 g cooked rice; 3 pc egg; 100 g peas; 2 pc spring onion; 1 tbsp soy sauce; 2 tbsp vegetable oil",
    ),
    (
        "Steamed fish with ginger and scallion",
        "Cantonese",
        "gf df lc hp nf",
        25,
        3,
        260,
        "dinner",
        "600 g sea bass; 30 g ginger; 4 pc spring onion; 2 tbsp light soy sauce; 2 tbsp vegetable oil",
    ),
    (
        "Century egg and pork congee",
        "Cantonese",
        "df gf nf",
        60,
        4,
        310,
        "breakfast",
        "150 g rice; 2 pc century egg; 100 g lean pork; 20 g ginger; 1500 ml water",
    ),
    (
        "Hot and sour soup",
        "Chinese",
        "veg df nf",
        30,
        4,
        180,
        "soup dinner",
        "200 g tofu; 100 g wood ear mushrooms; 50 g bamboo shoots; 2 pc egg; 3 tbsp black vinegar; "
        "1 tsp white pepper; 2 tbsp cornstarch",
    ),
    (
        "Beef and broccoli stir-fry",
        "Chinese",
        "df hp nf",
        20,
        3,
        430,
        "dinner quick",
        "400 g flank steak; 300 g broccoli; 3 tbsp oyster sauce; 1 tbsp soy sauce; 2 clove garlic; 1 tbsp cornstarch",
    ),
    (
        "Spaghetti carbonara",
        "Italian",
        "hp nf",
        25,
        2,
        650,
        "dinner pasta",
        "200 g spaghetti; 120 g pancetta; 3 pc egg; 60 g parmesan; 1 tsp black pepper",
    ),
    (
        "Margherita pizza",
        "Italian",
        "veg nf",
        90,
        2,
        700,
        "dinner",
        "300 g pizza dough; 150 g tomato sauce; 200 g mozzarella; 10 pc basil leaves; 1 tbsp olive oil",
    ),
    (
        "Mushroom risotto",
        "Italian",
        "veg gf nf",
        40,
        3,
        520,
        "dinner",
        "300 g arborio rice; 300 g mushrooms; 1000 ml vegetable stock; 1 pc onion; 50 g parmesan; 30 g butter; "
        "100 ml white wine",
    ),
    (
        "Pesto pasta",
        "Italian",
        "veg",
        20,
        2,
        600,
        "dinner pasta quick",
        "200 g penne; 80 g basil pesto; 30 g pine nuts; 40 g parmesan",
    ),
    (
        "Minestrone soup",
        "Italian",
        "veg vgn df nf",
        45,
        4,
        240,
        "soup lunch",
        "1 pc onion; 2 pc carrot; 2 pc celery stalk; 400 g canned tomatoes; 400 g cannellini beans; 100 g small pasta; "
        "1000 ml vegetable stock",
    ),
    (
        "Chicken tikka masala",
        "Indian",
        "gf hp nf",
        50,
        4,
        520,
        "dinner curry",
        "600 g chicken thigh; 200 g yogurt; 400 g canned tomatoes; 200 ml cream; 2 tbsp garam masala; 3 clove garlic; "
        "20 g ginger; 1 pc onion",
    ),
    (
        "Chana masala",
        "Indian",
        "veg vgn gf df nf",
        35,
        4,
        320,
        "dinner curry",
        "800 g chickpeas; 400 g canned tomatoes; 1 pc onion; 2 tsp garam masala; 1 tsp cumin; 3 clove garlic; "
        "20 g ginger",
    ),
    (
        "Dal tadka",
        "Indian",
        "veg vgn gf df nf",
        40,
        4,
        280,
        "dinner curry",
        "250 g red lentils; 1 tsp turmeric; 1 tsp cumin seeds; 2 pc tomato; 3 clove garlic; 2 tbsp vegetable oil",
    ),
    (
        "Green curry with chicken",
        "Thai",
        "gf df nf",
        30,
        3,
        540,
        "dinner curry spicy",
        "400 g chicken thigh; 400 ml coconut milk; 3 tbsp green curry paste; 150 g thai eggplant; 1 tbsp fish sauce; "
        "10 pc thai basil leaves",
    ),
    (
        "Pad thai",
        "Thai",
        "df",
        30,
        2,
        610,
        "dinner noodles",
        "200 g rice noodles; 200 g shrimp; 2 pc egg; 100 g bean sprouts; 40 g roasted peanuts; 3 tbsp tamarind paste; "
        "2 tbsp fish sauce",
    ),
    (
        "Tom yum soup",
        "Thai",
        "gf df lc nf",
        25,
        3,
        190,
        "soup spicy",
        "300 g shrimp; 200 g mushrooms; 2 pc lemongrass; 4 pc kaffir lime leaves; 3 tbsp lime juice; "
        "2 tbsp fish sauce; 2 pc chili",
    ),
    (
        "Beef tacos",
        "Mexican",
        "df gf hp nf",
        25,
        4,
        480,
        "dinner",
        "500 g ground beef; 8 pc corn tortillas; 1 pc onion; 2 pc tomato; 1 pc avocado; 1 tbsp taco seasoning; "
        "50 g lettuce",
    ),
    (
        "Guacamole",
        "Mexican",
        "veg vgn gf df lc nf",
        10,
        4,
        160,
        "snack quick",
        "3 pc avocado; 1 pc lime; 0.5 pc red onion; 1 pc tomato; 10 g cilantro",
    ),
    (
        "Black bean burrito bowl",
        "Mexican",
        "veg vgn gf df nf",
        30,
        2,
        560,
        "lunch dinner",
        "200 g rice; 400 g black beans; 150 g corn; 1 pc avocado; 100 g salsa; 1 pc lime",
    ),
    (
        "Teriyaki salmon",
        "Japanese",
        "df hp nf",
        20,
        2,
        480,
        "dinner quick",
        "2 pc salmon fillet; 4 tbsp teriyaki sauce; 1 tbsp sesame seeds; 200 g rice; 150 g broccoli",
    ),
    (
        "Miso soup",
        "Japanese",
        "veg vgn df lc nf",
        10,
        2,
        80,
        "soup quick",
        "2 tbsp miso paste; 150 g tofu; 5 g wakame; 2 pc spring onion; 600 ml kombu dashi",
    ),
    (
        "Chicken katsu curry",
        "Japanese",
        "df nf",
        45,
        3,
        780,
        "dinner curry",
        "3 pc chicken breast; 100 g panko; 2 pc egg; 100 g japanese curry roux; 2 pc carrot; 2 pc potato; 1 pc onion; "
        "300 g rice",
    ),
    (
        "Bibimbap",
        "Korean",
        "df nf",
        40,
        2,
        620,
        "dinner lunch",
        "300 g rice; 200 g beef; 100 g spinach; 100 g bean sprouts; 1 pc carrot; 2 pc egg; 2 tbsp gochujang",
    ),
    (
        "Kimchi fried rice",
        "Korean",
        "df nf",
        15,
        2,
        490,
        "lunch quick leftovers",
        "400 g cooked rice; 200 g kimchi; 100 g bacon; 2 pc egg; 1 tbsp gochujang",
    ),
    (
        "Greek salad",
        "Greek",
        "veg gf lc nf",
        10,
        2,
        280,
        "lunch salad quick",
        "2 pc tomato; 1 pc cucumber; 150 g feta; 60 g kalamata olives; 0.5 pc red onion; 3 tbsp olive oil",
    ),
    (
        "Shakshuka",
        "Middle Eastern",
        "veg gf nf",
        30,
        2,
        340,
        "breakfast brunch",
        "4 pc egg; 400 g canned tomatoes; 1 pc red pepper; 1 pc onion; 1 tsp cumin; 1 tsp paprika; 50 g feta",
    ),
    (
        "Hummus",
        "Middle Eastern",
        "veg vgn gf df nf",
        10,
        6,
        180,
        "snack dip",
        "400 g chickpeas; 3 tbsp tahini; 1 pc lemon; 1 clove garlic; 3 tbsp olive oil",
    ),
    (
        "Overnight oats",
        "International",
        "veg",
        5,
        1,
        380,
        "breakfast quick",
        "50 g rolled oats; 150 ml milk; 100 g yogurt; 1 tbsp honey; 80 g blueberries; 15 g almonds",
    ),
    (
        "Banana pancakes",
        "American",
        "veg nf",
        20,
        2,
        450,
        "breakfast brunch",
        "2 pc banana; 2 pc egg; 120 g flour; 200 ml milk; 1 tsp baking powder; 1 tbsp maple syrup",
    ),
    (
        "Avocado toast with poached egg",
        "International",
        "veg df nf",
        10,
        1,
        390,
        "breakfast quick",
        "2 pc sourdough bread; 1 pc avocado; 2 pc egg; 0.5 pc lemon; 1 pinch chili flakes",
    ),
    (
        "Grilled chicken Caesar salad",
        "American",
        "hp nf lc",
        25,
        2,
        520,
        "lunch salad",
        "2 pc chicken breast; 1 pc romaine lettuce; 40 g parmesan; 60 g croutons; 4 tbsp caesar dressing",
    ),
    (
        "Lentil soup",
        "International",
        "veg vgn gf df nf",
        45,
        4,
        260,
        "soup lunch",
        "250 g green lentils; 2 pc carrot; 1 pc onion; 2 pc celery stalk; 1500 ml vegetable stock; 1 tsp cumin",
    ),
    (
        "Salmon poke bowl",
        "Hawaiian",
        "df hp nf",
        20,
        2,
        560,
        "lunch dinner",
        "300 g sashimi salmon; 300 g sushi rice; 1 pc avocado; 1 pc cucumber; 2 tbsp soy sauce; 1 tbsp sesame oil",
    ),
    (
        "Chocolate chip cookies",
        "American",
        "veg nf",
        30,
        24,
        120,
        "dessert snack baking",
        "225 g butter; 200 g brown sugar; 2 pc egg; 280 g flour; 300 g chocolate chips; 1 tsp baking soda",
    ),
]
DIETS = {
    "veg": "vegetarian",
    "vgn": "vegan",
    "gf": "gluten_free",
    "df": "dairy_free",
    "lc": "low_carb",
    "hp": "high_protein",
    "nf": "nut_free",
}
SEED_GROCERIES = [  # (list, name, quantity, unit, checked)
    ("Groceries", "Jasmine rice", 2, "kg", 0),
    ("Groceries", "Soy sauce", 1, "bottle", 0),
    ("Groceries", "Firm tofu", 2, "pc", 0),
    ("Groceries", "Spinach", 300, "g", 0),
    ("Groceries", "Chicken thighs", 600, "g", 0),
    ("Groceries", "Garlic", 1, "head", 0),
    ("Groceries", "Spring onion", 1, "bunch", 0),
    ("Groceries", "Greek yogurt", 2, "pc", 0),
    ("Groceries", "Bananas", 6, "pc", 0),
    ("Groceries", "Olive oil", 1, "bottle", 1),
    ("Groceries", "Spaghetti", 500, "g", 1),
    ("Groceries", "Tomatoes", 6, "pc", 1),
    ("Weekend party", "Sparkling water", 12, "bottle", 0),
    ("Weekend party", "Tortilla chips", 3, "bag", 0),
    ("Weekend party", "Avocados", 4, "pc", 0),
]


def next_number(conn: Connection, tbl: Table, prefix: str) -> int:
    """One above the highest ``<prefix>_NNN`` id another seeder already put in a shared table."""
    pk = next(iter(tbl.primary_key.columns))
    return (
        conn.execute(
            select(func.max(cast(func.substr(pk, len(prefix) + 2), Integer))).where(
                pk.like(f"{prefix}\\_%", escape="\\")
            )
        ).scalar()
        or 0
    ) + 1


def _stamp(day: dt.date, hm: str) -> str:
    return f"{day.isoformat()}T{hm}"


def _seatings(rng: random.Random, windows: list[list[str]]) -> list[str]:
    """The times a restaurant takes bookings: two dinner seatings, perhaps a lunch one, or brunch ones."""
    marks = [f"{h:02d}:{m:02d}" for h in range(7, 23) for m in (0, 30)]
    usable = [
        t
        for t in marks
        if any(_shift(f"2000-01-01T{a}", 30)[11:] <= t <= _shift(f"2000-01-01T{b}", -90)[11:] for a, b in windows)
    ]
    dinner = [t for t in usable if "17:00" <= t <= "20:30"]
    lunch = [t for t in usable if "11:30" <= t <= "13:30"]
    brunch = [t for t in usable if "09:00" <= t <= "11:00"]
    picked = rng.sample(dinner, min(2, len(dinner)))
    if lunch and (not dinner or rng.random() < 0.5):
        picked.append(rng.choice(lunch))
    if not dinner and brunch:
        picked += rng.sample(brunch, min(2, len(brunch)))
    return sorted(picked)


def city_counts(persona: Persona, cities: list[str], home: int, work: int, total: int) -> dict[str, int]:
    """The user's own cities get most places; travel cities share the rest."""
    mine = [persona.home_city] + ([persona.work_city] if persona.work_city != persona.home_city else [])
    counts = {persona.home_city: home + work} if len(mine) == 1 else {persona.home_city: home, persona.work_city: work}
    others = [c for c in cities if c not in counts]
    for i, city in enumerate(others):
        counts[city] = (total - sum(counts.values())) // (len(others) - i)
    return counts


@seeder
def seed_food(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """~60 restaurants with menus and two weeks of seatings, the user's bookings and orders, recipes, groceries."""
    now = dt.datetime.fromisoformat(persona.now)
    today, minute = now.date(), now.strftime(DT_FMT)
    currency = conn.execute(select(payment_methods.c.currency).where(payment_methods.c.is_default == 1)).scalar()

    def price(usd: float) -> float:
        return menu_price(usd, str(currency))

    cities = sorted(set(conn.execute(select(world_places.c.city)).scalars()))
    existing = rows(
        conn.execute(
            select(world_places).where(world_places.c.category == "restaurant").order_by(world_places.c.place_id)
        )
    )
    place_no = next_number(conn, world_places, "place")
    pools = {c: list(names) for c, (names, _) in CUISINES.items()}
    for names in pools.values():
        rng.shuffle(names)
    new_places: list[dict[str, Any]] = []
    restaurants: list[dict[str, Any]] = []
    menu: list[dict[str, Any]] = []
    slots: list[dict[str, Any]] = []
    phones: list[dict[str, Any]] = []
    for city, count in city_counts(persona, cities, 20, 8, 60).items():
        sites = [p for p in existing if p["city"] == city]
        for k in range(count):
            local = LOCAL_CUISINES.get(city, ())
            cuisine = (
                "Cafe"
                if city == persona.home_city and k == 0
                else (rng.choice(local) if local and rng.random() < 0.5 else rng.choice(sorted(CUISINES)))
            )
            while not pools[cuisine]:
                cuisine = rng.choice(sorted(CUISINES))
            windows = HOURS.get(cuisine) or rng.choice(DEFAULT_HOURS)
            hours: dict[str, Any] = {
                "windows": windows,
                "closed": ["mon"] if cuisine != "Cafe" and rng.random() < 0.3 else [],
            }
            if sites:
                site = sites.pop(0)
            else:
                lat0, lon0 = CITY_CENTRES.get(city, (0.0, 0.0))
                site = {
                    "place_id": f"place_{place_no:03d}",
                    "name": pools[cuisine].pop(),
                    "category": "restaurant",
                    "address": f"{rng.randint(1, 300)} {rng.choice(STREETS)}",
                    "city": city,
                    "lat": round(lat0 + rng.uniform(-0.05, 0.05), 5),
                    "lon": round(lon0 + rng.uniform(-0.05, 0.05), 5),
                    "rating": round(rng.uniform(3.4, 4.9), 1),
                    "phone": business_phone(city, rng),
                    "open_now": int(_open_at(hours, minute)),
                }
                place_no += 1
                new_places.append(site)
            rid = f"rest_{len(restaurants) + 1:03d}"
            chosen = rng.sample(range(len(CUISINES[cuisine][1])), DISHES_PER_MENU)
            dishes = [d for i, d in enumerate(CUISINES[cuisine][1]) if i in chosen]
            halal = rng.random() < HALAL_CUISINES.get(cuisine, 0.0)
            tags = [set(d[3].split()) for d in dishes]
            diet = [
                flag
                for flag, ok in (
                    ("vegetarian", sum(bool(t & {"v", "vg"}) for t in tags) >= 2),
                    ("vegan", sum("vg" in t for t in tags) >= 2),
                    ("halal", halal),
                    ("gluten_free", sum("gf" in t for t in tags) >= 3),
                    ("nut_free", sum("n" not in t for t in tags) >= 5 and rng.random() < 0.6),
                )
                if ok
            ]
            level = rng.choices([1, 2, 3, 4], [3, 5, 3, 1])[0]
            online = int(cuisine != "Cafe" and rng.random() < 0.75)
            delivers = int((k == 0 and city == persona.home_city) or rng.random() < 0.65)
            restaurants.append(
                {
                    "restaurant_id": rid,
                    "name": site["name"],
                    "cuisine": cuisine,
                    "place_id": site["place_id"],
                    "price_level": level,
                    "rating": site["rating"],
                    "dietary_json": json.dumps(diet),
                    "online_booking": online,
                    "delivery": delivers,
                    "delivery_fee": price(rng.choice([0.99, 1.49, 1.99])),
                    "min_order": price(rng.choice([5, 8, 12])),
                    "prep_min": rng.choice([10, 15, 20, 25]),
                    "max_party": rng.choice([6, 8, 10, 12, 20]),
                    "hours_json": json.dumps(hours),
                    "phone": site["phone"],
                }
            )
            scale = (0.8, 1.0, 1.3, 1.8)[level - 1]
            for name, category, usd, flags in dishes:
                marks = set(flags.split())
                item_diet = [
                    d
                    for d, ok in (
                        ("vegetarian", bool(marks & {"v", "vg"})),
                        ("vegan", "vg" in marks),
                        ("halal", halal),
                        ("gluten_free", "gf" in marks),
                        ("nut_free", "n" not in marks),
                    )
                    if ok
                ]
                menu.append(
                    {
                        "menu_item_id": f"menu_{len(menu) + 1:03d}",
                        "restaurant_id": rid,
                        "name": name,
                        "category": category,
                        "price": price(usd * scale),
                        "available": int(rng.random() > 0.04),
                        "dietary_json": json.dumps(item_diet),
                    }
                )
            if not online:
                phones.append(
                    {
                        "phone": normalise_phone(site["phone"]),
                        "place_id": site["place_id"],
                        "name": site["name"],
                        "handler": "booking",
                        "rules_json": json.dumps(
                            {
                                "open": windows[0][0],
                                "close": windows[-1][1],
                                "slots": _seatings(rng, windows),
                                "full": [],
                            }
                        ),
                    }
                )
                continue
            times = _seatings(rng, windows)
            seats = rng.choice([12, 16, 20, 24, 30])
            for offset in range(14):
                day = today + dt.timedelta(days=offset)
                if WEEKDAYS[day.weekday()] in hours["closed"]:
                    continue
                busy = (0.5, 1.05) if day.weekday() in (4, 5) else (0.1, 0.8)
                for t in times:
                    if _stamp(day, t) > minute:
                        left = max(0, seats - round(seats * rng.uniform(*busy)))
                        slots.append(
                            {
                                "slot_id": len(slots) + 1,
                                "restaurant_id": rid,
                                "slot_dt": _stamp(day, t),
                                "capacity_left": left,
                            }
                        )
    conn.execute(insert(world_places), new_places)
    conn.execute(insert(world_restaurants), restaurants)
    conn.execute(insert(world_menu_items), menu)
    conn.execute(insert(world_phone_services).prefix_with("OR IGNORE"), phones)
    _seed_reservations(conn, rng, persona, restaurants, slots)
    conn.execute(insert(world_table_slots), slots)
    _seed_orders(conn, rng, persona, restaurants, menu)
    _seed_recipes(conn, rng, persona)


def _seed_reservations(
    conn: Connection,
    rng: random.Random,
    persona: Persona,
    restaurants: list[dict[str, Any]],
    slots: list[dict[str, Any]],
) -> None:
    """Past dinners out, one cancelled, two upcoming online bookings and one made by phone."""
    today, stamp = dt.date.fromisoformat(persona.now[:10]), persona.now
    profile = {"name": persona.name, "phone": normalise_phone(persona.phone)}
    home = {r["place_id"] for r in restaurants} & set(
        conn.execute(select(world_places.c.place_id).where(world_places.c.city == persona.home_city)).scalars()
    )
    local = [r for r in restaurants if r["place_id"] in home]
    online = [r for r in local if r["online_booking"]]
    booked: list[dict[str, Any]] = []
    for back in sorted(rng.sample(range(5, 90), 5), reverse=True):
        when = _stamp(today - dt.timedelta(days=back), rng.choice(["18:30", "19:00", "19:30"]))
        r = rng.choice([r for r in local if _open_at(json.loads(r["hours_json"]), when)])
        booked.append(
            {
                "restaurant_id": r["restaurant_id"],
                "datetime": when,
                "party_size": rng.choice([2, 2, 4, 6]),
                "status": "cancelled" if len(booked) == 2 else "completed",
                "source": "api",
                "special_requests": None,
            }
        )
    for days, party, note in ((2, 2, None), (8, 4, "Birthday dinner, a quiet table please")):
        day = (today + dt.timedelta(days=days)).isoformat()
        slot = next(
            s
            for s in slots
            if s["slot_dt"].startswith(day)
            and s["capacity_left"] >= party
            and s["restaurant_id"] in {r["restaurant_id"] for r in online}
            and s["restaurant_id"] not in {b["restaurant_id"] for b in booked[5:]}
        )
        slot["capacity_left"] -= party
        booked.append(
            {
                "restaurant_id": slot["restaurant_id"],
                "datetime": slot["slot_dt"],
                "party_size": party,
                "status": "confirmed",
                "source": "api",
                "special_requests": note,
            }
        )
    evening = _stamp(today + dt.timedelta(days=5), "19:00")
    phone_only = [r for r in local if not r["online_booking"] and _open_at(json.loads(r["hours_json"]), evening)]
    if phone_only:
        booked.append(
            {
                "restaurant_id": phone_only[0]["restaurant_id"],
                "datetime": evening,
                "party_size": 3,
                "status": "confirmed",
                "source": "voice_agent",
                "special_requests": None,
            }
        )
    booked.sort(key=lambda b: b["datetime"])
    conn.execute(
        insert(restaurant_reservations),
        [
            {
                "reservation_id": f"resv_{i:03d}",
                **b,
                **profile,
                "seating": None,
                "cancel_reason": None,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, b in enumerate(booked, start=1)
        ],
    )


def _seed_orders(
    conn: Connection,
    rng: random.Random,
    persona: Persona,
    restaurants: list[dict[str, Any]],
    menu: list[dict[str, Any]],
) -> None:
    """Three months of deliveries from a few favourite places (paid, some refunded) and one on its way now."""
    now = dt.datetime.fromisoformat(persona.now)
    addr = rows(conn.execute(select(addresses).order_by(addresses.c.address_id)))
    method = conn.execute(select(payment_methods).where(payment_methods.c.is_default == 1)).one()
    city_of = dict(conn.execute(select(world_places.c.place_id, world_places.c.city)).all())
    by_city = {a["city"]: a for a in reversed(addr)}
    delivering = [r for r in restaurants if r["delivery"] and city_of[r["place_id"]] in by_city]
    favourites = delivering[:1] + rng.sample(delivering[1:], min(5, len(delivering) - 1))
    tips = [0.0, 0.0, menu_price(1, method.currency), menu_price(2, method.currency)]
    dishes = {r["restaurant_id"]: [m for m in menu if m["restaurant_id"] == r["restaurant_id"]] for r in favourites}
    orders: list[dict[str, Any]] = []
    for i in range(36):
        r = favourites[0] if i == 35 else rng.choice(favourites)
        hours = json.loads(r["hours_json"])
        if i == 35:
            placed = now - dt.timedelta(minutes=25)
        else:
            while True:  # a day and a mealtime the restaurant is open
                day = now.date() - dt.timedelta(days=rng.randint(1, 90))
                placed = dt.datetime.combine(day, dt.time(rng.choice([8, 12, 13, 18, 19, 20]), rng.choice([0, 15, 30])))
                if _open_at(hours, placed.strftime(DT_FMT)):
                    break
        lines = rng.sample(dishes[r["restaurant_id"]], rng.randint(1, 3))
        items = [
            {
                "menu_item_id": m["menu_item_id"],
                "name": m["name"],
                "quantity": rng.choice([1, 1, 2]),
                "unit_price": m["price"],
            }
            for m in lines
        ]
        while (subtotal := round(sum(x["quantity"] * x["unit_price"] for x in items), 2)) < r["min_order"]:
            items[0]["quantity"] += 1
        tip = tips[i % len(tips)]
        total = round(subtotal + r["delivery_fee"] + tip, 2)
        at = placed.strftime(DT_FMT)
        orders.append(
            {
                "restaurant_id": r["restaurant_id"],
                "items_json": json.dumps(items, ensure_ascii=False),
                "address_id": by_city[city_of[r["place_id"]]]["address_id"],
                "payment_method_id": method.method_id,
                "subtotal": subtotal,
                "delivery_fee": r["delivery_fee"],
                "tip": tip,
                "total": total,
                "currency": method.currency,
                "utensils": int(rng.random() < 0.3),
                "status": "on_the_way" if i == 35 else ("cancelled" if rng.random() < 0.08 else "delivered"),
                "scheduled_at": None,
                "placed_at": at,
                "eta": _shift(at, r["prep_min"] + COURIER_MIN),
                "reordered_from": None,
                "created_at": at + ":00",
                "updated_at": at + ":00",
            }
        )
    orders.sort(key=lambda o: o["placed_at"])
    txn_no = next_number(conn, transactions, "txn")
    txns = []
    for i, o in enumerate(orders, start=1):
        o["order_id"] = f"forder_{i:03d}"
        txns.append(
            {
                "txn_id": f"txn_{txn_no + i - 1:03d}",
                "method_id": o["payment_method_id"],
                "amount": -o["total"],
                "currency": o["currency"],
                "merchant": next(r["name"] for r in favourites if r["restaurant_id"] == o["restaurant_id"]),
                "category": "dining",
                "ref_id": o["order_id"],
                "ts": o["placed_at"] + ":00",
                "status": "refunded" if o["status"] == "cancelled" else "posted",
                "created_at": o["created_at"],
                "updated_at": o["updated_at"],
            }
        )
    conn.execute(insert(food_orders), orders)
    conn.execute(insert(transactions), txns)


def _seed_recipes(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """The recipe catalogue, a few saved recipes, two grocery lists and this week's meal plan."""
    today, stamp = dt.date.fromisoformat(persona.now[:10]), persona.now
    recipes: list[dict[str, Any]] = []
    for i, (title, cuisine, diets, minutes, servings, kcal, tags, ingredients) in enumerate(RECIPES, start=1):
        parts = [part.split(" ", 2) for part in ingredients.split("; ")]
        recipes.append(
            {
                "recipe_id": f"recipe_{i:03d}",
                "title": title,
                "cuisine": cuisine,
                "diet_json": json.dumps([DIETS[d] for d in diets.split()]),
                "tags_json": json.dumps(tags.split() + (["quick"] if minutes <= 20 and "quick" not in tags else [])),
                "time_min": minutes,
                "servings": servings,
                "calories": kcal,
                "ingredients_json": json.dumps([{"name": n, "quantity": float(q), "unit": u} for q, u, n in parts]),
            }
        )
    conn.execute(insert(world_recipes), recipes)
    ids = [r["recipe_id"] for r in recipes]
    picks = rng.sample(ids, 6)
    conn.execute(
        insert(saved_recipes),
        [
            {
                "recipe_id": rid,
                "collection": ("Saved", "Saved", "Saved", "Weeknight", "Weeknight", "Family favourites")[i],
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, rid in enumerate(picks)
        ],
    )
    conn.execute(
        insert(grocery_items),
        [
            {
                "item_id": f"grocery_{i:03d}",
                "list_name": lst,
                "name": name,
                "quantity": float(qty),
                "unit": unit,
                "checked": checked,
                "from_recipe_id": None,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, (lst, name, qty, unit, checked) in enumerate(SEED_GROCERIES, start=1)
        ],
    )
    dinners = [r["recipe_id"] for r in recipes if "dinner" in r["tags_json"]]
    plan = [(today + dt.timedelta(days=d), "dinner") for d in range(-3, 5)] + [(today + dt.timedelta(days=1), "lunch")]
    conn.execute(
        insert(meal_plans),
        [
            {
                "date": day.isoformat(),
                "meal": meal,
                "recipe_id": rng.choice(dinners),
                "servings": 2,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for day, meal in plan
            if rng.random() < 0.85
        ],
    )
