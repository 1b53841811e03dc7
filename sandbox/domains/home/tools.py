"""The home domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, func, insert, select, update

from sandbox.domains.common import world_places
from sandbox.domains.home.schema import (
    CAR,
    CONFIRM_HINT,
    DT_FMT,
    HOME,
    MIN_EV_CLIMATE_BATTERY,
    MIN_VACUUM_BATTERY,
    SWITCHABLE,
    WEEKDAYS,
    DeviceRef,
    DeviceType,
    Name,
    Weekday,
    access_codes,
    home_automations,
    home_devices,
    home_events,
    home_scenes,
    vehicle_events,
    vehicle_state,
)
from sandbox.domains.information.tools import require_location_permission
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, rows
from sandbox.tooling import DateTime, tool

# ---- device helpers ---------------------------------------------------------------------------


def _row(raw: dict[str, Any]) -> dict[str, Any]:
    return {**raw, "state": json.loads(raw["state_json"])}


def _public(dev: dict[str, Any]) -> dict[str, Any]:
    return {
        "device_id": dev["device_id"],
        "name": dev["name"],
        "room": dev["room"],
        "type": dev["type"],
        "online": bool(dev["online"]),
        "state": dev["state"],
    }


_DEVICE = select(home_devices).where(home_devices.c.device_id == bindparam("device_id"))


def _device(ctx: Ctx, device_id: str, *kinds: str) -> dict[str, Any]:
    """The device with this id, which must be of one of ``kinds`` (EntityNotFound otherwise)."""
    raw = ctx.conn.execute(_DEVICE, {"device_id": device_id}).first()
    if raw is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no home device {device_id!r}", field="device_id", hint="list_smart_devices"
        )
    dev = _row(dict(raw._mapping))
    if kinds and dev["type"] not in kinds:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"{device_id} ({dev['name']}) is a {dev['type']}, not a {' or '.join(kinds)}",
            field="device_id",
            hint="list_smart_devices",
        )
    return dev


_DEVICES = select(home_devices).order_by(home_devices.c.device_id)
_DEVICES_OF_TYPES = _DEVICES.where(home_devices.c.type.in_(bindparam("types", expanding=True)))


def _devices(ctx: Ctx, *kinds: str) -> list[dict[str, Any]]:
    found = ctx.conn.execute(_DEVICES_OF_TYPES, {"types": list(kinds)}) if kinds else ctx.conn.execute(_DEVICES)
    return [_row(r) for r in rows(found)]


def _online(dev: dict[str, Any]) -> None:
    if not dev["online"]:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"{dev['name']} ({dev['device_id']}) is offline",
            device_id=dev["device_id"],
            hint="check the device's power and Wi-Fi",
        )


_SET_DEVICE = update(home_devices).where(home_devices.c.device_id == bindparam("match_device_id"))


def _save(ctx: Ctx, dev: dict[str, Any], state: dict[str, Any]) -> None:
    ctx.conn.execute(
        _SET_DEVICE,
        {"match_device_id": dev["device_id"], "state_json": json.dumps(state, sort_keys=True), "updated_at": ctx.ts()},
    )


def _targets(ctx: Ctx, target: str, kind: str) -> list[dict[str, Any]]:
    """Devices of ``kind`` named by a device id, an exact room or device name, or part of one room name."""
    if target.startswith("hdev_"):
        return [_device(ctx, target, kind)]
    devices = _devices(ctx, kind)
    wanted = target.casefold().strip()
    for key in ("room", "name"):
        exact = [d for d in devices if d[key].casefold() == wanted]
        if exact:
            return exact
    rooms = sorted({d["room"] for d in devices if wanted in d["room"].casefold()})
    if len(rooms) > 1:
        raise ToolError(
            ErrorType.AMBIGUOUS_ENTITY,
            f"{target!r} matches {len(rooms)} rooms with a {kind}",
            candidates=rooms,
            field="target",
        )
    if not rooms:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no {kind} in a room or with a name like {target!r}",
            field="target",
            rooms=sorted({d["room"] for d in devices}),
            hint="list_smart_devices",
        )
    return [d for d in devices if d["room"] == rooms[0]]


def _one_target(ctx: Ctx, target: str, kind: str) -> dict[str, Any]:
    found = _targets(ctx, target, kind)
    if len(found) > 1:
        raise ToolError(
            ErrorType.AMBIGUOUS_ENTITY,
            f"{target!r} matches {len(found)} devices of type {kind}",
            candidates=[{"device_id": d["device_id"], "name": d["name"]} for d in found],
            field="target",
        )
    return found[0]


def _same(dev: dict[str, Any], changes: dict[str, Any]) -> bool:
    return all(dev["state"].get(k) == v for k, v in changes.items())


def _refuse_same(dev: dict[str, Any], changes: dict[str, Any]) -> None:
    if _same(dev, changes):
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"{dev['name']} is already in that state",
            device_id=dev["device_id"],
            current={k: dev["state"].get(k) for k in changes},
        )


def _need_confirm(confirm: bool, action: str) -> None:
    if not confirm:
        raise ToolError(ErrorType.CONFIRMATION_REQUIRED, f"{action} is a high-risk action", hint=CONFIRM_HINT)


def _stamp(ctx: Ctx, minutes: int = 0) -> str:
    return (ctx.now + dt.timedelta(minutes=minutes)).strftime(DT_FMT)


def _future(ctx: Ctx, value: str, field: str) -> None:
    if value <= _stamp(ctx):
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE, f"{field} {value} is not in the future", fields=[field], now=_stamp(ctx)
        )


# ---- Lights & Scenes (10.1) -------------------------------------------------------------------


def _light_args(args: dict[str, Any]) -> str | None:
    """Give at least one of on, brightness, color_temp_k, color; brightness and colour only for lights left on (not
    with on=false); color or color_temp_k, not both."""
    if not any(k in args for k in ("on", "brightness", "color_temp_k", "color")):
        return "give at least one of on, brightness, color_temp_k, color"
    if args.get("on") is False and any(k in args for k in ("brightness", "color_temp_k", "color")):
        return "brightness and colour can only be set on lights that are on"
    if "color" in args and "color_temp_k" in args:
        return "give color or color_temp_k, not both"
    return None


@tool(
    l2="10.1",
    app=HOME,
    mutating=True,
    network="internet",
    check=_light_args,
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.AMBIGUOUS_ENTITY,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.STATE_CONFLICT,
    ),
)
def set_light_state(
    ctx: Ctx,
    target: DeviceRef,
    on: bool | None = None,
    brightness: Annotated[int, Field(ge=0, le=100)] | None = None,
    color_temp_k: Annotated[int, Field(ge=2000, le=6500)] | None = None,
    color: Annotated[str, Field(pattern=r"^#[0-9A-Fa-f]{6}$")] | None = None,
) -> dict[str, Any]:
    """Switch, dim or colour smart lights: one light by id, or every light of a room; offline lights are skipped.

    Args:
        target: A light's device id (hdev_904), a room name ("Kitchen") or a light's name.
        on: True to switch on, false to switch off.
        brightness: Brightness 0-100 (switches the light on).
        color_temp_k: White colour temperature in kelvin, 2000 (warm) to 6500 (cool).
        color: Colour as #RRGGBB (replaces the colour temperature).
    """
    lights = _targets(ctx, target, "light")
    changes: dict[str, Any] = {"on": on if on is not None else True}
    if brightness is not None:
        changes["brightness"] = brightness
    if color_temp_k is not None:
        changes.update(color_temp_k=color_temp_k, color=None)
    if color is not None:
        changes["color"] = color.upper()
    reachable = [d for d in lights if d["online"]]
    if not reachable:
        _online(lights[0])
    todo = [d for d in reachable if not _same(d, changes)]
    if not todo:
        _refuse_same(reachable[0], changes)
    for d in todo:
        _save(ctx, d, {**d["state"], **changes})
    return {
        "updated": [{"device_id": d["device_id"], "name": d["name"], "state": {**d["state"], **changes}} for d in todo],
        "unchanged": [d["device_id"] for d in reachable if d not in todo],
        "skipped_offline": [d["device_id"] for d in lights if not d["online"]],
    }


_SCENE = select(home_scenes).where(func.lower(home_scenes.c.scene_name) == bindparam("scene_name"))
_SCENE_NAMES = select(home_scenes.c.scene_name)


@tool(
    l2="10.1",
    app=HOME,
    mutating=True,
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.RESOURCE_UNAVAILABLE),
)
def activate_scene(ctx: Ctx, scene_name: Name) -> dict[str, Any]:
    """Run a saved home scene; devices that are offline are listed as failed, the rest are applied.

    Args:
        scene_name: Name of the scene, e.g. "Good night" (case-insensitive).
    """
    scene = ctx.conn.execute(_SCENE, {"scene_name": scene_name.casefold()}).first()
    if scene is None:
        names = sorted(ctx.conn.execute(_SCENE_NAMES).scalars())
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no scene named {scene_name!r}", field="scene_name", scenes=names)
    steps = [(_device(ctx, a["device_id"]), a["set"]) for a in json.loads(scene.actions_json)]
    if not any(d["online"] for d, _ in steps):
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"every device of {scene.scene_name!r} is offline",
            failed=[d["device_id"] for d, _ in steps],
        )
    applied, unchanged = [], []
    for dev, changes in steps:
        if dev["online"] and not _same(dev, changes):
            _save(ctx, dev, {**dev["state"], **changes})
            applied.append({"device_id": dev["device_id"], "name": dev["name"], "set": changes})
        elif dev["online"]:
            unchanged.append(dev["device_id"])
    failed = [
        {"device_id": d["device_id"], "name": d["name"], "reason": "offline"} for d, _ in steps if not d["online"]
    ]
    return {"scene_name": scene.scene_name, "applied": applied, "unchanged": unchanged, "failed": failed}


# ---- Climate Control (10.2) -------------------------------------------------------------------


@tool(
    l2="10.2",
    app=HOME,
    mutating=True,
    network="internet",
    errors=(
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.AMBIGUOUS_ENTITY,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.STATE_CONFLICT,
    ),
)
def set_thermostat(
    ctx: Ctx,
    target: DeviceRef,
    target_c: Annotated[float, Field(ge=10, le=32)] | None = None,
    mode: Literal["heat", "cool", "auto", "off", "eco"] | None = None,
    fan: Literal["auto", "on"] | None = None,
    hold_until: DateTime | None = None,
) -> dict[str, Any]:
    """Set a thermostat or air conditioner's target temperature, and optionally its mode, fan and hold time.

    Args:
        target: The thermostat's device id (hdev_911) or its room name.
        target_c: Target temperature in degrees Celsius (rounded to 0.5; unchanged when omitted, as for mode off).
        mode: heat, cool, auto, off or eco (unchanged when omitted); give target_c, mode or both.
        fan: Fan auto or always on (unchanged when omitted).
        hold_until: Keep this setting until YYYY-MM-DDTHH:MM, then resume the schedule.
    """
    if hold_until:
        _future(ctx, hold_until, "hold_until")
    dev = _one_target(ctx, target, "thermostat")
    _online(dev)
    if target_c is None and not mode:
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, "give target_c, mode or both", fields=["target_c", "mode"])
    changes: dict[str, Any] = {"hold_until": hold_until}
    if target_c is not None:
        changes["target_c"] = round(target_c * 2) / 2
    if mode:
        changes["mode"] = mode
    if fan:
        changes["fan"] = fan
    _refuse_same(dev, changes)
    _save(ctx, dev, {**dev["state"], **changes})
    return {"device_id": dev["device_id"], "name": dev["name"], "state": {**dev["state"], **changes}}


# ---- Home Security & Locks (10.3) -------------------------------------------------------------


def _code_needs_label(args: dict[str, Any]) -> str | None:
    """code_valid_until needs guest_code_label."""
    return (
        "code_valid_until needs guest_code_label"
        if "code_valid_until" in args and "guest_code_label" not in args
        else None
    )


def _guest_code(device_id: str, label: str, code_id: str) -> str:
    """A six-digit code derived from the request, so replays issue the same code."""
    return f"{int(hashlib.sha256(f'{device_id}|{label}|{code_id}'.encode()).hexdigest(), 16) % 10**6:06d}"


_ADD_ACCESS_CODE = insert(access_codes)


@tool(
    l2="10.3",
    app=HOME,
    mutating=True,
    network="internet",
    check=_code_needs_label,
    errors=(
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.STATE_CONFLICT,
        ErrorType.CONFIRMATION_REQUIRED,
    ),
)
def set_lock_state(
    ctx: Ctx,
    device_id: DeviceRef,
    locked: bool,
    confirm: bool = False,
    guest_code_label: Name | None = None,
    code_valid_until: DateTime | None = None,
) -> dict[str, Any]:
    """Lock or unlock a smart door lock, optionally issuing a guest access code; unlocking and codes need confirm.

    Args:
        device_id: The lock's device id, e.g. hdev_913.
        locked: True to lock, false to unlock.
        confirm: Set true only after the user confirmed unlocking or issuing a guest code.
        guest_code_label: Also issue a temporary keypad code for this guest, e.g. "Cleaner".
        code_valid_until: When the guest code expires, YYYY-MM-DDTHH:MM (default 24 hours from now).
    """
    if code_valid_until:
        _future(ctx, code_valid_until, "code_valid_until")
    dev = _device(ctx, device_id, "lock")
    _online(dev)
    if guest_code_label is None:
        _refuse_same(dev, {"locked": locked})
    if not locked or guest_code_label:
        _need_confirm(confirm, f"{'unlocking' if not locked else 'issuing a guest code for'} {dev['name']}")
    if dev["state"]["locked"] != locked:
        _save(ctx, dev, {**dev["state"], "locked": locked})
    out: dict[str, Any] = {"device_id": device_id, "name": dev["name"], "locked": locked}
    if guest_code_label:
        code_id = ctx.new_id(access_codes)
        code = _guest_code(device_id, guest_code_label, code_id)
        until = code_valid_until or _stamp(ctx, 24 * 60)
        ctx.conn.execute(
            _ADD_ACCESS_CODE,
            {
                "code_id": code_id,
                "device_id": device_id,
                "label": guest_code_label,
                "code": code,
                "valid_until": until,
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            },
        )
        out["guest_code"] = {"code_id": code_id, "label": guest_code_label, "code": code, "valid_until": until}
    return out


def _panel(ctx: Ctx) -> dict[str, Any]:
    panels = _devices(ctx, "alarm_panel")
    if not panels:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, "this home has no alarm panel")
    return panels[0]


_ADD_HOME_EVENT = insert(home_events)


@tool(
    l2="10.3",
    app=HOME,
    mutating=True,
    network="internet",
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.STATE_CONFLICT,
        ErrorType.CONFIRMATION_REQUIRED,
    ),
)
def arm_security_system(
    ctx: Ctx,
    mode: Literal["away", "home", "night", "disarm"],
    bypass_open_sensors: bool = False,
    confirm: bool = False,
) -> dict[str, Any]:
    """Arm the home alarm (away, home or night) or disarm it; open doors/windows block arming unless bypassed.

    Args:
        mode: away (everyone out), home (perimeter only), night, or disarm.
        bypass_open_sensors: Arm anyway and ignore the door/window sensors that are open.
        confirm: Set true only after the user confirmed disarming.
    """
    panel = _panel(ctx)
    _online(panel)
    armed = "disarmed" if mode == "disarm" else mode
    _refuse_same(panel, {"armed_mode": armed})
    open_sensors = [
        {"device_id": d["device_id"], "name": d["name"]}
        for d in _devices(ctx, "sensor")
        if d["online"] and d["state"].get("open")
    ]
    if mode != "disarm" and open_sensors and not bypass_open_sensors:
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"{len(open_sensors)} door/window sensor(s) are open",
            open_sensors=open_sensors,
            hint="close them, or retry with bypass_open_sensors=true",
        )
    if mode == "disarm":
        _need_confirm(confirm, "disarming the alarm")
    bypassed = [s["device_id"] for s in open_sensors] if mode != "disarm" else []
    _save(ctx, panel, {**panel["state"], "armed_mode": armed, "bypassed": bypassed})
    event_id = ctx.new_id(home_events)
    ctx.conn.execute(
        _ADD_HOME_EVENT,
        {
            "event_id": event_id,
            "device_id": panel["device_id"],
            "kind": "disarmed" if mode == "disarm" else f"armed_{mode}",
            "ts": ctx.ts(),
            "labels_json": json.dumps(bypassed),
            "image": None,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {
        "armed_mode": armed,
        "previous": panel["state"]["armed_mode"],
        "bypassed_sensors": bypassed,
        "event_id": event_id,
    }


_DETECTIONS = (
    select(home_events)
    .where(
        home_events.c.device_id == bindparam("device_id"),
        home_events.c.ts >= bindparam("since"),
        home_events.c.ts <= bindparam("until"),
    )
    .order_by(home_events.c.ts.desc(), home_events.c.event_id)
    .limit(20)
)


@tool(
    l2="10.3",
    app=HOME,
    mutating=False,
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.RESOURCE_UNAVAILABLE),
)
def get_camera_snapshot(ctx: Ctx, camera_id: DeviceRef, since: DateTime | None = None) -> dict[str, Any]:
    """Show a camera's live snapshot and its detections (people, packages, vehicles...), newest first.

    Args:
        camera_id: The camera's device id, e.g. hdev_916.
        since: Only detections from this time on, YYYY-MM-DDTHH:MM (default the last 24 hours).
    """
    cam = _device(ctx, camera_id, "camera")
    _online(cam)
    if not cam["state"].get("on", True):
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"{cam['name']} is switched off",
            device_id=camera_id,
            hint="set_device_power(on=true)",
        )
    start = since or _stamp(ctx, -24 * 60)
    found = rows(ctx.conn.execute(_DETECTIONS, {"device_id": camera_id, "since": start, "until": ctx.ts()}))
    minute = _stamp(ctx)
    return {
        "camera_id": camera_id,
        "name": cam["name"],
        "room": cam["room"],
        "snapshot": {"captured_at": minute, "image": f"{camera_id}_{minute.replace('-', '').replace(':', '')}.jpg"},
        "detections": [
            {
                "event_id": r["event_id"],
                "kind": r["kind"],
                "ts": r["ts"],
                "labels": json.loads(r["labels_json"]),
                "image": r["image"],
            }
            for r in found
        ],
        "since": start,
    }


# ---- Appliances & Plugs (10.4) ----------------------------------------------------------------


@tool(l2="10.4", app=HOME, mutating=False, network="internet")
def list_smart_devices(ctx: Ctx, room: Name | None = None, type: DeviceType | None = None) -> dict[str, Any]:
    """List the home's smart devices with their online status and current state.

    Args:
        room: Only devices in rooms whose name contains this (case-insensitive).
        type: Only devices of this type.
    """
    found = _devices(ctx, *([type] if type else []))
    if room:
        found = [d for d in found if room.casefold().strip() in d["room"].casefold()]
    return {
        "devices": [_public(d) for d in found],
        "count": len(found),
        "rooms": sorted({d["room"] for d in _devices(ctx)}),
    }


@tool(
    l2="10.4",
    app=HOME,
    mutating=True,
    network="internet",
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.UNSUPPORTED_OPERATION,
        ErrorType.STATE_CONFLICT,
    ),
)
def set_device_power(ctx: Ctx, device_id: DeviceRef, on: bool) -> dict[str, Any]:
    """Switch a plug, light, speaker, TV, washer or camera on or off.

    Args:
        device_id: The device id, e.g. hdev_919.
        on: True to switch on, false to switch off.
    """
    dev = _device(ctx, device_id)
    _online(dev)
    if dev["type"] not in SWITCHABLE:
        tools = {
            "thermostat": "set_thermostat",
            "lock": "set_lock_state",
            "alarm_panel": "arm_security_system",
            "vacuum": "start_robot_vacuum",
        }
        raise ToolError(
            ErrorType.UNSUPPORTED_OPERATION,
            f"a {dev['type']} cannot be switched on or off",
            device_id=device_id,
            **({"hint": tools[dev["type"]]} if dev["type"] in tools else {}),
        )
    _refuse_same(dev, {"on": on})
    _save(ctx, dev, {**dev["state"], "on": on})
    return {"device_id": device_id, "name": dev["name"], "on": on}


def _rooms_only_on_start(args: dict[str, Any]) -> str | None:
    """rooms only with action=start."""
    return "rooms can only be given with action=start" if args.get("rooms") and args["action"] != "start" else None


@tool(
    l2="10.4",
    app=HOME,
    mutating=True,
    network="internet",
    check=_rooms_only_on_start,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.RESOURCE_UNAVAILABLE, ErrorType.STATE_CONFLICT),
)
def start_robot_vacuum(
    ctx: Ctx,
    device_id: DeviceRef,
    action: Literal["start", "pause", "dock"],
    rooms: Annotated[list[Name], Field(min_length=1, max_length=12)] | None = None,
    mode: Literal["vacuum", "mop", "both"] = "vacuum",
    suction: Literal["quiet", "standard", "max"] = "standard",
) -> dict[str, Any]:
    """Start, pause or dock a robot vacuum; it will not start with a full bin or a battery under 15%.

    Args:
        device_id: The vacuum's device id.
        action: start cleaning, pause, or dock (return to base).
        rooms: Rooms to clean, e.g. ["Kitchen", "Living room"] (default the whole home; start only).
        mode: Vacuum, mop or both (start only).
        suction: Suction power (start only).
    """
    dev = _device(ctx, device_id, "vacuum")
    known = {d["room"].casefold(): d["room"] for d in _devices(ctx)}
    missing = [r for r in rooms or [] if r.casefold().strip() not in known]
    if missing:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no room(s) {', '.join(missing)}", field="rooms", rooms=sorted(known.values())
        )
    _online(dev)
    state, status = dev["state"], dev["state"]["status"]
    if action == "start":
        if status == "cleaning":
            raise ToolError(ErrorType.STATE_CONFLICT, f"{dev['name']} is already cleaning", current=status)
        if state["bin_full"]:
            raise ToolError(ErrorType.STATE_CONFLICT, f"{dev['name']}'s dust bin is full", hint="empty the bin")
        if state["battery_pct"] < MIN_VACUUM_BATTERY:
            raise ToolError(
                ErrorType.STATE_CONFLICT,
                f"{dev['name']}'s battery is at {state['battery_pct']}%",
                battery_pct=state["battery_pct"],
                hint="let it charge on the dock",
            )
        plan = sorted({known[r.casefold().strip()] for r in rooms or []})
        new = {**state, "status": "cleaning", "mode": mode, "suction": suction, "rooms": plan}
    else:
        target = {"pause": "paused", "dock": "docked"}[action]
        if status == target or (action == "pause" and status != "cleaning"):
            raise ToolError(ErrorType.STATE_CONFLICT, f"{dev['name']} is {status}", current=status)
        new = {**state, "status": target, **({"rooms": []} if action == "dock" else {})}
    _save(ctx, dev, new)
    return {
        "device_id": device_id,
        "name": dev["name"],
        "status": new["status"],
        "previous": status,
        "rooms": new["rooms"] or "whole home",
        "mode": new["mode"],
        "suction": new["suction"],
    }


# ---- Home Automations & Routines (10.5) -------------------------------------------------------


class Trigger(BaseModel):
    """What starts an automation."""

    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["time", "sunrise", "sunset", "arrive_home", "leave_home", "sensor"] = Field(
        description="time (value HH:MM), sunrise/sunset (value = offset in minutes, optional), "
        "arrive_home/leave_home (no value), sensor (value = the sensor or camera device id)"
    )
    value: str | int | None = Field(None, description="See type.")


COMMANDS: dict[str, tuple[str, ...]] = {  # command -> the device types it applies to
    "turn_on": SWITCHABLE,
    "turn_off": SWITCHABLE,
    "set_brightness": ("light",),
    "set_temperature": ("thermostat",),
    "lock": ("lock",),
    "arm_away": ("alarm_panel",),
    "arm_home": ("alarm_panel",),
    "arm_night": ("alarm_panel",),
    "start_vacuum": ("vacuum",),
    "dock_vacuum": ("vacuum",),
    "activate_scene": (),
}
Command = Literal[
    "turn_on",
    "turn_off",
    "set_brightness",
    "set_temperature",
    "lock",
    "arm_away",
    "arm_home",
    "arm_night",
    "start_vacuum",
    "dock_vacuum",
    "activate_scene",
]


class Action(BaseModel):
    """One thing an automation does."""

    model_config = ConfigDict(extra="forbid", strict=True)
    target: DeviceRef = Field(description="A device id (hdev_909), or a scene name for activate_scene.")
    command: Command = Field(description="What to do with the target.")
    value: int | float | None = Field(
        None, description="Brightness 0-100 for set_brightness; degrees C (10-32) for set_temperature."
    )


def _automation_args(args: dict[str, Any]) -> str | None:
    """A time trigger's value is HH:MM; a sunrise or sunset offset is whole minutes in [-180, 180]; arrive_home and
    leave_home triggers take no value; a sensor trigger's value is the sensor's device id. Action set_brightness
    takes a whole number in [0, 100], set_temperature a value in [10, 32], any other command no value."""
    trigger: Trigger = args["trigger"]
    kind, value = trigger.type, trigger.value
    if kind == "time" and not (isinstance(value, str) and _is_time(value)):
        return "a time trigger needs value HH:MM"
    if kind in ("sunrise", "sunset") and value is not None and not (isinstance(value, int) and -180 <= value <= 180):
        return "a sunrise/sunset offset is an integer number of minutes in [-180, 180]"
    if kind in ("arrive_home", "leave_home") and value is not None:
        return f"a {kind} trigger takes no value"
    if kind == "sensor" and not isinstance(value, str):
        return "a sensor trigger needs value = the sensor's device id"
    for i, action in enumerate(args["actions"]):
        bounds = {"set_brightness": (0, 100), "set_temperature": (10, 32)}.get(action.command)
        if action.command == "set_brightness" and not isinstance(action.value, int):
            return f"actions[{i}]: set_brightness needs a whole-number value in [0, 100]"
        if bounds and (action.value is None or not bounds[0] <= action.value <= bounds[1]):
            return f"actions[{i}]: {action.command} needs a value in [{bounds[0]}, {bounds[1]}]"
        if not bounds and action.value is not None:
            return f"actions[{i}]: {action.command} takes no value"
    return None


def _is_time(value: str) -> bool:
    try:
        dt.datetime.strptime(value, "%H:%M")
    except ValueError:
        return False
    return len(value) == 5


_AUTOMATION_NAMED = select(home_automations.c.automation_id).where(
    func.lower(home_automations.c.name) == bindparam("name")
)
_ADD_AUTOMATION = insert(home_automations)


@tool(
    l2="10.5",
    app=HOME,
    mutating=True,
    network="internet",
    check=_automation_args,
    errors=(
        ErrorType.PERMISSION_DENIED,
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.DUPLICATE_ENTITY,
    ),
)
def create_home_automation(
    ctx: Ctx,
    name: Name,
    trigger: Trigger,
    actions: Annotated[list[Action], Field(min_length=1, max_length=10)],
    enabled: bool = True,
    days: Annotated[list[Weekday], Field(max_length=7)] | None = None,
) -> dict[str, Any]:
    """Create a home automation: when the trigger fires (on the given weekdays), run the actions.

    Arrive/leave-home triggers need the home app's LOCATION permission.

    Args:
        name: Unique name of the automation.
        trigger: What starts it, e.g. {"type": "time", "value": "06:50"} or {"type": "sunset"}.
        actions: What it does, e.g. [{"target": "hdev_919", "command": "turn_on"}].
        enabled: Whether it is active right away.
        days: Weekdays it runs on, e.g. ["mon", "fri"] (default every day).
    """
    trig = trigger.model_dump(exclude_none=True)
    if trigger.type in ("arrive_home", "leave_home"):
        require_location_permission(ctx, HOME)
    if trigger.type == "sensor":
        _device(ctx, str(trigger.value), "sensor", "camera")
    scenes = {s.casefold(): s for s in ctx.conn.execute(_SCENE_NAMES).scalars()}
    plan = []
    for action in actions:
        step = action.model_dump(exclude_none=True)
        if action.command == "activate_scene":
            if action.target.casefold() not in scenes:
                raise ToolError(
                    ErrorType.ENTITY_NOT_FOUND,
                    f"no scene named {action.target!r}",
                    field="actions",
                    scenes=sorted(scenes.values()),
                )
            step["target"] = scenes[action.target.casefold()]
        else:
            dev = _device(ctx, action.target)
            if dev["type"] not in COMMANDS[action.command]:
                raise ToolError(
                    ErrorType.INVALID_ARGUMENT_VALUE,
                    f"{action.command} does not apply to {dev['name']} (a {dev['type']})",
                    fields=["actions"],
                )
        plan.append(step)
    existing = ctx.conn.execute(_AUTOMATION_NAMED, {"name": name.casefold()}).scalar()
    if existing:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY, f"an automation named {name!r} exists: {existing}", existing_id=existing
        )
    aid = ctx.new_id(home_automations)
    week = [d for d in WEEKDAYS if d in (days or [])]
    ctx.conn.execute(
        _ADD_AUTOMATION,
        {
            "automation_id": aid,
            "name": name,
            "trigger_json": json.dumps(trig, sort_keys=True),
            "actions_json": json.dumps(plan, sort_keys=True),
            "days_json": json.dumps(week),
            "enabled": int(enabled),
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {
        "automation_id": aid,
        "name": name,
        "trigger": trig,
        "actions": plan,
        "days": week or "every day",
        "enabled": enabled,
    }


# ---- Vehicle Remote Control (10.6) ------------------------------------------------------------

NUMERIC_CAR_KEYS = {"battery_pct", "fuel_pct", "range_km", "cabin_temp_c", "odometer_km", "climate_target_c"}
BOOL_CAR_KEYS = {"online", "locked", "engine_on", "windows_closed", "trunk_open", "charging", "climate_on", "defrost"}


def _car_value(key: str, raw: str) -> Any:
    if key in BOOL_CAR_KEYS:
        return raw == "1"
    if key in NUMERIC_CAR_KEYS:
        return float(raw) if "." in raw else int(raw)
    if key.endswith("_json"):
        return json.loads(raw)
    return raw or None


_VEHICLE_STATE = select(vehicle_state.c.key, vehicle_state.c.value)


def _car(ctx: Ctx) -> dict[str, Any]:
    """The car's state, typed; ResourceUnavailable when it is not connected."""
    car = {k: _car_value(k, v) for k, v in ctx.conn.execute(_VEHICLE_STATE)}
    if not car.get("online"):
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            "the car is not connected (no signal)",
            last_seen=car.get("last_seen"),
            hint="try again later",
        )
    return car


