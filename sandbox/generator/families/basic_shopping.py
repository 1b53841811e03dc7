"""Basic Tool Use families for Shopping & E-commerce (D6): search, cart, checkout, orders, returns, coupons,
wishlist."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from sandbox.domains.shopping.schema import RETURN_WINDOW_DAYS
from sandbox.domains.shopping.tools import _coupon_problem, _discount, _unit_price
from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import peek

NOUNS = {  # a product title's noun -> how a user names it
    "Wireless Noise-Cancelling Headphones": "noise-cancelling headphones",
    "True Wireless Earbuds": "wireless earbuds",
    "Smartphone": "smartphone",
    "Laptop": "laptop",
    "Smartwatch": "smartwatch",
    "Tablet": "tablet",
    "65W USB-C Fast Charger": "fast charger",
    "Power Bank 20000mAh": "power bank",
    "Portable Bluetooth Speaker": "bluetooth speaker",
    "Mechanical Keyboard": "mechanical keyboard",
    "Air Fryer": "air fryer",
    "Robot Vacuum": "robot vacuum",
    "Espresso Machine": "espresso machine",
    "Electric Kettle 1.7L": "electric kettle",
    "Air Purifier": "air purifier",
    "Bed Sheet Set": "bed sheet set",
    "Running Shoes": "running shoes",
    "Slim Fit Jeans": "slim fit jeans",
    "Down Jacket": "down jacket",
    "Travel Backpack 25L": "travel backpack",
    "Sunscreen SPF50+ 60ml": "sunscreen",
    "Moisturizing Face Cream 50ml": "face cream",
    "Electric Toothbrush": "electric toothbrush",
    "Yoga Mat 6mm": "yoga mat",
    "Cycling Helmet": "cycling helmet",
    "Coffee Beans 1kg": "coffee beans",
    "Cotton Crew T-Shirt": "t-shirt",
}
STORES = ("TechMall", "HomePlus", "UrbanWear", "BeautyBay", "SportZone", "BookNook", "FreshMart")


def say(g: Gen, *templates: str, **fields: Any) -> str:
    """``g.say`` where a name that opens with "The" ("The North Face ...", "The Art of War") takes no second "the"."""
    return re.sub(r"\b([Tt])he The\b", r"\1he", g.say(*templates, **fields))


def noun_of(product: dict[str, Any]) -> str | None:
    return next((NOUNS[n] for n in NOUNS if product["title"].endswith(n)), None)


def model_of(product: dict[str, Any]) -> str:
    """Brand and model, e.g. "Philips Airfryer XXL" (books: their title)."""
    if product["category"] == "books":
        return product["title"].split(" (")[0]
    noun = next((n for n in NOUNS if product["title"].endswith(n)), "")
    return product["title"][: len(product["title"]) - len(noun)].strip()


def product(g: Gen, *, stock: int = 1, variants: bool | None = None, books: bool = False) -> dict[str, Any]:
    def ok(p: dict[str, Any]) -> bool:
        has = p["variants_json"] != "[]"
        return (
            p["stock"] >= stock
            and (variants is None or has == variants)
            and (books or p["category"] != "books")
            and p["product_id"] != "product_112"
        )

    return g.one("world_products", filter=ok)


def money(g: Gen) -> str:
    return g.rows("payment_methods", {"method_id": "pm_002"})[0]["currency"]


def pay_name(method_id: str) -> str:
    return {"pm_001": "my Visa credit card", "pm_002": "my debit card", "pm_003": "my wallet balance"}[method_id]


def addr_name(address: dict[str, Any]) -> str:
    return f"my {address['label'].lower()} address"


# ---- 6.1 Product Search & Compare -------------------------------------------------------------


@family("basic", "6.1", pattern="single_call")
def cheapest_in_category(g: Gen) -> Draft:
    p = product(g)
    noun = noun_of(p)
    if noun is None:
        raise BuildError("no noun")
    order, word = g.pick(
        [
            ("price_asc", "cheapest"),
            ("rating", "best-rated"),
            ("sales", "best-selling"),
            ("price_desc", "most expensive"),
        ]
    )
    brand = g.pick([None, p["brand"]])
    where = f" from {brand}" if brand else ""
    query = say(
        g,
        "what's the {word} {noun}{where} in the shop?",
        "find me the {word} {noun}{where} you can buy",
        "which {noun}{where} is the {word} one on the shop app?",
        "search the shop for {noun}{where} and tell me the {word} option",
        word=word,
        noun=noun,
        where=where,
    )
    args: dict[str, Any] = {"query": noun, "sort": order}
    if brand:
        args["brand"] = brand
    key = noun.split()[-1].rstrip("s")
    check_args: dict[str, Any] = {"query": {"$contains": key}}
    if brand:
        check_args = {
            "$any": [{"query": {"$contains": key}, "brand": brand}, {"query": {"$contains_all": [key, brand]}}]
        }
    found = peek(g, "search_products", **args)["products"]
    top = found[0]
    key_of = {"price_asc": "price", "price_desc": "price", "rating": "rating", "sales": "sales"}[order]
    if len(found) > 1 and found[1][key_of] == top[key_of]:
        raise BuildError(f"two {noun}s tie for {word}")
    return Draft(
        query=query,
        gold=[
            act("search_products", **args),
            done(f"The {word} {noun} is the {top['title']} at {top['price']:g} {top['currency']}."),
        ],
        bucket="tool_call",
        check={"calls": [{"tool": "search_products", "args": check_args}]},
        answer=[{"$name": model_of(top)}],
    )


@family("basic", "6.1", pattern="lookup_then_act")
def product_reviews_and_specs(g: Gen) -> Draft:
    p = product(g, books=True)
    model = model_of(p)
    what = g.pick(
        [
            "the reviews of",
            "the specs of",
            "the price history of",
            "the variants and stock of",
            "what people say about",
            "the lowest recent price of",
        ]
    )
    query = say(
        g,
        "show me {what} the {model}",
        "can you pull up {what} the {model} in the shop?",
        "I'm thinking about buying the {model}; check {what} it for me",
        what=what,
        model=model,
    )
    info = peek(g, "get_product_details", product_id=p["product_id"])
    fact, answer = product_fact(what, info)
    return Draft(
        query=query,
        gold=[
            act("search_products", query=model),
            act("get_product_details", product_id=p["product_id"]),
            done(f"{p['title']}: {answer}."),
        ],
        bucket="tool_call",
        check={"calls": [{"tool": "get_product_details", "args": {"product_id": p["product_id"]}}]},
        answer=[fact],
    )


def product_fact(what: str, info: dict[str, Any]) -> tuple[Any, str]:
    """The fact that answers ``what`` about a product (a matcher) and a sentence stating it."""
    price = {"$amount": {"value": info["price"], "currency": info["currency"]}}
    lowest = {"$amount": {"value": info["lowest_price_90d"], "currency": info["currency"]}}
    if what in ("the reviews of", "what people say about"):
        return (
            {"$any": [{"$number": {"value": info["rating"], "tolerance": 0.05}}, {"$number": info["review_count"]}]},
            f"rated {info['rating']} from {info['review_count']} reviews",
        )
    if what == "the specs of":
        specs = {k: v for k, v in info["specs"].items() if isinstance(v, (str, int, float))}
        if not specs:
            raise BuildError("a product without specs")
        return ({"$any": [{"$name": str(v)} for v in specs.values()]}, ", ".join(f"{k} {v}" for k, v in specs.items()))
    if what == "the price history of":
        return (
            {"$any": [price, lowest]},
            f"now {info['price']:g} {info['currency']}, lowest in 90 days {info['lowest_price_90d']:g}",
        )
    if what == "the lowest recent price of":
        return lowest, f"lowest price in the last 90 days {info['lowest_price_90d']:g} {info['currency']}"
    variants = info["variants"]
    if variants:
        return (
            {"$any": [{"$name": v["name"]} for v in variants]},
            "; ".join(f"{v['name']}: {v['stock']} in stock" for v in variants),
        )
    return {"$number": info["stock"]}, f"{info['stock']} in stock"


# ---- 6.2 Cart & Checkout ----------------------------------------------------------------------


@family("basic", "6.2", pattern="lookup_then_act")
def add_product_to_cart(g: Gen) -> Draft:
    p = product(g, stock=3)
    cart = {c["product_id"] for c in g.rows("cart_items")}
    if p["product_id"] in cart:
        raise BuildError("already in cart")
    variants = [v for v in json.loads(p["variants_json"]) if v["stock"] >= 3]
    if p["variants_json"] != "[]" and not variants:
        raise BuildError("no variant in stock")
    variant = g.pick(variants)["name"] if variants else None
    qty = g.pick([1, 1, 2, 3]) if not variants else g.pick([1, 2])
    model = model_of(p)
    what = f"{model} ({variant})" if variant else f"the {model}"
    if variant:
        what = g.pick([f"the {model} in {variant}", f"the {variant} {model}", f"the {model}, variant {variant},"])
    count = {1: "one", 2: "two", 3: "three"}[qty]
    query = say(
        g,
        "add {count} of {what} to my cart",
        "put {what} in my shopping cart, {count} please",
        "I want {count} x {what} in the cart",
        "add {what} to my basket (quantity {qty})",
        count=count,
        what=what,
        qty=qty,
    )
    args: dict[str, Any] = {"product_id": p["product_id"], "quantity": qty}
    row: dict[str, Any] = {"product_id": p["product_id"], "quantity": qty}
    if variant:
        args["variant"] = variant
        row["variant"] = variant
    return Draft(
        query=query,
        gold=[
            act("search_products", query=model),
            act("add_to_cart", **args),
            done(f"Added {qty} x {p['title']} to your cart."),
        ],
        bucket="state_change",
        check={"insert": {"cart_items": [row]}},
    )


def _cart(g: Gen) -> list[dict[str, Any]]:
    lines = []
    for c in g.rows("cart_items"):
        p = g.rows("world_products", {"product_id": c["product_id"]})[0]
        price = _unit_price(p, c["variant"])
        lines.append(
            {
                **c,
                "title": p["title"],
                "store": p["store"],
                "unit_price": price,
                "line_total": round(price * c["quantity"], 2),
                "product": p,
            }
        )
    return lines


@family("basic", "6.2", pattern="lookup_then_act")
def change_cart_quantity(g: Gen) -> Draft:
    line = g.pick(_cart(g))
    p = line["product"]
    avail = min(
        p["stock"],
        next((v["stock"] for v in json.loads(p["variants_json"]) if v["name"] == line["variant"]), p["stock"]),
    )
    choices = [q for q in (0, 1, 2, 3, 4, 5) if q != line["quantity"] and q <= avail]
    qty = g.pick(choices)
    model = model_of(p)
    if qty == 0:
        query = say(
            g,
            "remove the {model} from my cart",
            "take the {model} out of my shopping cart",
            "I don't want the {model} anymore, delete it from the cart",
            model=model,
        )
        check: dict[str, Any] = {"delete": {"cart_items": [{"cart_item_id": line["cart_item_id"]}]}}
    else:
        query = say(
            g,
            "change the {model} in my cart to {qty}",
            "I need {qty} of the {model} in my cart, not {old}",
            "set the quantity of the {model} in my cart to {qty}",
            model=model,
            qty=qty,
            old=line["quantity"],
        )
        check = {
            "update": {"cart_items": [{"match": {"cart_item_id": line["cart_item_id"]}, "set": {"quantity": qty}}]}
        }
    return Draft(
        query=query,
        gold=[
            act("view_cart"),
            act("update_cart_item", cart_item_id=line["cart_item_id"], quantity=qty),
            done("Updated your cart."),
        ],
        bucket="state_change",
        check=check,
    )


def checkout_effects(
    lines: list[dict[str, Any]], address_id: str, method_id: str, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The strict diff of a checkout of ``lines`` (the order, its items, the emptied cart, the charge)."""
    return {
        "insert": {
            "orders": [
                {"address_id": address_id, "payment_method_id": method_id, "status": "pending", **(extra or {})}
            ],
            "order_items": [{"product_id": ln["product_id"], "quantity": ln["quantity"]} for ln in lines],
            "transactions": [{"method_id": method_id, "category": "shopping"}],
        },
        "delete": {"cart_items": [{"cart_item_id": ln["cart_item_id"]} for ln in lines]},
        "update": {"payment_methods": [{"match": {"method_id": method_id}, "set": {"balance": {"$range": [0, 1e9]}}}]},
    }


