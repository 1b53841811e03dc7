"""The lifestyle domain's data model: its tables, and the constants and types its tools and seeder share."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field
from sqlalchemy import Column, Float, Integer, Text

from sandbox.schema import USER, WORLD, stamps, table

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
