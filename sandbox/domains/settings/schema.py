"""The settings domain's data model: its tables, and the constants and types its tools and seeder share."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import Field
from sqlalchemy import Column, Integer, Text

from sandbox.schema import USER, WORLD, stamps, table

APP = "settings"
LOW_POWER_BRIGHTNESS_CAP = 60

# Bluetooth devices in range and discoverable now. Paired devices are rows of entertainment's ``devices``
# (connection = bluetooth), where casting and playback find them; there ``online`` means in range.
world_nearby_devices = table(
    "world_nearby_devices",
    WORLD,
    Column("name", Text, primary_key=True),
    Column("kind", Text, nullable=False),  # headphones | speaker | car | watch | tv
    Column("companion_app", Text),  # set when pairing only works inside the vendor's app
)

focus_modes = table(
    "focus_modes",
    USER,
    Column("mode", Text, primary_key=True),
    Column("enabled", Integer, nullable=False),
    Column("schedule_json", Text),  # {"days": [...], "start": "HH:MM", "end": "HH:MM"}, or NULL
    Column("allowed_apps_json", Text, nullable=False),
    Column("allowed_contacts_json", Text, nullable=False),
    Column("auto_reply", Text),
    *stamps(),
    natural_key=("mode",),
)

Level = Annotated[int, Field(ge=0, le=100)]
Language = Literal["en-US", "zh-CN", "ja-JP", "es-ES", "fr-FR", "de-DE", "ko-KR", "pt-BR", "it-IT", "ru-RU"]

A11yOption = Literal[
    "screen_reader",
    "magnifier",
    "large_text",
    "bold_text",
    "color_inversion",
    "mono_audio",
    "captions",
    "reduce_motion",
]
A11Y_KEYS = tuple(f"a11y_{o}" for o in get_args(A11yOption))
FocusMode = Literal["work", "sleep", "driving", "personal", "fitness"]
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
WEEKDAYS: tuple[str, ...] = get_args(Weekday)
Days = Annotated[list[Weekday], Field(min_length=1, max_length=7)]
Ids = Annotated[list[Annotated[str, Field(min_length=1, max_length=64)]], Field(max_length=50)]
LARGE_TEXT_SCALE = "1.3"  # font scale large text switches to when no font_scale is given

BOOL_KEYS = frozenset(
    {
        "wifi",
        "mobile_data",
        "airplane_mode",
        "bluetooth",
        "location_service",
        "nfc",
        "low_power_mode",
        "charging",
        "dnd",
        "auto_brightness",
        "dark_mode",
        *A11Y_KEYS,
    }
)