@family("basic", "6.2", pattern="lookup_then_act")
def checkout_whole_cart(g: Gen) -> Draft:
    lines = _cart(g)
    address = g.one("addresses")
    method = g.pick(["pm_001", "pm_002"])
    delivery = g.pick([None, "express", "pickup"])
    how = {None: "", "express": " with express delivery", "pickup": " for pickup"}[delivery]
    query = say(
        g,
        "check out everything in my cart{how}, ship it to {addr} and pay with {pay}",
        "place the order for my cart{how}: deliver to {addr}, charge {pay}",
        "buy what's in my cart{how}; use {pay} and {addr}",
        how=how,
        addr=addr_name(address),
        pay=pay_name(method),
    )
    args: dict[str, Any] = {"address_id": address["address_id"], "payment_method_id": method}
    extra = {}
    if delivery:
        args["delivery"] = delivery
        extra["delivery"] = delivery
    return Draft(
        query=query,
        gold=[act("view_cart"), act("checkout_cart", **args), done("Your order is placed.")],
        bucket="state_change",
        check=checkout_effects(lines, address["address_id"], method, extra),
    )


@family("basic", "6.2", pattern="friction", friction="limit_exceeded")
def checkout_wallet_short(g: Gen) -> Draft:
    lines = _cart(g)
    address = g.one("addresses")
    fallback = g.pick(["pm_001", "pm_002"])
    query = say(
        g,
        "order what's in my cart and pay from my wallet balance; send it to {addr}",
        "check out my cart to {addr}, paying with the wallet",
        "use my wallet money to buy everything in the cart, delivery to {addr}",
        "pay for my shopping cart out of my wallet and have it shipped to {addr}",
        "I'd like to check out the cart with my wallet balance - {addr} please",
        "buy the items in my cart, wallet payment, shipping to {addr}",
        addr=addr_name(address),
    )
    answer = g.pick(["Then use {p} instead.", "Put it on {p}.", "OK, charge {p}."]).format(
        p=pay_name(fallback).replace("my ", "my ")
    )
    aid = address["address_id"]
    return Draft(
        query=query,
        gold=[
            act("view_cart"),
            act("checkout_cart", address_id=aid, payment_method_id="pm_003"),
            act(
                "ask_user",
                question="Your wallet balance is too low for this order. Which card should I use?",
                kind="choose",
                slot="payment_method",
            ),
            act("checkout_cart", address_id=aid, payment_method_id=fallback),
            done("Order placed."),
        ],
        bucket="state_change",
        check=checkout_effects(lines, aid, fallback),
        patches={"update": {"payment_methods": [{"match": {"method_id": "pm_003"}, "set": {"balance": 4.5}}]}},
        script=[{"answer": answer, "slot": "payment_method", "keywords": ["wallet", "card", "pay"]}],
        recovers=(ErrorType.LIMIT_EXCEEDED,),
    )


