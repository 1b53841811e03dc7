"""D6 Shopping & E-commerce: product search, the cart and checkout, orders, returns, coupons, wishlist and alerts.

One shop app sells the products of several stores. Prices live in ``world_products`` (scenario
events may change them); a cart line remembers the price it was added at, so a checkout after a
price change is a ``StaleReference`` until the line is refreshed with ``update_cart_item``.
Variant products keep per-variant stock in ``variants_json``; the product's ``stock`` is the
total, and a variant can never sell more than either.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import random
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field
from sqlalchemy import (
    Column,
    Connection,
    Float,
    ForeignKey,
    Integer,
    Select,
    Table,
    Text,
    bindparam,
    cast,
    func,
    insert,
    select,
    update,
)

from sandbox.domains.common import (
    addresses,
    charge,
    payment_method,
    payment_methods,
    refund,
    transactions,
)
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, normalise_phone, row_by_key, rows
from sandbox.locales import CURRENCIES, figures, round_amount, shelf_price, to_step
from sandbox.personas import Persona, seeder
from sandbox.schema import USER, WORLD, stamps, table
from sandbox.tooling import Date, Phone, tool

world_products = table(
    "world_products",
    WORLD,
    Column("product_id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("brand", Text, nullable=False),
    Column("category", Text, nullable=False),
    Column("store", Text, nullable=False),
    Column("price", Float, nullable=False),  # base price; a variant may add its price_delta
    Column("currency", Text, nullable=False),
    Column("rating", Float, nullable=False),
    Column("review_count", Integer, nullable=False),
    Column("sales", Integer, nullable=False),
    Column("stock", Integer, nullable=False),  # total units; caps every variant
    Column("variants_json", Text, nullable=False),  # [{"name", "stock", "price_delta"?}]; [] = no variants
    Column("specs_json", Text, nullable=False),
    Column("price_history_json", Text, nullable=False),  # [[YYYY-MM-DD, price], ...], oldest first
    natural_key=("title",),
)

world_reviews = table(
    "world_reviews",
    WORLD,
    Column("review_id", Integer, primary_key=True),
    Column("product_id", Text, nullable=False),
    Column("rating", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("author", Text, nullable=False),
    Column("posted_on", Text, nullable=False),
)

cart_items = table(
    "cart_items",
    USER,
    Column("cart_item_id", Text, primary_key=True),
    Column("product_id", Text, nullable=False),
    Column("variant", Text),
    Column("quantity", Integer, nullable=False),
    Column("unit_price_at_add", Float, nullable=False),
    *stamps(),
    natural_key=("product_id", "variant"),
    id_prefix="cart",
)

orders = table(
    "orders",
    USER,
    Column("order_id", Text, primary_key=True),
    Column("status", Text, nullable=False),  # pending | shipped | delivered | cancelled | returned
    Column("subtotal", Float, nullable=False),
    Column("discount", Float, nullable=False),
    Column("delivery_fee", Float, nullable=False),
    Column("total", Float, nullable=False),
    Column("currency", Text, nullable=False),
    Column("address_id", Text, nullable=False),
    Column("payment_method_id", Text, nullable=False),
    Column("coupon_code", Text),
    Column("delivery", Text, nullable=False),  # standard | express | pickup
    Column("placed_at", Text, nullable=False),
    Column("delivered_at", Text),
    Column("cancel_reason", Text),
    *stamps(),
)

order_items = table(
    "order_items",
    USER,
    Column("item_id", Text, primary_key=True),
    Column("order_id", Text, ForeignKey("orders.order_id"), nullable=False),
    Column("product_id", Text, nullable=False),
    Column("title", Text, nullable=False),  # as sold
    Column("variant", Text),
    Column("quantity", Integer, nullable=False),
    Column("unit_price", Float, nullable=False),
    *stamps(),
    natural_key=("order_id", "product_id", "variant"),
    id_prefix="oitem",
)

shipments = table(
    "shipments",
    USER,
    Column("shipment_id", Text, primary_key=True),
    Column("order_id", Text, ForeignKey("orders.order_id"), nullable=False),
    Column("carrier", Text, nullable=False),
    Column("tracking_number", Text, nullable=False),
    Column("status", Text, nullable=False),  # the latest event's status
    Column("eta", Text),
    Column("events_json", Text, nullable=False),  # [{"ts", "status", "location"}], oldest first
    *stamps(),
    natural_key=("tracking_number",),
)

returns = table(
    "returns",
    USER,
    Column("return_id", Text, primary_key=True),
    Column("order_id", Text, ForeignKey("orders.order_id"), nullable=False),
    Column("item_ids_json", Text, nullable=False),
    Column("reason", Text, nullable=False),
    Column("refund_method", Text, nullable=False),  # original | store_credit
    Column("pickup", Integer, nullable=False),
    Column("refund_amount", Float, nullable=False),
    Column("status", Text, nullable=False),  # requested | refunded
    *stamps(),
    natural_key=("order_id", "item_ids_json"),
)

coupons = table(
    "coupons",
    USER,
    Column("coupon_id", Text, primary_key=True),
    Column("code", Text, nullable=False),
    Column("store", Text),  # null = every store
    Column("description", Text, nullable=False),
    Column("discount_type", Text, nullable=False),  # amount | percent
    Column("discount", Float, nullable=False),
    Column("min_spend", Float, nullable=False),
    Column("expires_at", Text, nullable=False),  # last valid day, YYYY-MM-DD
    Column("claimed", Integer, nullable=False),
    Column("used", Integer, nullable=False),
    *stamps(),
    natural_key=("code",),
)

wishlist = table(
    "wishlist",
    USER,
    Column("product_id", Text, primary_key=True),
    *stamps(),
    natural_key=("product_id",),
)

price_alerts = table(
    "price_alerts",
    USER,
    Column("alert_id", Text, primary_key=True),
    Column("product_id", Text, nullable=False),
    Column("target_price", Float, nullable=False),
    Column("expires_on", Text),
    Column("status", Text, nullable=False),  # active | triggered | cancelled
    *stamps(),
    natural_key=("product_id", "target_price"),
    id_prefix="price_alert",
)

APP = "shop"
MERCHANT = "Shop"
# an order total at or above this (in the payment method's currency) needs confirm
CONFIRM_THRESHOLD = {"CNY": 3000.0, "USD": 3000.0}
RETURN_WINDOW_DAYS = 30
MAX_LINE_QUANTITY = 99
# Delivery fees per currency; standard delivery is free from ``free_over``.
FEES = {
    "CNY": {"standard": 10.0, "express": 20.0, "pickup": 0.0, "free_over": 99.0},
    "USD": {"standard": 5.99, "express": 14.99, "pickup": 0.0, "free_over": 35.0},
}


def _cents(value: float) -> float:
    if round(value, 2) != value:
        raise ValueError("use at most 2 decimals")
    return value


Money = Annotated[float, Field(ge=0, le=10_000_000), AfterValidator(_cents)]
Id = Annotated[str, Field(min_length=1, max_length=64)]
Query = Annotated[str, Field(min_length=1, max_length=200)]
Limit = Annotated[int, Field(ge=1, le=50)]
Label = Annotated[str, Field(min_length=1, max_length=40)]
Line = Annotated[str, Field(min_length=1, max_length=200)]


# ---- shared helpers -----------------------------------------------------------------------------


def get_row(ctx: Ctx, tbl: Table, value: str, hint: str) -> dict[str, Any]:
    """The row with this primary key, or EntityNotFound naming the tool that lists such ids."""
    key = next(iter(tbl.primary_key.columns)).name
    row = ctx.conn.execute(row_by_key(tbl), {"key": value}).first()
    if row is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no {key.removesuffix('_id').replace('_', ' ')} {value!r}",
            field=key,
            hint=hint,
        )
    return dict(row._mapping)


def shipping_address(ctx: Ctx, address_id: str) -> dict[str, Any]:
    """A saved address (shared with courier pickups and home services)."""
    return get_row(ctx, addresses, address_id, "view_cart")


def _product(ctx: Ctx, product_id: str) -> dict[str, Any]:
    return get_row(ctx, world_products, product_id, "search_products")


def _variants(product: dict[str, Any]) -> list[dict[str, Any]]:
    return list(json.loads(product["variants_json"]))


def _variant(product: dict[str, Any], name: str | None) -> dict[str, Any] | None:
    return next((v for v in _variants(product) if v["name"] == name), None)


def _unit_price(product: dict[str, Any], variant: str | None) -> float:
    v = _variant(product, variant)
    return round(product["price"] + (v.get("price_delta", 0.0) if v else 0.0), 2)


def _available(product: dict[str, Any], variant: str | None) -> int:
    v = _variant(product, variant)
    return max(0, min(product["stock"], v["stock"])) if v else max(0, product["stock"])


def _pick_variant(product: dict[str, Any], variant: str | None) -> str | None:
    """The product's own spelling of the requested variant; variant products need one."""
    names = [v["name"] for v in _variants(product)]
    if not names:
        if variant is not None:
            raise ToolError(
                ErrorType.INVALID_ARGUMENT_VALUE, f"{product['product_id']} has no variants", field="variant"
            )
        return None
    if variant is None:
        raise ToolError(
            ErrorType.MISSING_REQUIRED_ARGUMENT,
            f"{product['product_id']} comes in variants: choose one",
            fields=["variant"],
            candidates=names,
        )
    match = next((n for n in names if n.lower() == variant.strip().lower()), None)
    if match is None:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"{product['product_id']} has no variant {variant!r}",
            field="variant",
            candidates=names,
        )
    return match


