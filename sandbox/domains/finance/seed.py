"""The finance domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import datetime as dt
import json
import random
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import (
    Connection,
    Integer,
    Table,
    cast,
    func,
    insert,
    select,
)

from sandbox.domains.common import payment_methods, transactions
from sandbox.domains.communication.schema import contacts
from sandbox.domains.finance.schema import (
    bank_accounts,
    bills,
    budgets,
    card_details,
    holdings,
    money_requests,
    payment_defaults,
    splits,
    stock_orders,
    transfers,
    world_fx_rates,
    world_stocks,
)
from sandbox.domains.finance.tools import FX_BASE, _budget_category
from sandbox.locales import CURRENCIES, minor_units, round_amount, to_step
from sandbox.personas import Persona, seeder

# ---- World data -------------------------------------------------------------------------------

# (symbol, name, exchange, currency, reference price)
STOCKS = [
    ("AAPL", "Apple Inc.", "NASDAQ", "USD", 196.45),
    ("MSFT", "Microsoft Corp.", "NASDAQ", "USD", 474.96),
    ("GOOGL", "Alphabet Inc. Class A", "NASDAQ", "USD", 174.67),
    ("GOOG", "Alphabet Inc. Class C", "NASDAQ", "USD", 175.88),
    ("AMZN", "Amazon.com Inc.", "NASDAQ", "USD", 212.10),
    ("NVDA", "NVIDIA Corp.", "NASDAQ", "USD", 141.97),
    ("META", "Meta Platforms Inc.", "NASDAQ", "USD", 682.87),
    ("TSLA", "Tesla Inc.", "NASDAQ", "USD", 319.11),
    ("NFLX", "Netflix Inc.", "NASDAQ", "USD", 1212.15),
    ("JPM", "JPMorgan Chase & Co.", "NYSE", "USD", 264.20),
    ("KO", "Coca-Cola Co.", "NYSE", "USD", 71.50),
    ("DIS", "Walt Disney Co.", "NYSE", "USD", 112.30),
    ("BABA", "Alibaba Group Holding", "NYSE", "USD", 116.80),
    ("NIO", "NIO Inc.", "NYSE", "USD", 3.52),
    ("600519", "Kweichow Moutai", "SSE", "CNY", 1425.00),
    ("601398", "Industrial and Commercial Bank of China", "SSE", "CNY", 7.25),
    ("601318", "Ping An Insurance", "SSE", "CNY", 55.30),
    ("600036", "China Merchants Bank", "SSE", "CNY", 45.20),
    ("000858", "Wuliangye Yibin", "SZSE", "CNY", 126.50),
    ("300750", "Contemporary Amperex Technology (CATL)", "SZSE", "CNY", 251.00),
    ("002594", "BYD Co.", "SZSE", "CNY", 350.20),
    ("7203", "Toyota Motor Corp.", "TSE", "JPY", 2580.0),
    ("6758", "Sony Group Corp.", "TSE", "JPY", 3715.0),
    ("9984", "SoftBank Group Corp.", "TSE", "JPY", 8790.0),
    ("HSBA", "HSBC Holdings", "LSE", "GBP", 8.95),
    ("SHEL", "Shell plc", "LSE", "GBP", 25.90),
    ("AZN", "AstraZeneca", "LSE", "GBP", 106.50),
    ("005930", "Samsung Electronics", "KRX", "KRW", 59800.0),
    ("000660", "SK hynix", "KRX", "KRW", 248000.0),
    ("SAP", "SAP SE", "XETRA", "EUR", 262.50),
    ("SIE", "Siemens AG", "XETRA", "EUR", 212.30),
    ("BMW", "Bayerische Motoren Werke (BMW)", "XETRA", "EUR", 78.40),
]
# exchange -> (timezone, opens, closes) on weekdays
EXCHANGES = {
    "NASDAQ": ("America/New_York", "09:30", "16:00"),
    "NYSE": ("America/New_York", "09:30", "16:00"),
    "SSE": ("Asia/Shanghai", "09:30", "15:00"),
    "SZSE": ("Asia/Shanghai", "09:30", "15:00"),
    "TSE": ("Asia/Tokyo", "09:00", "15:30"),
    "LSE": ("Europe/London", "08:00", "16:30"),
    "KRX": ("Asia/Seoul", "09:00", "15:30"),
    "XETRA": ("Europe/Berlin", "09:00", "17:30"),
}
# (symbol, quantity, limit as a share of the price, status, days ago)
SEED_LIMIT_ORDERS = [("MSFT", 5, 0.92, "pending", 2), ("NFLX", 2, 0.85, "cancelled", 40)]
HOLDINGS = [("AAPL", 20), ("NVDA", 30), ("TSLA", 10), ("600519", 2), ("300750", 100), ("7203", 100)]
USD_RATES = {code: c.per_usd for code, c in CURRENCIES.items() if code != FX_BASE}
FX_DAYS = 90

# category -> (merchants, low, high) in CNY; other currencies are scaled by PROFILES
SPENDING = {
    "dining": (
        [
            "Golden Dumpling House",
            "Noodle Bar",
            "Starbucks",
            "Luckin Coffee",
            "Sushi Go",
            "Hotpot King",
            "Green Salad Co.",
            "Pizza Hut",
        ],
        15,
        260,
    ),
    "groceries": (["FreshMart Supermarket", "Corner Bakery", "Fruit Day", "Hema Fresh"], 30, 400),
    "transport": (["Metro top-up", "DiDi rides", "City Taxi", "Shell fuel", "Parking garage"], 4, 180),
    "shopping": (["JD.com", "Taobao", "Uniqlo", "IKEA", "Decathlon", "Apple Store"], 50, 1500),
    "entertainment": (["Cinema City", "KTV Party", "Steam", "Bowling Alley"], 30, 320),
    "health": (["Wellcare Pharmacy", "City Hospital", "Fitness First"], 20, 600),
    "other": (["Post office", "Dry cleaner", "Barber shop", "Pet store", "Flower shop"], 10, 220),
}
SPEND_WEIGHTS = {
    "dining": 30,
    "groceries": 15,
    "transport": 20,
    "shopping": 12,
    "entertainment": 8,
    "health": 5,
    "other": 8,
}
TRIPS = [("Air China", "flight", 1200, 3800), ("Marriott Hotels", "hotel", 600, 2400), ("Trip.com", "train", 150, 900)]
SUBSCRIPTIONS = [("Netflix", "subscription", 3, 68.0), ("Spotify", "subscription", 8, 15.0)]
# (biller, category, amount in CNY, due day, fixed amount?, autopay)
BILLERS = [
    ("Sunrise Apartments rent", "rent", 6500.0, 1, True, False),
    ("City Power Co.", "electricity", 280.0, 20, False, False),
    ("Water Utility", "water", 90.0, 18, False, False),
    ("Metro Gas Company", "gas", 120.0, 10, False, False),
    ("FiberNet Broadband", "internet", 199.0, 16, True, True),
    ("Mobile plan", "phone", 158.0, 12, True, False),
    ("Visa credit card statement", "credit_card", 3200.0, 25, False, False),
    ("Health insurance premium", "insurance", 860.0, 28, True, True),
]
OVERDUE_BILLER = "Metro Gas Company"
# currency -> (scale of the CNY amounts above, confirm threshold, daily transfer limit, budget rounding); other
# currencies take the dollar profile converted (``profile``)
PROFILES = {"CNY": (1.0, 3000.0, 50000.0, 100.0), "USD": (0.15, 1000.0, 10000.0, 10.0)}


def profile(currency: str) -> tuple[float, float, float, float]:
    if currency in PROFILES:
        return PROFILES[currency]
    scale, threshold, limit, step = PROFILES["USD"]
    rate = CURRENCIES[currency].per_usd
    return scale * rate, round_amount(threshold, currency), round_amount(limit, currency), round_amount(step, currency)


ACCOUNTS = [
    ("Checking", "checking", 42680.50),
    ("Savings", "savings", 150000.0),
    ("Wallet", "wallet", None),
    ("Brokerage cash", "brokerage", 25000.0),
]  # (name, type, balance in CNY; None: common's wallet)
# (note, total in CNY, days ago, guests)
SEED_SPLITS = [("Dinner at Hotpot King", 680.0, 3, 2), ("Weekend cabin", 2400.0, 45, 3)]
SEED_BUDGETS = {"food": 1.0, "transport": 1.2, "shopping": 0.8, "entertainment": 0.7}  # x the usual monthly spend


def _is_open(exchange: str, now_utc: dt.datetime) -> bool:
    tz, opens, closes = EXCHANGES[exchange]
    local = now_utc.astimezone(ZoneInfo(tz))
    return local.weekday() < 5 and opens <= local.strftime("%H:%M") < closes


def _months_back(day: dt.date, n: int) -> dt.date:
    """The first of the month ``n`` months before ``day``'s month (negative: after)."""
    index = day.year * 12 + day.month - 1 - n
    return dt.date(index // 12, index % 12 + 1, 1)


def _next_number(conn: Connection, tbl: Table, prefix: str) -> int:
    """The first free number of ``prefix`` ids in a shared table (other seeders may have added rows)."""
    pk = next(iter(tbl.primary_key.columns))
    found = conn.execute(
        select(func.max(cast(func.substr(pk, len(prefix) + 2), Integer))).where(pk.like(f"{prefix}\\_%", escape="\\"))
    ).scalar()
    return int(found or 0) + 1


class _Books:
    """One persona's finances while they are seeded: the money scale, the accounts, the transactions."""

    def __init__(self, conn: Connection, rng: random.Random, persona: Persona) -> None:
        self.conn, self.rng, self.persona = conn, rng, persona
        self.now = dt.datetime.fromisoformat(persona.now)
        self.today, self.stamp = self.now.date(), persona.now
        self.currency = str(
            conn.execute(select(payment_methods.c.currency).where(payment_methods.c.method_id == "pm_002")).scalar()
        )
        self.scale, self.threshold, self.daily_limit, self.step = profile(self.currency)
        self.method_of: dict[str, str] = {}
        self.txns: list[dict[str, Any]] = []
        people = conn.execute(select(contacts.c.contact_id, contacts.c.name).order_by(contacts.c.contact_id)).all()
        self.name_of: dict[str, str] = dict(people)
        self.circle = [cid for cid, _ in people[:30]]

    def money(self, cny: float) -> float:
        return to_step(cny * self.scale, self.currency)

    def at(self, day: dt.date, lo: int = 7, hi: int = 22) -> str | None:
        """A time on ``day`` between the hours, or None when it is not in the past."""
        when = f"{day}T{self.rng.randint(lo, hi):02d}:{self.rng.randint(0, 59):02d}:00"
        return when if when < self.stamp else None

    def ago(self, lo: int, hi: int) -> str:
        """A daytime moment between ``lo`` and ``hi`` days ago (``lo`` >= 1)."""
        return (
            f"{self.today - dt.timedelta(days=self.rng.randint(lo, hi))}T{self.rng.randint(8, 21):02d}:"
            f"{self.rng.randint(0, 59):02d}:00"
        )

    def contact(self, name: str, fallback: int) -> str:
        return next((cid for cid, n in self.name_of.items() if n == name), self.circle[fallback])

    def txn(self, when: str, method: str, amount: float, merchant: str, category: str) -> dict[str, Any]:
        row = {
            "method_id": method,
            "amount": minor_units(amount, self.currency),
            "currency": self.currency,
            "merchant": merchant,
            "category": category,
            "ref_id": None,
            "ts": when,
            "status": "posted",
        }
        self.txns.append(row)
        return row


def _number(found: list[dict[str, Any]], key: str, prefix: str, txn_column: bool = True) -> None:
    """Give rows their ids in order; the transaction each one made (its ``txn``) points back at it."""
    for i, r in enumerate(found, start=1):
        r[key] = f"{prefix}_{i:03d}"
        paid = r.pop("txn", None)
        if paid is not None:
            paid["ref_id"] = r[key]
        if txn_column:
            r["txn_id"] = paid["txn_id"] if paid else None
        r.setdefault("updated_at", r["created_at"])


def _seed_accounts(b: _Books) -> None:
    """Checking, savings and brokerage get payment-method rows of their own; the wallet is common's pm_003."""
    pm_next = _next_number(b.conn, payment_methods, "pm")
    country = b.currency[:2]
    for i, (name, kind, balance) in enumerate(ACCOUNTS, start=1):
        account_no = f"{country}{b.rng.randint(10, 99)}BANK{b.rng.randint(10**11, 10**12 - 1)}"
        method_id = "pm_003"
        if balance is not None:
            method_id, pm_next = f"pm_{pm_next:03d}", pm_next + 1
            b.conn.execute(
                insert(payment_methods).values(
                    method_id=method_id,
                    kind="bank",
                    nickname=f"{name} account",
                    last4=account_no[-4:],
                    status="active",
                    is_default=0,
                    balance=b.money(balance),
                    currency=b.currency,
                    created_at=b.stamp,
                    updated_at=b.stamp,
                )
            )
        b.method_of[kind] = method_id
        b.conn.execute(
            insert(bank_accounts).values(
                account_id=f"acct_{i:03d}",
                method_id=method_id,
                name=name,
                type=kind,
                account_no=account_no,
                confirm_threshold=b.threshold,
                daily_limit=b.daily_limit,
                created_at=b.stamp,
                updated_at=b.stamp,
            )
        )
    debit_brand = "UnionPay" if b.currency == "CNY" else "Mastercard"
    b.conn.execute(
        insert(card_details),
        [
            {
                "method_id": mid,
                "brand": brand,
                "holder_name": b.persona.name,
                "freeze_reason": None,
                "expiry": f"{b.rng.randint(1, 12):02d}/{b.today.year % 100 + b.rng.randint(1, 4)}",
                "created_at": b.stamp,
                "updated_at": b.stamp,
            }
            for mid, brand in (("pm_001", "Visa"), ("pm_002", debit_brand))
        ],
    )
    b.conn.execute(
        insert(payment_defaults).values(scope="ride", method_id="pm_003", created_at=b.stamp, updated_at=b.stamp)
    )


def _seed_market(b: _Books) -> dict[str, dict[str, Any]]:
    """Daily FX rates for three months and the stock list (open where the exchange is open now)."""
    fx_rows = []
    for quote, base_rate in USD_RATES.items():
        rate = base_rate
        for back in range(FX_DAYS, -1, -1):
            rate *= 1 + b.rng.uniform(-0.004, 0.004)
            fx_rows.append(
                {
                    "base": FX_BASE,
                    "quote": quote,
                    "rate": round(rate, 2 if base_rate > 100 else 4),
                    "date": (b.today - dt.timedelta(days=back)).isoformat(),
                }
            )
    b.conn.execute(insert(world_fx_rates), fx_rows)
    now_utc = b.now.replace(tzinfo=ZoneInfo(b.persona.timezone))
    stock_rows: list[dict[str, Any]] = []
    for symbol, name, exchange, cur, ref in STOCKS:
        digits = 0 if cur in ("JPY", "KRW") else 2
        price = round(ref * (1 + b.rng.uniform(-0.04, 0.04)), digits)
        stock_rows.append(
            {
                "symbol": symbol,
                "name": name,
                "exchange": exchange,
                "currency": cur,
                "price": price,
                "prev_close": round(price / (1 + b.rng.uniform(-0.03, 0.03)), digits),
                "market_open": int(_is_open(exchange, now_utc)),
            }
        )
    b.conn.execute(insert(world_stocks), stock_rows)
    return {s["symbol"]: s for s in stock_rows}


def _seed_spending(b: _Books) -> None:
    """Six months of everyday card spending, salaries, subscriptions and trips; a few refunds."""
    cards = ["pm_001", "pm_002", "pm_003", b.method_of["checking"]]
    day = _months_back(b.today, 6)
    while day <= b.today:
        for _ in range(b.rng.choice([0, 1, 1, 2, 2, 3])):
            category = b.rng.choices(list(SPEND_WEIGHTS), weights=list(SPEND_WEIGHTS.values()))[0]
            merchants, lo, hi = SPENDING[category]
            if when := b.at(day):
                b.txn(
                    when,
                    b.rng.choices(cards, weights=[35, 35, 20, 10])[0],
                    -b.money(b.rng.uniform(lo, hi)),
                    b.rng.choice(merchants),
                    category,
                )
        if day.day == 10 and (when := b.at(day, 8, 9)):
            b.txn(when, b.method_of["checking"], b.money(25000), "Payroll - Acme Corp", "income")
        for merchant, category, day_of_month, fee in SUBSCRIPTIONS:
            if day.day == day_of_month and (when := b.at(day, 6, 6)):
                b.txn(when, "pm_001", -b.money(fee), merchant, category)
        day += dt.timedelta(days=1)
    for merchant, category, lo, hi in TRIPS:
        b.txn(b.ago(20, 150), "pm_001", -b.money(b.rng.uniform(lo, hi)), merchant, category)
    shopping = [t for t in b.txns if t["category"] == "shopping"]
    for t in b.rng.sample(shopping, min(3, len(shopping))):
        t["status"] = "refunded"


def _seed_transfers(b: _Books) -> list[dict[str, Any]]:
    """Transfers sent to contacts (one still scheduled) and money received from them."""
    sent = []
    for i in range(14):
        cid, when = b.rng.choice(b.circle[:8] if i % 2 else b.circle), b.ago(1, 150)
        amount = b.money(b.rng.randint(5, 200) * 10)
        sent.append(
            {
                "from_account_id": "acct_001",
                "recipient_key": cid,
                "recipient_name": b.name_of[cid],
                "contact_id": cid,
                "amount": amount,
                "currency": b.currency,
                "debit_amount": amount,
                "note": b.rng.choice(["Dinner", "Rent share", "Gift", "Thanks!", None]),
                "value_date": when[:10],
                "status": "completed",
                "created_at": when,
                "txn": b.txn(when, b.method_of["checking"], -amount, b.name_of[cid], "transfer"),
            }
        )
    mom = b.contact("Zhang Min", 1)
    sent.append(
        {
            "from_account_id": "acct_001",
            "recipient_key": mom,
            "recipient_name": b.name_of[mom],
            "contact_id": mom,
            "amount": b.money(2000),
            "currency": b.currency,
            "debit_amount": b.money(2000),
            "note": "Monthly allowance",
            "value_date": (b.today + dt.timedelta(days=5)).isoformat(),
            "status": "scheduled",
            "created_at": b.ago(20, 20),
            "txn": None,
        }
    )
    for _ in range(6):
        cid = b.rng.choice(b.circle)
        b.txn(b.ago(1, 150), b.method_of["wallet"], b.money(b.rng.randint(5, 80) * 10), b.name_of[cid], "transfer")
    return sorted(sent, key=lambda r: r["created_at"])


def _seed_bills(b: _Books) -> list[dict[str, Any]]:
    """Three months of each biller's bills (and next month's rent); past ones paid except one overdue."""
    found = []
    for biller, category, base, due_day, fixed, autopay in BILLERS:
        customer_no, overdue_given = f"{b.rng.randint(10**7, 10**8 - 1)}", False
        for back in (0, 1, 2) if category != "rent" else (-1, 0, 1, 2):
            due = _months_back(b.today, back).replace(day=due_day)
            amount = b.money(base if fixed else base * b.rng.uniform(0.75, 1.3))
            issued = min(f"{due - dt.timedelta(days=14)}T08:00:00", b.stamp)
            bill = {
                "biller": biller,
                "category": category,
                "customer_no": customer_no,
                "amount": amount,
                "amount_paid": 0.0,
                "currency": b.currency,
                "due_date": due.isoformat(),
                "status": "due",
                "autopay": int(autopay),
                "scheduled_date": None,
                "scheduled_amount": None,
                "pay_from_account_id": None,
                "paid_at": None,
                "created_at": issued,
            }
            overdue = biller == OVERDUE_BILLER and due < b.today and not overdue_given
            overdue_given = overdue_given or overdue
            if due < b.today and not overdue:
                paid_at = f"{due - dt.timedelta(days=b.rng.randint(0, 4))}T{b.rng.randint(8, 21):02d}:15:00"
                bill.update(
                    amount_paid=amount,
                    status="paid",
                    paid_at=paid_at,
                    updated_at=paid_at,
                    txn=b.txn(paid_at, b.method_of["checking"], -amount, biller, "bills"),
                )
            found.append(bill)
    return sorted(found, key=lambda r: (r["due_date"], r["biller"]))


def _seed_portfolio(b: _Books, stocks: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Holdings with the filled orders that bought them, one pending and one cancelled limit order."""
    usd = {
        FX_BASE: 1.0,
        **dict(
            b.conn.execute(
                select(world_fx_rates.c.quote, world_fx_rates.c.rate).where(
                    world_fx_rates.c.date == b.today.isoformat()
                )
            ).all()
        ),
    }
    orders, held = [], []
    for symbol, quantity in HOLDINGS:
        stock = stocks[symbol]
        cost, when = round(stock["price"] * b.rng.uniform(0.7, 1.15), 2), b.ago(30, 170)
        settled = round(quantity * cost * usd[b.currency] / usd[stock["currency"]], 2)
        orders.append(
            {
                "symbol": symbol,
                "side": "buy",
                "quantity": quantity,
                "order_type": "market",
                "limit_price": None,
                "fill_price": cost,
                "status": "filled",
                "created_at": when,
                "txn": b.txn(when, b.method_of["brokerage"], -settled, f"Buy {quantity} {symbol}", "investment"),
            }
        )
        held.append({"symbol": symbol, "quantity": quantity, "avg_cost": cost, "created_at": when, "updated_at": when})
    b.conn.execute(insert(holdings), held)
    for symbol, quantity, discount, status, days in SEED_LIMIT_ORDERS:
        orders.append(
            {
                "symbol": symbol,
                "side": "buy",
                "quantity": quantity,
                "order_type": "limit",
                "limit_price": round(stocks[symbol]["price"] * discount),
                "fill_price": None,
                "status": status,
                "created_at": b.ago(days, days),
                "txn": None,
            }
        )
    return sorted(orders, key=lambda r: r["created_at"])


def _seed_requests(b: _Books) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Two past splits with their money requests (paid ones came into the wallet) and one open request."""
    split_rows, requests = [], []
    for i, (note, total, days, guests) in enumerate(SEED_SPLITS, start=1):
        when, people = b.ago(days, days), sorted(b.rng.sample(b.circle[:10], guests))
        share = b.money(total / (guests + 1))
        split_rows.append(
            {
                "split_id": f"split_{i:03d}",
                "total": b.money(total),
                "currency": b.currency,
                "method": "equal",
                "include_self": 1,
                "self_share": round(b.money(total) - share * guests, 2),
                "shares_json": json.dumps({g: share for g in people}, sort_keys=True),
                "note": note,
                "created_at": when,
                "updated_at": when,
            }
        )
        for j, g in enumerate(people):
            paid = i == 2 or j == 0
            requests.append(
                {
                    "contact_id": g,
                    "amount": share,
                    "currency": b.currency,
                    "note": note,
                    "due_date": None,
                    "status": "paid" if paid else "open",
                    "split_id": f"split_{i:03d}",
                    "created_at": when,
                }
            )
            if paid:
                b.txn(when[:11] + "23:30:00", b.method_of["wallet"], share, b.name_of[g], "transfer")
    requests.append(
        {
            "contact_id": b.contact("Tom Baker", 2),
            "amount": b.money(380),
            "currency": b.currency,
            "note": "Concert tickets",
            "due_date": (b.today + dt.timedelta(days=7)).isoformat(),
            "status": "open",
            "split_id": None,
            "created_at": b.ago(6, 6),
        }
    )
    return split_rows, sorted(requests, key=lambda r: r["created_at"])


def _seed_budgets(b: _Books) -> None:
    """Budgets sized from the average spending of the last three full months (other apps' charges too)."""
    months = {_months_back(b.today, n).strftime("%Y-%m") for n in (1, 2, 3)}
    spent = dict.fromkeys(SEED_BUDGETS, 0.0)
    t = transactions.c
    for category, ts, amount in b.conn.execute(
        select(t.category, t.ts, t.amount).where(t.status == "posted", t.amount < 0)
    ):
        bucket = _budget_category(category)
        if bucket in spent and ts[:7] in months:
            spent[bucket] -= amount / len(months)
    b.conn.execute(
        insert(budgets),
        [
            {
                "budget_id": f"budget_{i:03d}",
                "category": cat,
                "alert_pct": 80,
                "created_at": b.stamp,
                "updated_at": b.stamp,
                "monthly_limit": max(5 * b.step, round(spent[cat] * factor / b.step) * b.step),
            }
            for i, (cat, factor) in enumerate(SEED_BUDGETS.items(), start=1)
        ],
    )


@seeder
def seed_finance(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """Accounts on top of common's payment methods, six months of transactions, bills, budgets, stocks, FX."""
    b = _Books(conn, rng, persona)
    _seed_accounts(b)
    stocks = _seed_market(b)
    _seed_spending(b)
    sent = _seed_transfers(b)
    bill_rows = _seed_bills(b)
    orders = _seed_portfolio(b, stocks)
    split_rows, requests = _seed_requests(b)
    b.txns.sort(key=lambda t: t["ts"])
    for n, t in enumerate(b.txns, start=_next_number(conn, transactions, "txn")):
        t.update(txn_id=f"txn_{n:03d}", created_at=t["ts"], updated_at=t["ts"])
    _number(sent, "transfer_id", "transfer")
    _number(bill_rows, "bill_id", "bill", txn_column=False)
    _number(orders, "stock_order_id", "stock_order")
    _number(requests, "request_id", "request", txn_column=False)
    conn.execute(insert(transactions), b.txns)
    conn.execute(insert(transfers), sent)
    conn.execute(insert(bills), bill_rows)
    conn.execute(insert(stock_orders), orders)
    conn.execute(insert(splits), split_rows)
    conn.execute(insert(money_requests), requests)
    _seed_budgets(b)
