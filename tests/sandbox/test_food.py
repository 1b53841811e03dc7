"""D8 food tools against the wang_lei world (now = 2025-06-13T09:00, a Friday; home and work in Beijing).

Entities are found by their properties, not by seeded id, so the tests survive changes to the seed.
Each tool has a success test asserting its payload and state diff; every declared ErrorType has a
case in ERROR_CASES, where the failed call must change nothing but add its one log row.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import func, insert, select, update

from sandbox.db import open_database, transaction
from sandbox.domains.common import payment_methods, world_places
from sandbox.domains.food import tools as food
from sandbox.domains.food.schema import (
    food_orders,
    grocery_items,
    meal_plans,
    restaurant_reservations,
    saved_recipes,
    world_menu_items,
    world_recipes,
    world_restaurants,
    world_table_slots,
)
from sandbox.errors import ErrorType
from sandbox.executor import Executor
from sandbox.schema import app_permissions, device_settings
from sandbox.subagents import world_phone_services
from sandbox.tooling import REGISTRY
from sandbox.world import world_image
from tests.sandbox.conftest import diff, fails, ok, prepare, query

NOW, TODAY, HOME = "2025-06-13T09:00", "2025-06-13", "Beijing"
FOOD_TOOLS = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ == food.__name__)
# O: food_orders, beside R, S, M, T
R, S, M, T, O = world_restaurants.c, world_table_slots.c, world_menu_items.c, restaurant_reservations.c, food_orders.c  # noqa: E741
P = world_places.c


# ---- finding entities -----------------------------------------------------------------------


def restaurants(ex: Executor, *where: Any, city: str = HOME) -> list[dict[str, Any]]:
    return query(
        ex,
        select(world_restaurants)
        .join(world_places, P.place_id == R.place_id)
        .where(P.city == city, *where)
        .order_by(R.restaurant_id),
    )


def is_open(r: dict[str, Any], when: str) -> bool:
    return food._open_at(json.loads(r["hours_json"]), when)


def free_slots(ex: Executor, party: int = 2) -> list[dict[str, Any]]:
    """Future seatings with room for the party at online restaurants at home, where the user has no booking that day."""
    booked = {
        (b["restaurant_id"], b["datetime"][:10])
        for b in query(ex, select(restaurant_reservations).where(T.status == "confirmed"))
    }
    found = query(
        ex,
        select(S.restaurant_id, S.slot_dt, S.capacity_left)
        .join(world_restaurants, R.restaurant_id == S.restaurant_id)
        .join(world_places, P.place_id == R.place_id)
        .where(P.city == HOME, R.online_booking == 1, S.capacity_left >= party, R.max_party >= party, S.slot_dt > NOW)
        .order_by(S.slot_dt, S.restaurant_id),
    )
    return [s for s in found if (s["restaurant_id"], s["slot_dt"][:10]) not in booked]


def two_days(ex: Executor, party: int = 4) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two free seatings of one restaurant on different days, each with room for the party."""
    slots = free_slots(ex, party)
    for a in slots:
        for b in slots:
            if a["restaurant_id"] == b["restaurant_id"] and a["slot_dt"][:10] < b["slot_dt"][:10]:
                return a, b
    raise AssertionError("no restaurant with free seatings on two days")


def seats(ex: Executor, restaurant_id: str, when: str) -> int:
    return query(ex, select(S.capacity_left).where(S.restaurant_id == restaurant_id, S.slot_dt == when))[0][
        "capacity_left"
    ]


def book(ex: Executor, party: int = 2) -> tuple[dict[str, Any], dict[str, Any]]:
    slot = free_slots(ex, party)[0]
    out = ok(
        ex,
        "make_restaurant_reservation",
        {"restaurant_id": slot["restaurant_id"], "datetime": slot["slot_dt"], "party_size": party},
    )
    return out, slot


def phone_only(ex: Executor) -> dict[str, Any]:
    return restaurants(ex, R.online_booking == 0)[0]


def phone_booking(ex: Executor) -> str:
    """A confirmed upcoming reservation that a phone-only restaurant took (by the voice agent)."""
    r = phone_only(ex)
    prepare(
        ex.conn,
        insert(restaurant_reservations).values(
            reservation_id="resv_900",
            restaurant_id=r["restaurant_id"],
            datetime="2025-06-20T19:00",
            party_size=2,
            name="Wang Lei",
            phone="+8613800001111",
            status="confirmed",
            source="voice_agent",
            created_at=NOW,
            updated_at=NOW,
        ),
    )
    return "resv_900"


def open_kitchen(ex: Executor) -> dict[str, Any]:
    """A restaurant at home that delivers and is open now, its items all available."""
    r = next(r for r in restaurants(ex, R.delivery == 1) if is_open(r, NOW))
    prepare(ex.conn, update(world_menu_items).where(M.restaurant_id == r["restaurant_id"]).values(available=1))
    return r


