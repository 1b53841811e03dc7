"""GUI-agent flows for D8 and D9 actions that have no API: the recipes app's preferences screen and the
health app's prescription-refill screen. Their effects are internal tools (callable only by a sub-agent),
kept out of ``food`` and ``health`` so those packages declare exactly the catalogue's tools;
``sandbox.domains`` registers this module right after ``health``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import Field
from sqlalchemy import Column, Integer, Text, bindparam, insert, select, update

from sandbox.domains.food.schema import Diet
from sandbox.domains.health.schema import APP
from sandbox.domains.health.tools import _medication
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx
from sandbox.schema import USER, stamps, table
from sandbox.subagents import GuiFlow, gui_flow
from sandbox.tooling import INTERNAL, tool

# ---- Recipes app settings (no API): the GUI agent sets them on the app's preferences screen -------

recipe_preferences = table(
    "recipe_preferences",
    USER,
    Column("key", Text, primary_key=True),  # diet | units | servings
    Column("value", Text, nullable=False),
    *stamps(),
    natural_key=("key",),
)
PREFERENCE_VALUES = {"diet": set(get_args(Diet)) | {"none"}, "units": {"metric", "imperial"}}
_PREFERENCE = select(recipe_preferences.c.value).where(recipe_preferences.c.key == bindparam("key"))
_ADD_PREFERENCE = insert(recipe_preferences)
_SET_PREFERENCE = update(recipe_preferences).where(recipe_preferences.c.key == bindparam("match_key"))


@tool(domain=INTERNAL, app="recipes", mutating=True, errors=(ErrorType.INVALID_ARGUMENT_VALUE,))
def recipes_set_preference(
    ctx: Ctx,
    key: Literal["diet", "units", "servings"],
    value: Annotated[str, Field(min_length=1, max_length=40)],
) -> dict[str, Any]:
    """Change one setting on the recipes app's preferences screen (GUI-agent action).

    Args:
        key: The setting: default diet filter, measurement units or default servings.
        value: The new value (a diet or "none"; metric or imperial; a number of servings).
    """
    value = value.strip().lower().replace("-", "_").replace(" ", "_")
    ok = value.isdigit() and 1 <= int(value) <= 20 if key == "servings" else value in PREFERENCE_VALUES[key]
    if not ok:
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, f"{value!r} is not a {key} option", field="value")
    before = ctx.conn.execute(_PREFERENCE, {"key": key}).scalar()
    if before is None:
        ctx.conn.execute(_ADD_PREFERENCE, {"key": key, "value": value, "created_at": ctx.ts(), "updated_at": ctx.ts()})
    elif before != value:
        ctx.conn.execute(_SET_PREFERENCE, {"match_key": key, "value": value, "updated_at": ctx.ts()})
    return {"key": key, "value": value, "previous": before}


def _set_recipe_preferences(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Open the app's preferences screen and change each setting given (diet, units, servings)."""
    wanted = {k: str(inputs[k]) for k in ("diet", "units", "servings") if inputs.get(k) not in (None, "")}
    if not wanted:
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            "the preferences flow needs diet, units or servings",
            missing_inputs=["diet"],
            hint="ask_user",
        )
    changed = {}
    for key, value in wanted.items():
        result = ctx.call("recipes_set_preference", {"key": key, "value": value})
        if result["Status"] != "success":
            raise ToolError(
                ErrorType.SUB_AGENT_FAILED,
                f"the app refused: {result['Payload']['message']}",
                reason=result["ErrorType"],
            )
        changed[key] = result["Payload"]["value"]
    return {"settings": changed}


gui_flow(
    GuiFlow(
        "recipes",
        "set_recipe_preferences",
        ("preference", "setting", "default"),
        (),
        _set_recipe_preferences,
        optional_inputs=("diet", "units", "servings"),
    )
)


# ---- Prescription refills (no API): the GUI agent orders them on the health app's pharmacy screen --

medication_refills = table(
    "medication_refills",
    USER,
    Column("refill_id", Text, primary_key=True),
    Column("medication_id", Text, nullable=False),
    Column("packs", Integer, nullable=False),
    Column("pickup", Text, nullable=False),  # pharmacy | delivery
    Column("status", Text, nullable=False),  # requested
    Column("source", Text, nullable=False),
    *stamps(),
    natural_key=("medication_id", "created_at"),
    id_prefix="refill",
)
_ADD_REFILL = insert(medication_refills)


@tool(domain=INTERNAL, app=APP, mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def health_request_refill(
    ctx: Ctx,
    medication_id: str,
    packs: Annotated[int, Field(ge=1, le=6)] = 1,
    pickup: Literal["pharmacy", "delivery"] = "pharmacy",
) -> dict[str, Any]:
    """Request a refill of a medication on the health app's pharmacy screen (GUI-agent action).

    Args:
        medication_id: Id or name of the medication.
        packs: Number of packs.
        pickup: Collect at the pharmacy or have it delivered.
    """
    med = _medication(ctx, medication_id)
    if med["status"] != "active":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{med['name']} is {med['status']}; ask the doctor for a new course")
    refill_id = ctx.new_id(medication_refills)
    ctx.conn.execute(
        _ADD_REFILL,
        {
            "refill_id": refill_id,
            "medication_id": med["medication_id"],
            "packs": packs,
            "pickup": pickup,
            "status": "requested",
            "source": ctx.actor,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"refill_id": refill_id, "medication": med["name"], "packs": packs, "pickup": pickup}


def _request_refill(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Find the medicine in the app's list, choose packs and pickup, submit the request."""
    args: dict[str, Any] = {"medication_id": str(inputs["medication"])}
    if inputs.get("packs") not in (None, ""):
        try:
            args["packs"] = int(inputs["packs"])
        except (TypeError, ValueError) as exc:
            raise ToolError(ErrorType.SUB_AGENT_FAILED, "packs must be a number", missing_inputs=["packs"]) from exc
    if inputs.get("pickup") in ("pharmacy", "delivery"):
        args["pickup"] = inputs["pickup"]
    result = ctx.call("health_request_refill", args)
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED, f"the refill failed: {result['Payload']['message']}", reason=result["ErrorType"]
        )
    return {"refill_code": result["Payload"]["refill_id"], "packs": result["Payload"]["packs"], "status": "requested"}


gui_flow(
    GuiFlow(APP, "request_refill", ("refill",), ("medication",), _request_refill, optional_inputs=("packs", "pickup"))
)
