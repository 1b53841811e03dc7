"""Basic Tool Use families for Finance & Payments (D7): balances, transfers, bills, budgets, cards, stocks, FX."""

from __future__ import annotations

from typing import Any

from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import peek
from sandbox.locales import CURRENCIES, decimals, money_unit

ACCOUNTS = {
    "acct_001": ("checking", "pm_004"),
    "acct_002": ("savings", "pm_005"),
    "acct_003": ("wallet", "pm_003"),
    "acct_004": ("brokerage cash", "pm_006"),
}
NOTES = (
    "dinner",
    "concert tickets",
    "the taxi",
    "groceries",
    "rent share",
    "the gift for Sam",
    "movie night",
    "the hiking trip",
    "lunch",
    "the birthday cake",
)


def money(x: float, currency: str) -> str:
    return f"{x:,.2f} {currency}"


FILLER = frozenset({"the", "a", "an", "for", "to", "of", "my", "our"})


def said(text: str) -> dict[str, Any]:
    """A dictated note, however the model phrases it: each content word (a plural's stem) must be in it."""
    words = [w.lower().strip(".,") for w in text.split() if w.lower() not in FILLER]
    return {"$contains_all": [w[:-1] if w.endswith("s") and len(w) > 4 else w for w in words]}


def cur(g: Gen) -> str:
    return g.rows("payment_methods", {"method_id": "pm_002"})[0]["currency"]


def threshold(g: Gen) -> float:
    return g.rows("bank_accounts", {"account_id": "acct_001"})[0]["confirm_threshold"]


def unique_contact(g: Gen) -> dict[str, Any]:
    everyone = g.rows("contacts")
    names = [c["name"].lower() for c in everyone]

    def ok(c: dict[str, Any]) -> bool:
        words = c["name"].lower().split()
        return (
            names.count(c["name"].lower()) == 1
            and sum(all(w in n for w in words) for n in names) == 1
            and not c["name"].startswith("Dr.")
        )

    pool = [c for c in everyone[:40] if ok(c)]
    if not pool:
        raise BuildError("no unique contact")
    return g.pick(pool)


def amount(g: Gen, lo: float, hi: float) -> float:
    """An amount from ``lo`` to ``hi`` in the user's currency, in its round units (``locales.money_unit``),
    sometimes with cents where the currency has them."""
    currency = cur(g)
    unit = money_unit(currency)
    value = float(g.rng.randint(max(1, int(lo / unit)), int(hi / unit)) * unit)
    if CURRENCIES[currency].step < 1 and g.rng.random() >= 0.6:
        value += g.pick([0.5, 0.25, 0.8])
    return value


def fmt(x: float) -> str:
    return f"{x:g}" if x == int(x) else f"{x:.2f}"


def spend(pm: str) -> dict[str, Any]:
    return {"match": {"method_id": pm}, "set": {"balance": {"$range": [0, 1e9]}}}


SIGN_IN_Q = "The bank app signed you out. What is the 6-digit verification code it just sent you?"


def sign_in(code: str) -> list[dict[str, Any]]:
    return [
        act("ask_user", question=SIGN_IN_Q, slot="verification_code"),
        act(
            "call_gui_agent",
            app_id="bank",
            goal="Sign in to the bank app with the verification code",
            inputs={"verification_code": code},
            expected_outputs=["signed_in"],
        ),
    ]


SIGNED_OUT = {"update": {"apps": [{"match": {"app_id": "bank"}, "set": {"logged_in": 0}}]}}
SIGNED_IN = {"match": {"app_id": "bank"}, "set": {"logged_in": 1}}


# ---- 7.1 Balances & Transactions --------------------------------------------------------------


@family("basic", "7.1", pattern="single_call")
def account_balance(g: Gen) -> Draft:
    acct = g.pick(list(ACCOUNTS))
    name, method = ACCOUNTS[acct]
    row = g.rows("payment_methods", {"method_id": method})[0]
    query = g.say(
        "how much money is in my {n} account?",
        "what's my {n} balance right now?",
        "check the balance of my {n} account",
        "tell me what I have left in {n}",
        "{n} account: what's the balance?",
        n=name,
    )
    return Draft(
        query=query,
        gold=[act("get_account_balance"), done(f"Your {name} account has {money(row['balance'], row['currency'])}.")],
        bucket="tool_call",
        check={"calls": [{"tool": "get_account_balance"}]},
    )


