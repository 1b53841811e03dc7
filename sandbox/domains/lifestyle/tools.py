"""D13 Lifestyle & Local Services: event tickets, parcels and courier pickups, local services, membership cards.

Some venues sell tickets only in their own app (``api_bookable=0`` with a ``booking_app_id``) and
some providers take bookings only by phone: those calls fail with ``UnsupportedOperation`` whose
hint names the sub-agent that can do it (the paper's museum-ticket example).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Column, Connection, Float, Integer, Text, bindparam, func, insert, select, update

from sandbox.domains.common import (
    STREETS,
    addresses,
    charge,
    find_address,
    payment_method,
    place,
    refund,
    world_places,
)
from sandbox.domains.shopping.schema import Id, Limit, Money, Query, shipments
from sandbox.domains.shopping.seed import CARRIERS, local_price, seed_payments, tracking_number, world_currency
from sandbox.domains.shopping.tools import get_row, shipping_address
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, normalise_phone, rows
from sandbox.locales import business_phone, country_of, figures, mobile_phone, shelf_price, to_step
from sandbox.personas import Persona, seeder
from sandbox.schema import USER, WORLD, apps, stamps, table, user_profile
from sandbox.subagents import GuiFlow, gui_flow
from sandbox.tooling import INTERNAL, Date, DateTime, Phone, tool

world_events = table(
    "world_events",
    WORLD,
    Column("event_id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("category", Text, nullable=False),  # concert | exhibition | museum | sports | theater | family | festival
    Column("venue", Text, nullable=False),
    Column("venue_place_id", Text),
    Column("city", Text, nullable=False),
    Column("sessions_json", Text, nullable=False),  # ["YYYY-MM-DDTHH:MM", ...]
    Column("price", Float, nullable=False),  # the cheapest ticket
    Column("sections_json", Text, nullable=False),  # {"VIP": price, ...}; {} = general admission
    Column("currency", Text, nullable=False),
    Column("seats_left", Integer, nullable=False),
    Column("api_bookable", Integer, nullable=False),
    Column("realname_required", Integer, nullable=False),
    Column("booking_app_id", Text),  # the venue's own app when api_bookable = 0
    id_prefix="evt",
    natural_key=("title", "city"),
)

event_tickets = table(
    "event_tickets",
    USER,
    Column("ticket_id", Text, primary_key=True),
    Column("event_id", Text, nullable=False),
    Column("session_time", Text, nullable=False),
    Column("quantity", Integer, nullable=False),
    Column("seat_section", Text),
    Column("attendee_names_json", Text, nullable=False),
    Column("price", Float, nullable=False),  # total paid
    Column("currency", Text, nullable=False),
    Column("payment_method_id", Text),
    Column("status", Text, nullable=False),  # booked | used | cancelled
    Column("qr_code", Text, nullable=False),
    Column("source", Text, nullable=False),  # api | gui_agent
    *stamps(),
    natural_key=("event_id", "session_time"),
)

world_parcels = table(
    "world_parcels",
    WORLD,
    Column("tracking_number", Text, primary_key=True),
    Column("carrier", Text, nullable=False),
    Column("sender", Text, nullable=False),
    Column("origin_city", Text, nullable=False),
    Column("destination_city", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("eta", Text),
    Column("events_json", Text, nullable=False),  # [{"ts", "status", "location"}], oldest first
    natural_key=("tracking_number",),
)

courier_orders = table(
    "courier_orders",
    USER,
    Column("courier_order_id", Text, primary_key=True),
    Column("pickup_address_id", Text, nullable=False),
    Column("recipient_json", Text, nullable=False),  # {"name", "phone", "address"}; phone normalised
    Column("package_size", Text, nullable=False),
    Column("window_start", Text, nullable=False),
    Column("window_end", Text, nullable=False),
    Column("insured_value", Float, nullable=False),
    Column("price", Float, nullable=False),
    Column("currency", Text, nullable=False),
    Column("carrier", Text, nullable=False),
    Column("tracking_number", Text, nullable=False),
    Column("payment_method_id", Text),
    Column("status", Text, nullable=False),  # scheduled | picked_up | delivered | cancelled
    *stamps(),
    natural_key=("tracking_number",),
    id_prefix="courier",
)

world_service_providers = table(
    "world_service_providers",
    WORLD,
    Column("provider_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("service_types_json", Text, nullable=False),
    Column("price_json", Text, nullable=False),  # {service: price}
    Column("currency", Text, nullable=False),
    Column("place_id", Text),
    Column("address", Text, nullable=False),
    Column("city", Text, nullable=False),
    Column("rating", Float, nullable=False),
    Column("review_count", Integer, nullable=False),
    Column("phone", Text, nullable=False),
    Column("online_booking", Integer, nullable=False),  # 0 = by phone only
    natural_key=("name", "city"),
)

world_service_slots = table(
    "world_service_slots",
    WORLD,
    Column("provider_id", Text, primary_key=True),
    Column("start", Text, primary_key=True),  # YYYY-MM-DDTHH:MM
    Column("available", Integer, nullable=False),
    natural_key=("provider_id", "start"),
)

service_appointments = table(
    "service_appointments",
    USER,
    Column("appointment_id", Text, primary_key=True),
    Column("provider_id", Text, nullable=False),
    Column("service", Text, nullable=False),
    Column("start", Text, nullable=False),
    Column("end", Text, nullable=False),
    Column("address_id", Text),  # where a home service happens
    Column("notes", Text),
    Column("staff_preference", Text),
    Column("price", Float, nullable=False),
    Column("currency", Text, nullable=False),
    Column("payment_method_id", Text),
    Column("status", Text, nullable=False),  # booked | completed | cancelled
    Column("cancellation_fee", Float),
    Column("source", Text, nullable=False),  # api | voice_agent
    *stamps(),
    natural_key=("provider_id", "start"),
    id_prefix="sappt",
)

membership_cards = table(
    "membership_cards",
    USER,
    Column("card_id", Text, primary_key=True),
    Column("merchant", Text, nullable=False),
    Column("card_number", Text, nullable=False),  # upper case, no spaces or dashes
    Column("holder_name", Text, nullable=False),
    Column("points", Integer, nullable=False),
    *stamps(),
    natural_key=("merchant", "card_number"),
    id_prefix="mcard",
)

DT_FMT = "%Y-%m-%dT%H:%M"
EventCategory = Literal["concert", "exhibition", "museum", "sports", "theater", "family", "festival"]
ServiceType = Literal[
    "cleaning",
    "plumbing",
    "electrician",
    "appliance_repair",
    "moving",
    "laundry",
    "haircut",
    "massage",
    "nail",
    "car_wash",
    "pet_grooming",
]
HOME_SERVICES = frozenset({"cleaning", "plumbing", "electrician", "appliance_repair", "moving", "laundry"})
DURATION_MIN = {
    "cleaning": 180,
    "plumbing": 90,
    "electrician": 90,
    "appliance_repair": 90,
    "moving": 240,
    "laundry": 30,
    "haircut": 45,
    "massage": 60,
    "nail": 60,
    "car_wash": 45,
    "pet_grooming": 90,
}
LATE_CANCEL = dt.timedelta(hours=2)  # cancelling closer than this to the start costs a fee
LATE_FEE_SHARE = 0.5
COURIER_LEAD = dt.timedelta(hours=1)  # the earliest a courier can arrive
COURIER_HOURS = ("08:00", "20:00")
COURIER_FEES = {
    "CNY": {"document": 12.0, "small": 15.0, "medium": 22.0, "large": 35.0},
    "USD": {"document": 8.5, "small": 10.5, "medium": 15.0, "large": 24.0},
}
INSURANCE_RATE = 0.01
Name = Annotated[str, Field(min_length=1, max_length=120)]


def _minute(ctx: Ctx) -> str:
    return ctx.now.strftime(DT_FMT)


def _qr(*parts: str) -> str:
    """A deterministic ticket or waybill code derived from what identifies it."""
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:12].upper()


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
        max_price: Highest price of the cheapest ticket.
        limit: Maximum number of events.
    """
    e = world_events.c
    q = select(world_events)
    if city:
        q = q.where(func.lower(e.city) == city.strip().lower())
    if category:
        q = q.where(e.category == category)
    if max_price is not None:
        q = q.where(e.price <= max_price)
    for word in (query or "").lower().split():
        q = q.where(func.lower(e.title + " " + e.venue).contains(word, autoescape=True))
    now, found = _minute(ctx), []
    for ev in rows(ctx.conn.execute(q)):
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
            hint="call_gui_agent",
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
        charge(ctx, total, ev["venue"], "entertainment", ticket_id, method_id)
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


