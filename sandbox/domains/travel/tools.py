"""The travel domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import math
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NoReturn
from zoneinfo import ZoneInfo

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from sqlalchemy import Select, Table, bindparam, delete, func, insert, or_, select, update

from sandbox.domains.common import (
    CITY_CENTRES,
    LABEL_ALIASES,
    charge,
    payment_method,
    payment_methods,
    place,
    refund,
    world_places,
)
from sandbox.domains.communication.schema import contacts
from sandbox.domains.information.tools import require_location
from sandbox.domains.travel.schema import (
    AIRPORTS,
    CITY_AIRPORT,
    DT_FMT,
    FREE_CANCEL_HOURS,
    OFFER_MINUTES,
    QUOTE_MINUTES,
    USD_RATE,
    device_location,
    flight_bookings,
    hotel_bookings,
    navigation_sessions,
    offers,
    ride_quotes,
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
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, id_prefix, row_by_key, rows
from sandbox.locales import CITIES, convert, minor_units
from sandbox.schema import USER, metadata, user_profile
from sandbox.tooling import Date, DateTime, Time, tool

# ---- Argument types ---------------------------------------------------------------------------


def _this_century(value: str) -> str:
    """Dates feed date arithmetic: far-off years would overflow it."""
    if not 2000 <= int(value[:4]) <= 2099:
        raise ValueError("the year must be between 2000 and 2099")
    return value


Day = Annotated[Date, AfterValidator(_this_century)]
Moment = Annotated[DateTime, AfterValidator(_this_century)]
Loc = Annotated[str, Field(min_length=1, max_length=200)]
Name = Annotated[str, Field(min_length=1, max_length=120)]
Note = Annotated[str, Field(min_length=1, max_length=500)]
Money = Annotated[float, Field(ge=0, le=1_000_000)]
Rating = Annotated[float, Field(ge=0, le=5)]
Mode = Literal["driving", "walking", "transit", "cycling"]
RideType = Literal["economy", "comfort", "premium", "xl"]
Cabin = Literal["economy", "premium", "business", "first"]
SeatClass = Literal["second", "first", "business", "sleeper"]
SeatPreference = Literal["window", "aisle", "none"]
ItemType = Literal["flight", "hotel", "train", "ride", "event", "restaurant", "activity", "note"]
Seat = Annotated[str, Field(pattern=r"^([1-9]|[1-3][0-9]|40)[A-F]$")]


class Passenger(BaseModel):
    """One traveller: the user ({"self": true}), a contact, or a name."""

    model_config = ConfigDict(strict=True, extra="forbid")

    self: bool | None = Field(None, description="true for the user (name and id number come from their profile)")
    name: Name | None = Field(None, description="Full name of a traveller who is not the user")
    contact_id: Annotated[str, Field(min_length=1, max_length=64)] | None = Field(
        None, description="Contact id of a traveller, e.g. contact_901"
    )
    id_number: Annotated[str, Field(min_length=4, max_length=32)] | None = Field(
        None, description="Passport or national id number (needed abroad and on real-name trains)"
    )


Passengers = Annotated[list[Passenger], Field(min_length=1, max_length=9)]


def _passengers_valid(args: dict[str, Any]) -> str | None:
    """Each passenger gives exactly one of self=true, name or contact_id."""
    for i, p in enumerate(args.get("passengers", [])):
        given = [k for k in ("self", "name", "contact_id") if getattr(p, k) not in (None, False)]
        if len(given) != 1:
            return f"passengers[{i}] needs exactly one of self=true, name or contact_id"
    return None


Check = Callable[[dict[str, Any]], str | None]  # a cross-field rule (pipeline step 5)


def _not_current(*fields: str) -> Check:
    """A cross-field check: these location arguments may not be "current" (the app cannot read the location)."""

    def check(args: dict[str, Any]) -> str | None:
        for f in fields:
            if str(args.get(f, "")).strip().lower() == "current":
                return f'{f} cannot be "current" here; call get_current_location and pass the address'
        return None

    check.__doc__ = f'{" and ".join(fields)} cannot be "current": pass the address get_current_location gives.'
    return check


def _all(*checks: Check) -> Check:
    def check(args: dict[str, Any]) -> str | None:
        return next((p for p in (c(args) for c in checks) if p), None)

    check.__doc__ = " ".join(c.__doc__ or "" for c in checks)
    return check


# ---- Small helpers ----------------------------------------------------------------------------


def _now(ctx: Ctx) -> str:
    return ctx.now.strftime(DT_FMT)


def _later(ctx: Ctx, minutes: int) -> str:
    """The frozen clock (with its step seconds) plus ``minutes``, as a full timestamp."""
    return (dt.datetime.fromisoformat(ctx.ts()) + dt.timedelta(minutes=minutes)).isoformat()


def _at(value: str) -> dt.datetime:
    return dt.datetime.strptime(value[:16], DT_FMT)


def _minutes_between(start: str, end: str) -> int:
    return int((_at(end) - _at(start)).total_seconds() // 60)


def _zone(airport: str) -> ZoneInfo:
    return ZoneInfo(CITIES[AIRPORTS[airport][0]].tz)


def arrival_time(origin: str, destination: str, depart_at: str, minutes: int) -> str:
    """When a flight leaving ``origin`` at ``depart_at`` (the origin's local time) lands after ``minutes``: the
    destination's local time with its UTC offset, as its arrivals board shows it (2025-03-18T14:18+11:00)."""
    leave = _at(depart_at).replace(tzinfo=_zone(origin))
    return (leave + dt.timedelta(minutes=minutes)).astimezone(_zone(destination)).isoformat(timespec="minutes")


def flight_minutes(flight: Any) -> int:
    """A flight's time in the air and at its stops: from departure (origin clock) to arrival (with its offset)."""
    leave = _at(flight["depart_at"]).replace(tzinfo=_zone(flight["origin"]))
    return int((dt.datetime.fromisoformat(flight["arrive_at"]) - leave).total_seconds() // 60)


_USER_CURRENCY = select(payment_methods.c.currency).order_by(
    payment_methods.c.is_default.desc(), payment_methods.c.method_id
)


def _pricing(ctx: Ctx) -> tuple[str, float]:
    """The user's currency (their default payment method's) and its units per US dollar."""
    currency = ctx.conn.execute(_USER_CURRENCY).scalar() or "USD"
    return currency, USD_RATE.get(currency, 1.0)


def _amount(value: float) -> float:
    """Whole units for large amounts, cents for small ones."""
    return float(round(value)) if value >= 100 else round(value, 2)


def _get(ctx: Ctx, tbl: Table, value: str, hint: str | None = None) -> dict[str, Any]:
    """The row with this id, or EntityNotFound (naming the tool that makes or lists such ids, if any)."""
    key = next(iter(tbl.primary_key.columns))
    row = ctx.conn.execute(row_by_key(tbl), {"key": value}).first()
    if row is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no {tbl.info['id_prefix'] or key.name.removesuffix('_id')} {value!r}",
            field=key.name,
            **({"hint": hint} if hint else {}),
        )
    return dict(row._mapping)


def _hash(*parts: Any) -> int:
    """A stable pseudo-random number derived from the arguments (never Python's salted hash)."""
    return zlib.crc32("|".join(map(str, parts)).encode())


# ---- Locations --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spot:
    """A resolved location."""

    name: str
    address: str
    city: str
    lat: float
    lon: float
    place_id: str | None = None

    @property
    def label(self) -> str:
        return f"{self.name}, {self.address}, {self.city}"

    def out(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "address": self.address,
            "city": self.city,
            "lat": self.lat,
            "lon": self.lon,
            "place_id": self.place_id,
        }


def _spot(row: Any) -> Spot:
    """A spot from a row (or a dict) with name, address, city, lat, lon and maybe place_id."""
    m = row if isinstance(row, dict) else row._mapping
    return Spot(m["name"], m["address"], m["city"], m["lat"], m["lon"], m.get("place_id"))


def _km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance (haversine)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(min(1.0, math.sqrt(a)))


def _apart(a: Spot, b: Spot) -> float:
    return _km(a.lat, a.lon, b.lat, b.lon)


_DEVICE_LOCATION = select(device_location)


def _here(ctx: Ctx) -> Spot:
    return _spot(ctx.conn.execute(_DEVICE_LOCATION).first())


# a saved place by its label, or by its address as the user knows it ("18 Garden Road", "18 Garden Road, Tokyo")
_SAVED_PLACE_NAMED = (
    select(saved_places)
    .where(
        or_(
            func.lower(saved_places.c.label) == bindparam("label"),
            func.lower(saved_places.c.address) == bindparam("key"),
            func.lower(saved_places.c.address + ", " + saved_places.c.city) == bindparam("key"),
        )
    )
    .order_by(func.lower(saved_places.c.label) != bindparam("label"), saved_places.c.label)
)
_PLACES_NAMED = (
    select(world_places)
    .where(
        or_(
            *(
                func.lower(form) == bindparam("key")
                for form in (
                    world_places.c.name,
                    world_places.c.address,
                    world_places.c.name + ", " + world_places.c.city,
                    world_places.c.address + ", " + world_places.c.city,
                    world_places.c.name + ", " + world_places.c.address,
                )
            )
        )
    )
    .order_by(world_places.c.place_id)
)
# one comma-separated part of a place as people write it ("Harbor Gym, 111 River Walk, Seoul"): its name,
# its address or its city
_PLACES_WITH_PART = select(world_places.c.place_id).where(
    or_(
        *(
            func.lower(form) == bindparam("key")
            for form in (world_places.c.name, world_places.c.address, world_places.c.city)
        )
    )
)
_PLACES_BY_ID = (
    select(world_places)
    .where(world_places.c.place_id.in_(bindparam("ids", expanding=True)))
    .order_by(world_places.c.place_id)
)


def _places_by_parts(ctx: Ctx, key: str) -> list[Any]:
    """The places that every comma-separated part of ``key`` names (name, address or city), when it has
    two parts or more and each names some place; otherwise none."""
    parts = [p.strip() for p in key.split(",") if p.strip()]
    if len(parts) < 2:
        return []
    ids: set[str] | None = None
    for part in parts:
        named = set(ctx.conn.execute(_PLACES_WITH_PART, {"key": part}).scalars())
        ids = named if ids is None else ids & named
        if not ids:
            return []
    return list(ctx.conn.execute(_PLACES_BY_ID, {"ids": sorted(ids or ())}).all())


def _locate(ctx: Ctx, loc: str, field: str, app: str | None = None) -> Spot:
    """Resolve a location argument (see the module docstring); EntityNotFound (naming the saved labels) or
    AmbiguousEntity otherwise. ``app``: the tool gates only "current" on the location service and the app's
    LOCATION permission (an explicit place needs no GPS); without it the tool's decorator gates every call."""
    key = " ".join(loc.split()).lower()
    if key == "current":
        if app:
            require_location(ctx, app)
        return _here(ctx)
    if re.fullmatch(r"place_\d+", key):
        try:
            return _spot(place(ctx, key))
        except ToolError:
            _no_place(ctx, loc, field)
    bare = key.removeprefix("my ")
    saved = ctx.conn.execute(_SAVED_PLACE_NAMED, {"label": LABEL_ALIASES.get(bare, bare), "key": key}).first()
    if saved is not None:
        return _spot(saved)
    city = next((c for c in sorted(CITY_CENTRES) if c.lower() == key), None)
    if city:
        return Spot(city, "city centre", city, *CITY_CENTRES[city])
    found = ctx.conn.execute(_PLACES_NAMED, {"key": key}).all() or _places_by_parts(ctx, key)
    if len(found) == 1:
        return _spot(found[0])
    if found:
        raise ToolError(
            ErrorType.AMBIGUOUS_ENTITY,
            f"{loc!r} matches {len(found)} places",
            field=field,
            candidates=[{k: r._mapping[k] for k in ("place_id", "name", "address", "city")} for r in found],
        )
    _no_place(ctx, loc, field)


def _no_place(ctx: Ctx, loc: str, field: str) -> NoReturn:
    """EntityNotFound for an unknown location, naming the saved places (labels appear nowhere else)."""
    saved = [{"label": r.label, "name": r.name, "address": r.address} for r in ctx.conn.execute(_SAVED_PLACES)]
    raise ToolError(
        ErrorType.ENTITY_NOT_FOUND,
        f"no place, saved label or city matches {loc!r}",
        field=field,
        saved_labels=[s["label"] for s in saved],
        saved_places=saved,
        hint="a saved label, a city, a place id, or a place's exact name or address",
    )


_SAVED_PLACES = select(saved_places).order_by(saved_places.c.label)


def _saved_label_near(ctx: Ctx, spot: Spot) -> str | None:
    """The label of a saved place within 100 m of the spot."""
    for row in ctx.conn.execute(_SAVED_PLACES):
        if _km(row.lat, row.lon, spot.lat, spot.lon) < 0.1:
            return str(row.label)
    return None


# (summary, detour factor over the straight line, speed in km/h in town, uses highways)
ROUTE_STYLES: dict[str, tuple[tuple[str, float, float, bool], ...]] = {
    "driving": (("fastest, via expressway", 1.25, 42.0, True), ("avoiding highways", 1.12, 26.0, False)),
    "transit": (("subway", 1.3, 30.0, False), ("bus", 1.35, 18.0, False)),
    "walking": (("shortest", 1.2, 4.8, False), ("via main streets", 1.3, 5.0, False)),
    "cycling": (("bike lanes", 1.25, 15.0, False), ("direct", 1.15, 13.0, False)),
}


def _routes(ctx: Ctx, points: list[Spot], mode: str) -> list[dict[str, Any]]:
    """The mode's two deterministic routes through ``points``, priced in the user's currency."""
    return route_options(points, mode, *_pricing(ctx))


def route_options(points: list[Spot], mode: str, currency: str = "USD", rate: float = 1.0) -> list[dict[str, Any]]:
    """The mode's two routes through ``points`` (haversine legs times a detour factor); task families
    use it to state the travel times get_directions reports."""
    crow = sum(_apart(a, b) for a, b in itertools.pairwise(points))
    out = []
    for index, (summary, detour, kmh, highway) in enumerate(ROUTE_STYLES[mode]):
        km = crow * detour
        speed = kmh * (2.5 if km > 60 and mode in ("driving", "transit") else 1.0)
        minutes = km / speed * 60 + (6 if mode == "transit" else 0) + 5 * (len(points) - 2)
        tolls = round(0.06 * km * rate, 2) if highway and km > 8 else 0.0
        fare = round(((0.4 + 0.04 * km) if index == 0 else (0.3 + 0.02 * km)) * rate, 2) if mode == "transit" else 0.0
        out.append(
            {
                "route_index": index,
                "summary": summary,
                "distance_km": round(km, 1),
                "duration_min": max(1, round(minutes)),
                "tolls": tolls,
                "fare": fare,
                "currency": currency,
                "uses_highways": highway,
            }
        )
    return out


# ---- Navigation & Routes (5.1) ----------------------------------------------------------------

_LOCATION_ACCURACY = select(device_location.c.accuracy_m)


@tool(l2="5.1", app="maps", mutating=False, permissions=("LOCATION",), services=("location_service",))
def get_current_location(ctx: Ctx) -> dict[str, Any]:
    """Get the phone's current coordinates, address and city (and the saved place it is at, if any)."""
    here = _here(ctx)
    accuracy = ctx.conn.execute(_LOCATION_ACCURACY).scalar()
    return {**here.out(), "accuracy_m": accuracy, "saved_label": _saved_label_near(ctx, here)}


_SAVED_WORLD_PLACES = select(saved_places).where(saved_places.c.place_id.is_not(None)).order_by(saved_places.c.label)


@tool(
    l2="5.1",
    app="maps",
    mutating=False,
    network="internet",
    errors=(
        ErrorType.SERVICE_DISABLED,
        ErrorType.PERMISSION_DENIED,
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.AMBIGUOUS_ENTITY,
    ),
)
def search_places(
    ctx: Ctx,
    query: Annotated[str, Field(min_length=1, max_length=200)],
    near: Loc = "current",
    category: str | None = None,
    radius_km: Annotated[float, Field(ge=0.1, le=50)] = 5.0,
    open_now: bool | None = None,
    min_rating: Rating | None = None,
    limit: Annotated[int, Field(ge=1, le=20)] = 5,
) -> dict[str, Any]:
    """Search points of interest near a location, nearest first.

    Args:
        query: Words that must all appear in the place's name, category or address, e.g. "coffee" or "pharmacy".
        near: Where to search around: "current" (the phone's position; needs location access), a place id, a
            saved label such as "Home", a city or an address.
        category: Only this category, e.g. cafe, restaurant, supermarket, pharmacy, hospital, gym, park, museum,
            parking, ev_charger, gas_station, station, airport, hotel, cinema, salon.
        radius_km: Search radius in km.
        open_now: true for places open now only.
        min_rating: Minimum rating (0-5).
        limit: Maximum number of results.
    """
    centre = _locate(ctx, near, "near", "maps")
    p = world_places.c
    q = select(world_places)
    for word in query.lower().split():
        q = q.where(
            or_(
                func.lower(p.name).contains(word, autoescape=True),
                func.replace(p.category, "_", " ").contains(word, autoescape=True),
                func.lower(p.address).contains(word, autoescape=True),
            )
        )
    if category:
        q = q.where(p.category == category.strip().lower().replace(" ", "_"))
    if open_now is not None:
        q = q.where(p.open_now == int(open_now))
    if min_rating is not None:
        q = q.where(p.rating >= min_rating)
    saved = {r.place_id: r.label for r in ctx.conn.execute(_SAVED_WORLD_PLACES)}
    found = []
    for r in rows(ctx.conn.execute(q.order_by(p.place_id))):
        km = _km(centre.lat, centre.lon, r["lat"], r["lon"])
        if km <= radius_km:
            found.append(
                {k: r[k] for k in ("place_id", "name", "category", "address", "city", "rating", "phone")}
                | {
                    "open_now": bool(r["open_now"]),
                    "distance_km": round(km, 2),
                    "saved_label": saved.get(r["place_id"]),
                }
            )
    found.sort(key=lambda f: (f["distance_km"], f["place_id"]))
    return {"near": centre.out(), "places": found[:limit], "count": min(len(found), limit)}


def _one_time(args: dict[str, Any]) -> str | None:
    """Give depart_at or arrive_by, not both."""
    return "give depart_at or arrive_by, not both" if args.get("depart_at") and args.get("arrive_by") else None


@tool(
    l2="5.1",
    app="maps",
    mutating=False,
    network="internet",
    check=_one_time,
    errors=(
        ErrorType.SERVICE_DISABLED,
        ErrorType.PERMISSION_DENIED,
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.AMBIGUOUS_ENTITY,
    ),
)
def get_directions(
    ctx: Ctx,
    destination: Loc,
    origin: Loc = "current",
    mode: Mode = "driving",
    depart_at: Moment | None = None,
    arrive_by: Moment | None = None,
    avoid: Annotated[list[Literal["tolls", "highways", "ferries"]], Field(max_length=3)] | None = None,
) -> dict[str, Any]:
    """Get routes between two locations with distance, travel time, departure/arrival times, tolls and fares.

    Args:
        destination: Where to go: a place id, a saved label such as "Work", a city or an address.
        origin: Where to start; "current" (default) is the phone's location (needs location access).
        mode: How to travel.
        depart_at: Leave at this time, YYYY-MM-DDTHH:MM (default now).
        arrive_by: Arrive by this time instead, YYYY-MM-DDTHH:MM.
        avoid: Route features to avoid.
    """
    start, end = _locate(ctx, origin, "origin", "maps"), _locate(ctx, destination, "destination", "maps")
    shunned = set(avoid or [])
    found = []
    for r in _routes(ctx, [start, end], mode):
        if ("highways" in shunned and r["uses_highways"]) or ("tolls" in shunned and r["tolls"] > 0):
            continue
        span = dt.timedelta(minutes=r["duration_min"])
        leave = _at(arrive_by) - span if arrive_by else _at(depart_at or _now(ctx))
        found.append(r | {"depart_at": leave.strftime(DT_FMT), "arrive_at": (leave + span).strftime(DT_FMT)})
    return {"origin": start.out(), "destination": end.out(), "mode": mode, "routes": found}


_ACTIVE_NAVIGATION = select(navigation_sessions.c.session_id, navigation_sessions.c.destination).where(
    navigation_sessions.c.status == "active"
)
_SET_NAVIGATION = update(navigation_sessions).where(navigation_sessions.c.session_id == bindparam("match_session_id"))
_ADD_NAVIGATION = insert(navigation_sessions)


@tool(
    l2="5.1",
    app="maps",
    mutating=True,
    permissions=("LOCATION",),
    services=("location_service",),
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.AMBIGUOUS_ENTITY, ErrorType.STATE_CONFLICT),
)
def start_navigation(
    ctx: Ctx,
    destination: Loc,
    origin: Loc = "current",
    mode: Mode = "driving",
    route_index: Annotated[int, Field(ge=0, le=1)] = 0,
    stops: Annotated[list[Loc], Field(max_length=5)] | None = None,
    replace: bool = False,
) -> dict[str, Any]:
    """Start turn-by-turn navigation to a destination, optionally via stops.

    Args:
        destination: Where to go: a place id, a saved label such as "Home", a city or an address.
        origin: Where to start; "current" (default) is the phone's location.
        mode: How to travel.
        route_index: Which of the routes get_directions lists (0 = the first).
        stops: Places to pass on the way, in order.
        replace: Set true to end the navigation already running and start this one.
    """
    start, end = _locate(ctx, origin, "origin"), _locate(ctx, destination, "destination")
    via = [_locate(ctx, s, f"stops[{i}]") for i, s in enumerate(stops or [])]
    running = ctx.conn.execute(_ACTIVE_NAVIGATION).first()
    if running is not None and not replace:
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"navigation to {running.destination} is running ({running.session_id})",
            session_id=running.session_id,
            hint="pass replace=true to end it first",
        )
    if running is not None:
        ctx.conn.execute(
            _SET_NAVIGATION, {"match_session_id": running.session_id, "status": "replaced", "updated_at": ctx.ts()}
        )
    route = _routes(ctx, [start, *via, end], mode)[route_index]
    eta = (ctx.now + dt.timedelta(minutes=route["duration_min"])).strftime(DT_FMT)
    sid = ctx.new_id(navigation_sessions)
    ctx.conn.execute(
        _ADD_NAVIGATION,
        {
            "session_id": sid,
            "origin": start.label,
            "destination": end.label,
            "destination_place_id": end.place_id,
            "stops_json": json.dumps([s.label for s in via]),
            "mode": mode,
            "route_index": route_index,
            "distance_km": route["distance_km"],
            "eta": eta,
            "status": "active",
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {
        "session_id": sid,
        "destination": end.out(),
        "stops": [s.label for s in via],
        "mode": mode,
        "route": route,
        "eta": eta,
        "replaced": running.session_id if running is not None else None,
    }


_LABEL_CLASHES = (
    select(saved_places.c.label)
    .where(func.lower(saved_places.c.label) == bindparam("label"))
    .order_by(saved_places.c.label)
)
_LABEL_OR_KIND_CLASHES = (
    select(saved_places.c.label)
    .where(or_(func.lower(saved_places.c.label) == bindparam("label"), saved_places.c.kind == bindparam("kind")))
    .order_by(saved_places.c.label)
)
_DROP_SAVED_PLACES = delete(saved_places).where(saved_places.c.label.in_(bindparam("labels", expanding=True)))
_ADD_SAVED_PLACE = insert(saved_places)


@tool(
    l2="5.1",
    app="maps",
    mutating=True,
    check=_not_current("place"),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.AMBIGUOUS_ENTITY, ErrorType.DUPLICATE_ENTITY),
)
def save_place(
    ctx: Ctx,
    place: Loc,
    label: Annotated[str, Field(min_length=1, max_length=60, pattern=r"\S")],
    kind: Literal["home", "work", "favorite"] = "favorite",
    overwrite: bool = False,
) -> dict[str, Any]:
    """Save a place under a label, as Home, Work or a favourite.

    Args:
        place: The place: a place id, a city or an address ("current" is not accepted: resolve it first).
        label: The name to save it under, e.g. "Gym" or "Home".
        kind: home and work are unique: saving a new one replaces the old one when overwrite is true.
        overwrite: Set true to replace a saved place with the same label (or the existing home/work).
    """
    spot = _locate(ctx, place, "place")
    same = label.strip().lower()
    clashes = [
        r.label
        for r in (  # home and work are unique; favourites clash by label only
            ctx.conn.execute(_LABEL_CLASHES, {"label": same})
            if kind == "favorite"
            else ctx.conn.execute(_LABEL_OR_KIND_CLASHES, {"label": same, "kind": kind})
        )
    ]
    if clashes and not overwrite:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"a saved place {clashes[0]!r} exists",
            existing_id=clashes[0],
            hint="pass overwrite=true to replace it",
        )
    if clashes:
        ctx.conn.execute(_DROP_SAVED_PLACES, {"labels": clashes})
    row = {
        "label": label.strip(),
        "kind": kind,
        "place_id": spot.place_id,
        "name": spot.name,
        "address": spot.address,
        "city": spot.city,
        "lat": spot.lat,
        "lon": spot.lon,
    }
    ctx.conn.execute(_ADD_SAVED_PLACE, {**row, "created_at": ctx.ts(), "updated_at": ctx.ts()})
    return {**row, "replaced": clashes}


