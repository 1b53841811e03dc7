"""The travel domain's tables and the fixed facts its tools and seeder share."""

from __future__ import annotations

from sqlalchemy import Column, Float, ForeignKey, Integer, Text

from sandbox.locales import CURRENCIES
from sandbox.schema import SYSTEM, USER, WORLD, stamps, table

# ---- Tables -----------------------------------------------------------------------------------

saved_places = table(
    "saved_places",
    USER,
    Column("label", Text, primary_key=True),
    Column("kind", Text, nullable=False),  # home | work | favorite
    Column("place_id", Text),  # the world place, when the spot is one
    Column("name", Text, nullable=False),
    Column("address", Text, nullable=False),
    Column("city", Text, nullable=False),
    Column("lat", Float, nullable=False),
    Column("lon", Float, nullable=False),
    *stamps(),
    natural_key=("label",),
)

device_location = table(  # where the phone is; scenario events move it
    "device_location",
    USER,
    Column("device", Text, primary_key=True),  # always "phone"
    Column("place_id", Text),
    Column("name", Text, nullable=False),
    Column("address", Text, nullable=False),
    Column("city", Text, nullable=False),
    Column("lat", Float, nullable=False),
    Column("lon", Float, nullable=False),
    Column("accuracy_m", Integer, nullable=False),
    *stamps(),
    natural_key=("device",),
)

navigation_sessions = table(
    "navigation_sessions",
    USER,
    Column("session_id", Text, primary_key=True),
    Column("origin", Text, nullable=False),
    Column("destination", Text, nullable=False),
    Column("destination_place_id", Text),
    Column("stops_json", Text, nullable=False),
    Column("mode", Text, nullable=False),
    Column("route_index", Integer, nullable=False),
    Column("distance_km", Float, nullable=False),
    Column("eta", Text, nullable=False),
    Column("status", Text, nullable=False),  # active | ended | replaced
    *stamps(),
    natural_key=("destination", "created_at"),
    id_prefix="nav",
)

ride_quotes = table(  # search cache: never diffed
    "ride_quotes",
    SYSTEM,
    Column("quote_id", Text, primary_key=True),
    Column("pickup", Text, nullable=False),
    Column("dropoff", Text, nullable=False),
    Column("ride_type", Text, nullable=False),
    Column("scheduled_at", Text),
    Column("fare", Float, nullable=False),
    Column("currency", Text, nullable=False),
    Column("eta_min", Integer, nullable=False),
    Column("expires_at", Text, nullable=False),
    Column("status", Text, nullable=False),  # valid | used | changed
)

rides = table(
    "rides",
    USER,
    Column("ride_id", Text, primary_key=True),
    Column("quote_id", Text),
    Column("pickup", Text, nullable=False),
    Column("dropoff", Text, nullable=False),
    Column("ride_type", Text, nullable=False),
    Column("passengers", Integer, nullable=False),
    Column("fare", Float, nullable=False),
    Column("currency", Text, nullable=False),
    Column("status", Text, nullable=False),  # requested | driver_assigned | completed | cancelled
    Column("scheduled_at", Text),
    Column("note", Text),
    Column("cancel_reason", Text),
    Column("payment_method_id", Text, nullable=False),
    *stamps(),
    natural_key=("pickup", "dropoff", "created_at"),
)

offers = table(  # search cache: never diffed
    "offers",
    SYSTEM,
    Column("offer_id", Text, primary_key=True),
    Column("kind", Text, nullable=False),  # flight | hotel | train
    Column("ref_id", Text, nullable=False),  # flight ids (comma-separated legs), room id or train id
    Column("price", Float, nullable=False),  # per passenger (flights, trains) or per room-night (hotels)
    Column("currency", Text, nullable=False),
    Column("params_json", Text, nullable=False),  # the search's party size, cabin, dates
    Column("expires_at", Text, nullable=False),
    Column("status", Text, nullable=False),  # valid | expired | changed
    Column("created_at", Text, nullable=False),
)

world_flights = table(
    "world_flights",
    WORLD,
    Column("flight_id", Text, primary_key=True),
    Column("flight_number", Text, nullable=False),
    Column("airline", Text, nullable=False),
    Column("origin", Text, nullable=False),
    Column("destination", Text, nullable=False),  # IATA codes
    Column("depart_at", Text, nullable=False),
    Column("arrive_at", Text, nullable=False),
    Column("stops", Integer, nullable=False),
    Column("cabin", Text, nullable=False),  # economy | business (one row per cabin)
    Column("price", Float, nullable=False),
    Column("seats_left", Integer, nullable=False),
    Column("international", Integer, nullable=False),
)

