"""The settings domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import Select, bindparam, func, insert, select, update

from sandbox.domains.communication.schema import contacts
from sandbox.domains.entertainment.schema import devices
from sandbox.domains.settings.schema import (
    A11Y_KEYS,
    APP,
    BOOL_KEYS,
    LARGE_TEXT_SCALE,
    LOW_POWER_BRIGHTNESS_CAP,
    WEEKDAYS,
    A11yOption,
    Days,
    FocusMode,
    Ids,
    Language,
    Level,
    focus_modes,
    world_nearby_devices,
)
from sandbox.errors import ErrorType, ToolError, gui_agent_hint
from sandbox.executor import Ctx, rows
from sandbox.schema import apps, device_settings
from sandbox.tooling import DateTime, Time, tool


def _flag(enabled: bool) -> str:
    return "1" if enabled else "0"


def _typed(key: str, raw: str) -> Any:
    """A stored string as the planner should read it: switches as booleans, numbers as numbers."""
    if key in BOOL_KEYS:
        return raw == "1"
    if key in ("storage_free_gb", "font_scale"):
        return float(raw)
    if raw.isdigit():
        return int(raw)
    return raw or None


_SETTINGS_NAMED = select(device_settings.c.key, device_settings.c.value).where(
    device_settings.c.key.in_(bindparam("keys", expanding=True))
)


def _read(ctx: Ctx, keys: list[str]) -> dict[str, str]:
    return dict(ctx.conn.execute(_SETTINGS_NAMED, {"keys": keys}).all())


_SET_SETTING = update(device_settings).where(device_settings.c.key == bindparam("match_key"))


def _apply(ctx: Ctx, target: dict[str, str], effects: dict[str, str] | None = None) -> dict[str, Any]:
    """Write ``target`` and its side ``effects``; refuse when ``target`` already holds.

    Only keys whose value actually changes are written, so the state diff shows real changes only.
    """
    wanted = {**(effects or {}), **target}
    current = _read(ctx, list(wanted))
    if all(current.get(k) == v for k, v in target.items()):
        now = {k: _typed(k, current[k]) for k in target}
        raise ToolError(
            ErrorType.STATE_CONFLICT, "already set: " + ", ".join(f"{k}={v}" for k, v in now.items()), current=now
        )
    changed = {k: v for k, v in wanted.items() if current.get(k) != v}
    for key, value in changed.items():
        ctx.conn.execute(_SET_SETTING, {"match_key": key, "value": value})
    return {
        "updated": {k: _typed(k, v) for k, v in changed.items()},
        "previous": {k: _typed(k, current[k]) for k in changed},
    }


# ---- Connectivity & Location Services (11.1) --------------------------------------------------


@tool(l2="11.1", app=APP, mutating=True, errors=(ErrorType.STATE_CONFLICT,))
def set_wifi(ctx: Ctx, enabled: bool) -> dict[str, Any]:
    """Turn Wi-Fi on or off.

    Args:
        enabled: True to turn Wi-Fi on, false to turn it off.
    """
    return _apply(ctx, {"wifi": _flag(enabled)})


@tool(l2="11.1", app=APP, mutating=True, errors=(ErrorType.STATE_CONFLICT,))
def set_mobile_data(ctx: Ctx, enabled: bool) -> dict[str, Any]:
    """Turn cellular (mobile) data on or off; it cannot be turned on while airplane mode is on.

    Args:
        enabled: True to turn mobile data on, false to turn it off.
    """
    if enabled and ctx.setting("airplane_mode") == "1":
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            "mobile data cannot be turned on in airplane mode",
            current={"airplane_mode": True},
            hint="set_airplane_mode(enabled=false) first",
        )
    return _apply(ctx, {"mobile_data": _flag(enabled)})


@tool(l2="11.1", app=APP, mutating=True, errors=(ErrorType.STATE_CONFLICT,))
def set_airplane_mode(ctx: Ctx, enabled: bool) -> dict[str, Any]:
    """Turn airplane mode on or off; turning it on also turns off Wi-Fi, mobile data and Bluetooth.

    Turning airplane mode off does not turn those back on.

    Args:
        enabled: True to turn airplane mode on, false to turn it off.
    """
    radios_off = {"wifi": "0", "mobile_data": "0", "bluetooth": "0"} if enabled else None
    return _apply(ctx, {"airplane_mode": _flag(enabled)}, radios_off)


@tool(l2="11.1", app=APP, mutating=True, errors=(ErrorType.STATE_CONFLICT,))
def set_location_services(ctx: Ctx, enabled: bool) -> dict[str, Any]:
    """Turn the system-wide location service on or off; it cannot be turned on in low-power mode.

    Args:
        enabled: True to turn location services on, false to turn them off.
    """
    if enabled and ctx.setting("low_power_mode") == "1":
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            "location services cannot be turned on in low-power mode",
            current={"low_power_mode": True},
            hint="set_low_power_mode(enabled=false) first",
        )
    return _apply(ctx, {"location_service": _flag(enabled)})


# ---- Bluetooth & Pairing (11.2) ---------------------------------------------------------------


@tool(l2="11.2", app=APP, mutating=True, errors=(ErrorType.STATE_CONFLICT,))
def set_bluetooth(ctx: Ctx, enabled: bool) -> dict[str, Any]:
    """Turn Bluetooth on or off.

    Args:
        enabled: True to turn Bluetooth on, false to turn it off.
    """
    return _apply(ctx, {"bluetooth": _flag(enabled)})


def _by_name(
    ctx: Ctx,
    candidates: Select[Any],
    name: str,
    hint: str,
    params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The one device called ``name`` (exact, else partial match, case-insensitive) among the rows
    ``candidates`` selects (ordered by name, with ``params`` bound)."""
    everything = rows(ctx.conn.execute(candidates, params))
    lowered = name.strip().lower()
    for pick in (lambda r: r["name"].lower() == lowered, lambda r: lowered in r["name"].lower()):
        found = [r for r in everything if pick(r)]
        if len(found) == 1:
            return found[0]
        if found:
            raise ToolError(
                ErrorType.AMBIGUOUS_ENTITY,
                f"{name!r} matches {len(found)} devices",
                field="device_name",
                candidates=[r["name"] for r in found],
            )
    raise ToolError(
        ErrorType.ENTITY_NOT_FOUND,
        f"no device called {name!r}",
        field="device_name",
        hint=hint,
        candidates=[r["name"] for r in everything],
    )