def merchant_payments(g: Gen, merchant: str, since: str) -> list[dict[str, Any]]:
    """The posted payments list_transactions(merchant=..., date_from=since, direction=debit) totals."""
    return [
        t
        for t in g.rows("transactions")
        if merchant.lower() in t["merchant"].lower()
        and t["ts"] >= since
        and t["amount"] < 0
        and t["status"] == "posted"
    ]


@family("basic", "7.1", pattern="single_call")
def spending_at_merchant(g: Gen) -> Draft:
    names = {t["merchant"] for t in g.rows("transactions")}
    # a merchant whose name is inside another's ("Shop" in "Flower shop") is not one the user can single out
    txn = g.one(
        "transactions",
        filter=lambda t: (
            t["amount"] < 0
            and t["category"] in ("dining", "groceries", "transport", "shopping", "entertainment", "health", "other")
            and not any(t["merchant"].lower() in n.lower() for n in names - {t["merchant"]})
        ),
    )
    merchant = txn["merchant"]
    days = g.pick([7, 14, 30, 60, 90])
    since = g.date(-days)
    query = g.say(
        "how much have I spent at {m} since {since}?",
        "add up my {m} transactions from {since} on",
        "what did I pay {m} in total since {since}?",
        "total of my payments at {m} since {since}?",
        m=merchant,
        since=since,
    )
    paid = merchant_payments(g, merchant, since)
    currency = g.rows("payment_methods", {"method_id": txn["method_id"]})[0]["currency"]
    total = round(-sum(t["amount"] for t in paid), 2)
    answer = (
        f"You spent {money(total, currency)} at {merchant} since {since}, in {len(paid)} payment(s)."
        if paid
        else f"You made no payments to {merchant} since {since}."
    )
    return Draft(
        query=query,
        gold=[act("list_transactions", merchant=merchant, date_from=since, direction="debit"), done(answer)],
        bucket="tool_call",
        check={"calls": [{"tool": "list_transactions", "args": {"merchant": {"$contains": merchant.split()[0]}}}]},
        answer=[{"$amount": {"value": total, "currency": currency}}] if paid else [{"$none": True}],
    )


# ---- 7.2 Money Transfer -----------------------------------------------------------------------


def transfer_check(
    g: Gen, contact: dict[str, Any], value: float, currency: str, source: str = "acct_001", note: str | None = None
) -> dict[str, Any]:
    row = {
        "contact_id": contact["contact_id"],
        "amount": value,
        "currency": currency,
        "from_account_id": source,
        "status": "completed",
        **({"note": said(note)} if note else {}),
    }
    return {
        "insert": {"transfers": [row], "transactions": [{"method_id": ACCOUNTS[source][1], "category": "transfer"}]},
        "update": {"payment_methods": [spend(ACCOUNTS[source][1])]},
    }


@family("basic", "7.2", pattern="single_call")
def send_money(g: Gen) -> Draft:
    c, currency = unique_contact(g), cur(g)
    value = amount(g, 5, int(threshold(g) * 0.6))
    note = g.pick(NOTES)
    query = g.say(
        "send {who} {v} {c} for {note}",
        "transfer {v} {c} to {who}, it's for {note}",
        "pay {who} back {v} {c} for {note}",
        "can you wire {v} {c} to {who}? note: {note}",
        who=c["name"],
        v=fmt(value),
        c=currency,
        note=note,
    )
    return Draft(
        query=query,
        gold=[
            act("transfer_money", recipient=c["name"], amount=value, currency=currency, note=note),
            done(f"Sent {fmt(value)} {currency} to {c['name']}."),
        ],
        bucket="state_change",
        check=transfer_check(g, c, value, currency, note=note),
    )


@family("basic", "7.2", pattern="lookup_then_act")
def ask_contact_for_money(g: Gen) -> Draft:
    c, currency = unique_contact(g), cur(g)
    value = amount(g, 5 * money_unit(cur(g)), 300 * money_unit(cur(g)))
    note = g.pick(NOTES)
    if g.rows("money_requests", {"contact_id": c["contact_id"], "amount": value}):
        raise BuildError("same request exists")
    query = g.say(
        "request {v} {c} from {who} for {note}",
        "ask {who} to pay me {v} {c} for {note}",
        "send {who} a payment request: {v} {c}, {note}",
        who=c["name"],
        v=fmt(value),
        c=currency,
        note=note,
    )
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=c["name"]),
            act("request_money", from_contact_id=c["contact_id"], amount=value, currency=currency, note=note),
            done("Request sent."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "money_requests": [
                    {
                        "contact_id": c["contact_id"],
                        "amount": value,
                        "currency": currency,
                        "status": "open",
                        "note": said(note),
                    }
                ],
                "messages": [{"contact_id": c["contact_id"], "channel": "chat"}],
            }
        },
    )


