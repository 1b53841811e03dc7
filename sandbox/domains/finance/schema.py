"""The finance domain's data model: its tables, and the constants and types its tools and seeder share."""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Float,
    Integer,
    Text,
)

from sandbox.schema import USER, WORLD, stamps, table

bank_accounts = table(
    "bank_accounts",
    USER,
    Column("account_id", Text, primary_key=True),
    Column("method_id", Text, nullable=False),  # the payment_methods row holding its balance
    Column("name", Text, nullable=False),
    Column("type", Text, nullable=False),  # checking | savings | wallet | brokerage
    Column("account_no", Text, nullable=False),
    Column("confirm_threshold", Float, nullable=False),  # transfers/bill payments from here >= this need confirm
    Column("daily_limit", Float, nullable=False),  # total of outgoing transfers per day
    *stamps(),
    natural_key=("account_no",),
    id_prefix="acct",
)

card_details = table(
    "card_details",
    USER,
    Column("method_id", Text, primary_key=True),
    Column("brand", Text, nullable=False),
    Column("expiry", Text, nullable=False),  # MM/YY
    Column("holder_name", Text, nullable=False),
    Column("freeze_reason", Text),
    *stamps(),
    natural_key=("method_id",),
)

payment_defaults = table(  # per-app default payment methods; the global one is payment_methods.is_default
    "payment_defaults",
    USER,
    Column("scope", Text, primary_key=True),  # shop | ride | travel | dining
    Column("method_id", Text, nullable=False),
    *stamps(),
    natural_key=("scope",),
)

transfers = table(
    "transfers",
    USER,
    Column("transfer_id", Text, primary_key=True),
    Column("from_account_id", Text, nullable=False),
    Column("recipient_key", Text, nullable=False),  # contact id, normalised phone, account number or own acct id
    Column("recipient_name", Text, nullable=False),
    Column("contact_id", Text),
    Column("amount", Float, nullable=False),
    Column("currency", Text, nullable=False),
    Column("debit_amount", Float, nullable=False),  # in the source account's currency
    Column("note", Text),
    Column("value_date", Text, nullable=False),  # the day the money moves, YYYY-MM-DD
    Column("status", Text, nullable=False),  # completed | scheduled
    Column("txn_id", Text),
    *stamps(),
    natural_key=("recipient_key", "amount", "value_date"),
)

money_requests = table(
    "money_requests",
    USER,
    Column("request_id", Text, primary_key=True),
    Column("contact_id", Text, nullable=False),
    Column("amount", Float, nullable=False),
    Column("currency", Text, nullable=False),
    Column("note", Text),
    Column("due_date", Text),
    Column("status", Text, nullable=False),  # open | paid | declined
    Column("split_id", Text),
    *stamps(),
    natural_key=("contact_id", "amount", "note"),
)

bills = table(
    "bills",
    USER,
    Column("bill_id", Text, primary_key=True),
    Column("biller", Text, nullable=False),
    Column("category", Text, nullable=False),  # electricity | water | gas | internet | phone | rent | ...
    Column("customer_no", Text, nullable=False),
    Column("amount", Float, nullable=False),
    Column("amount_paid", Float, nullable=False),
    Column("currency", Text, nullable=False),
    Column("due_date", Text, nullable=False),
    Column("status", Text, nullable=False),  # due | scheduled | paid (overdue = due and past its due date)
    Column("autopay", Integer, nullable=False),
    Column("scheduled_date", Text),
    Column("scheduled_amount", Float),
    Column("pay_from_account_id", Text),
    Column("paid_at", Text),
    *stamps(),
    natural_key=("biller", "due_date"),
)

budgets = table(
    "budgets",
    USER,
    Column("budget_id", Text, primary_key=True),
    Column("category", Text, nullable=False),
    Column("monthly_limit", Float, nullable=False),
    Column("alert_pct", Integer, nullable=False),
    *stamps(),
    natural_key=("category",),
)

world_stocks = table(
    "world_stocks",
    WORLD,
    Column("symbol", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("exchange", Text, nullable=False),
    Column("currency", Text, nullable=False),
    Column("price", Float, nullable=False),
    Column("prev_close", Float, nullable=False),
    Column("market_open", Integer, nullable=False),
)

holdings = table(
    "holdings",
    USER,
    Column("symbol", Text, primary_key=True),
    Column("quantity", Integer, nullable=False),
    Column("avg_cost", Float, nullable=False),  # in the stock's currency
    *stamps(),
    natural_key=("symbol",),
)

stock_orders = table(
    "stock_orders",
    USER,
    Column("stock_order_id", Text, primary_key=True),
    Column("symbol", Text, nullable=False),
    Column("side", Text, nullable=False),  # buy | sell
    Column("quantity", Integer, nullable=False),
    Column("order_type", Text, nullable=False),  # market | limit
    Column("limit_price", Float),
    Column("fill_price", Float),
    Column("status", Text, nullable=False),  # filled | pending | cancelled
    Column("txn_id", Text),
    *stamps(),
    natural_key=("symbol", "side", "quantity"),
)

world_fx_rates = table(  # units of ``quote`` per one ``base`` (always USD), one row per day
    "world_fx_rates",
    WORLD,
    Column("base", Text, primary_key=True),
    Column("quote", Text, primary_key=True),
    Column("date", Text, primary_key=True),
    Column("rate", Float, nullable=False),
)

splits = table(
    "splits",
    USER,
    Column("split_id", Text, primary_key=True),
    Column("total", Float, nullable=False),
    Column("currency", Text, nullable=False),
    Column("method", Text, nullable=False),  # equal | custom
    Column("include_self", Integer, nullable=False),
    Column("self_share", Float, nullable=False),
    Column("shares_json", Text, nullable=False),  # {contact_id: amount}
    Column("note", Text),
    *stamps(),
)