world_flight_status = table(
    "world_flight_status",
    WORLD,
    Column("flight_number", Text, primary_key=True),
    Column("date", Text, primary_key=True),
    Column("status", Text, nullable=False),  # scheduled | delayed | boarding | departed | landed | cancelled
    Column("gate", Text),
    Column("delay_min", Integer, nullable=False),
)

flight_bookings = table(
    "flight_bookings",
    USER,
    Column("booking_id", Text, primary_key=True),
    Column("offer_id", Text),
    Column("flight_id", Text, nullable=False),
    Column("flight_number", Text, nullable=False),
    Column("airline", Text, nullable=False),
    Column("origin", Text, nullable=False),
    Column("destination", Text, nullable=False),
    Column("depart_at", Text, nullable=False),
    Column("arrive_at", Text, nullable=False),
    Column("cabin", Text, nullable=False),
    Column("passengers_json", Text, nullable=False),  # [{"name", "id_number"}]
    Column("seat_preference", Text, nullable=False),
    Column("seats_json", Text, nullable=False),  # assigned at check-in
    Column("checked_bags", Integer, nullable=False),
    Column("status", Text, nullable=False),  # confirmed | cancelled
    Column("checked_in", Integer, nullable=False),
    Column("boarding_pass", Text),
    Column("price", Float, nullable=False),
    Column("currency", Text, nullable=False),
    Column("payment_method_id", Text, nullable=False),
    *stamps(),
    natural_key=("flight_number", "depart_at"),
    id_prefix="fbooking",
)