@family("basic", "7.2", pattern="friction", friction="confirmation_required")
def big_transfer_confirmed(g: Gen) -> Draft:
    c, currency = unique_contact(g), cur(g)
    t = threshold(g)
    value = float(g.rng.randint(int(t / 100) + 1, int(t * 1.8 / 100)) * 100)
    query = g.say(
        "transfer {v} {c} to {who}",
        "send {who} {v} {c} from my checking account",
        "I owe {who} {v} {c}, please send it",
        "move {v} {c} over to {who}",
        who=c["name"],
        v=fmt(value),
        c=currency,
    )
    args = {"recipient": c["name"], "amount": value, "currency": currency}
    return Draft(
        query=query,
        gold=[
            act("transfer_money", **args),
            act(
                "ask_user",
                question=f"Send {fmt(value)} {currency} to {c['name']}?",
                kind="confirm",
                slot="confirm_transfer",
            ),
            act("transfer_money", **args, confirm=True),
            done(f"Sent {fmt(value)} {currency} to {c['name']}."),
        ],
        bucket="state_change",
        check=transfer_check(g, c, value, currency),
        script=[
            {"answer": "Yes, send it.", "kind": "confirm", "slot": "confirm_transfer", "keywords": ["confirm", "send"]}
        ],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )


@family("basic", "7.2", pattern="friction", friction="limit_exceeded")
def transfer_from_savings_instead(g: Gen) -> Draft:
    c, currency = unique_contact(g), cur(g)
    checking = g.rows("payment_methods", {"method_id": "pm_004"})[0]["balance"]
    limit = g.rows("bank_accounts", {"account_id": "acct_002"})[0]["daily_limit"]
    step = 100
    value = float(g.rng.randint(int(checking / step) + 1, int(min(limit * 0.9, checking * 1.4) / step)) * step)
    query = g.say(
        "send {v} {c} to {who}",
        "transfer {v} {c} to {who} today",
        "please pay {who} {v} {c}",
        "{who} needs {v} {c} from me, transfer it",
        who=c["name"],
        v=fmt(value),
        c=currency,
    )
    args = {"recipient": c["name"], "amount": value, "currency": currency}
    return Draft(
        query=query,
        gold=[
            act("transfer_money", **args),
            act("get_account_balance"),
            act(
                "ask_user",
                question=f"Your checking account only has {fmt(checking)} {currency}. Shall I "
                f"send the {fmt(value)} {currency} from your savings account instead?",
                kind="confirm",
                slot="use_savings",
            ),
            act("transfer_money", **args, from_account_id="acct_002", confirm=True),
            done("Sent."),
        ],
        bucket="state_change",
        check=transfer_check(g, c, value, currency, "acct_002"),
        script=[
            {
                "answer": "Yes, take it from savings.",
                "kind": "confirm",
                "slot": "use_savings",
                "keywords": ["savings", "checking"],
            }
        ],
        recovers=(ErrorType.LIMIT_EXCEEDED,),
    )


# ---- 7.3 Bill Payment -------------------------------------------------------------------------


def payable_bill(g: Gen) -> dict[str, Any]:
    checking = g.rows("payment_methods", {"method_id": "pm_004"})[0]["balance"]
    t = threshold(g)
    bills = [b for b in g.rows("bills", {"status": "due"}) if b["amount"] < min(t, checking)]
    billers = [b["biller"] for b in bills]
    bills = [b for b in bills if billers.count(b["biller"]) == 1]
    if not bills:
        raise BuildError("no payable bill")
    return g.pick(bills)


def paid_check(bill: dict[str, Any]) -> dict[str, Any]:
    return {
        "update": {
            "bills": [
                {
                    "match": {"bill_id": bill["bill_id"]},
                    "set": {"status": "paid", "amount_paid": bill["amount"], "paid_at": {"$regex": "."}},
                }
            ],
            "payment_methods": [spend("pm_004")],
        },
        "insert": {"transactions": [{"method_id": "pm_004", "ref_id": bill["bill_id"], "category": "bills"}]},
    }


BILL_NAMES = {
    "rent": "rent",
    "electricity": "electricity bill",
    "water": "water bill",
    "gas": "gas bill",
    "internet": "internet bill",
    "phone": "phone bill",
    "credit_card": "credit card statement",
    "insurance": "health insurance premium",
}


