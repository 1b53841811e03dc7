"""GUI-agent flows for D4 and D11 actions that have no API: options on an app's own settings screen
(ad personalisation, muting one chat group, wallpaper, ringtone), signing a signed-out app back in with a
one-time code, and pairing a device inside its vendor's companion app. Their effects are internal tools
(callable only by a sub-agent), kept out of ``apps_security`` and ``settings`` so those modules declare
exactly the catalogue's tools.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import Column, ForeignKey, Text, bindparam, insert, select, update

from sandbox.domains.apps_security.tools import Ref, _installed_app
from sandbox.domains.entertainment.schema import devices
from sandbox.domains.settings.schema import APP, world_nearby_devices
from sandbox.domains.settings.tools import _ADD_DEVICE, _BLUETOOTH_DEVICE_NAMED, _SET_DEVICE, _by_name
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx
from sandbox.schema import USER, apps, stamps, table
from sandbox.subagents import GuiFlow, gui_flow, labelled_value
from sandbox.tooling import INTERNAL, REGISTRY, tool

SETTINGS = APP


# ---- In-app settings with no API: the GUI agent changes them on the app's screens -------------------


app_preferences = table(
    "app_preferences",
    USER,
    Column("app_id", Text, ForeignKey("apps.app_id"), primary_key=True),
    Column("setting", Text, primary_key=True),  # as the app's settings screen names it, lower case
    Column("value", Text, nullable=False),
    *stamps(),
    natural_key=("app_id", "setting"),
)

# The options on each app's own settings screen that have no API (a label before ":" names the option, the rest
# its object: "Mute group: Family"). Volume, brightness, Wi-Fi and the like have their own tools, so the
# settings app's screen offers the GUI agent only what they do not cover.
_ADS = "Personalized ads"
IN_APP_OPTIONS: dict[str, tuple[str, ...]] = {
    "chat": ("Mute group", "Read receipts", _ADS),
    "social": (_ADS, "Autoplay videos"),
    "shop": (_ADS, "Order updates by email"),
    "settings": ("Ringtone", "Wallpaper", "Notification sound"),
    "video": (_ADS, "Autoplay"),
    "music": (_ADS, "Crossfade"),
    "mail": (_ADS, "Conversation view"),
    "shortvid": (_ADS, "Autoplay"),
    "browser": (_ADS, "Search engine"),
    "maps": (_ADS, "Avoid tolls"),
    "news": (_ADS, "Breaking news alerts"),
    "bank": (_ADS, "Balance on lock screen"),
}
# Apps whose settings screens the GUI agent knows.
GUI_SETTINGS_APPS = frozenset(IN_APP_OPTIONS)
# Other ways a person writes an option's label.
_LABEL_FORMS = ((re.compile(r"personali[sz]\w*\s+ad|ad\w*\s+personali[sz]|^ads?\s+personali[sz]"), _ADS.lower()),)
PrefText = Annotated[str, Field(min_length=1, max_length=120)]

_PREFERENCE = select(app_preferences.c.value).where(
    app_preferences.c.app_id == bindparam("app_id"), app_preferences.c.setting == bindparam("setting")
)
_ADD_PREFERENCE = insert(app_preferences)
_SET_PREFERENCE = update(app_preferences).where(
    app_preferences.c.app_id == bindparam("match_app_id"), app_preferences.c.setting == bindparam("match_setting")
)


@tool(domain=INTERNAL, app=SETTINGS, mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def app_set_preference(ctx: Ctx, app_id: Ref, setting: PrefText, value: PrefText) -> dict[str, Any]:
    """Change one option on an app's own settings screen (GUI-agent action).

    Args:
        app_id: The app whose settings screen is open.
        setting: The option's label, e.g. "Wallpaper", "Mute group: Family".
        value: The value chosen, e.g. "Ocean", "off", "8 hours".
    """
    _installed_app(ctx, app_id)
    key, val = " ".join(setting.split()).lower(), " ".join(value.split())
    if in_app_option(app_id, key) is None:
        offered = list(IN_APP_OPTIONS.get(app_id, ()))
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"{app_id}'s settings screen has no {setting!r}; it has: {', '.join(offered) or 'no options'}",
            field="setting",
            settings=offered,
        )
    current = ctx.conn.execute(_PREFERENCE, {"app_id": app_id, "setting": key}).scalar()
    if current is not None and current.lower() == val.lower():
        raise ToolError(ErrorType.STATE_CONFLICT, f"{app_id}: {key} is already {current}")
    if current is None:
        ctx.conn.execute(
            _ADD_PREFERENCE,
            {"app_id": app_id, "setting": key, "value": val, "created_at": ctx.ts(), "updated_at": ctx.ts()},
        )
    else:
        ctx.conn.execute(
            _SET_PREFERENCE, {"match_app_id": app_id, "match_setting": key, "value": val, "updated_at": ctx.ts()}
        )
    return {"app_id": app_id, "setting": key, "value": val, "previous": current}


def in_app_option(app_id: str, label: str) -> str | None:
    """The option of the app's settings screen that ``label`` names (its part before ":"), else None."""
    name = label.split(":", 1)[0].strip().lower()
    for form, option in _LABEL_FORMS:
        if form.search(name):
            name = option
    options = {o.lower() for o in IN_APP_OPTIONS.get(app_id, ())}
    if name in options:
        return name
    # "Mute Family group", "Family group mute": an option named by its first word and its object
    return next((o for o in options if name.split()[:1] == o.split()[:1] and " " in name), None)


