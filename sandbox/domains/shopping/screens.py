"""The shop app's screens without an API: the GUI agent claims coupons and arranges size/colour exchanges.

Kept apart from ``shopping`` so that module's tool list stays the public D6 API; ``shopping`` imports this
module at its end.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import Column, ForeignKey, Text, bindparam, insert, select, update

from sandbox.domains.shopping.schema import APP, Id, coupons, orders
from sandbox.domains.shopping.tools import (
    _COUPON_BY_CODE,
    _available,
    _order_items,
    _pick_variant,
    _product,
    check_return_window,
    get_row,
)
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx
from sandbox.schema import USER, stamps, table
from sandbox.subagents import GuiFlow, gui_flow
from sandbox.tooling import INTERNAL, tool

exchanges = table(  # size/colour exchanges, made on the shop app's screens (GUI agent)
    "exchanges",
    USER,
    Column("exchange_id", Text, primary_key=True),
    Column("order_id", Text, ForeignKey("orders.order_id"), nullable=False),
    Column("item_id", Text, nullable=False),
    Column("old_variant", Text),
    Column("new_variant", Text, nullable=False),
    Column("status", Text, nullable=False),  # requested
    *stamps(),
    natural_key=("order_id", "item_id"),
)


# ---- Shop app screens (no API): the GUI agent claims coupons and arranges exchanges ------------

_SET_COUPON = update(coupons).where(coupons.c.coupon_id == bindparam("match_coupon_id"))


@tool(domain=INTERNAL, app=APP, mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def shop_claim_coupon(ctx: Ctx, code: Annotated[str, Field(min_length=1, max_length=40)]) -> dict[str, Any]:
    """Tap "claim" on a coupon in the shop app's coupon centre (screen action).

    Args:
        code: The coupon's code.
    """
    row = ctx.conn.execute(_COUPON_BY_CODE, {"code": code.strip().lower()}).first()
    if row is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no coupon {code!r}", field="code")
    if row.claimed or row.used or row.expires_at < ctx.now.date().isoformat():
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"coupon {row.code} cannot be claimed (claimed={row.claimed}, used={row.used}, expires {row.expires_at})",
        )
    ctx.conn.execute(_SET_COUPON, {"match_coupon_id": row.coupon_id, "claimed": 1, "updated_at": ctx.ts()})
    return {"code": row.code, "claimed": True, "description": row.description}


def _claim_coupon(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    result = ctx.call("shop_claim_coupon", {"code": str(inputs["code"])})
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"the coupon could not be claimed: {result['Payload']['message']}",
            reason=result["ErrorType"],
        )
    return {"code": result["Payload"]["code"], "claimed": True, "status": "claimed"}


gui_flow(GuiFlow(APP, "claim_coupon", ("claim*", "coupon"), ("code",), _claim_coupon))


_EXCHANGE_OF_ITEM = select(exchanges.c.exchange_id).where(exchanges.c.item_id == bindparam("item_id"))
_ADD_EXCHANGE = insert(exchanges)


@tool(
    domain=INTERNAL,
    app=APP,
    mutating=True,
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.STATE_CONFLICT,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.DUPLICATE_ENTITY,
    ),
)
def shop_request_exchange(
    ctx: Ctx, order_id: Id, item_id: Id, new_variant: Annotated[str, Field(min_length=1)]
) -> dict[str, Any]:
    """Exchange a delivered item for another size or colour on the order's screen (screen action).

    Args:
        order_id: The order.
        item_id: The order item to exchange.
        new_variant: The variant wanted instead.
    """
    order = get_row(ctx, orders, order_id, "list_orders")
    item = next((it for it in _order_items(ctx, [order_id]).get(order_id, []) if it["item_id"] == item_id), None)
    if item is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"{order_id} has no item {item_id!r}", field="item_id")
    if order["status"] != "delivered":
        raise ToolError(
            ErrorType.STATE_CONFLICT, f"{order_id} is {order['status']}; only delivered items can be exchanged"
        )
    check_return_window(ctx, order)
    prod = _product(ctx, item["product_id"])
    chosen = _pick_variant(prod, new_variant)
    if chosen == item["variant"]:
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, f"{item_id} already is {chosen}", field="new_variant")
    if _available(prod, chosen) < item["quantity"]:
        raise ToolError(ErrorType.RESOURCE_UNAVAILABLE, f"{chosen} is out of stock")
    if ctx.conn.execute(_EXCHANGE_OF_ITEM, {"item_id": item_id}).first():
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"{item_id} is already being exchanged")
    eid = ctx.new_id(exchanges)
    ctx.conn.execute(
        _ADD_EXCHANGE,
        {
            "exchange_id": eid,
            "order_id": order_id,
            "item_id": item_id,
            "old_variant": item["variant"],
            "new_variant": chosen,
            "status": "requested",
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"exchange_id": eid, "order_id": order_id, "item_id": item_id, "new_variant": chosen}


def _exchange(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    result = ctx.call(
        "shop_request_exchange",
        {
            "order_id": str(inputs["order_id"]),
            "item_id": str(inputs["item_id"]),
            "new_variant": str(inputs["new_variant"]),
        },
    )
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED,
            f"the exchange failed: {result['Payload']['message']}",
            reason=result["ErrorType"],
        )
    return {
        "exchange_id": result["Payload"]["exchange_id"],
        "new_variant": result["Payload"]["new_variant"],
        "status": "requested",
    }


gui_flow(GuiFlow(APP, "exchange_item", ("exchang*", "swap*"), ("order_id", "item_id", "new_variant"), _exchange))