FIRST = ("Mia", "Noah", "Grace", "Leo", "Ava", "Ethan", "Zoe", "Ivy", "Kai", "Ruth")
RELATION = ("mom", "dad", "sister", "brother", "grandma", "best friend", "aunt", "uncle")
STREETS = (
    "12 Elm Street",
    "48 Harbor Road, Apt 3",
    "7 Cedar Lane",
    "220 River Walk, Unit 5B",
    "91 Maple Avenue",
    "5 Station Road, Flat 2",
    "33 Lake View Drive",
    "18 Garden Court",
)


@family("basic", "6.2", pattern="single_call")
def save_new_address(g: Gen) -> Draft:
    rel, name, street = (
        g.pick(RELATION),
        f"{g.pick(FIRST)} {g.pick(('Lee', 'Park', 'Brown', 'Garcia', 'Singh'))}",
        g.pick(STREETS),
    )
    city = g.rows("addresses")[0]["city"]
    phone = f"+1 415 555 {g.rng.randint(1000, 9999)}"
    label = f"{rel.title()}'s place"
    default = g.pick([False, False, True])
    tail = " and make it my default" if default else ""
    query = say(
        g,
        "save a shipping address called {label}: {name}, {street}, {city}, phone {phone}{tail}",
        "add my {rel}'s address to the shop app as '{label}' - {name}, {street}, {city}, {phone}{tail}",
        "new delivery address '{label}' for {name} at {street} in {city} (tel {phone}){tail}",
        label=label,
        name=name,
        street=street,
        city=city,
        phone=phone,
        tail=tail,
        rel=rel,
    )
    args: dict[str, Any] = {"label": label, "recipient": name, "phone": phone, "address_line": street, "city": city}
    row: dict[str, Any] = {
        "label": {"$contains": rel},
        "recipient": name,
        "phone": {"$phone": phone},
        "address_line": {"$contains": street.split(",")[0]},
        "city": city,
    }
    check: dict[str, Any] = {"insert": {"addresses": [row]}}
    if default:
        args["is_default"] = True
        row["is_default"] = 1
        check["update"] = {"addresses": [{"match": {"is_default": 1}, "set": {"is_default": 0}}]}
    return Draft(
        query=query,
        gold=[act("add_shipping_address", **args), done(f"Saved {label}.")],
        bucket="state_change",
        check=check,
    )


