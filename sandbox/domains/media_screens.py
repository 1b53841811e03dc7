"""GUI-agent flows for D2 actions that have no API: the e-book app's reading-goal screen, the camera app's
settings screen and the cast app's Add device screen. Their effects are internal tools (callable only by a
sub-agent), kept out of ``entertainment`` so that package declares exactly the catalogue's tools;
``sandbox.domains`` registers this module right after it. It stays a module of its own because its seeder's
name keys the RNG stream its worlds are seeded from.
"""

from __future__ import annotations

import random
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import Column, Connection, Integer, Text, bindparam, insert, select, update

from sandbox.domains.entertainment.tools import _SET_DEVICE, _device
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx
from sandbox.personas import Persona, seeder
from sandbox.schema import USER, stamps, table
from sandbox.subagents import GuiFlow, gui_flow, labelled_value
from sandbox.tooling import INTERNAL, tool

reading_goals = table(
    "reading_goals",
    USER,
    Column("year", Integer, primary_key=True),
    Column("books", Integer, nullable=False),
    *stamps(),
    natural_key=("year",),
)

camera_settings = table(
    "camera_settings",
    USER,
    Column("option", Text, primary_key=True),  # grid | shutter_sound | location_tags | mirror_front | hdr
    Column("value", Text, nullable=False),  # on | off
    *stamps(),
    natural_key=("option",),
)

CAMERA_OPTIONS = {"grid": "off", "shutter_sound": "on", "location_tags": "on", "mirror_front": "off", "hdr": "auto"}
# the labels a person reads the switches by
CAMERA_ALIASES = {
    "grid_lines": "grid",
    "gridlines": "grid",
    "shutter": "shutter_sound",
    "camera_sound": "shutter_sound",
    "location": "location_tags",
    "location_tag": "location_tags",
    "geotag": "location_tags",
    "geotags": "location_tags",
    "geotagging": "location_tags",
    "save_location": "location_tags",
    "mirror": "mirror_front",
    "mirror_selfie": "mirror_front",
    "mirror_selfies": "mirror_front",
    "mirror_front_camera": "mirror_front",
    "front_mirror": "mirror_front",
    "mirror_front_selfies": "mirror_front",
    "front_camera_mirror": "mirror_front",
    "mirror_front_photos": "mirror_front",
    "selfie_mirror": "mirror_front",
    "hdr_mode": "hdr",
    "high_dynamic_range": "hdr",
}
# a switch's state however it is said: true, yes, enable, 1 are on
SWITCH_WORDS = {
    "true": "on",
    "enabled": "on",
    "enable": "on",
    "yes": "on",
    "1": "on",
    "false": "off",
    "disabled": "off",
    "disable": "off",
    "no": "off",
    "0": "off",
    "turn on": "on",
    "turn off": "off",
}


def switch_value(value: Any) -> str:
    """``value`` as on, off or auto, as a settings screen's switch shows it."""
    text = str(value).strip().lower()
    return SWITCH_WORDS.get(text, text)