_SET_PRODUCT = update(world_products).where(world_products.c.product_id == bindparam("match_product_id"))


def _move_stock(ctx: Ctx, product_id: str, variant: str | None, delta: int) -> None:
    """Add ``delta`` units to a product (and its variant); products gone from the world are skipped."""
    row = ctx.conn.execute(row_by_key(world_products), {"key": product_id}).first()
    if row is None:
        return
    variants = _variants(dict(row._mapping))
    for v in variants:
        if v["name"] == variant:
            v["stock"] = max(0, v["stock"] + delta)
    ctx.conn.execute(
        _SET_PRODUCT,
        {"match_product_id": product_id, "stock": max(0, row.stock + delta), "variants_json": json.dumps(variants)},
    )


def _words(text: str) -> list[str]:
    """Lower-case words with a plural 's' dropped, so "headphone" finds "Headphones"."""
    return [w[:-1] if len(w) > 3 and w.endswith("s") else w for w in re.findall(r"[a-z0-9]+", text.lower())]


_CART = select(cart_items).order_by(cart_items.c.cart_item_id)
_CART_LINES = _CART.where(cart_items.c.cart_item_id.in_(bindparam("ids", expanding=True)))
_PRODUCTS = select(world_products).where(world_products.c.product_id.in_(bindparam("ids", expanding=True)))


def _cart_lines(ctx: Ctx, ids: list[str] | None = None) -> list[dict[str, Any]]:
    """Cart lines with their products' current price and stock (every id must exist)."""
    lines = rows(ctx.conn.execute(_CART) if ids is None else ctx.conn.execute(_CART_LINES, {"ids": ids}))
    missing = sorted(set(ids or []) - {ln["cart_item_id"] for ln in lines})
    if missing:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no cart line(s) {', '.join(missing)}",
            field="item_ids",
            missing=missing,
            hint="view_cart",
        )
    products = {
        p["product_id"]: p for p in rows(ctx.conn.execute(_PRODUCTS, {"ids": [ln["product_id"] for ln in lines]}))
    }
    out = []
    for ln in lines:
        p = products.get(ln["product_id"])
        price = _unit_price(p, ln["variant"]) if p else ln["unit_price_at_add"]
        out.append(
            {
                "cart_item_id": ln["cart_item_id"],
                "product_id": ln["product_id"],
                "title": p["title"] if p else "(no longer sold)",
                "store": p["store"] if p else None,
                "variant": ln["variant"],
                "quantity": ln["quantity"],
                "unit_price": price,
                "unit_price_at_add": ln["unit_price_at_add"],
                "price_changed": price != ln["unit_price_at_add"],
                "available": _available(p, ln["variant"]) if p else 0,
                "line_total": round(price * ln["quantity"], 2),
                "currency": p["currency"] if p else None,
            }
        )
    return out


def _coupon_lines(coupon: dict[str, Any], lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [ln for ln in lines if coupon["store"] is None or ln["store"] == coupon["store"]]


def _coupon_problem(coupon: dict[str, Any], lines: list[dict[str, Any]], today: str) -> str | None:
    """Why the coupon cannot be used on these lines (None when it can)."""
    if coupon["used"]:
        return "already used"
    if coupon["expires_at"] < today:
        return f"expired on {coupon['expires_at']}"
    if not coupon["claimed"]:
        return "not claimed yet (claim it in the shop app first)"
    eligible = _coupon_lines(coupon, lines)
    if not eligible:
        return f"only valid for items from {coupon['store']}"
    spend = round(sum(ln["line_total"] for ln in eligible), 2)
    if spend < coupon["min_spend"]:
        return f"needs a spend of {coupon['min_spend']:.2f} on eligible items, the cart has {spend:.2f}"
    return None


def _discount(coupon: dict[str, Any], lines: list[dict[str, Any]]) -> float:
    eligible = sum(ln["line_total"] for ln in _coupon_lines(coupon, lines))
    off = eligible * coupon["discount"] / 100 if coupon["discount_type"] == "percent" else coupon["discount"]
    return round(min(off, eligible), 2)


def _coupon_out(coupon: dict[str, Any]) -> dict[str, Any]:
    keep = ("coupon_id", "code", "store", "description", "discount_type", "discount", "min_spend", "expires_at")
    return {**{k: coupon[k] for k in keep}, "claimed": bool(coupon["claimed"])}


_COUPONS = select(coupons).order_by(coupons.c.code)


def _usable_coupons(ctx: Ctx, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    today = ctx.now.date().isoformat()
    found = rows(ctx.conn.execute(_COUPONS))
    return [
        {**_coupon_out(c), "discount_on_cart": _discount(c, lines)}
        for c in found
        if lines and _coupon_problem(c, lines, today) is None
    ]


def _fee(currency: str, delivery: str, subtotal: float) -> float:
    fees = figures(FEES, currency, shelf_price)
    return 0.0 if delivery == "standard" and subtotal >= fees["free_over"] else fees[delivery]


_ORDER_ITEMS = (
    select(order_items)
    .where(order_items.c.order_id.in_(bindparam("order_ids", expanding=True)))
    .order_by(order_items.c.item_id)
)


def _order_items(ctx: Ctx, order_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    by_order: dict[str, list[dict[str, Any]]] = {}
    keep = ("item_id", "product_id", "title", "variant", "quantity", "unit_price")
    for it in rows(ctx.conn.execute(_ORDER_ITEMS, {"order_ids": order_ids})):
        by_order.setdefault(it["order_id"], []).append({k: it[k] for k in keep})
    return by_order


ORDER_KEYS = (
    "order_id",
    "status",
    "placed_at",
    "delivered_at",
    "total",
    "currency",
    "delivery",
    "address_id",
    "payment_method_id",
    "coupon_code",
)


# ---- Product Search & Compare (6.1) -------------------------------------------------------------


def _price_range(args: dict[str, Any]) -> str | None:
    """min_price is not above max_price."""
    lo, hi = args.get("min_price"), args.get("max_price")
    return "min_price is above max_price" if lo is not None and hi is not None and lo > hi else None


SORTS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "price_asc": lambda p: (p["price"], p["product_id"]),
    "price_desc": lambda p: (-p["price"], p["product_id"]),
    "rating": lambda p: (-p["rating"], -p["review_count"], p["product_id"]),
    "sales": lambda p: (-p["sales"], p["product_id"]),
}


@functools.lru_cache(maxsize=128)
def _product_search(
    category: bool, brand: bool, min_price: bool, max_price: bool, min_rating: bool, in_stock_only: bool
) -> Select[Any]:
    """search_products' statement for one combination of filters, built once (its values are bound)."""
    p = world_products.c
    q = select(world_products)
    if category:
        q = q.where(func.lower(p.category) == bindparam("category"))
    if brand:
        q = q.where(func.lower(p.brand) == bindparam("brand"))
    if min_price:
        q = q.where(p.price >= bindparam("min_price"))
    if max_price:
        q = q.where(p.price <= bindparam("max_price"))
    if min_rating:
        q = q.where(p.rating >= bindparam("min_rating"))
    if in_stock_only:
        q = q.where(p.stock > 0)
    return q


@functools.lru_cache(maxsize=1 << 14)
def _product_terms(title: str, brand: str, category: str, store: str) -> tuple[frozenset[str], frozenset[str]]:
    """A product's title words and all its searchable words (memoised: the catalogue is searched again and
    again, and splitting every product's text dominated a search)."""
    title_words = _title_words(title)
    return title_words, title_words | frozenset(_words(f"{brand} {category} {store}"))


@functools.lru_cache(maxsize=1 << 14)
def _title_words(title: str) -> frozenset[str]:
    """The words of a product title, as ``_words`` splits them (memoised, as ``_product_terms``)."""
    return frozenset(_words(title))


@functools.lru_cache(maxsize=8)
def _order_search(status: bool, date_from: bool) -> Select[Any]:
    """list_orders' statement for one combination of filters, built once (its values are bound)."""
    q = select(orders).order_by(orders.c.placed_at.desc(), orders.c.order_id)
    if status:
        q = q.where(orders.c.status == bindparam("status"))
    if date_from:
        q = q.where(orders.c.placed_at >= bindparam("date_from"))
    return q


@tool(l2="6.1", app=APP, mutating=False, network="internet", check=_price_range)
def search_products(
    ctx: Ctx,
    query: Query,
    category: str | None = None,
    brand: str | None = None,
    min_price: Money | None = None,
    max_price: Money | None = None,
    min_rating: Annotated[float, Field(ge=0, le=5)] | None = None,
    sort: Literal["relevance", "price_asc", "price_desc", "rating", "sales"] = "relevance",
    in_stock_only: bool = False,
    limit: Limit = 10,
) -> dict[str, Any]:
    """Search the shop's products by keywords; every word must match the title, brand, category or store.

    Args:
        query: Keywords, e.g. "noise cancelling headphones" or "Sony WH-1000XM5".
        category: Only this category: electronics, home, clothing, beauty, sports, books or grocery.
        brand: Only this brand (case-insensitive).
        min_price: Lowest base price.
        max_price: Highest base price.
        min_rating: Lowest average rating (0-5).
        sort: Result order; relevance puts title matches and best sellers first.
        in_stock_only: Leave out products that are sold out.
        limit: Maximum number of results.
    """
    values = {
        "category": category.strip().lower() if category else None,
        "brand": brand.strip().lower() if brand else None,
        "min_price": min_price,
        "max_price": max_price,
        "min_rating": min_rating,
    }
    values = {k: v for k, v in values.items() if v is not None}
    result = ctx.conn.execute(
        _product_search(
            bool(category),
            bool(brand),
            min_price is not None,
            max_price is not None,
            min_rating is not None,
            in_stock_only,
        ),
        values,
    )
    keys = tuple(result.keys())
    at_title, at_brand, at_category, at_store = (keys.index(k) for k in ("title", "brand", "category", "store"))
    wanted = _words(query)
    found = []
    for prod in result:  # by position, and only the matches become dicts: a search reads the whole catalogue
        title, every = _product_terms(prod[at_title], prod[at_brand], prod[at_category], prod[at_store])
        if all(w in every for w in wanted):
            found.append((sum(w in title for w in wanted), dict(zip(keys, prod, strict=True))))
    if sort == "relevance":
        found.sort(key=lambda t: (-t[0], -t[1]["sales"], t[1]["product_id"]))
    else:
        found.sort(key=lambda t: SORTS[sort](t[1]))
    keep = ("product_id", "title", "brand", "category", "store", "price", "currency", "rating", "review_count", "sales")
    results = [
        {**{k: prod[k] for k in keep}, "in_stock": prod["stock"] > 0, "variants": [v["name"] for v in _variants(prod)]}
        for _, prod in found[:limit]
    ]
    return {"products": results, "count": len(results), "total_matches": len(found)}


_REVIEWS = (
    select(world_reviews)
    .where(world_reviews.c.product_id == bindparam("product_id"))
    .order_by(world_reviews.c.posted_on.desc(), world_reviews.c.review_id)
)


@tool(l2="6.1", app=APP, mutating=False, errors=(ErrorType.ENTITY_NOT_FOUND,))
def get_product_details(ctx: Ctx, product_id: Id) -> dict[str, Any]:
    """Full details of one product: specs, variants with price and stock, price history and reviews.

    Args:
        product_id: Id of the product, e.g. product_912.
    """
    prod = _product(ctx, product_id)
    history = json.loads(prod["price_history_json"])
    reviews = rows(ctx.conn.execute(_REVIEWS, {"product_id": product_id}))
    keep = (
        "product_id",
        "title",
        "brand",
        "category",
        "store",
        "price",
        "currency",
        "rating",
        "review_count",
        "sales",
        "stock",
    )
    return {
        **{k: prod[k] for k in keep},
        "specs": json.loads(prod["specs_json"]),
        "variants": [
            {"name": v["name"], "price": _unit_price(prod, v["name"]), "stock": _available(prod, v["name"])}
            for v in _variants(prod)
        ],
        "price_history": [{"date": d, "price": price} for d, price in history],
        "lowest_price_90d": min(
            [price for d, price in history if d >= (ctx.now.date() - dt.timedelta(days=90)).isoformat()]
            + [prod["price"]]
        ),
        "reviews": [{k: r[k] for k in ("rating", "text", "author", "posted_on")} for r in reviews],
    }


# ---- Cart & Checkout (6.2) ----------------------------------------------------------------------

# A product's cart line; a product without variants has a NULL variant, which ``IS`` matches.
_CART_LINE = select(cart_items).where(
    cart_items.c.product_id == bindparam("product_id"), cart_items.c.variant.is_not_distinct_from(bindparam("variant"))
)
_SET_CART_LINE = update(cart_items).where(cart_items.c.cart_item_id == bindparam("match_cart_item_id"))
_ADD_CART_LINE = insert(cart_items)


@tool(
    l2="6.2",
    app=APP,
    mutating=True,
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.MISSING_REQUIRED_ARGUMENT,
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.RESOURCE_UNAVAILABLE,
    ),
)
def add_to_cart(
    ctx: Ctx,
    product_id: Id,
    quantity: Annotated[int, Field(ge=1, le=MAX_LINE_QUANTITY)],
    variant: Annotated[str, Field(min_length=1, max_length=60)] | None = None,
) -> dict[str, Any]:
    """Add a product to the cart; adding the same product and variant again raises that line's quantity.

    Args:
        product_id: Id of the product, e.g. product_912.
        quantity: Units to add.
        variant: The variant's name (required for products sold in variants, e.g. "Black / M" or "256GB").
    """
    prod = _product(ctx, product_id)
    chosen = _pick_variant(prod, variant)
    existing = ctx.conn.execute(_CART_LINE, {"product_id": product_id, "variant": chosen}).first()
    total = quantity + (existing.quantity if existing else 0)
    if total > MAX_LINE_QUANTITY:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"a cart line holds at most {MAX_LINE_QUANTITY} units; "
            f"{existing.cart_item_id if existing else 'it'} would have {total}",
            field="quantity",
        )
    available = _available(prod, chosen)
    if total > available:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"only {available} unit(s) of {prod['title']}{f' ({chosen})' if chosen else ''} in stock",
            available=available,
            **({"hint": "add_to_wishlist"} if available == 0 else {}),
        )
    price = _unit_price(prod, chosen)
    if existing:
        line_id = existing.cart_item_id
        ctx.conn.execute(
            _SET_CART_LINE,
            {"match_cart_item_id": line_id, "quantity": total, "unit_price_at_add": price, "updated_at": ctx.ts()},
        )
    else:
        line_id = ctx.new_id(cart_items)
        ctx.conn.execute(
            _ADD_CART_LINE,
            {
                "cart_item_id": line_id,
                "product_id": product_id,
                "variant": chosen,
                "quantity": total,
                "unit_price_at_add": price,
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            },
        )
    return {
        "cart_item_id": line_id,
        "product_id": product_id,
        "title": prod["title"],
        "variant": chosen,
        "quantity": total,
        "unit_price": price,
        "currency": prod["currency"],
        "merged": existing is not None,
    }