# ---- 6.3 Order Tracking & History -------------------------------------------------------------


def order_items(g: Gen, order_id: str) -> list[dict[str, Any]]:
    return g.rows("order_items", {"order_id": order_id})


def item_model(item: dict[str, Any]) -> str:
    return model_of({"title": item["title"], "category": "books" if "Paperback" in item["title"] else ""})


def sole_items(g: Gen, order_id: str) -> list[dict[str, Any]]:
    """The order's items whose model no other order holds: a request naming one determines the order."""
    orders_of: dict[str, set[str]] = {}
    for i in g.rows("order_items"):
        orders_of.setdefault(item_model(i), set()).add(i["order_id"])
    return [i for i in order_items(g, order_id) if orders_of[item_model(i)] == {order_id}]


@family("basic", "6.3", pattern="lookup_then_act")
def track_order_by_item(g: Gen) -> Draft:
    order = g.one(
        "orders",
        filter=lambda o: (
            o["status"] in ("shipped", "pending", "delivered")
            and o["placed_at"] >= (g.now - dt.timedelta(days=20)).isoformat()
            and bool(sole_items(g, o["order_id"]))
        ),
    )
    item = g.pick(sole_items(g, order["order_id"]))
    model = item_model(item)
    query = say(
        g,
        "where is my {model} order?",
        "track the order with the {model} for me",
        "when will the {model} I ordered arrive?",
        "what's the delivery status of my {model}?",
        model=model,
    )
    info = peek(g, "track_order", order_id=order["order_id"])
    if order["status"] == "delivered":
        day = (info["delivered_at"] or info["eta"])[:10]
        fact: Any = {"$any": [{"$date": day}, {"$name": "delivered"}]}
        answer = f"Your {model} order was delivered on {day}."
    elif order["status"] == "shipped":
        fact = {"$date": info["eta"]} if info["eta"] else {"$name": "shipped"}
        answer = f"Your {model} order is on its way with {info['carrier']}, expected on {info['eta']}."
    else:
        fact = {
            "$any": [
                {"$name": w}
                for w in (
                    "pending",
                    "not shipped",
                    "not yet shipped",
                    "hasn't shipped",
                    "has not shipped",
                    "not been shipped",
                    "processing",
                )
            ]
        }
        answer = f"Your {model} order is pending: it has not shipped yet."
    return Draft(
        query=query,
        gold=[act("list_orders", query=model), act("track_order", order_id=order["order_id"]), done(answer)],
        bucket="tool_call",
        answer=[fact],
        check={"calls": [{"tool": "track_order", "args": {"order_id": order["order_id"]}}]},
    )