@seeder
def seed_media_app_settings(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """The camera app's in-app settings (changed only on its settings screen)."""
    conn.execute(
        insert(camera_settings),
        [
            {"option": k, "value": v, "created_at": persona.now, "updated_at": persona.now}
            for k, v in CAMERA_OPTIONS.items()
        ],
    )


_READING_GOAL = select(reading_goals.c.books).where(reading_goals.c.year == bindparam("year"))
_ADD_READING_GOAL = insert(reading_goals)
_SET_READING_GOAL = update(reading_goals).where(reading_goals.c.year == bindparam("match_year"))


@tool(domain=INTERNAL, app="ebooks", mutating=True, errors=(ErrorType.INVALID_ARGUMENT_VALUE,))
def ebooks_set_reading_goal(
    ctx: Ctx, year: Annotated[int, Field(ge=2000, le=2100)], books: Annotated[int, Field(ge=1, le=500)]
) -> dict[str, Any]:
    """Set the yearly reading challenge on the e-book app's Goals screen (GUI-agent action).

    Args:
        year: The challenge year.
        books: How many books to read that year.
    """
    found = ctx.conn.execute(_READING_GOAL, {"year": year}).first()
    if found is None:
        ctx.conn.execute(
            _ADD_READING_GOAL, {"year": year, "books": books, "created_at": ctx.ts(), "updated_at": ctx.ts()}
        )
    else:
        ctx.conn.execute(_SET_READING_GOAL, {"match_year": year, "books": books, "updated_at": ctx.ts()})
    return {"year": year, "books": books}


def _reading_goal(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    try:
        books = int(inputs["books"])
        year = int(inputs.get("year") or ctx.now.year)
    except (TypeError, ValueError) as exc:
        raise ToolError(ErrorType.SUB_AGENT_FAILED, "books and year must be numbers", missing_inputs=["books"]) from exc
    result = ctx.call("ebooks_set_reading_goal", {"year": year, "books": books})
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"could not set the goal: {result['Payload']['message']}",
            reason=result["ErrorType"],
        )
    return {"year": year, "books": books, "goal": f"{books} books in {year}", "status": f"goal set: {books} books"}


gui_flow(
    GuiFlow("ebooks", "set_reading_goal", ("goal", "challenge"), ("books",), _reading_goal, optional_inputs=("year",))
)


_CAMERA_OPTION = select(camera_settings.c.value).where(camera_settings.c.option == bindparam("option"))
_SET_CAMERA_OPTION = update(camera_settings).where(camera_settings.c.option == bindparam("match_option"))


@tool(domain=INTERNAL, app="camera", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def camera_set_option(
    ctx: Ctx, option: Annotated[str, Field(min_length=1, max_length=40)], value: Literal["on", "off", "auto"]
) -> dict[str, Any]:
    """Flip a switch on the camera app's settings screen (GUI-agent action).

    Args:
        option: grid, shutter_sound, location_tags, mirror_front or hdr.
        value: on, off or auto (hdr only).
    """
    key = option.strip().lower().replace(" ", "_").replace("-", "_")
    key = CAMERA_ALIASES.get(key, key)
    current = ctx.conn.execute(_CAMERA_OPTION, {"option": key}).scalar()
    if current is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"the camera has no setting {option!r}", options=sorted(CAMERA_OPTIONS)
        )
    if current == value:
        raise ToolError(ErrorType.STATE_CONFLICT, f"{key} is already {value}")
    ctx.conn.execute(_SET_CAMERA_OPTION, {"match_option": key, "value": value, "updated_at": ctx.ts()})
    return {"option": key, "value": value, "previous": current}


def _camera_setting(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    result = ctx.call("camera_set_option", {"option": str(inputs["option"]), "value": switch_value(inputs["value"])})
    if result["Status"] != "success":
        payload = result["Payload"]
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"could not change the setting: {payload['message']}",
            reason=result["ErrorType"],
            **({"options": payload["options"]} if "options" in payload else {}),
        )
    return {**result["Payload"], "status": f"{result['Payload']['option']} {result['Payload']['value']}"}


gui_flow(
    GuiFlow(
        "camera",
        "change_camera_setting",
        ("setting", "grid", "shutter", "location tag", "geotag", "mirror", "hdr", "turn on", "turn off"),
        ("option", "value"),
        _camera_setting,
        adapt=labelled_value("option"),
    )
)


@tool(
    domain=INTERNAL,
    app="cast",
    mutating=True,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY, ErrorType.RESOURCE_UNAVAILABLE),
)
def cast_pair_device(ctx: Ctx, device_name: Annotated[str, Field(min_length=1, max_length=80)]) -> dict[str, Any]:
    """Pair a TV or speaker on the cast app's Add device screen (GUI-agent action); pairing also connects.

    Args:
        device_name: The device's name, or a distinctive part of it.
    """
    device = _device(ctx, device_name)
    if device["paired"]:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY, f"{device['name']} is already paired", existing_id=device["device_id"]
        )
    if not device["online"]:
        raise ToolError(ErrorType.RESOURCE_UNAVAILABLE, f"{device['name']} is offline or out of range")
    ctx.conn.execute(
        _SET_DEVICE, {"match_device_id": device["device_id"], "paired": 1, "connected": 1, "updated_at": ctx.ts()}
    )
    return {"device_id": device["device_id"], "name": device["name"], "paired": True, "connected": True}


def _pair_cast_device(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    result = ctx.call("cast_pair_device", {"device_name": str(inputs["device_name"])})
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED, f"pairing failed: {result['Payload']['message']}", reason=result["ErrorType"]
        )
    return {**result["Payload"], "status": "paired and connected"}


gui_flow(
    GuiFlow(
        "cast", "pair_cast_device", ("pair*", "set up", "add device", "connect*"), ("device_name",), _pair_cast_device
    )
)