_DELETE_CART_LINE = cart_items.delete().where(cart_items.c.cart_item_id == bindparam("cart_item_id"))


@tool(l2="6.2", app=APP, mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.RESOURCE_UNAVAILABLE))
def update_cart_item(
    ctx: Ctx,
    cart_item_id: Id,
    quantity: Annotated[int, Field(ge=0, le=MAX_LINE_QUANTITY)],
) -> dict[str, Any]:
    """Set a cart line's quantity (0 removes the line); the line also takes the product's current price.

    Args:
        cart_item_id: Id of the cart line, e.g. cart_902 (see view_cart).
        quantity: New quantity; 0 removes the line.
    """
    line = get_row(ctx, cart_items, cart_item_id, "view_cart")
    if quantity == 0:
        ctx.conn.execute(_DELETE_CART_LINE, {"cart_item_id": cart_item_id})
        return {"cart_item_id": cart_item_id, "removed": True}
    prod = _product(ctx, line["product_id"])
    available = _available(prod, line["variant"])
    if quantity > available:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE, f"only {available} unit(s) of {prod['title']} in stock", available=available
        )
    price = _unit_price(prod, line["variant"])
    ctx.conn.execute(
        _SET_CART_LINE,
        {"match_cart_item_id": cart_item_id, "quantity": quantity, "unit_price_at_add": price, "updated_at": ctx.ts()},
    )
    return {
        "cart_item_id": cart_item_id,
        "removed": False,
        "quantity": quantity,
        "unit_price": price,
        "previous_unit_price": line["unit_price_at_add"],
    }


_ADDRESSES = select(addresses).order_by(addresses.c.address_id)
_PAYMENT_METHODS = select(payment_methods).order_by(payment_methods.c.method_id)


@tool(l2="6.2", app=APP, mutating=False)
def view_cart(ctx: Ctx) -> dict[str, Any]:
    """Show the cart (lines, current prices, stock, subtotal, usable coupons), saved addresses and payment methods."""
    lines = _cart_lines(ctx)
    saved = rows(ctx.conn.execute(_ADDRESSES))
    methods = rows(ctx.conn.execute(_PAYMENT_METHODS))
    default = next((m["method_id"] for m in methods if m["is_default"]), None)
    return {
        "lines": lines,
        "subtotal": round(sum(ln["line_total"] for ln in lines), 2),
        "currency": lines[0]["currency"] if lines else None,
        "price_changes": [ln["cart_item_id"] for ln in lines if ln["price_changed"]],
        "applicable_coupons": _usable_coupons(ctx, lines),
        "addresses": [
            {k: a[k] for k in ("address_id", "label", "recipient", "address_line", "city", "is_default")} for a in saved
        ],
        "payment_methods": [
            {k: m[k] for k in ("method_id", "kind", "nickname", "last4", "status", "is_default")} for m in methods
        ],
        "default_payment_method_id": default,
    }


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.lower().split()) == " ".join(b.lower().split())


_ALL_ADDRESSES = select(addresses)
_CLEAR_DEFAULT_ADDRESS = update(addresses).where(addresses.c.is_default == 1)
_ADD_ADDRESS = insert(addresses)