@family("basic", "6.3", pattern="lookup_then_act")
def cancel_pending_order(g: Gen) -> Draft:
    order = g.one("orders", {"status": "pending"}, filter=lambda o: bool(sole_items(g, o["order_id"])))
    item = g.pick(sole_items(g, order["order_id"]))
    model = item_model(item)
    why, reason = g.pick(
        [
            ("I found it cheaper elsewhere", "found_cheaper"),
            ("I changed my mind", "changed_mind"),
            ("I ordered the wrong thing", "wrong_item"),
            ("I don't need it anymore", "other"),
        ]
    )
    query = say(
        g,
        "cancel my order with the {model}, {why}",
        "{why} - please cancel the {model} order",
        "I want to cancel the order containing the {model}; {why}",
        model=model,
        why=why,
    )
    txns = g.rows("transactions", {"ref_id": order["order_id"]})
    return Draft(
        query=query,
        gold=[
            act("list_orders", status="pending"),
            act("cancel_order", order_id=order["order_id"], reason=reason),
            done("The order is cancelled and refunded."),
        ],
        bucket="state_change",
        check={
            "update": {
                "orders": [
                    {
                        "match": {"order_id": order["order_id"]},
                        "set": {"status": "cancelled", "cancel_reason": {"$any": [reason, "other"]}},
                    }
                ],
                "transactions": [{"match": {"txn_id": t["txn_id"]}, "set": {"status": "refunded"}} for t in txns],
                "payment_methods": [
                    {"match": {"method_id": order["payment_method_id"]}, "set": {"balance": {"$range": [0, 1e9]}}}
                ],
            }
        },
    )


