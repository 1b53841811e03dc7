"""The ride app's screens (no API): the GUI agent reports an item left in a ride."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import Column, Text, insert, select

from sandbox.domains.travel.schema import rides
from sandbox.domains.travel.tools import Name, Note, _get
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx
from sandbox.schema import USER, stamps, table
from sandbox.subagents import GuiFlow, gui_flow
from sandbox.tooling import INTERNAL, tool

ride_lost_items = table(
    "ride_lost_items",
    USER,
    Column("report_id", Text, primary_key=True),
    Column("ride_id", Text, nullable=False),
    Column("item", Text, nullable=False),
    Column("description", Text),
    Column("contact_phone", Text),
    Column("status", Text, nullable=False),  # reported
    *stamps(),
    natural_key=("ride_id", "item"),
    id_prefix="lostitem",
)


_ADD_LOST_ITEM = insert(ride_lost_items)


@tool(domain=INTERNAL, app="ride", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def ride_report_lost_item(
    ctx: Ctx,
    ride_id: str,
    item: Name,
    description: Note | None = None,
    contact_phone: Annotated[str, Field(min_length=3, max_length=40)] | None = None,
) -> dict[str, Any]:
    """Report an item left in a ride on the ride app's help screen (GUI-agent action).

    Args:
        ride_id: The ride the item was left in.
        item: What was left behind.
        description: Colour, brand or other details.
        contact_phone: Where the driver can reach the user.
    """
    ride = _get(ctx, rides, ride_id)
    if ride["status"] != "completed":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{ride_id} is {ride['status']}, not a finished ride")
    rid = ctx.new_id(ride_lost_items)
    ctx.conn.execute(
        _ADD_LOST_ITEM,
        {
            "report_id": rid,
            "ride_id": ride_id,
            "item": item,
            "description": description,
            "contact_phone": contact_phone,
            "status": "reported",
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"report_id": rid, "ride_id": ride_id}


_LATEST_FINISHED_RIDE = (
    select(rides.c.ride_id)
    .where(rides.c.status == "completed")
    .order_by(rides.c.created_at.desc(), rides.c.ride_id.desc())
)


def _report_lost_item(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """Open the ride history (the given ride, else the latest finished one) and file the lost-item form."""
    ride_id = inputs.get("ride_id") or ctx.conn.execute(_LATEST_FINISHED_RIDE).scalar()
    if not ride_id:
        raise ToolError(ErrorType.SUB_AGENT_FAILED, "the ride history shows no finished ride", reason="no_ride")
    args = {"ride_id": str(ride_id), "item": str(inputs["item"])}
    for key in ("description", "contact_phone"):
        if inputs.get(key):
            args[key] = str(inputs[key])
    result = ctx.call("ride_report_lost_item", args)
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED, f"the report failed: {result['Payload']['message']}", reason=result["ErrorType"]
        )
    return {"report_id": result["Payload"]["report_id"], "ride_id": ride_id, "status": "reported"}


gui_flow(
    GuiFlow(
        "ride",
        "report_lost_item",
        ("lost", "left", "forg*"),
        ("item",),
        _report_lost_item,
        optional_inputs=("ride_id", "description", "contact_phone"),
    )
)