_NEARBY_DEVICES = select(world_nearby_devices).order_by(world_nearby_devices.c.name)
_BLUETOOTH_DEVICE_NAMED = select(devices.c.device_id, devices.c.paired).where(
    func.lower(devices.c.name) == bindparam("name"), devices.c.connection == "bluetooth"
)
_SET_DEVICE = update(devices).where(devices.c.device_id == bindparam("match_device_id"))
_ADD_DEVICE = insert(devices)


def _pair(ctx: Ctx, device_name: str) -> dict[str, Any]:
    dev = _by_name(ctx, _NEARBY_DEVICES, device_name, "the device must be nearby and in pairing mode")
    if dev["companion_app"]:
        raise ToolError(
            ErrorType.UNSUPPORTED_OPERATION,
            f"{dev['name']} pairs only in the {dev['companion_app']} app",
            app_id=dev["companion_app"],
            hint=gui_agent_hint(dev["companion_app"]),
        )
    known = ctx.conn.execute(_BLUETOOTH_DEVICE_NAMED, {"name": dev["name"].lower()}).first()
    if known is not None and known.paired:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"{dev['name']} is already paired: {known.device_id}",
            existing_id=known.device_id,
            hint="use action=connect",
        )
    state = {"paired": 1, "connected": 1, "online": 1, "updated_at": ctx.ts()}
    if known is not None:  # paired before, then forgotten
        ctx.conn.execute(_SET_DEVICE, {"match_device_id": known.device_id, **state})
        did = known.device_id
    else:
        did = ctx.new_id(devices)
        ctx.conn.execute(
            _ADD_DEVICE,
            {
                "device_id": did,
                "name": dev["name"],
                "kind": dev["kind"],
                "connection": "bluetooth",
                "created_at": ctx.ts(),
                **state,
            },
        )
    return {"device_id": did, "name": dev["name"], "kind": dev["kind"], "paired": True, "connected": True}


_PAIRED_BLUETOOTH_DEVICES = (
    select(devices).where(devices.c.connection == "bluetooth", devices.c.paired == 1).order_by(devices.c.name)
)


