"""The finance domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, Field
from sqlalchemy import (
    bindparam,
    delete,
    func,
    insert,
    select,
    update,
)

from sandbox.domains.common import charge, payment_method, payment_methods, transactions
from sandbox.domains.communication.schema import contacts, messages
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
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, normalise_phone, rows
from sandbox.locales import decimals, minor_units
from sandbox.tooling import PHONE_PATTERN, Date, tool

# ---- argument types ---------------------------------------------------------------------------

MAX_MONEY = 100_000_000.0


def _cents(value: float) -> float:
    if abs(value * 100 - round(value * 100)) > 1e-6:
        raise ValueError("money has at most 2 decimals")
    return round(value, 2)


Money = Annotated[float, Field(gt=0, le=MAX_MONEY), AfterValidator(_cents)]
Share = Annotated[float, Field(ge=0, le=MAX_MONEY), AfterValidator(_cents)]
Currency = Annotated[str, Field(pattern=r"^[A-Z]{3}$", json_schema_extra={"format": "ISO-4217"})]
Month = Annotated[str, Field(pattern=r"^\d{4}-(0[1-9]|1[0-2])$")]
Id = Annotated[str, Field(min_length=1, max_length=64)]
Ref = Annotated[str, Field(min_length=1, max_length=120)]
Note = Annotated[str, Field(min_length=1, max_length=300)]
BudgetCategory = Literal["food", "transport", "shopping", "entertainment", "bills", "health", "travel", "other"]
BUDGET_CATEGORIES: tuple[str, ...] = get_args(BudgetCategory)
Scope = Literal["all", "shop", "ride", "travel", "dining"]

IBAN = re.compile(r"^[A-Z]{2}[0-9]{2}[A-Z0-9]{8,30}$")
FX_BASE = "USD"  # world_fx_rates.base
# Transaction categories other apps write, as budget categories; money that is not spending is left out.
CATEGORY_ALIASES = {
    "dining": "food",
    "groceries": "food",
    "restaurant": "food",
    "delivery": "food",
    "food_delivery": "food",
    "ride": "transport",
    "taxi": "transport",
    "fuel": "transport",
    "parking": "transport",
    "charging": "transport",
    "flight": "travel",
    "hotel": "travel",
    "train": "travel",
    "utilities": "bills",
    "subscription": "entertainment",
    "tickets": "entertainment",
    "events": "entertainment",
    "medical": "health",
    "pharmacy": "health",
    "fitness": "health",
}
NOT_SPENDING = frozenset({"transfer", "income", "investment"})
NEW_CARD_CREDIT = 10_000.0  # spending power a newly added card is given in the sandbox


def _budget_category(category: str) -> str | None:
    c = category.lower()
    if c in NOT_SPENDING:
        return None
    return c if c in BUDGET_CATEGORIES else CATEGORY_ALIASES.get(c, "other")


# ---- shared helpers ---------------------------------------------------------------------------


def _today(ctx: Ctx) -> str:
    return ctx.now.date().isoformat()


def _not_past(ctx: Ctx, day: str | None, field: str) -> None:
    if day is not None and day < _today(ctx):
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE, f"{field} {day} is in the past", fields=[field], today=_today(ctx)
        )


_ACCOUNTS = (
    select(bank_accounts, payment_methods.c.balance, payment_methods.c.currency, payment_methods.c.status)
    .join(payment_methods, bank_accounts.c.method_id == payment_methods.c.method_id)
    .order_by(bank_accounts.c.account_id)
)
_ACCOUNT = _ACCOUNTS.where(bank_accounts.c.account_id == bindparam("account_id"))
_CHECKING_ACCOUNT = _ACCOUNTS.where(bank_accounts.c.type == "checking")


def _account(ctx: Ctx, account_id: Id | None = None) -> dict[str, Any]:
    """A bank account with its balance, currency and status; default: the main checking account."""
    row = (
        ctx.conn.execute(_ACCOUNT, {"account_id": account_id}) if account_id else ctx.conn.execute(_CHECKING_ACCOUNT)
    ).first()
    if row is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no bank account {account_id!r}" if account_id else "no checking account",
            field="account_id",
            hint="get_account_balance",
        )
    return dict(row._mapping)


def _usable(account: dict[str, Any]) -> None:
    if account["status"] != "active":
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"account {account['account_id']} is {account['status']}",
            account_id=account["account_id"],
        )


def _funds(account: dict[str, Any], amount: float) -> None:
    if amount > account["balance"]:
        raise ToolError(
            ErrorType.LIMIT_EXCEEDED,
            f"{account['name']} has {account['balance']:.2f} {account['currency']}, {amount:.2f} needed",
            account_id=account["account_id"],
            available=account["balance"],
        )


def _confirmed(confirm: bool, what: str, **details: Any) -> None:
    if not confirm:
        raise ToolError(
            ErrorType.CONFIRMATION_REQUIRED,
            f"{what} needs the user's confirmation",
            hint="ask_user(kind=confirm), then retry with confirm=true",
            **details,
        )


_FX_QUOTE = select(world_fx_rates.c.quote).where(world_fx_rates.c.quote == bindparam("quote")).limit(1)
_FX_RATE_ON = (
    select(world_fx_rates.c.rate)
    .where(world_fx_rates.c.quote == bindparam("quote"), world_fx_rates.c.date <= bindparam("day"))
    .order_by(world_fx_rates.c.date.desc())
    .limit(1)
)


def _usd_rate(ctx: Ctx, currency: str, day: str) -> float:
    """Units of ``currency`` per US dollar on ``day`` (the latest stored rate on or before it)."""
    if currency == FX_BASE:
        return 1.0
    known = ctx.conn.execute(_FX_QUOTE, {"quote": currency}).first()
    if known is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no exchange rates for currency {currency!r}",
            field="currency",
            known=_currencies(ctx),
        )
    rate = ctx.conn.execute(_FX_RATE_ON, {"quote": currency, "day": day}).scalar()
    if rate is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no exchange rate for {currency} on {day}", field="date")
    return float(rate)


def _known_currency(ctx: Ctx, currency: str) -> None:
    """EntityNotFound unless the sandbox has exchange rates for ``currency``."""
    _usd_rate(ctx, currency, _today(ctx))


_FX_QUOTES = select(world_fx_rates.c.quote).distinct()


def _currencies(ctx: Ctx) -> list[str]:
    quotes = ctx.conn.execute(_FX_QUOTES).scalars()
    return sorted({FX_BASE, *quotes})


def _convert(ctx: Ctx, amount: float, source: str, target: str, day: str | None = None) -> tuple[float, float]:
    """(amount in ``target``, rate) at the sandbox rates of ``day`` (default today)."""
    day = day or _today(ctx)
    rate = _usd_rate(ctx, target, day) / _usd_rate(ctx, source, day)
    return minor_units(amount * rate, target), round(rate, 6)


_BALANCE_AND_CURRENCY = select(payment_methods.c.balance, payment_methods.c.currency).where(
    payment_methods.c.method_id == bindparam("method_id")
)
_SET_PAYMENT_METHOD = update(payment_methods).where(payment_methods.c.method_id == bindparam("match_method_id"))
_ADD_TRANSACTION = insert(transactions)


def _credit(ctx: Ctx, method_id: str, amount: float, merchant: str, category: str, ref_id: str) -> str:
    """Money in: raise a payment method's balance and record the transaction."""
    balance, currency = ctx.conn.execute(_BALANCE_AND_CURRENCY, {"method_id": method_id}).one()
    ctx.conn.execute(
        _SET_PAYMENT_METHOD,
        {"match_method_id": method_id, "balance": round(balance + amount, 2), "updated_at": ctx.ts()},
    )
    txn_id = ctx.new_id(transactions)
    ctx.conn.execute(
        _ADD_TRANSACTION,
        {
            "txn_id": txn_id,
            "method_id": method_id,
            "amount": round(amount, 2),
            "currency": currency,
            "merchant": merchant,
            "category": category,
            "ref_id": ref_id,
            "ts": ctx.ts(),
            "status": "posted",
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return txn_id


_BALANCE = select(payment_methods.c.balance).where(payment_methods.c.method_id == bindparam("method_id"))


def _balance(ctx: Ctx, method_id: str) -> float:
    return float(ctx.conn.execute(_BALANCE, {"method_id": method_id}).scalar() or 0.0)


_CONTACT = select(contacts).where(contacts.c.contact_id == bindparam("contact_id"))


def _contact(ctx: Ctx, contact_id: str) -> dict[str, Any]:
    row = ctx.conn.execute(_CONTACT, {"contact_id": contact_id}).first()
    if row is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no contact {contact_id!r}", field="contact_id", hint="search_contacts"
        )
    return dict(row._mapping)


_CONTACTS_NAMED = select(contacts).where(func.lower(contacts.c.name) == bindparam("name"))


def _contact_by_name(ctx: Ctx, name: str) -> dict[str, Any]:
    """The one contact whose name is ``name`` or contains all its words; else NotFound / Ambiguous."""
    c = contacts.c
    exact = rows(ctx.conn.execute(_CONTACTS_NAMED, {"name": name.lower()}))
    found = exact or rows(
        ctx.conn.execute(
            select(contacts)
            .where(*(func.lower(c.name).contains(w, autoescape=True) for w in name.lower().split()))
            .order_by(c.contact_id)
        )
    )
    if not found:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no contact, account or phone number matches {name!r}",
            field="recipient",
            hint="search_contacts",
        )
    if len(found) > 1:
        raise ToolError(
            ErrorType.AMBIGUOUS_ENTITY,
            f"{len(found)} contacts match {name!r}",
            field="recipient",
            candidates=[{k: p[k] for k in ("contact_id", "name", "phone_number")} for p in found],
        )
    return found[0]