# ---- Ride Hailing (5.2) -----------------------------------------------------------------------

RIDE_TYPES: dict[str, tuple[float, int, int]] = {  # fare multiplier, seats, extra pickup minutes
    "economy": (1.0, 4, 0),
    "comfort": (1.3, 4, 1),
    "premium": (2.0, 4, 3),
    "xl": (1.6, 6, 2),
}
RIDE_CANCEL_FEE_USD = 5.0


def _ride_fare_usd(km: float, ride_type: str) -> float:
    road_km = km * 1.3
    return max(6.0, 2.5 + 1.1 * road_km + 0.25 * road_km / 28 * 60) * RIDE_TYPES[ride_type][0]


def _ride_quote(ctx: Ctx, pickup: Spot, dropoff: Spot, ride_type: str) -> dict[str, Any]:
    currency, rate = _pricing(ctx)
    km = _apart(pickup, dropoff)
    return {
        "ride_type": ride_type,
        "fare": minor_units(_ride_fare_usd(km, ride_type) * rate, currency),
        "currency": currency,
        "pickup_eta_min": 3 + _hash(pickup.label) % 6 + RIDE_TYPES[ride_type][2],
        "trip_min": max(1, round(km * 1.3 / 28 * 60)),
        "distance_km": round(km * 1.3, 1),
    }