@tool(
    l2="11.2",
    app=APP,
    mutating=True,
    permissions=("NEARBY_DEVICES",),
    services=("bluetooth",),
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.AMBIGUOUS_ENTITY,
        ErrorType.STATE_CONFLICT,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.UNSUPPORTED_OPERATION,
        ErrorType.DUPLICATE_ENTITY,
    ),
)
def pair_bluetooth_device(
    ctx: Ctx,
    device_name: Annotated[str, Field(min_length=1, max_length=80)],
    action: Literal["pair", "connect", "disconnect", "forget"] = "pair",
) -> dict[str, Any]:
    """Pair a nearby Bluetooth device, or connect, disconnect or forget (unpair) a paired one.

    Pairing also connects. A device that pairs only through its vendor's app cannot be paired here.

    Args:
        device_name: The device's name, or a distinctive part of it, e.g. "WH-1000XM5".
        action: pair (a new nearby device), connect / disconnect (a paired device) or forget (unpair it).
    """
    if action == "pair":
        return _pair(ctx, device_name)
    dev = _by_name(ctx, _PAIRED_BLUETOOTH_DEVICES, device_name, "pair it first (action=pair)")
    changes: dict[str, Any] = {"paired": 0, "connected": 0}
    if action != "forget":
        want = int(action == "connect")
        if dev["connected"] == want:
            raise ToolError(
                ErrorType.STATE_CONFLICT, f"{dev['name']} is already {action}ed", device_id=dev["device_id"]
            )
        if want and not dev["online"]:
            raise ToolError(
                ErrorType.RESOURCE_UNAVAILABLE, f"{dev['name']} is not in range", device_id=dev["device_id"]
            )
        changes = {"connected": want}
    ctx.conn.execute(_SET_DEVICE, {"match_device_id": dev["device_id"], **changes, "updated_at": ctx.ts()})
    after = {**dev, **changes}
    return {
        "device_id": dev["device_id"],
        "name": dev["name"],
        "kind": dev["kind"],
        "paired": bool(after["paired"]),
        "connected": bool(after["connected"]),
    }


# ---- Sound & Ringer (11.3) --------------------------------------------------------------------


@tool(l2="11.3", app=APP, mutating=True, errors=(ErrorType.STATE_CONFLICT,))
def set_volume(ctx: Ctx, stream: Literal["media", "ring", "alarm"], level: Level) -> dict[str, Any]:
    """Set the volume of one audio stream.

    Args:
        stream: Which volume to set: media (music, video), ring (calls, notifications) or alarm.
        level: Volume from 0 (muted) to 100 (loudest).
    """
    return _apply(ctx, {f"volume_{stream}": str(level)})


@tool(l2="11.3", app=APP, mutating=True, errors=(ErrorType.STATE_CONFLICT,))
def set_ringer_mode(ctx: Ctx, mode: Literal["normal", "vibrate", "silent"]) -> dict[str, Any]:
    """Set the ringer to normal, vibrate or silent.

    Args:
        mode: normal (rings), vibrate (vibrates only) or silent (neither).
    """
    return _apply(ctx, {"ringer_mode": mode})


# ---- Display & Appearance (11.4) --------------------------------------------------------------


@tool(l2="11.4", app=APP, mutating=True, errors=(ErrorType.STATE_CONFLICT,))
def set_brightness(ctx: Ctx, level: Level) -> dict[str, Any]:
    """Set the screen brightness; this turns auto-brightness off.

    Args:
        level: Brightness from 0 (dimmest) to 100 (brightest).
    """
    return _apply(ctx, {"brightness": str(level), "auto_brightness": "0"})


@tool(l2="11.4", app=APP, mutating=True, errors=(ErrorType.STATE_CONFLICT,))
def set_dark_mode(ctx: Ctx, enabled: bool) -> dict[str, Any]:
    """Turn dark mode on or off.

    Args:
        enabled: True for the dark theme, false for the light theme.
    """
    return _apply(ctx, {"dark_mode": _flag(enabled)})


# ---- Battery & Power (11.5) -------------------------------------------------------------------

STATUS_GROUPS = {
    "battery": ("battery_pct", "charging", "low_power_mode"),
    "connectivity": (
        "airplane_mode",
        "wifi",
        "wifi_connected_ssid",
        "mobile_data",
        "bluetooth",
        "nfc",
        "location_service",
    ),
    "storage": ("storage_free_gb",),
    "sound": ("ringer_mode", "volume_media", "volume_ring", "volume_alarm"),
    "display": ("brightness", "auto_brightness", "dark_mode"),
    "modes": ("dnd", "dnd_until", "language"),
    "accessibility": ("font_scale", *A11Y_KEYS),
}


@tool(l2="11.5", app=APP, mutating=False)
def get_device_status(ctx: Ctx) -> dict[str, Any]:
    """Show battery, connectivity, storage, sound, display and mode settings of the phone."""
    current = _read(ctx, [k for keys in STATUS_GROUPS.values() for k in keys])
    status = {group: {k: _typed(k, current[k]) for k in keys if k in current} for group, keys in STATUS_GROUPS.items()}
    if not status["connectivity"].get("wifi"):  # a remembered network is not a connection
        status["connectivity"]["wifi_connected_ssid"] = None
    return status