def basket(ex: Executor, r: dict[str, Any]) -> list[dict[str, Any]]:
    """The cheapest dish, enough of it to reach the minimum order."""
    item = query(
        ex, select(world_menu_items).where(M.restaurant_id == r["restaurant_id"]).order_by(M.price, M.menu_item_id)
    )[0]
    return [{"menu_item_id": item["menu_item_id"], "quantity": max(1, math.ceil(r["min_order"] / item["price"]))}]


def past_order(ex: Executor, r: dict[str, Any]) -> dict[str, Any]:
    return query(ex, select(food_orders).where(O.restaurant_id == r["restaurant_id"]).order_by(O.order_id))[0]


def default_method(**values: Any) -> Any:
    return update(payment_methods).where(payment_methods.c.is_default == 1).values(**values)


def twin_places(ex: Executor) -> str:
    """A place name two places share."""
    first = query(ex, select(world_places).order_by(P.place_id))[0]
    prepare(ex.conn, insert(world_places).values({**first, "place_id": "place_999"}))
    return str(first["name"])


# ---- the world ------------------------------------------------------------------------------


def test_world_is_seeded_as_promised() -> None:
    for persona in ("wang_lei", "maya_patel"):
        conn = open_database(world_image(persona))
        try:
            with transaction(conn):
                rest = [
                    dict(r._mapping)
                    for r in conn.execute(
                        select(world_restaurants, P.city, P.category).join(world_places, P.place_id == R.place_id)
                    )
                ]
                assert len(rest) == 60 and {r["category"] for r in rest} == {"restaurant"}
                assert len({r["city"] for r in rest}) >= 5 and len({r["name"] for r in rest}) >= 55
                menus = dict(conn.execute(select(M.restaurant_id, func.count()).group_by(M.restaurant_id)).all())
                assert set(menus) == {r["restaurant_id"] for r in rest} and min(menus.values()) >= 6
                slotted = set(conn.execute(select(S.restaurant_id).distinct()).scalars())
                assert slotted == {r["restaurant_id"] for r in rest if r["online_booking"]}
                days = {d[:10] for d in conn.execute(select(S.slot_dt)).scalars()}
                assert len(days) >= 12
                phones = set(conn.execute(select(world_phone_services.c.place_id)).scalars())
                assert {r["place_id"] for r in rest if not r["online_booking"]} <= phones
                orders = [dict(r._mapping) for r in conn.execute(select(food_orders))]
                assert len(orders) >= 30 and [o["status"] for o in orders].count("on_the_way") == 1
                assert len(conn.execute(select(restaurant_reservations)).all()) >= 6
                assert len(conn.execute(select(world_recipes)).all()) == 40
                assert conn.execute(select(func.count()).select_from(grocery_items)).scalar() >= 10
                assert conn.execute(select(func.count()).select_from(meal_plans)).scalar() >= 4
        finally:
            conn.close()


def test_declarations() -> None:
    assert (
        sorted(
            [
                "search_restaurants",
                "get_restaurant_details",
                "make_restaurant_reservation",
                "update_restaurant_reservation",
                "cancel_restaurant_reservation",
                "order_food_delivery",
                "track_food_order",
                "reorder_past_order",
                "search_recipes",
                "save_recipe",
                "add_grocery_items",
                "create_meal_plan",
            ]
        )
        == FOOD_TOOLS
    )
    assert {n for n in FOOD_TOOLS if not REGISTRY[n].mutating} == {
        "search_restaurants",
        "get_restaurant_details",
        "track_food_order",
        "search_recipes",
    }
    assert {REGISTRY[n].domain for n in FOOD_TOOLS} == {"D8"}
    for name in FOOD_TOOLS:
        for arg in REGISTRY[name].parameters["properties"].values():
            assert arg["description"], name


# ---- 8.1 Restaurant Discovery ---------------------------------------------------------------


def test_search_restaurants_near_home(ex: Executor) -> None:
    out = ok(ex, "search_restaurants", {"near": "home", "limit": 50})
    home = restaurants(ex)
    assert out["near"] == "Home (18 Garden Road, Chaoyang, Beijing)" and out["total_matches"] == len(home)
    assert {r["restaurant_id"] for r in out["restaurants"]} == {r["restaurant_id"] for r in home}
    distances = [r["distance_km"] for r in out["restaurants"]]
    assert distances == sorted(distances)
    assert diff(ex) == {}


def test_search_restaurants_filters(ex: Executor) -> None:
    out = ok(
        ex,
        "search_restaurants",
        {"dietary": ["vegetarian", "gluten_free"], "price_level": 2, "min_rating": 4, "party_size": 6, "limit": 50},
    )
    for r in out["restaurants"]:
        assert {"vegetarian", "gluten_free"} <= set(r["dietary"]) and r["price_level"] <= 2 and r["rating"] >= 4
    ids = {r["restaurant_id"] for r in out["restaurants"]}
    assert all(r["max_party"] >= 6 for r in query(ex, select(world_restaurants).where(R.restaurant_id.in_(ids))))
    out = ok(ex, "search_restaurants", {"open_now": True, "delivery_only": True})
    assert out["restaurants"] and all(r["open_now"] and r["delivery"] for r in out["restaurants"])