@tool(l2="6.2", app=APP, mutating=True, errors=(ErrorType.DUPLICATE_ENTITY,))
def add_shipping_address(
    ctx: Ctx,
    label: Label,
    recipient: Annotated[str, Field(min_length=1, max_length=120)],
    phone: Phone,
    address_line: Line,
    city: Annotated[str, Field(min_length=1, max_length=80)],
    postal_code: Annotated[str, Field(min_length=1, max_length=20)] | None = None,
    is_default: bool = False,
) -> dict[str, Any]:
    """Save a shipping address (also usable for courier pickups and home services).

    Args:
        label: Short name for the address, e.g. "Mom's place"; must be new.
        recipient: Who receives parcels there.
        phone: The recipient's phone number.
        address_line: Street, number, building and unit.
        city: City.
        postal_code: Postal code.
        is_default: Make this the default shipping address.
    """
    for a in rows(ctx.conn.execute(_ALL_ADDRESSES)):
        same_place = _same_text(a["address_line"], address_line) and _same_text(a["city"], city)
        if _same_text(a["label"], label) or same_place:
            same = "address" if same_place else "label"
            raise ToolError(
                ErrorType.DUPLICATE_ENTITY,
                f"an address with this {same} is saved: {a['address_id']} ({a['label']})",
                existing_id=a["address_id"],
            )
    if is_default:
        ctx.conn.execute(_CLEAR_DEFAULT_ADDRESS, {"is_default": 0, "updated_at": ctx.ts()})
    aid = ctx.new_id(addresses)
    ctx.conn.execute(
        _ADD_ADDRESS,
        {
            "address_id": aid,
            "label": label,
            "recipient": recipient,
            "phone": normalise_phone(phone),
            "address_line": address_line,
            "city": city,
            "postal_code": postal_code,
            "is_default": int(is_default),
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"address_id": aid, "label": label, "is_default": is_default}


_COUPON_BY_CODE = select(coupons).where(func.lower(coupons.c.code) == bindparam("code"))  # bind the code lower-cased
_ADD_ORDER = insert(orders)
_ADD_ORDER_ITEM = insert(order_items)
_DELETE_CART_LINES = cart_items.delete().where(cart_items.c.cart_item_id.in_(bindparam("ids", expanding=True)))
_SET_COUPON_BY_CODE = update(coupons).where(coupons.c.code == bindparam("match_code"))


@tool(
    l2="6.2",
    app=APP,
    mutating=True,
    network="internet",
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.STATE_CONFLICT,
        ErrorType.STALE_REFERENCE,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.LIMIT_EXCEEDED,
        ErrorType.CONFIRMATION_REQUIRED,
    ),
)
def checkout_cart(
    ctx: Ctx,
    address_id: Id,
    payment_method_id: Id,
    item_ids: Annotated[list[Id], Field(min_length=1, max_length=50)] | None = None,
    coupon_code: Annotated[str, Field(min_length=1, max_length=40)] | None = None,
    delivery: Literal["standard", "express", "pickup"] = "standard",
    confirm: bool = False,
) -> dict[str, Any]:
    """Place an order for the whole cart or selected lines, pay for it, and empty those lines.

    Args:
        address_id: Shipping address id, e.g. address_901 (see view_cart).
        payment_method_id: Payment method id, e.g. pm_902.
        item_ids: Only these cart lines (default: every line).
        coupon_code: A claimed coupon's code to apply.
        delivery: Delivery speed; standard is free above a minimum spend.
        confirm: Set true only after the user confirmed a large order (3000 or more in yuan or US dollars,
            about as much in other currencies; such an order fails without it, naming its total).
    """
    shipping_address(ctx, address_id)
    method = payment_method(ctx, payment_method_id)
    lines = _cart_lines(ctx, item_ids)
    if not lines:
        raise ToolError(ErrorType.STATE_CONFLICT, "the cart is empty", hint="add_to_cart")
    short = [
        {"cart_item_id": ln["cart_item_id"], "title": ln["title"], "available": ln["available"]}
        for ln in lines
        if ln["quantity"] > ln["available"]
    ]
    if short:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"{len(short)} cart line(s) exceed the stock left",
            lines=short,
            hint="update_cart_item",
        )
    changed = [
        {
            "cart_item_id": ln["cart_item_id"],
            "title": ln["title"],
            "was": ln["unit_price_at_add"],
            "now": ln["unit_price"],
        }
        for ln in lines
        if ln["price_changed"]
    ]
    if changed:
        raise ToolError(
            ErrorType.STALE_REFERENCE,
            f"the price of {len(changed)} cart line(s) changed since they were added",
            changes=changed,
            hint="confirm the new price, then update_cart_item",
        )
    subtotal = round(sum(ln["line_total"] for ln in lines), 2)
    discount = 0.0
    code = None
    if coupon_code:
        coupon = ctx.conn.execute(_COUPON_BY_CODE, {"code": coupon_code.strip().lower()}).first()
        if coupon is None:
            raise ToolError(
                ErrorType.RESOURCE_UNAVAILABLE,
                f"no coupon with code {coupon_code!r}",
                field="coupon_code",
                hint="list_coupons",
            )
        problem = _coupon_problem(dict(coupon._mapping), lines, ctx.now.date().isoformat())
        if problem:
            raise ToolError(
                ErrorType.RESOURCE_UNAVAILABLE,
                f"coupon {coupon.code} cannot be used: {problem}",
                field="coupon_code",
                hint="list_coupons",
            )
        discount, code = _discount(dict(coupon._mapping), lines), coupon.code
    fee = _fee(method["currency"], delivery, subtotal)
    total = round(subtotal - discount + fee, 2)
    order_id = ctx.new_id(orders)
    txn_id = charge(ctx, total, MERCHANT, "shopping", order_id, payment_method_id)
    # raising rolls the charge back with the whole call
    if total >= figures(CONFIRM_THRESHOLD, method["currency"]) and not confirm:
        raise ToolError(
            ErrorType.CONFIRMATION_REQUIRED,
            f"an order of {total:.2f} {method['currency']} needs the user's confirmation",
            total=total,
            hint="ask_user(kind=confirm), then retry with confirm=true",
        )
    ctx.conn.execute(
        _ADD_ORDER,
        {
            "order_id": order_id,
            "status": "pending",
            "subtotal": subtotal,
            "discount": discount,
            "delivery_fee": fee,
            "total": total,
            "currency": method["currency"],
            "address_id": address_id,
            "payment_method_id": payment_method_id,
            "coupon_code": code,
            "delivery": delivery,
            "placed_at": ctx.ts(),
            "delivered_at": None,
            "cancel_reason": None,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    for ln in lines:
        ctx.conn.execute(
            _ADD_ORDER_ITEM,
            {
                "item_id": ctx.new_id(order_items),
                "order_id": order_id,
                "product_id": ln["product_id"],
                "title": ln["title"],
                "variant": ln["variant"],
                "quantity": ln["quantity"],
                "unit_price": ln["unit_price"],
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            },
        )
        _move_stock(ctx, ln["product_id"], ln["variant"], -ln["quantity"])
    ctx.conn.execute(_DELETE_CART_LINES, {"ids": [ln["cart_item_id"] for ln in lines]})
    if code:
        ctx.conn.execute(_SET_COUPON_BY_CODE, {"match_code": code, "used": 1, "updated_at": ctx.ts()})
    return {
        "order_id": order_id,
        "status": "pending",
        "subtotal": subtotal,
        "discount": discount,
        "delivery_fee": fee,
        "total": total,
        "currency": method["currency"],
        "txn_id": txn_id,
        "items": [
            {"product_id": ln["product_id"], "variant": ln["variant"], "quantity": ln["quantity"]} for ln in lines
        ],
    }


# ---- Order Tracking & History (6.3) -------------------------------------------------------------


@tool(l2="6.3", app=APP, mutating=False)
def list_orders(
    ctx: Ctx,
    status: Literal["pending", "shipped", "delivered", "cancelled", "returned", "all"] = "all",
    date_from: Date | None = None,
    query: Query | None = None,
    limit: Limit = 10,
) -> dict[str, Any]:
    """List the user's orders, newest first, with their items.

    Args:
        status: Only orders in this status.
        date_from: Only orders placed on or after this day, YYYY-MM-DD.
        query: Words that must appear in the title of one of the order's items.
        limit: Maximum number of orders.
    """
    values = {"status": status if status != "all" else None, "date_from": date_from or None}
    found = rows(
        ctx.conn.execute(
            _order_search(status != "all", bool(date_from)), {k: v for k, v in values.items() if v is not None}
        )
    )
    items = _order_items(ctx, [o["order_id"] for o in found])
    if query:
        wanted = _words(query)
        found = [
            o
            for o in found
            if any(all(w in _title_words(it["title"]) for w in wanted) for it in items.get(o["order_id"], []))
        ]
    return {
        "orders": [{**{k: o[k] for k in ORDER_KEYS}, "items": items.get(o["order_id"], [])} for o in found[:limit]],
        "count": min(len(found), limit),
        "total_matches": len(found),
    }


_SHIPMENT = select(shipments).where(shipments.c.order_id == bindparam("order_id"))


@tool(l2="6.3", app=APP, mutating=False, errors=(ErrorType.ENTITY_NOT_FOUND,))
def track_order(ctx: Ctx, order_id: Id) -> dict[str, Any]:
    """Where an order is: its status, carrier, tracking number, delivery estimate and shipment events.

    Args:
        order_id: Id of the order, e.g. order_907 (see list_orders).
    """
    order = get_row(ctx, orders, order_id, "list_orders")
    ship = ctx.conn.execute(_SHIPMENT, {"order_id": order_id}).first()
    events = json.loads(ship.events_json) if ship else [{"ts": order["placed_at"][:16], "status": "order_placed"}]
    return {
        "order_id": order_id,
        "status": order["status"],
        "placed_at": order["placed_at"],
        "delivered_at": order["delivered_at"],
        "delivery": order["delivery"],
        "carrier": ship.carrier if ship else None,
        "tracking_number": ship.tracking_number if ship else None,
        "shipment_status": ship.status if ship else None,
        "eta": ship.eta if ship else None,
        "events": events,
        "items": _order_items(ctx, [order_id]).get(order_id, []),
    }


_SET_ORDER = update(orders).where(orders.c.order_id == bindparam("match_order_id"))


@tool(l2="6.3", app=APP, mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def cancel_order(
    ctx: Ctx,
    order_id: Id,
    reason: Literal["changed_mind", "found_cheaper", "wrong_item", "other"] = "other",
) -> dict[str, Any]:
    """Cancel an order that has not shipped yet; the payment is refunded and the stock released.

    Args:
        order_id: Id of the order, e.g. order_919.
        reason: Why the order is cancelled.
    """
    order = get_row(ctx, orders, order_id, "list_orders")
    if order["status"] != "pending":
        hint = {"shipped": "wait for delivery, then request_return", "delivered": "request_return"}.get(order["status"])
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"{order_id} is {order['status']} and can no longer be cancelled",
            status=order["status"],
            **({"hint": hint} if hint else {}),
        )
    ctx.conn.execute(
        _SET_ORDER, {"match_order_id": order_id, "status": "cancelled", "cancel_reason": reason, "updated_at": ctx.ts()}
    )
    for it in _order_items(ctx, [order_id]).get(order_id, []):
        _move_stock(ctx, it["product_id"], it["variant"], it["quantity"])
    return {
        "order_id": order_id,
        "status": "cancelled",
        "refunded": refund(ctx, order_id),
        "currency": order["currency"],
    }


# ---- Returns & Refunds (6.4) --------------------------------------------------------------------

_RETURNS = select(returns).where(returns.c.order_id == bindparam("order_id"))
_ADD_RETURN = insert(returns)
_RETURNED_ITEMS = select(returns.c.item_ids_json).where(returns.c.order_id == bindparam("order_id"))


@tool(
    l2="6.4",
    app=APP,
    mutating=True,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.DUPLICATE_ENTITY),
)
def request_return(
    ctx: Ctx,
    order_id: Id,
    item_ids: Annotated[list[Id], Field(min_length=1, max_length=50)],
    reason: Literal["defective", "wrong_item", "not_as_described", "changed_mind"],
    refund_method: Literal["original", "store_credit"] = "original",
    pickup: bool = False,
) -> dict[str, Any]:
    """Request a return and refund for items of a delivered order (within 30 days of delivery).

    Args:
        order_id: Id of the order, e.g. order_911.
        item_ids: Ids of the order's items to return, e.g. ["oitem_921"] (see list_orders).
        reason: Why the items go back.
        refund_method: Refund to the original payment method or as store credit.
        pickup: Have a courier collect the parcel instead of dropping it off.
    """
    order = get_row(ctx, orders, order_id, "list_orders")
    items = {it["item_id"]: it for it in _order_items(ctx, [order_id]).get(order_id, [])}
    missing = sorted(set(item_ids) - set(items))
    if missing:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"{order_id} has no item(s) {', '.join(missing)}",
            field="item_ids",
            candidates=sorted(items),
        )
    if order["status"] not in ("delivered", "returned"):
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"{order_id} is {order['status']}; only delivered orders can be returned",
            status=order["status"],
            **({"hint": "cancel_order"} if order["status"] == "pending" else {}),
        )
    last_day = (dt.datetime.fromisoformat(order["delivered_at"]) + dt.timedelta(days=RETURN_WINDOW_DAYS)).date()
    if ctx.now.date() > last_day:
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"the return window of {order_id} closed on {last_day}",
            delivered_at=order["delivered_at"],
        )
    for ret in rows(ctx.conn.execute(_RETURNS, {"order_id": order_id})):
        again = sorted(set(json.loads(ret["item_ids_json"])) & set(item_ids))
        if again:
            raise ToolError(
                ErrorType.DUPLICATE_ENTITY,
                f"{', '.join(again)} already in return {ret['return_id']}",
                existing_id=ret["return_id"],
            )
    chosen = sorted(set(item_ids))
    amount = round(sum(items[i]["unit_price"] * items[i]["quantity"] for i in chosen), 2)
    rid = ctx.new_id(returns)
    ctx.conn.execute(
        _ADD_RETURN,
        {
            "return_id": rid,
            "order_id": order_id,
            "item_ids_json": json.dumps(chosen),
            "reason": reason,
            "refund_method": refund_method,
            "pickup": int(pickup),
            "refund_amount": amount,
            "status": "requested",
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    returned = {i for r in ctx.conn.execute(_RETURNED_ITEMS, {"order_id": order_id}).scalars() for i in json.loads(r)}
    if returned >= set(items):
        ctx.conn.execute(_SET_ORDER, {"match_order_id": order_id, "status": "returned", "updated_at": ctx.ts()})
    return {
        "return_id": rid,
        "order_id": order_id,
        "item_ids": chosen,
        "refund_amount": amount,
        "currency": order["currency"],
        "refund_method": refund_method,
        "status": "requested",
        "pickup": pickup,
        "note": "the refund is paid once the items are received",
    }


# ---- Coupons & Deals (6.5) ----------------------------------------------------------------------

_OPEN_COUPONS = (
    select(coupons).where(coupons.c.used == 0, coupons.c.expires_at >= bindparam("today")).order_by(coupons.c.code)
)


@tool(l2="6.5", app=APP, mutating=False)
def list_coupons(ctx: Ctx, applicable_to_cart: bool = False, store: str | None = None) -> dict[str, Any]:
    """List unused, unexpired coupons (claimed ones and ones still to claim), or only those usable on the cart now.

    Args:
        applicable_to_cart: Only claimed coupons the current cart qualifies for, with the discount each gives.
        store: Only coupons of this store (platform-wide coupons included).
    """
    if applicable_to_cart:
        found = _usable_coupons(ctx, _cart_lines(ctx))
    else:
        today = ctx.now.date().isoformat()
        found = [_coupon_out(c) for c in rows(ctx.conn.execute(_OPEN_COUPONS, {"today": today}))]
    if store:
        found = [c for c in found if c["store"] is None or c["store"].lower() == store.strip().lower()]
    return {"coupons": found, "count": len(found)}


# ---- Wishlist & Price Alerts (6.6) --------------------------------------------------------------

_WISHED = select(wishlist.c.product_id).where(wishlist.c.product_id == bindparam("product_id"))
_ADD_WISH = insert(wishlist)


@tool(l2="6.6", app=APP, mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY))
def add_to_wishlist(ctx: Ctx, product_id: Id) -> dict[str, Any]:
    """Save a product to the wishlist.

    Args:
        product_id: Id of the product, e.g. product_912.
    """
    prod = _product(ctx, product_id)
    if ctx.conn.execute(_WISHED, {"product_id": product_id}).first():
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"{product_id} is already on the wishlist", existing_id=product_id)
    ctx.conn.execute(_ADD_WISH, {"product_id": product_id, "created_at": ctx.ts(), "updated_at": ctx.ts()})
    return {"product_id": product_id, "title": prod["title"], "price": prod["price"]}


