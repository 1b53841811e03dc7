"""D11 Device & System Settings, plus D4 4.2 App Permissions: the switches the executor's gates read.

Every setting lives in ``device_settings`` as a string ("1"/"0" for switches). Setting a value it
already has is a ``StateConflict`` (ToolSandbox convention), so a planner cannot mistake a no-op
for progress. Side effects follow catalog section 10: airplane mode drops the radios, low-power
mode drops location and caps brightness.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import select, update
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx
from sandbox.schema import app_permissions, apps, device_settings
from sandbox.tooling import PERMISSIONS, DateTime, tool

APP = "settings"
LOW_POWER_BRIGHTNESS_CAP = 60

Level = Annotated[int, Field(ge=0, le=100)]
Permission = Literal[PERMISSIONS]  # the 13 runtime permissions, declared once in sandbox.tooling
Language = Literal["en-US", "zh-CN", "ja-JP", "es-ES", "fr-FR", "de-DE", "ko-KR", "pt-BR", "it-IT", "ru-RU"]

BOOL_KEYS = frozenset({
    "wifi", "mobile_data", "airplane_mode", "bluetooth", "location_service", "nfc", "low_power_mode",
    "charging", "dnd", "auto_brightness", "dark_mode",
})


def _flag(enabled: bool) -> str:
    return "1" if enabled else "0"


def _typed(key: str, raw: str) -> Any:
    """A stored string as the planner should read it: switches as booleans, numbers as numbers."""
    if key in BOOL_KEYS:
        return raw == "1"
    if key == "storage_free_gb":
        return float(raw)
    if raw.isdigit():
        return int(raw)
    return raw or None


def _read(ctx: Ctx, keys: list[str]) -> dict[str, str]:
    return dict(ctx.conn.execute(
        select(device_settings.c.key, device_settings.c.value).where(device_settings.c.key.in_(keys))
    ).all())


def _apply(ctx: Ctx, target: dict[str, str], effects: dict[str, str] | None = None) -> dict[str, Any]:
    """Write ``target`` and its side ``effects``; refuse when ``target`` already holds.

    Only keys whose value actually changes are written, so the state diff shows real changes only.
    """
    wanted = {**(effects or {}), **target}
    current = _read(ctx, list(wanted))
    if all(current.get(k) == v for k, v in target.items()):
        now = {k: _typed(k, current[k]) for k in target}
        raise ToolError(ErrorType.STATE_CONFLICT,
                        "already set: " + ", ".join(f"{k}={v}" for k, v in now.items()), current=now)
    changed = {k: v for k, v in wanted.items() if current.get(k) != v}
    for key, value in changed.items():
        ctx.conn.execute(update(device_settings).where(device_settings.c.key == key).values(value=value))
    return {"updated": {k: _typed(k, v) for k, v in changed.items()},
            "previous": {k: _typed(k, current[k]) for k in changed}}


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
        raise ToolError(ErrorType.STATE_CONFLICT, "mobile data cannot be turned on in airplane mode",
                        current={"airplane_mode": True}, hint="set_airplane_mode(enabled=false) first")
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
        raise ToolError(ErrorType.STATE_CONFLICT, "location services cannot be turned on in low-power mode",
                        current={"low_power_mode": True}, hint="set_low_power_mode(enabled=false) first")
    return _apply(ctx, {"location_service": _flag(enabled)})


# ---- Bluetooth & Pairing (11.2) ---------------------------------------------------------------

@tool(l2="11.2", app=APP, mutating=True, errors=(ErrorType.STATE_CONFLICT,))
def set_bluetooth(ctx: Ctx, enabled: bool) -> dict[str, Any]:
    """Turn Bluetooth on or off.

    Args:
        enabled: True to turn Bluetooth on, false to turn it off.
    """
    return _apply(ctx, {"bluetooth": _flag(enabled)})


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
    "connectivity": ("airplane_mode", "wifi", "wifi_connected_ssid", "mobile_data", "bluetooth", "nfc",
                     "location_service"),
    "storage": ("storage_free_gb",),
    "sound": ("ringer_mode", "volume_media", "volume_ring", "volume_alarm"),
    "display": ("brightness", "auto_brightness", "dark_mode"),
    "modes": ("dnd", "dnd_until", "language"),
}


@tool(l2="11.5", app=APP, mutating=False)
def get_device_status(ctx: Ctx) -> dict[str, Any]:
    """Show battery, connectivity, storage, sound, display and mode settings of the phone."""
    current = _read(ctx, [k for keys in STATUS_GROUPS.values() for k in keys])
    status = {group: {k: _typed(k, current[k]) for k in keys if k in current}
              for group, keys in STATUS_GROUPS.items()}
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
    return "until can only be given when enabled is true" if args.get("until") and not args["enabled"] else None


@tool(l2="11.6", app=APP, mutating=True, check=_until_needs_enabled,
      errors=(ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.STATE_CONFLICT))
def set_do_not_disturb(ctx: Ctx, enabled: bool, until: DateTime | None = None) -> dict[str, Any]:
    """Turn Do Not Disturb on (optionally until a time) or off.

    Args:
        enabled: True to silence calls and notifications, false to end Do Not Disturb.
        until: When Do Not Disturb ends by itself, YYYY-MM-DDTHH:MM (only with enabled=true; omit for
            no end time).
    """
    if until and dt.datetime.strptime(until, "%Y-%m-%dT%H:%M") <= ctx.now:
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, f"until {until} is not in the future",
                        fields=["until"], now=ctx.now.strftime("%Y-%m-%dT%H:%M"))
    return _apply(ctx, {"dnd": _flag(enabled), "dnd_until": until or ""})


# ---- Accessibility & Language (11.7) ----------------------------------------------------------

@tool(l2="11.7", app=APP, mutating=True, errors=(ErrorType.STATE_CONFLICT,))
def set_system_language(ctx: Ctx, language: Language) -> dict[str, Any]:
    """Change the phone's system language.

    Args:
        language: Language and region code, e.g. en-US, zh-CN, ja-JP.
    """
    return _apply(ctx, {"language": language})


# ---- App Permissions (4.2) --------------------------------------------------------------------

def _require_app(ctx: Ctx, app_id: str) -> None:
    found = ctx.conn.execute(select(apps.c.app_id).where(apps.c.app_id == app_id, apps.c.installed == 1)).first()
    if found is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no installed app {app_id!r}", field="app_id")


def _permission_state(ctx: Ctx, app_id: str, permission: str) -> str:
    """A permission the app has no row for was never requested (the executor's gate reads it so)."""
    return ctx.conn.execute(select(app_permissions.c.state).where(
        app_permissions.c.app_id == app_id, app_permissions.c.permission == permission)).scalar() or "not_requested"


def _set_permission(ctx: Ctx, app_id: str, permission: str, state: str) -> None:
    stmt = sqlite_insert(app_permissions).values(app_id=app_id, permission=permission, state=state)
    ctx.conn.execute(stmt.on_conflict_do_update(index_elements=["app_id", "permission"], set_={"state": state}))


@tool(l2="4.2", app=APP, mutating=False, errors=(ErrorType.ENTITY_NOT_FOUND,))
def get_app_permissions(ctx: Ctx, app_id: str) -> dict[str, Any]:
    """List an app's runtime permissions and their states (granted, denied, not_requested, policy_blocked).

    Args:
        app_id: Id of the app, e.g. contacts, messages, maps.
    """
    _require_app(ctx, app_id)
    found = ctx.conn.execute(select(app_permissions.c.permission, app_permissions.c.state).where(
        app_permissions.c.app_id == app_id).order_by(app_permissions.c.permission)).all()
    return {"app_id": app_id, "permissions": dict(found)}


@tool(l2="4.2", app=APP, mutating=True, errors=(
    ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.CONFIRMATION_REQUIRED,
    ErrorType.PERMISSION_DENIED))
def grant_app_permission(ctx: Ctx, app_id: str, permission: Permission, confirm: bool = False) -> dict[str, Any]:
    """Grant a runtime permission to an app.

    Args:
        app_id: Id of the app, e.g. contacts, messages, maps.
        permission: The permission to grant.
        confirm: Set true only after the user confirmed granting a permission they denied before.
    """
    _require_app(ctx, app_id)
    state = _permission_state(ctx, app_id, permission)
    if state == "granted":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{app_id} already has {permission} granted",
                        app_id=app_id, permission=permission, current=state)
    if state == "policy_blocked":
        raise ToolError(ErrorType.PERMISSION_DENIED, f"the user's policy forbids giving {app_id} {permission}",
                        app_id=app_id, permission=permission, reason="policy")
    if state == "denied" and not confirm:
        raise ToolError(ErrorType.CONFIRMATION_REQUIRED, f"the user denied {permission} to {app_id} before",
                        app_id=app_id, permission=permission,
                        hint="ask_user(kind=confirm), then retry with confirm=true")
    _set_permission(ctx, app_id, permission, "granted")
    return {"app_id": app_id, "permission": permission, "state": "granted", "previous": state}


@tool(l2="4.2", app=APP, mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def revoke_app_permission(ctx: Ctx, app_id: str, permission: Permission) -> dict[str, Any]:
    """Revoke a runtime permission from an app (it becomes denied: granting it again needs confirmation).

    Args:
        app_id: Id of the app, e.g. contacts, messages, maps.
        permission: The permission to revoke.
    """
    _require_app(ctx, app_id)
    state = _permission_state(ctx, app_id, permission)
    if state != "granted":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{app_id} does not have {permission} granted",
                        app_id=app_id, permission=permission, current=state)
    _set_permission(ctx, app_id, permission, "denied")
    return {"app_id": app_id, "permission": permission, "state": "denied", "previous": state}