# ---- Venue apps (no API): the GUI agent reserves on their screens -------------------------------


@tool(
    domain=INTERNAL,
    app="tickets",
    mutating=True,
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.DUPLICATE_ENTITY,
        ErrorType.LIMIT_EXCEEDED,
        ErrorType.STATE_CONFLICT,
    ),
)
def venue_reserve_ticket(
    ctx: Ctx,
    event_id: Id,
    session_time: DateTime,
    quantity: Annotated[int, Field(ge=1, le=10)],
    visitor_names: Annotated[list[Name], Field(min_length=1, max_length=10)],
) -> dict[str, Any]:
    """Reserve tickets on a venue app's booking screen (GUI-agent action).

    Args:
        event_id: The event the venue app sells.
        session_time: The session, YYYY-MM-DDTHH:MM.
        quantity: Number of tickets.
        visitor_names: One full name per visitor (venue apps register visitors by name).
    """
    ev = get_row(ctx, world_events, event_id, "search_events")
    session = _session(ev, session_time, _minute(ctx))
    if ev["seats_left"] < quantity:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE, f"only {ev['seats_left']} ticket(s) left", seats_left=ev["seats_left"]
        )
    section, unit = _section(ev, None)
    return _issue_tickets(
        ctx, ev, session, quantity, section, unit, visitor_names, payment_method(ctx, None)["method_id"]
    )