@family("basic", "6.3", pattern="single_call")
def list_recent_orders(g: Gen) -> Draft:
    status = g.pick(["shipped", "delivered", "cancelled", "pending"])
    days = g.pick([7, 14, 30, 60])
    since = g.date(-days)
    word = {"shipped": "on their way", "delivered": "delivered", "cancelled": "cancelled", "pending": "not shipped yet"}
    query = say(
        g,
        "which of my orders placed since {since} are {w}?",
        "list my orders placed since {since} that are {w}",
        "show the orders I placed since {since} that are {w}",
        w=word[status],
        since=since,
    )
    found = peek(g, "list_orders", status=status, date_from=since, limit=50)["orders"]
    if len(found) > 1:  # one order or none: an answer naming another order must be told apart from the right one
        raise BuildError("more than one order matches")
    # each order is named by one of its items, as a person would ("the Sony headphones")
    facts = [
        {
            "$any": [{"$name": model_of({"title": it["title"], "category": ""})} for it in o["items"]]
            + [{"$name": o["order_id"]}]
        }
        for o in found
    ]
    answer = (
        "; ".join(f"{o['order_id']} ({', '.join(it['title'] for it in o['items'])})" for o in found)
        if found
        else f"You have no {word[status]} orders placed since {since}."
    )
    return Draft(
        query=query,
        gold=[act("list_orders", status=status, date_from=since), done(answer)],
        bucket="tool_call",
        check={"calls": [{"tool": "list_orders", "args": {"status": status}}]},
        answer=facts or [{"$none": True}],
    )


# ---- 6.4 Returns & Refunds --------------------------------------------------------------------

REASONS = [
    ("it arrived broken", "defective"),
    ("it stopped working", "defective"),
    ("they sent the wrong item", "wrong_item"),
    ("it doesn't match the description", "not_as_described"),
    ("I don't need it anymore", "changed_mind"),
    ("I changed my mind", "changed_mind"),
]


def returnable(g: Gen) -> tuple[dict[str, Any], dict[str, Any], str]:
    """A recently delivered order and one of its items that names it (see ``sole_items``)."""
    cutoff = (g.now - dt.timedelta(days=RETURN_WINDOW_DAYS - 1)).isoformat()
    order = g.one(
        "orders",
        {"status": "delivered"},
        filter=lambda o: o["delivered_at"] >= cutoff and bool(sole_items(g, o["order_id"])),
    )
    item = g.pick(sole_items(g, order["order_id"]))
    return order, item, item_model(item)


@family("basic", "6.4", pattern="lookup_then_act")
def return_delivered_item(g: Gen) -> Draft:
    order, item, model = returnable(g)
    why, reason = g.pick(REASONS)
    credit = g.pick([None, "store_credit"])
    tail = " - store credit is fine" if credit else ""
    query = say(
        g,
        "I want to return the {model}, {why}{tail}",
        "start a return for the {model}: {why}{tail}",
        "{why}, so please send back the {model} I got{tail}",
        model=model,
        why=why,
        tail=tail,
    )
    args: dict[str, Any] = {"order_id": order["order_id"], "item_ids": [item["item_id"]], "reason": reason}
    row: dict[str, Any] = {
        "order_id": order["order_id"],
        "item_ids_json": {"$json": [item["item_id"]]},
        "reason": reason,
    }
    if credit:
        args["refund_method"] = credit
        row["refund_method"] = credit
    check: dict[str, Any] = {"insert": {"returns": [row]}}
    if len(order_items(g, order["order_id"])) == 1:
        check["update"] = {"orders": [{"match": {"order_id": order["order_id"]}, "set": {"status": "returned"}}]}
    return Draft(
        query=query,
        gold=[
            act("list_orders", status="delivered", query=model),
            act("request_return", **args),
            done("Your return is requested."),
        ],
        bucket="state_change",
        check=check,
    )


