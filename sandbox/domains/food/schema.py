"""The food domain's data model: its tables, and the constants and types its tools and seeder share."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import ConfigDict, Field
from sqlalchemy import (
    Column,
    Float,
    Integer,
    Text,
)
from typing_extensions import TypedDict

from sandbox.schema import USER, WORLD, stamps, table

world_restaurants = table(
    "world_restaurants",
    WORLD,
    Column("restaurant_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("cuisine", Text, nullable=False),
    Column("place_id", Text, nullable=False),
    Column("price_level", Integer, nullable=False),  # 1 (cheap) .. 4 (fine dining)
    Column("rating", Float, nullable=False),
    Column("dietary_json", Text, nullable=False),  # options it caters for: vegetarian, vegan, halal, ...
    Column("online_booking", Integer, nullable=False),  # 0: reservations by phone only
    Column("delivery", Integer, nullable=False),
    Column("delivery_fee", Float, nullable=False),
    Column("min_order", Float, nullable=False),
    Column("prep_min", Integer, nullable=False),
    Column("max_party", Integer, nullable=False),
    Column("hours_json", Text, nullable=False),  # {"windows": [["11:00", "14:30"], ...], "closed": ["mon"]}
    Column("phone", Text, nullable=False),
    natural_key=("name", "place_id"),
    id_prefix="rest",
)

world_menu_items = table(
    "world_menu_items",
    WORLD,
    Column("menu_item_id", Text, primary_key=True),
    Column("restaurant_id", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("category", Text, nullable=False),  # starter | main | side | dessert | drink
    Column("price", Float, nullable=False),
    Column("available", Integer, nullable=False),  # 0: sold out
    Column("dietary_json", Text, nullable=False),
    natural_key=("restaurant_id", "name"),
    id_prefix="menu",
)

world_table_slots = table(
    "world_table_slots",
    WORLD,
    Column("slot_id", Integer, primary_key=True),
    Column("restaurant_id", Text, nullable=False),
    Column("slot_dt", Text, nullable=False),  # a seating, YYYY-MM-DDTHH:MM
    Column("capacity_left", Integer, nullable=False),  # seats still free
    natural_key=("restaurant_id", "slot_dt"),
)

restaurant_reservations = table(
    "restaurant_reservations",
    USER,
    Column("reservation_id", Text, primary_key=True),
    Column("restaurant_id", Text, nullable=False),
    Column("datetime", Text, nullable=False),
    Column("party_size", Integer, nullable=False),
    Column("name", Text, nullable=False),
    Column("phone", Text, nullable=False),
    Column("special_requests", Text),
    Column("seating", Text),
    Column("status", Text, nullable=False),  # confirmed | cancelled | completed
    Column("source", Text, nullable=False),  # api | voice_agent | gui_agent
    Column("cancel_reason", Text),
    *stamps(),
    natural_key=("restaurant_id", "datetime"),
    id_prefix="resv",
)

food_orders = table(
    "food_orders",
    USER,
    Column("order_id", Text, primary_key=True),
    Column("restaurant_id", Text, nullable=False),
    Column("items_json", Text, nullable=False),  # [{menu_item_id, name, quantity, unit_price, notes?}]
    Column("address_id", Text, nullable=False),
    Column("payment_method_id", Text, nullable=False),
    Column("subtotal", Float, nullable=False),
    Column("delivery_fee", Float, nullable=False),
    Column("tip", Float, nullable=False),
    Column("total", Float, nullable=False),
    Column("currency", Text, nullable=False),
    Column("utensils", Integer, nullable=False),
    Column("status", Text, nullable=False),  # scheduled | placed | preparing | on_the_way | delivered | cancelled
    Column("scheduled_at", Text),
    Column("placed_at", Text, nullable=False),
    Column("eta", Text),
    Column("reordered_from", Text),
    *stamps(),
    natural_key=("restaurant_id", "placed_at"),
    id_prefix="forder",
)

world_recipes = table(
    "world_recipes",
    WORLD,
    Column("recipe_id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("cuisine", Text, nullable=False),
    Column("diet_json", Text, nullable=False),
    Column("tags_json", Text, nullable=False),  # meal types and kinds: dinner, soup, quick, ...
    Column("time_min", Integer, nullable=False),
    Column("servings", Integer, nullable=False),
    Column("calories", Integer, nullable=False),  # per serving
    Column("ingredients_json", Text, nullable=False),  # [{name, quantity, unit}]
    natural_key=("title",),
)

saved_recipes = table(
    "saved_recipes",
    USER,
    Column("recipe_id", Text, primary_key=True),
    Column("collection", Text, nullable=False),
    *stamps(),
    natural_key=("recipe_id",),
)

grocery_items = table(
    "grocery_items",
    USER,
    Column("item_id", Text, primary_key=True),
    Column("list_name", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("quantity", Float, nullable=False),
    Column("unit", Text),
    Column("checked", Integer, nullable=False),
    Column("from_recipe_id", Text),
    *stamps(),
    natural_key=("list_name", "name"),
    id_prefix="grocery",
)

meal_plans = table(
    "meal_plans",
    USER,
    Column("date", Text, primary_key=True),
    Column("meal", Text, primary_key=True),
    Column("recipe_id", Text, nullable=False),
    Column("servings", Integer, nullable=False),
    *stamps(),
    natural_key=("date", "meal"),
)

DT_FMT = "%Y-%m-%dT%H:%M"
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
SCHEDULE_DAYS = 7  # how far ahead a delivery may be scheduled
COURIER_MIN = 20  # minutes from pick-up to the door

Dietary = Literal["vegetarian", "vegan", "halal", "gluten_free", "nut_free"]
Diet = Literal["vegetarian", "vegan", "gluten_free", "dairy_free", "low_carb", "high_protein", "nut_free"]
Meal = Literal["breakfast", "lunch", "dinner", "snack"]
Seating = Literal["indoor", "outdoor", "bar", "private"]
Name = Annotated[str, Field(min_length=1, max_length=120, pattern=r"\S")]
Query = Annotated[str, Field(min_length=1, max_length=200)]
Requests = Annotated[str, Field(min_length=1, max_length=300)]
Limit = Annotated[int, Field(ge=1, le=50)]
PartySize = Annotated[int, Field(ge=1, le=20)]
Money = Annotated[float, Field(ge=0, le=10000)]
Location = Annotated[str, Field(min_length=1, max_length=200)]
Ingredients = Annotated[list[Annotated[str, Field(min_length=1, max_length=60)]], Field(min_length=1, max_length=10)]


class OrderLine(TypedDict):
    """One line of a delivery order."""

    __pydantic_config__ = ConfigDict(extra="forbid", strict=True)  # type: ignore[misc]
    menu_item_id: Annotated[str, Field(min_length=1, max_length=64, description="Menu item id, e.g. menu_912.")]
    quantity: Annotated[int, Field(ge=1, le=50, description="How many.")]
    notes: NotRequired[Annotated[str, Field(max_length=200, description="Requests for this dish.")] | None]


class GroceryLine(TypedDict):
    """One item to put on a grocery list."""

    __pydantic_config__ = ConfigDict(extra="forbid", strict=True)  # type: ignore[misc]
    name: Annotated[str, Field(min_length=1, max_length=80, pattern=r"\S", description='What to buy, e.g. "eggs".')]
    quantity: NotRequired[Annotated[float, Field(gt=0, le=10000, description="Amount (default 1).")] | None]
    unit: NotRequired[Annotated[str, Field(min_length=1, max_length=20, description="Unit, e.g. g, ml, pc.")] | None]