def bill_say(g: Gen, bill: dict[str, Any], plain: tuple[str, ...], with_biller: tuple[str, ...], **fields: Any) -> str:
    """A request naming the bill, and its biller only where the biller's name is not the bill's own
    ("Health insurance premium" would read "the Health insurance premium payment from Health insurance premium")."""
    name = BILL_NAMES[bill["category"]]
    distinct = not any(w in bill["biller"].lower() for w in name.split())
    return g.say(*plain, *(with_biller if distinct else ()), n=name, b=bill["biller"], **fields)


@family("basic", "7.3", pattern="lookup_then_act")
def pay_due_bill(g: Gen) -> Draft:
    bill = payable_bill(g)
    query = bill_say(
        g,
        bill,
        ("pay my {n} now", "can you pay the {n} today?"),
        ("settle the {n} from {b}", "I need to pay {b} - the {n}"),
    )
    return Draft(
        query=query,
        gold=[act("list_bills"), act("pay_bill", bill_id=bill["bill_id"]), done("Paid.")],
        bucket="state_change",
        check=paid_check(bill),
    )


@family("basic", "7.3", pattern="lookup_then_act")
def schedule_bill(g: Gen) -> Draft:
    bill = g.one("bills", {"status": "due"}, filter=lambda b: b["due_date"] > g.date(1))
    days = g.rng.randint(1, 4)
    day = g.date(days)
    if day > bill["due_date"]:
        raise BuildError("too late")
    query = bill_say(
        g,
        bill,
        ("schedule the {n} to be paid on {d}", "pay my {n} on {d}, not today"),
        ("set up the {b} payment for {d}",),
        d=day,
    )
    return Draft(
        query=query,
        gold=[
            act("list_bills"),
            act("pay_bill", bill_id=bill["bill_id"], scheduled_date=day),
            done(f"Scheduled for {day}."),
        ],
        bucket="state_change",
        check={
            "update": {
                "bills": [
                    {
                        "match": {"bill_id": bill["bill_id"]},
                        "set": {
                            "status": "scheduled",
                            "scheduled_date": day,
                            "scheduled_amount": bill["amount"],
                            "pay_from_account_id": "acct_001",
                        },
                    }
                ]
            }
        },
    )


@family("basic", "7.3", pattern="friction", friction="authentication_required")
def pay_bill_after_sign_in(g: Gen) -> Draft:
    bill = payable_bill(g)
    code = f"{g.rng.randint(0, 999999):06d}"
    query = bill_say(
        g,
        bill,
        ("pay the {n}", "please take care of my {n} right away"),
        ("pay the {n} from {b}", "go ahead and pay {b} ({n})"),
    )
    check = paid_check(bill)
    check["update"]["apps"] = [SIGNED_IN]
    return Draft(
        query=query,
        gold=[
            act("list_bills"),
            *sign_in(code),
            act("list_bills"),
            act("pay_bill", bill_id=bill["bill_id"]),
            done("Signed in again and paid."),
        ],
        bucket="state_change",
        check=check,
        patches=SIGNED_OUT,
        script=[{"answer": f"The code is {code}", "slot": "verification_code", "keywords": ["code", "verification"]}],
        recovers=(ErrorType.AUTHENTICATION_REQUIRED,),
    )


# ---- 7.4 Budgets & Expense Tracking -----------------------------------------------------------


@family("basic", "7.4", pattern="single_call")
def new_budget(g: Gen) -> Draft:
    have = {b["category"] for b in g.rows("budgets")}
    cat = g.pick([c for c in ("bills", "health", "travel", "other") if c not in have])
    limit = float(g.rng.randint(2, 30) * 10 * money_unit(cur(g)))
    pct = g.pick([None, 75, 90])
    tail = f" and warn me at {pct}%" if pct else ""
    label = "other expenses" if cat == "other" else cat  # how a user names the catch-all category
    query = g.say(
        "set a monthly budget of {v} for {c}{tail}",
        "I want to spend at most {v} a month on {c}{tail}",
        "create a budget for {c}: {v} per month{tail}",
        c=label,
        v=fmt(limit),
        tail=tail,
    )
    args: dict[str, Any] = {"category": cat, "monthly_limit": limit}
    row: dict[str, Any] = {"category": cat, "monthly_limit": limit}
    if pct:
        args["alert_pct"] = row["alert_pct"] = pct
    return Draft(
        query=query,
        gold=[act("set_budget", **args), done("Budget set.")],
        bucket="state_change",
        check={"insert": {"budgets": [row]}},
    )


