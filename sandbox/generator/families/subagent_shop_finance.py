"""Sub-agent Collaboration families for Shopping (D6) and Finance (D7): one per level-2 category."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from sandbox.domains.shopping.schema import RETURN_WINDOW_DAYS
from sandbox.errors import ErrorType
from sandbox.executor import normalise_phone
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import later, local_line, on_screen, snapshot_patch, told_agent
from sandbox.generator.families.basic_finance import (
    BILL_NAMES,
    NAMES,
    cur,
    fmt,
    paid_check,
    payable_bill,
    spend,
    unique_contact,
)
from sandbox.generator.families.basic_shopping import model_of, order_items
from sandbox.locales import country_of, decimals, money_unit


def snapshot(g: Gen, app: str, text: str, fields: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    sid = f"snapshot_{g.rng.randint(100, 999)}"
    return sid, snapshot_patch(sid, app, text, fields)


def digits(number: str) -> str:
    """A pattern for ``number`` not inside a longer number (a card's last four, not a phone's)."""
    return rf"(?<!\d){number}(?!\d)"


def simple_product(g: Gen, exclude: set[str] = frozenset()) -> dict[str, Any]:  # type: ignore[assignment]
    cart = {c["product_id"] for c in g.rows("cart_items")}
    return g.one(
        "world_products",
        filter=lambda p: (
            p["variants_json"] == "[]"
            and p["stock"] >= 3
            and p["product_id"] not in cart | set(exclude)
            and p["product_id"] != "product_112"
            and p["category"] != "books"
            and p["price"] > 20
        ),
    )


# ---- D6 -----------------------------------------------------------------------------------------


@family("subagent", "6.1", agent="screen_reader_agent")
def product_from_screenshot(g: Gen) -> Draft:
    p = simple_product(g)
    model = model_of(p)
    sid, patch = snapshot(
        g,
        "messages",
        f"Chat with Jamie\nJamie: got this, it's great!\n[photo] {p['title']}\n{p['brand']} - {p['store']}",
        {"product": model, "brand": p["brand"], "store": p["store"]},
    )
    query = g.say(
        "my friend's recommendation is on my screen ({sid}); find that product in the shop and add one to my cart",
        "read the product in screenshot {sid} and put it in my shopping cart",
        "there's a product in the chat screenshot {sid} - look it up and add it to the cart",
        sid=sid,
    )
    return Draft(
        query=query,
        gold=[
            act("call_screen_reader_agent", source={"type": "screen", "id": sid}, extract_fields=["product", "brand"]),
            act("search_products", query=model),
            act("add_to_cart", product_id=p["product_id"], quantity=1),
            done(f"Added the {model} to your cart."),
        ],
        bucket="agent_behavior",
        patches=patch,
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(sid),
            "state": {"insert": {"cart_items": [{"product_id": p["product_id"], "quantity": 1}]}},
        },
    )


@family("subagent", "6.2", agent="monitor_agent")
def add_when_back_in_stock(g: Gen) -> Draft:
    p = simple_product(g)
    model = model_of(p)
    qty = g.pick([1, 2])
    query = g.say(
        "add {q} of the {m} to my cart; if it's sold out, add them as soon as it's back in stock",
        "put {q} x {m} in my cart - and if there's no stock, watch it and add them when it's available",
        m=model,
        q=qty,
    )
    pid = p["product_id"]
    return Draft(
        query=query,
        recovers=(ErrorType.RESOURCE_UNAVAILABLE,),
        gold=[
            act("search_products", query=model),
            act("add_to_cart", product_id=pid, quantity=qty),
            act(
                "call_monitor_agent",
                condition={
                    "tool": "get_product_details",
                    "args": {"product_id": pid},
                    "path": "$.stock",
                    "op": "gt",
                    "value": 0,
                },
                on_trigger=[{"tool": "add_to_cart", "args": {"product_id": pid, "quantity": qty}}],
                description=f"Add {qty} x {model} to the cart when it is back in stock",
            ),
            done("I'll add it to your cart when it's back."),
        ],
        bucket="agent_behavior",
        patches={"update": {"world_products": [{"match": {"product_id": pid}, "set": {"stock": 0}}]}},
        events=[
            {
                "at": later(g, 30),
                "changes": {"update": {"world_products": [{"match": {"product_id": pid}, "set": {"stock": 25}}]}},
            }
        ],
        check={
            "route": "call_monitor_agent",
            # any read of the product that shows the restock: its details' stock, or a search's in_stock
            "handoff": {"condition": {"tool": {"$any": ["get_product_details", "search_products"]}}},
            "state": {
                "insert": {"monitors": [{"status": "triggered"}], "cart_items": [{"product_id": pid, "quantity": qty}]}
            },
        },
    )


RECEPTION = "reception|front desk|concierge|lobby"


@family("subagent", "6.3", agent="voice_agent")
def ask_courier_by_phone(g: Gen) -> Draft:
    ship = g.one("shipments", filter=lambda s: s["status"] != "delivered")
    order = g.rows("orders", {"order_id": ship["order_id"]})[0]
    if order["status"] != "shipped":
        raise BuildError("not shipped")
    item = order_items(g, order["order_id"])[0]
    model = model_of({"title": item["title"], "category": "books" if "Paperback" in item["title"] else ""})
    phone = normalise_phone(local_line(g))
    rules = {
        "answers": {
            RECEPTION: "Noted: the driver will leave the parcel at reception.",
            "neighbour|neighbor|next door": "Noted: the driver will try a neighbour.",
        },
    }
    query = g.say(
        "call {c} at {p} and ask them to leave my {m} parcel at reception",
        "phone the courier ({c}, {p}) about my {m} delivery: it should be left at the building reception",
        c=ship["carrier"],
        p=phone,
        m=model,
    )
    return Draft(
        query=query,
        gold=[
            act("list_orders", status="shipped", query=model),
            act("track_order", order_id=order["order_id"]),
            act(
                "call_voice_agent",
                callee={"phone": phone},
                objective=f"Ask {ship['carrier']} to leave my parcel at the building reception",
                facts={"tracking_number": ship["tracking_number"]},
            ),
            done("The courier will leave it at reception."),
        ],
        bucket="agent_behavior",
        patches={
            "insert": {
                "world_phone_services": [
                    {
                        "phone": phone,
                        "place_id": None,
                        "name": f"{ship['carrier']} customer line",
                        "handler": "inquiry",
                        "rules_json": json.dumps(rules),
                    }
                ]
            }
        },
        check={
            "route": "call_voice_agent",
            "handoff": {"callee": {"phone": {"$phone": phone}}},
            "state": {
                "insert": {"subagent_jobs": [told_agent("voice_agent", RECEPTION, re.escape(ship["tracking_number"]))]}
            },
        },
    )


@family("subagent", "6.4", agent="gui_agent")
def exchange_size_in_app(g: Gen) -> Draft:
    options = []
    cutoff = (g.now - dt.timedelta(days=RETURN_WINDOW_DAYS - 1)).isoformat()
    for o in g.rows("orders", {"status": "delivered"}):
        if o["delivered_at"] < cutoff:  # past the return window: the shop refuses the exchange
            continue
        for it in order_items(g, o["order_id"]):
            if not it["variant"]:
                continue
            p = g.rows("world_products", {"product_id": it["product_id"]})[0]
            for v in json.loads(p["variants_json"]):
                if v["name"] != it["variant"] and min(v["stock"], p["stock"]) >= it["quantity"]:
                    options.append((o, it, v["name"], p))
    if not options:
        raise BuildError("nothing to exchange")
    order, item, new, p = g.pick(options)
    model = model_of(p)
    the_model = model if model.lower().startswith("the ") else f"the {model}"  # "The North Face Nuptse"
    query = g.say(
        "exchange {tm} I received for {v} in the shop app",
        "swap my {m} ({old}) for the {v} version",
        "{tm} doesn't fit - exchange it for {v}",
        m=model,
        tm=the_model,
        v=new,
        old=item["variant"],
    )
    inputs = {"order_id": order["order_id"], "item_id": item["item_id"], "new_variant": new}
    return Draft(
        query=query,
        gold=[
            act("list_orders", status="delivered", query=model),
            act(
                "call_gui_agent",
                app_id="shop",
                goal=f"Exchange {the_model} for {new}",
                inputs=inputs,
                expected_outputs=["exchange_id"],
            ),
            done("Exchange requested."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "shop"},
            "state": {
                "insert": {
                    "exchanges": [{"order_id": order["order_id"], "item_id": item["item_id"], "new_variant": new}]
                }
            },
        },
    )


@family("subagent", "6.5", agent="gui_agent")
def claim_coupon_in_app(g: Gen) -> Draft:
    coupon = g.one("coupons", {"claimed": 0, "used": 0}, filter=lambda c: c["expires_at"] >= g.now.date().isoformat())
    where = coupon["store"] or "the shop"
    query = g.say(
        "claim the {c} coupon for me",
        "there's a {w} deal ({c}) I haven't claimed yet - grab it",
        "find the unclaimed {w} coupon {c} and claim it",
        c=coupon["code"],
        w=where,
    )
    return Draft(
        query=query,
        gold=[
            act("list_coupons", **({"store": coupon["store"]} if coupon["store"] else {})),
            act(
                "call_gui_agent",
                app_id="shop",
                goal=f"Claim the coupon {coupon['code']}",
                inputs={"code": coupon["code"]},
                expected_outputs=["claimed"],
            ),
            done("Coupon claimed."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "shop"},
            "state": {"update": {"coupons": [{"match": {"code": coupon["code"]}, "set": {"claimed": 1}}]}},
        },
    )


@family("subagent", "6.6", agent="monitor_agent")
def wishlist_and_price_drop_watch(g: Gen) -> Draft:
    liked = {w["product_id"] for w in g.rows("wishlist")}
    p = simple_product(g, exclude=liked)
    model = model_of(p)
    target = float(round(p["price"] * g.pick([0.8, 0.85, 0.9])))
    pid = p["product_id"]
    query = g.say(
        "save the {m} to my wishlist and let me know when its price drops below {t}",
        "wishlist the {m} for me, and keep watching: tell me once it costs less than {t}",
        m=model,
        t=fmt(target),
    )
    return Draft(
        query=query,
        gold=[
            act("search_products", query=model),
            act("add_to_wishlist", product_id=pid),
            act(
                "call_monitor_agent",
                condition={
                    "tool": "get_product_details",
                    "args": {"product_id": pid},
                    "path": "$.price",
                    "op": "lt",
                    "value": target,
                },
                notify_only=True,
                description=f"Tell the user when the {model} drops below {fmt(target)}",
            ),
            done("Saved; I'll tell you when the price drops."),
        ],
        bucket="agent_behavior",
        events=[
            {
                "at": later(g, 48),
                "changes": {
                    "update": {
                        "world_products": [{"match": {"product_id": pid}, "set": {"price": round(target * 0.95, 2)}}]
                    }
                },
            }
        ],
        check={
            "route": "call_monitor_agent",
            "handoff": {"condition": {"tool": "get_product_details", "args": {"product_id": pid}}, "notify_only": True},
            "state": {
                "insert": {"wishlist": [{"product_id": pid}], "monitors": [{"notify_only": 1, "status": "triggered"}]}
            },
        },
    )


# ---- D7 -----------------------------------------------------------------------------------------


@family("subagent", "7.1", agent="monitor_agent")
def low_balance_watch(g: Gen) -> Draft:
    acct, name = g.pick([("acct_001", "checking"), ("acct_002", "savings"), ("acct_003", "wallet")])
    balance = g.rows("payment_methods", {"method_id": g.rows("bank_accounts", {"account_id": acct})[0]["method_id"]})[
        0
    ]["balance"]
    floor = float(max(10, round(balance * g.pick([0.2, 0.3, 0.5]), -1)))
    query = g.say(
        "let me know if my {n} balance falls below {f}",
        "alert me when the {n} account drops under {f}",
        n=name,
        f=fmt(floor),
    )
    return Draft(
        query=query,
        gold=[
            act("get_account_balance"),
            act(
                "call_monitor_agent",
                condition={
                    "tool": "get_account_balance",
                    "args": {"account_id": acct},
                    "path": "$.accounts[0].balance",
                    "op": "lt",
                    "value": floor,
                },
                notify_only=True,
                description=f"Tell the user when {name} is below {fmt(floor)}",
            ),
            done("I'll tell you if it drops that low."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {
                "condition": {"tool": "get_account_balance", "args": {"account_id": acct}},
                "notify_only": True,
            },
            "state": {"insert": {"monitors": [{"notify_only": 1, "status": "active"}]}},
        },
    )


@family("subagent", "7.2", agent="screen_reader_agent")
def pay_from_bank_details_screenshot(g: Gen) -> Draft:
    currency = cur(g)
    country = country_of(g.persona.home_city).code
    iban = f"{country}{g.rng.randint(10, 99)}BANK{g.rng.randint(10**11, 10**12 - 1)}"
    who = g.pick(["Green Leaf Gardening", "Maria Gomez", "Bright Tutoring", "Harbor Yoga Studio", "Sam Carter"])
    value = float(g.rng.randint(3, 60) * money_unit(currency) * 5)
    ref = f"INV-{g.rng.randint(1000, 9999)}"
    sid, patch = snapshot(
        g,
        "mail",
        f"Payment details\nPayee: {who}\nAccount: {iban}\nAmount: {fmt(value)} {currency}\nReference: {ref}",
        {"payee": who, "account_number": iban, "amount": value, "currency": currency, "reference": ref},
    )
    query = g.say(
        "pay the invoice shown in {sid} by bank transfer",
        "read the payment details on screen {sid} and send the money",
        "transfer what the screenshot {sid} asks for",
        sid=sid,
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_screen_reader_agent",
                source={"type": "screen", "id": sid},
                extract_fields=["payee", "account_number", "amount", "currency", "reference"],
            ),
            act("transfer_money", recipient=iban, amount=value, currency=currency, note=ref),
            done(f"Sent {fmt(value)} {currency} to {who}."),
        ],
        bucket="agent_behavior",
        patches=patch,
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(sid),
            "state": {
                "insert": {
                    "transfers": [{"recipient_key": iban, "amount": value, "currency": currency}],
                    "transactions": [{"method_id": "pm_004", "category": "transfer"}],
                },
                "update": {"payment_methods": [spend("pm_004")]},
            },
        },
    )


@family("subagent", "7.3", agent="screen_reader_agent")
def pay_bill_from_photo(g: Gen) -> Draft:
    bill = payable_bill(g)
    sid, patch = snapshot(
        g,
        "camera",
        f"{bill['biller']}\nCustomer no. {bill['customer_no']}\n"
        f"Amount due: {bill['amount']:.2f} {bill['currency']}\nDue date: {bill['due_date']}",
        {
            "biller": bill["biller"],
            "customer_no": bill["customer_no"],
            "amount_due": bill["amount"],
            "due_date": bill["due_date"],
        },
    )
    query = g.say(
        "I took a picture of a bill ({sid}); read it and pay it",
        "pay the bill on screen {sid}",
        "there's a {n} in screenshot {sid} - settle it from my checking account",
        sid=sid,
        n=BILL_NAMES[bill["category"]],
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_screen_reader_agent",
                source={"type": "screen", "id": sid},
                extract_fields=["biller", "customer_no", "amount_due", "due_date"],
            ),
            act("list_bills"),
            act("pay_bill", bill_id=bill["bill_id"]),
            done("Paid."),
        ],
        bucket="agent_behavior",
        patches=patch,
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(sid),
            "state": paid_check(bill),
        },
    )


@family("subagent", "7.4", agent="gui_agent")
def recategorize_in_bank_app(g: Gen) -> Draft:
    since = g.date(-30)
    txns = [
        t
        for t in g.rows("transactions")
        if t["ts"] >= since and t["amount"] < 0 and t["category"] in ("shopping", "other", "entertainment")
    ]
    by_merchant = [t for t in txns if sum(x["merchant"] == t["merchant"] for x in txns) == 1]
    if not by_merchant:
        raise BuildError("no unique transaction")
    t = g.pick(by_merchant)
    new = g.pick([c for c in ("food", "health", "travel", "bills") if c != t["category"]])
    query = g.say(
        "my {m} charge of {a} was really {c}; fix its category in the bank app",
        "recategorise the {a} {m} transaction as {c}",
        "move the {m} payment ({a}) to the {c} category",
        m=t["merchant"],
        a=fmt(-t["amount"]),
        c=new,
    )
    return Draft(
        query=query,
        gold=[
            act("list_transactions", merchant=t["merchant"], date_from=since),
            act(
                "call_gui_agent",
                app_id="bank",
                goal=f"Change the category of transaction {t['txn_id']} to {new}",
                inputs={"txn_id": t["txn_id"], "category": new},
                expected_outputs=["category"],
            ),
            done("Category changed."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "bank"},
            "state": {"update": {"transactions": [{"match": {"txn_id": t["txn_id"]}, "set": {"category": new}}]}},
        },
    )


@family("subagent", "7.5", agent="voice_agent")
def lost_card_replacement_call(g: Gen) -> Draft:
    card, name = g.pick([("pm_001", "Visa credit card"), ("pm_002", "debit card")])
    last4 = g.rows("payment_methods", {"method_id": card})[0]["last4"]
    phone = normalise_phone(local_line(g))
    rules = {
        "answers": {
            "replac|new card|reissu|another card|lost|stolen": (
                "A replacement card is on its way; it arrives in 5-7 business days."
            )
        },
    }
    query = g.say(
        "I lost my {n}: freeze it and call the bank's card line at {p} to order a replacement",
        "lock my {n} (it's lost) and phone {p} to get a new card sent",
        n=name,
        p=phone,
    )
    return Draft(
        query=query,
        gold=[
            act("get_account_balance"),
            act("freeze_card", card_id=card, frozen=True, reason="lost"),
            act(
                "call_voice_agent",
                callee={"phone": phone},
                objective=f"Report my lost {name} and order a replacement card",
                facts={"card_last4": last4, "holder_name": g.persona.name},
            ),
            done("Frozen; a replacement is on its way."),
        ],
        bucket="agent_behavior",
        patches={
            "insert": {
                "world_phone_services": [
                    {
                        "phone": phone,
                        "place_id": None,
                        "name": "Bank card services",
                        "handler": "inquiry",
                        "rules_json": json.dumps(rules),
                    }
                ]
            }
        },
        # the bank must learn which card: its last four digits, in the objective or under any fact
        check={
            "route": "call_voice_agent",
            "handoff": {
                "callee": {"phone": {"$phone": phone}},
                "objective": {"$regex": "replac|new card|reissu|another card|lost|stolen"},
            },
            "state": {
                "update": {
                    "payment_methods": [{"match": {"method_id": card}, "set": {"status": "frozen"}}],
                    "card_details": [
                        {
                            "match": {"method_id": card},
                            "set": {"freeze_reason": {"$any": [{"$absent": True}, {"$regex": "lost"}]}},
                        }
                    ],
                },
                "insert": {"subagent_jobs": [told_agent("voice_agent", digits(last4))]},
            },
        },
    )


@family("subagent", "7.6", agent="monitor_agent")
def stock_price_watch(g: Gen) -> Draft:
    symbol = g.pick(list(NAMES))
    stock = g.rows("world_stocks", {"symbol": symbol})[0]
    up = g.pick([True, False])
    digits = 0 if stock["currency"] in ("JPY", "KRW") else 2
    target = round(stock["price"] * (g.pick([1.05, 1.08, 1.1]) if up else g.pick([0.9, 0.93, 0.95])), digits)
    word = "rises above" if up else "falls below"
    query = g.say(
        "tell me when {n} {w} {t} {c}",
        "watch {n} stock and notify me once it {w} {t} {c}",
        n=NAMES[symbol],
        w=word,
        t=fmt(target),
        c=stock["currency"],
    )
    moved = round(target * (1.02 if up else 0.98), digits)
    return Draft(
        query=query,
        gold=[
            act("get_stock_quote", symbol_or_name=symbol),
            act(
                "call_monitor_agent",
                condition={
                    "tool": "get_stock_quote",
                    "args": {"symbol_or_name": symbol},
                    "path": "$.price",
                    "op": "gt" if up else "lt",
                    "value": target,
                },
                notify_only=True,
                description=f"Tell the user when {symbol} {word} {fmt(target)}",
            ),
            done("I'll let you know."),
        ],
        bucket="agent_behavior",
        events=[
            {
                "at": later(g, 24),
                "changes": {"update": {"world_stocks": [{"match": {"symbol": symbol}, "set": {"price": moved}}]}},
            }
        ],
        check={
            "route": "call_monitor_agent",
            "handoff": {
                "condition": {
                    "tool": "get_stock_quote",
                    "args": {"symbol_or_name": {"$any": [symbol, {"$contains": NAMES[symbol].split()[0]}]}},
                },
                "notify_only": True,
            },
            "state": {"insert": {"monitors": [{"notify_only": 1, "status": "triggered"}]}},
        },
    )


@family("subagent", "7.7", agent="screen_reader_agent")
def split_receipt_photo(g: Gen) -> Draft:
    a, b = unique_contact(g), unique_contact(g)
    if a["contact_id"] == b["contact_id"]:
        raise BuildError("same person")
    currency = cur(g)
    total = float(g.rng.randint(40, 250) * money_unit(currency))  # 40-250 dollars, 400-2,500 yuan, ¥4,000-25,000
    place = g.pick(["Hotpot King", "Sushi Go", "Pizza Hut", "Noodle Bar", "Golden Dumpling House"])
    sid, patch = snapshot(
        g,
        "camera",
        f"{place}\nTable 12\nTotal: {fmt(total)} {currency}\nThank you!",
        {"merchant": place, "total": total, "currency": currency},
    )
    query = g.say(
        "split the receipt in {sid} evenly between me, {a} and {b}",
        "read the dinner receipt ({sid}) and send {a} and {b} requests for their equal share",
        sid=sid,
        a=a["name"],
        b=b["name"],
    )
    ids = [a["contact_id"], b["contact_id"]]
    share = {"$approx": [round(total / 3, 2), 0.02 if decimals(currency) else 1.0]}  # yen and won: whole units
    return Draft(
        query=query,
        gold=[
            act(
                "call_screen_reader_agent",
                source={"type": "screen", "id": sid},
                extract_fields=["merchant", "total", "currency"],
            ),
            act("search_contacts", name=a["name"]),
            act("search_contacts", name=b["name"]),
            act("split_bill", total=total, currency=currency, participant_ids=ids, note=f"Dinner at {place}"),
            done("Requests sent."),
        ],
        bucket="agent_behavior",
        patches=patch,
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(sid),
            "state": {
                "insert": {
                    "splits": [
                        {"total": total, "currency": currency, "shares_json": {"$json": {i: share for i in ids}}}
                    ],
                    "money_requests": [{"contact_id": i, "amount": share} for i in ids],
                    "messages": [{"contact_id": i, "channel": "chat"} for i in ids],
                }
            },
        },
    )