_SET_VEHICLE_STATE = update(vehicle_state).where(vehicle_state.c.key == bindparam("match_key"))
_ADD_VEHICLE_EVENT = insert(vehicle_events)


def _set_car(ctx: Ctx, command: str, changes: dict[str, str]) -> str:
    """Write the keys whose value changes and journal the command; returns the event id."""
    current = dict(ctx.conn.execute(_VEHICLE_STATE).all())
    for key, value in changes.items():
        if current.get(key) != value:
            ctx.conn.execute(_SET_VEHICLE_STATE, {"match_key": key, "value": value})
    event_id = ctx.new_id(vehicle_events)
    ctx.conn.execute(
        _ADD_VEHICLE_EVENT,
        {
            "event_id": event_id,
            "command": command,
            "ts": ctx.ts(),
            "result": "ok",
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return event_id


CAR_COMMANDS = {  # command -> (key, value it sets); honk_flash changes nothing
    "lock": ("locked", "1"),
    "unlock": ("locked", "0"),
    "start_engine": ("engine_on", "1"),
    "stop_engine": ("engine_on", "0"),
    "open_trunk": ("trunk_open", "1"),
    "close_windows": ("windows_closed", "1"),
}
RISKY_CAR_COMMANDS = ("unlock", "start_engine", "open_trunk")


@tool(
    l2="10.6",
    app=CAR,
    mutating=True,
    network="internet",
    errors=(ErrorType.RESOURCE_UNAVAILABLE, ErrorType.STATE_CONFLICT, ErrorType.CONFIRMATION_REQUIRED),
)
def vehicle_remote_command(
    ctx: Ctx,
    command: Literal["lock", "unlock", "start_engine", "stop_engine", "honk_flash", "open_trunk", "close_windows"],
    confirm: bool = False,
) -> dict[str, Any]:
    """Send a remote command to the connected car; unlock, start_engine and open_trunk need confirm.

    Args:
        command: lock, unlock, start_engine, stop_engine, honk_flash, open_trunk or close_windows.
        confirm: Set true only after the user confirmed unlocking, starting the engine or opening the trunk.
    """
    car = _car(ctx)
    key, value = CAR_COMMANDS.get(command, ("", ""))
    if key and car[key] == (value == "1"):
        raise ToolError(
            ErrorType.STATE_CONFLICT, f"the car is already in that state ({key}={car[key]})", current={key: car[key]}
        )
    if command in RISKY_CAR_COMMANDS:
        _need_confirm(confirm, command.replace("_", " "))
    event_id = _set_car(ctx, command, {key: value} if key else {})
    return {"command": command, "result": "ok", "event_id": event_id, **({key: value == "1"} if key else {})}


@tool(
    l2="10.6",
    app=CAR,
    mutating=True,
    network="internet",
    errors=(ErrorType.RESOURCE_UNAVAILABLE, ErrorType.LIMIT_EXCEEDED),
)
def set_vehicle_climate(
    ctx: Ctx,
    target_c: Annotated[float, Field(ge=16, le=30)],
    defrost: bool | None = None,
    seat_heat: Literal["off", "low", "high"] | None = None,
    duration_min: Annotated[int, Field(ge=5, le=30)] = 15,
) -> dict[str, Any]:
    """Pre-condition the car's cabin (heat or cool to a temperature) for a while; an EV needs 20% battery.

    Args:
        target_c: Cabin temperature in degrees Celsius (rounded to 0.5).
        defrost: Also defrost the windscreen (unchanged when omitted).
        seat_heat: Seat heating level (unchanged when omitted).
        duration_min: How long to run, in minutes.
    """
    car = _car(ctx)
    if car["powertrain"] == "ev" and car["battery_pct"] < MIN_EV_CLIMATE_BATTERY:
        raise ToolError(
            ErrorType.LIMIT_EXCEEDED,
            f"battery at {car['battery_pct']}%: climate needs {MIN_EV_CLIMATE_BATTERY}%",
            battery_pct=car["battery_pct"],
            hint="charge the car first",
        )
    changes = {
        "climate_on": "1",
        "climate_target_c": f"{round(target_c * 2) / 2:.1f}",
        "climate_until": _stamp(ctx, duration_min),
    }
    if defrost is not None:
        changes["defrost"] = "1" if defrost else "0"
    if seat_heat is not None:
        changes["seat_heat"] = seat_heat
    event_id = _set_car(ctx, "climate_on", changes)
    return {
        "climate_on": True,
        "target_c": float(changes["climate_target_c"]),
        "until": changes["climate_until"],
        "defrost": changes.get("defrost", "1" if car["defrost"] else "0") == "1",
        "seat_heat": changes.get("seat_heat", car["seat_heat"]),
        "event_id": event_id,
    }


TYRE_RECOMMENDED_BAR = 2.4  # the door placard's cold pressure
TYRE_LOW_MARGIN_BAR = 0.2  # a tyre this far under it is reported low (the dashboard warning)

CAR_GROUPS = {
    "vehicle": ("model", "powertrain", "odometer_km"),
    "energy": ("battery_pct", "charging", "fuel_pct", "range_km"),
    "security": ("locked", "engine_on", "windows_closed", "trunk_open"),
    "climate": ("cabin_temp_c", "climate_on", "climate_target_c", "climate_until", "defrost", "seat_heat"),
    "tyres": ("tire_pressure_json",),
}


# The car's saved place can be missing (None): IS matches what ``== None`` did.
_CAR_PLACE = select(world_places.c.place_id, world_places.c.name, world_places.c.address, world_places.c.city).where(
    world_places.c.place_id.is_not_distinct_from(bindparam("place_id"))
)


@tool(l2="10.6", app=CAR, mutating=False, network="internet", errors=(ErrorType.RESOURCE_UNAVAILABLE,))
def get_vehicle_status(ctx: Ctx) -> dict[str, Any]:
    """Show the car's charge or fuel, range, locks, windows, climate, tyre pressures, location and odometer."""
    car = _car(ctx)
    out: dict[str, Any] = {
        g: {k.removesuffix("_json"): car[k] for k in keys if k in car} for g, keys in CAR_GROUPS.items()
    }
    spot = ctx.conn.execute(_CAR_PLACE, {"place_id": car["location_place_id"]}).first()
    out["location"] = dict(spot._mapping) if spot else {"place_id": car["location_place_id"]}
    out["last_seen"] = car["last_seen"]
    # The dashboard's placard value and its warning, so "is a tyre low?" is decidable from the read.
    pressures = out["tyres"].get("tire_pressure") or {}
    out["tyres"]["recommended_bar"] = TYRE_RECOMMENDED_BAR
    out["tyres"]["low"] = sorted(w for w, bar in pressures.items() if bar < TYRE_RECOMMENDED_BAR - TYRE_LOW_MARGIN_BAR)
    return out