@family("basic", "7.4", pattern="friction", friction="duplicate_entity")
def change_budget(g: Gen) -> Draft:
    b = g.one("budgets")
    factor = g.pick([0.8, 0.9, 1.1, 1.2, 1.5])
    step = 10 * money_unit(cur(g))  # 10 dollars or euros, 100 yuan, 1,000 yen
    limit = float(max(step, round(b["monthly_limit"] * factor / step) * step))
    if limit == b["monthly_limit"]:
        raise BuildError("same")
    query = g.say(
        "change my {c} budget to {v} a month",
        "make my monthly {c} budget {v}",
        "update the {c} budget limit to {v}",
        c=b["category"],
        v=fmt(limit),
    )
    return Draft(
        query=query,
        gold=[
            act("set_budget", category=b["category"], monthly_limit=limit),
            act("set_budget", category=b["category"], monthly_limit=limit, overwrite=True),
            done("Updated."),
        ],
        bucket="state_change",
        check={"update": {"budgets": [{"match": {"category": b["category"]}, "set": {"monthly_limit": limit}}]}},
        recovers=(ErrorType.DUPLICATE_ENTITY,),
    )


@family("basic", "7.4", pattern="single_call")
def budget_left(g: Gen) -> Draft:
    b = g.one("budgets")
    query = g.say(
        "how much of my {c} budget is left this month?",
        "am I over my {c} budget?",
        "check my {c} spending against the budget",
        "{c} budget status please",
        c=b["category"],
    )
    status = peek(g, "get_budget_status", category=b["category"])
    mine, currency = status["budgets"][0], status["currency"]
    state = "over" if mine["over_budget"] else "within"
    answer = (
        f"You have spent {money(mine['spent'], currency)} of your {money(mine['monthly_limit'], currency)} "
        f"{b['category']} budget this month ({state} budget), {money(mine['remaining'], currency)} left."
    )
    # either figure answers the question; the limit alone does not
    facts: list[dict[str, Any]] = [
        {"$any": [{"$amount": {"value": mine[k], "currency": currency}} for k in ("spent", "remaining")]}
    ]
    if "am i over" in query.lower():  # a yes/no question: the verdict is part of the answer
        facts.append({"$state": {"value": state, "asked": "over"}})
    return Draft(
        query=query,
        gold=[act("get_budget_status", category=b["category"]), done(answer)],
        bucket="tool_call",
        check={"calls": [{"tool": "get_budget_status"}]},
        answer=facts,
    )


# ---- 7.5 Cards & Wallet -----------------------------------------------------------------------

CARDS = {"pm_001": "Visa credit card", "pm_002": "debit card"}


# why the user wants the card frozen -> what a reason recorded for it mentions (or no reason at all)
WHY = {
    "I lost it": "lost|los[et]|missing|misplac|find",
    "it was stolen": "stol|theft|thief",
    "I can't find it": "lost|missing|misplac|find",
    "I left it in a taxi": "lost|taxi|left|missing|misplac",
    "I think it's been skimmed": "skim|fraud|compromis|stol",
}


@family("basic", "7.5", pattern="single_call")
def freeze_lost_card(g: Gen) -> Draft:
    card = g.pick(list(CARDS))
    why, reason = g.pick(list(WHY.items()))
    query = g.say(
        "freeze my {c}, {w}",
        "{w} - lock my {c} right now",
        "please block my {c}; {w}",
        "temporarily freeze the {c} because {w}",
        c=CARDS[card],
        w=why,
    )
    return Draft(
        query=query,
        gold=[act("get_account_balance"), act("freeze_card", card_id=card, frozen=True, reason=why), done("Frozen.")],
        bucket="state_change",
        check={
            "update": {
                "payment_methods": [{"match": {"method_id": card}, "set": {"status": "frozen"}}],
                "card_details": [
                    {
                        "match": {"method_id": card},
                        "set": {"freeze_reason": {"$any": [{"$absent": True}, {"$regex": reason}]}},
                    }
                ],
            }
        },
    )


def luhn(g: Gen, prefix: str) -> str:
    digits = [int(d) for d in prefix] + [g.rng.randint(0, 9) for _ in range(15 - len(prefix))]
    total = 0
    for i, d in enumerate(reversed(digits)):
        d = d * 2 if i % 2 == 0 else d
        total += d - 9 if d > 9 else d
    return "".join(map(str, digits)) + str((10 - total % 10) % 10)