_ACTIVE_ALERT = select(price_alerts.c.alert_id, price_alerts.c.target_price).where(
    price_alerts.c.product_id == bindparam("product_id"), price_alerts.c.status == "active"
)
_ADD_ALERT = insert(price_alerts)


@tool(
    l2="6.6",
    app=APP,
    mutating=True,
    permissions=("NOTIFICATIONS",),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.DUPLICATE_ENTITY),
)
def set_price_alert(ctx: Ctx, product_id: Id, target_price: Money, expires_on: Date | None = None) -> dict[str, Any]:
    """Get notified when a product's price drops below a target price.

    Args:
        product_id: Id of the product, e.g. product_912.
        target_price: Notify when the price falls below this (must be under the current price).
        expires_on: Last day the alert is active, YYYY-MM-DD.
    """
    prod = _product(ctx, product_id)
    if target_price >= prod["price"]:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"the price is already {prod['price']:.2f}; the target must be below it",
            field="target_price",
            current_price=prod["price"],
        )
    if expires_on and expires_on < ctx.now.date().isoformat():
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, f"expires_on {expires_on} is in the past", field="expires_on")
    active = ctx.conn.execute(_ACTIVE_ALERT, {"product_id": product_id}).first()
    if active:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"{active.alert_id} already watches {product_id} (target {active.target_price:.2f})",
            existing_id=active.alert_id,
        )
    aid = ctx.new_id(price_alerts)
    ctx.conn.execute(
        _ADD_ALERT,
        {
            "alert_id": aid,
            "product_id": product_id,
            "target_price": target_price,
            "expires_on": expires_on,
            "status": "active",
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {
        "alert_id": aid,
        "product_id": product_id,
        "target_price": target_price,
        "current_price": prod["price"],
        "expires_on": expires_on,
    }


# ---- World data ---------------------------------------------------------------------------------

# (category, store, noun, variant kind, USD price range, specs, "Brand|Model" names); a name without "|"
# has a one-word brand. Books are titled "<model> (<author>, Paperback)".
CATALOGUE: list[tuple[str, str, str, str | None, tuple[int, int], dict[str, str], list[str]]] = [
    (
        "electronics",
        "TechMall",
        "Wireless Noise-Cancelling Headphones",
        "color",
        (79, 449),
        {"connectivity": "Bluetooth 5.3", "battery": "30 h"},
        [
            "Sony|WH-1000XM5",
            "Bose|QuietComfort Ultra",
            "Sennheiser|Momentum 4",
            "Anker Soundcore|Space Q45",
            "JBL|Tour One M2",
        ],
    ),
    (
        "electronics",
        "TechMall",
        "True Wireless Earbuds",
        "color",
        (29, 249),
        {"battery": "6 h + case 24 h"},
        [
            "Apple|AirPods Pro 2",
            "Samsung|Galaxy Buds3 Pro",
            "Sony|WF-1000XM5",
            "Xiaomi|Redmi Buds 6",
            "Nothing|Ear (a)",
        ],
    ),
    (
        "electronics",
        "TechMall",
        "Smartphone",
        "storage",
        (299, 1199),
        {"screen": "6.3 in OLED", "5G": "yes"},
        ["Apple|iPhone 16", "Apple|iPhone 16 Pro", "Samsung|Galaxy S25", "Xiaomi|15", "Google|Pixel 9"],
    ),
    (
        "electronics",
        "TechMall",
        "Laptop",
        "memory",
        (599, 2199),
        {"screen": "14 in", "weight": "1.2 kg"},
        [
            "Apple|MacBook Air 13 M3",
            "Lenovo|ThinkPad X1 Carbon",
            "Dell|XPS 14",
            "HP|Pavilion Plus 14",
            "ASUS|Zenbook 14 OLED",
        ],
    ),
    (
        "electronics",
        "TechMall",
        "Smartwatch",
        "color",
        (99, 449),
        {"water resistance": "5 ATM", "GPS": "yes"},
        [
            "Apple|Watch Series 10",
            "Samsung|Galaxy Watch7",
            "Huawei|Watch GT 5",
            "Garmin|Forerunner 265",
            "Xiaomi|Watch S4",
        ],
    ),
    (
        "electronics",
        "TechMall",
        "Tablet",
        "storage",
        (199, 999),
        {"screen": "11 in"},
        ["Apple|iPad Air 11", "Samsung|Galaxy Tab S10", "Xiaomi|Pad 7", "Lenovo|Tab P12", "Huawei|MatePad 11.5"],
    ),
    (
        "electronics",
        "TechMall",
        "65W USB-C Fast Charger",
        None,
        (19, 59),
        {"ports": "2x USB-C, 1x USB-A"},
        ["Anker|Nano II", "Ugreen|Nexode", "Baseus|GaN5 Pro", "Belkin|BoostCharge Pro", "Xiaomi|GaN Charger"],
    ),
    (
        "electronics",
        "TechMall",
        "Power Bank 20000mAh",
        "color",
        (25, 79),
        {"output": "22.5 W"},
        ["Anker|PowerCore", "Xiaomi|Power Bank 3", "Baseus|Blade", "Ugreen|PB720", "INIU|BI-B61"],
    ),
    (
        "electronics",
        "TechMall",
        "Portable Bluetooth Speaker",
        "color",
        (29, 299),
        {"battery": "12 h", "IP": "IP67"},
        ["JBL|Flip 6", "Bose|SoundLink Flex", "Sony|ULT Field 1", "Marshall|Emberton II", "Anker Soundcore|Motion 300"],
    ),
    (
        "electronics",
        "TechMall",
        "Mechanical Keyboard",
        None,
        (49, 199),
        {"layout": "75%", "switches": "brown"},
        ["Logitech|MX Mechanical", "Keychron|K2", "Razer|BlackWidow V4", "Corsair|K70", "Akko|3068B"],
    ),
    (
        "home",
        "HomePlus",
        "Air Fryer",
        None,
        (59, 229),
        {"capacity": "5.5 L"},
        [
            "Philips|Airfryer XXL",
            "Ninja|Foodi Dual Zone",
            "Cosori|Pro LE",
            "Midea|Smart Air Fryer",
            "Xiaomi|Mijia Smart",
        ],
    ),
    (
        "home",
        "HomePlus",
        "Robot Vacuum",
        None,
        (199, 899),
        {"suction": "6000 Pa", "mopping": "yes"},
        ["Roborock|S8", "iRobot|Roomba j7+", "Ecovacs|Deebot T30", "Dreame|L10s Ultra", "Xiaomi|Robot Vacuum X20"],
    ),
    (
        "home",
        "HomePlus",
        "Espresso Machine",
        None,
        (149, 799),
        {"pressure": "15 bar"},
        [
            "De'Longhi|Dedica EC685",
            "Breville|Bambino Plus",
            "Philips|3200 LatteGo",
            "Nespresso|Vertuo Next",
            "Gaggia|Classic Pro",
        ],
    ),
    (
        "home",
        "HomePlus",
        "Electric Kettle 1.7L",
        "color",
        (19, 89),
        {"power": "1800 W"},
        ["Philips|Series 5000", "Xiaomi|Mijia", "Midea|MK-HJ1705", "Smeg|KLF03", "Bear|ZDH-Q15"],
    ),
    (
        "home",
        "HomePlus",
        "Air Purifier",
        None,
        (99, 499),
        {"room size": "40 m2", "filter": "HEPA H13"},
        [
            "Dyson|Purifier Cool TP07",
            "Xiaomi|Smart Air Purifier 4",
            "Philips|Series 2000i",
            "Blueair|Blue Pure 211+",
            "Levoit|Core 400S",
        ],
    ),
    (
        "home",
        "HomePlus",
        "Bed Sheet Set",
        "bedding",
        (29, 149),
        {"material": "100% cotton"},
        ["IKEA|DVALA", "Muji|Washed Cotton", "Brooklinen|Luxe Sateen", "Fuanna|Silk Touch", "Luolai|Classic"],
    ),
    (
        "clothing",
        "UrbanWear",
        "Running Shoes",
        "shoe",
        (79, 189),
        {"drop": "10 mm"},
        [
            "Nike|Pegasus 41",
            "Adidas|Ultraboost Light",
            "ASICS|Gel-Nimbus 26",
            "New Balance|Fresh Foam 1080v13",
            "Li-Ning|Red Hare 7",
        ],
    ),
    (
        "clothing",
        "UrbanWear",
        "Cotton Crew T-Shirt",
        "apparel",
        (9, 29),
        {"material": "100% cotton"},
        ["Uniqlo|U", "H&M|Regular Fit", "Muji|Organic", "Gap|Everyday", "Champion|Heritage"],
    ),
    (
        "clothing",
        "UrbanWear",
        "Slim Fit Jeans",
        "apparel",
        (39, 99),
        {"material": "98% cotton, 2% elastane"},
        ["Levi's|511", "Uniqlo|Stretch Selvedge", "Lee|Rider", "Wrangler|Larston", "Gap|Soft Wear"],
    ),
    (
        "clothing",
        "UrbanWear",
        "Down Jacket",
        "apparel",
        (79, 349),
        {"fill": "90% down"},
        [
            "Uniqlo|Ultra Light",
            "The North Face|Nuptse 1996",
            "Bosideng|Classic",
            "Columbia|Delta Ridge",
            "Patagonia|Down Sweater",
        ],
    ),
    (
        "clothing",
        "UrbanWear",
        "Travel Backpack 25L",
        "color",
        (29, 149),
        {"laptop sleeve": "15.6 in"},
        [
            "Osprey|Daylite Plus",
            "Samsonite|Pro-DLX",
            "Xiaomi|Urban Commuter",
            "Herschel|Little America",
            "Tumi|Alpha Bravo",
        ],
    ),
    (
        "beauty",
        "BeautyBay",
        "Sunscreen SPF50+ 60ml",
        None,
        (12, 39),
        {"skin type": "all"},
        [
            "Anessa|Perfect UV Milk",
            "La Roche-Posay|Anthelios UVMune 400",
            "Biore|UV Aqua Rich",
            "Shiseido|Clear Suncare",
            "Neutrogena|Ultra Sheer",
        ],
    ),
    (
        "beauty",
        "BeautyBay",
        "Moisturizing Face Cream 50ml",
        None,
        (15, 89),
        {"skin type": "dry to normal"},
        [
            "CeraVe|Daily",
            "Kiehl's|Ultra Facial Cream",
            "Clinique|Moisture Surge",
            "Estee Lauder|Revitalizing Supreme+",
            "Olay|Regenerist",
        ],
    ),
    (
        "beauty",
        "BeautyBay",
        "Electric Toothbrush",
        "color",
        (29, 199),
        {"battery": "3 weeks"},
        [
            "Philips Sonicare|DiamondClean 9000",
            "Oral-B|iO Series 7",
            "Xiaomi|Mijia T500",
            "Usmile|Y10 Pro",
            "Oclean|X Pro",
        ],
    ),
    (
        "sports",
        "SportZone",
        "Yoga Mat 6mm",
        "color",
        (15, 89),
        {"size": "183 x 61 cm"},
        ["Lululemon|The Mat", "Manduka|PRO", "Gaiam|Premium", "Keep|Classic", "Decathlon|Kimjaly"],
    ),
    (
        "sports",
        "SportZone",
        "Adjustable Dumbbells (pair)",
        None,
        (79, 429),
        {"range": "2-24 kg"},
        [
            "Bowflex|SelectTech 552",
            "PowerBlock|Elite",
            "NordicTrack|iSelect",
            "Decathlon|Domyos",
            "Keep|Smart Dumbbell",
        ],
    ),
    (
        "sports",
        "SportZone",
        "Cycling Helmet",
        "size",
        (39, 199),
        {"MIPS": "yes"},
        ["Giro|Register MIPS", "Specialized|Align II", "Bell|Formula", "Kask|Mojito", "Decathlon|Van Rysel"],
    ),
    (
        "books",
        "BookNook",
        "Paperback",
        None,
        (8, 25),
        {"language": "English"},
        [
            "Liu Cixin|The Three-Body Problem",
            "Andy Weir|Project Hail Mary",
            "James Clear|Atomic Habits",
            "Yu Hua|To Live",
            "Haruki Murakami|Norwegian Wood",
        ],
    ),
    (
        "books",
        "BookNook",
        "Paperback",
        None,
        (9, 28),
        {"language": "English"},
        [
            "Yuval Noah Harari|Sapiens",
            "Michelle Obama|Becoming",
            "Kazuo Ishiguro|Klara and the Sun",
            "Cal Newport|Deep Work",
            "Mo Yan|Red Sorghum",
        ],
    ),
    (
        "grocery",
        "FreshMart",
        "Coffee Beans 1kg",
        None,
        (15, 45),
        {"roast": "medium"},
        [
            "Lavazza|Super Crema",
            "Illy|Classico",
            "Starbucks|Pike Place",
            "Seesaw|Yunnan Catimor",
            "Peet's|Major Dickason's",
        ],
    ),
]

# Variant kinds: (names, USD price step per name).
VARIANT_KINDS: dict[str, tuple[list[str], list[int]]] = {
    "storage": (["128GB", "256GB", "512GB"], [0, 100, 250]),
    "memory": (["16GB/512GB", "16GB/1TB", "32GB/1TB"], [0, 200, 500]),
    "bedding": (["Full", "Queen", "King"], [0, 10, 20]),
    "shoe": ([f"EU {n}" for n in range(39, 45)], [0] * 6),
    "size": (["S", "M", "L"], [0] * 3),
}
COLORS = ["Black", "White", "Navy", "Silver", "Green", "Pink"]
SIZES = ["S", "M", "L", "XL"]
ANCHOR = "Sony WH-1000XM5 Wireless Noise-Cancelling Headphones"  # product_112 in every world (task SA2)
ANCHOR_PRICE = {"CNY": 2399.0, "USD": 349.0}
REVIEWS = {
    5: ["Excellent quality, exactly as described.", "Love it, would buy again.", "Fast delivery and great value."],
    4: ["Good overall, the packaging was a bit damaged.", "Works well, slightly pricier than expected."],
    3: ["Average. Does the job.", "Okay, but not as good as the photos."],
    2: ["Disappointed, it stopped working after two weeks.", "Runs small and feels cheap."],
    1: ["Arrived broken, had to return it.", "Not as described at all."],
}
REVIEWERS = ["Lily", "James", "Chen", "Sofia", "Omar", "Mei", "Daniel", "Priya", "Noah", "Yuki", "Elena", "Ravi"]

# Coupons: (code, store, description, type, USD discount (or percent), USD min spend, expiry offset days, claimed, used)
COUPONS = [
    ("WELCOME", None, "New-customer discount", "amount", 5, 20, 60, 1, 1),
    ("SAVEMORE", None, "Storewide savings", "amount", 3, 29, 10, 1, 0),
    ("TECHDAY", "TechMall", "TechMall tech day", "amount", 15, 150, 20, 1, 0),
    ("HOMEPCT", "HomePlus", "10% off home appliances", "percent", 10, 45, 14, 1, 0),
    ("WEAR15", "UrbanWear", "UrbanWear summer deal", "amount", 6, 45, 1, 1, 0),
    ("READMORE", "BookNook", "Book lovers' voucher", "amount", 2, 8, 30, 1, 0),
    ("SPRING", None, "Spring sale (ended)", "amount", 4, 25, -12, 1, 0),
    ("FLASHBIG", None, "Flash deal: claim in the app", "amount", 30, 300, 3, 0, 0),
    ("SPORTFIT", "SportZone", "SportZone fitness week", "percent", 15, 30, 9, 0, 0),
    ("FRESHCUP", "FreshMart", "Coffee lovers' coupon", "amount", 2, 15, 25, 1, 0),
]

# Past orders: (hours before now, status). The shipment timeline (hours after placing) decides what a
# shipped order's last event is; pending orders are younger than the first pickup.
ORDER_PLAN = [
    (3, "pending"),
    (8, "pending"),
    (30, "shipped"),
    (50, "shipped"),
    (70, "shipped"),
    (6 * 24, "delivered"),
    (9 * 24, "delivered"),
    (13 * 24, "delivered"),
    (16 * 24, "cancelled"),
    (21 * 24, "delivered"),
    (27 * 24, "delivered"),
    (34 * 24, "delivered"),
    (40 * 24, "returned"),
    (48 * 24, "delivered"),
    (55 * 24, "delivered"),
    (63 * 24, "cancelled"),
    (75 * 24, "delivered"),
    (88 * 24, "delivered"),
    (101 * 24, "delivered"),
    (118 * 24, "delivered"),
]
TIMELINE = [(10, "picked_up"), (20, "in_transit"), (44, "arrived_at_hub"), (68, "out_for_delivery"), (72, "delivered")]
CARRIERS = {
    "CNY": [("SF Express", "SF", 12), ("JD Logistics", "JDV", 12), ("YTO Express", "YT", 13)],
    "USD": [("UPS", "1Z", 16), ("FedEx", "FX", 12), ("USPS", "9400", 18)],
    "GBP": [("Royal Mail", "RM", 11), ("DPD UK", "15", 12), ("Evri", "H0", 14)],
    "EUR": [("DHL Paket", "JJD", 16), ("DPD", "0150", 10), ("GLS", "ZX", 11)],
    "JPY": [("Yamato Transport", "4", 11), ("Sagawa Express", "3", 11), ("Japan Post", "JP", 11)],
    "KRW": [("CJ Logistics", "6", 11), ("Hanjin", "5", 11), ("Korea Post", "KP", 11)],
    "CAD": [("Canada Post", "CP", 14), ("Purolator", "PUR", 9), ("UPS", "1Z", 16)],
}
WAREHOUSES = {
    "CNY": ["Shanghai", "Guangzhou", "Hangzhou"],
    "USD": ["Oakland", "Reno", "Los Angeles"],
    "GBP": ["Milton Keynes", "Coventry", "Dartford"],
    "EUR": ["Leipzig", "Madrid", "Bad Hersfeld"],
    "JPY": ["Ichikawa", "Osaka", "Sagamihara"],
    "KRW": ["Icheon", "Gimpo", "Busan"],
    "CAD": ["Brampton", "Mississauga", "Calgary"],
}
STAMP = "%Y-%m-%dT%H:%M:%S"


def local_price(usd: float, currency: str) -> float:
    """A shelf price in the world's currency: yuan prices end in 9, dollar prices in .99, others as
    ``locales.shelf_price`` writes them."""
    if currency == "CNY":
        return float(max(9, round(usd * 7, -1) - 1))
    if currency == "USD":
        return round(max(1.0, float(int(usd))) - 0.01, 2)
    return shelf_price(usd, currency)


def local_amount(usd: float, currency: str) -> float:
    """A round amount (discount, threshold, surcharge) in the world's currency."""
    if currency in ("CNY", "USD"):
        return local_price(usd, currency) + (1 if currency == "CNY" else 0.01)
    return round_amount(usd, currency)


def _per_usd(currency: str) -> float:
    """Units per dollar as ``local_price`` converts (yuan shelf prices at 7)."""
    return 7.0 if currency == "CNY" else CURRENCIES[currency].per_usd


def tracking_number(rng: random.Random, prefix: str, digits: int) -> str:
    return prefix + "".join(str(rng.randint(0, 9)) for _ in range(digits))


def world_currency(conn: Connection) -> str:
    """The currency of the persona's money (its default payment method's)."""
    return str(conn.execute(select(payment_methods.c.currency).where(payment_methods.c.is_default == 1)).scalar())


def seed_payments(conn: Connection, payments: list[dict[str, Any]]) -> None:
    """Insert past transactions with ids after any already seeded (domains seed them in turn)."""
    t = transactions.c
    last = conn.execute(select(func.max(cast(func.substr(t.txn_id, 5), Integer)))).scalar() or 0
    conn.execute(
        insert(transactions),
        [
            {**p, "txn_id": f"txn_{last + i:03d}", "created_at": p["ts"], "updated_at": p["ts"]}
            for i, p in enumerate(payments, start=1)
        ],
    )


def _variant_rows(rng: random.Random, kind: str | None, currency: str) -> list[dict[str, Any]]:
    if kind is None:
        return []
    if kind == "color":
        names, deltas = sorted(rng.sample(COLORS, rng.randint(2, 3))), [0] * 3
    elif kind == "apparel":
        colours = sorted(rng.sample(COLORS[:3], 2))
        names, deltas = [f"{c} / {s}" for c in colours for s in SIZES], [0] * 8
    else:
        names, deltas = VARIANT_KINDS[kind]
    out = []
    for name, delta in zip(names, deltas, strict=False):
        v: dict[str, Any] = {"name": name, "stock": 0 if rng.random() < 0.12 else rng.randint(1, 40)}
        if delta:
            v["price_delta"] = local_amount(delta, currency)
        out.append(v)
    return out


def _history(rng: random.Random, price: float, today: dt.date, currency: str) -> list[list[Any]]:
    """Monthly prices for five months, ending with today's price."""
    points = []
    for back in range(5, 0, -1):
        month = dt.date(today.year, today.month, 1) - dt.timedelta(days=30 * back)
        old = price * rng.choice([1.0, 1.0, 1.05, 1.1, 1.15, 0.95])
        points.append(
            [
                dt.date(month.year, month.month, 1).isoformat(),
                float(round(old, -1) - 1) if currency == "CNY" and old > 20 else to_step(old, currency),
            ]
        )
    points.append([today.isoformat(), price])
    return points


def _products(rng: random.Random, currency: str, today: dt.date) -> list[dict[str, Any]]:
    made: list[dict[str, Any]] = []
    for category, store, noun, kind, (lo, hi), specs, names in CATALOGUE:
        for name in names:
            brand, model = name.split("|")
            title = f"{model} ({brand}, {noun})" if category == "books" else f"{brand} {model} {noun}"
            variants = _variant_rows(rng, kind, currency)
            price = local_price(rng.uniform(lo, hi), currency)
            made.append(
                {
                    "title": title,
                    "brand": brand,
                    "category": category,
                    "store": store,
                    "price": price,
                    "currency": currency,
                    "rating": round(rng.uniform(3.4, 4.9), 1),
                    "review_count": rng.randint(12, 20000),
                    "sales": rng.randint(40, 60000),
                    "stock": sum(v["stock"] for v in variants)
                    if variants
                    else (0 if rng.random() < 0.07 else rng.randint(3, 300)),
                    "variants_json": json.dumps(variants),
                    "specs_json": json.dumps({**specs, "warranty": "1 year"}),
                }
            )
    rng.shuffle(made)
    anchor = next(p for p in made if p["title"] == ANCHOR)
    made.remove(anchor)
    made.insert(111, anchor)
    anchor.update(price=figures(ANCHOR_PRICE, currency, shelf_price), stock=20, variants_json="[]")
    for i, p in enumerate(made, start=1):
        p["product_id"] = f"product_{i:03d}"
        p["price_history_json"] = json.dumps(_history(rng, p["price"], today, currency))
    return made


def _reviews(rng: random.Random, products: list[dict[str, Any]], today: dt.date) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in products:
        for _ in range(rng.randint(1, 2)):
            stars = min(5, max(1, round(rng.gauss(p["rating"], 0.9))))
            who = rng.choice(REVIEWERS)
            out.append(
                {
                    "review_id": len(out) + 1,
                    "product_id": p["product_id"],
                    "rating": stars,
                    "text": rng.choice(REVIEWS[stars]),
                    "author": f"{who[0]}***{who[-1]}",
                    "posted_on": (today - dt.timedelta(days=rng.randint(1, 300))).isoformat(),
                }
            )
    return out


def _shipment(
    rng: random.Random, order: dict[str, Any], placed: dt.datetime, now: dt.datetime, currency: str, city: str
) -> dict[str, Any]:
    carrier, prefix, digits = rng.choice(CARRIERS[currency])
    origin = rng.choice(WAREHOUSES[currency])
    events = []
    for hours, status in TIMELINE:
        at = placed + dt.timedelta(hours=hours, minutes=rng.randint(0, 50))
        if at > now:
            break
        place = origin if status in ("picked_up", "in_transit") else city
        events.append({"ts": at.strftime("%Y-%m-%dT%H:%M"), "status": status, "location": place})
    if order["status"] in ("delivered", "returned"):
        order["delivered_at"] = events[-1]["ts"] + ":00"
    return {
        "order_id": order["order_id"],
        "carrier": carrier,
        "tracking_number": tracking_number(rng, prefix, digits),
        "status": events[-1]["status"],
        "eta": (placed + dt.timedelta(hours=72)).date().isoformat(),
        "events_json": json.dumps(events),
        "created_at": order["placed_at"],
        "updated_at": now.strftime(STAMP),
    }


@seeder
def seed_shopping(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """150 products in 7 categories with reviews; a cart, 20 past orders with shipments, coupons, a wishlist."""
    now = dt.datetime.fromisoformat(persona.now)
    today, stamp = now.date(), persona.now
    currency = world_currency(conn)
    products = _products(rng, currency, today)
    conn.execute(insert(world_products), products)
    conn.execute(insert(world_reviews), _reviews(rng, products, today))
    city = {a.address_id: a.city for a in conn.execute(select(addresses.c.address_id, addresses.c.city))}

    conn.execute(
        insert(coupons),
        [
            {
                "coupon_id": f"coupon_{i:03d}",
                "code": code,
                "store": store,
                "description": text,
                "discount_type": kind,
                "discount": float(off) if kind == "percent" else local_amount(off, currency),
                "min_spend": local_amount(spend, currency),
                "expires_at": (today + dt.timedelta(days=days)).isoformat(),
                "claimed": claimed,
                "used": used,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, (code, store, text, kind, off, spend, days, claimed, used) in enumerate(COUPONS, start=1)
        ],
    )

    in_stock = [p for p in products if p["stock"] > 0 and p["product_id"] != "product_112"]
    order_rows: list[dict[str, Any]] = []
    item_rows: list[dict[str, Any]] = []
    ship_rows: list[dict[str, Any]] = []
    payments: list[dict[str, Any]] = []
    for n, (hours, status) in enumerate(sorted(ORDER_PLAN, key=lambda o: -o[0]), start=1):
        placed = now - dt.timedelta(hours=hours + (rng.randint(0, 11) if hours > 96 else 0), minutes=rng.randint(0, 50))
        order: dict[str, Any] = {
            "order_id": f"order_{n:03d}",
            "status": status,
            "address_id": rng.choice(["address_001"] * 4 + ["address_002"]),
            "payment_method_id": rng.choice(["pm_001", "pm_002"]),
            "coupon_code": None,
            "delivery": rng.choice(["standard", "standard", "express"]),
            "placed_at": placed.strftime(STAMP),
            "delivered_at": None,
            "cancel_reason": "changed_mind" if status == "cancelled" else None,
            "currency": currency,
            "created_at": placed.strftime(STAMP),
            "updated_at": stamp,
        }
        subtotal = 0.0
        for p in rng.sample(in_stock, rng.choice([1, 1, 2, 3])):
            variants = json.loads(p["variants_json"])
            qty = rng.choice([1, 1, 1, 2])
            price = local_price(p["price"] * rng.uniform(0.95, 1.1) / _per_usd(currency), currency)
            subtotal += price * qty
            item_rows.append(
                {
                    "item_id": f"oitem_{len(item_rows) + 1:03d}",
                    "order_id": order["order_id"],
                    "product_id": p["product_id"],
                    "title": p["title"],
                    "variant": rng.choice(variants)["name"] if variants else None,
                    "quantity": qty,
                    "unit_price": price,
                    "created_at": order["placed_at"],
                    "updated_at": order["placed_at"],
                }
            )
        discount = 0.0
        if n == 3:  # the welcome coupon was spent on an early order
            order["coupon_code"] = "WELCOME"
            discount = local_amount(COUPONS[0][4], currency)
        fee = _fee(currency, order["delivery"], subtotal)
        order.update(
            subtotal=round(subtotal, 2), discount=discount, delivery_fee=fee, total=round(subtotal - discount + fee, 2)
        )
        if status not in ("pending", "cancelled"):
            ship_rows.append(
                {
                    "shipment_id": f"shipment_{len(ship_rows) + 1:03d}",
                    **_shipment(rng, order, placed, now, currency, city[order["address_id"]]),
                }
            )
        payments.append(
            {
                "method_id": order["payment_method_id"],
                "amount": -order["total"],
                "currency": currency,
                "merchant": MERCHANT,
                "category": "shopping",
                "ref_id": order["order_id"],
                "ts": order["placed_at"],
                "status": "refunded" if status in ("cancelled", "returned") else "posted",
            }
        )
        order_rows.append(order)
    conn.execute(insert(orders), order_rows)
    conn.execute(insert(order_items), item_rows)
    conn.execute(insert(shipments), ship_rows)
    seed_payments(conn, payments)
    returned = next(o for o in order_rows if o["status"] == "returned")
    back = [it for it in item_rows if it["order_id"] == returned["order_id"]]
    conn.execute(
        insert(returns).values(
            return_id="return_001",
            order_id=returned["order_id"],
            item_ids_json=json.dumps([it["item_id"] for it in back]),
            reason="defective",
            refund_method="original",
            pickup=1,
            refund_amount=round(sum(it["unit_price"] * it["quantity"] for it in back), 2),
            status="refunded",
            created_at=returned["delivered_at"],
            updated_at=stamp,
        )
    )

    shirt = next(p for p in products if "T-Shirt" in p["title"] and p["stock"] > 2)
    shirt_size = next(v["name"] for v in json.loads(shirt["variants_json"]) if v["stock"] >= 2)
    beans = next(p for p in products if "Coffee Beans" in p["title"] and p["stock"] > 0)
    charger = next(p for p in products if "Charger" in p["title"] and p["stock"] > 0)
    conn.execute(
        insert(cart_items),
        [
            {
                "cart_item_id": f"cart_{i:03d}",
                "product_id": p["product_id"],
                "variant": v,
                "quantity": q,
                "unit_price_at_add": _unit_price(p, v),
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, (p, v, q) in enumerate([(shirt, shirt_size, 2), (beans, None, 1), (charger, None, 1)], start=1)
        ],
    )
    liked = rng.sample([p for p in products if p["category"] in ("electronics", "home")], 4)
    conn.execute(
        insert(wishlist),
        [
            {"product_id": p["product_id"], "created_at": stamp, "updated_at": stamp}
            for p in sorted(liked, key=lambda p: p["product_id"])
        ],
    )
    watched = liked[0]
    conn.execute(
        insert(price_alerts),
        [
            {
                "alert_id": f"price_alert_{i:03d}",
                "product_id": p["product_id"],
                "target_price": round(p["price"] * share),
                "expires_on": expires,
                "status": status,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, (p, share, expires, status) in enumerate(
                [
                    (watched, 0.8, (today + dt.timedelta(days=30)).isoformat(), "active"),
                    (liked[1], 1.05, None, "triggered"),
                ],
                start=1,
            )
        ],
    )
