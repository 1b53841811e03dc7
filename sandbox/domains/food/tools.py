"""The food domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import (
    Select,
    Table,
    bindparam,
    func,
    insert,
    or_,
    select,
    update,
)

from sandbox.domains.common import (
    addresses,
    charge,
    km_between,
    locate,
    payment_method,
    world_places,
)
from sandbox.domains.food.schema import (
    COURIER_MIN,
    DT_FMT,
    SCHEDULE_DAYS,
    WEEKDAYS,
    Diet,
    Dietary,
    GroceryLine,
    Ingredients,
    Limit,
    Location,
    Meal,
    Money,
    Name,
    OrderLine,
    PartySize,
    Query,
    Requests,
    Seating,
    food_orders,
    grocery_items,
    meal_plans,
    restaurant_reservations,
    saved_recipes,
    world_menu_items,
    world_recipes,
    world_restaurants,
    world_table_slots,
)
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, contains_bound, like_escaped, normalise_phone, row_by_key, rows, word_values
from sandbox.schema import user_profile
from sandbox.tooling import Date, DateTime, Phone, tool

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
        # a scheduled order is cooked to arrive at its time (or as soon as it can, when that is too soon)
        "eta": max(scheduled_at or "", _shift(_minute(ctx), r["prep_min"] + COURIER_MIN)),
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