def _ride_checks(ctx: Ctx, scheduled_at: str | None) -> None:
    if scheduled_at is not None and not _now(ctx) < scheduled_at <= (ctx.now + dt.timedelta(days=30)).strftime(DT_FMT):
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"scheduled_at {scheduled_at} must be in the next 30 days",
            field="scheduled_at",
        )


def _ride_ends(ctx: Ctx, pickup: str, dropoff: str) -> tuple[Spot, Spot]:
    a, b = _locate(ctx, pickup, "pickup"), _locate(ctx, dropoff, "dropoff")
    if _apart(a, b) < 0.2:
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, "pickup and dropoff are the same place", field="dropoff")
    return a, b


def _seats_fit(args: dict[str, Any]) -> str | None:
    """passengers fit the ride type: at most 4 for economy, comfort and premium, 6 for xl."""
    seats = RIDE_TYPES[args["ride_type"]][1] if "ride_type" in args else 6
    return f"a {args['ride_type']} ride seats at most {seats}" if args.get("passengers", 1) > seats else None


_ADD_RIDE_QUOTE = insert(ride_quotes)


@tool(
    l2="5.2",
    app="ride",
    mutating=False,
    permissions=("LOCATION",),
    services=("location_service",),
    network="internet",
    errors=(ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.ENTITY_NOT_FOUND, ErrorType.AMBIGUOUS_ENTITY),
)
def estimate_ride_fare(
    ctx: Ctx,
    pickup: Loc,
    dropoff: Loc,
    ride_type: RideType | None = None,
    scheduled_at: Moment | None = None,
) -> dict[str, Any]:
    """Quote fares and pickup times per ride type; each quote can be booked for 5 minutes.

    Args:
        pickup: Pickup location: "current", a place id, a saved label, a city or an address.
        dropoff: Dropoff location.
        ride_type: Quote only this ride type (default: all).
        scheduled_at: Pickup time for a scheduled ride, YYYY-MM-DDTHH:MM (default now).
    """
    _ride_checks(ctx, scheduled_at)
    a, b = _ride_ends(ctx, pickup, dropoff)
    quotes = []
    for kind in [ride_type] if ride_type else list(RIDE_TYPES):
        quote = _ride_quote(ctx, a, b, kind)
        qid = ctx.new_id(ride_quotes)
        expires = _later(ctx, QUOTE_MINUTES)
        ctx.conn.execute(
            _ADD_RIDE_QUOTE,
            {
                "quote_id": qid,
                "pickup": a.label,
                "dropoff": b.label,
                "ride_type": kind,
                "scheduled_at": scheduled_at,
                "fare": quote["fare"],
                "currency": quote["currency"],
                "eta_min": quote["pickup_eta_min"],
                "expires_at": expires,
                "status": "valid",
            },
        )
        quotes.append({"quote_id": qid, **quote, "expires_at": expires})
    return {"pickup": a.out(), "dropoff": b.out(), "scheduled_at": scheduled_at, "quotes": quotes}


_ACTIVE_RIDE_AT = (
    select(rides.c.ride_id)
    .where(rides.c.status.in_(("requested", "driver_assigned")), rides.c.scheduled_at == bindparam("scheduled_at"))
    .order_by(rides.c.ride_id)
)
_ACTIVE_RIDE_DUE = (
    select(rides.c.ride_id)
    .where(
        rides.c.status.in_(("requested", "driver_assigned")),
        func.coalesce(rides.c.scheduled_at, "") <= bindparam("now"),
    )
    .order_by(rides.c.ride_id)
)
_SET_RIDE_QUOTE = update(ride_quotes).where(ride_quotes.c.quote_id == bindparam("match_quote_id"))
_ADD_RIDE = insert(rides)