@family("basic", "7.5", pattern="single_call")
def add_card(g: Gen) -> Draft:
    number = luhn(g, g.pick(["4", "51", "62"]))
    pretty = " ".join(number[i : i + 4] for i in range(0, 16, 4))
    expiry = f"{g.rng.randint(1, 12):02d}/{(g.now.year + g.rng.randint(1, 4)) % 100:02d}"
    holder = g.persona.name
    default = g.pick([False, True])
    tail = " and make it my default" if default else ""
    query = g.say(
        "add my new card {n}, expires {e}, name {h}{tail}",
        "save a card to my wallet: {n} exp {e} ({h}){tail}",
        "put card number {n} (valid to {e}, holder {h}) in the wallet{tail}",
        n=pretty,
        e=expiry,
        h=holder,
        tail=tail,
    )
    args: dict[str, Any] = {"card_number": pretty, "expiry": expiry, "holder_name": holder}
    check: dict[str, Any] = {
        "insert": {
            "payment_methods": [{"last4": number[-4:], "kind": "card", "is_default": int(default)}],
            "card_details": [{"expiry": expiry, "holder_name": holder}],
        }
    }
    if default:
        args["set_default"] = True
        check["update"] = {"payment_methods": [{"match": {"is_default": 1}, "set": {"is_default": 0}}]}
    return Draft(
        query=query, gold=[act("add_payment_card", **args), done("Card added.")], bucket="state_change", check=check
    )


SCOPES = {"shop": "shopping", "ride": "ride-hailing", "travel": "travel bookings", "dining": "restaurants"}
METHODS = {"pm_001": "Visa credit card", "pm_002": "debit card", "pm_003": "wallet balance"}


@family("basic", "7.5", pattern="single_call")
def default_for_scope(g: Gen) -> Draft:
    scope = g.pick(list(SCOPES))
    current = {d["scope"]: d["method_id"] for d in g.rows("payment_defaults")}
    method = g.pick([m for m in METHODS if current.get(scope) != m])
    query = g.say(
        "use my {m} by default for {s}",
        "make the {m} my default payment for {s}",
        "for {s}, pay with my {m} from now on",
        m=METHODS[method],
        s=SCOPES[scope],
    )
    row = {"scope": scope, "method_id": method}
    check = (
        {"update": {"payment_defaults": [{"match": {"scope": scope}, "set": {"method_id": method}}]}}
        if scope in current
        else {"insert": {"payment_defaults": [row]}}
    )
    return Draft(
        query=query,
        gold=[
            act("get_account_balance"),
            act("set_default_payment_method", method_id=method, scope=scope),
            done("Done."),
        ],
        bucket="state_change",
        check=check,
    )


@family("basic", "7.5", pattern="friction", friction="changed_state")
def default_card_is_frozen(g: Gen) -> Draft:
    card = g.pick(["pm_001", "pm_002"])
    if g.rows("payment_methods", {"method_id": card})[0]["is_default"]:
        card = "pm_001"
    name = CARDS[card]
    query = g.say(
        "make my {c} the default payment method",
        "set the {c} as my default card everywhere",
        "I want to pay with my {c} by default",
        "switch my default payment method to the {c}",
        "from now on my {c} should be the default for all payments",
        "please use the {c} as my main payment method",
        "default card: my {c}, please",
        c=name,
    )
    return Draft(
        query=query,
        gold=[
            act("get_account_balance"),
            act("set_default_payment_method", method_id=card),
            act(
                "ask_user",
                question=f"Your {name} is frozen. Shall I unfreeze it and make it the default?",
                kind="confirm",
                slot="unfreeze",
            ),
            act("freeze_card", card_id=card, frozen=False),
            act("set_default_payment_method", method_id=card),
            done("Unfrozen and set as default."),
        ],
        bucket="state_change",
        check={
            "update": {
                "payment_methods": [
                    {"match": {"method_id": card}, "set": {"status": "active", "is_default": 1}},
                    {"match": {"is_default": 1}, "set": {"is_default": 0}},
                ]
            },
            "ignore_columns": ["freeze_reason"],
        },
        patches={"update": {"payment_methods": [{"match": {"method_id": card}, "set": {"status": "frozen"}}]}},
        script=[
            {"answer": "Yes, unfreeze it.", "kind": "confirm", "slot": "unfreeze", "keywords": ["frozen", "unfreeze"]}
        ],
        recovers=(ErrorType.STATE_CONFLICT,),
    )


# ---- 7.6 Investments & Stocks -----------------------------------------------------------------

