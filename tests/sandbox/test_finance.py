"""D7 finance tools against the wang_lei world (now = 2025-06-13T09:00, a Friday; money in CNY).

Every tool has a success test asserting its payload and state diff, and every ErrorType it
declares has a case that must fail with exactly that type, change nothing and log one row.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import Executable, insert, select, update

from sandbox.db import open_database, transaction
from sandbox.domains.common import payment_methods, transactions
from sandbox.domains.communication.schema import contacts
from sandbox.domains.finance import tools as finance
from sandbox.domains.finance.schema import (
    bank_accounts,
    bills,
    budgets,
    card_details,
    holdings,
    money_requests,
    payment_defaults,
    stock_orders,
    transfers,
    world_fx_rates,
    world_stocks,
)
from sandbox.errors import ErrorType
from sandbox.executor import Executor
from sandbox.schema import apps, device_settings
from sandbox.tooling import REGISTRY
from sandbox.world import build_world, world_image
from tests.sandbox.conftest import diff, fails, ok, prepare, query

FINANCE_TOOLS = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ == finance.__name__)
NOW = "2025-06-13T09:00:01"  # ctx.ts() of step 1
CHECKING, SAVINGS, WALLET, BROKERAGE = "pm_004", "pm_005", "pm_003", "pm_006"  # payment methods of acct_001..004
RENT_DUE, GAS_OVERDUE, RENT_PAID, BROADBAND_DUE = "bill_025", "bill_018", "bill_017", "bill_020"


def balance(ex: Executor, method_id: str) -> float:
    return float(
        query(ex, select(payment_methods.c.balance).where(payment_methods.c.method_id == method_id))[0]["balance"]
    )


def updated(d: dict[str, Any], table: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(u["before"], u["after"]) for u in d[table]["updated"]]


# ---- the world ------------------------------------------------------------------------------


def test_world_is_deterministic_and_seeded_as_promised() -> None:
    assert build_world("wang_lei") == world_image("wang_lei")
    conn = open_database(world_image("wang_lei"))
    try:
        with transaction(conn):

            def all_rows(tbl: Any) -> list[dict[str, Any]]:
                return [dict(r._mapping) for r in conn.execute(select(tbl))]

            accounts = {a["account_id"]: (a["type"], a["method_id"]) for a in all_rows(bank_accounts)}
            assert accounts == {
                "acct_001": ("checking", CHECKING),
                "acct_002": ("savings", SAVINGS),
                "acct_003": ("wallet", WALLET),
                "acct_004": ("brokerage", BROKERAGE),
            }
            txns = all_rows(transactions)
            mine = [t for t in txns if t["ts"] < "2025-06-13T09:00:00"]
            assert len(mine) == len(txns) >= 300
            assert min(t["ts"] for t in txns) < "2025-01-01" and {t["status"] for t in txns} == {"posted", "refunded"}
            assert {"pm_001", "pm_002", "pm_003", CHECKING, BROKERAGE} <= {t["method_id"] for t in txns}
            assert {t["currency"] for t in txns} == {"CNY"}
            found = {b["bill_id"]: b for b in all_rows(bills)}
            assert (found[GAS_OVERDUE]["status"], found[GAS_OVERDUE]["due_date"]) == ("due", "2025-06-10")
            assert [b["bill_id"] for b in found.values() if b["status"] == "due" and b["due_date"] < "2025-06-13"] == [
                GAS_OVERDUE
            ]
            assert (found[RENT_DUE]["amount"], found[RENT_DUE]["due_date"]) == (6500.0, "2025-07-01")
            assert found[RENT_PAID]["status"] == "paid" and found[BROADBAND_DUE]["status"] == "due"
            paid = {t["ref_id"] for t in txns if t["category"] == "bills"}
            assert paid == {b for b, row in found.items() if row["status"] == "paid"}
            assert sorted(b["category"] for b in all_rows(budgets)) == [
                "entertainment",
                "food",
                "shopping",
                "transport",
            ]
            rates = all_rows(world_fx_rates)
            assert {r["base"] for r in rates} == {"USD"}
            assert {r["quote"] for r in rates} == {"CNY", "EUR", "JPY", "GBP", "KRW", "CAD", "AUD", "INR"}
            assert max(r["date"] for r in rates) == "2025-06-13"
            stocks = {s["symbol"]: s for s in all_rows(world_stocks)}
            assert len(stocks) >= 30 and stocks["7203"]["market_open"] == 1 and stocks["AAPL"]["market_open"] == 0
            assert {h["symbol"]: h["quantity"] for h in all_rows(holdings)}["7203"] == 100
            orders = all_rows(stock_orders)
            assert {o["status"] for o in orders} == {"filled", "pending", "cancelled"}
            assert all(o["txn_id"] for o in orders if o["status"] == "filled")
            sent = all_rows(transfers)
            assert len(sent) == 15 and [t["status"] for t in sent].count("scheduled") == 1
            assert {r["status"] for r in all_rows(money_requests)} == {"open", "paid"}
    finally:
        conn.close()


def test_maya_world_is_in_dollars() -> None:
    conn = open_database(world_image("maya_patel"))
    try:
        with transaction(conn):
            currencies = set(conn.execute(select(transactions.c.currency)).scalars())
            limits = conn.execute(select(bank_accounts.c.confirm_threshold).distinct()).scalars().all()
            us_open = conn.execute(select(world_stocks.c.market_open).where(world_stocks.c.symbol == "AAPL")).scalar()
        assert currencies == {"USD"} and limits == [1000.0] and us_open == 1
    finally:
        conn.close()


def test_declarations() -> None:
    assert (
        sorted(
            [
                "get_account_balance",
                "list_transactions",
                "transfer_money",
                "request_money",
                "list_bills",
                "pay_bill",
                "set_budget",
                "get_budget_status",
                "add_payment_card",
                "freeze_card",
                "set_default_payment_method",
                "get_stock_quote",
                "place_stock_order",
                "convert_currency",
                "split_bill",
            ]
        )
        == FINANCE_TOOLS
    )
    read_only = {n for n in FINANCE_TOOLS if not REGISTRY[n].mutating}
    assert read_only == {
        "get_account_balance",
        "list_transactions",
        "list_bills",
        "get_budget_status",
        "get_stock_quote",
        "convert_currency",
    }
    for name in FINANCE_TOOLS:
        spec = REGISTRY[name]
        assert spec.domain == "D7" and spec.permissions == ()
        assert spec.needs_login == (spec.app == "bank"), name
        for arg in spec.parameters["properties"].values():
            assert arg["description"], name
    assert {REGISTRY[n].app for n in FINANCE_TOOLS} == {"bank", "wallet", "stocks", "utilities"}


# ---- 7.1 Balances & Transactions ------------------------------------------------------------


def test_get_account_balance(ex: Executor) -> None:
    out = ok(ex, "get_account_balance", {})
    assert [(a["account_id"], a["balance"]) for a in out["accounts"]] == [
        ("acct_001", 42680.5),
        ("acct_002", 150000.0),
        ("acct_003", 320.0),
        ("acct_004", 25000.0),
    ]
    assert out["totals"] == {"CNY": 218000.5}
    one = ok(ex, "get_account_balance", {"account_id": "acct_003"})
    assert [a["type"] for a in one["accounts"]] == ["wallet"] and one["cards"] == []
    assert diff(ex) == {}


def test_get_account_balance_lists_the_wallet_cards(ex: Executor) -> None:
    """The wallet's cards (id, brand, last four) are reachable the way a phone's wallet shows them."""
    out = ok(ex, "get_account_balance", {})
    cards = {c["method_id"]: c for c in out["cards"]}
    assert set(cards) == {"pm_001", "pm_002"}
    assert cards["pm_001"]["nickname"] == "Visa credit" and len(cards["pm_001"]["last4"]) == 4
    assert cards["pm_002"]["is_default"] is True and out["default_payment_methods"]["all"] == "pm_002"
    added = ok(
        ex, "add_payment_card", {"card_number": "4111 1111 1111 1111", "expiry": "12/29", "holder_name": "Wang Lei"}
    )
    again = ok(ex, "get_account_balance", {"account_id": added["method_id"]})
    assert again["accounts"] == [] and [(c["brand"], c["last4"], c["expiry"]) for c in again["cards"]] == [
        ("Visa", "1111", "12/29")
    ]
    ok(ex, "freeze_card", {"card_id": "pm_001", "frozen": True})
    assert ok(ex, "get_account_balance", {"account_id": "pm_001"})["cards"][0]["status"] == "frozen"


def test_list_transactions_filters(ex: Executor) -> None:
    out = ok(ex, "list_transactions", {"account_id": "acct_001", "direction": "credit", "category": "income"})
    assert out["count"] == out["total_matched"] >= 6
    assert all(t["method_id"] == CHECKING and t["amount"] > 0 for t in out["transactions"])
    assert out["total_credits"] == round(sum(t["amount"] for t in out["transactions"]), 2)
    food = ok(
        ex, "list_transactions", {"category": "food", "date_from": "2025-06-01", "date_to": "2025-06-12", "limit": 100}
    )
    assert food["transactions"] and {t["category"] for t in food["transactions"]} <= {"dining", "groceries"}
    assert all("2025-06-01" <= t["ts"] < "2025-06-13" for t in food["transactions"])
    stamps = [t["ts"] for t in food["transactions"]]
    assert stamps == sorted(stamps, reverse=True)
    big = ok(ex, "list_transactions", {"account_id": "pm_001", "min_amount": 500, "max_amount": 5000, "limit": 3})
    assert big["count"] == 3 and big["total_matched"] >= 3
    assert all(500 <= abs(t["amount"]) <= 5000 and t["method_id"] == "pm_001" for t in big["transactions"])
    star = ok(ex, "list_transactions", {"merchant": "starbucks", "direction": "debit"})
    assert star["transactions"] and all(t["merchant"] == "Starbucks" for t in star["transactions"])
    assert diff(ex) == {}


def test_list_transactions_bad_ranges(ex: Executor) -> None:
    fails(
        ex, "list_transactions", {"date_from": "2025-06-10", "date_to": "2025-06-01"}, ErrorType.INVALID_ARGUMENT_VALUE
    )
    fails(ex, "list_transactions", {"min_amount": 10, "max_amount": 5}, ErrorType.INVALID_ARGUMENT_VALUE)


# ---- 7.2 Money Transfer ---------------------------------------------------------------------


def test_transfer_money_to_a_contact_by_name(ex: Executor) -> None:
    out = ok(ex, "transfer_money", {"recipient": "lily chen", "amount": 200, "currency": "CNY", "note": "Flowers"})
    assert (out["status"], out["recipient"], out["debited"], out["balance_after"]) == (
        "completed",
        {"key": "contact_001", "name": "Lily Chen"},
        200.0,
        42480.5,
    )
    d = diff(ex)
    assert set(d) == {"transfers", "transactions", "payment_methods"}
    [row] = d["transfers"]["inserted"]
    assert (row["transfer_id"], row["recipient_key"], row["amount"], row["status"], row["txn_id"], row["note"]) == (
        out["transfer_id"],
        "contact_001",
        200.0,
        "completed",
        out["txn_id"],
        "Flowers",
    )
    [txn] = d["transactions"]["inserted"]
    assert (txn["method_id"], txn["amount"], txn["category"], txn["ref_id"], txn["ts"]) == (
        CHECKING,
        -200.0,
        "transfer",
        row["transfer_id"],
        NOW,
    )
    [(before, after)] = updated(d, "payment_methods")
    assert (before["balance"], after["balance"]) == (42680.5, 42480.5)


def test_transfer_money_by_phone_and_in_another_currency(ex: Executor) -> None:
    phone = query(ex, select(contacts.c.phone_number).where(contacts.c.contact_id == "contact_003"))[0]["phone_number"]
    rate = query(
        ex, select(world_fx_rates.c.rate).where(world_fx_rates.c.quote == "CNY", world_fx_rates.c.date == "2025-06-13")
    )[0]["rate"]
    out = ok(ex, "transfer_money", {"recipient": phone, "amount": 100, "currency": "USD"})
    assert out["recipient"]["key"] == "contact_003" and out["debited"] == round(100 * rate, 2)
    assert diff(ex)["transfers"]["inserted"][0]["debit_amount"] == out["debited"]
    stranger = ok(ex, "transfer_money", {"recipient": "+86 139 0000 0000", "amount": 10, "currency": "CNY"})
    assert stranger["recipient"] == {"key": "+8613900000000", "name": "+8613900000000"}
    iban = ok(ex, "transfer_money", {"recipient": "GB29 NWBK 6016 1331 9268 19", "amount": 10, "currency": "CNY"})
    assert iban["recipient"]["key"] == "GB29NWBK60161331926819"


def test_transfer_money_between_own_accounts_skips_confirmation(ex: Executor) -> None:
    out = ok(ex, "transfer_money", {"recipient": "acct_002", "amount": 20000, "currency": "CNY"})
    assert out["status"] == "completed" and out["recipient"] == {"key": "acct_002", "name": "Savings"}
    assert (balance(ex, CHECKING), balance(ex, SAVINGS)) == (22680.5, 170000.0)
    amounts = sorted((t["method_id"], t["amount"]) for t in diff(ex)["transactions"]["inserted"])
    assert amounts == [(CHECKING, -20000.0), (SAVINGS, 20000.0)]
    account_no = query(ex, select(bank_accounts.c.account_no).where(bank_accounts.c.account_id == "acct_003"))
    by_number = ok(ex, "transfer_money", {"recipient": account_no[0]["account_no"], "amount": 80, "currency": "CNY"})
    assert by_number["recipient"]["key"] == "acct_003" and balance(ex, WALLET) == 400.0


def test_transfer_money_large_needs_confirmation(ex: Executor) -> None:
    args = {"recipient": "contact_002", "amount": 3000, "currency": "CNY"}
    payload = fails(ex, "transfer_money", args, ErrorType.CONFIRMATION_REQUIRED)
    assert payload["threshold"] == 3000.0
    assert ok(ex, "transfer_money", {**args, "confirm": True})["status"] == "completed"


def test_transfer_money_scheduled(ex: Executor) -> None:
    out = ok(
        ex,
        "transfer_money",
        {"recipient": "contact_007", "amount": 99, "currency": "CNY", "scheduled_date": "2025-06-20"},
    )
    assert (out["status"], out["txn_id"], out["value_date"], out["balance_after"]) == (
        "scheduled",
        None,
        "2025-06-20",
        42680.5,
    )
    assert set(diff(ex)) == {"transfers"}


def test_transfer_money_daily_limit(ex: Executor) -> None:
    prepare(ex.conn, update(bank_accounts).where(bank_accounts.c.account_id == "acct_001").values(daily_limit=1000))
    ok(ex, "transfer_money", {"recipient": "contact_007", "amount": 600, "currency": "CNY"})
    payload = fails(
        ex, "transfer_money", {"recipient": "contact_008", "amount": 500, "currency": "CNY"}, ErrorType.LIMIT_EXCEEDED
    )
    assert (payload["daily_limit"], payload["already_sent"]) == (1000.0, 600.0)
    ok(
        ex,
        "transfer_money",
        {"recipient": "contact_008", "amount": 500, "currency": "CNY", "scheduled_date": "2025-06-14"},
    )
    ok(ex, "transfer_money", {"recipient": "acct_002", "amount": 5000, "currency": "CNY"})  # own: no limit


def test_transfer_money_ambiguous_name_lists_candidates(ex: Executor) -> None:
    payload = fails(
        ex, "transfer_money", {"recipient": "Alex", "amount": 10, "currency": "CNY"}, ErrorType.AMBIGUOUS_ENTITY
    )
    assert [c["name"] for c in payload["candidates"]] == ["Alex Turner", "Alex Morgan"]


def test_request_money(ex: Executor) -> None:
    out = ok(
        ex,
        "request_money",
        {"from_contact_id": "contact_007", "amount": 45.5, "currency": "CNY", "note": "Taxi", "due_date": "2025-06-20"},
    )
    assert (out["name"], out["amount"], out["status"]) == ("Tom Baker", 45.5, "open")
    d = diff(ex)
    assert set(d) == {"money_requests", "messages"}
    [req] = d["money_requests"]["inserted"]
    assert (req["request_id"], req["contact_id"], req["amount"], req["due_date"], req["status"]) == (
        out["request_id"],
        "contact_007",
        45.5,
        "2025-06-20",
        "open",
    )
    [msg] = d["messages"]["inserted"]
    assert (msg["message_id"], msg["contact_id"], msg["channel"], msg["direction"]) == (
        out["message_id"],
        "contact_007",
        "chat",
        "out",
    )
    assert "45.50 CNY" in msg["body"] and "Taxi" in msg["body"]


# ---- 7.3 Bill Payment -----------------------------------------------------------------------


def test_list_bills(ex: Executor) -> None:
    due = ok(ex, "list_bills", {})
    assert due["bills"][0]["bill_id"] == GAS_OVERDUE and due["bills"][0]["status"] == "overdue"
    assert {b["status"] for b in due["bills"]} == {"overdue", "due"} and due["count"] == 7
    assert due["total_due"] == round(sum(b["amount_due"] for b in due["bills"]), 2)
    assert [b["bill_id"] for b in ok(ex, "list_bills", {"status": "overdue"})["bills"]] == [GAS_OVERDUE]
    paid = ok(ex, "list_bills", {"status": "paid"})["bills"]
    assert paid[0]["bill_id"] == "bill_019" and all(b["amount_due"] == 0 for b in paid)
    assert ok(ex, "list_bills", {"status": "all"})["count"] == 25
    assert diff(ex) == {}


def test_pay_bill_now(ex: Executor) -> None:
    out = ok(ex, "pay_bill", {"bill_id": GAS_OVERDUE})
    assert (out["status"], out["paid"], out["amount_due"], out["account_id"]) == ("paid", 128.55, 0.0, "acct_001")
    d = diff(ex)
    [(before, after)] = updated(d, "bills")
    assert (before["status"], after["status"], after["amount_paid"], after["paid_at"]) == ("due", "paid", 128.55, NOW)
    [txn] = d["transactions"]["inserted"]
    assert (txn["amount"], txn["merchant"], txn["category"], txn["ref_id"]) == (
        -128.55,
        "Metro Gas Company",
        "bills",
        GAS_OVERDUE,
    )
    assert balance(ex, CHECKING) == round(42680.5 - 128.55, 2)


def test_pay_bill_partly_then_rest(ex: Executor) -> None:
    first = ok(ex, "pay_bill", {"bill_id": BROADBAND_DUE, "amount": 99, "account_id": "acct_003"})
    assert (first["status"], first["amount_due"]) == ("partially_paid", 100.0)
    assert balance(ex, WALLET) == 221.0
    rest = ok(ex, "pay_bill", {"bill_id": BROADBAND_DUE})
    assert (rest["status"], rest["paid"]) == ("paid", 100.0)


def test_pay_bill_scheduled_with_confirmation(ex: Executor) -> None:
    fails(ex, "pay_bill", {"bill_id": RENT_DUE, "scheduled_date": "2025-06-28"}, ErrorType.CONFIRMATION_REQUIRED)
    out = ok(ex, "pay_bill", {"bill_id": RENT_DUE, "scheduled_date": "2025-06-28", "confirm": True})
    assert (out["status"], out["amount"]) == ("scheduled", 6500.0)
    d = diff(ex)
    assert set(d) == {"bills"}
    [(_, after)] = updated(d, "bills")
    assert (after["status"], after["scheduled_date"], after["scheduled_amount"], after["pay_from_account_id"]) == (
        "scheduled",
        "2025-06-28",
        6500.0,
        "acct_001",
    )
    fails(ex, "pay_bill", {"bill_id": RENT_DUE, "confirm": True}, ErrorType.STATE_CONFLICT)


# ---- 7.4 Budgets & Expense Tracking -----------------------------------------------------------


def test_set_budget_new_and_overwrite(ex: Executor) -> None:
    out = ok(ex, "set_budget", {"category": "health", "monthly_limit": 800})
    assert (out["budget_id"], out["alert_pct"], out["replaced"]) == ("budget_005", 80, None)
    [row] = diff(ex)["budgets"]["inserted"]
    assert (row["category"], row["monthly_limit"], row["alert_pct"], row["created_at"]) == ("health", 800.0, 80, NOW)
    again = ok(ex, "set_budget", {"category": "food", "monthly_limit": 3000, "alert_pct": 90, "overwrite": True})
    assert again["budget_id"] == "budget_001" and again["replaced"]["monthly_limit"] == 3500.0
    [(before, after)] = updated(diff(ex), "budgets")
    assert (before["monthly_limit"], after["monthly_limit"], after["alert_pct"]) == (3500.0, 3000.0, 90)


def test_get_budget_status(ex: Executor) -> None:
    out = ok(ex, "get_budget_status", {})
    assert out["month"] == "2025-06" and out["currency"] == "CNY"
    assert [b["category"] for b in out["budgets"]] == ["entertainment", "food", "shopping", "transport"]
    june_food = ok(ex, "list_transactions", {"category": "food", "date_from": "2025-06-01", "limit": 100})
    food = ok(ex, "get_budget_status", {"category": "food"})["budgets"][0]
    assert food["spent"] == june_food["total_debits"]
    assert food["remaining"] == round(food["monthly_limit"] - food["spent"], 2)
    assert food["alert_reached"] == (food["pct_used"] >= 80)
    may = ok(ex, "get_budget_status", {"category": "entertainment", "month": "2025-05"})["budgets"][0]
    assert may["spent"] > 0
    assert diff(ex) == {}


def test_get_budget_status_counts_new_spending(ex: Executor) -> None:
    before = ok(ex, "get_budget_status", {"category": "transport"})["budgets"][0]
    prepare(
        ex.conn,
        insert(transactions).values(
            txn_id="txn_900",
            method_id="pm_001",
            amount=-321.0,
            currency="CNY",
            merchant="DiDi",
            category="ride",
            ref_id=None,
            ts="2025-06-13T08:30:00",
            status="posted",
        ),
    )
    after = ok(ex, "get_budget_status", {"category": "transport"})["budgets"][0]
    assert after["spent"] == round(before["spent"] + 321.0, 2)


# ---- 7.5 Cards & Wallet -----------------------------------------------------------------------

NEW_CARD = {"card_number": "4111 1111 1111 1111", "expiry": "12/27", "holder_name": "Wang Lei"}


def test_add_payment_card(ex: Executor) -> None:
    out = ok(ex, "add_payment_card", {**NEW_CARD, "set_default": True})
    assert out == {
        "method_id": "pm_007",
        "brand": "Visa",
        "last4": "1111",
        "expiry": "12/27",
        "nickname": "Visa ••1111",
        "is_default": True,
    }
    d = diff(ex)
    [pm] = d["payment_methods"]["inserted"]
    assert (pm["kind"], pm["status"], pm["is_default"], pm["currency"]) == ("card", "active", 1, "CNY")
    [(before, after)] = updated(d, "payment_methods")
    assert (before["method_id"], before["is_default"], after["is_default"]) == ("pm_002", 1, 0)
    [details] = d["card_details"]["inserted"]
    assert (details["method_id"], details["holder_name"]) == ("pm_007", "Wang Lei")
    assert "4111" not in json.dumps(d)


def test_add_payment_card_rejects_bad_numbers(ex: Executor) -> None:
    fails(ex, "add_payment_card", {**NEW_CARD, "card_number": "4111 1111 1111 1112"}, ErrorType.INVALID_ARGUMENT_VALUE)
    fails(ex, "add_payment_card", {**NEW_CARD, "card_number": "4111 1111 11"}, ErrorType.INVALID_ARGUMENT_VALUE)
    fails(ex, "add_payment_card", {**NEW_CARD, "expiry": "13/27"}, ErrorType.INVALID_ARGUMENT_VALUE)


def test_freeze_and_unfreeze_card(ex: Executor) -> None:
    out = ok(ex, "freeze_card", {"card_id": "pm_001", "frozen": True, "reason": "lost"})
    assert (out["status"], out["previous"]) == ("frozen", "active")
    d = diff(ex)
    [(_, after)] = updated(d, "payment_methods")
    assert after["status"] == "frozen"
    [(_, details)] = updated(d, "card_details")
    assert details["freeze_reason"] == "lost"
    back = ok(ex, "freeze_card", {"card_id": "pm_001", "frozen": False})
    assert (back["status"], back["previous"]) == ("active", "frozen")
    d = diff(ex)
    assert [after["status"] for _, after in updated(d, "payment_methods")] == ["active"]
    assert [after["freeze_reason"] for _, after in updated(d, "card_details")] == [None]


def test_set_default_payment_method(ex: Executor) -> None:
    out = ok(ex, "set_default_payment_method", {"method_id": "pm_001"})
    assert (out["scope"], out["previous"]) == ("all", "pm_002")
    defaults = {after["method_id"]: after["is_default"] for _, after in updated(diff(ex), "payment_methods")}
    assert defaults == {"pm_001": 1, "pm_002": 0}
    shop = ok(ex, "set_default_payment_method", {"method_id": WALLET, "scope": "shop"})
    assert shop["previous"] is None
    assert diff(ex)["payment_defaults"]["inserted"][0] == {
        "scope": "shop",
        "method_id": WALLET,
        "created_at": "2025-06-13T09:00:02",
        "updated_at": "2025-06-13T09:00:02",
    }
    ride = ok(ex, "set_default_payment_method", {"method_id": "pm_002", "scope": "ride"})
    assert ride["previous"] == WALLET
    assert query(ex, select(payment_defaults.c.method_id).where(payment_defaults.c.scope == "ride")) == [
        {"method_id": "pm_002"}
    ]


# ---- 7.6 Investments & Stocks -----------------------------------------------------------------


def test_get_stock_quote(ex: Executor) -> None:
    out = ok(ex, "get_stock_quote", {"symbol_or_name": "toyota"})
    assert (out["symbol"], out["currency"], out["market_open"]) == ("7203", "JPY", True)
    assert out["position"]["quantity"] == 100
    assert out["position"]["market_value"] == 100 * out["price"]
    assert out["change_pct"] == round(100 * (out["price"] - out["prev_close"]) / out["prev_close"], 2)
    msft = ok(ex, "get_stock_quote", {"symbol_or_name": "msft"})
    assert msft["name"] == "Microsoft Corp." and msft["position"] is None and msft["market_open"] is False
    assert diff(ex) == {}


def test_place_stock_order_sell_fills_while_open(ex: Executor) -> None:
    price = ok(ex, "get_stock_quote", {"symbol_or_name": "7203"})["price"]
    out = ok(ex, "place_stock_order", {"symbol": "7203", "side": "sell", "quantity": 40, "confirm": True})
    assert (out["status"], out["fill_price"], out["shares_held"]) == ("filled", price, 60)
    d = diff(ex)
    [order] = d["stock_orders"]["inserted"]
    assert (order["side"], order["quantity"], order["status"], order["txn_id"]) == ("sell", 40, "filled", out["txn_id"])
    [txn] = d["transactions"]["inserted"]
    assert (txn["method_id"], txn["amount"], txn["category"]) == (BROKERAGE, out["settled"], "investment")
    [(_, held)] = updated(d, "holdings")
    assert held["quantity"] == 60
    assert balance(ex, BROKERAGE) == round(25000 + out["settled"], 2)
    ok(ex, "place_stock_order", {"symbol": "7203", "side": "sell", "quantity": 60, "confirm": True})
    assert [h["symbol"] for h in diff(ex)["holdings"]["deleted"]] == ["7203"]  # nothing left: no row


def test_place_stock_order_buy_averages_cost(ex: Executor) -> None:
    before = query(ex, select(holdings).where(holdings.c.symbol == "7203"))[0]
    out = ok(
        ex,
        "place_stock_order",
        {"symbol": "7203", "side": "buy", "quantity": 100, "order_type": "limit", "limit_price": 9000, "confirm": True},
    )
    assert out["status"] == "filled" and out["shares_held"] == 200
    after = query(ex, select(holdings).where(holdings.c.symbol == "7203"))[0]
    assert after["avg_cost"] == round((before["avg_cost"] + out["fill_price"]) / 2, 4)
    assert balance(ex, BROKERAGE) == round(25000 - out["settled"], 2)
    new = ok(ex, "place_stock_order", {"symbol": "6758", "side": "buy", "quantity": 10, "confirm": True})
    assert new["status"] == "filled" and diff(ex)["holdings"]["inserted"][0]["symbol"] == "6758"


def test_place_stock_order_queued(ex: Executor) -> None:
    closed = ok(ex, "place_stock_order", {"symbol": "aapl", "side": "buy", "quantity": 5, "confirm": True})
    assert (closed["status"], closed["symbol"], closed["txn_id"]) == ("pending", "AAPL", None)
    assert "closed" in closed["note"]
    waiting = ok(
        ex,
        "place_stock_order",
        {"symbol": "7203", "side": "buy", "quantity": 10, "order_type": "limit", "limit_price": 100, "confirm": True},
    )
    assert waiting["status"] == "pending" and "limit" in waiting["note"]
    assert set(diff(ex)) == {"stock_orders"}
    ok(ex, "place_stock_order", {"symbol": "AAPL", "side": "sell", "quantity": 15, "confirm": True})
    payload = fails(
        ex,
        "place_stock_order",
        {"symbol": "AAPL", "side": "sell", "quantity": 6, "confirm": True},
        ErrorType.LIMIT_EXCEEDED,
    )
    assert payload["available"] == 5  # 20 held, 15 already queued for sale


def test_place_stock_order_limit_price_only_for_limit_orders(ex: Executor) -> None:
    fails(
        ex,
        "place_stock_order",
        {"symbol": "AAPL", "side": "buy", "quantity": 1, "limit_price": 100},
        ErrorType.INVALID_ARGUMENT_VALUE,
    )


# ---- 7.7 Currency & Bill Splitting ------------------------------------------------------------


def test_convert_currency(ex: Executor) -> None:
    def usd(quote: str, day: str) -> float:
        return float(
            query(
                ex, select(world_fx_rates.c.rate).where(world_fx_rates.c.quote == quote, world_fx_rates.c.date == day)
            )[0]["rate"]
        )

    out = ok(ex, "convert_currency", {"amount": 250, "from_currency": "EUR", "to_currency": "JPY"})
    assert out["date"] == "2025-06-13"
    assert out["converted"] == round(250 * usd("JPY", "2025-06-13") / usd("EUR", "2025-06-13"))  # yen: no minor unit
    old = ok(
        ex, "convert_currency", {"amount": 100, "from_currency": "USD", "to_currency": "CNY", "date": "2025-04-01"}
    )
    assert old["rate"] == usd("CNY", "2025-04-01")
    same = ok(ex, "convert_currency", {"amount": 7, "from_currency": "GBP", "to_currency": "GBP"})
    assert (same["rate"], same["converted"]) == (1.0, 7.0)
    assert diff(ex) == {}


def test_split_bill_equal(ex: Executor) -> None:
    out = ok(
        ex,
        "split_bill",
        {"total": 100, "currency": "CNY", "participant_ids": ["contact_001", "contact_007"], "note": "Lunch"},
    )
    assert (out["self_share"], out["shares"]) == (33.34, {"contact_001": 33.33, "contact_007": 33.33})
    d = diff(ex)
    assert set(d) == {"splits", "money_requests", "messages"}
    [split] = d["splits"]["inserted"]
    assert (split["split_id"], split["method"], split["include_self"], json.loads(split["shares_json"])) == (
        out["split_id"],
        "equal",
        1,
        out["shares"],
    )
    assert sorted((r["contact_id"], r["amount"], r["split_id"]) for r in d["money_requests"]["inserted"]) == [
        ("contact_001", 33.33, out["split_id"]),
        ("contact_007", 33.33, out["split_id"]),
    ]
    assert len(d["messages"]["inserted"]) == 2


def test_split_bill_without_self_and_custom(ex: Executor) -> None:
    out = ok(
        ex,
        "split_bill",
        {
            "total": 100,
            "currency": "CNY",
            "participant_ids": ["contact_001", "contact_007", "contact_008"],
            "include_self": False,
        },
    )
    assert out["self_share"] == 0.0 and sorted(out["shares"].values()) == [33.33, 33.33, 33.34]
    custom = ok(
        ex,
        "split_bill",
        {
            "total": 90,
            "currency": "CNY",
            "participant_ids": ["contact_001", "contact_007"],
            "method": "custom",
            "shares": {"contact_001": 50, "contact_007": 0},
        },
    )
    assert custom["self_share"] == 40.0 and [r["contact_id"] for r in custom["requests"]] == ["contact_001"]


@pytest.mark.parametrize(
    "args",
    [
        {"method": "custom"},
        {"shares": {"contact_001": 10, "contact_007": 10}},
        {"method": "custom", "shares": {"contact_001": 10}},
        {"method": "custom", "shares": {"contact_001": 80, "contact_007": 30}},
        {"method": "custom", "include_self": False, "shares": {"contact_001": 10, "contact_007": 10}},
        {"participant_ids": ["contact_001", "contact_001"]},
    ],
)
def test_split_bill_share_rules(ex: Executor, args: dict[str, Any]) -> None:
    base = {"total": 100, "currency": "CNY", "participant_ids": ["contact_001", "contact_007"]}
    fails(ex, "split_bill", {**base, **args}, ErrorType.INVALID_ARGUMENT_VALUE)


# ---- declared errors --------------------------------------------------------------------------


def frozen(method_id: str) -> Executable:
    return update(payment_methods).where(payment_methods.c.method_id == method_id).values(status="frozen")


RECENT_TRANSFER = insert(transfers).values(
    transfer_id="transfer_900",
    from_account_id="acct_001",
    recipient_key="contact_001",
    recipient_name="Lily Chen",
    contact_id="contact_001",
    amount=100.0,
    currency="CNY",
    debit_amount=100.0,
    value_date="2025-06-13",
    status="completed",
    created_at="2025-06-13T08:57:00",
)
SAME_CARD = [
    insert(payment_methods).values(
        method_id="pm_900",
        kind="card",
        nickname="Old Visa",
        last4="1111",
        status="active",
        is_default=0,
        balance=100.0,
        currency="CNY",
    ),
    insert(card_details).values(method_id="pm_900", brand="Visa", expiry="12/27", holder_name="Wang Lei"),
]
TRANSFER = {"recipient": "contact_001", "amount": 100, "currency": "CNY"}
ORDER = {"symbol": "7203", "side": "buy", "quantity": 1, "confirm": True}

# (tool, arguments, statements run first, expected error)
ERROR_CASES: list[tuple[str, dict[str, Any], list[Executable], ErrorType]] = [
    ("get_account_balance", {"account_id": "acct_999"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("list_transactions", {"account_id": "pm_999"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("transfer_money", {**TRANSFER, "scheduled_date": "2025-06-12"}, [], ErrorType.INVALID_ARGUMENT_VALUE),
    ("transfer_money", {**TRANSFER, "recipient": "acct_001"}, [], ErrorType.INVALID_ARGUMENT_VALUE),
    ("transfer_money", {**TRANSFER, "recipient": "contact_999"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("transfer_money", {**TRANSFER, "recipient": "Nobody Atall"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("transfer_money", {**TRANSFER, "currency": "XYZ"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("transfer_money", {**TRANSFER, "recipient": "Alex"}, [], ErrorType.AMBIGUOUS_ENTITY),
    ("transfer_money", TRANSFER, [frozen(CHECKING)], ErrorType.STATE_CONFLICT),
    ("transfer_money", TRANSFER, [RECENT_TRANSFER], ErrorType.DUPLICATE_ENTITY),
    ("transfer_money", {**TRANSFER, "amount": 50000, "confirm": True}, [], ErrorType.LIMIT_EXCEEDED),
    ("transfer_money", {**TRANSFER, "amount": 3500}, [], ErrorType.CONFIRMATION_REQUIRED),
    (
        "request_money",
        {"from_contact_id": "contact_007", "amount": 5, "currency": "CNY", "due_date": "2025-06-01"},
        [],
        ErrorType.INVALID_ARGUMENT_VALUE,
    ),
    (
        "request_money",
        {"from_contact_id": "contact_999", "amount": 5, "currency": "CNY"},
        [],
        ErrorType.ENTITY_NOT_FOUND,
    ),
    (
        "request_money",
        {"from_contact_id": "contact_007", "amount": 380, "currency": "CNY"},
        [],
        ErrorType.DUPLICATE_ENTITY,
    ),
    ("pay_bill", {"bill_id": GAS_OVERDUE, "amount": 500}, [], ErrorType.INVALID_ARGUMENT_VALUE),
    ("pay_bill", {"bill_id": "bill_999"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("pay_bill", {"bill_id": GAS_OVERDUE, "account_id": "acct_999"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("pay_bill", {"bill_id": RENT_PAID}, [], ErrorType.STATE_CONFLICT),
    ("pay_bill", {"bill_id": GAS_OVERDUE}, [frozen(CHECKING)], ErrorType.STATE_CONFLICT),
    ("pay_bill", {"bill_id": RENT_DUE, "account_id": "acct_003", "confirm": True}, [], ErrorType.LIMIT_EXCEEDED),
    ("pay_bill", {"bill_id": RENT_DUE}, [], ErrorType.CONFIRMATION_REQUIRED),
    ("set_budget", {"category": "food", "monthly_limit": 2000}, [], ErrorType.DUPLICATE_ENTITY),
    ("get_budget_status", {"category": "health"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("add_payment_card", {**NEW_CARD, "expiry": "05/25"}, [], ErrorType.INVALID_ARGUMENT_VALUE),
    ("add_payment_card", NEW_CARD, SAME_CARD, ErrorType.DUPLICATE_ENTITY),
    ("freeze_card", {"card_id": "pm_999", "frozen": True}, [], ErrorType.ENTITY_NOT_FOUND),
    ("freeze_card", {"card_id": CHECKING, "frozen": True}, [], ErrorType.ENTITY_NOT_FOUND),
    ("freeze_card", {"card_id": "pm_002", "frozen": False}, [], ErrorType.STATE_CONFLICT),
    ("set_default_payment_method", {"method_id": "pm_999"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("set_default_payment_method", {"method_id": "pm_002"}, [], ErrorType.STATE_CONFLICT),
    ("set_default_payment_method", {"method_id": "pm_001"}, [frozen("pm_001")], ErrorType.STATE_CONFLICT),
    ("get_stock_quote", {"symbol_or_name": "Zzyzx Holdings"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("get_stock_quote", {"symbol_or_name": "Alphabet"}, [], ErrorType.AMBIGUOUS_ENTITY),
    ("place_stock_order", {**ORDER, "order_type": "limit"}, [], ErrorType.MISSING_REQUIRED_ARGUMENT),
    ("place_stock_order", {**ORDER, "symbol": "ZZZZ"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("place_stock_order", ORDER, [frozen(BROKERAGE)], ErrorType.STATE_CONFLICT),
    ("place_stock_order", {**ORDER, "side": "sell", "quantity": 101}, [], ErrorType.LIMIT_EXCEEDED),
    ("place_stock_order", {**ORDER, "quantity": 1000}, [], ErrorType.LIMIT_EXCEEDED),
    ("place_stock_order", {**ORDER, "confirm": False}, [], ErrorType.CONFIRMATION_REQUIRED),
    ("convert_currency", {"amount": 1, "from_currency": "XYZ", "to_currency": "USD"}, [], ErrorType.ENTITY_NOT_FOUND),
    (
        "convert_currency",
        {"amount": 1, "from_currency": "EUR", "to_currency": "USD", "date": "2025-06-14"},
        [],
        ErrorType.ENTITY_NOT_FOUND,
    ),
    (
        "convert_currency",
        {"amount": 1, "from_currency": "EUR", "to_currency": "USD", "date": "2024-01-01"},
        [],
        ErrorType.ENTITY_NOT_FOUND,
    ),
    (
        "split_bill",
        {"total": 10, "currency": "CNY", "participant_ids": ["contact_001", "contact_999"]},
        [],
        ErrorType.ENTITY_NOT_FOUND,
    ),
]


@pytest.mark.parametrize(
    ("name", "args", "before", "error"),
    ERROR_CASES,
    ids=[f"{c[0]}-{c[3].value}-{i}" for i, c in enumerate(ERROR_CASES)],
)
def test_declared_error_changes_nothing(
    ex: Executor,
    name: str,
    args: dict[str, Any],
    before: list[Executable],
    error: ErrorType,
) -> None:
    prepare(ex.conn, *before)
    fails(ex, name, args, error)


def test_every_declared_error_is_tested() -> None:
    declared = {(n, e) for n in FINANCE_TOOLS for e in REGISTRY[n].errors}
    assert {(c[0], c[3]) for c in ERROR_CASES} == declared


# ---- the executor's gates ---------------------------------------------------------------------


def test_bank_tools_need_the_bank_session(ex: Executor) -> None:
    prepare(ex.conn, update(apps).where(apps.c.app_id == "bank").values(logged_in=0))
    for name in ("get_account_balance", "list_bills", "transfer_money"):
        args = TRANSFER if name == "transfer_money" else {}
        payload = fails(ex, name, args, ErrorType.AUTHENTICATION_REQUIRED)
        assert payload["app_id"] == "bank"
        assert "call_gui_agent(app_id='bank')" in payload["hint"] and "verification code" in payload["hint"]
    assert ok(ex, "freeze_card", {"card_id": "pm_001", "frozen": True})["status"] == "frozen"  # wallet app


def test_money_movement_needs_the_network(ex: Executor) -> None:
    prepare(
        ex.conn,
        *[update(device_settings).where(device_settings.c.key == k).values(value="0") for k in ("wifi", "mobile_data")],
    )
    fails(ex, "transfer_money", TRANSFER, ErrorType.NETWORK_UNAVAILABLE)
    fails(ex, "place_stock_order", ORDER, ErrorType.NETWORK_UNAVAILABLE)
    assert ok(ex, "get_account_balance", {})["accounts"]


def test_money_is_validated_as_money(ex: Executor) -> None:
    for amount in (0, -5, 10.001, 1e12):
        fails(ex, "transfer_money", {**TRANSFER, "amount": amount}, ErrorType.INVALID_ARGUMENT_VALUE)
    fails(ex, "transfer_money", {**TRANSFER, "currency": "cny"}, ErrorType.INVALID_ARGUMENT_VALUE)
    fails(ex, "transfer_money", {**TRANSFER, "amount": "100"}, ErrorType.INVALID_ARGUMENT_TYPE)


def test_frozen_card_cannot_become_a_default(ex: Executor) -> None:
    ok(ex, "freeze_card", {"card_id": "pm_002", "frozen": True, "reason": "stolen"})
    fails(ex, "set_default_payment_method", {"method_id": "pm_002", "scope": "dining"}, ErrorType.STATE_CONFLICT)