@tool(
    l2="5.2",
    app="ride",
    mutating=True,
    permissions=("LOCATION",),
    services=("location_service",),
    network="internet",
    check=_seats_fit,
    errors=(
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.AMBIGUOUS_ENTITY,
        ErrorType.STATE_CONFLICT,
        ErrorType.STALE_REFERENCE,
        ErrorType.LIMIT_EXCEEDED,
    ),
)
def book_ride(
    ctx: Ctx,
    pickup: Loc,
    dropoff: Loc,
    ride_type: RideType,
    quote_id: str | None = None,
    scheduled_at: Moment | None = None,
    payment_method_id: str | None = None,
    passengers: Annotated[int, Field(ge=1, le=6)] = 1,
    note: Note | None = None,
) -> dict[str, Any]:
    """Request a ride now or for a scheduled time; the fare is charged when booking.

    Args:
        pickup: Pickup location: "current", a place id, a saved label, a city or an address.
        dropoff: Dropoff location.
        ride_type: Ride type (xl seats 6, the others 4).
        quote_id: A quote from estimate_ride_fare to book at its fare.
        scheduled_at: Pickup time for a scheduled ride, YYYY-MM-DDTHH:MM (default now).
        payment_method_id: Payment method id, e.g. pm_901 (default: the default method).
        passengers: Number of riders.
        note: Note for the driver.
    """
    _ride_checks(ctx, scheduled_at)
    a, b = _ride_ends(ctx, pickup, dropoff)
    quote = _get(ctx, ride_quotes, quote_id, "estimate_ride_fare") if quote_id else None
    method = payment_method(ctx, payment_method_id)
    clash = (
        ctx.conn.execute(_ACTIVE_RIDE_AT, {"scheduled_at": scheduled_at})
        if scheduled_at
        else ctx.conn.execute(_ACTIVE_RIDE_DUE, {"now": _now(ctx)})
    ).scalar()
    if clash:
        raise ToolError(
            ErrorType.STATE_CONFLICT, f"ride {clash} is already active for that time", ride_id=clash, hint="cancel_ride"
        )
    live = _ride_quote(ctx, a, b, ride_type)
    if quote is not None:
        same_trip = (quote["pickup"], quote["dropoff"], quote["ride_type"], quote["scheduled_at"]) == (
            a.label,
            b.label,
            ride_type,
            scheduled_at,
        )
        expired = ctx.ts() > quote["expires_at"] or quote["fare"] != live["fare"]
        if quote["status"] != "valid" or expired or not same_trip:
            why = (
                "was already used"
                if quote["status"] == "used"
                else "is for another trip"
                if not same_trip
                else "has expired or its fare changed"
            )
            raise ToolError(ErrorType.STALE_REFERENCE, f"quote {quote_id} {why}", hint="estimate_ride_fare")
        ctx.conn.execute(_SET_RIDE_QUOTE, {"match_quote_id": quote_id, "status": "used"})
    ride_id = ctx.new_id(rides)
    charge(ctx, live["fare"], "RideNow", "transport", ride_id, method["method_id"])
    ctx.conn.execute(
        _ADD_RIDE,
        {
            "ride_id": ride_id,
            "quote_id": quote_id,
            "pickup": a.label,
            "dropoff": b.label,
            "ride_type": ride_type,
            "passengers": passengers,
            "fare": live["fare"],
            "currency": live["currency"],
            "status": "requested",
            "scheduled_at": scheduled_at,
            "note": note,
            "cancel_reason": None,
            "payment_method_id": method["method_id"],
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {
        "ride_id": ride_id,
        "status": "requested",
        "pickup": a.label,
        "dropoff": b.label,
        "ride_type": ride_type,
        "fare": live["fare"],
        "currency": live["currency"],
        "scheduled_at": scheduled_at,
        "pickup_eta_min": None if scheduled_at else live["pickup_eta_min"],
        "payment_method_id": method["method_id"],
    }


def _cancel_with_fee(
    ctx: Ctx,
    ref_id: str,
    fee: float,
    confirm: bool,
    merchant: str,
    category: str,
    method_id: str,
    currency: str | None = None,
) -> dict[str, float]:
    """Refund what ``ref_id`` paid, then charge ``fee`` (ConfirmationRequired first when there is one); a fee
    in another ``currency`` than the method's is charged converted."""
    if fee > 0 and not confirm:
        raise ToolError(
            ErrorType.CONFIRMATION_REQUIRED,
            f"cancelling {ref_id} costs a fee of {fee:.2f}{f' {currency}' if currency else ''}",
            fee=fee,
            hint="ask the user, then pass confirm=true",
        )
    refunded = refund(ctx, ref_id)
    if fee > 0:
        charge(ctx, fee, merchant, category, ref_id, method_id, currency)
    return {"refunded": refunded, "fee": fee}


_SET_RIDE = update(rides).where(rides.c.ride_id == bindparam("match_ride_id"))


@tool(
    l2="5.2",
    app="ride",
    mutating=True,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.CONFIRMATION_REQUIRED),
)
def cancel_ride(ctx: Ctx, ride_id: str, reason: Note | None = None, confirm: bool = False) -> dict[str, Any]:
    """Cancel a ride; once a driver is assigned a cancellation fee applies.

    Args:
        ride_id: Id of the ride, e.g. ride_904.
        reason: Why it is cancelled.
        confirm: Set true to accept the cancellation fee (after asking the user).
    """
    ride = _get(ctx, rides, ride_id)
    if ride["status"] in ("completed", "cancelled"):
        raise ToolError(ErrorType.STATE_CONFLICT, f"{ride_id} is already {ride['status']}")
    _, rate = _pricing(ctx)
    fee = round(RIDE_CANCEL_FEE_USD * rate, 2) if ride["status"] == "driver_assigned" else 0.0
    money = _cancel_with_fee(ctx, ride_id, fee, confirm, "RideNow", "transport", ride["payment_method_id"])
    ctx.conn.execute(
        _SET_RIDE, {"match_ride_id": ride_id, "status": "cancelled", "cancel_reason": reason, "updated_at": ctx.ts()}
    )
    return {"ride_id": ride_id, "status": "cancelled", **money, "currency": ride["currency"]}


# ---- Offers -----------------------------------------------------------------------------------

_ADD_OFFER = insert(offers)


def _new_offer(
    ctx: Ctx, kind: str, ref_id: str, price: float, params: dict[str, Any], currency: str | None = None
) -> dict[str, Any]:
    """An offer on ``price``, in ``currency`` (a hotel's own) or else the user's."""
    currency = currency or _pricing(ctx)[0]
    oid = ctx.new_id(offers)
    expires = _later(ctx, OFFER_MINUTES)
    ctx.conn.execute(
        _ADD_OFFER,
        {
            "offer_id": oid,
            "kind": kind,
            "ref_id": ref_id,
            "price": price,
            "currency": currency,
            "params_json": json.dumps(params),
            "expires_at": expires,
            "status": "valid",
            "created_at": ctx.ts(),
        },
    )
    return {"offer_id": oid, "currency": currency, "expires_at": expires}


_OFFER = select(offers).where(offers.c.offer_id == bindparam("offer_id"), offers.c.kind == bindparam("kind"))


def _offer(ctx: Ctx, offer_id: str, kind: str) -> dict[str, Any]:
    row = ctx.conn.execute(_OFFER, {"offer_id": offer_id, "kind": kind}).first()
    if row is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no {kind} offer {offer_id!r}", field="offer_id", hint=f"search_{kind}s"
        )
    return dict(row._mapping) | {"params": json.loads(row.params_json)}


def _fresh(ctx: Ctx, offer: dict[str, Any], live_price: float | None) -> None:
    """StaleReference when the offer expired, was withdrawn, or its price moved since the search."""
    if offer["status"] != "valid" or ctx.ts() > offer["expires_at"]:
        raise ToolError(
            ErrorType.STALE_REFERENCE, f"offer {offer['offer_id']} has expired", hint=f"search_{offer['kind']}s again"
        )
    if live_price is None or abs(live_price - offer["price"]) > 0.005:
        raise ToolError(
            ErrorType.STALE_REFERENCE,
            f"the price of offer {offer['offer_id']} changed from "
            f"{offer['price']:.2f} to {live_price if live_price is not None else 'unavailable'}",
            old_price=offer["price"],
            new_price=live_price,
            hint=f"search_{offer['kind']}s again",
        )


_USER_NAME = select(user_profile.c.name)
_DOCUMENT_NUMBERS = select(travel_documents.c.kind, travel_documents.c.number).where(
    travel_documents.c.kind.in_(bindparam("kinds", expanding=True))
)


def _travellers(ctx: Ctx, passengers: list[Passenger], document_kinds: tuple[str, ...]) -> list[dict[str, Any]]:
    """Names and id numbers of the passengers; {"self": true} reads the profile and the user's documents."""
    out = []
    for p in passengers:
        if p.self:
            name = ctx.conn.execute(_USER_NAME).scalar()
            own = {k: n for k, n in ctx.conn.execute(_DOCUMENT_NUMBERS, {"kinds": list(document_kinds)})}
            number = p.id_number or next((own[k] for k in document_kinds if k in own), None)
        elif p.contact_id:
            name = _get(ctx, contacts, p.contact_id, "search_contacts")["name"]
            number = p.id_number
        else:
            name, number = p.name, p.id_number
        out.append({"name": name, "id_number": number})
    return out


def _require_ids(people: list[dict[str, Any]], why: str) -> None:
    missing = [i for i, p in enumerate(people) if not p["id_number"]]
    if missing:
        raise ToolError(
            ErrorType.MISSING_REQUIRED_ARGUMENT,
            f"{why}: id_number missing for {', '.join(people[i]['name'] for i in missing)}",
            fields=[f"passengers[{i}].id_number" for i in missing],
        )


_FLIGHT_BOOKED = (
    select(flight_bookings.c.booking_id, flight_bookings.c.passengers_json)
    .where(
        flight_bookings.c.status == "confirmed",
        flight_bookings.c.flight_number == bindparam("number"),
        flight_bookings.c.depart_at == bindparam("depart_at"),
    )
    .order_by(flight_bookings.c.booking_id)
)
_TRAIN_BOOKED = (
    select(train_bookings.c.booking_id, train_bookings.c.passengers_json)
    .where(
        train_bookings.c.status == "confirmed",
        train_bookings.c.number == bindparam("number"),
        train_bookings.c.depart_at == bindparam("depart_at"),
    )
    .order_by(train_bookings.c.booking_id)
)


def _already_booked(ctx: Ctx, booked: Select[Any], number: str, depart_at: str, people: list[dict[str, Any]]) -> None:
    """DuplicateEntity when a passenger already holds a confirmed booking on the same departure
    (``booked``: ``_FLIGHT_BOOKED`` or ``_TRAIN_BOOKED``, the confirmed bookings of a service number and departure)."""
    names = {p["name"].lower() for p in people}
    for row in ctx.conn.execute(booked, {"number": number, "depart_at": depart_at}):
        taken = sorted(names & {p["name"].lower() for p in json.loads(row.passengers_json)})
        if taken:
            raise ToolError(
                ErrorType.DUPLICATE_ENTITY,
                f"{', '.join(taken)} already booked on this service: {row.booking_id}",
                existing_id=row.booking_id,
            )


# ---- Flight Booking (5.3) and Check-in (5.8) --------------------------------------------------

BAG_FEE_USD = 35.0
FLIGHT_KEYS = (
    "flight_id",
    "flight_number",
    "airline",
    "origin",
    "destination",
    "depart_at",
    "arrive_at",
    "stops",
    "cabin",
    "seats_left",
    "price",
)


def _airport(text: str, field: str) -> str:
    code = text.strip()
    if code.upper() in AIRPORTS:
        return code.upper()
    city = next((c for c in sorted(CITY_AIRPORT) if c.lower() == code.lower()), None)
    if city is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no airport or served city {text!r}",
            field=field,
            candidates=sorted(CITY_AIRPORT),
        )
    return CITY_AIRPORT[city]


def _not_past(ctx: Ctx, day: str, field: str) -> None:
    if day < ctx.now.date().isoformat():
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, f"{field} {day} is in the past", field=field)


def _dates_in_order(first: str, second: str) -> Check:
    def check(args: dict[str, Any]) -> str | None:
        if args.get(second) and args.get(first) and args[second] < args[first]:
            return f"{second} is before {first}"
        return None

    check.__doc__ = f"{second} is not before {first}."
    return check


def _flights(
    ctx: Ctx,
    origin: str,
    destination: str,
    day: str,
    cabin: str,
    seats: int,
    max_stops: int | None,
    airline: str | None,
    after: str | None,
    before: str | None,
) -> list[dict[str, Any]]:
    f = world_flights.c
    q = select(world_flights).where(
        f.origin == origin,
        f.destination == destination,
        f.depart_at.like(f"{day}T%"),
        f.cabin == cabin,
        f.seats_left >= seats,
    )
    if max_stops is not None:
        q = q.where(f.stops <= max_stops)
    if airline:
        q = q.where(
            or_(
                func.lower(f.airline).contains(airline.lower(), autoescape=True),
                # a Python False is coerced to SQL false
                f.flight_number.like(f"{airline.upper()[:2]}%") if len(airline.strip()) == 2 else False,  # type: ignore[arg-type]
            )
        )
    if after:
        q = q.where(func.substr(f.depart_at, 12, 5) >= after)
    if before:
        q = q.where(func.substr(f.depart_at, 12, 5) <= before)
    return rows(ctx.conn.execute(q.order_by(f.depart_at, f.flight_id)))