def test_search_restaurants_by_dish(ex: Executor) -> None:
    out = ok(ex, "search_restaurants", {"query": "Dumplings", "limit": 50})
    serving = {
        r["restaurant_id"] for r in query(ex, select(M.restaurant_id).where(func.lower(M.name).contains("dumplings")))
    }
    assert serving and {r["restaurant_id"] for r in out["restaurants"]} == serving


def test_get_restaurant_details(ex: Executor) -> None:
    slot = free_slots(ex, 4)[0]
    day = slot["slot_dt"][:10]
    out = ok(ex, "get_restaurant_details", {"restaurant_id": slot["restaurant_id"], "date": day, "party_size": 4})
    assert out["restaurant_id"] == slot["restaurant_id"] and out["date"] == day and out["menu"]
    assert {"time": slot["slot_dt"][11:], "seats_left": slot["capacity_left"]} in out["free_tables"]
    assert all(t["seats_left"] >= 4 for t in out["free_tables"])
    assert diff(ex) == {}


def _delivering_away(ex: Executor) -> dict[str, Any]:
    """The first delivering restaurant outside the user's home city."""
    return query(
        ex,
        select(world_restaurants)
        .join(world_places, P.place_id == R.place_id)
        .where(P.city != HOME, R.delivery == 1)
        .order_by(R.restaurant_id),
    )[0]


def test_get_restaurant_details_shows_where_it_delivers(ex: Executor) -> None:
    """A delivering restaurant's page lists the saved addresses in its city (the ids an order needs)."""
    home = ok(ex, "get_restaurant_details", {"restaurant_id": restaurants(ex, R.delivery == 1)[0]["restaurant_id"]})
    assert [(a["address_id"], a["label"], a["city"]) for a in home["deliver_to"]] == [
        ("address_001", "Home", HOME),
        ("address_002", "Work", HOME),
    ]
    away = _delivering_away(ex)
    assert all(
        a["city"] != HOME
        for a in ok(ex, "get_restaurant_details", {"restaurant_id": away["restaurant_id"]})["deliver_to"]
    )
    assert "deliver_to" not in ok(
        ex, "get_restaurant_details", {"restaurant_id": restaurants(ex, R.delivery == 0)[0]["restaurant_id"]}
    )
    assert diff(ex) == {}


def test_get_restaurant_details_phone_only_and_own_bookings(ex: Executor) -> None:
    resv = phone_booking(ex)
    out = ok(ex, "get_restaurant_details", {"restaurant_id": phone_only(ex)["restaurant_id"]})
    assert out["free_tables"] is None and "call_voice_agent" in out["booking_note"]
    assert {"reservation_id": resv, "datetime": "2025-06-20T19:00", "party_size": 2} in out["my_reservations"]


# ---- 8.2 Table Reservations -----------------------------------------------------------------


def test_make_restaurant_reservation(ex: Executor) -> None:
    slot = free_slots(ex, 3)[0]
    out = ok(
        ex,
        "make_restaurant_reservation",
        {
            "restaurant_id": slot["restaurant_id"],
            "datetime": slot["slot_dt"],
            "party_size": 3,
            "special_requests": "high chair",
            "seating": "indoor",
        },
    )
    d = diff(ex)
    [row] = d["restaurant_reservations"]["inserted"]
    assert (
        row["reservation_id"],
        row["restaurant_id"],
        row["datetime"],
        row["party_size"],
        row["name"],
        row["phone"],
        row["status"],
        row["source"],
        row["special_requests"],
    ) == (
        out["reservation_id"],
        slot["restaurant_id"],
        slot["slot_dt"],
        3,
        "Wang Lei",
        "+8613800001111",
        "confirmed",
        "api",
        "high chair",
    )
    [seating] = d["world_table_slots"]["updated"]
    assert seating["after"]["capacity_left"] == slot["capacity_left"] - 3


def test_update_restaurant_reservation_moves_the_seats(ex: Executor) -> None:
    first, later = two_days(ex)
    out = ok(
        ex,
        "make_restaurant_reservation",
        {"restaurant_id": first["restaurant_id"], "datetime": first["slot_dt"], "party_size": 2},
    )
    moved = ok(
        ex,
        "update_restaurant_reservation",
        {"reservation_id": out["reservation_id"], "datetime": later["slot_dt"], "special_requests": "window"},
    )
    assert moved["updated"] == ["datetime", "special_requests"] and moved["datetime"] == later["slot_dt"]
    assert seats(ex, first["restaurant_id"], first["slot_dt"]) == first["capacity_left"]
    assert seats(ex, later["restaurant_id"], later["slot_dt"]) == later["capacity_left"] - 2
    [row] = diff(ex)["restaurant_reservations"]["inserted"]
    assert (row["datetime"], row["special_requests"]) == (later["slot_dt"], "window")