@tool(l2="11.5", app=APP, mutating=True, errors=(ErrorType.STATE_CONFLICT,))
def set_low_power_mode(ctx: Ctx, enabled: bool) -> dict[str, Any]:
    """Turn battery-saver (low-power) mode on or off; on also turns location off and caps brightness at 60.

    Args:
        enabled: True to turn low-power mode on, false to turn it off.
    """
    effects = None
    if enabled:
        brightness = min(int(ctx.setting("brightness") or 0), LOW_POWER_BRIGHTNESS_CAP)
        effects = {"location_service": "0", "brightness": str(brightness)}
    return _apply(ctx, {"low_power_mode": _flag(enabled)}, effects)


# ---- Focus Modes & DND (11.6) -----------------------------------------------------------------


def _until_needs_enabled(args: dict[str, Any]) -> str | None:
    """until only with enabled=true."""
    return "until can only be given when enabled is true" if args.get("until") and not args["enabled"] else None


@tool(
    l2="11.6",
    app=APP,
    mutating=True,
    check=_until_needs_enabled,
    errors=(ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.STATE_CONFLICT),
)
def set_do_not_disturb(ctx: Ctx, enabled: bool, until: DateTime | None = None) -> dict[str, Any]:
    """Turn Do Not Disturb on (optionally until a time) or off.

    Args:
        enabled: True to silence calls and notifications, false to end Do Not Disturb.
        until: When Do Not Disturb ends by itself, YYYY-MM-DDTHH:MM (only with enabled=true; omit for
            no end time).
    """
    if until and dt.datetime.strptime(until, "%Y-%m-%dT%H:%M") <= ctx.now:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"until {until} is not in the future",
            fields=["until"],
            now=ctx.now.strftime("%Y-%m-%dT%H:%M"),
        )
    return _apply(ctx, {"dnd": _flag(enabled), "dnd_until": until or ""})


FOCUS_DEFAULTS: dict[str, Any] = {
    "enabled": 0,
    "schedule_json": None,
    "allowed_apps_json": "[]",
    "allowed_contacts_json": "[]",
    "auto_reply": None,
}


def _focus_schedule(args: dict[str, Any]) -> str | None:
    """Give start and end together or neither; days needs start and end; start and end differ."""
    if ("start" in args) != ("end" in args):
        return "give both start and end, or neither"
    if "days" in args and "start" not in args:
        return "days needs start and end"
    if "start" in args and args["start"] == args["end"]:
        return "start and end must differ"
    return None


def _known_ids(ctx: Ctx, known_of: Select[Any], ids: list[str], what: str) -> list[str]:
    """The ids sorted and deduplicated; EntityNotFound naming every unknown one (``known_of`` selects the
    known ones among the list bound to ``ids``)."""
    wanted = sorted(set(ids))
    known = set(ctx.conn.execute(known_of, {"ids": wanted}).scalars())
    missing = [i for i in wanted if i not in known]
    if missing:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no {what} {', '.join(missing)}", missing=missing)
    return wanted


_INSTALLED_APP_IDS = select(apps.c.app_id).where(
    apps.c.app_id.in_(bindparam("ids", expanding=True)), apps.c.installed == 1
)
_CONTACT_IDS = select(contacts.c.contact_id).where(contacts.c.contact_id.in_(bindparam("ids", expanding=True)))
_FOCUS_MODE = select(focus_modes).where(focus_modes.c.mode == bindparam("mode"))
_SET_FOCUS_MODE = update(focus_modes).where(focus_modes.c.mode == bindparam("match_mode"))
_ADD_FOCUS_MODE = insert(focus_modes)
_OTHER_ENABLED_FOCUS_MODES = (
    select(focus_modes.c.mode)
    .where(focus_modes.c.enabled == 1, focus_modes.c.mode != bindparam("mode"))
    .order_by(focus_modes.c.mode)
)
_SET_FOCUS_MODES = update(focus_modes).where(focus_modes.c.mode.in_(bindparam("match_modes", expanding=True)))


