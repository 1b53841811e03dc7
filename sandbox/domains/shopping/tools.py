"""The shopping domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import (
    Select,
    Table,
    bindparam,
    func,
    insert,
    select,
    update,
)

from sandbox.domains.common import addresses, charge, payment_method, payment_methods, refund
from sandbox.domains.shopping.schema import (
    APP,
    CONFIRM_THRESHOLD,
    FEES,
    MAX_LINE_QUANTITY,
    MERCHANT,
    RETURN_WINDOW_DAYS,
    Id,
    Label,
    Limit,
    Line,
    Money,
    Query,
    cart_items,
    coupons,
    order_items,
    orders,
    price_alerts,
    returns,
    shipments,
    wishlist,
    world_products,
    world_reviews,
)
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, normalise_phone, row_by_key, rows
from sandbox.locales import figures, shelf_price
from sandbox.tooling import Date, Phone, tool

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


def check_return_window(ctx: Ctx, order: dict[str, Any]) -> None:
    """Refuse a return or exchange of a delivered order after its return window closed."""
    last_day = (dt.datetime.fromisoformat(order["delivered_at"]) + dt.timedelta(days=RETURN_WINDOW_DAYS)).date()
    if ctx.now.date() > last_day:
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"the return window of {order['order_id']} closed on {last_day} ({RETURN_WINDOW_DAYS} days after delivery)",
            delivered_at=order["delivered_at"],
        )


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
    check_return_window(ctx, order)
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