def test_update_restaurant_reservation_party_size_in_place(ex: Executor) -> None:
    out, slot = book(ex, 2)
    ok(ex, "update_restaurant_reservation", {"reservation_id": out["reservation_id"], "party_size": 3})
    assert seats(ex, slot["restaurant_id"], slot["slot_dt"]) == slot["capacity_left"] - 3


def test_cancel_restaurant_reservation(ex: Executor) -> None:
    resv = query(
        ex,
        select(restaurant_reservations)
        .where(T.status == "confirmed", T.source == "api", T.datetime > NOW)
        .order_by(T.datetime),
    )[0]
    left = seats(ex, resv["restaurant_id"], resv["datetime"])
    out = ok(ex, "cancel_restaurant_reservation", {"reservation_id": resv["reservation_id"], "reason": "ill"})
    assert out["status"] == "cancelled"
    d = diff(ex)
    [upd] = d["restaurant_reservations"]["updated"]
    assert (upd["after"]["status"], upd["after"]["cancel_reason"]) == ("cancelled", "ill")
    [freed] = d["world_table_slots"]["updated"]
    assert freed["after"]["capacity_left"] == left + resv["party_size"]


# ---- 8.3 Food Delivery ----------------------------------------------------------------------


def test_order_food_delivery(ex: Executor) -> None:
    r = open_kitchen(ex)
    items = basket(ex, r)
    out = ok(
        ex,
        "order_food_delivery",
        {"restaurant_id": r["restaurant_id"], "items": items, "address_id": "address_001", "tip": 5, "utensils": True},
    )
    assert out["subtotal"] >= r["min_order"] and out["total"] == round(out["subtotal"] + r["delivery_fee"] + 5, 2)
    assert out["status"] == "placed" and out["eta"] > NOW
    d = diff(ex)
    [order] = d["food_orders"]["inserted"]
    assert (order["order_id"], order["total"], order["utensils"], order["address_id"]) == (
        out["order_id"],
        out["total"],
        1,
        "address_001",
    )
    assert json.loads(order["items_json"])[0]["quantity"] == items[0]["quantity"]
    [txn] = d["transactions"]["inserted"]
    assert (txn["amount"], txn["ref_id"], txn["category"], txn["method_id"]) == (
        -out["total"],
        out["order_id"],
        "dining",
        out["payment_method_id"],
    )
    [paid] = d["payment_methods"]["updated"]
    assert paid["after"]["balance"] == round(paid["before"]["balance"] - out["total"], 2)


def test_order_food_delivery_scheduled(ex: Executor) -> None:
    r = next(r for r in restaurants(ex, R.delivery == 1) if is_open(r, "2025-06-14T12:30"))
    prepare(ex.conn, update(world_menu_items).where(M.restaurant_id == r["restaurant_id"]).values(available=1))
    out = ok(
        ex,
        "order_food_delivery",
        {
            "restaurant_id": r["restaurant_id"],
            "items": basket(ex, r),
            "address_id": "address_002",
            "scheduled_at": "2025-06-14T12:30",
        },
    )
    assert (out["status"], out["scheduled_at"]) == ("scheduled", "2025-06-14T12:30")
    assert out["eta"] == "2025-06-14T12:30"  # cooked to arrive at the time asked for


def test_track_food_order(ex: Executor) -> None:
    active = query(ex, select(food_orders).where(O.status == "on_the_way"))[0]
    out = ok(ex, "track_food_order", {"order_id": active["order_id"]})
    assert (out["status"], out["eta"]) == ("on_the_way", active["eta"])
    minutes = (dt.datetime.fromisoformat(active["eta"]) - dt.datetime.fromisoformat(NOW)).total_seconds() // 60
    assert out["minutes_to_arrival"] == max(0, int(minutes))
    done = query(ex, select(food_orders).where(O.status == "delivered"))[0]
    assert ok(ex, "track_food_order", {"order_id": done["order_id"]})["eta"] is None
    assert diff(ex) == {}


def test_reorder_past_order(ex: Executor) -> None:
    r = open_kitchen(ex)
    old = past_order(ex, r)
    out = ok(ex, "reorder_past_order", {"order_id": old["order_id"]})
    d = diff(ex)
    [order] = d["food_orders"]["inserted"]
    assert order["reordered_from"] == old["order_id"] and order["address_id"] == old["address_id"]
    assert [(i["menu_item_id"], i["quantity"]) for i in json.loads(order["items_json"])] == [
        (i["menu_item_id"], i["quantity"]) for i in json.loads(old["items_json"])
    ]
    assert order["tip"] == old["tip"] and out["txn_id"] == d["transactions"]["inserted"][0]["txn_id"]


# ---- 8.4 Recipes ----------------------------------------------------------------------------


