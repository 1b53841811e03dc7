"""The home domain's data model: its tables, and the constants and types its tools and seeder share."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import Field
from sqlalchemy import Column, Integer, Text

from sandbox.schema import USER, stamps, table

home_devices = table(
    "home_devices",
    USER,
    Column("device_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("room", Text, nullable=False),
    Column("type", Text, nullable=False),
    Column("online", Integer, nullable=False),
    Column("state_json", Text, nullable=False),  # the type's state, keys sorted
    *stamps(),
    natural_key=("name",),
    id_prefix="hdev",
)

home_scenes = table(
    "home_scenes",
    USER,
    Column("scene_name", Text, primary_key=True),
    Column("actions_json", Text, nullable=False),  # [{"device_id", "set": {state keys}}]
    *stamps(),
    natural_key=("scene_name",),
)

home_automations = table(
    "home_automations",
    USER,
    Column("automation_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("trigger_json", Text, nullable=False),
    Column("actions_json", Text, nullable=False),
    Column("days_json", Text, nullable=False),  # weekdays in week order; [] = every day
    Column("enabled", Integer, nullable=False),
    *stamps(),
    natural_key=("name",),
    id_prefix="automation",
)

access_codes = table(
    "access_codes",
    USER,
    Column("code_id", Text, primary_key=True),
    Column("device_id", Text, nullable=False),
    Column("label", Text, nullable=False),
    Column("code", Text, nullable=False),
    Column("valid_until", Text, nullable=False),  # YYYY-MM-DDTHH:MM
    *stamps(),
    natural_key=("device_id", "label"),
)

home_events = table(
    "home_events",
    USER,
    Column("event_id", Text, primary_key=True),
    Column("device_id", Text, nullable=False),
    Column("kind", Text, nullable=False),  # person, package, vehicle, animal, motion, doorbell, armed_*, disarmed, ...
    Column("ts", Text, nullable=False),
    Column("labels_json", Text, nullable=False),
    Column("image", Text),  # the camera still of a detection
    *stamps(),
    id_prefix="hevent",
)

vehicle_state = table(
    "vehicle_state",
    USER,
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),
    natural_key=("key",),
)

vehicle_events = table(
    "vehicle_events",
    USER,
    Column("event_id", Text, primary_key=True),
    Column("command", Text, nullable=False),
    Column("ts", Text, nullable=False),
    Column("result", Text, nullable=False),
    *stamps(),
    id_prefix="vevent",
)

HOME, CAR = "home", "car"
DT_FMT = "%Y-%m-%dT%H:%M"
CONFIRM_HINT = "ask_user(kind=confirm), then retry with confirm=true"
DeviceType = Literal[
    "light", "plug", "thermostat", "lock", "camera", "vacuum", "speaker", "tv", "sensor", "alarm_panel", "washer"
]
SWITCHABLE = ("light", "plug", "speaker", "tv", "washer", "camera")
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
WEEKDAYS: tuple[str, ...] = get_args(Weekday)
DeviceRef = Annotated[str, Field(min_length=1, max_length=80)]
Name = Annotated[str, Field(min_length=1, max_length=80)]
MIN_VACUUM_BATTERY = 15
MIN_EV_CLIMATE_BATTERY = 20