_ADD_MESSAGE = insert(messages)


def _notify(ctx: Ctx, contact: dict[str, Any], text: str) -> str:
    """A chat message to the contact (money requests reach people this way)."""
    mid = ctx.new_id(messages)
    ctx.conn.execute(
        _ADD_MESSAGE,
        {
            "message_id": mid,
            "channel": "chat",
            "direction": "out",
            "counterpart": normalise_phone(contact["phone_number"]),
            "contact_id": contact["contact_id"],
            "body": text,
            "is_read": 1,
            "status": "sent",
            "sent_at": ctx.ts(),
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return mid


_ADD_MONEY_REQUEST = insert(money_requests)


def _request(
    ctx: Ctx,
    contact: dict[str, Any],
    amount: float,
    currency: str,
    note: str | None,
    due_date: str | None = None,
    split_id: str | None = None,
) -> dict[str, Any]:
    rid = ctx.new_id(money_requests)
    ctx.conn.execute(
        _ADD_MONEY_REQUEST,
        {
            "request_id": rid,
            "contact_id": contact["contact_id"],
            "amount": amount,
            "currency": currency,
            "note": note,
            "due_date": due_date,
            "status": "open",
            "split_id": split_id,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    text = (
        f"Payment request: {amount:.2f} {currency}"
        + (f" for {note}" if note else "")
        + (f", due {due_date}" if due_date else "")
        + f" ({rid})"
    )
    message_id = _notify(ctx, contact, text)
    return {
        "request_id": rid,
        "contact_id": contact["contact_id"],
        "name": contact["name"],
        "amount": amount,
        "currency": currency,
        "message_id": message_id,
    }


# ---- Balances & Transactions (7.1) ------------------------------------------------------------

ACCOUNT_KEYS = (
    "account_id",
    "name",
    "type",
    "account_no",
    "balance",
    "currency",
    "status",
    "method_id",
    "confirm_threshold",
    "daily_limit",
)
CARD_KEYS = ("method_id", "nickname", "brand", "last4", "expiry", "status", "is_default", "balance", "currency")
_CARDS = (
    select(payment_methods, card_details.c.brand, card_details.c.expiry)
    .outerjoin(card_details, card_details.c.method_id == payment_methods.c.method_id)
    .where(payment_methods.c.kind == "card")
    .order_by(payment_methods.c.method_id)
)
_DEFAULT_METHOD_ID = select(payment_methods.c.method_id).where(payment_methods.c.is_default == 1)
_SCOPE_DEFAULTS = select(payment_defaults.c.scope, payment_defaults.c.method_id).order_by(payment_defaults.c.scope)


@tool(l2="7.1", app="bank", mutating=False, needs_login=True, errors=(ErrorType.ENTITY_NOT_FOUND,))
def get_account_balance(ctx: Ctx, account_id: Id | None = None) -> dict[str, Any]:
    """Show the user's money: bank accounts and wallet with balances, the cards in the wallet (payment-method
    id, brand, last four digits, expiry, status, remaining credit) and the default payment methods.

    Args:
        account_id: Only this account or card: an account id (acct_901) or payment-method id (pm_901)
            (default: all of them).
    """
    found = rows(ctx.conn.execute(_ACCOUNTS))
    cards = [
        {k: c[k] for k in CARD_KEYS} | {"is_default": bool(c["is_default"])} for c in rows(ctx.conn.execute(_CARDS))
    ]
    if account_id:
        found = [a for a in found if account_id in (a["account_id"], a["method_id"])]
        cards = [c for c in cards if c["method_id"] == account_id]
        if not found and not cards:
            raise ToolError(
                ErrorType.ENTITY_NOT_FOUND,
                f"no bank account or card {account_id!r}",
                field="account_id",
                hint="get_account_balance without account_id lists them all",
            )
    totals: dict[str, float] = {}
    for acc in found:
        totals[acc["currency"]] = round(totals.get(acc["currency"], 0.0) + acc["balance"], 2)
    defaults = {"all": ctx.conn.execute(_DEFAULT_METHOD_ID).scalar(), **dict(ctx.conn.execute(_SCOPE_DEFAULTS).all())}
    return {
        "accounts": [{k: acc[k] for k in ACCOUNT_KEYS} for acc in found],
        "totals": totals,
        "cards": cards,
        "default_payment_methods": defaults,
    }


_METHOD_ID = select(payment_methods.c.method_id).where(payment_methods.c.method_id == bindparam("method_id"))


def _method_id(ctx: Ctx, method_id: str) -> str:
    """The id of an existing payment method (frozen ones included)."""
    found = ctx.conn.execute(_METHOD_ID, {"method_id": method_id}).scalar()
    if found is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no account or payment method {method_id!r}",
            field="account_id",
            hint="get_account_balance",
        )
    return str(found)


def _range_checks(args: dict[str, Any]) -> str | None:
    """date_to is not before date_from; max_amount is not below min_amount."""
    if args.get("date_from") and args.get("date_to") and args["date_to"] < args["date_from"]:
        return "date_to is before date_from"
    if (
        args.get("min_amount") is not None
        and args.get("max_amount") is not None
        and args["max_amount"] < args["min_amount"]
    ):
        return "max_amount is below min_amount"
    return None


TXN_KEYS = ("txn_id", "ts", "amount", "currency", "merchant", "category", "method_id", "status", "ref_id")


@tool(l2="7.1", app="bank", mutating=False, needs_login=True, check=_range_checks, errors=(ErrorType.ENTITY_NOT_FOUND,))
def list_transactions(
    ctx: Ctx,
    account_id: Id | None = None,
    date_from: Date | None = None,
    date_to: Date | None = None,
    category: Ref | None = None,
    merchant: Ref | None = None,
    min_amount: Share | None = None,
    max_amount: Share | None = None,
    direction: Literal["debit", "credit"] | None = None,
    limit: Annotated[int, Field(ge=1, le=100)] = 20,
) -> dict[str, Any]:
    """List card and account transactions, newest first, with the totals of everything that matched.

    Args:
        account_id: Only this bank account (acct_901) or card/payment method (pm_901).
        date_from: Earliest day, YYYY-MM-DD.
        date_to: Latest day, YYYY-MM-DD.
        category: A transaction category (e.g. dining, transfer) or budget category (food, transport,
            shopping, entertainment, bills, health, travel, other).
        merchant: Part of the merchant or counterparty name (case-insensitive).
        min_amount: Smallest absolute amount.
        max_amount: Largest absolute amount.
        direction: debit (money out) or credit (money in).
        limit: Maximum number of transactions returned.
    """
    t = transactions.c
    q = select(transactions)
    if account_id:
        method_id = (
            _account(ctx, account_id)["method_id"] if account_id.startswith("acct_") else _method_id(ctx, account_id)
        )
        q = q.where(t.method_id == method_id)
    if date_from:
        q = q.where(t.ts >= date_from)
    if date_to:
        q = q.where(t.ts < date_to + "T99")
    if merchant:
        q = q.where(func.lower(t.merchant).contains(merchant.lower(), autoescape=True))
    if min_amount is not None:
        q = q.where(func.abs(t.amount) >= min_amount)
    if max_amount is not None:
        q = q.where(func.abs(t.amount) <= max_amount)
    if direction:
        q = q.where(t.amount < 0 if direction == "debit" else t.amount > 0)
    found = rows(ctx.conn.execute(q.order_by(t.ts.desc(), t.txn_id.desc())))
    if category:
        wanted = category.lower()
        found = [r for r in found if r["category"].lower() == wanted or _budget_category(r["category"]) == wanted]
    posted = [r for r in found if r["status"] == "posted"]
    return {
        "transactions": [{k: r[k] for k in TXN_KEYS} for r in found[:limit]],
        "count": min(len(found), limit),
        "total_matched": len(found),
        "total_debits": round(-sum(r["amount"] for r in posted if r["amount"] < 0), 2),
        "total_credits": round(sum(r["amount"] for r in posted if r["amount"] > 0), 2),
    }


# ---- Money Transfer (7.2) ---------------------------------------------------------------------

_ACCOUNT_ID_BY_NUMBER = select(bank_accounts.c.account_id).where(bank_accounts.c.account_no == bindparam("account_no"))
_CONTACT_BY_PHONE = select(contacts).where(contacts.c.phone_number == bindparam("phone_number"))


def _recipient(ctx: Ctx, ref: str) -> dict[str, Any]:
    """Resolve a recipient: own account id, contact id, IBAN-style account number, phone number or name."""
    if ref.startswith("acct_"):
        own = _account(ctx, ref)
        return {"key": ref, "name": own["name"], "contact_id": None, "own": own}
    if ref.startswith("contact_"):
        c = _contact(ctx, ref)
        return {"key": ref, "name": c["name"], "contact_id": ref, "own": None}
    compact = ref.replace(" ", "").upper()
    if IBAN.match(compact):
        mine = ctx.conn.execute(_ACCOUNT_ID_BY_NUMBER, {"account_no": compact}).scalar()
        if mine:
            return _recipient(ctx, mine)
        return {"key": compact, "name": f"account {compact[:4]}…{compact[-4:]}", "contact_id": None, "own": None}
    if re.match(PHONE_PATTERN, ref):
        number = normalise_phone(ref)
        c_row = ctx.conn.execute(_CONTACT_BY_PHONE, {"phone_number": number}).first()
        if c_row is not None:
            return {"key": c_row.contact_id, "name": c_row.name, "contact_id": c_row.contact_id, "own": None}
        return {"key": number, "name": number, "contact_id": None, "own": None}
    c = _contact_by_name(ctx, ref)
    return {"key": c["contact_id"], "name": c["name"], "contact_id": c["contact_id"], "own": None}


DUPLICATE_WINDOW = dt.timedelta(minutes=5)
_RECENT_TRANSFER = select(transfers.c.transfer_id).where(
    transfers.c.recipient_key == bindparam("recipient_key"),
    transfers.c.amount == bindparam("amount"),
    transfers.c.currency == bindparam("currency"),
    transfers.c.created_at >= bindparam("since"),
)
_SENT_TO_OTHERS_ON = select(func.coalesce(func.sum(transfers.c.debit_amount), 0.0)).where(
    transfers.c.from_account_id == bindparam("from_account_id"),
    transfers.c.value_date == bindparam("value_date"),
    transfers.c.recipient_key.not_like("acct\\_%", escape="\\"),
)
_ADD_TRANSFER = insert(transfers)


@tool(
    l2="7.2",
    app="bank",
    mutating=True,
    network="internet",
    needs_login=True,
    errors=(
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.AMBIGUOUS_ENTITY,
        ErrorType.STATE_CONFLICT,
        ErrorType.DUPLICATE_ENTITY,
        ErrorType.LIMIT_EXCEEDED,
        ErrorType.CONFIRMATION_REQUIRED,
    ),
)
def transfer_money(
    ctx: Ctx,
    recipient: Ref,
    amount: Money,
    currency: Currency,
    from_account_id: Id | None = None,
    note: Note | None = None,
    scheduled_date: Date | None = None,
    confirm: bool = False,
) -> dict[str, Any]:
    """Send money to a contact, phone number or bank account, or move it between the user's own accounts.

    Amounts in another currency than the source account's are converted at the sandbox rate. A
    transfer to someone else at or above the account's confirm_threshold needs confirm=true, and
    the day's transfers to others may not exceed its daily_limit.

    Args:
        recipient: A contact id (contact_904), a contact's name, a phone number, an IBAN-style account
            number (e.g. CN12BANK0000123456), or one of the user's own account ids (acct_902).
        amount: Amount to send (at most 2 decimals).
        currency: ISO-4217 currency of the amount, e.g. CNY, USD.
        from_account_id: Account to send from (default: the main checking account).
        note: Message shown to the recipient.
        scheduled_date: Send on this later day, YYYY-MM-DD (default: now).
        confirm: Set true only after the user confirmed this transfer.
    """
    _not_past(ctx, scheduled_date, "scheduled_date")
    source = _account(ctx, from_account_id)
    to = _recipient(ctx, recipient)
    debit, rate = _convert(ctx, amount, currency, source["currency"])
    _usable(source)
    if to["own"] and to["own"]["account_id"] == source["account_id"]:
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, "cannot transfer an account to itself", fields=["recipient"])
    if to["own"]:
        _usable(to["own"])
    since = (ctx.now - DUPLICATE_WINDOW).strftime("%Y-%m-%dT%H:%M:%S")
    recent = ctx.conn.execute(
        _RECENT_TRANSFER, {"recipient_key": to["key"], "amount": amount, "currency": currency, "since": since}
    ).scalar()
    if recent:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"the same transfer was just made: {recent}", existing_id=recent)
    value_date = scheduled_date or _today(ctx)
    if value_date == _today(ctx):
        _funds(source, debit)
    if not to["own"]:
        sent = (
            ctx.conn.execute(
                _SENT_TO_OTHERS_ON, {"from_account_id": source["account_id"], "value_date": value_date}
            ).scalar()
            or 0.0
        )
        if sent + debit > source["daily_limit"]:
            raise ToolError(
                ErrorType.LIMIT_EXCEEDED,
                f"the daily transfer limit of {source['daily_limit']:.2f} "
                f"{source['currency']} would be exceeded ({sent:.2f} already sent on {value_date})",
                daily_limit=source["daily_limit"],
                already_sent=sent,
            )
        if debit >= source["confirm_threshold"]:
            _confirmed(
                confirm, f"a transfer of {debit:.2f} {source['currency']}", threshold=source["confirm_threshold"]
            )
    transfer_id = ctx.new_id(transfers)
    txn_id = None
    if value_date == _today(ctx):
        txn_id = charge(ctx, debit, to["name"], "transfer", transfer_id, source["method_id"])
        if to["own"]:
            credit, _ = _convert(ctx, amount, currency, to["own"]["currency"])
            _credit(ctx, to["own"]["method_id"], credit, source["name"], "transfer", transfer_id)
    status = "completed" if txn_id else "scheduled"
    ctx.conn.execute(
        _ADD_TRANSFER,
        {
            "transfer_id": transfer_id,
            "from_account_id": source["account_id"],
            "recipient_key": to["key"],
            "recipient_name": to["name"],
            "contact_id": to["contact_id"],
            "amount": amount,
            "currency": currency,
            "debit_amount": debit,
            "note": note,
            "value_date": value_date,
            "status": status,
            "txn_id": txn_id,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {
        "transfer_id": transfer_id,
        "status": status,
        "recipient": {"key": to["key"], "name": to["name"]},
        "amount": amount,
        "currency": currency,
        "from_account_id": source["account_id"],
        "debited": debit,
        "account_currency": source["currency"],
        "rate": rate,
        "value_date": value_date,
        "txn_id": txn_id,
        "balance_after": _balance(ctx, source["method_id"]),
    }


_OPEN_REQUEST = select(money_requests.c.request_id).where(
    money_requests.c.contact_id == bindparam("contact_id"),
    money_requests.c.amount == bindparam("amount"),
    money_requests.c.currency == bindparam("currency"),
    money_requests.c.status == "open",
)


@tool(
    l2="7.2",
    app="bank",
    mutating=True,
    network="internet",
    needs_login=True,
    errors=(ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY),
)
def request_money(
    ctx: Ctx,
    from_contact_id: Id,
    amount: Money,
    currency: Currency,
    note: Note | None = None,
    due_date: Date | None = None,
) -> dict[str, Any]:
    """Ask a contact to pay the user an amount; they get a payment request in chat.

    Args:
        from_contact_id: Contact who should pay, e.g. contact_907.
        amount: Amount requested (at most 2 decimals).
        currency: ISO-4217 currency, e.g. CNY.
        note: What the money is for.
        due_date: Pay by this day, YYYY-MM-DD.
    """
    _not_past(ctx, due_date, "due_date")
    contact = _contact(ctx, from_contact_id)
    _known_currency(ctx, currency)
    same = ctx.conn.execute(
        _OPEN_REQUEST, {"contact_id": from_contact_id, "amount": amount, "currency": currency}
    ).scalar()
    if same:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"{contact['name']} already has an open request for {amount:.2f} {currency}: {same}",
            existing_id=same,
        )
    return {**_request(ctx, contact, amount, currency, note, due_date), "status": "open"}


# ---- Bill Payment (7.3) -----------------------------------------------------------------------


def _bill_status(bill: dict[str, Any], today: str) -> str:
    if bill["status"] != "due":
        return str(bill["status"])
    return "overdue" if bill["due_date"] < today else "due"


def _bill_out(bill: dict[str, Any], today: str) -> dict[str, Any]:
    keep = (
        "bill_id",
        "biller",
        "category",
        "customer_no",
        "amount",
        "amount_paid",
        "currency",
        "due_date",
        "scheduled_date",
        "paid_at",
    )
    return {
        **{k: bill[k] for k in keep},
        "amount_due": round(bill["amount"] - bill["amount_paid"], 2),
        "status": _bill_status(bill, today),
        "autopay": bool(bill["autopay"]),
    }


_BILLS = select(bills).order_by(bills.c.due_date, bills.c.bill_id)


@tool(l2="7.3", app="bank", mutating=False, needs_login=True)
def list_bills(ctx: Ctx, status: Literal["due", "overdue", "paid", "all"] = "due") -> dict[str, Any]:
    """List the user's bills with amounts and due dates, soonest due first (paid ones: latest first).

    Args:
        status: due = every unpaid bill (overdue and scheduled ones included), overdue = unpaid and past
            its due date, paid, or all.
    """
    today = _today(ctx)
    found = [_bill_out(b, today) for b in rows(ctx.conn.execute(_BILLS))]
    if status == "due":
        found = [b for b in found if b["status"] != "paid"]
    elif status != "all":
        found = [b for b in found if b["status"] == status]
    if status == "paid":
        found.reverse()
    return {
        "bills": found,
        "count": len(found),
        "total_due": round(sum(b["amount_due"] for b in found if b["status"] != "paid"), 2),
    }


_BILL = select(bills).where(bills.c.bill_id == bindparam("bill_id"))
_SET_BILL = update(bills).where(bills.c.bill_id == bindparam("match_bill_id"))


@tool(
    l2="7.3",
    app="bank",
    mutating=True,
    network="internet",
    needs_login=True,
    errors=(
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.STATE_CONFLICT,
        ErrorType.LIMIT_EXCEEDED,
        ErrorType.CONFIRMATION_REQUIRED,
    ),
)
def pay_bill(
    ctx: Ctx,
    bill_id: Id,
    amount: Money | None = None,
    account_id: Id | None = None,
    scheduled_date: Date | None = None,
    confirm: bool = False,
) -> dict[str, Any]:
    """Pay a bill now, or schedule its payment for a later day.

    Payments at or above the account's confirm_threshold need confirm=true.

    Args:
        bill_id: Id of the bill, e.g. bill_904.
        amount: Amount to pay (default: the whole amount due; at most the amount due).
        account_id: Account to pay from (default: the main checking account).
        scheduled_date: Pay on this later day, YYYY-MM-DD (default: now).
        confirm: Set true only after the user confirmed this payment.
    """
    _not_past(ctx, scheduled_date, "scheduled_date")
    row = ctx.conn.execute(_BILL, {"bill_id": bill_id}).first()
    if row is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no bill {bill_id!r}", field="bill_id", hint="list_bills")
    bill = dict(row._mapping)
    source = _account(ctx, account_id)
    if bill["status"] == "paid":
        raise ToolError(
            ErrorType.STATE_CONFLICT, f"{bill_id} ({bill['biller']}) is already paid", paid_at=bill["paid_at"]
        )
    if bill["status"] == "scheduled":
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"{bill_id} is already scheduled for {bill['scheduled_date']}",
            scheduled_date=bill["scheduled_date"],
        )
    _usable(source)
    due = round(bill["amount"] - bill["amount_paid"], 2)
    pay = amount if amount is not None else due
    if pay > due:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"{bill_id} has only {due:.2f} {bill['currency']} due",
            fields=["amount"],
            amount_due=due,
        )
    debit, _ = _convert(ctx, pay, bill["currency"], source["currency"])
    now = scheduled_date is None or scheduled_date == _today(ctx)
    if now:
        _funds(source, debit)
    if debit >= source["confirm_threshold"]:
        _confirmed(
            confirm, f"a bill payment of {debit:.2f} {source['currency']}", threshold=source["confirm_threshold"]
        )
    if now:
        txn_id = charge(ctx, debit, bill["biller"], "bills", bill_id, source["method_id"])
        paid = round(bill["amount_paid"] + pay, 2)
        done = paid >= bill["amount"]
        ctx.conn.execute(
            _SET_BILL,
            {
                "match_bill_id": bill_id,
                "amount_paid": paid,
                "status": "paid" if done else "due",
                "paid_at": ctx.ts() if done else None,
                "updated_at": ctx.ts(),
            },
        )
        return {
            "bill_id": bill_id,
            "status": "paid" if done else "partially_paid",
            "paid": pay,
            "amount_due": round(bill["amount"] - paid, 2),
            "currency": bill["currency"],
            "txn_id": txn_id,
            "account_id": source["account_id"],
            "balance_after": _balance(ctx, source["method_id"]),
        }
    ctx.conn.execute(
        _SET_BILL,
        {
            "match_bill_id": bill_id,
            "status": "scheduled",
            "scheduled_date": scheduled_date,
            "scheduled_amount": pay,
            "pay_from_account_id": source["account_id"],
            "updated_at": ctx.ts(),
        },
    )
    return {
        "bill_id": bill_id,
        "status": "scheduled",
        "scheduled_date": scheduled_date,
        "amount": pay,
        "currency": bill["currency"],
        "account_id": source["account_id"],
    }