def test_search_recipes(ex: Executor) -> None:
    out = ok(ex, "search_recipes", {"query": "tofu", "diet": "vegan", "max_time_min": 30, "servings": 6})
    assert [r["title"] for r in out["recipes"]] == ["Vegetarian mapo tofu", "Miso soup"]
    mapo = out["recipes"][0]
    assert mapo["servings"] == 6 and {"name": "silken tofu", "quantity": 800.0, "unit": "g"} in mapo["ingredients"]
    out = ok(ex, "search_recipes", {"query": "chicken", "exclude_ingredients": ["peanuts"], "limit": 20})
    assert "Kung pao chicken" not in [r["title"] for r in out["recipes"]] and out["count"] >= 4
    assert diff(ex) == {}


def test_save_recipe(ex: Executor) -> None:
    saved = {r["recipe_id"] for r in query(ex, select(saved_recipes))}
    rid = next(
        r["recipe_id"]
        for r in query(ex, select(world_recipes).order_by(world_recipes.c.recipe_id))
        if r["recipe_id"] not in saved
    )
    out = ok(ex, "save_recipe", {"recipe_id": rid, "collection": "weeknight"})
    assert out["collection"] == "Weeknight"  # the existing collection's spelling
    [row] = diff(ex)["saved_recipes"]["inserted"]
    assert (row["recipe_id"], row["collection"]) == (rid, "Weeknight")


# ---- 8.5 Grocery & Meal Planning ------------------------------------------------------------


def test_add_grocery_items_merges_unticked_items(ex: Executor) -> None:
    garlic = query(ex, select(grocery_items).where(grocery_items.c.name == "Garlic"))[0]
    out = ok(
        ex,
        "add_grocery_items",
        {
            "items": [
                {"name": "garlic", "quantity": 2, "unit": garlic["unit"]},
                {"name": "Lemongrass", "quantity": 3, "unit": "pc"},
            ],
            "list_name": "groceries",
            "from_recipe_id": "recipe_022",
        },
    )
    assert out["list_name"] == "Groceries" and [m["item_id"] for m in out["merged"]] == [garlic["item_id"]]
    d = diff(ex)["grocery_items"]
    [new] = d["inserted"]
    assert (new["name"], new["quantity"], new["unit"], new["from_recipe_id"], new["checked"]) == (
        "Lemongrass",
        3.0,
        "pc",
        "recipe_022",
        0,
    )
    [merged] = d["updated"]
    assert merged["after"]["quantity"] == garlic["quantity"] + 2


def test_add_grocery_items_ticked_item_is_added_again(ex: Executor) -> None:
    ticked = query(ex, select(grocery_items).where(grocery_items.c.checked == 1))[0]
    out = ok(ex, "add_grocery_items", {"items": [{"name": ticked["name"], "unit": ticked["unit"]}]})
    assert out["merged"] == [] and out["added"][0]["quantity"] == 1.0


def test_create_meal_plan(ex: Executor) -> None:
    planned = {(p["date"], p["meal"]) for p in query(ex, select(meal_plans))}
    assert ("2025-06-20", "breakfast") not in planned
    out = ok(ex, "create_meal_plan", {"date": "2025-06-20", "meal": "breakfast", "recipe_id": "recipe_035"})
    assert (out["title"], out["servings"], out["replaced"]) == ("Banana pancakes", 2, None)
    [row] = diff(ex)["meal_plans"]["inserted"]
    assert (row["date"], row["meal"], row["recipe_id"]) == ("2025-06-20", "breakfast", "recipe_035")


def test_create_meal_plan_replace(ex: Executor) -> None:
    plan = query(ex, select(meal_plans).where(meal_plans.c.date >= TODAY).order_by(meal_plans.c.date))[0]
    out = ok(
        ex,
        "create_meal_plan",
        {"date": plan["date"], "meal": plan["meal"], "recipe_id": "recipe_001", "servings": 4, "replace": True},
    )
    assert out["replaced"] == plan["recipe_id"]
    [upd] = diff(ex)["meal_plans"]["updated"]
    assert (upd["after"]["recipe_id"], upd["after"]["servings"]) == ("recipe_001", 4)


# ---- the gates ------------------------------------------------------------------------------


def test_search_needs_location_and_network(ex: Executor) -> None:
    prepare(
        ex.conn,
        update(app_permissions)
        .where(app_permissions.c.app_id == "dining", app_permissions.c.permission == "LOCATION")
        .values(state="denied"),
    )
    fails(ex, "search_restaurants", {"cuisine": "Italian"}, ErrorType.PERMISSION_DENIED)
    prepare(
        ex.conn,
        update(app_permissions).values(state="granted"),
        update(device_settings).where(device_settings.c.key == "location_service").values(value="0"),
    )
    fails(ex, "search_restaurants", {"cuisine": "Italian"}, ErrorType.SERVICE_DISABLED)
    radios = device_settings.c.key.in_(["wifi", "mobile_data"])
    prepare(ex.conn, update(device_settings).where(radios).values(value="0"))
    fails(
        ex,
        "order_food_delivery",
        {
            "restaurant_id": "rest_001",
            "items": [{"menu_item_id": "menu_001", "quantity": 1}],
            "address_id": "address_001",
        },
        ErrorType.NETWORK_UNAVAILABLE,
    )