@tool(
    l2="11.6",
    app=APP,
    mutating=True,
    check=_focus_schedule,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT),
)
def set_focus_mode(
    ctx: Ctx,
    mode: FocusMode,
    enabled: bool,
    days: Days | None = None,
    start: Time | None = None,
    end: Time | None = None,
    allowed_apps: Ids | None = None,
    allowed_contacts: Ids | None = None,
    auto_reply: Annotated[str, Field(max_length=300)] | None = None,
) -> dict[str, Any]:
    """Turn a focus mode on or off and configure it; turning one on turns any other focus mode off.

    Args:
        mode: Which focus mode.
        enabled: True to activate it now, false to turn it off.
        days: Days its schedule repeats on (with start and end; omit for every day).
        start: Time of day the schedule starts it, HH:MM.
        end: Time of day the schedule ends it, HH:MM (may be after midnight, e.g. start 23:00, end 07:00).
        allowed_apps: Ids of the apps still allowed to notify, replacing the current list ([] allows none).
        allowed_contacts: Contact ids still allowed to call and text, replacing the current list.
        auto_reply: Text sent automatically to people who message during the focus ("" removes it).
    """
    current = ctx.conn.execute(_FOCUS_MODE, {"mode": mode}).first()
    before = {k: current._mapping[k] for k in FOCUS_DEFAULTS} if current else dict(FOCUS_DEFAULTS)
    after = {**before, "enabled": int(enabled)}
    if allowed_apps is not None:
        after["allowed_apps_json"] = json.dumps(_known_ids(ctx, _INSTALLED_APP_IDS, allowed_apps, "installed app(s)"))
    if allowed_contacts is not None:
        after["allowed_contacts_json"] = json.dumps(_known_ids(ctx, _CONTACT_IDS, allowed_contacts, "contact(s)"))
    if start is not None:
        order = sorted(set(days or WEEKDAYS), key=WEEKDAYS.index)
        after["schedule_json"] = json.dumps({"days": order, "start": start, "end": end})
    if auto_reply is not None:
        after["auto_reply"] = auto_reply or None
    changed = sorted(k for k in after if after[k] != before[k])
    if not changed:
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"the {mode} focus is already {'on' if enabled else 'off'} with these settings",
            mode=mode,
        )
    if current is not None:
        ctx.conn.execute(_SET_FOCUS_MODE, {"match_mode": mode, **after, "updated_at": ctx.ts()})
    else:
        ctx.conn.execute(_ADD_FOCUS_MODE, {"mode": mode, "created_at": ctx.ts(), "updated_at": ctx.ts(), **after})
    others: list[str] = []
    if enabled:
        others = list(ctx.conn.execute(_OTHER_ENABLED_FOCUS_MODES, {"mode": mode}).scalars())
        ctx.conn.execute(_SET_FOCUS_MODES, {"match_modes": others, "enabled": 0, "updated_at": ctx.ts()})
    return {
        "mode": mode,
        "enabled": enabled,
        "updated": changed,
        "turned_off": others,
        "schedule": json.loads(after["schedule_json"]) if after["schedule_json"] else None,
        "allowed_apps": json.loads(after["allowed_apps_json"]),
        "allowed_contacts": json.loads(after["allowed_contacts_json"]),
        "auto_reply": after["auto_reply"],
    }


# ---- Accessibility & Language (11.7) ----------------------------------------------------------


@tool(l2="11.7", app=APP, mutating=True, errors=(ErrorType.STATE_CONFLICT,))
def set_system_language(ctx: Ctx, language: Language) -> dict[str, Any]:
    """Change the phone's system language.

    Args:
        language: Language and region code, e.g. en-US, zh-CN, ja-JP.
    """
    return _apply(ctx, {"language": language})


def _font_scale_for_large_text(args: dict[str, Any]) -> str | None:
    """font_scale only with option=large_text and enabled=true."""
    if "font_scale" in args and (args["option"] != "large_text" or not args["enabled"]):
        return "font_scale is only set with option=large_text and enabled=true"
    return None


@tool(l2="11.7", app=APP, mutating=True, check=_font_scale_for_large_text, errors=(ErrorType.STATE_CONFLICT,))
def set_accessibility_option(
    ctx: Ctx,
    option: A11yOption,
    enabled: bool,
    font_scale: Annotated[float, Field(ge=0.8, le=2.0)] | None = None,
) -> dict[str, Any]:
    """Turn an accessibility feature on or off; large text also sets the font scale (off resets it to 1.0).

    Args:
        option: The feature: screen_reader, magnifier, large_text, bold_text, color_inversion, mono_audio,
            captions or reduce_motion.
        enabled: True to turn it on, false to turn it off.
        font_scale: Text size factor from 0.8 to 2.0 (only with large_text on; default 1.3).
    """
    target = {f"a11y_{option}": _flag(enabled)}
    effects = None
    if option == "large_text":
        if font_scale is not None:
            target["font_scale"] = str(round(font_scale, 2))
        else:
            effects = {"font_scale": LARGE_TEXT_SCALE if enabled else "1.0"}
    return _apply(ctx, target, effects)