NAMES = {
    "AAPL": "Apple",
    "MSFT": "Microsoft",
    "AMZN": "Amazon",
    "NVDA": "NVIDIA",
    "META": "Meta",
    "TSLA": "Tesla",
    "NFLX": "Netflix",
    "JPM": "JPMorgan",
    "KO": "Coca-Cola",
    "DIS": "Disney",
    "BABA": "Alibaba",
    "NIO": "NIO",
    "600519": "Moutai",
    "601318": "Ping An",
    "002594": "BYD",
    "7203": "Toyota",
    "9984": "SoftBank",
    "HSBA": "HSBC",
    "SHEL": "Shell",
    "AZN": "AstraZeneca",
    "005930": "Samsung",
    "SAP": "SAP",
    "SIE": "Siemens",
    "BMW": "BMW",
}


@family("basic", "7.6", pattern="single_call")
def stock_price(g: Gen) -> Draft:
    symbol = g.pick(list(NAMES))
    name = NAMES[symbol]
    query = g.say(
        "what's {n} trading at?",
        "how is {n} stock doing today?",
        "get me a quote for {n}",
        "what's the share price of {n}?",
        "check the {n} stock price",
        n=name,
    )
    quote = peek(g, "get_stock_quote", symbol_or_name=symbol)
    return Draft(
        query=query,
        gold=[
            act("get_stock_quote", symbol_or_name=symbol),
            done(
                f"{name} ({symbol}) is at {money(quote['price'], quote['currency'])}, "
                f"{quote['change_pct']:+.2f}% on the day."
            ),
        ],
        bucket="tool_call",
        check={
            "calls": [
                {
                    "tool": "get_stock_quote",
                    "args": {"symbol_or_name": {"$any": [symbol, {"$contains": name.split()[0]}]}},
                }
            ]
        },
        answer=[{"$amount": {"value": quote["price"], "currency": quote["currency"]}}],
    )


def order_effects(g: Gen, symbol: str, side: str, qty: int) -> tuple[dict[str, Any], float]:
    stock = g.rows("world_stocks", {"symbol": symbol})[0]
    fills = bool(stock["market_open"])
    usd = {"USD": 1.0, **{r["quote"]: r["rate"] for r in g.rows("world_fx_rates", {"date": g.now.date().isoformat()})}}
    local = qty * stock["price"] * usd[cur(g)] / usd[stock["currency"]]
    row = {"symbol": symbol, "side": side, "quantity": qty, "status": "filled" if fills else "pending"}
    check: dict[str, Any] = {"insert": {"stock_orders": [row]}}
    if fills:
        check["insert"]["transactions"] = [{"method_id": "pm_006", "category": "investment"}]
        check["update"] = {"payment_methods": [spend("pm_006")]}
        held = g.rows("holdings", {"symbol": symbol})
        if side == "sell" and held and held[0]["quantity"] == qty:
            check["delete"] = {"holdings": [{"symbol": symbol}]}
        elif held:
            check["update"]["holdings"] = [
                {
                    "match": {"symbol": symbol},
                    "set": {
                        "quantity": held[0]["quantity"] + (qty if side == "buy" else -qty),
                        **({"avg_cost": {"$range": [0, 1e9]}} if side == "buy" else {}),
                    },
                }
            ]
        else:
            check["insert"]["holdings"] = [{"symbol": symbol, "quantity": qty}]
    return check, local


@family("basic", "7.6", pattern="friction", friction="confirmation_required")
def buy_shares(g: Gen) -> Draft:
    symbol = g.pick(list(NAMES))
    cash = g.rows("payment_methods", {"method_id": "pm_006"})[0]["balance"]
    qty = g.pick([1, 2, 3, 5, 10, 20])
    check, cost = order_effects(g, symbol, "buy", qty)
    if cost > cash * 0.8:
        raise BuildError("too expensive")
    query = g.say(
        "buy {q} share{pl} of {n}",
        "get me {q} {n} share{pl} at market price",
        "purchase {q} share{pl} of {n} stock",
        "I want to buy {q} {s} share{pl}",
        pl="" if qty == 1 else "s",
        q=qty,
        n=NAMES[symbol],
        s=symbol,
    )
    args = {"symbol": symbol, "side": "buy", "quantity": qty}
    return Draft(
        query=query,
        gold=[
            act("get_stock_quote", symbol_or_name=symbol),
            act("place_stock_order", **args),
            act(
                "ask_user",
                question=f"Buy {qty} {symbol} at market price?",
                kind="confirm",
                slot="confirm_order",
            ),
            act("place_stock_order", **args, confirm=True),
            done("Order placed."),
        ],
        bucket="state_change",
        check=check,
        script=[{"answer": "Yes, confirmed.", "kind": "confirm", "slot": "confirm_order", "keywords": ["confirm"]}],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )


