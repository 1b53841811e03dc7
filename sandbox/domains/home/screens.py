"""The home app's screens (no API): the GUI agent creates scenes and switches automations."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, func, insert, select, update

from sandbox.domains.home.schema import HOME, SWITCHABLE, DeviceRef, Name, home_automations, home_scenes
from sandbox.domains.home.tools import _device, _devices
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, rows
from sandbox.subagents import GuiFlow, gui_flow
from sandbox.tooling import INTERNAL, tool


class SceneStep(BaseModel):
    """One device setting of a scene."""

    model_config = ConfigDict(extra="forbid", strict=True)
    device_id: DeviceRef
    set: dict[str, Any]


_SCENE_NAMED = select(home_scenes.c.scene_name).where(func.lower(home_scenes.c.scene_name) == bindparam("scene_name"))
_ADD_SCENE = insert(home_scenes)


@tool(domain=INTERNAL, app=HOME, mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY))
def home_save_scene(
    ctx: Ctx, scene_name: Name, actions: Annotated[list[SceneStep], Field(min_length=1, max_length=20)]
) -> dict[str, Any]:
    """Save a new scene on the home app's scene editor (GUI-agent action).

    Args:
        scene_name: Name of the new scene.
        actions: The device settings it applies.
    """
    if ctx.conn.execute(_SCENE_NAMED, {"scene_name": scene_name.casefold()}).first():
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"a scene named {scene_name!r} exists")
    steps = []
    for a in actions:
        _device(ctx, a.device_id)
        steps.append({"device_id": a.device_id, "set": a.set})
    ctx.conn.execute(
        _ADD_SCENE,
        {
            "scene_name": scene_name,
            "actions_json": json.dumps(steps, sort_keys=True),
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"scene_name": scene_name, "actions": steps}


def _create_scene(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Pick the devices on the editor (by name, room or id) and set lights on at the brightness given."""
    wanted = inputs["devices"] if isinstance(inputs["devices"], list) else [inputs["devices"]]
    everything = _devices(ctx)
    steps: list[dict[str, Any]] = []
    for ref in wanted:
        key = str(ref).casefold().strip()
        found = [d for d in everything if key in (d["device_id"], d["name"].casefold(), d["room"].casefold())]
        if not found:
            raise ToolError(ErrorType.SUB_AGENT_FAILED, f"the scene editor lists no device {ref!r}", reason="no_device")
        for d in found:
            if d["type"] not in SWITCHABLE or any(s["device_id"] == d["device_id"] for s in steps):
                continue
            setting: dict[str, Any] = {"on": True}
            if d["type"] == "light" and inputs.get("brightness") is not None:
                setting["brightness"] = int(inputs["brightness"])
            steps.append({"device_id": d["device_id"], "set": setting})
    if not steps:
        raise ToolError(ErrorType.SUB_AGENT_FAILED, "none of those devices can be part of a scene", reason="empty")
    result = ctx.call("home_save_scene", {"scene_name": str(inputs["scene_name"]), "actions": steps})
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"saving the scene failed: {result['Payload']['message']}",
            reason=result["ErrorType"],
        )
    return {"scene_name": result["Payload"]["scene_name"], "devices": [s["device_id"] for s in steps]}


gui_flow(
    GuiFlow(HOME, "create_scene", ("scene",), ("scene_name", "devices"), _create_scene, optional_inputs=("brightness",))
)


_AUTOMATION = select(home_automations).where(home_automations.c.automation_id == bindparam("automation_id"))
_SET_AUTOMATION = update(home_automations).where(home_automations.c.automation_id == bindparam("match_automation_id"))


@tool(domain=INTERNAL, app=HOME, mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def home_set_automation_enabled(ctx: Ctx, automation_id: str, enabled: bool) -> dict[str, Any]:
    """Flip an automation's switch on the home app's automations screen (GUI-agent action).

    Args:
        automation_id: The automation.
        enabled: True to enable it, false to pause it.
    """
    row = ctx.conn.execute(_AUTOMATION, {"automation_id": automation_id}).first()
    if row is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no automation {automation_id!r}")
    if bool(row.enabled) == enabled:
        raise ToolError(ErrorType.STATE_CONFLICT, f"{row.name} is already {'on' if enabled else 'off'}")
    ctx.conn.execute(
        _SET_AUTOMATION, {"match_automation_id": automation_id, "enabled": int(enabled), "updated_at": ctx.ts()}
    )
    return {"automation_id": automation_id, "name": row.name, "enabled": enabled}


def _truthy(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    return (
        True
        if text in ("true", "on", "enable", "enabled", "1", "yes")
        else False
        if text in ("false", "off", "disable", "disabled", "pause", "paused", "0", "no")
        else None
    )


_AUTOMATIONS = select(home_automations).order_by(home_automations.c.automation_id)


def _toggle_automation(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Find the automation by name on the list and flip its switch."""
    name = str(inputs["name"]).casefold().strip()
    enabled = _truthy(inputs["enabled"])
    if enabled is None:
        raise ToolError(ErrorType.SUB_AGENT_FAILED, "enabled must say on or off", missing_inputs=["enabled"])
    found = [r for r in rows(ctx.conn.execute(_AUTOMATIONS)) if name in r["name"].casefold()]
    if len(found) != 1:
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"{len(found)} automations match {inputs['name']!r}",
            reason="no_match" if not found else "ambiguous",
        )
    result = ctx.call("home_set_automation_enabled", {"automation_id": found[0]["automation_id"], "enabled": enabled})
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED, f"the switch failed: {result['Payload']['message']}", reason=result["ErrorType"]
        )
    return {"automation": found[0]["name"], "enabled": enabled, "status": "enabled" if enabled else "paused"}


gui_flow(GuiFlow(HOME, "toggle_automation", ("automation", "routine"), ("name", "enabled"), _toggle_automation))
