"""The shopping domain's data model: its tables, and the constants and types its tools and seeder share."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field
from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Integer,
    Text,
)

from sandbox.schema import USER, WORLD, stamps, table

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