@family("basic", "6.4", pattern="friction", friction="changed_state")
def cancel_else_return(g: Gen) -> Draft:
    order, item, model = returnable(g)
    query = say(
        g,
        "cancel my {model} order, or if it's already delivered, return it instead (I changed my mind)",
        "I don't want the {model} anymore: cancel it, and if that's too late set up a return",
        "get rid of my {model} order - cancel, or return it if it already arrived; I just changed my mind",
        model=model,
    )
    check: dict[str, Any] = {
        "insert": {
            "returns": [
                {"order_id": order["order_id"], "reason": "changed_mind", "item_ids_json": {"$json": [item["item_id"]]}}
            ]
        }
    }
    if len(order_items(g, order["order_id"])) == 1:
        check["update"] = {"orders": [{"match": {"order_id": order["order_id"]}, "set": {"status": "returned"}}]}
    return Draft(
        query=query,
        gold=[
            act("list_orders", query=model),
            act("cancel_order", order_id=order["order_id"]),
            act("request_return", order_id=order["order_id"], item_ids=[item["item_id"]], reason="changed_mind"),
            done("It was already delivered, so I set up a return."),
        ],
        bucket="state_change",
        check=check,
        recovers=(ErrorType.STATE_CONFLICT,),
    )


# ---- 6.5 Coupons & Deals ----------------------------------------------------------------------


@family("basic", "6.5", pattern="single_call")
def coupons_for_store(g: Gen) -> Draft:
    store = g.pick(STORES)
    query = say(
        g,
        "do I have any coupons for {store}?",
        "show me the {store} coupons I can use",
        "any deals or vouchers for {store} in the shop app?",
        "list coupons that work at {store}",
        store=store,
    )
    found = peek(g, "list_coupons", store=store)["coupons"]
    own = [c for c in found if c["store"] == store]
    if own:  # the store's own coupons must all be named; platform-wide ones may be added
        facts: list[Any] = [{"$name": c["code"]} for c in own]
    elif found:  # only platform-wide coupons work there: naming one of them answers
        facts = [{"$any": [{"$name": c["code"]} for c in found]}]
    else:
        facts = [{"$none": True}]
    answer = (
        "Coupons you can use at " + store + ": " + ", ".join(f"{c['code']} ({c['description']})" for c in found)
        if found
        else f"You have no coupons for {store}."
    )
    return Draft(
        query=query,
        gold=[act("list_coupons", store=store), done(answer)],
        bucket="tool_call",
        check={"calls": [{"tool": "list_coupons", "args": {"store": store}}]},
        answer=facts,
    )


@family("basic", "6.5", pattern="lookup_then_act")
def checkout_with_best_coupon(g: Gen) -> Draft:
    lines = _cart(g)
    today = g.now.date().isoformat()
    usable = [(c, _discount(c, lines)) for c in g.rows("coupons") if _coupon_problem(c, lines, today) is None]
    if not usable:
        raise BuildError("no usable coupon")
    best, off = max(usable, key=lambda t: (t[1], t[0]["code"]))
    if sum(1 for _, o in usable if o == off) > 1:
        raise BuildError("tie")
    address = g.one("addresses")
    method = g.pick(["pm_001", "pm_002"])
    query = say(
        g,
        "check out my cart with whichever coupon saves the most; ship to {addr}, pay with {pay}",
        "use my best coupon and place the cart order to {addr} with {pay}",
        "buy my cart using the biggest discount coupon I have, {pay}, delivered to {addr}",
        addr=addr_name(address),
        pay=pay_name(method),
    )
    effects = checkout_effects(lines, address["address_id"], method, {"coupon_code": best["code"]})
    effects["update"]["coupons"] = [{"match": {"code": best["code"]}, "set": {"used": 1}}]
    return Draft(
        query=query,
        gold=[
            act("view_cart"),
            act("checkout_cart", address_id=address["address_id"], payment_method_id=method, coupon_code=best["code"]),
            done(f"Ordered with {best['code']}."),
        ],
        bucket="state_change",
        check=effects,
    )