_SELLS_TICKETS = select(world_events.c.event_id).where(world_events.c.booking_app_id == bindparam("app_id")).limit(1)


def _sells_tickets(ctx: Ctx, app_id: str) -> bool:
    return ctx.conn.execute(_SELLS_TICKETS, {"app_id": app_id}).first() is not None


_VENUE_APP_EVENTS = (
    select(world_events).where(world_events.c.booking_app_id == bindparam("app_id")).order_by(world_events.c.event_id)
)
_MY_NAME = select(user_profile.c.name)


def _reserve_in_venue_app(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Find the app's event on the date, pick the session, register the visitors, pay in the app."""
    date, session = str(inputs["date"]), str(inputs["session"])
    events = rows(ctx.conn.execute(_VENUE_APP_EVENTS, {"app_id": app_id}))
    wanted = session if "T" in session else f"{date}T{session}"
    ev = next((e for e in events if wanted in json.loads(e["sessions_json"])), None)
    if ev is None:
        raise ToolError(ErrorType.SUB_AGENT_FAILED, f"{app_id} shows no session at {wanted}", reason="no_session")
    profile = ctx.conn.execute(_MY_NAME).scalar()
    visitors = inputs["visitors"] if isinstance(inputs["visitors"], list) else [inputs["visitors"]]
    names = [
        profile if isinstance(v, dict) and v.get("self") else (v.get("name") if isinstance(v, dict) else v)
        for v in visitors
    ]
    if any(not isinstance(n, str) or not n for n in names):
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED, 'every visitor needs a name (or {"self": true})', missing_inputs=["visitors"]
        )
    result = ctx.call(
        "venue_reserve_ticket",
        {
            "event_id": ev["event_id"],
            "session_time": wanted,
            "quantity": int(inputs["quantity"]),
            "visitor_names": names,
        },
    )
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"the reservation failed: {result['Payload']['message']}",
            reason=result["ErrorType"],
        )
    payload = result["Payload"]
    return {
        "reservation_code": payload["ticket_id"],
        "qr_code": payload["qr_code"],
        "price": payload["total"],
        "session_time": payload["session_time"],
        "event_id": payload["event_id"],
    }