def _leg(f: dict[str, Any]) -> dict[str, Any]:
    return {k: f[k] for k in FLIGHT_KEYS} | {"duration_min": flight_minutes(f)}


@tool(
    l2="5.3",
    app="travel",
    mutating=False,
    network="internet",
    check=_dates_in_order("date", "return_date"),
    errors=(ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.ENTITY_NOT_FOUND),
)
def search_flights(
    ctx: Ctx,
    origin: Annotated[str, Field(min_length=2, max_length=60)],
    destination: Annotated[str, Field(min_length=2, max_length=60)],
    date: Day,
    return_date: Day | None = None,
    cabin: Cabin = "economy",
    passengers: Annotated[int, Field(ge=1, le=9)] = 1,
    max_stops: Annotated[int, Field(ge=0, le=2)] | None = None,
    airline: Name | None = None,
    depart_after: Time | None = None,
    depart_before: Time | None = None,
    sort: Literal["price", "duration", "departure"] = "price",
    limit: Annotated[int, Field(ge=1, le=20)] = 5,
) -> dict[str, Any]:
    """Search flight offers, one-way or round trip; each offer can be booked for 30 minutes. Matching outbound
    flights without enough seats are listed under sold_out (not bookable). Each flight departs at depart_at, the
    origin's local time, and lands at arrive_at, the destination's local time with its UTC offset.

    Args:
        origin: Departure airport code (e.g. PEK) or city.
        destination: Arrival airport code or city.
        date: Departure day, YYYY-MM-DD.
        return_date: Return day for a round trip, YYYY-MM-DD.
        cabin: Cabin class.
        passengers: Number of seats needed.
        max_stops: Maximum number of stops.
        airline: Airline name or two-letter code, e.g. "Air China" or "CA".
        depart_after: Earliest outbound departure time, HH:MM.
        depart_before: Latest outbound departure time, HH:MM.
        sort: Order of the offers.
        limit: Maximum number of offers.
    """
    _not_past(ctx, date, "date")
    start, end = _airport(origin, "origin"), _airport(destination, "destination")
    if start == end:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"{origin} and {destination} share the airport {start}",
            field="destination",
        )
    every = _flights(ctx, start, end, date, cabin, 0, max_stops, airline, depart_after, depart_before)
    outbound = [f for f in every if f["seats_left"] >= passengers]
    # flights that match but lack seats are reported, so an empty result can be explained to the user
    full = [_leg(f) for f in every if f["seats_left"] < passengers]
    trips_found = [[f] for f in outbound]
    if return_date:
        back = _flights(ctx, end, start, return_date, cabin, passengers, max_stops, airline, None, None)
        trips_found = [[f, r] for f in outbound for r in back if r["depart_at"] > f["arrive_at"]]

    def price(legs: list[dict[str, Any]]) -> float:
        return round(sum(f["price"] for f in legs), 2)

    order = {
        "price": lambda legs: (price(legs), legs[0]["depart_at"]),
        "duration": lambda legs: (sum(_leg(f)["duration_min"] for f in legs), price(legs)),
        "departure": lambda legs: (legs[0]["depart_at"], price(legs)),
    }[sort]
    chosen = sorted(trips_found, key=lambda legs: (*order(legs), [f["flight_id"] for f in legs]))[:limit]
    found = []
    for legs in chosen:
        ids = [f["flight_id"] for f in legs]
        offer = _new_offer(
            ctx, "flight", ",".join(ids), price(legs), {"flight_ids": ids, "passengers": passengers, "cabin": cabin}
        )
        found.append(
            {
                **offer,
                "price_per_passenger": price(legs),
                "total_price": round(price(legs) * passengers, 2),
                "legs": [_leg(f) for f in legs],
            }
        )
    out = {
        "origin": start,
        "destination": end,
        "date": date,
        "return_date": return_date,
        "passengers": passengers,
        "offers": found,
        "count": len(found),
    }
    if full:
        out["sold_out"] = full
        out["note"] = _sold_out_note(full, passengers)
    return out


def _sold_out_note(full: list[dict[str, Any]], passengers: int) -> str:
    """Why matching flights are not offered: sold out, or too few seats for the party."""
    gone = sum(1 for f in full if f["seats_left"] == 0)
    short = len(full) - gone
    return "; ".join(
        [f"{gone} matching outbound flight(s) sold out"] * bool(gone)
        + [f"{short} matching outbound flight(s) with fewer than {passengers} seats left"] * bool(short)
    )


_FLIGHTS = (
    select(world_flights)
    .where(world_flights.c.flight_id.in_(bindparam("flight_ids", expanding=True)))
    .order_by(world_flights.c.depart_at)
)
_SET_FLIGHT = update(world_flights).where(world_flights.c.flight_id == bindparam("match_flight_id"))
_ADD_FLIGHT_BOOKING = insert(flight_bookings)


@tool(
    l2="5.3",
    app="travel",
    mutating=True,
    network="internet",
    check=_passengers_valid,
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.MISSING_REQUIRED_ARGUMENT,
        ErrorType.STATE_CONFLICT,
        ErrorType.STALE_REFERENCE,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.DUPLICATE_ENTITY,
        ErrorType.LIMIT_EXCEEDED,
    ),
)
def book_flight(
    ctx: Ctx,
    offer_id: str,
    passengers: Passengers,
    seat_preference: SeatPreference = "none",
    payment_method_id: str | None = None,
    checked_bags: Annotated[int, Field(ge=0, le=3)] = 0,
) -> dict[str, Any]:
    """Book a flight offer from search_flights (both legs of a round trip); each leg becomes one booking.

    Args:
        offer_id: Id of the offer, e.g. offer_003.
        passengers: Travellers, e.g. [{"self": true}, {"contact_id": "contact_901", "id_number": "E1234567"}].
        seat_preference: Seat wish, used at check-in.
        payment_method_id: Payment method id, e.g. pm_901 (default: the default method).
        checked_bags: Checked bags per passenger (each costs a fee per leg).
    """
    offer = _offer(ctx, offer_id, "flight")
    legs = [dict(r._mapping) for r in ctx.conn.execute(_FLIGHTS, {"flight_ids": offer["params"]["flight_ids"]})]
    international = any(f["international"] for f in legs)
    people = _travellers(ctx, passengers, ("passport",) if international else ("national_id", "passport"))
    method = payment_method(ctx, payment_method_id)
    if international:
        _require_ids(people, "international flights need a passport number per passenger")
    live = round(sum(f["price"] for f in legs), 2) if len(legs) == len(offer["params"]["flight_ids"]) else None
    _fresh(ctx, offer, live)
    for f in legs:
        if f["seats_left"] < len(people):
            raise ToolError(
                ErrorType.RESOURCE_UNAVAILABLE,
                f"{f['flight_number']} has {f['seats_left']} seat(s) left in {f['cabin']}, {len(people)} needed",
                flight_id=f["flight_id"],
            )
    for f in legs:
        _already_booked(ctx, _FLIGHT_BOOKED, f["flight_number"], f["depart_at"], people)
    _, rate = _pricing(ctx)
    booked = []
    for f in legs:
        bid = ctx.new_id(flight_bookings)
        price = round((f["price"] + checked_bags * BAG_FEE_USD * rate) * len(people), 2)
        charge(ctx, price, f["airline"], "travel", bid, method["method_id"])
        ctx.conn.execute(_SET_FLIGHT, {"match_flight_id": f["flight_id"], "seats_left": f["seats_left"] - len(people)})
        ctx.conn.execute(
            _ADD_FLIGHT_BOOKING,
            {
                "booking_id": bid,
                "offer_id": offer_id,
                "flight_id": f["flight_id"],
                "flight_number": f["flight_number"],
                "airline": f["airline"],
                "origin": f["origin"],
                "destination": f["destination"],
                "depart_at": f["depart_at"],
                "arrive_at": f["arrive_at"],
                "cabin": f["cabin"],
                "passengers_json": json.dumps(people),
                "seat_preference": seat_preference,
                "seats_json": "[]",
                "checked_bags": checked_bags,
                "status": "confirmed",
                "checked_in": 0,
                "boarding_pass": None,
                "price": price,
                "currency": offer["currency"],
                "payment_method_id": method["method_id"],
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            },
        )
        booked.append(
            {
                "booking_id": bid,
                "flight_number": f["flight_number"],
                "origin": f["origin"],
                "destination": f["destination"],
                "depart_at": f["depart_at"],
                "price": price,
            }
        )
    return {
        "bookings": booked,
        "passengers": [p["name"] for p in people],
        "currency": offer["currency"],
        "total_price": round(sum(b["price"] for b in booked), 2),
        "payment_method_id": method["method_id"],
    }


_RETURN_FLIGHT_SEATS = (
    update(world_flights)
    .where(world_flights.c.flight_id == bindparam("match_flight_id"))
    .values(seats_left=world_flights.c.seats_left + bindparam("seats"))
)
_SET_FLIGHT_BOOKING = update(flight_bookings).where(flight_bookings.c.booking_id == bindparam("match_booking_id"))


@tool(
    l2="5.3",
    app="travel",
    mutating=True,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.CONFIRMATION_REQUIRED),
)
def cancel_flight_booking(ctx: Ctx, booking_id: str, confirm: bool = False) -> dict[str, Any]:
    """Cancel a flight booking: free within 24 hours of booking, otherwise a fee per the fare rules is kept.

    Args:
        booking_id: Id of the flight booking, e.g. fbooking_902.
        confirm: Set true to accept the cancellation fee (after asking the user).
    """
    booking = _get(ctx, flight_bookings, booking_id)
    if booking["status"] == "cancelled":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{booking_id} is already cancelled")
    if booking["depart_at"] <= _now(ctx):
        raise ToolError(ErrorType.STATE_CONFLICT, f"{booking['flight_number']} departed at {booking['depart_at']}")
    recent = booking["created_at"] >= (ctx.now - dt.timedelta(hours=FREE_CANCEL_HOURS)).isoformat()
    share = 0.1 if booking["cabin"] in ("business", "first") else 0.2
    fee = 0.0 if recent else round(booking["price"] * share, 2)
    money = _cancel_with_fee(ctx, booking_id, fee, confirm, booking["airline"], "travel", booking["payment_method_id"])
    ctx.conn.execute(
        _RETURN_FLIGHT_SEATS,
        {"match_flight_id": booking["flight_id"], "seats": len(json.loads(booking["passengers_json"]))},
    )
    ctx.conn.execute(
        _SET_FLIGHT_BOOKING, {"match_booking_id": booking_id, "status": "cancelled", "updated_at": ctx.ts()}
    )
    return {"booking_id": booking_id, "status": "cancelled", **money, "currency": booking["currency"]}


_FLIGHT_NUMBERED = (
    select(world_flights)
    .where(
        world_flights.c.flight_number == bindparam("flight_number"), world_flights.c.depart_at.like(bindparam("day"))
    )
    .order_by(world_flights.c.flight_id)
)
_FLIGHT_STATUS = select(world_flight_status).where(
    world_flight_status.c.flight_number == bindparam("flight_number"), world_flight_status.c.date == bindparam("date")
)