def test_cross_field_checks(ex: Executor) -> None:
    fails(ex, "search_restaurants", {"limit": 5}, ErrorType.INVALID_ARGUMENT_VALUE)
    fails(ex, "update_restaurant_reservation", {"reservation_id": "resv_001"}, ErrorType.INVALID_ARGUMENT_VALUE)
    fails(
        ex,
        "order_food_delivery",
        {"restaurant_id": "rest_001", "items": [], "address_id": "address_001"},
        ErrorType.INVALID_ARGUMENT_VALUE,
    )


# ---- declared errors ------------------------------------------------------------------------


def _reservation_full(ex: Executor) -> dict[str, Any]:
    slot = free_slots(ex)[0]
    prepare(
        ex.conn,
        update(world_table_slots)
        .where(S.restaurant_id == slot["restaurant_id"], S.slot_dt == slot["slot_dt"])
        .values(capacity_left=1),
    )
    return {"restaurant_id": slot["restaurant_id"], "datetime": slot["slot_dt"], "party_size": 2}


def _reservation_off_seating(ex: Executor) -> dict[str, Any]:
    """An open hour that is not one of the restaurant's seatings."""
    for r in restaurants(ex, R.online_booking == 1):
        seatings = {s["slot_dt"] for s in query(ex, select(S.slot_dt).where(S.restaurant_id == r["restaurant_id"]))}
        for hm in ("12:15", "18:15", "19:15", "20:15"):
            when = f"2025-06-17T{hm}"
            if is_open(r, when) and when not in seatings:
                return {"restaurant_id": r["restaurant_id"], "datetime": when, "party_size": 2}
    raise AssertionError("no open hour without a seating")


def _reservation_same_day(ex: Executor) -> dict[str, Any]:
    _out, slot = book(ex)
    return {"restaurant_id": slot["restaurant_id"], "datetime": slot["slot_dt"], "party_size": 2}


def _update_cancelled(ex: Executor) -> dict[str, Any]:
    out, _ = book(ex)
    ok(ex, "cancel_restaurant_reservation", {"reservation_id": out["reservation_id"]})
    return {"reservation_id": out["reservation_id"], "party_size": 3}


def _update_onto_full(ex: Executor) -> dict[str, Any]:
    first, later = two_days(ex)
    out = ok(
        ex,
        "make_restaurant_reservation",
        {"restaurant_id": first["restaurant_id"], "datetime": first["slot_dt"], "party_size": 2},
    )
    prepare(
        ex.conn,
        update(world_table_slots)
        .where(S.restaurant_id == later["restaurant_id"], S.slot_dt == later["slot_dt"])
        .values(capacity_left=0),
    )
    return {"reservation_id": out["reservation_id"], "datetime": later["slot_dt"]}


def _update_onto_booked_day(ex: Executor) -> dict[str, Any]:
    first, later = two_days(ex)
    a = ok(
        ex,
        "make_restaurant_reservation",
        {"restaurant_id": first["restaurant_id"], "datetime": first["slot_dt"], "party_size": 2},
    )
    ok(
        ex,
        "make_restaurant_reservation",
        {"restaurant_id": later["restaurant_id"], "datetime": later["slot_dt"], "party_size": 2},
    )
    return {"reservation_id": a["reservation_id"], "datetime": later["slot_dt"]}


def _update_closed(ex: Executor) -> dict[str, Any]:
    out, slot = book(ex)
    return {"reservation_id": out["reservation_id"], "datetime": f"{slot['slot_dt'][:10]}T05:00"}


def _past_reservation(ex: Executor) -> str:
    return str(query(ex, select(T.reservation_id).where(T.status == "completed"))[0]["reservation_id"])


