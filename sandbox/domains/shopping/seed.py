"""The shopping domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import datetime as dt
import json
import random
from typing import Any

from sqlalchemy import (
    Connection,
    Integer,
    cast,
    func,
    insert,
    select,
)

from sandbox.domains.common import addresses, payment_methods, transactions
from sandbox.domains.shopping.schema import (
    MERCHANT,
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
from sandbox.domains.shopping.tools import _fee, _unit_price
from sandbox.locales import CURRENCIES, figures, round_amount, shelf_price, to_step
from sandbox.personas import Persona, seeder

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