@family("basic", "7.6", pattern="single_call")
def sell_shares(g: Gen) -> Draft:
    held = g.one("holdings")
    symbol = held["symbol"]
    qty = g.pick([q for q in (1, 2, 5, 10, held["quantity"]) if q <= held["quantity"]])
    check, _ = order_effects(g, symbol, "sell", qty)
    if "transactions" in check["insert"]:
        check["insert"]["transactions"] = [
            {"method_id": "pm_006", "category": "investment", "amount": {"$range": [0, 1e9]}}
        ]
    what = "all my" if qty == held["quantity"] else str(qty)
    query = g.say(
        "sell {w} {n} shares at market",
        "sell {w} shares of {n} now",
        "please sell {w} {s} shares",
        w=what,
        n=NAMES.get(symbol, symbol),
        s=symbol,
    )
    return Draft(
        query=query,
        # the order moves money: the confirmation rule asks first, however the request is worded
        gold=[
            act("ask_user", question=f"Sell {qty} {symbol} at market price?", kind="confirm"),
            act("place_stock_order", symbol=symbol, side="sell", quantity=qty, confirm=True),
            done("Sell order placed."),
        ],
        bucket="state_change",
        check=check,
        script=[{"answer": "Yes, sell them.", "kind": "confirm", "keywords": ["sell", "confirm", "order"]}],
    )


# ---- 7.7 Currency & Bill Splitting ------------------------------------------------------------

FX = ("USD", "CNY", "EUR", "JPY", "GBP", "KRW")


@family("basic", "7.7", pattern="single_call")
def convert_money(g: Gen) -> Draft:
    a, b = g.rng.sample(FX, 2)
    value = float(g.pick([20, 50, 75, 100, 250, 500, 1200, 3000]))
    query = g.say(
        "how much is {v} {a} in {b}?",
        "convert {v} {a} to {b}",
        "what do {v} {a} come to in {b}?",
        v=fmt(value),
        a=a,
        b=b,
    )
    converted = peek(g, "convert_currency", amount=value, from_currency=a, to_currency=b)["converted"]
    return Draft(
        query=query,
        gold=[
            act("convert_currency", amount=value, from_currency=a, to_currency=b),
            done(f"{fmt(value)} {a} is {money(converted, b)}."),
        ],
        answer=[{"$amount": {"value": converted, "currency": b}}],
        bucket="tool_call",
        check={
            "calls": [{"tool": "convert_currency", "args": {"amount": value, "from_currency": a, "to_currency": b}}]
        },
    )


# An expense the user describes -> the words (and their synonyms) a note naming it uses: "Airport cab" names
# "the taxi to the airport"; a note about something else does not.
EXPENSE_WORDS = {
    "dinner": r"dinner|supper|meal|restaurant",
    "the cabin weekend": r"cabin|weekend|getaway|trip",
    "karaoke": r"karaoke|singing",
    "groceries": r"grocer|food|supermarket|shopping",
    "the taxi to the airport": r"taxi|cab\b|ride|uber|airport",
    "brunch": r"brunch|breakfast|meal",
}


@family("basic", "7.7", pattern="lookup_then_act")
def split_expense(g: Gen) -> Draft:
    first = unique_contact(g)
    second = unique_contact(g)
    if first["contact_id"] == second["contact_id"]:
        raise BuildError("same person")
    currency = cur(g)
    total = float(g.rng.randint(30, 300) * money_unit(currency))
    note = g.pick(list(EXPENSE_WORDS))
    query = g.say(
        "split {t} {c} for {note} equally between me, {a} and {b}",
        "{a}, {b} and I shared {note} - {t} {c}. Split it evenly and send them requests",
        "divide the {t} {c} bill for {note} three ways with {a} and {b}",
        t=fmt(total),
        c=currency,
        note=note,
        a=first["name"],
        b=second["name"],
    )
    ids = [first["contact_id"], second["contact_id"]]
    share = {"$approx": [round(total / 3, 2), 0.02 if decimals(currency) else 1.0]}  # yen and won: whole units
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=first["name"]),
            act("search_contacts", name=second["name"]),
            act("split_bill", total=total, currency=currency, participant_ids=ids, note=note),
            done("Requests sent."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "splits": [
                    {
                        "total": total,
                        "currency": currency,
                        "include_self": 1,
                        # what the expense was, not a note the user dictated
                        "note": {"$any": [{"$regex": EXPENSE_WORDS[note]}, {"$absent": True}]},
                        "shares_json": {"$json": {i: share for i in ids}},
                    }
                ],
                "money_requests": [{"contact_id": i, "amount": share} for i in ids],
                "messages": [{"contact_id": i, "channel": "chat"} for i in ids],
            }
        },
    )