@tool(l2="5.3", app="travel", mutating=False, network="internet", errors=(ErrorType.ENTITY_NOT_FOUND,))
def get_flight_status(
    ctx: Ctx,
    flight_number: Annotated[str, Field(pattern=r"^\s*[A-Za-z0-9]{2}\s?\d{1,4}\s*$")],
    date: Day,
) -> dict[str, Any]:
    """Live status of a flight on a day: scheduled, delayed, boarding, departed, landed or cancelled; gate and delay.
    Departures are in the origin's local time, expected_arrival in the destination's with its UTC offset.

    Args:
        flight_number: Flight number, e.g. CA1501.
        date: Departure day, YYYY-MM-DD.
    """
    number = flight_number.replace(" ", "").upper()
    flight = ctx.conn.execute(_FLIGHT_NUMBERED, {"flight_number": number, "day": f"{date}T%"}).first()
    if flight is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no flight {number} on {date}", field="flight_number", hint="search_flights"
        )
    live = ctx.conn.execute(_FLIGHT_STATUS, {"flight_number": number, "date": date}).first()
    delay = live.delay_min if live is not None else 0
    expected = (_at(flight.depart_at) + dt.timedelta(minutes=delay)).strftime(DT_FMT)
    landing = dt.datetime.fromisoformat(flight.arrive_at) + dt.timedelta(minutes=delay)
    # the clock of the departure board (the phone's): when the flight lands, told on it
    landed_by = (_at(expected) + dt.timedelta(minutes=flight_minutes(flight._mapping))).strftime(DT_FMT)
    status = (
        live.status
        if live is not None
        else ("landed" if landed_by <= _now(ctx) else "departed" if expected <= _now(ctx) else "scheduled")
    )
    return {
        "flight_number": number,
        "date": date,
        "airline": flight.airline,
        "origin": flight.origin,
        "destination": flight.destination,
        "status": status,
        "gate": live.gate if live is not None else None,
        "delay_min": delay,
        "scheduled_departure": flight.depart_at,
        "expected_departure": expected,
        "expected_arrival": landing.isoformat(timespec="minutes"),
    }


CABIN_ROWS = {"first": range(1, 5), "business": range(1, 5), "premium": range(5, 10), "economy": range(10, 41)}
SEAT_LETTERS = {"window": "AF", "aisle": "CD", "none": "ABCDEF"}


_SEATS_HELD = (
    select(flight_bookings.c.seats_json)
    .where(
        flight_bookings.c.flight_number == bindparam("flight_number"),
        flight_bookings.c.depart_at == bindparam("depart_at"),
        flight_bookings.c.status == "confirmed",
    )
    .order_by(flight_bookings.c.booking_id)
)


def _taken_seats(ctx: Ctx, booking: dict[str, Any]) -> set[str]:
    """Seats held on this flight: other check-ins plus a stable half of the plane sold to strangers."""
    held: set[str] = set()
    for seats in ctx.conn.execute(
        _SEATS_HELD, {"flight_number": booking["flight_number"], "depart_at": booking["depart_at"]}
    ).scalars():
        held.update(json.loads(seats))
    return held | {
        f"{r}{c}"
        for r in range(1, 41)
        for c in "ABCDEF"
        if _hash(booking["flight_number"], booking["depart_at"], f"{r}{c}") % 100 < 50
    }


def _assign_seats(taken: set[str], cabin: str, preference: str, count: int) -> list[str]:
    free = [f"{r}{c}" for pref in (preference, "none") for r in CABIN_ROWS[cabin] for c in SEAT_LETTERS[pref]]
    return list(dict.fromkeys(s for s in free if s not in taken))[:count]


_ADD_WALLET_PASS = insert(wallet_passes)


@tool(
    l2="5.8",
    app="travel",
    mutating=True,
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.RESOURCE_UNAVAILABLE),
)
def check_in_flight(ctx: Ctx, booking_id: str, seat: Seat | None = None, add_to_wallet: bool = True) -> dict[str, Any]:
    """Check in online for a booked flight (24 h to 1 h before departure): seats and a boarding pass.

    Args:
        booking_id: Id of the flight booking, e.g. fbooking_902.
        seat: Seat for the first passenger, e.g. 23A (others get seats next to the preference).
        add_to_wallet: Add the boarding pass to the phone's wallet.
    """
    booking = _get(ctx, flight_bookings, booking_id)
    if booking["status"] == "cancelled":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{booking_id} is cancelled")
    if booking["checked_in"]:
        raise ToolError(
            ErrorType.STATE_CONFLICT, f"{booking_id} is already checked in", seats=json.loads(booking["seats_json"])
        )
    depart = _at(booking["depart_at"])
    opens, closes = depart - dt.timedelta(hours=24), depart - dt.timedelta(hours=1)
    if not opens <= ctx.now <= closes:
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"online check-in for {booking['flight_number']} is open from "
            f"{opens.strftime(DT_FMT)} to {closes.strftime(DT_FMT)}",
        )
    taken = _taken_seats(ctx, booking)
    people = json.loads(booking["passengers_json"])
    if seat is not None and (seat in taken or int(seat[:-1]) not in CABIN_ROWS[booking["cabin"]]):
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"seat {seat} is not available in {booking['cabin']}",
            free=_assign_seats(taken, booking["cabin"], booking["seat_preference"], 6),
        )
    rest = _assign_seats(
        taken | {seat} if seat else taken,
        booking["cabin"],
        booking["seat_preference"],
        len(people) - (1 if seat else 0),
    )
    seats = ([seat] if seat else []) + rest
    if len(seats) < len(people):
        raise ToolError(ErrorType.RESOURCE_UNAVAILABLE, f"not enough free seats in {booking['cabin']}")
    code = f"BP{_hash(booking_id, *seats):010d}"
    ctx.conn.execute(
        _SET_FLIGHT_BOOKING,
        {
            "match_booking_id": booking_id,
            "checked_in": 1,
            "seats_json": json.dumps(seats),
            "boarding_pass": code,
            "updated_at": ctx.ts(),
        },
    )
    title = f"{booking['flight_number']} {booking['origin']}-{booking['destination']} {booking['depart_at']}"
    pass_id = None
    if add_to_wallet:
        pass_id = ctx.new_id(wallet_passes)
        ctx.conn.execute(
            _ADD_WALLET_PASS,
            {
                "pass_id": pass_id,
                "kind": "boarding_pass",
                "ref_id": booking_id,
                "title": f"{title} seat {', '.join(seats)}",
                "barcode": code,
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            },
        )
    return {
        "booking_id": booking_id,
        "flight": title,
        "seats": dict(zip([p["name"] for p in people], seats)),
        "boarding_pass": code,
        "wallet_pass_id": pass_id,
    }


# ---- Hotel Booking (5.4) ----------------------------------------------------------------------


def _stay(args: dict[str, Any]) -> str | None:
    if "check_in" not in args or "check_out" not in args:
        return None
    nights = (dt.date.fromisoformat(args["check_out"]) - dt.date.fromisoformat(args["check_in"])).days
    if nights < 1:
        return "check_out must be after check_in"
    return "a stay may last at most 30 nights" if nights > 30 else None


def _city(text: str) -> str:
    city = next((c for c in sorted(CITY_CENTRES) if c.lower() == " ".join(text.split()).lower()), None)
    if city is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no city {text!r} in the catalogue",
            field="city",
            candidates=sorted(CITY_CENTRES),
        )
    return city


@tool(
    l2="5.4",
    app="travel",
    mutating=False,
    network="internet",
    check=_all(_stay, _not_current("near")),
    errors=(ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.ENTITY_NOT_FOUND, ErrorType.AMBIGUOUS_ENTITY),
)
def search_hotels(
    ctx: Ctx,
    city: Annotated[str, Field(min_length=2, max_length=60)],
    check_in: Day,
    check_out: Day,
    guests: Annotated[int, Field(ge=1, le=8)] = 1,
    rooms: Annotated[int, Field(ge=1, le=4)] = 1,
    brand: Name | None = None,
    max_price: Money | None = None,
    min_rating: Rating | None = None,
    near: Loc | None = None,
    amenities: Annotated[list[Name], Field(max_length=8)] | None = None,
    limit: Annotated[int, Field(ge=1, le=20)] = 8,
) -> dict[str, Any]:
    """Search hotel room offers in a city for a stay; each offer can be booked for 30 minutes. Rooms are priced in
    the hotel's country's currency; a booking is charged converted.

    Args:
        city: City name, e.g. "Shanghai".
        check_in: Arrival day, YYYY-MM-DD.
        check_out: Departure day, YYYY-MM-DD (after check_in).
        guests: Number of guests in total.
        rooms: Number of rooms.
        brand: Hotel brand or name contains this, e.g. "Hilton".
        max_price: Maximum price per room per night, in your own currency (a hotel abroad is priced in its
            country's currency and compared converted).
        min_rating: Minimum hotel rating (0-5).
        near: Sort by distance to this place (place id, saved label or address) instead of price.
        amenities: Required amenities, e.g. ["pool", "breakfast"] (wifi, breakfast, gym, pool, parking, spa,
            airport_shuttle, ev_charging, pet_friendly).
        limit: Maximum number of offers.
    """
    _not_past(ctx, check_in, "check_in")
    where = _city(city)
    centre = _locate(ctx, near, "near") if near else None
    h, r = world_hotels.c, world_hotel_rooms.c
    q = (
        select(world_hotel_rooms, world_hotels)
        .join(world_hotels, h.hotel_id == r.hotel_id)
        .where(h.city == where, r.capacity * rooms >= guests, r.rooms_left >= rooms)
    )
    if brand:
        q = q.where(
            or_(
                func.lower(h.brand).contains(brand.lower(), autoescape=True),
                func.lower(h.name).contains(brand.lower(), autoescape=True),
            )
        )
    if min_rating is not None:
        q = q.where(h.rating >= min_rating)
    wanted, home = {a.strip().lower() for a in amenities or []}, _pricing(ctx)[0]
    found = [
        x
        for x in rows(ctx.conn.execute(q.order_by(r.room_id)))
        if wanted <= set(json.loads(x["amenities_json"]))
        and (max_price is None or convert(x["price"], x["currency"], home) <= max_price)
    ]
    for x in found:
        x["distance_km"] = round(_km(centre.lat, centre.lon, x["lat"], x["lon"]), 2) if centre else None
    found.sort(key=lambda x: (x["distance_km"] or 0.0, x["price"], -x["rating"], x["room_id"]))
    nights = (dt.date.fromisoformat(check_out) - dt.date.fromisoformat(check_in)).days
    out = []
    for x in found[:limit]:
        offer = _new_offer(
            ctx,
            "hotel",
            x["room_id"],
            x["price"],
            {
                "hotel_id": x["hotel_id"],
                "check_in": check_in,
                "check_out": check_out,
                "nights": nights,
                "rooms": rooms,
                "guests": guests,
            },
            x["currency"],
        )
        out.append(
            {
                **offer,
                "hotel_id": x["hotel_id"],
                "hotel_name": x["name"],
                "brand": x["brand"],
                "address": x["address"],
                "rating": x["rating"],
                "amenities": json.loads(x["amenities_json"]),
                "room_type": x["room_type"],
                "price_per_night": x["price"],
                "total_price": round(x["price"] * nights * rooms, 2),
                "rooms_left": x["rooms_left"],
                "free_cancellation_until": _free_until(check_in, x["free_cancel_days"]),
                "distance_km": x["distance_km"],
            }
        )
    return {
        "city": where,
        "check_in": check_in,
        "check_out": check_out,
        "nights": nights,
        "offers": out,
        "count": len(out),
    }