world_hotels = table(
    "world_hotels",
    WORLD,
    Column("hotel_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("brand", Text),
    Column("city", Text, nullable=False),
    Column("place_id", Text),  # the world place, for hotels that are one
    Column("address", Text, nullable=False),
    Column("lat", Float, nullable=False),
    Column("lon", Float, nullable=False),
    Column("rating", Float, nullable=False),
    Column("amenities_json", Text, nullable=False),
    Column("currency", Text, nullable=False),  # its country's: rooms are priced where the hotel is
)

world_hotel_rooms = table(
    "world_hotel_rooms",
    WORLD,
    Column("room_id", Text, primary_key=True),
    Column("hotel_id", Text, ForeignKey("world_hotels.hotel_id"), nullable=False),
    Column("room_type", Text, nullable=False),
    Column("capacity", Integer, nullable=False),
    Column("price", Float, nullable=False),  # per night, in the hotel's currency
    Column("rooms_left", Integer, nullable=False),
    Column("free_cancel_days", Integer, nullable=False),  # free cancellation until this many days before check-in
)

hotel_bookings = table(
    "hotel_bookings",
    USER,
    Column("booking_id", Text, primary_key=True),
    Column("offer_id", Text),
    Column("hotel_id", Text, nullable=False),
    Column("hotel_name", Text, nullable=False),
    Column("room_id", Text, nullable=False),
    Column("room_type", Text, nullable=False),
    Column("city", Text, nullable=False),
    Column("check_in", Text, nullable=False),
    Column("check_out", Text, nullable=False),
    Column("rooms", Integer, nullable=False),
    Column("guests", Integer, nullable=False),
    Column("guest_name", Text, nullable=False),
    Column("special_requests", Text),
    Column("loyalty_number", Text),
    Column("status", Text, nullable=False),  # confirmed | cancelled
    Column("price", Float, nullable=False),
    Column("currency", Text, nullable=False),
    Column("free_cancel_until", Text, nullable=False),
    Column("payment_method_id", Text, nullable=False),
    *stamps(),
    natural_key=("hotel_id", "check_in"),
    id_prefix="hbooking",
)

world_trains = table(
    "world_trains",
    WORLD,
    Column("train_id", Text, primary_key=True),
    Column("number", Text, nullable=False),
    Column("operator", Text, nullable=False),
    Column("mode", Text, nullable=False),  # train | bus
    Column("origin", Text, nullable=False),
    Column("destination", Text, nullable=False),  # cities
    Column("depart_at", Text, nullable=False),
    Column("arrive_at", Text, nullable=False),
    Column("seat_class", Text, nullable=False),  # second | first | business | sleeper (one row per class)
    Column("price", Float, nullable=False),
    Column("currency", Text, nullable=False),  # its country's: a ticket is priced where the train runs
    Column("seats_left", Integer, nullable=False),
    Column("realname", Integer, nullable=False),  # tickets carry each passenger's id number
)

train_bookings = table(
    "train_bookings",
    USER,
    Column("booking_id", Text, primary_key=True),
    Column("offer_id", Text),
    Column("train_id", Text, nullable=False),
    Column("number", Text, nullable=False),
    Column("mode", Text, nullable=False),
    Column("origin", Text, nullable=False),
    Column("destination", Text, nullable=False),
    Column("depart_at", Text, nullable=False),
    Column("seat_class", Text, nullable=False),
    Column("passengers_json", Text, nullable=False),
    Column("seats_json", Text, nullable=False),
    Column("seat_preference", Text, nullable=False),
    Column("status", Text, nullable=False),  # confirmed | cancelled
    Column("price", Float, nullable=False),
    Column("currency", Text, nullable=False),
    Column("payment_method_id", Text, nullable=False),
    *stamps(),
    natural_key=("number", "depart_at"),
    id_prefix="tbooking",
)

trips = table(
    "trips",
    USER,
    Column("trip_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("destination", Text, nullable=False),
    Column("start_date", Text, nullable=False),
    Column("end_date", Text, nullable=False),
    Column("travelers_json", Text, nullable=False),  # contact ids travelling with the user
    Column("notes", Text),
    *stamps(),
    natural_key=("name", "start_date"),
)

trip_items = table(
    "trip_items",
    USER,
    Column("item_id", Text, primary_key=True),
    Column("trip_id", Text, ForeignKey("trips.trip_id"), nullable=False),
    Column("item_type", Text, nullable=False),
    Column("title", Text, nullable=False),
    Column("start", Text, nullable=False),
    Column("end", Text),
    Column("ref_id", Text),
    Column("location", Text),
    *stamps(),
    natural_key=("trip_id", "title", "start"),
    id_prefix="tripitem",
)

wallet_passes = table(
    "wallet_passes",
    USER,
    Column("pass_id", Text, primary_key=True),
    Column("kind", Text, nullable=False),  # boarding_pass
    Column("ref_id", Text, nullable=False),
    Column("title", Text, nullable=False),
    Column("barcode", Text, nullable=False),
    *stamps(),
    natural_key=("kind", "ref_id"),
)

travel_documents = table(  # the user's identity documents; booking tools read them for {"self": true}
    "travel_documents",
    USER,
    Column("document_id", Text, primary_key=True),
    Column("kind", Text, nullable=False),  # passport | national_id
    Column("number", Text, nullable=False),
    Column("country", Text, nullable=False),
    Column("expires_on", Text),
    *stamps(),
    natural_key=("kind",),
    id_prefix="doc",
)

world_parking_charging = table(
    "world_parking_charging",
    WORLD,
    Column("place_id", Text, ForeignKey("world_places.place_id"), primary_key=True),
    Column("price", Float, nullable=False),
    Column("price_unit", Text, nullable=False),  # hour | litre | kWh
    Column("connectors_json", Text, nullable=False),  # EV connector types, [] elsewhere
    Column("total_spaces", Integer, nullable=False),
    Column("free_spaces", Integer, nullable=False),
)

# ---- The world's geography --------------------------------------------------------------------

AIRPORTS: dict[str, tuple[str, str]] = {  # IATA code -> (city, country)
    "PEK": ("Beijing", "CN"),
    "PVG": ("Shanghai", "CN"),
    "SFO": ("San Francisco", "US"),
    "LHR": ("London", "GB"),
    "HND": ("Tokyo", "JP"),
    "BER": ("Berlin", "DE"),
    "MAD": ("Madrid", "ES"),
    "ICN": ("Seoul", "KR"),
    "YYZ": ("Toronto", "CA"),
    "SYD": ("Sydney", "AU"),
    "BOM": ("Mumbai", "IN"),
}
CITY_AIRPORT = {city: code for code, (city, _) in AIRPORTS.items()} | {"Palo Alto": "SFO"}
COUNTRY = {city: AIRPORTS[code][1] for city, code in CITY_AIRPORT.items()}
AIRLINES: dict[str, tuple[tuple[str, str], ...]] = {
    "CN": (("CA", "Air China"), ("MU", "China Eastern")),
    "US": (("UA", "United Airlines"), ("DL", "Delta Air Lines")),
    "GB": (("BA", "British Airways"),),
    "JP": (("NH", "ANA"), ("JL", "Japan Airlines")),
    "DE": (("LH", "Lufthansa"),),
    "ES": (("IB", "Iberia"),),
    "KR": (("KE", "Korean Air"),),
    "CA": (("AC", "Air Canada"),),
    "AU": (("QF", "Qantas"),),
    "IN": (("AI", "Air India"),),
}
REALNAME_COUNTRIES = frozenset({"CN"})  # rail tickets there carry every passenger's id number
USD_RATE = {code: c.per_usd for code, c in CURRENCIES.items()}

DT_FMT = "%Y-%m-%dT%H:%M"
OFFER_MINUTES = 30  # how long a search's offers stay bookable
QUOTE_MINUTES = 5  # how long a ride quote stays bookable
FREE_CANCEL_HOURS = 24  # flights booked this recently cancel for free
