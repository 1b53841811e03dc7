"""The lifestyle domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, func, insert, select, update

from sandbox.domains.common import addresses, charge, find_address, payment_method, place, refund
from sandbox.domains.lifestyle.schema import (
    COURIER_FEES,
    COURIER_HOURS,
    COURIER_LEAD,
    DT_FMT,
    DURATION_MIN,
    HOME_SERVICES,
    INSURANCE_RATE,
    LATE_CANCEL,
    LATE_FEE_SHARE,
    EventCategory,
    Name,
    ServiceType,
    courier_orders,
    event_tickets,
    membership_cards,
    service_appointments,
    world_events,
    world_parcels,
    world_service_providers,
    world_service_slots,
)
from sandbox.domains.shopping.schema import Id, Limit, Money, Query, shipments
from sandbox.domains.shopping.seed import CARRIERS, world_currency
from sandbox.domains.shopping.tools import get_row, shipping_address
from sandbox.errors import ErrorType, ToolError, gui_agent_hint
from sandbox.executor import Ctx, normalise_phone, rows
from sandbox.locales import convert, figures, shelf_price, to_step
from sandbox.schema import user_profile
from sandbox.tooling import Date, DateTime, Phone, tool


def _minute(ctx: Ctx) -> str:
    return ctx.now.strftime(DT_FMT)


def _qr(*parts: str) -> str:
    """A deterministic ticket or waybill code derived from what identifies it."""
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:12].upper()


_MY_NAME = select(user_profile.c.name)


# ---- Events & Attraction Tickets (13.1) ---------------------------------------------------------


def _event_filters(args: dict[str, Any]) -> str | None:
    """Give at least one of query, city, date_from, date_to, category, max_price; date_to is not before date_from."""
    filters = ("query", "city", "date_from", "date_to", "category", "max_price")
    if not any(args.get(k) is not None for k in filters):
        return f"give at least one of {', '.join(filters)}"
    if args.get("date_from") and args.get("date_to") and args["date_to"] < args["date_from"]:
        return "date_to is before date_from"
    return None


def _event_out(ev: dict[str, Any], sessions: list[str]) -> dict[str, Any]:
    keep = ("event_id", "title", "category", "venue", "city", "price", "currency", "seats_left", "booking_app_id")
    return {
        **{k: ev[k] for k in keep},
        "sessions": sessions,
        "sections": json.loads(ev["sections_json"]),
        "sold_out": ev["seats_left"] == 0,
        "api_bookable": bool(ev["api_bookable"]),
        "realname_required": bool(ev["realname_required"]),
    }


@tool(l2="13.1", app="tickets", mutating=False, network="internet", check=_event_filters)
def search_events(
    ctx: Ctx,
    query: Query | None = None,
    city: str | None = None,
    date_from: Date | None = None,
    date_to: Date | None = None,
    category: EventCategory | None = None,
    max_price: Money | None = None,
    limit: Limit = 10,
) -> dict[str, Any]:
    """Search upcoming concerts, exhibitions, museums, sports, shows, family outings and festivals.

    Args:
        query: Words that must appear in the title or venue (case-insensitive).
        city: City, e.g. "Shanghai".
        date_from: Only sessions on or after this day, YYYY-MM-DD.
        date_to: Only sessions on or before this day, YYYY-MM-DD.
        category: Kind of event.
        max_price: Highest price of the cheapest ticket, in your own currency.
        limit: Maximum number of events.
    """
    e = world_events.c
    q = select(world_events)
    if city:
        q = q.where(func.lower(e.city) == city.strip().lower())
    if category:
        q = q.where(e.category == category)
    for word in (query or "").lower().split():
        q = q.where(func.lower(e.title + " " + e.venue).contains(word, autoescape=True))
    now, found, home = _minute(ctx), [], world_currency(ctx.conn)
    for ev in rows(ctx.conn.execute(q)):
        if max_price is not None and convert(ev["price"], ev["currency"], home) > max_price:
            continue
        sessions = [
            s
            for s in json.loads(ev["sessions_json"])
            if s >= now and (not date_from or s[:10] >= date_from) and (not date_to or s[:10] <= date_to)
        ]
        if sessions:
            found.append(_event_out(ev, sessions))
    found.sort(key=lambda ev: (ev["sessions"][0], ev["event_id"]))
    return {"events": found[:limit], "count": min(len(found), limit), "total_matches": len(found)}


def _attendees_match(args: dict[str, Any]) -> str | None:
    """attendee_names, when given, holds one name per ticket (quantity of them)."""
    names = args.get("attendee_names")
    if names is not None and len(names) != args.get("quantity"):
        return "give one attendee name per ticket"
    return None


def _session(ev: dict[str, Any], session_time: str | None, now: str) -> str:
    """The session to book: the one named, or the only upcoming one."""
    sessions = json.loads(ev["sessions_json"])
    upcoming = [s for s in sessions if s >= now]
    if not upcoming:
        raise ToolError(ErrorType.STATE_CONFLICT, f"{ev['event_id']} has no upcoming sessions")
    if session_time is None:
        if len(upcoming) > 1:
            raise ToolError(
                ErrorType.MISSING_REQUIRED_ARGUMENT,
                f"{ev['event_id']} has {len(upcoming)} sessions: choose one",
                fields=["session_time"],
                candidates=upcoming,
            )
        return upcoming[0]
    if session_time not in upcoming:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"{ev['event_id']} has no upcoming session at {session_time}",
            field="session_time",
            candidates=upcoming,
        )
    return session_time


def _section(ev: dict[str, Any], seat_section: str | None) -> tuple[str | None, float]:
    """The section and its unit price: the cheapest unless one is named; None for general admission."""
    sections: dict[str, float] = json.loads(ev["sections_json"])
    if not sections:
        if seat_section is not None:
            raise ToolError(
                ErrorType.INVALID_ARGUMENT_VALUE,
                f"{ev['event_id']} is general admission (no sections)",
                field="seat_section",
            )
        return None, ev["price"]
    if seat_section is None:
        name = min(sections, key=lambda s: (sections[s], s))
        return name, sections[name]
    named = next((s for s in sections if s.lower() == seat_section.strip().lower()), None)
    if named is None:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"{ev['event_id']} has no section {seat_section!r}",
            field="seat_section",
            candidates=sections,
        )
    return named, sections[named]


@tool(
    l2="13.1",
    app="tickets",
    mutating=True,
    network="internet",
    check=_attendees_match,
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.UNSUPPORTED_OPERATION,
        ErrorType.STATE_CONFLICT,
        ErrorType.MISSING_REQUIRED_ARGUMENT,
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.DUPLICATE_ENTITY,
        ErrorType.LIMIT_EXCEEDED,
    ),
)
def book_event_tickets(
    ctx: Ctx,
    event_id: Id,
    quantity: Annotated[int, Field(ge=1, le=10)],
    session_time: DateTime | None = None,
    seat_section: Annotated[str, Field(min_length=1, max_length=40)] | None = None,
    attendee_names: Annotated[list[Name], Field(min_length=1, max_length=10)] | None = None,
    payment_method_id: Id | None = None,
) -> dict[str, Any]:
    """Buy tickets for one session of an event; the QR code is returned.

    Args:
        event_id: Id of the event, e.g. evt_912 (see search_events).
        quantity: Number of tickets.
        session_time: The session, YYYY-MM-DDTHH:MM (needed when the event has several).
        seat_section: Seating section (default: the cheapest); not for general admission.
        attendee_names: One full name per ticket; required for real-name events.
        payment_method_id: Payment method id (default: the default method).
    """
    ev = get_row(ctx, world_events, event_id, "search_events")
    method = payment_method(ctx, payment_method_id)
    if not ev["api_bookable"]:
        raise ToolError(
            ErrorType.UNSUPPORTED_OPERATION,
            f"{ev['title']} sells tickets only in its own app {ev['booking_app_id']!r}",
            app_id=ev["booking_app_id"],
            hint=gui_agent_hint(ev["booking_app_id"]),
        )
    session = _session(ev, session_time, _minute(ctx))
    section, unit = _section(ev, seat_section)
    if ev["realname_required"] and not attendee_names:
        raise ToolError(
            ErrorType.MISSING_REQUIRED_ARGUMENT,
            f"{ev['title']} needs every visitor's full name",
            fields=["attendee_names"],
        )
    if ev["seats_left"] < quantity:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            "sold out" if ev["seats_left"] == 0 else f"only {ev['seats_left']} ticket(s) left",
            seats_left=ev["seats_left"],
        )
    return _issue_tickets(ctx, ev, session, quantity, section, unit, attendee_names or [], method["method_id"])


_HELD_TICKET = select(event_tickets.c.ticket_id).where(
    event_tickets.c.event_id == bindparam("event_id"),
    event_tickets.c.session_time == bindparam("session_time"),
    event_tickets.c.status == "booked",
)
_ADD_TICKETS = insert(event_tickets)
_SET_SEATS_LEFT = update(world_events).where(world_events.c.event_id == bindparam("match_event_id"))


def _issue_tickets(
    ctx: Ctx,
    ev: dict[str, Any],
    session: str,
    quantity: int,
    section: str | None,
    unit: float,
    attendee_names: list[str],
    method_id: str,
) -> dict[str, Any]:
    """Hold the seats, charge, and issue the tickets with their QR code (the API and the venue apps alike)."""
    event_id = ev["event_id"]
    held = ctx.conn.execute(_HELD_TICKET, {"event_id": event_id, "session_time": session}).scalar()
    if held:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY, f"you already hold tickets for this session: {held}", existing_id=held
        )
    total = round(unit * quantity, 2)
    ticket_id = ctx.new_id(event_tickets)
    if total > 0:
        charge(ctx, total, ev["venue"], "entertainment", ticket_id, method_id, ev["currency"])
    qr = _qr(ticket_id, event_id, session)
    ctx.conn.execute(
        _ADD_TICKETS,
        {
            "ticket_id": ticket_id,
            "event_id": event_id,
            "session_time": session,
            "quantity": quantity,
            "seat_section": section,
            "attendee_names_json": json.dumps(attendee_names),
            "price": total,
            "currency": ev["currency"],
            "payment_method_id": method_id if total > 0 else None,
            "status": "booked",
            "qr_code": qr,
            "source": "api" if ctx.actor == "planner" else ctx.actor,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    ctx.conn.execute(_SET_SEATS_LEFT, {"match_event_id": event_id, "seats_left": ev["seats_left"] - quantity})
    return {
        "ticket_id": ticket_id,
        "event_id": event_id,
        "title": ev["title"],
        "session_time": session,
        "quantity": quantity,
        "seat_section": section,
        "total": total,
        "currency": ev["currency"],
        "qr_code": qr,
    }


# ---- Parcels & Courier (13.2) -------------------------------------------------------------------


def _tracking(number: str) -> str:
    return re.sub(r"[\s\-]", "", number).upper()


_PARCEL = select(world_parcels).where(world_parcels.c.tracking_number == bindparam("tracking_number"))
_SHIPMENT = select(shipments).where(shipments.c.tracking_number == bindparam("tracking_number"))
_PICKUP = select(courier_orders).where(courier_orders.c.tracking_number == bindparam("tracking_number"))


@tool(l2="13.2", app="courier", mutating=False, network="internet", errors=(ErrorType.ENTITY_NOT_FOUND,))
def track_parcel(
    ctx: Ctx,
    tracking_number: Annotated[str, Field(min_length=4, max_length=40)],
    carrier: Annotated[str, Field(min_length=1, max_length=40)] | None = None,
) -> dict[str, Any]:
    """Track any parcel by its tracking number: carrier, status, delivery estimate and scan events.

    Args:
        tracking_number: The tracking (waybill) number; spaces and dashes are ignored.
        carrier: The carrier, e.g. "SF Express" or "UPS", to narrow the search.
    """
    number = _tracking(tracking_number)
    found: dict[str, Any] | None = None
    parcel = ctx.conn.execute(_PARCEL, {"tracking_number": number}).first()
    ship = ctx.conn.execute(_SHIPMENT, {"tracking_number": number}).first()
    pickup = ctx.conn.execute(_PICKUP, {"tracking_number": number}).first()
    if parcel:
        found = {
            "carrier": parcel.carrier,
            "status": parcel.status,
            "eta": parcel.eta,
            "sender": parcel.sender,
            "events": json.loads(parcel.events_json),
        }
    elif ship:
        found = {
            "carrier": ship.carrier,
            "status": ship.status,
            "eta": ship.eta,
            "order_id": ship.order_id,
            "events": json.loads(ship.events_json),
        }
    elif pickup:
        found = {
            "carrier": pickup.carrier,
            "status": pickup.status,
            "eta": None,
            "courier_order_id": pickup.courier_order_id,
            "events": [{"ts": pickup.created_at[:16], "status": "pickup_scheduled"}],
        }
    if found is None or (carrier and carrier.strip().lower() != found["carrier"].lower()):
        where = f" at {carrier}" if carrier else ""
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no parcel {number}{where}", field="tracking_number")
    return {"tracking_number": number, **found}


class Recipient(BaseModel):
    """Who receives a courier parcel."""

    model_config = ConfigDict(strict=True, extra="forbid")
    name: Name = Field(description="Recipient's full name.")
    phone: Phone = Field(description="Recipient's phone number.")
    address: Annotated[str, Field(min_length=1, max_length=300)] = Field(description="Full delivery address.")


class PickupWindow(BaseModel):
    """When the courier should come."""

    model_config = ConfigDict(strict=True, extra="forbid")
    start: DateTime = Field(description="Earliest pickup, YYYY-MM-DDTHH:MM.")
    end: DateTime = Field(description="Latest pickup, same day, YYYY-MM-DDTHH:MM.")


def _window_valid(args: dict[str, Any]) -> str | None:
    """pickup_window starts and ends on the same day, between 08:00 and 20:00, and lasts at least one hour."""
    window = args.get("pickup_window")
    if window is None:
        return None
    start, end = window.start, window.end
    if start[:10] != end[:10]:
        return "the pickup window must start and end on the same day"
    if start[11:] < COURIER_HOURS[0] or end[11:] > COURIER_HOURS[1]:
        return f"couriers pick up between {COURIER_HOURS[0]} and {COURIER_HOURS[1]}"
    if dt.datetime.strptime(end, DT_FMT) - dt.datetime.strptime(start, DT_FMT) < dt.timedelta(hours=1):
        return "the pickup window must be at least one hour long"
    return None


def _default_window(now: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """Two hours from the first full hour a courier can make, within courier hours (else tomorrow morning)."""
    earliest = now + COURIER_LEAD
    start = earliest.replace(minute=0, second=0, microsecond=0)
    if start < earliest:
        start += dt.timedelta(hours=1)
    first = int(COURIER_HOURS[0][:2])
    if start.hour < first:
        start = start.replace(hour=first)
    if start.hour + 2 > int(COURIER_HOURS[1][:2]) or start.date() != now.date():
        start = (now + dt.timedelta(days=1)).replace(hour=first + 1, minute=0, second=0, microsecond=0)
    return start, start + dt.timedelta(hours=2)


_SAVED_ADDRESSES = select(
    addresses.c.address_id, addresses.c.label, addresses.c.address_line, addresses.c.city, addresses.c.is_default
).order_by(addresses.c.address_id)


def saved_address(ctx: Ctx, ref: str) -> str:
    """A saved address's id, from its id, its label ("home", "the office") or its street line, as a user names it;
    EntityNotFound lists the saved addresses, so a model that guessed learns them from the error."""
    found = find_address(ctx, ref) if ref.strip().lower() != "current" else None
    if found is None:
        every = rows(ctx.conn.execute(_SAVED_ADDRESSES))
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no saved address {ref!r}",
            field="address_id",
            saved_addresses=[{k: a[k] for k in ("address_id", "label", "city")} for a in every],
        )
    return str(found["address_id"])


def _address_text(ctx: Ctx, address_id: str) -> str:
    """A saved address as the user recognises it: "Home: 18 Garden Road, Tokyo (address_001)"."""
    a = next(a for a in rows(ctx.conn.execute(_SAVED_ADDRESSES)) if a["address_id"] == address_id)
    return f"{a['label']}: {a['address_line']}, {a['city']} ({address_id})"


_SCHEDULED_PICKUPS = select(courier_orders.c.courier_order_id, courier_orders.c.recipient_json).where(
    courier_orders.c.window_start == bindparam("window_start"),
    courier_orders.c.window_end == bindparam("window_end"),
    courier_orders.c.status == "scheduled",
)
_ADD_COURIER_ORDER = insert(courier_orders)


@tool(
    l2="13.2",
    app="courier",
    mutating=True,
    network="internet",
    check=_window_valid,
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.STATE_CONFLICT,
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.DUPLICATE_ENTITY,
        ErrorType.LIMIT_EXCEEDED,
    ),
)
def schedule_courier_pickup(
    ctx: Ctx,
    pickup_address_id: Id,
    recipient: Recipient,
    package_size: Literal["document", "small", "medium", "large"],
    pickup_window: PickupWindow | None = None,
    insured_value: Money | None = None,
    payment_method_id: Id | None = None,
) -> dict[str, Any]:
    """Book a courier to collect a parcel from a saved address and deliver it to a recipient.

    Args:
        pickup_address_id: Saved address to collect from: its id (address_901) or its label, e.g. "Home".
        recipient: Name, phone and full address of the recipient.
        package_size: Size class of the parcel.
        pickup_window: Pickup window between 08:00 and 20:00, at least an hour (default: the next two free hours).
        insured_value: Declared value to insure (1% fee).
        payment_method_id: Payment method id (default: the default method).
    """
    pickup_address_id = saved_address(ctx, pickup_address_id)
    method = payment_method(ctx, payment_method_id)
    if pickup_window:
        start = dt.datetime.strptime(pickup_window.start, DT_FMT)
        end = dt.datetime.strptime(pickup_window.end, DT_FMT)
    else:
        start, end = _default_window(ctx.now)
    if start <= ctx.now:
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, "the pickup window starts in the past", field="pickup_window")
    if start < ctx.now + COURIER_LEAD:
        earliest = (ctx.now + COURIER_LEAD).strftime(DT_FMT)
        raise ToolError(ErrorType.RESOURCE_UNAVAILABLE, f"no courier can arrive before {earliest}", earliest=earliest)
    who = {"name": recipient.name, "phone": normalise_phone(recipient.phone), "address": recipient.address}
    for order_id, saved in ctx.conn.execute(
        _SCHEDULED_PICKUPS, {"window_start": start.strftime(DT_FMT), "window_end": end.strftime(DT_FMT)}
    ):
        if json.loads(saved)["phone"] == who["phone"]:
            raise ToolError(
                ErrorType.DUPLICATE_ENTITY,
                f"a pickup for this recipient and window exists: {order_id}",
                existing_id=order_id,
            )
    currency = method["currency"]
    price = to_step(
        figures(COURIER_FEES, currency, shelf_price)[package_size] + (insured_value or 0.0) * INSURANCE_RATE, currency
    )
    carrier, prefix, digits = CARRIERS[currency][0]
    oid = ctx.new_id(courier_orders)
    charge(ctx, price, carrier, "courier", oid, method["method_id"])
    waybill = prefix + str(int(_qr(oid, ctx.ts()), 16))[-digits:].zfill(digits)
    ctx.conn.execute(
        _ADD_COURIER_ORDER,
        {
            "courier_order_id": oid,
            "pickup_address_id": pickup_address_id,
            "recipient_json": json.dumps(who, sort_keys=True),
            "package_size": package_size,
            "window_start": start.strftime(DT_FMT),
            "window_end": end.strftime(DT_FMT),
            "insured_value": insured_value or 0.0,
            "price": price,
            "currency": currency,
            "carrier": carrier,
            "tracking_number": waybill,
            "payment_method_id": method["method_id"],
            "status": "scheduled",
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {
        "courier_order_id": oid,
        "carrier": carrier,
        "tracking_number": waybill,
        "window": {"start": start.strftime(DT_FMT), "end": end.strftime(DT_FMT)},
        "price": price,
        "currency": currency,
    }


# ---- Home & Repair Services (13.3), Personal Care & Wellness (13.4) -----------------------------

_HOME_CITY = select(user_profile.c.home_city)


def _city_near(ctx: Ctx, near: str | None) -> str:
    """The city a location reference points to: a saved address (id, label or street line), a place id, or a
    city name."""
    if near is None:
        home = ctx.conn.execute(_HOME_CITY).scalar()
        return str(home)
    if near.startswith("address_"):
        return str(shipping_address(ctx, near)["city"])
    if near.startswith("place_"):
        return str(place(ctx, near)["city"])
    saved = find_address(ctx, near)
    return str(saved["city"]) if saved else near.strip()


_OPEN_SLOTS = (
    select(world_service_slots.c.start)
    .where(
        world_service_slots.c.provider_id == bindparam("provider_id"),
        world_service_slots.c.available == 1,
        world_service_slots.c.start > bindparam("after"),
    )
    .order_by(world_service_slots.c.start)
    .limit(bindparam("limit"))
)
_OPEN_SLOTS_ON_DAY = _OPEN_SLOTS.where(world_service_slots.c.start.like(bindparam("day_pattern")))


def _open_slots(ctx: Ctx, provider_id: str, day: str | None, limit: int = 6) -> list[str]:
    values = {"provider_id": provider_id, "after": _minute(ctx), "limit": limit}
    if day:
        return list(ctx.conn.execute(_OPEN_SLOTS_ON_DAY, {**values, "day_pattern": f"{day}%"}).scalars())
    return list(ctx.conn.execute(_OPEN_SLOTS, values).scalars())


@tool(l2="13.3", app="services", mutating=False, network="internet", errors=(ErrorType.ENTITY_NOT_FOUND,))
def search_local_services(
    ctx: Ctx,
    service_type: ServiceType,
    near: Annotated[str, Field(min_length=1, max_length=120)] | None = None,
    date: Date | None = None,
    max_price: Money | None = None,
    min_rating: Annotated[float, Field(ge=0, le=5)] | None = None,
    limit: Limit = 10,
) -> dict[str, Any]:
    """Find local providers of a service (cleaning, repairs, moving, haircut, massage...) with their open slots.

    Args:
        service_type: The service needed.
        near: Where: "home", "work" or another saved address label, an address_id, a place_id, or a city name
            (default: the home city).
        date: Only providers with an open slot that day, YYYY-MM-DD.
        max_price: Highest price for the service.
        min_rating: Lowest average rating (0-5).
        limit: Maximum number of providers.
    """
    city = _city_near(ctx, near)
    p = world_service_providers.c
    q = select(world_service_providers).where(func.lower(p.city) == city.lower())
    if min_rating is not None:
        q = q.where(p.rating >= min_rating)
    found = []
    for prov in rows(ctx.conn.execute(q.order_by(p.rating.desc(), p.provider_id))):
        price = json.loads(prov["price_json"]).get(service_type)
        if price is None or (max_price is not None and price > max_price):
            continue
        slots = _open_slots(ctx, prov["provider_id"], date)
        if date and not slots:
            continue
        found.append(
            {
                **{
                    k: prov[k]
                    for k in ("provider_id", "name", "address", "city", "rating", "review_count", "phone", "currency")
                },
                "price": price,
                "comes_to_you": service_type in HOME_SERVICES,
                "online_booking": bool(prov["online_booking"]),
                "open_slots": slots,
            }
        )
    return {"city": city, "service_type": service_type, "providers": found[:limit], "count": min(len(found), limit)}


_SET_APPOINTMENT = update(service_appointments).where(
    service_appointments.c.appointment_id == bindparam("match_appointment_id")
)
_SET_SLOT = update(world_service_slots).where(
    world_service_slots.c.provider_id == bindparam("match_provider_id"),
    world_service_slots.c.start == bindparam("match_start"),
)


@tool(
    l2="13.3",
    app="services",
    mutating=True,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.CONFIRMATION_REQUIRED),
)
def cancel_service_appointment(
    ctx: Ctx,
    appointment_id: Id,
    reason: Annotated[str, Field(min_length=1, max_length=300)] | None = None,
    confirm: bool = False,
) -> dict[str, Any]:
    """Cancel a booked service appointment; the payment is refunded, minus a fee within 2 hours of the start.

    Args:
        appointment_id: Id of the appointment, e.g. sappt_904.
        reason: Why it is cancelled.
        confirm: Set true only after the user accepted the late-cancellation fee.
    """
    appt = get_row(ctx, service_appointments, appointment_id, "search_local_services")
    if appt["status"] != "booked":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{appointment_id} is {appt['status']}", status=appt["status"])
    start = dt.datetime.strptime(appt["start"], DT_FMT)
    if start <= ctx.now:
        raise ToolError(ErrorType.STATE_CONFLICT, f"{appointment_id} started at {appt['start']}")
    fee = round(appt["price"] * LATE_FEE_SHARE, 2) if start - ctx.now < LATE_CANCEL else 0.0
    if fee and not confirm:
        raise ToolError(
            ErrorType.CONFIRMATION_REQUIRED,
            f"cancelling less than 2 hours before the start costs {fee:.2f} {appt['currency']}",
            fee=fee,
            hint="ask_user(kind=confirm), then retry with confirm=true",
        )
    refunded = refund(ctx, appointment_id)
    if fee and appt["payment_method_id"]:
        charge(ctx, fee, "Late cancellation fee", "services", appointment_id, appt["payment_method_id"])
    ctx.conn.execute(
        _SET_APPOINTMENT,
        {
            "match_appointment_id": appointment_id,
            "status": "cancelled",
            "cancellation_fee": fee,
            "notes": reason or appt["notes"],
            "updated_at": ctx.ts(),
        },
    )
    ctx.conn.execute(
        _SET_SLOT, {"match_provider_id": appt["provider_id"], "match_start": appt["start"], "available": 1}
    )
    return {
        "appointment_id": appointment_id,
        "status": "cancelled",
        "refunded": round(refunded - fee, 2),
        "cancellation_fee": fee,
        "currency": appt["currency"],
    }


_OPEN_SLOT = select(world_service_slots.c.start).where(
    world_service_slots.c.provider_id == bindparam("provider_id"),
    world_service_slots.c.start == bindparam("start"),
    world_service_slots.c.available == 1,
    world_service_slots.c.start > bindparam("after"),
)
_CLASHING_APPOINTMENTS = select(
    service_appointments.c.appointment_id,
    service_appointments.c.service,
    service_appointments.c.start,
    service_appointments.c.end,
).where(
    service_appointments.c.status == "booked",
    service_appointments.c.start < bindparam("new_end"),
    service_appointments.c.end > bindparam("new_start"),
)
_ADD_APPOINTMENT = insert(service_appointments)


@tool(
    l2="13.4",
    app="services",
    mutating=True,
    network="internet",
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.STATE_CONFLICT,
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.MISSING_REQUIRED_ARGUMENT,
        ErrorType.UNSUPPORTED_OPERATION,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.TIME_CONFLICT,
        ErrorType.LIMIT_EXCEEDED,
    ),
)
def book_service_appointment(
    ctx: Ctx,
    provider_id: Id,
    service: Annotated[str, Field(min_length=1, max_length=40)],
    start: DateTime,
    address_id: Id | None = None,
    notes: Annotated[str, Field(max_length=500)] | None = None,
    staff_preference: Annotated[str, Field(min_length=1, max_length=80)] | None = None,
    payment_method_id: Id | None = None,
) -> dict[str, Any]:
    """Book one of a provider's open slots for a service and pay for it.

    Args:
        provider_id: Id of the provider, e.g. provider_907 (see search_local_services).
        service: The service, e.g. "haircut" or "cleaning"; the provider must offer it.
        start: An open slot's start, YYYY-MM-DDTHH:MM.
        address_id: Where a home service (cleaning, repairs, moving, laundry pickup) takes place: a saved
            address's id (address_901) or its label, e.g. "Home".
        notes: Notes for the provider.
        staff_preference: A preferred staff member, e.g. "Tony".
        payment_method_id: Payment method id (default: the default method).
    """
    prov = get_row(ctx, world_service_providers, provider_id, "search_local_services")
    if address_id:
        address_id = saved_address(ctx, address_id)
    method = payment_method(ctx, payment_method_id)
    prices: dict[str, float] = json.loads(prov["price_json"])
    wanted = service.strip().lower().replace(" ", "_").replace("-", "_")
    if wanted not in prices:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"{prov['name']} does not offer {service!r}",
            field="service",
            candidates=sorted(prices),
        )
    home = wanted in HOME_SERVICES
    if home and not address_id:
        raise ToolError(
            ErrorType.MISSING_REQUIRED_ARGUMENT,
            f"{wanted} happens at your place: give address_id",
            fields=["address_id"],
        )
    if not prov["online_booking"]:
        raise ToolError(
            ErrorType.UNSUPPORTED_OPERATION,
            f"{prov['name']} takes bookings by phone only",
            phone=prov["phone"],
            hint="call_voice_agent",
        )
    open_slot = ctx.conn.execute(
        _OPEN_SLOT, {"provider_id": provider_id, "start": start, "after": _minute(ctx)}
    ).first()
    if open_slot is None:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"{prov['name']} has no open slot at {start}",
            open_slots=_open_slots(ctx, provider_id, start[:10]) or _open_slots(ctx, provider_id, None),
        )
    end = (dt.datetime.strptime(start, DT_FMT) + dt.timedelta(minutes=DURATION_MIN[wanted])).strftime(DT_FMT)
    clash = rows(ctx.conn.execute(_CLASHING_APPOINTMENTS, {"new_start": start, "new_end": end}))
    if clash:
        raise ToolError(
            ErrorType.TIME_CONFLICT, f"overlaps your appointment {clash[0]['appointment_id']}", conflicts=clash
        )
    appt_id = ctx.new_id(service_appointments)
    charge(ctx, prices[wanted], prov["name"], "services", appt_id, method["method_id"])
    ctx.conn.execute(
        _ADD_APPOINTMENT,
        {
            "appointment_id": appt_id,
            "provider_id": provider_id,
            "service": wanted,
            "start": start,
            "end": end,
            "address_id": address_id if home else None,
            "notes": notes,
            "staff_preference": staff_preference,
            "price": prices[wanted],
            "currency": prov["currency"],
            "payment_method_id": method["method_id"],
            "status": "booked",
            "cancellation_fee": None,
            "source": "api",
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    ctx.conn.execute(_SET_SLOT, {"match_provider_id": provider_id, "match_start": start, "available": 0})
    return {
        "appointment_id": appt_id,
        "provider": prov["name"],
        "service": wanted,
        "start": start,
        "end": end,
        "location": _address_text(ctx, address_id) if home else prov["address"],  # type: ignore[arg-type]  # given when home
        "price": prices[wanted],
        "currency": prov["currency"],
    }


# ---- Loyalty & Memberships (13.5) ---------------------------------------------------------------

# A card number identifies the card: "Starbucks" with the number of the saved "Starbucks Rewards" card is that card
# (a card under the very merchant name first, should two programmes share a number).
_CARD = (
    select(membership_cards)
    .where(membership_cards.c.card_number == bindparam("card_number"))
    .order_by(func.lower(membership_cards.c.merchant) != bindparam("merchant"), membership_cards.c.card_id)
)


def _same_programme(a: str, b: str) -> bool:
    """Two spellings of one merchant share a word ("Starbucks" and "Starbucks Rewards")."""
    return bool(set(re.findall(r"\w+", a.casefold())) & set(re.findall(r"\w+", b.casefold())))


_SET_CARD = update(membership_cards).where(membership_cards.c.card_id == bindparam("match_card_id"))
_ADD_CARD = insert(membership_cards)


@tool(l2="13.5", app="wallet", mutating=True, errors=(ErrorType.DUPLICATE_ENTITY,))
def add_membership_card(
    ctx: Ctx,
    merchant: Annotated[str, Field(min_length=1, max_length=80)],
    card_number: Annotated[str, Field(min_length=3, max_length=40)],
    holder_name: Name | None = None,
    points: Annotated[int, Field(ge=0, le=100_000_000)] | None = None,
) -> dict[str, Any]:
    """Add a loyalty or membership card to the wallet, or update the points balance of a card already there.

    A card already saved with the same number is that card when the merchant names share a word ("Starbucks",
    "Starbucks Rewards"); under another merchant it is a DuplicateEntity.

    Args:
        merchant: The shop, chain or programme, e.g. "Starbucks Rewards".
        card_number: The card or member number; spaces and dashes are ignored.
        holder_name: Name on the card (default: the user's name).
        points: Current points balance.
    """
    number = _tracking(card_number)
    existing = ctx.conn.execute(_CARD, {"merchant": merchant.strip().lower(), "card_number": number}).first()
    if existing and not _same_programme(existing.merchant, merchant):
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"card number {number} is saved as a {existing.merchant} card: {existing.card_id}",
            existing_id=existing.card_id,
            merchant=existing.merchant,
        )
    if existing:
        if points is None or points == existing.points:
            raise ToolError(
                ErrorType.DUPLICATE_ENTITY,
                f"this {existing.merchant} card is saved: {existing.card_id}",
                existing_id=existing.card_id,
            )
        ctx.conn.execute(_SET_CARD, {"match_card_id": existing.card_id, "points": points, "updated_at": ctx.ts()})
        return {
            "card_id": existing.card_id,
            "action": "points_updated",
            "merchant": existing.merchant,
            "points": points,
            "previous_points": existing.points,
        }
    holder = holder_name or ctx.conn.execute(_MY_NAME).scalar()
    card_id = ctx.new_id(membership_cards)
    ctx.conn.execute(
        _ADD_CARD,
        {
            "card_id": card_id,
            "merchant": merchant.strip(),
            "card_number": number,
            "holder_name": holder,
            "points": points or 0,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {
        "card_id": card_id,
        "action": "added",
        "merchant": merchant.strip(),
        "card_number": number,
        "holder_name": holder,
        "points": points or 0,
    }