gui_flow(
    GuiFlow(
        None,
        "reserve_ticket",
        ("ticket", "reserv*", "book*"),
        ("date", "session", "quantity", "visitors"),
        _reserve_in_venue_app,
        serves=_sells_tickets,
    )
)


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
    currency: str,
    venues: dict[tuple[str, str], str],
) -> dict[str, Any]:
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
    rng: random.Random, cities: list[str], home: str, today: dt.date, currency: str, venues: dict[tuple[str, str], str]
) -> list[dict[str, Any]]:
    made = []
    for city in cities:
        for category, title, venue, usd, tiers in rng.sample(EVENT_TEMPLATES, EVENTS_PER_CITY + 3 * (city == home)):
            ev = _event_row(rng, city, category, title, venue, usd, tiers, currency, venues)
            made.append({**ev, "sessions_json": json.dumps(_sessions(rng, category, today))})
    for city, title, venue, usd, bookable, realname, app in LANDMARKS:
        if city in cities:
            ev = _event_row(rng, city, "museum", title, venue, usd, False, currency, venues)
            ev.update(api_bookable=bookable, realname_required=realname, booking_app_id=app, seats_left=500)
            made.append({**ev, "sessions_json": json.dumps(_sessions(rng, "museum", today))})
    made.sort(key=lambda ev: (ev["city"], ev["title"]))
    city, title, venue, usd, bookable, realname, app = MUSEUM_ANCHOR
    anchor = _event_row(rng, city, "museum", title, venue, usd, False, currency, venues)
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


def _tickets(events: list[dict[str, Any]], now: dt.datetime, currency: str) -> list[dict[str, Any]]:
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
                "currency": currency,
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

    events = _events(rng, cities, persona.home_city, today, currency, venues)
    tickets = _tickets(events, now, currency)
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
            [_payment(t, t["price"], venue_of[t["event_id"]], "entertainment", t["ticket_id"]) for t in tickets]
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


# ---- Screens without an API in the D3 apps (chat, social), driven by the GUI agent ------------------
# They live here, with the other GUI flows of the lifestyle apps, so the D3 modules keep only their API tools.

# ---- Group settings screen (no API): the GUI agent renames a group chat -----------------------

from sqlalchemy import or_  # noqa: E402

from sandbox.domains.communication import _group, groups  # noqa: E402

_OTHER_GROUP_NAMED = select(groups.c.group_id).where(
    func.lower(groups.c.name) == bindparam("name"), groups.c.group_id != bindparam("group_id")
)
_RENAME_GROUP = update(groups).where(groups.c.group_id == bindparam("match_group_id"))


@tool(
    domain=INTERNAL,
    app="chat",
    mutating=True,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.PERMISSION_DENIED, ErrorType.DUPLICATE_ENTITY),
)
def chat_rename_group(
    ctx: Ctx, group_id: str, new_name: Annotated[str, Field(min_length=1, max_length=80)]
) -> dict[str, Any]:
    """Rename a group chat on its settings screen (GUI-agent action; only a group admin may).

    Args:
        group_id: Id of the group chat.
        new_name: The group's new name.
    """
    group = _group(ctx, group_id)
    if not group["is_admin"]:
        raise ToolError(
            ErrorType.PERMISSION_DENIED,
            f"the user is not an admin of {group['name']!r}",
            reason="not_admin",
            group_id=group_id,
        )
    other = ctx.conn.execute(_OTHER_GROUP_NAMED, {"name": new_name.lower(), "group_id": group_id}).scalar()
    if other:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"a group named {new_name!r} exists: {other}", existing_id=other)
    ctx.conn.execute(_RENAME_GROUP, {"match_group_id": group_id, "name": new_name, "updated_at": ctx.ts()})
    return {"group_id": group_id, "old_name": group["name"], "name": new_name}