def _gui_settings_app(ctx: Ctx, app_id: str) -> bool:
    return app_id in GUI_SETTINGS_APPS


def _change_in_app_setting(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Open the app's settings screen, find the option by its label and pick the value."""
    result = ctx.call(
        "app_set_preference", {"app_id": app_id, "setting": str(inputs["setting"]), "value": _switch(inputs["value"])}
    )
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"the GUI agent could not change it: {result['Payload']['message']}",
            reason=result["ErrorType"],
            **({"settings": result["Payload"]["settings"]} if "settings" in result["Payload"] else {}),
        )
    done = result["Payload"]
    return {
        "setting": done["setting"],
        "value": done["value"],
        "previous": done["previous"],
        "status": f"{done['setting']}: {done['value']}",
    }


def _switch(value: Any) -> str:
    """A switch given as true/false (or enabled/disabled) reads on/off on the screen; other values as given."""
    text = str(value).strip()
    return {"true": "on", "enabled": "on", "false": "off", "disabled": "off"}.get(text.lower(), text)


gui_flow(
    GuiFlow(
        None,
        "change_in_app_setting",
        ("setting", "mute", "wallpaper", "ringtone", "preference", "option", "personali*"),
        ("setting", "value"),
        _change_in_app_setting,
        serves=_gui_settings_app,
        adapt=labelled_value("setting"),
    )
)


# ---- Signing an app back in (no API): the GUI agent enters the one-time code the user received -----

_SIGN_IN = update(apps).where(apps.c.app_id == bindparam("match_app_id")).values(logged_in=1)


@tool(domain=INTERNAL, app=SETTINGS, mutating=True, errors=(ErrorType.INVALID_ARGUMENT_VALUE,))
def app_sign_in(
    ctx: Ctx, app_id: Ref, verification_code: Annotated[str, Field(pattern=r"^[0-9]{6}$")]
) -> dict[str, Any]:
    """Sign in to an app with the one-time code the user received (screen action).

    Args:
        app_id: The app, e.g. bank.
        verification_code: The 6-digit one-time code.
    """
    ctx.conn.execute(_SIGN_IN, {"match_app_id": app_id})
    return {"app_id": app_id, "signed_in": True}


def _has_a_session(ctx: Ctx, app_id: str) -> bool:
    """An app whose tools need the user signed in (its AuthenticationRequired hints this flow)."""
    return any(spec.app == app_id and spec.needs_login for spec in REGISTRY.values())


def _sign_in(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    code = re.sub(r"\D", "", str(inputs["verification_code"]))
    result = ctx.call("app_sign_in", {"app_id": app_id, "verification_code": code})
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"the sign-in failed: {result['Payload']['message']}",
            reason=result["ErrorType"],
        )
    return {"signed_in": True, "status": "signed in"}


gui_flow(
    GuiFlow(
        None,
        "sign_in",
        ("sign in", "log in", "login", "log back in", "sign back in"),
        ("verification_code",),
        _sign_in,
        serves=_has_a_session,
    )
)


# ---- Companion-app pairing (no API): the GUI agent pairs inside the vendor's app ------------------


_COMPANION_DEVICES = (
    select(world_nearby_devices)
    .where(world_nearby_devices.c.companion_app == bindparam("companion_app"))
    .order_by(world_nearby_devices.c.name)
)


@tool(domain=INTERNAL, app=APP, mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY))
def companion_pair_device(
    ctx: Ctx,
    companion_app: Annotated[str, Field(min_length=1, max_length=64)],
    device_name: Annotated[str, Field(min_length=1, max_length=80)],
) -> dict[str, Any]:
    """Pair a device from its vendor's companion app (GUI-agent action).

    Args:
        companion_app: The vendor app doing the pairing.
        device_name: The device's name, or a distinctive part of it.
    """
    dev = _by_name(
        ctx,
        _COMPANION_DEVICES,
        device_name,
        "the device must be nearby and in pairing mode",
        {"companion_app": companion_app},
    )
    known = ctx.conn.execute(_BLUETOOTH_DEVICE_NAMED, {"name": dev["name"].lower()}).first()
    if known is not None and known.paired:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"{dev['name']} is already paired: {known.device_id}",
            existing_id=known.device_id,
        )
    state = {"paired": 1, "connected": 1, "online": 1, "updated_at": ctx.ts()}
    if known is not None:
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
    return {"device_id": did, "name": dev["name"], "paired": True, "connected": True}


_COMPANION_DEVICE = (
    select(world_nearby_devices.c.name)
    .where(world_nearby_devices.c.companion_app == bindparam("companion_app"))
    .limit(1)
)


def _is_companion_app(ctx: Ctx, app_id: str) -> bool:
    return ctx.conn.execute(_COMPANION_DEVICE, {"companion_app": app_id}).first() is not None


def _pair_in_companion_app(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    result = ctx.call("companion_pair_device", {"companion_app": app_id, "device_name": str(inputs["device_name"])})
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"pairing in {app_id} failed: {result['Payload']['message']}",
            reason=result["ErrorType"],
        )
    return {
        "device_id": result["Payload"]["device_id"],
        "name": result["Payload"]["name"],
        "paired": True,
        "status": "paired and connected",
    }


gui_flow(
    GuiFlow(
        None,
        "pair_in_companion_app",
        ("pair*", "connect*"),
        ("device_name",),
        _pair_in_companion_app,
        serves=_is_companion_app,
    )
)