def _free_until(check_in: str, days: int) -> str:
    return f"{dt.date.fromisoformat(check_in) - dt.timedelta(days=days)}T23:59"


_ROOM_AND_HOTEL = (
    select(world_hotel_rooms, world_hotels.c.name, world_hotels.c.city, world_hotels.c.currency)
    .join(world_hotels, world_hotels.c.hotel_id == world_hotel_rooms.c.hotel_id)
    .where(world_hotel_rooms.c.room_id == bindparam("room_id"))
)
_OVERLAPPING_STAY = (
    select(hotel_bookings.c.booking_id)
    .where(
        hotel_bookings.c.status == "confirmed",
        hotel_bookings.c.city == bindparam("city"),
        hotel_bookings.c.check_in < bindparam("check_out"),
        hotel_bookings.c.check_out > bindparam("check_in"),
    )
    .order_by(hotel_bookings.c.booking_id)
)
_SET_ROOM = update(world_hotel_rooms).where(world_hotel_rooms.c.room_id == bindparam("match_room_id"))
_ADD_HOTEL_BOOKING = insert(hotel_bookings)


@tool(
    l2="5.4",
    app="travel",
    mutating=True,
    network="internet",
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.STATE_CONFLICT,
        ErrorType.STALE_REFERENCE,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.DUPLICATE_ENTITY,
        ErrorType.LIMIT_EXCEEDED,
    ),
)
def book_hotel(
    ctx: Ctx,
    offer_id: str,
    guest_name: Name,
    special_requests: Note | None = None,
    payment_method_id: str | None = None,
    loyalty_number: Annotated[str, Field(min_length=1, max_length=40)] | None = None,
) -> dict[str, Any]:
    """Book a hotel room offer from search_hotels; the whole stay is charged now.

    Args:
        offer_id: Id of the offer, e.g. offer_004.
        guest_name: Name the booking is under.
        special_requests: Requests for the hotel, e.g. "late arrival".
        payment_method_id: Payment method id, e.g. pm_901 (default: the default method).
        loyalty_number: The guest's loyalty programme number.
    """
    offer = _offer(ctx, offer_id, "hotel")
    stay = offer["params"]
    method = payment_method(ctx, payment_method_id)
    room = ctx.conn.execute(_ROOM_AND_HOTEL, {"room_id": offer["ref_id"]}).first()
    _fresh(ctx, offer, room.price if room is not None else None)
    assert room is not None
    if room.rooms_left < stay["rooms"]:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"{room.name} has {room.rooms_left} {room.room_type} room(s) left, {stay['rooms']} needed",
            room_id=room.room_id,
        )
    overlap = ctx.conn.execute(
        _OVERLAPPING_STAY, {"city": room.city, "check_in": stay["check_in"], "check_out": stay["check_out"]}
    ).scalar()
    if overlap:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"a confirmed stay in {room.city} overlaps these dates: {overlap}",
            existing_id=overlap,
        )
    bid = ctx.new_id(hotel_bookings)
    total = round(room.price * stay["nights"] * stay["rooms"], 2)
    charge(ctx, total, room.name, "travel", bid, method["method_id"], room.currency)
    ctx.conn.execute(_SET_ROOM, {"match_room_id": room.room_id, "rooms_left": room.rooms_left - stay["rooms"]})
    free_until = _free_until(stay["check_in"], room.free_cancel_days)
    ctx.conn.execute(
        _ADD_HOTEL_BOOKING,
        {
            "booking_id": bid,
            "offer_id": offer_id,
            "hotel_id": room.hotel_id,
            "hotel_name": room.name,
            "room_id": room.room_id,
            "room_type": room.room_type,
            "city": room.city,
            "check_in": stay["check_in"],
            "check_out": stay["check_out"],
            "rooms": stay["rooms"],
            "guests": stay["guests"],
            "guest_name": guest_name,
            "special_requests": special_requests,
            "loyalty_number": loyalty_number,
            "status": "confirmed",
            "price": total,
            "currency": offer["currency"],
            "free_cancel_until": free_until,
            "payment_method_id": method["method_id"],
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {
        "booking_id": bid,
        "hotel_name": room.name,
        "room_type": room.room_type,
        "check_in": stay["check_in"],
        "check_out": stay["check_out"],
        "rooms": stay["rooms"],
        "guest_name": guest_name,
        "total_price": total,
        "currency": offer["currency"],
        "free_cancellation_until": free_until,
        "payment_method_id": method["method_id"],
    }


_RETURN_ROOMS = (
    update(world_hotel_rooms)
    .where(world_hotel_rooms.c.room_id == bindparam("match_room_id"))
    .values(rooms_left=world_hotel_rooms.c.rooms_left + bindparam("rooms"))
)
_SET_HOTEL_BOOKING = update(hotel_bookings).where(hotel_bookings.c.booking_id == bindparam("match_booking_id"))


@tool(
    l2="5.4",
    app="travel",
    mutating=True,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.CONFIRMATION_REQUIRED),
)
def cancel_hotel_booking(ctx: Ctx, booking_id: str, confirm: bool = False) -> dict[str, Any]:
    """Cancel a hotel booking: free until its free-cancellation deadline, then one night per room is kept.

    Args:
        booking_id: Id of the hotel booking, e.g. hbooking_902.
        confirm: Set true to accept the cancellation fee (after asking the user).
    """
    booking = _get(ctx, hotel_bookings, booking_id)
    if booking["status"] == "cancelled":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{booking_id} is already cancelled")
    if booking["check_in"] <= ctx.now.date().isoformat():
        raise ToolError(
            ErrorType.STATE_CONFLICT, f"the stay began on {booking['check_in']}; it can no longer be cancelled"
        )
    nights = (dt.date.fromisoformat(booking["check_out"]) - dt.date.fromisoformat(booking["check_in"])).days
    fee = round(booking["price"] / nights, 2) if _now(ctx) > booking["free_cancel_until"] else 0.0
    money = _cancel_with_fee(
        ctx,
        booking_id,
        fee,
        confirm,
        booking["hotel_name"],
        "travel",
        booking["payment_method_id"],
        booking["currency"],
    )
    ctx.conn.execute(_RETURN_ROOMS, {"match_room_id": booking["room_id"], "rooms": booking["rooms"]})
    ctx.conn.execute(
        _SET_HOTEL_BOOKING, {"match_booking_id": booking_id, "status": "cancelled", "updated_at": ctx.ts()}
    )
    paid_in = payment_method(ctx, booking["payment_method_id"])["currency"]
    # the fee is the stay's (the hotel's currency); the refund is what the payment method got back
    return {
        "booking_id": booking_id,
        "status": "cancelled",
        **money,
        "currency": booking["currency"],
        "refunded_currency": paid_in,
    }


# ---- Train & Bus Tickets (5.5) ----------------------------------------------------------------

TRAIN_KEYS = (
    "train_id",
    "number",
    "operator",
    "mode",
    "origin",
    "destination",
    "depart_at",
    "arrive_at",
    "seat_class",
    "price",
    "seats_left",
)


@tool(
    l2="5.5",
    app="rail",
    mutating=False,
    network="internet",
    errors=(ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.ENTITY_NOT_FOUND),
)
def search_trains(
    ctx: Ctx,
    origin: Annotated[str, Field(min_length=2, max_length=60)],
    destination: Annotated[str, Field(min_length=2, max_length=60)],
    date: Day,
    seat_class: SeatClass | None = None,
    depart_after: Time | None = None,
    depart_before: Time | None = None,
    mode: Literal["train", "bus"] = "train",
    passengers: Annotated[int, Field(ge=1, le=9)] = 1,
) -> dict[str, Any]:
    """Search train or coach offers between two cities on a day, earliest first; offers are bookable for 30 minutes.
    Fares are in the currency of the country the train runs in; a booking is charged converted.

    Args:
        origin: Departure city, e.g. "Beijing".
        destination: Arrival city.
        date: Travel day, YYYY-MM-DD.
        seat_class: Only this seat class.
        depart_after: Earliest departure time, HH:MM.
        depart_before: Latest departure time, HH:MM.
        mode: Train or coach (bus).
        passengers: Number of seats needed.
    """
    _not_past(ctx, date, "date")
    start, end = _city(origin), _city(destination)
    t = world_trains.c
    q = select(world_trains).where(
        t.origin == start,
        t.destination == end,
        t.depart_at.like(f"{date}T%"),
        t.mode == mode,
        t.seats_left >= passengers,
    )
    if seat_class:
        q = q.where(t.seat_class == seat_class)
    if depart_after:
        q = q.where(func.substr(t.depart_at, 12, 5) >= depart_after)
    if depart_before:
        q = q.where(func.substr(t.depart_at, 12, 5) <= depart_before)
    found = []
    for x in rows(ctx.conn.execute(q.order_by(t.depart_at, t.price, t.train_id))):
        offer = _new_offer(ctx, "train", x["train_id"], x["price"], {"passengers": passengers}, x["currency"])
        found.append(
            {
                **offer,
                **{k: x[k] for k in TRAIN_KEYS},
                "duration_min": _minutes_between(x["depart_at"], x["arrive_at"]),
                "total_price": round(x["price"] * passengers, 2),
                "realname": bool(x["realname"]),
            }
        )
    return {"origin": start, "destination": end, "date": date, "offers": found, "count": len(found)}


_TRAIN = select(world_trains).where(world_trains.c.train_id == bindparam("train_id"))
_SET_TRAIN = update(world_trains).where(world_trains.c.train_id == bindparam("match_train_id"))
_ADD_TRAIN_BOOKING = insert(train_bookings)


@tool(
    l2="5.5",
    app="rail",
    mutating=True,
    network="internet",
    check=_passengers_valid,
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.MISSING_REQUIRED_ARGUMENT,
        ErrorType.STATE_CONFLICT,
        ErrorType.STALE_REFERENCE,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.DUPLICATE_ENTITY,
        ErrorType.LIMIT_EXCEEDED,
    ),
)
def book_train_ticket(
    ctx: Ctx,
    offer_id: str,
    passengers: Passengers,
    seat_preference: SeatPreference = "none",
    payment_method_id: str | None = None,
) -> dict[str, Any]:
    """Book train or coach seats from a search_trains offer.

    Args:
        offer_id: Id of the offer, e.g. offer_007.
        passengers: Travellers, e.g. [{"self": true}, {"name": "Li Na", "id_number": "110101199001011234"}].
        seat_preference: Seat wish passed to the operator (seats are allocated by the operator).
        payment_method_id: Payment method id, e.g. pm_901 (default: the default method).
    """
    offer = _offer(ctx, offer_id, "train")
    train = ctx.conn.execute(_TRAIN, {"train_id": offer["ref_id"]}).first()
    people = _travellers(ctx, passengers, ("national_id", "passport"))
    method = payment_method(ctx, payment_method_id)
    if train is not None and train.realname:
        _require_ids(people, f"{train.operator} tickets are real-name")
    _fresh(ctx, offer, train.price if train is not None else None)
    assert train is not None
    if train.seats_left < len(people):
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"{train.number} has {train.seats_left} {train.seat_class} seat(s) left, {len(people)} needed",
            train_id=train.train_id,
        )
    _already_booked(ctx, _TRAIN_BOOKED, train.number, train.depart_at, people)
    bid = ctx.new_id(train_bookings)
    total = round(train.price * len(people), 2)
    charge(ctx, total, train.operator, "travel", bid, method["method_id"], train.currency)
    seats = [
        f"Car {k // 40 + 1:02d} Seat {k % 40 // 4 + 1}{'ABCD'[k % 4]}"
        for k in range(train.seats_left - len(people), train.seats_left)
    ]
    ctx.conn.execute(_SET_TRAIN, {"match_train_id": train.train_id, "seats_left": train.seats_left - len(people)})
    ctx.conn.execute(
        _ADD_TRAIN_BOOKING,
        {
            "booking_id": bid,
            "offer_id": offer_id,
            "train_id": train.train_id,
            "number": train.number,
            "mode": train.mode,
            "origin": train.origin,
            "destination": train.destination,
            "depart_at": train.depart_at,
            "seat_class": train.seat_class,
            "passengers_json": json.dumps(people),
            "seats_json": json.dumps(seats),
            "seat_preference": seat_preference,
            "status": "confirmed",
            "price": total,
            "currency": offer["currency"],
            "payment_method_id": method["method_id"],
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {
        "booking_id": bid,
        "number": train.number,
        "origin": train.origin,
        "destination": train.destination,
        "depart_at": train.depart_at,
        "seat_class": train.seat_class,
        "seats": dict(zip([p["name"] for p in people], seats)),
        "total_price": total,
        "currency": offer["currency"],
        "payment_method_id": method["method_id"],
    }


# ---- Trip Planning & Itinerary (5.6) ----------------------------------------------------------

_OVERLAPPING_TRIP = (
    select(trips.c.trip_id)
    .where(
        func.lower(trips.c.destination) == bindparam("destination"),
        trips.c.start_date <= bindparam("end_date"),
        trips.c.end_date >= bindparam("start_date"),
    )
    .order_by(trips.c.trip_id)
)
_ADD_TRIP = insert(trips)


@tool(
    l2="5.6",
    app="travel",
    mutating=True,
    check=_dates_in_order("start_date", "end_date"),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY),
)
def create_trip_itinerary(
    ctx: Ctx,
    name: Name,
    destination: Annotated[str, Field(min_length=1, max_length=120)],
    start_date: Day,
    end_date: Day,
    travelers: Annotated[list[Annotated[str, Field(min_length=1, max_length=64)]], Field(max_length=20)] | None = None,
    notes: Note | None = None,
) -> dict[str, Any]:
    """Create a trip to hold the bookings and plans of one journey.

    Args:
        name: Name of the trip, e.g. "Shanghai business trip".
        destination: Where the trip goes, e.g. a city.
        start_date: First day, YYYY-MM-DD.
        end_date: Last day, YYYY-MM-DD.
        travelers: Contact ids of people travelling with the user.
        notes: Notes.
    """
    people = sorted(set(travelers or []))
    for cid in people:
        _get(ctx, contacts, cid, "search_contacts")
    clash = ctx.conn.execute(
        _OVERLAPPING_TRIP, {"destination": destination.strip().lower(), "start_date": start_date, "end_date": end_date}
    ).scalar()
    if clash:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY, f"trip {clash} to {destination} overlaps these dates", existing_id=clash
        )
    tid = ctx.new_id(trips)
    row = {
        "trip_id": tid,
        "name": name,
        "destination": destination.strip(),
        "start_date": start_date,
        "end_date": end_date,
        "travelers_json": json.dumps(people),
        "notes": notes,
    }
    ctx.conn.execute(_ADD_TRIP, {**row, "created_at": ctx.ts(), "updated_at": ctx.ts()})
    return {k: v for k, v in row.items() if k != "travelers_json"} | {"travelers": people}


