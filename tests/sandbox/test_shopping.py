"""D6 shopping tools against the wang_lei world (now = 2025-06-13T09:00, prices in CNY).

Every tool has a success test that checks its payload and state diff, and every declared error has
a case that must fail with exactly that ErrorType, change nothing and add one log row.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Executable, delete, func, insert, select, update

from sandbox.domains.common import payment_methods, transactions
from sandbox.domains.shopping import tools as shopping
from sandbox.domains.shopping.schema import (
    cart_items,
    coupons,
    order_items,
    orders,
    price_alerts,
    returns,
    shipments,
    wishlist,
    world_products,
)
from sandbox.errors import ErrorType
from sandbox.executor import Executor
from sandbox.schema import app_permissions, device_settings
from sandbox.tooling import REGISTRY
from tests.sandbox.conftest import diff, fails, ok, prepare, query

TOOLS = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ == shopping.__name__)
ANCHOR = "product_112"  # Sony WH-1000XM5, 2399 CNY, 20 in stock, no variants


def product(ex: Executor, product_id: str) -> dict[str, Any]:
    return query(ex, select(world_products).where(world_products.c.product_id == product_id))[0]


def variant_product(ex: Executor) -> tuple[dict[str, Any], dict[str, Any]]:
    """A product sold in variants, and one of its variants with at least 3 units, not in the cart."""
    in_cart = {r["product_id"] for r in query(ex, select(cart_items))}
    for p in query(
        ex, select(world_products).where(world_products.c.variants_json != "[]").order_by(world_products.c.product_id)
    ):
        for v in json.loads(p["variants_json"]):
            if v["stock"] >= 3 and p["product_id"] not in in_cart:
                return p, v
    raise AssertionError("no variant product in stock")


def order_with(ex: Executor, status: str, recent: bool | None = None) -> dict[str, Any]:
    """The newest order in ``status``; ``recent`` picks one delivered within (True) or outside (False) 30 days."""
    found = query(ex, select(orders).where(orders.c.status == status).order_by(orders.c.placed_at.desc()))
    if recent is not None:
        found = [o for o in found if (o["delivered_at"] >= "2025-05-14") == recent]
    return found[0]


def items_of(ex: Executor, order_id: str) -> list[str]:
    return [
        r["item_id"]
        for r in query(
            ex, select(order_items.c.item_id).where(order_items.c.order_id == order_id).order_by(order_items.c.item_id)
        )
    ]


def balance(ex: Executor, method_id: str) -> float:
    return float(
        query(ex, select(payment_methods.c.balance).where(payment_methods.c.method_id == method_id))[0]["balance"]
    )


# ---- the world and the declarations -------------------------------------------------------------


def test_declarations() -> None:
    assert (
        sorted(
            [
                "search_products",
                "get_product_details",
                "add_to_cart",
                "update_cart_item",
                "view_cart",
                "add_shipping_address",
                "checkout_cart",
                "list_orders",
                "track_order",
                "cancel_order",
                "request_return",
                "list_coupons",
                "add_to_wishlist",
                "set_price_alert",
            ]
        )
        == TOOLS
    )
    for name in TOOLS:
        spec = REGISTRY[name]
        assert spec.app == "shop" and spec.domain == "D6"
        assert spec.mutating == (
            name
            not in {"search_products", "get_product_details", "view_cart", "list_orders", "track_order", "list_coupons"}
        ), name
    assert REGISTRY["set_price_alert"].permissions == ("NOTIFICATIONS",)
    assert REGISTRY["checkout_cart"].network == REGISTRY["search_products"].network == "internet"


def test_world_is_seeded_as_promised(ex: Executor) -> None:
    products = query(ex, select(world_products))
    assert len(products) == 150
    assert len({p["category"] for p in products}) == 7
    assert sum(p["variants_json"] != "[]" for p in products) >= 40
    anchor = product(ex, ANCHOR)
    assert (anchor["title"], anchor["price"], anchor["stock"], anchor["variants_json"]) == (
        "Sony WH-1000XM5 Wireless Noise-Cancelling Headphones",
        2399.0,
        20,
        "[]",
    )
    for p in products:
        variants = json.loads(p["variants_json"])
        assert not variants or p["stock"] == sum(v["stock"] for v in variants)
        assert json.loads(p["price_history_json"])[-1] == ["2025-06-13", p["price"]]
    placed = query(ex, select(orders))
    assert len(placed) == 20
    assert {o["status"] for o in placed} == {"pending", "shipped", "delivered", "cancelled", "returned"}
    shipped = {s["order_id"]: s for s in query(ex, select(shipments))}
    assert {o["order_id"] for o in placed if o["status"] in ("shipped", "delivered", "returned")} == set(shipped)
    assert "out_for_delivery" in {s["status"] for s in shipped.values()}
    paid = {t["ref_id"]: t for t in query(ex, select(transactions).where(transactions.c.category == "shopping"))}
    for o in placed:
        assert paid[o["order_id"]]["amount"] == -o["total"]
        assert paid[o["order_id"]]["status"] == ("refunded" if o["status"] in ("cancelled", "returned") else "posted")
    assert len(query(ex, select(cart_items))) == 3
    assert len(query(ex, select(coupons))) == 10


# ---- 6.1 Product Search & Compare ---------------------------------------------------------------


def test_search_products_by_model(ex: Executor) -> None:
    out = ok(ex, "search_products", {"query": "sony wh-1000xm5"})
    assert [p["product_id"] for p in out["products"]] == [ANCHOR]
    assert out["products"][0]["price"] == 2399.0 and out["products"][0]["in_stock"] is True
    assert diff(ex) == {}


def test_search_products_filters_and_sorts(ex: Executor) -> None:
    out = ok(
        ex,
        "search_products",
        {
            "query": "headphone",
            "category": "Electronics",
            "max_price": 2000,
            "sort": "price_asc",
            "in_stock_only": True,
        },
    )
    prices = [p["price"] for p in out["products"]]
    assert prices == sorted(prices) and all(p <= 2000 for p in prices) and out["count"] >= 1
    assert all("Headphones" in p["title"] and p["in_stock"] for p in out["products"])
    by_brand = ok(ex, "search_products", {"query": "earbuds", "brand": "sony"})
    assert [p["brand"] for p in by_brand["products"]] == ["Sony"]


def test_search_products_price_range_is_checked(ex: Executor) -> None:
    fails(ex, "search_products", {"query": "tea", "min_price": 50, "max_price": 10}, ErrorType.INVALID_ARGUMENT_VALUE)


def test_search_products_needs_the_network(ex: Executor) -> None:
    prepare(
        ex.conn, update(device_settings).where(device_settings.c.key.in_(["wifi", "mobile_data"])).values(value="0")
    )
    fails(ex, "search_products", {"query": "kettle"}, ErrorType.NETWORK_UNAVAILABLE)


def test_get_product_details(ex: Executor) -> None:
    p, v = variant_product(ex)
    out = ok(ex, "get_product_details", {"product_id": p["product_id"]})
    assert out["title"] == p["title"] and out["price"] == p["price"] and out["reviews"]
    assert v["name"] in [x["name"] for x in out["variants"]]
    assert out["price_history"][-1] == {"date": "2025-06-13", "price": p["price"]}
    assert out["lowest_price_90d"] <= p["price"]
    assert diff(ex) == {}


# ---- 6.2 Cart & Checkout ------------------------------------------------------------------------


def test_add_to_cart_new_line(ex: Executor) -> None:
    out = ok(ex, "add_to_cart", {"product_id": ANCHOR, "quantity": 1})
    assert out == {
        "cart_item_id": "cart_004",
        "product_id": ANCHOR,
        "title": product(ex, ANCHOR)["title"],
        "variant": None,
        "quantity": 1,
        "unit_price": 2399.0,
        "currency": "CNY",
        "merged": False,
    }
    [row] = diff(ex)["cart_items"]["inserted"]
    assert (row["cart_item_id"], row["quantity"], row["unit_price_at_add"], row["variant"]) == (
        "cart_004",
        1,
        2399.0,
        None,
    )


def test_add_to_cart_variant_and_merge(ex: Executor) -> None:
    p, v = variant_product(ex)
    out = ok(ex, "add_to_cart", {"product_id": p["product_id"], "quantity": 1, "variant": v["name"].upper()})
    assert out["variant"] == v["name"] and out["merged"] is False
    again = ok(ex, "add_to_cart", {"product_id": p["product_id"], "quantity": 2, "variant": v["name"]})
    assert (again["cart_item_id"], again["quantity"], again["merged"]) == (out["cart_item_id"], 3, True)
    [row] = diff(ex)["cart_items"]["inserted"]
    assert row["quantity"] == 3


def test_update_cart_item(ex: Executor) -> None:
    line = query(ex, select(cart_items).where(cart_items.c.cart_item_id == "cart_002"))[0]
    prepare(
        ex.conn,
        update(world_products)
        .where(world_products.c.product_id == line["product_id"])
        .values(price=line["unit_price_at_add"] + 20),
    )
    out = ok(ex, "update_cart_item", {"cart_item_id": "cart_002", "quantity": 2})
    assert (out["quantity"], out["unit_price"], out["previous_unit_price"]) == (
        2,
        line["unit_price_at_add"] + 20,
        line["unit_price_at_add"],
    )
    [upd] = diff(ex)["cart_items"]["updated"]
    assert (upd["after"]["quantity"], upd["after"]["unit_price_at_add"]) == (2, line["unit_price_at_add"] + 20)


def test_update_cart_item_zero_removes(ex: Executor) -> None:
    assert ok(ex, "update_cart_item", {"cart_item_id": "cart_003", "quantity": 0}) == {
        "cart_item_id": "cart_003",
        "removed": True,
    }
    assert [r["cart_item_id"] for r in diff(ex)["cart_items"]["deleted"]] == ["cart_003"]


def test_view_cart(ex: Executor) -> None:
    out = ok(ex, "view_cart", {})
    assert [ln["cart_item_id"] for ln in out["lines"]] == ["cart_001", "cart_002", "cart_003"]
    assert out["subtotal"] == round(sum(ln["line_total"] for ln in out["lines"]), 2)
    assert out["price_changes"] == [] and out["currency"] == "CNY"
    assert [a["label"] for a in out["addresses"]] == ["Home", "Work"]
    assert out["default_payment_method_id"] == "pm_002"
    assert {c["code"] for c in out["applicable_coupons"]} >= {"SAVEMORE"}
    assert all(c["claimed"] for c in out["applicable_coupons"])
    assert diff(ex) == {}


def test_add_shipping_address(ex: Executor) -> None:
    out = ok(
        ex,
        "add_shipping_address",
        {
            "label": "Mom's place",
            "recipient": "Zhang Min",
            "phone": "+86 139 1111 2222",
            "address_line": "5 Lake Avenue, 3F",
            "city": "Beijing",
            "is_default": True,
        },
    )
    assert out == {"address_id": "address_003", "label": "Mom's place", "is_default": True}
    d = diff(ex)["addresses"]
    assert [(r["address_id"], r["phone"], r["is_default"]) for r in d["inserted"]] == [
        ("address_003", "+8613911112222", 1)
    ]
    assert [(u["after"]["address_id"], u["after"]["is_default"]) for u in d["updated"]] == [("address_001", 0)]


def test_add_shipping_address_same_address_is_a_duplicate(ex: Executor) -> None:
    payload = fails(
        ex,
        "add_shipping_address",
        {
            "label": "Office",
            "recipient": "Wang Lei",
            "phone": "13800001111",
            "address_line": "88  market street, 12F",
            "city": "beijing",
        },
        ErrorType.DUPLICATE_ENTITY,
    )
    assert payload["existing_id"] == "address_002"


def test_checkout_cart_whole_cart(ex: Executor) -> None:
    cart = ok(ex, "view_cart", {})
    before = balance(ex, "pm_002")
    out = ok(
        ex, "checkout_cart", {"address_id": "address_001", "payment_method_id": "pm_002", "coupon_code": "savemore"}
    )
    assert (out["order_id"], out["status"], out["subtotal"], out["discount"], out["delivery_fee"]) == (
        "order_021",
        "pending",
        cart["subtotal"],
        20.0,
        0.0,
    )
    assert out["total"] == round(cart["subtotal"] - 20, 2)
    d = diff(ex)
    [order] = d["orders"]["inserted"]
    assert (order["total"], order["coupon_code"], order["address_id"], order["status"]) == (
        out["total"],
        "SAVEMORE",
        "address_001",
        "pending",
    )
    assert [(i["product_id"], i["quantity"]) for i in d["order_items"]["inserted"]] == [
        (ln["product_id"], ln["quantity"]) for ln in cart["lines"]
    ]
    assert len(d["cart_items"]["deleted"]) == 3
    [txn] = d["transactions"]["inserted"]
    assert (txn["amount"], txn["ref_id"], txn["method_id"]) == (-out["total"], "order_021", "pm_002")
    assert balance(ex, "pm_002") == round(before - out["total"], 2)
    assert [u["after"]["used"] for u in d["coupons"]["updated"]] == [1]
    shirt = cart["lines"][0]
    [stock] = [u for u in d["world_products"]["updated"] if u["after"]["product_id"] == shirt["product_id"]]
    assert stock["after"]["stock"] == stock["before"]["stock"] - shirt["quantity"]


def test_checkout_selected_lines_with_express_delivery(ex: Executor) -> None:
    out = ok(
        ex,
        "checkout_cart",
        {"address_id": "address_002", "payment_method_id": "pm_001", "item_ids": ["cart_002"], "delivery": "express"},
    )
    assert out["delivery_fee"] == 20.0 and len(out["items"]) == 1
    assert [r["cart_item_id"] for r in diff(ex)["cart_items"]["deleted"]] == ["cart_002"]


def test_checkout_above_threshold_needs_confirm(ex: Executor) -> None:
    ok(ex, "add_to_cart", {"product_id": ANCHOR, "quantity": 1})
    args = {"address_id": "address_001", "payment_method_id": "pm_001"}
    payload = fails(ex, "checkout_cart", args, ErrorType.CONFIRMATION_REQUIRED)
    assert payload["total"] >= 3000
    out = ok(ex, "checkout_cart", {**args, "confirm": True})
    assert out["total"] == payload["total"]


def test_cancel_order(ex: Executor) -> None:
    order = order_with(ex, "pending")
    before = balance(ex, order["payment_method_id"])
    out = ok(ex, "cancel_order", {"order_id": order["order_id"], "reason": "found_cheaper"})
    assert out == {"order_id": order["order_id"], "status": "cancelled", "refunded": order["total"], "currency": "CNY"}
    d = diff(ex)
    [upd] = d["orders"]["updated"]
    assert (upd["after"]["status"], upd["after"]["cancel_reason"]) == ("cancelled", "found_cheaper")
    assert [u["after"]["status"] for u in d["transactions"]["updated"]] == ["refunded"]
    assert balance(ex, order["payment_method_id"]) == round(before + order["total"], 2)
    assert "world_products" in d


# ---- 6.3 Order Tracking & History ---------------------------------------------------------------


def test_list_orders(ex: Executor) -> None:
    out = ok(ex, "list_orders", {})
    assert out["count"] == 10 and out["total_matches"] == 20
    stamps = [o["placed_at"] for o in out["orders"]]
    assert stamps == sorted(stamps, reverse=True) and out["orders"][0]["items"]
    delivered = ok(ex, "list_orders", {"status": "delivered", "date_from": "2025-05-01", "limit": 50})
    assert delivered["orders"] and all(
        o["status"] == "delivered" and o["placed_at"] >= "2025-05-01" for o in delivered["orders"]
    )
    title = out["orders"][0]["items"][0]["title"]
    found = ok(ex, "list_orders", {"query": title.split()[1]})
    assert out["orders"][0]["order_id"] in [o["order_id"] for o in found["orders"]]
    assert diff(ex) == {}


def test_track_order(ex: Executor) -> None:
    shipped = order_with(ex, "shipped")
    out = ok(ex, "track_order", {"order_id": shipped["order_id"]})
    assert out["status"] == "shipped" and out["carrier"] and out["tracking_number"]
    assert out["events"][0]["status"] == "picked_up" and out["shipment_status"] == out["events"][-1]["status"]
    pending = ok(ex, "track_order", {"order_id": order_with(ex, "pending")["order_id"]})
    assert pending["tracking_number"] is None and pending["events"][0]["status"] == "order_placed"


# ---- 6.4 Returns & Refunds ----------------------------------------------------------------------


def test_request_return_whole_order(ex: Executor) -> None:
    order = order_with(ex, "delivered", recent=True)
    items = items_of(ex, order["order_id"])
    out = ok(
        ex, "request_return", {"order_id": order["order_id"], "item_ids": items, "reason": "defective", "pickup": True}
    )
    assert (out["return_id"], out["status"], out["item_ids"]) == ("return_002", "requested", items)
    d = diff(ex)
    [ret] = d["returns"]["inserted"]
    assert (json.loads(ret["item_ids_json"]), ret["pickup"], ret["refund_method"]) == (items, 1, "original")
    assert [u["after"]["status"] for u in d["orders"]["updated"]] == ["returned"]


def test_request_return_of_one_item_keeps_the_order_delivered(ex: Executor) -> None:
    order = next(
        o
        for o in query(ex, select(orders).where(orders.c.status == "delivered", orders.c.delivered_at >= "2025-05-14"))
        if len(items_of(ex, o["order_id"])) > 1
    )
    first = items_of(ex, order["order_id"])[0]
    ok(
        ex,
        "request_return",
        {"order_id": order["order_id"], "item_ids": [first], "reason": "changed_mind", "refund_method": "store_credit"},
    )
    assert "orders" not in diff(ex)
    fails(
        ex,
        "request_return",
        {"order_id": order["order_id"], "item_ids": [first], "reason": "defective"},
        ErrorType.DUPLICATE_ENTITY,
    )


# ---- 6.5 Coupons & 6.6 Wishlist and Price Alerts ------------------------------------------------


def test_list_coupons(ex: Executor) -> None:
    out = ok(ex, "list_coupons", {})
    codes = {c["code"] for c in out["coupons"]}
    assert "WELCOME" not in codes and "SPRING" not in codes  # used, expired
    assert {"FLASHBIG", "SAVEMORE", "TECHDAY"} <= codes
    assert not next(c for c in out["coupons"] if c["code"] == "FLASHBIG")["claimed"]
    usable = ok(ex, "list_coupons", {"applicable_to_cart": True})
    assert usable["coupons"] and all(c["claimed"] and c["discount_on_cart"] > 0 for c in usable["coupons"])
    tech = ok(ex, "list_coupons", {"store": "techmall"})
    assert {c["store"] for c in tech["coupons"]} == {None, "TechMall"}
    assert diff(ex) == {}


def test_add_to_wishlist(ex: Executor) -> None:
    assert ok(ex, "add_to_wishlist", {"product_id": ANCHOR})["product_id"] == ANCHOR
    assert [r["product_id"] for r in diff(ex)["wishlist"]["inserted"]] == [ANCHOR]


def test_set_price_alert(ex: Executor) -> None:
    out = ok(ex, "set_price_alert", {"product_id": ANCHOR, "target_price": 1999.5, "expires_on": "2025-06-30"})
    assert out == {
        "alert_id": "price_alert_003",
        "product_id": ANCHOR,
        "target_price": 1999.5,
        "current_price": 2399.0,
        "expires_on": "2025-06-30",
    }
    [row] = diff(ex)["price_alerts"]["inserted"]
    assert (row["status"], row["target_price"]) == ("active", 1999.5)


def test_set_price_alert_needs_notifications(ex: Executor) -> None:
    prepare(
        ex.conn,
        update(app_permissions)
        .where(app_permissions.c.app_id == "shop", app_permissions.c.permission == "NOTIFICATIONS")
        .values(state="not_requested"),
    )
    payload = fails(ex, "set_price_alert", {"product_id": ANCHOR, "target_price": 2000}, ErrorType.PERMISSION_DENIED)
    assert payload["permission"] == "NOTIFICATIONS"


def test_money_has_at_most_two_decimals(ex: Executor) -> None:
    fails(ex, "set_price_alert", {"product_id": ANCHOR, "target_price": 1999.999}, ErrorType.INVALID_ARGUMENT_VALUE)


# ---- every declared error -----------------------------------------------------------------------

Args = dict[str, Any] | Callable[[Executor], dict[str, Any]]
Setup = Callable[[Executor], list[Executable]]


def _stock(product_id: str, stock: int) -> Setup:
    return lambda ex: [update(world_products).where(world_products.c.product_id == product_id).values(stock=stock)]


def _cart_price_up(ex: Executor) -> list[Executable]:
    line = query(ex, select(cart_items).where(cart_items.c.cart_item_id == "cart_002"))[0]
    return [
        update(world_products)
        .where(world_products.c.product_id == line["product_id"])
        .values(price=line["unit_price_at_add"] + 30)
    ]


def _cart_product_gone(ex: Executor) -> list[Executable]:
    line = query(ex, select(cart_items).where(cart_items.c.cart_item_id == "cart_003"))[0]
    return [update(world_products).where(world_products.c.product_id == line["product_id"]).values(stock=0)]


CHECKOUT = {"address_id": "address_001", "payment_method_id": "pm_002"}

# (tool, arguments (or a function of the world), setup statements, expected error)
ERROR_CASES: list[tuple[str, Args, Setup | None, str]] = [
    ("get_product_details", {"product_id": "product_999"}, None, "EntityNotFound"),
    ("add_to_cart", {"product_id": "product_999", "quantity": 1}, None, "EntityNotFound"),
    (
        "add_to_cart",
        lambda ex: {"product_id": variant_product(ex)[0]["product_id"], "quantity": 1},
        None,
        "MissingRequiredArgument",
    ),
    (
        "add_to_cart",
        lambda ex: {"product_id": variant_product(ex)[0]["product_id"], "quantity": 1, "variant": "Plaid / XXS"},
        None,
        "InvalidArgumentValue",
    ),
    ("add_to_cart", {"product_id": ANCHOR, "quantity": 1, "variant": "Black"}, None, "InvalidArgumentValue"),
    ("add_to_cart", {"product_id": ANCHOR, "quantity": 21}, None, "ResourceUnavailable"),
    ("add_to_cart", {"product_id": ANCHOR, "quantity": 1}, _stock(ANCHOR, 0), "ResourceUnavailable"),
    ("update_cart_item", {"cart_item_id": "cart_999", "quantity": 1}, None, "EntityNotFound"),
    ("update_cart_item", {"cart_item_id": "cart_002", "quantity": 99}, None, "ResourceUnavailable"),
    (
        "add_shipping_address",
        {
            "label": "home",
            "recipient": "Wang Lei",
            "phone": "+86 138 0000 1111",
            "address_line": "1 New Road",
            "city": "Beijing",
        },
        None,
        "DuplicateEntity",
    ),
    ("checkout_cart", {**CHECKOUT, "address_id": "address_999"}, None, "EntityNotFound"),
    ("checkout_cart", {**CHECKOUT, "payment_method_id": "pm_999"}, None, "EntityNotFound"),
    ("checkout_cart", {**CHECKOUT, "item_ids": ["cart_001", "cart_999"]}, None, "EntityNotFound"),
    ("checkout_cart", CHECKOUT, lambda ex: [delete(cart_items)], "StateConflict"),
    (
        "checkout_cart",
        CHECKOUT,
        lambda ex: [update(payment_methods).where(payment_methods.c.method_id == "pm_002").values(status="frozen")],
        "StateConflict",
    ),
    ("checkout_cart", CHECKOUT, _cart_price_up, "StaleReference"),
    ("checkout_cart", CHECKOUT, _cart_product_gone, "ResourceUnavailable"),
    ("checkout_cart", {**CHECKOUT, "coupon_code": "SPRING"}, None, "ResourceUnavailable"),
    ("checkout_cart", {**CHECKOUT, "coupon_code": "FLASHBIG"}, None, "ResourceUnavailable"),
    ("checkout_cart", {**CHECKOUT, "coupon_code": "TECHDAY"}, None, "ResourceUnavailable"),
    ("checkout_cart", {**CHECKOUT, "coupon_code": "NOSUCHCODE"}, None, "ResourceUnavailable"),
    ("checkout_cart", {**CHECKOUT, "payment_method_id": "pm_003"}, None, "LimitExceeded"),
    (
        "checkout_cart",
        CHECKOUT,
        lambda ex: [
            insert(cart_items).values(
                cart_item_id="cart_009", product_id=ANCHOR, variant=None, quantity=1, unit_price_at_add=2399.0
            )
        ],
        "ConfirmationRequired",
    ),
    ("track_order", {"order_id": "order_999"}, None, "EntityNotFound"),
    ("cancel_order", {"order_id": "order_999"}, None, "EntityNotFound"),
    ("cancel_order", lambda ex: {"order_id": order_with(ex, "shipped")["order_id"]}, None, "StateConflict"),
    ("cancel_order", lambda ex: {"order_id": order_with(ex, "cancelled")["order_id"]}, None, "StateConflict"),
    (
        "request_return",
        {"order_id": "order_999", "item_ids": ["oitem_001"], "reason": "defective"},
        None,
        "EntityNotFound",
    ),
    (
        "request_return",
        lambda ex: {
            "order_id": order_with(ex, "delivered", True)["order_id"],
            "item_ids": ["oitem_999"],
            "reason": "defective",
        },
        None,
        "EntityNotFound",
    ),
    (
        "request_return",
        lambda ex: {
            "order_id": order_with(ex, "shipped")["order_id"],
            "item_ids": items_of(ex, order_with(ex, "shipped")["order_id"]),
            "reason": "defective",
        },
        None,
        "StateConflict",
    ),
    (
        "request_return",
        lambda ex: {
            "order_id": order_with(ex, "delivered", False)["order_id"],
            "item_ids": items_of(ex, order_with(ex, "delivered", False)["order_id"]),
            "reason": "changed_mind",
        },
        None,
        "StateConflict",
    ),
    (
        "request_return",
        lambda ex: {
            "order_id": order_with(ex, "returned")["order_id"],
            "item_ids": items_of(ex, order_with(ex, "returned")["order_id"]),
            "reason": "defective",
        },
        lambda ex: [update(orders).where(orders.c.status == "returned").values(delivered_at="2025-06-01T10:00:00")],
        "DuplicateEntity",
    ),
    ("add_to_wishlist", {"product_id": "product_999"}, None, "EntityNotFound"),
    (
        "add_to_wishlist",
        lambda ex: {"product_id": query(ex, select(wishlist))[0]["product_id"]},
        None,
        "DuplicateEntity",
    ),
    ("set_price_alert", {"product_id": "product_999", "target_price": 10}, None, "EntityNotFound"),
    ("set_price_alert", {"product_id": ANCHOR, "target_price": 2399}, None, "InvalidArgumentValue"),
    (
        "set_price_alert",
        {"product_id": ANCHOR, "target_price": 2000, "expires_on": "2025-06-12"},
        None,
        "InvalidArgumentValue",
    ),
    (
        "set_price_alert",
        lambda ex: {
            "product_id": query(ex, select(price_alerts).where(price_alerts.c.status == "active"))[0]["product_id"],
            "target_price": 1,
        },
        None,
        "DuplicateEntity",
    ),
]


@pytest.mark.parametrize(
    ("name", "args", "setup", "error"), ERROR_CASES, ids=[f"{c[0]}-{c[3]}-{i}" for i, c in enumerate(ERROR_CASES)]
)
def test_declared_error_changes_nothing(ex: Executor, name: str, args: Args, setup: Setup | None, error: str) -> None:
    arguments = args(ex) if callable(args) else args  # read from the world before the setup changes it
    if setup:
        prepare(ex.conn, *setup(ex))
    fails(ex, name, arguments, ErrorType(error))


def test_every_declared_error_is_tested() -> None:
    declared = {(n, e.value) for n in TOOLS for e in REGISTRY[n].errors}
    assert {(c[0], c[3]) for c in ERROR_CASES} == declared


def test_failed_checkout_leaves_money_and_ids_alone(ex: Executor) -> None:
    fails(ex, "checkout_cart", {**CHECKOUT, "payment_method_id": "pm_003"}, ErrorType.LIMIT_EXCEEDED)
    out = ok(ex, "checkout_cart", CHECKOUT)
    assert out["order_id"] == "order_021"
    assert query(ex, select(func.count()).select_from(returns))[0]["count_1"] == 1