def _order(ex: Executor, r: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    r = r or open_kitchen(ex)
    return {"restaurant_id": r["restaurant_id"], "items": basket(ex, r), "address_id": "address_001", **extra}


def _order_closed(ex: Executor) -> dict[str, Any]:
    r = next(r for r in restaurants(ex, R.delivery == 1) if not is_open(r, NOW))
    return _order(ex, r)


def _order_no_delivery(ex: Executor) -> dict[str, Any]:
    return _order(ex, restaurants(ex, R.delivery == 0)[0])


def _order_out_of_area(ex: Executor) -> dict[str, Any]:
    return _order(ex, _delivering_away(ex))


def _order_sold_out(ex: Executor) -> dict[str, Any]:
    args = _order(ex)
    prepare(
        ex.conn, update(world_menu_items).where(M.menu_item_id == args["items"][0]["menu_item_id"]).values(available=0)
    )
    return args


def _order_below_minimum(ex: Executor) -> dict[str, Any]:
    args = _order(ex)
    prepare(ex.conn, update(world_restaurants).where(R.restaurant_id == args["restaurant_id"]).values(min_order=100000))
    return args


def _order_wrong_menu(ex: Executor) -> dict[str, Any]:
    r = open_kitchen(ex)
    other = query(ex, select(M.menu_item_id).where(M.restaurant_id != r["restaurant_id"]))[0]["menu_item_id"]
    return {
        "restaurant_id": r["restaurant_id"],
        "items": [{"menu_item_id": other, "quantity": 1}],
        "address_id": "address_001",
    }


def _reorder(ex: Executor, **extra: Any) -> dict[str, Any]:
    return {"order_id": past_order(ex, open_kitchen(ex))["order_id"], **extra}


def _reorder_gone(ex: Executor) -> dict[str, Any]:
    args = _reorder(ex)
    first = json.loads(query(ex, select(O.items_json).where(O.order_id == args["order_id"]))[0]["items_json"])[0]
    prepare(ex.conn, world_menu_items.delete().where(M.menu_item_id == first["menu_item_id"]))
    return args


def _reorder_closed(ex: Executor) -> dict[str, Any]:
    ordered = {o["restaurant_id"] for o in query(ex, select(O.restaurant_id))}
    r = next(r for r in restaurants(ex, R.delivery == 1) if r["restaurant_id"] in ordered and not is_open(r, NOW))
    return {"order_id": past_order(ex, r)["order_id"]}


def _frozen(make: Callable[[Executor], dict[str, Any]]) -> Callable[[Executor], dict[str, Any]]:
    def setup(ex: Executor) -> dict[str, Any]:
        args = make(ex)
        prepare(ex.conn, default_method(status="frozen"))
        return args

    return setup


def _broke(make: Callable[[Executor], dict[str, Any]]) -> Callable[[Executor], dict[str, Any]]:
    def setup(ex: Executor) -> dict[str, Any]:
        args = make(ex)
        prepare(ex.conn, update(payment_methods).values(balance=1.0))
        return args

    return setup


def _planned(ex: Executor) -> dict[str, Any]:
    plan = query(ex, select(meal_plans).where(meal_plans.c.date >= TODAY).order_by(meal_plans.c.date))[0]
    return {"date": plan["date"], "meal": plan["meal"], "recipe_id": "recipe_001"}


NF, AMB, STATE, UNAV, UNSUP = (
    ErrorType.ENTITY_NOT_FOUND,
    ErrorType.AMBIGUOUS_ENTITY,
    ErrorType.STATE_CONFLICT,
    ErrorType.RESOURCE_UNAVAILABLE,
    ErrorType.UNSUPPORTED_OPERATION,
)
BAD, DUP, LIMIT = ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.DUPLICATE_ENTITY, ErrorType.LIMIT_EXCEEDED
Setup = Callable[[Executor], dict[str, Any]]

# (tool, expected error, setup returning the arguments)
ERROR_CASES: list[tuple[str, ErrorType, Setup]] = [
    ("search_restaurants", NF, lambda ex: {"near": "Atlantis"}),
    ("search_restaurants", NF, lambda ex: {"near": "place_999"}),
    ("search_restaurants", AMB, lambda ex: {"near": twin_places(ex)}),
    ("get_restaurant_details", NF, lambda ex: {"restaurant_id": "rest_999"}),
    (
        "make_restaurant_reservation",
        NF,
        lambda ex: {"restaurant_id": "rest_999", "datetime": "2025-06-14T19:00", "party_size": 2},
    ),
    (
        "make_restaurant_reservation",
        UNSUP,
        lambda ex: {"restaurant_id": phone_only(ex)["restaurant_id"], "datetime": "2025-06-14T19:00", "party_size": 2},
    ),
    ("make_restaurant_reservation", BAD, lambda ex: {**_reservation_full(ex), "datetime": "2025-06-12T19:00"}),
    ("make_restaurant_reservation", BAD, lambda ex: {**_reservation_full(ex), "datetime": "2025-06-14T05:00"}),
    ("make_restaurant_reservation", UNAV, _reservation_full),
    ("make_restaurant_reservation", UNAV, _reservation_off_seating),
    ("make_restaurant_reservation", UNAV, lambda ex: {**_reservation_full(ex), "party_size": 20}),
    ("make_restaurant_reservation", DUP, _reservation_same_day),
    ("update_restaurant_reservation", NF, lambda ex: {"reservation_id": "resv_999", "party_size": 2}),
    ("update_restaurant_reservation", STATE, _update_cancelled),
    ("update_restaurant_reservation", STATE, lambda ex: {"reservation_id": _past_reservation(ex), "party_size": 3}),
    ("update_restaurant_reservation", UNSUP, lambda ex: {"reservation_id": phone_booking(ex), "party_size": 3}),
    ("update_restaurant_reservation", BAD, _update_closed),
    ("update_restaurant_reservation", UNAV, _update_onto_full),
    ("update_restaurant_reservation", DUP, _update_onto_booked_day),
    ("cancel_restaurant_reservation", NF, lambda ex: {"reservation_id": "resv_999"}),
    ("cancel_restaurant_reservation", STATE, lambda ex: {"reservation_id": _past_reservation(ex)}),
    ("cancel_restaurant_reservation", UNSUP, lambda ex: {"reservation_id": phone_booking(ex)}),
    ("order_food_delivery", NF, lambda ex: {**_order(ex), "restaurant_id": "rest_999"}),
    ("order_food_delivery", NF, lambda ex: {**_order(ex), "address_id": "address_999"}),
    ("order_food_delivery", NF, _order_wrong_menu),
    ("order_food_delivery", NF, lambda ex: _order(ex, payment_method_id="pm_999")),
    ("order_food_delivery", STATE, _frozen(_order)),
    ("order_food_delivery", BAD, lambda ex: _order(ex, scheduled_at="2025-06-12T12:00")),
    ("order_food_delivery", BAD, lambda ex: _order(ex, scheduled_at="2025-06-30T12:00")),
    ("order_food_delivery", UNAV, _order_closed),
    ("order_food_delivery", UNAV, _order_no_delivery),
    ("order_food_delivery", UNAV, _order_out_of_area),
    ("order_food_delivery", UNAV, _order_sold_out),
    ("order_food_delivery", LIMIT, _order_below_minimum),
    ("order_food_delivery", LIMIT, _broke(_order)),
    ("track_food_order", NF, lambda ex: {"order_id": "forder_999"}),
    ("reorder_past_order", NF, lambda ex: {"order_id": "forder_999"}),
    ("reorder_past_order", NF, lambda ex: _reorder(ex, address_id="address_999")),
    ("reorder_past_order", STATE, _frozen(_reorder)),
    ("reorder_past_order", BAD, lambda ex: _reorder(ex, scheduled_at="2025-06-13T08:00")),
    ("reorder_past_order", UNAV, _reorder_gone),
    ("reorder_past_order", UNAV, _reorder_closed),
    ("reorder_past_order", LIMIT, _broke(_reorder)),
    ("save_recipe", NF, lambda ex: {"recipe_id": "recipe_999"}),
    ("save_recipe", DUP, lambda ex: {"recipe_id": query(ex, select(saved_recipes.c.recipe_id))[0]["recipe_id"]}),
    ("add_grocery_items", NF, lambda ex: {"items": [{"name": "tofu"}], "from_recipe_id": "recipe_999"}),
    ("create_meal_plan", NF, lambda ex: {"date": "2025-06-20", "meal": "lunch", "recipe_id": "recipe_999"}),
    ("create_meal_plan", BAD, lambda ex: {"date": "2025-06-12", "meal": "lunch", "recipe_id": "recipe_001"}),
    ("create_meal_plan", DUP, _planned),
]


@pytest.mark.parametrize(
    ("name", "error", "setup"), ERROR_CASES, ids=[f"{c[0]}-{c[1].value}-{i}" for i, c in enumerate(ERROR_CASES)]
)
def test_declared_error_changes_nothing(ex: Executor, name: str, error: ErrorType, setup: Setup) -> None:
    fails(ex, name, setup(ex), error)


def test_every_declared_error_is_tested() -> None:
    declared = {(n, e) for n in FOOD_TOOLS for e in REGISTRY[n].errors}
    assert {(c[0], c[1]) for c in ERROR_CASES} == declared


def test_error_payloads_guide_the_planner(ex: Executor) -> None:
    payload = fails(
        ex,
        "make_restaurant_reservation",
        {"restaurant_id": phone_only(ex)["restaurant_id"], "datetime": "2025-06-14T19:00", "party_size": 2},
        UNSUP,
    )
    assert payload["hint"] == "call_voice_agent" and payload["phone"] == phone_only(ex)["phone"]
    args = _reservation_full(ex)
    payload = fails(ex, "make_restaurant_reservation", args, UNAV)
    assert all(t["seats_left"] >= 2 for t in payload["free_tables"])
    args = _reservation_same_day(ex)
    assert fails(ex, "make_restaurant_reservation", args, DUP)["existing_id"].startswith("resv_")


def test_phone_only_restaurant_can_be_booked_by_the_voice_agent(ex: Executor) -> None:
    r = phone_only(ex)
    hours = json.loads(r["hours_json"])
    rules = json.loads(
        query(ex, select(world_phone_services.c.rules_json).where(world_phone_services.c.place_id == r["place_id"]))[0][
            "rules_json"
        ]
    )
    assert (rules["open"], rules["close"]) == (hours["windows"][0][0], hours["windows"][-1][1])
    assert rules["slots"] and all(is_open(r, f"2025-06-17T{t}") for t in rules["slots"])  # a Tuesday


def test_reservation_world_is_consistent() -> None:
    """Seeded upcoming online bookings sit on seatings that still have room."""
    conn = open_database(world_image("wang_lei"))
    try:
        with transaction(conn):
            upcoming = conn.execute(
                select(restaurant_reservations).where(T.status == "confirmed", T.source == "api", T.datetime > NOW)
            ).all()
            assert upcoming
            for b in upcoming:
                left = conn.execute(
                    select(S.capacity_left).where(S.restaurant_id == b.restaurant_id, S.slot_dt == b.datetime)
                ).scalar()
                assert left is not None and left >= 0
    finally:
        conn.close()