# ---- 6.6 Wishlist & Price Alerts --------------------------------------------------------------


@family("basic", "6.6", pattern="lookup_then_act")
def save_to_wishlist(g: Gen) -> Draft:
    liked = {w["product_id"] for w in g.rows("wishlist")}
    p = g.one("world_products", filter=lambda r: r["product_id"] not in liked and r["product_id"] != "product_112")
    model = model_of(p)
    query = say(
        g,
        "save the {model} to my wishlist",
        "add the {model} to my wish list for later",
        "put the {model} on my wishlist, I might buy it later",
        "find the {model} in the shop and wishlist it",
        model=model,
    )
    return Draft(
        query=query,
        gold=[
            act("search_products", query=model),
            act("add_to_wishlist", product_id=p["product_id"]),
            done("Saved to your wishlist."),
        ],
        bucket="state_change",
        check={"insert": {"wishlist": [{"product_id": p["product_id"]}]}},
    )


def alert_target(g: Gen, p: dict[str, Any]) -> float:
    share = g.pick([0.7, 0.75, 0.8, 0.85, 0.9])
    return float(round(p["price"] * share)) if p["price"] > 30 else round(p["price"] * share, 2)


@family("basic", "6.6", pattern="lookup_then_act")
def price_alert_below(g: Gen) -> Draft:
    watched = {a["product_id"] for a in g.rows("price_alerts", {"status": "active"})}
    p = g.one(
        "world_products",
        filter=lambda r: r["product_id"] not in watched and r["price"] > 10 and r["product_id"] != "product_112",
    )
    target = alert_target(g, p)
    model = model_of(p)
    query = say(
        g,
        "tell me when the {model} drops below {t}",
        "set a price alert for the {model} at {t}",
        "notify me if the {model} gets cheaper than {t} {cur}",
        model=model,
        t=f"{target:g}",
        cur=p["currency"],
    )
    return Draft(
        query=query,
        gold=[
            act("search_products", query=model),
            act("set_price_alert", product_id=p["product_id"], target_price=target),
            done("Price alert set."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "price_alerts": [
                    {"product_id": p["product_id"], "target_price": {"$approx": [target, 0.01]}, "status": "active"}
                ]
            }
        },
    )


@family("basic", "6.6", pattern="friction", friction="permission_denied")
def price_alert_needs_notifications(g: Gen) -> Draft:
    watched = {a["product_id"] for a in g.rows("price_alerts", {"status": "active"})}
    p = g.one(
        "world_products",
        filter=lambda r: r["product_id"] not in watched and r["price"] > 10 and r["product_id"] != "product_112",
    )
    target = alert_target(g, p)
    model = model_of(p)
    query = say(
        g,
        "watch the price of the {model} and alert me under {t}",
        "I want a notification when the {model} is below {t}",
        "price-drop alert please: {model}, target {t}",
        model=model,
        t=f"{target:g}",
    )
    args = {"product_id": p["product_id"], "target_price": target}
    return Draft(
        query=query,
        gold=[
            act("search_products", query=model),
            act("set_price_alert", **args),
            act("grant_app_permission", app_id="shop", permission="NOTIFICATIONS"),
            act("set_price_alert", **args),
            done("Alert set (I turned on the shop app's notifications)."),
        ],
        bucket="state_change",
        check={
            "insert": {"price_alerts": [{"product_id": p["product_id"], "target_price": {"$approx": [target, 0.01]}}]},
            "update": {
                "app_permissions": [
                    {"match": {"app_id": "shop", "permission": "NOTIFICATIONS"}, "set": {"state": "granted"}}
                ]
            },
        },
        patches={
            "update": {
                "app_permissions": [
                    {"match": {"app_id": "shop", "permission": "NOTIFICATIONS"}, "set": {"state": "not_requested"}}
                ]
            }
        },
        recovers=(ErrorType.PERMISSION_DENIED,),
    )