# ---- Budgets & Expense Tracking (7.4) ---------------------------------------------------------

_BUDGET_FOR = select(budgets).where(budgets.c.category == bindparam("category"))
_ADD_BUDGET = insert(budgets)
_SET_BUDGET = update(budgets).where(budgets.c.budget_id == bindparam("match_budget_id"))


@tool(l2="7.4", app="bank", mutating=True, needs_login=True, errors=(ErrorType.DUPLICATE_ENTITY,))
def set_budget(
    ctx: Ctx,
    category: BudgetCategory,
    monthly_limit: Money,
    alert_pct: Annotated[int, Field(ge=50, le=100)] = 80,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Create a monthly spending budget for a category, or replace an existing one (overwrite=true).

    Args:
        category: Spending category the budget covers.
        monthly_limit: Most the user wants to spend in the category per calendar month, in the bank account's
            currency.
        alert_pct: Warn when spending reaches this percentage of the limit.
        overwrite: Set true to replace the category's existing budget.
    """
    existing = ctx.conn.execute(_BUDGET_FOR, {"category": category}).first()
    if existing is not None and not overwrite:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"a {category} budget of {existing.monthly_limit:.2f} exists: {existing.budget_id}",
            existing_id=existing.budget_id,
            hint="pass overwrite=true to replace it",
        )
    values = {"monthly_limit": monthly_limit, "alert_pct": alert_pct, "updated_at": ctx.ts()}
    if existing is None:
        budget_id = ctx.new_id(budgets)
        ctx.conn.execute(_ADD_BUDGET, {"budget_id": budget_id, "category": category, "created_at": ctx.ts(), **values})
    else:
        budget_id = existing.budget_id
        ctx.conn.execute(_SET_BUDGET, {"match_budget_id": budget_id, **values})
    previous = {"monthly_limit": existing.monthly_limit, "alert_pct": existing.alert_pct} if existing else None
    return {
        "budget_id": budget_id,
        "category": category,
        "monthly_limit": monthly_limit,
        "currency": _account(ctx)["currency"],
        "alert_pct": alert_pct,
        "replaced": previous,
    }


_BUDGETS = select(budgets).order_by(budgets.c.category)
_CATEGORY_BUDGETS = _BUDGETS.where(budgets.c.category == bindparam("category"))
_SPENT_BY_CATEGORY = (
    select(transactions.c.category, func.sum(transactions.c.amount))
    .where(
        transactions.c.status == "posted", transactions.c.amount < 0, transactions.c.ts.like(bindparam("month_pattern"))
    )
    .group_by(transactions.c.category)
)


@tool(l2="7.4", app="bank", mutating=False, needs_login=True, errors=(ErrorType.ENTITY_NOT_FOUND,))
def get_budget_status(ctx: Ctx, category: BudgetCategory | None = None, month: Month | None = None) -> dict[str, Any]:
    """Show spending against the monthly budgets for a month: spent, remaining, percent used, alert reached.

    Args:
        category: Only this category's budget (default: every budget).
        month: The month, YYYY-MM (default: the current month).
    """
    found = rows(
        ctx.conn.execute(_CATEGORY_BUDGETS, {"category": category}) if category else ctx.conn.execute(_BUDGETS)
    )
    if not found:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no budget for {category}" if category else "no budgets set",
            field="category",
            hint="set_budget",
        )
    month = month or ctx.now.strftime("%Y-%m")
    spent: dict[str, float] = {}
    for cat, total in ctx.conn.execute(_SPENT_BY_CATEGORY, {"month_pattern": f"{month}-%"}):
        bucket = _budget_category(cat)
        if bucket:
            spent[bucket] = spent.get(bucket, 0.0) - total
    out = []
    currency = _account(ctx)["currency"]
    for b in found:
        used = minor_units(spent.get(b["category"], 0.0), currency)
        pct = round(100 * used / b["monthly_limit"], 1)
        out.append(
            {
                "category": b["category"],
                "monthly_limit": b["monthly_limit"],
                "spent": used,
                "remaining": minor_units(b["monthly_limit"] - used, currency),
                "pct_used": pct,
                "alert_pct": b["alert_pct"],
                "alert_reached": pct >= b["alert_pct"],
                "over_budget": used > b["monthly_limit"],
            }
        )
    return {"month": month, "currency": currency, "budgets": out}


# ---- Cards & Wallet (7.5) ---------------------------------------------------------------------


def _digits(number: str) -> str:
    return re.sub(r"\D", "", number)


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def _card_checks(args: dict[str, Any]) -> str | None:
    """card_number has 13 to 19 digits and passes the Luhn check."""
    digits = _digits(args["card_number"])
    if not 13 <= len(digits) <= 19:
        return "card_number must have 13 to 19 digits"
    return None if _luhn_ok(digits) else "card_number fails the Luhn check (mistyped?)"


BRANDS = (
    ("4", "Visa"),
    ("5", "Mastercard"),
    ("2", "Mastercard"),
    ("34", "Amex"),
    ("37", "Amex"),
    ("62", "UnionPay"),
    ("35", "JCB"),
    ("6", "Discover"),
)


def _brand(digits: str) -> str:
    return next((name for prefix, name in BRANDS if digits.startswith(prefix)), "Card")


_PAYMENT_METHOD = select(payment_methods).where(payment_methods.c.method_id == bindparam("method_id"))


def _card(ctx: Ctx, method_id: str) -> dict[str, Any]:
    row = ctx.conn.execute(_PAYMENT_METHOD, {"method_id": method_id}).first()
    if row is None or row.kind != "card":
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no card {method_id!r}",
            field="card_id",
            hint="get_account_balance lists the cards in the wallet with their ids",
        )
    return dict(row._mapping)


_SAME_CARD = (
    select(payment_methods.c.method_id)
    .join(card_details, card_details.c.method_id == payment_methods.c.method_id)
    .where(payment_methods.c.last4 == bindparam("last4"), card_details.c.expiry == bindparam("expiry"))
)
_CLEAR_DEFAULT_METHOD = update(payment_methods).where(payment_methods.c.is_default == 1).values(is_default=0)
_ADD_PAYMENT_METHOD = insert(payment_methods)
_ADD_CARD_DETAILS = insert(card_details)


@tool(
    l2="7.5",
    app="wallet",
    mutating=True,
    errors=(ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.DUPLICATE_ENTITY),
    check=_card_checks,
)
def add_payment_card(
    ctx: Ctx,
    card_number: Annotated[str, Field(pattern=r"^[0-9][0-9 \-]{11,30}[0-9]$")],
    expiry: Annotated[str, Field(pattern=r"^(0[1-9]|1[0-2])/[0-9]{2}$")],
    holder_name: Annotated[str, Field(min_length=1, max_length=120)],
    nickname: Annotated[str, Field(min_length=1, max_length=60)] | None = None,
    set_default: bool = False,
) -> dict[str, Any]:
    """Add a credit or debit card to the wallet as a payment method.

    Args:
        card_number: The card number, 13 to 19 digits (spaces or dashes allowed).
        expiry: Expiry month as MM/YY.
        holder_name: Name printed on the card.
        nickname: Label for the card (default: brand and last four digits).
        set_default: Also make it the default payment method everywhere.
    """
    digits = _digits(card_number)
    month, year = int(expiry[:2]), 2000 + int(expiry[3:])
    if (year, month) < (ctx.now.year, ctx.now.month):
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, f"the card expired in {expiry}", fields=["expiry"])
    last4, brand = digits[-4:], _brand(digits)
    same = ctx.conn.execute(_SAME_CARD, {"last4": last4, "expiry": expiry}).scalar()
    if same:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"this card is already in the wallet: {same}", existing_id=same)
    if set_default:
        ctx.conn.execute(_CLEAR_DEFAULT_METHOD, {"updated_at": ctx.ts()})
    method_id = ctx.new_id(payment_methods)
    label = nickname or f"{brand} ••{last4}"
    ctx.conn.execute(
        _ADD_PAYMENT_METHOD,
        {
            "method_id": method_id,
            "kind": "card",
            "nickname": label,
            "last4": last4,
            "status": "active",
            "is_default": int(set_default),
            "balance": NEW_CARD_CREDIT,
            "currency": _account(ctx)["currency"],
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    ctx.conn.execute(
        _ADD_CARD_DETAILS,
        {
            "method_id": method_id,
            "brand": brand,
            "expiry": expiry,
            "holder_name": holder_name,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {
        "method_id": method_id,
        "brand": brand,
        "last4": last4,
        "expiry": expiry,
        "nickname": label,
        "is_default": set_default,
    }


_SET_CARD_DETAILS = update(card_details).where(card_details.c.method_id == bindparam("match_method_id"))


@tool(l2="7.5", app="wallet", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def freeze_card(ctx: Ctx, card_id: Id, frozen: bool, reason: Note | None = None) -> dict[str, Any]:
    """Freeze a card (it can no longer pay) or unfreeze it.

    Args:
        card_id: Payment-method id of the card, e.g. pm_901 (get_account_balance lists the cards).
        frozen: True to freeze, false to unfreeze.
        reason: Why, e.g. "lost" (kept with the card while frozen).
    """
    card = _card(ctx, card_id)
    status = "frozen" if frozen else "active"
    if card["status"] == status:
        raise ToolError(ErrorType.STATE_CONFLICT, f"{card['nickname']} ({card_id}) is already {status}", current=status)
    ctx.conn.execute(_SET_PAYMENT_METHOD, {"match_method_id": card_id, "status": status, "updated_at": ctx.ts()})
    ctx.conn.execute(
        _SET_CARD_DETAILS,
        {"match_method_id": card_id, "freeze_reason": reason if frozen else None, "updated_at": ctx.ts()},
    )
    return {"card_id": card_id, "nickname": card["nickname"], "status": status, "previous": card["status"]}


_SCOPE_DEFAULT_METHOD_ID = select(payment_defaults.c.method_id).where(payment_defaults.c.scope == bindparam("scope"))
_ADD_PAYMENT_DEFAULT = insert(payment_defaults)
_SET_PAYMENT_DEFAULT = update(payment_defaults).where(payment_defaults.c.scope == bindparam("match_scope"))


@tool(l2="7.5", app="wallet", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def set_default_payment_method(ctx: Ctx, method_id: Id, scope: Scope = "all") -> dict[str, Any]:
    """Make a card, account or wallet the default payment method, everywhere or for one kind of app.

    Args:
        method_id: Payment-method id, e.g. pm_901 (get_account_balance lists cards and accounts).
        scope: all (the global default) or only for shopping, ride, travel or dining apps.
    """
    method = payment_method(ctx, method_id)  # a frozen method cannot pay, so it cannot be the default
    if scope == "all":
        previous = ctx.conn.execute(_DEFAULT_METHOD_ID).scalar()
    else:
        previous = ctx.conn.execute(_SCOPE_DEFAULT_METHOD_ID, {"scope": scope}).scalar()
    if previous == method_id:
        raise ToolError(
            ErrorType.STATE_CONFLICT, f"{method['nickname']} is already the default ({scope})", current=method_id
        )
    if scope == "all":
        ctx.conn.execute(_CLEAR_DEFAULT_METHOD, {"updated_at": ctx.ts()})
        ctx.conn.execute(_SET_PAYMENT_METHOD, {"match_method_id": method_id, "is_default": 1, "updated_at": ctx.ts()})
    elif previous is None:
        ctx.conn.execute(
            _ADD_PAYMENT_DEFAULT,
            {"scope": scope, "method_id": method_id, "created_at": ctx.ts(), "updated_at": ctx.ts()},
        )
    else:
        ctx.conn.execute(_SET_PAYMENT_DEFAULT, {"match_scope": scope, "method_id": method_id, "updated_at": ctx.ts()})
    return {"method_id": method_id, "nickname": method["nickname"], "scope": scope, "previous": previous}


# ---- Investments & Stocks (7.6) ---------------------------------------------------------------


def _stock_out(stock: dict[str, Any]) -> dict[str, Any]:
    change = round(100 * (stock["price"] - stock["prev_close"]) / stock["prev_close"], 2)
    return {k: stock[k] for k in ("symbol", "name", "exchange", "currency", "price", "prev_close")} | {
        "change_pct": change,
        "market_open": bool(stock["market_open"]),
    }


_HOLDING = select(holdings).where(holdings.c.symbol == bindparam("symbol"))


def _holding(ctx: Ctx, symbol: str) -> dict[str, Any] | None:
    row = ctx.conn.execute(_HOLDING, {"symbol": symbol}).first()
    return dict(row._mapping) if row else None


_STOCKS_BY_SYMBOL = select(world_stocks).where(func.upper(world_stocks.c.symbol) == bindparam("symbol"))


@tool(
    l2="7.6",
    app="stocks",
    mutating=False,
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.AMBIGUOUS_ENTITY),
)
def get_stock_quote(ctx: Ctx, symbol_or_name: Ref) -> dict[str, Any]:
    """Get the current quote of a stock by ticker symbol or company name, with the user's position in it.

    Args:
        symbol_or_name: Ticker (AAPL, 600519, 7203) or part of the company name (e.g. "Toyota").
    """
    s = world_stocks.c
    found = rows(ctx.conn.execute(_STOCKS_BY_SYMBOL, {"symbol": symbol_or_name.upper()}))
    if not found:
        found = rows(
            ctx.conn.execute(
                select(world_stocks)
                .where(*(func.lower(s.name).contains(w, autoescape=True) for w in symbol_or_name.lower().split()))
                .order_by(s.symbol)
            )
        )
    if not found:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no stock matches {symbol_or_name!r}", field="symbol_or_name")
    if len(found) > 1:
        raise ToolError(
            ErrorType.AMBIGUOUS_ENTITY,
            f"{len(found)} stocks match {symbol_or_name!r}",
            field="symbol_or_name",
            candidates=[{k: x[k] for k in ("symbol", "name", "exchange")} for x in found],
        )
    stock = found[0]
    held = _holding(ctx, stock["symbol"])
    position = None
    if held:
        value = round(held["quantity"] * stock["price"], 2)
        position = {
            "quantity": held["quantity"],
            "avg_cost": held["avg_cost"],
            "market_value": value,
            "unrealized_pnl": round(value - held["quantity"] * held["avg_cost"], 2),
        }
    return {**_stock_out(stock), "position": position}


def _order_checks(args: dict[str, Any]) -> str | None:
    """limit_price is only for order_type=limit."""
    if args.get("limit_price") is not None and args.get("order_type", "market") == "market":
        return "limit_price is only for order_type=limit"
    return None


_BROKERAGE_ACCOUNT_ID = select(bank_accounts.c.account_id).where(bank_accounts.c.type == "brokerage")
_PENDING_SELLS = select(func.coalesce(func.sum(stock_orders.c.quantity), 0)).where(
    stock_orders.c.symbol == bindparam("symbol"), stock_orders.c.side == "sell", stock_orders.c.status == "pending"
)
_SET_HOLDING = update(holdings).where(holdings.c.symbol == bindparam("match_symbol"))
_ADD_HOLDING = insert(holdings)
_DROP_HOLDING = delete(holdings).where(holdings.c.symbol == bindparam("symbol"))
_ADD_STOCK_ORDER = insert(stock_orders)


@tool(
    l2="7.6",
    app="stocks",
    mutating=True,
    network="internet",
    check=_order_checks,
    errors=(
        ErrorType.MISSING_REQUIRED_ARGUMENT,
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.STATE_CONFLICT,
        ErrorType.LIMIT_EXCEEDED,
        ErrorType.CONFIRMATION_REQUIRED,
    ),
)
def place_stock_order(
    ctx: Ctx,
    symbol: Annotated[str, Field(min_length=1, max_length=12)],
    side: Literal["buy", "sell"],
    quantity: Annotated[int, Field(ge=1, le=1_000_000)],
    order_type: Literal["market", "limit"] = "market",
    limit_price: Money | None = None,
    confirm: bool = False,
) -> dict[str, Any]:
    """Buy or sell shares with the brokerage cash account; always needs confirm=true.

    A market order fills at the current price while the market is open and is queued (pending)
    while it is closed; a limit order fills only when the price is at or better than the limit.

    Args:
        symbol: Ticker symbol, e.g. AAPL (use get_stock_quote to find it).
        side: buy or sell.
        quantity: Number of shares.
        order_type: market or limit.
        limit_price: Highest buy / lowest sell price, in the stock's currency (required for limit orders).
        confirm: Set true only after the user confirmed this order.
    """
    if order_type == "limit" and limit_price is None:
        raise ToolError(ErrorType.MISSING_REQUIRED_ARGUMENT, "a limit order needs limit_price", fields=["limit_price"])
    row = ctx.conn.execute(_STOCKS_BY_SYMBOL, {"symbol": symbol.upper()}).first()
    if row is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no stock with symbol {symbol!r}", field="symbol", hint="get_stock_quote"
        )
    stock = dict(row._mapping)
    cash = ctx.conn.execute(_BROKERAGE_ACCOUNT_ID).scalar()
    if cash is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, "no brokerage cash account")
    account = _account(ctx, cash)
    _usable(account)
    price = stock["price"]
    worst = limit_price if limit_price is not None else price  # a market order takes the current price
    fills = bool(stock["market_open"]) and (worst >= price if side == "buy" else worst <= price)
    held = _holding(ctx, stock["symbol"])
    shares = held["quantity"] if held else 0
    total, _ = _convert(ctx, quantity * (price if fills else worst), stock["currency"], account["currency"])
    if side == "sell":
        pending = ctx.conn.execute(_PENDING_SELLS, {"symbol": stock["symbol"]}).scalar() or 0
        free = shares - pending
        if quantity > free:
            raise ToolError(
                ErrorType.LIMIT_EXCEEDED, f"only {free} {stock['symbol']} shares can be sold", available=free
            )
    else:
        _funds(account, total)
    _confirmed(
        confirm, f"{side} {quantity} {stock['symbol']}", estimated_total=total, account_currency=account["currency"]
    )
    order_id = ctx.new_id(stock_orders)
    txn_id = None
    if fills:
        label = f"{side.title()} {quantity} {stock['symbol']}"
        if side == "buy":
            txn_id = charge(ctx, total, label, "investment", order_id, account["method_id"])
            cost = held["avg_cost"] if held else 0.0
            avg = round((shares * cost + quantity * price) / (shares + quantity), 4)
            if held:
                ctx.conn.execute(
                    _SET_HOLDING,
                    {
                        "match_symbol": stock["symbol"],
                        "quantity": shares + quantity,
                        "avg_cost": avg,
                        "updated_at": ctx.ts(),
                    },
                )
            else:
                ctx.conn.execute(
                    _ADD_HOLDING,
                    {
                        "symbol": stock["symbol"],
                        "quantity": quantity,
                        "avg_cost": avg,
                        "created_at": ctx.ts(),
                        "updated_at": ctx.ts(),
                    },
                )
        else:
            txn_id = _credit(ctx, account["method_id"], total, label, "investment", order_id)
            left = shares - quantity
            if left:
                ctx.conn.execute(
                    _SET_HOLDING, {"match_symbol": stock["symbol"], "quantity": left, "updated_at": ctx.ts()}
                )
            else:
                ctx.conn.execute(_DROP_HOLDING, {"symbol": stock["symbol"]})
    status = "filled" if fills else "pending"
    ctx.conn.execute(
        _ADD_STOCK_ORDER,
        {
            "stock_order_id": order_id,
            "symbol": stock["symbol"],
            "side": side,
            "quantity": quantity,
            "order_type": order_type,
            "limit_price": limit_price,
            "fill_price": price if fills else None,
            "status": status,
            "txn_id": txn_id,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    after = _holding(ctx, stock["symbol"])
    return {
        "stock_order_id": order_id,
        "status": status,
        "symbol": stock["symbol"],
        "side": side,
        "quantity": quantity,
        "order_type": order_type,
        "limit_price": limit_price,
        "fill_price": price if fills else None,
        "currency": stock["currency"],
        "settled": total if fills else None,
        "account_currency": account["currency"],
        "txn_id": txn_id,
        "shares_held": after["quantity"] if after else 0,
        "note": None
        if fills
        else ("market closed: queued until it opens" if not stock["market_open"] else "limit not reached: waiting"),
    }


# ---- Currency & Bill Splitting (7.7) ----------------------------------------------------------


@tool(l2="7.7", app="utilities", mutating=False, errors=(ErrorType.ENTITY_NOT_FOUND,))
def convert_currency(
    ctx: Ctx,
    amount: Annotated[float, Field(ge=0, le=1e12)],
    from_currency: Currency,
    to_currency: Currency,
    date: Date | None = None,
) -> dict[str, Any]:
    """Convert an amount between currencies at the sandbox exchange rate of a day.

    Args:
        amount: Amount in from_currency.
        from_currency: ISO-4217 code, e.g. USD.
        to_currency: ISO-4217 code, e.g. CNY.
        date: Day of the rate, YYYY-MM-DD (default today).
    """
    day = date or _today(ctx)
    if day > _today(ctx):
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no exchange rates for the future day {day}", field="date")
    converted, rate = _convert(ctx, amount, from_currency, to_currency, day)
    return {
        "amount": amount,
        "from_currency": from_currency,
        "to_currency": to_currency,
        "rate": rate,
        "converted": converted,
        "date": day,
    }


def _split_checks(args: dict[str, Any]) -> str | None:
    """participant_ids has no duplicates; shares go only with method=custom, which needs them: one share for
    each of participant_ids, adding up to total (or less when include_self is true)."""
    people, shares = args["participant_ids"], args.get("shares")
    if len(set(people)) != len(people):
        return "participant_ids has duplicates"
    if args.get("method", "equal") == "equal":
        return "shares are only for method=custom" if shares is not None else None
    if shares is None:
        return "method=custom needs shares"
    if set(shares) != set(people):
        return "shares must name exactly the participant_ids"
    owed = round(sum(shares.values()), 2)
    if args.get("include_self", True):
        return None if owed <= args["total"] else "the shares add up to more than the total"
    return None if owed == args["total"] else f"the shares add up to {owed}, not the total {args['total']}"


_ADD_SPLIT = insert(splits)


@tool(
    l2="7.7",
    app="bank",
    mutating=True,
    network="internet",
    needs_login=True,
    check=_split_checks,
    errors=(ErrorType.ENTITY_NOT_FOUND,),
)
def split_bill(
    ctx: Ctx,
    total: Money,
    currency: Currency,
    participant_ids: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=64)]], Field(min_length=1, max_length=20)
    ],
    method: Literal["equal", "custom"] = "equal",
    shares: dict[str, Share] | None = None,
    include_self: bool = True,
    note: Note | None = None,
) -> dict[str, Any]:
    """Split an expense with contacts and send each of them a money request for their share.

    Args:
        total: The whole expense.
        currency: ISO-4217 currency, e.g. CNY.
        participant_ids: Contact ids of the people who owe a share, e.g. ["contact_901", "contact_907"].
        method: equal (everyone, the user too when include_self, pays the same) or custom (use shares).
        shares: For method=custom: {contact_id: amount} for every participant; with include_self the user
            pays the rest, otherwise the shares must add up to the total.
        include_self: Whether the user takes a share too.
        note: What the expense was, shown in the requests.
    """
    people = [_contact(ctx, cid) for cid in participant_ids]
    _known_currency(ctx, currency)
    if shares is None:
        heads = len(people) + int(include_self)
        coin = 10 ** decimals(currency)  # cents, or whole yen and won
        base = round(total * coin) // heads
        extra = round(total * coin) - base * heads  # leftover coins: the user's, else the first participants'
        coins = {p["contact_id"]: base + (1 if not include_self and i < extra else 0) for i, p in enumerate(people)}
        shares = {cid: c / coin for cid, c in coins.items()}
    self_share = minor_units(total - sum(shares.values()), currency)
    split_id = ctx.new_id(splits)
    ctx.conn.execute(
        _ADD_SPLIT,
        {
            "split_id": split_id,
            "total": total,
            "currency": currency,
            "method": method,
            "include_self": int(include_self),
            "self_share": self_share,
            "shares_json": json.dumps(shares, sort_keys=True),
            "note": note,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    requests = [
        _request(ctx, p, shares[p["contact_id"]], currency, note, split_id=split_id)
        for p in people
        if shares[p["contact_id"]] > 0
    ]
    return {
        "split_id": split_id,
        "total": total,
        "currency": currency,
        "self_share": self_share,
        "shares": shares,
        "requests": requests,
    }