_GROUP_BY_ID_OR_NAME = select(groups.c.group_id).where(
    or_(groups.c.group_id == bindparam("group_id"), func.lower(groups.c.name) == bindparam("name"))
)


def _rename_group(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Open the group (by id or by its current name), then its settings, and type the new name."""
    ref = str(inputs["group"]).strip()
    row = ctx.conn.execute(_GROUP_BY_ID_OR_NAME, {"group_id": ref, "name": ref.lower()}).scalar()
    if row is None:
        raise ToolError(ErrorType.SUB_AGENT_FAILED, f"the chat app shows no group {ref!r}", reason="no_group")
    result = ctx.call("chat_rename_group", {"group_id": row, "new_name": str(inputs["new_name"])})
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED, f"renaming failed: {result['Payload']['message']}", reason=result["ErrorType"]
        )
    return {"group_id": row, "name": result["Payload"]["name"]}


gui_flow(GuiFlow("chat", "rename_group", ("rename", "name"), ("group", "new_name"), _rename_group))


# ---- Post settings screen (no API): the GUI agent changes who can see a post or deletes it ----

from sandbox.domains.social import _post, social_posts  # noqa: E402

_SET_POST_VISIBILITY = update(social_posts).where(social_posts.c.post_id == bindparam("match_post_id"))


@tool(domain=INTERNAL, app="social", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.PERMISSION_DENIED))
def social_set_post_visibility(
    ctx: Ctx, post_id: str, visibility: Literal["public", "friends", "private"]
) -> dict[str, Any]:
    """Change the audience of one of the user's own posts on its edit screen (GUI-agent action).

    Args:
        post_id: Id of the user's post.
        visibility: Who may see it from now on.
    """
    post = _post(ctx, post_id)
    if not post["is_own"]:
        raise ToolError(ErrorType.PERMISSION_DENIED, f"{post_id} is not the user's post")
    ctx.conn.execute(_SET_POST_VISIBILITY, {"match_post_id": post_id, "visibility": visibility, "updated_at": ctx.ts()})
    return {"post_id": post_id, "visibility": visibility, "previous": post["visibility"]}


def _change_visibility(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Scroll the user's profile to the post whose text matches, open 'Edit audience' and pick one."""
    platform = str(inputs.get("platform") or "social")
    ref = str(inputs["post"]).strip()
    p = social_posts.c
    found = (
        ctx.conn.execute(
            select(p.post_id)
            .where(
                p.is_own == 1,
                p.platform == platform,
                or_(p.post_id == ref, func.lower(p.content).contains(ref.lower(), autoescape=True)),
            )
            .order_by(p.posted_at.desc())
        )
        .scalars()
        .all()
    )
    if len(found) != 1:
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"{len(found)} of your {platform} posts match {ref!r}",
            reason="no_post" if not found else "ambiguous_post",
        )
    result = ctx.call("social_set_post_visibility", {"post_id": found[0], "visibility": str(inputs["visibility"])})
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED, f"the change failed: {result['Payload']['message']}", reason=result["ErrorType"]
        )
    return {"post_id": found[0], "visibility": result["Payload"]["visibility"]}


gui_flow(
    GuiFlow(
        "social",
        "change_post_visibility",
        ("visib*", "audience", "private", "public", "who can see"),
        ("post", "visibility"),
        _change_visibility,
        optional_inputs=("platform",),
    )
)