REF_PREFIX = {"flight": "fbooking_", "hotel": "hbooking_", "train": "tbooking_", "ride": "ride_"}


def _item_valid(args: dict[str, Any]) -> str | None:
    """ref_id is the booking id item_type names (flight fbooking_..., hotel hbooking_..., train tbooking_..., ride
    ride_...); end is not before start."""
    prefix = REF_PREFIX.get(args.get("item_type", ""))
    if prefix and args.get("ref_id") and not args["ref_id"].startswith(prefix):
        return f"a {args['item_type']} item's ref_id is a {prefix}... id"
    if args.get("end") and args.get("start") and args["end"] < args["start"]:
        return "end is before start"
    return None


def _ref_exists(ctx: Ctx, ref_id: str) -> bool:
    """Whether some user table holds an entity with this id (its prefix names the table)."""
    for t in metadata.tables.values():  # any order: sorting the tables here cost ~0.8 ms a call
        if t.info["kind"] != USER or len(t.primary_key.columns) != 1:
            continue
        if ref_id.startswith(f"{id_prefix(t)}_") and ctx.conn.execute(row_by_key(t), {"key": ref_id}).first():
            return True
    return False


_TRIP_ITEM_FOR_REF = (
    select(trip_items.c.item_id)
    .where(trip_items.c.trip_id == bindparam("trip_id"), trip_items.c.ref_id == bindparam("ref_id"))
    .order_by(trip_items.c.item_id)
)
_TRIP_ITEM_TITLED = (
    select(trip_items.c.item_id)
    .where(
        trip_items.c.trip_id == bindparam("trip_id"),
        (func.lower(trip_items.c.title) == bindparam("title")) & (trip_items.c.start == bindparam("start")),
    )
    .order_by(trip_items.c.item_id)
)
_ADD_TRIP_ITEM = insert(trip_items)


@tool(
    l2="5.6",
    app="travel",
    mutating=True,
    check=_item_valid,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.DUPLICATE_ENTITY),
)
def add_itinerary_item(
    ctx: Ctx,
    trip_id: str,
    item_type: ItemType,
    title: Name,
    start: Moment,
    ref_id: Annotated[str, Field(min_length=1, max_length=64)] | None = None,
    end: Moment | None = None,
    location: Annotated[str, Field(min_length=1, max_length=200)] | None = None,
) -> dict[str, Any]:
    """Add a booking, reservation, activity or note to a trip's itinerary.

    Args:
        trip_id: Id of the trip, e.g. trip_902.
        item_type: What the item is.
        title: Title shown in the itinerary.
        start: When it starts, YYYY-MM-DDTHH:MM (within the trip's dates).
        ref_id: Id of the booking or reservation it stands for, e.g. fbooking_903 or hbooking_902.
        end: When it ends, YYYY-MM-DDTHH:MM.
        location: Where it happens.
    """
    trip = _get(ctx, trips, trip_id)
    if ref_id and not _ref_exists(ctx, ref_id):
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no booking or reservation {ref_id!r}", field="ref_id")
    if not trip["start_date"] <= start[:10] <= trip["end_date"]:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"start {start} is outside the trip ({trip['start_date']} to {trip['end_date']})",
            field="start",
        )
    existing = (
        ctx.conn.execute(_TRIP_ITEM_FOR_REF, {"trip_id": trip_id, "ref_id": ref_id})
        if ref_id
        else ctx.conn.execute(_TRIP_ITEM_TITLED, {"trip_id": trip_id, "title": title.lower(), "start": start})
    ).scalar()
    if existing:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"the trip already has this item: {existing}", existing_id=existing)
    iid = ctx.new_id(trip_items)
    row = {
        "item_id": iid,
        "trip_id": trip_id,
        "item_type": item_type,
        "title": title,
        "start": start,
        "end": end,
        "ref_id": ref_id,
        "location": location,
    }
    ctx.conn.execute(_ADD_TRIP_ITEM, {**row, "created_at": ctx.ts(), "updated_at": ctx.ts()})
    return row


# ---- Parking, Fuel & EV Charging (5.7) --------------------------------------------------------

SPOT_CATEGORY = {"parking": "parking", "fuel": "gas_station", "ev_charging": "ev_charger"}


@tool(
    l2="5.7",
    app="maps",
    mutating=False,
    network="internet",
    errors=(
        ErrorType.SERVICE_DISABLED,
        ErrorType.PERMISSION_DENIED,
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.AMBIGUOUS_ENTITY,
    ),
)
def find_parking_or_charging(
    ctx: Ctx,
    kind: Literal["parking", "fuel", "ev_charging"],
    near: Loc = "current",
    connector: Literal["ccs", "chademo", "type2", "gbt"] | None = None,
    max_price: Money | None = None,
    available_now: bool = False,
    radius_km: Annotated[float, Field(ge=0.1, le=50)] = 5.0,
    limit: Annotated[int, Field(ge=1, le=20)] = 5,
) -> dict[str, Any]:
    """Find car parks, fuel stations or EV chargers near a location, nearest first, with prices and free spaces.

    Args:
        kind: What to find.
        near: Where: "current" (the phone's position; needs location access), a place id, a saved label, a city
            or an address.
        connector: EV connector type the car needs (ev_charging only).
        max_price: Maximum price per hour (parking), per litre (fuel) or per kWh (charging).
        available_now: Only places open now with a free space or charger.
        radius_km: Search radius in km.
        limit: Maximum number of results.
    """
    centre = _locate(ctx, near, "near", "maps")
    p, s = world_places.c, world_parking_charging.c
    q = (
        select(world_places, world_parking_charging)
        .join(world_parking_charging, s.place_id == p.place_id)
        .where(p.category == SPOT_CATEGORY[kind])
    )
    if max_price is not None:
        q = q.where(s.price <= max_price)
    if available_now:
        q = q.where(p.open_now == 1, s.free_spaces > 0)
    currency, _ = _pricing(ctx)
    found = []
    for r in rows(ctx.conn.execute(q.order_by(p.place_id))):
        km = _km(centre.lat, centre.lon, r["lat"], r["lon"])
        plugs = json.loads(r["connectors_json"])
        if km <= radius_km and (connector is None or connector in plugs):
            found.append(
                {
                    k: r[k]
                    for k in (
                        "place_id",
                        "name",
                        "address",
                        "city",
                        "price",
                        "price_unit",
                        "total_spaces",
                        "free_spaces",
                    )
                }
                | {
                    "currency": currency,
                    "connectors": plugs,
                    "open_now": bool(r["open_now"]),
                    "distance_km": round(km, 2),
                }
            )
    found.sort(key=lambda f: (f["distance_km"], f["place_id"]))
    return {"near": centre.out(), "kind": kind, "results": found[:limit], "count": min(len(found), limit)}
