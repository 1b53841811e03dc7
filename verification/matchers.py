"""The matcher language of task checks: JSON values that say what an actual value must look like.

Plain values: a string matches ignoring case and runs of whitespace; numbers compare numerically
(3 == 3.0, but a bool is never a number); ``None`` matches only ``None``; a dict without ``$`` keys
matches any dict holding at least its keys (recursively); a list matches a list of the same length,
element by element. A dict whose single key starts with ``$`` is an operator:

``$eq`` exact equality · ``$phone`` same digits · ``$contains`` substring (case and whitespace
folded) · ``$contains_all`` every item a substring, an item may be ``{"$any": [...]}`` · ``$any``
one of several matchers · ``$regex`` re.search, case-insensitive · ``$range`` [lo, hi] inclusive ·
``$approx`` [value, tolerance] · ``$dt_between`` [start, end] of YYYY-MM-DDTHH:MM[:SS] strings ·
``$absent`` true: key missing or None (false: present) · ``$set`` list in any order · ``$json``
parse a JSON string, then match.

Facts stated in a text (a ``finish`` answer), read as ``sandbox.facts`` reads them:
``$amount`` a number or {"value", "currency"?, "tolerance"?}: an amount in any common format, whose
written currency (if any) can be ``currency``, equal within ``tolerance`` or the text's own rounding
("$15" states 15.24) · ``$number`` a number or {"value", "tolerance"?}: the same without currency ·
``$count`` n: a whole number as digits or a word up to twenty · ``$date`` "YYYY-MM-DD": the date in
any common format, with or without its year · ``$time`` "HH:MM" (24 h): "21:00", "9pm", "9:00 PM" ·
``$name`` text: contained as whole words, ignoring case, accents, punctuation and spacing, and read
by polarity (``facts.affirms_name``): stated plainly, never denied in its clause ("not available",
"they don't have it"), and what is only asked ("whether it's open", a question) does not count ·
``$none`` true: the text says the result is empty ("no …", "none", "nothing", "0") ·
``$none_of`` [names]: the text affirms none of them as a member (``facts.affirms_member``): the non-members of
a set; one named under a denial ("your amazon.com login was not breached") or in a sentence stating its
relation to a member before it ("this password is also used on amazon.com") is no member stated; in the form
{"names", "as", "unlike"} (a set defined by a property's value: "as" the words of a member's value, "delivered";
"unlike" those of the others, "shipped", "pending", "earlier"), nor is one its stretch of the sentence states
another value of ("order_016 and order_017 are shipped", "not delivered yet: order_016", "order_014 was also
delivered, but it was placed earlier"), while one listed among the members ("delivered: order_015 and
order_016") is ·
``$first`` {"name", "others"}: the answer to a superlative question ("the cheapest smartphone?"): the text
affirms ``name`` as ``$name`` does and names it before any of ``others`` (the other candidates the gold's
search found), so "the cheapest is the Xiaomi 15; next is the iPhone 16" passes and "the cheapest is the
iPhone 16; the Xiaomi 15 is pricier" fails (``facts.first_named``) ·
``$verdict`` "yes" or "no", or {"value", "about"}: the answer to a yes/no question, read from its opening
(``facts.verdict``: "Yes, …"; "No, …", "Nobody came", "Not delayed", "It won't …"): an opening of the
opposite verdict fails; one stating no verdict is read by ``about``, the names of the property the question
asks about (["delayed", "late"] for "has IB332 been delayed?"; ``facts.verdict_about``): affirming one
where the answer is "no" ("it was delayed by 30 minutes") or denying one where it is "yes" ("it has not
arrived") fails, and an answer that neither affirms nor denies them is judged by the other facts ·
``$state`` a state word, or {"value", "asked"?, "subject"?}: the text states that state of the
subject and never its opposite, read by polarity (``facts.state_assertions``): "is off", "isn't on",
"not enabled", "it's locked", and a leading "Yes,"/"No," affirming or denying ``asked`` (the state
the question asked about: "is DND on?" asks "on"); actions ("turn it off"), questions and "on" as a
preposition are not read, and with ``subject`` (names, e.g. ["Do Not Disturb", "DND"]) neither is
what is said of another subject. States: on/off (enabled/disabled, active/inactive, running),
locked/unlocked, closed/open, connected/disconnected, charging/discharging, over/within (under) a
budget. A regex cannot do this: "Yes, DND is on, so no calls ring" holds "no".

Matchers are validated as a whole before use, so a malformed task raises ValueError instead of
silently passing or failing.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from typing import Any

from sandbox import facts
from verification.alignment import max_matching


class _Missing:
    """The value of a key the actual object does not have (distinct from an explicit ``None``)."""

    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()
_DT_FORMATS = ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M")


def matches(expected: Any, actual: Any) -> bool:
    """Whether ``actual`` satisfies the matcher ``expected``; raises ValueError on a malformed matcher."""
    return explain(expected, actual) is None


def fits(expected: Any, actual: Any) -> bool:
    """``matches`` for a matcher already checked with ``validate_matcher``: a checker validates its
    check's matchers once, then tries each against many rows and calls (validating on every try was
    a third of verification's cost)."""
    return _mismatch(expected, actual, "") is None


def explain(expected: Any, actual: Any) -> str | None:
    """Why ``actual`` does not satisfy ``expected`` (a short, path-prefixed sentence), or None if it does."""
    validate_matcher(expected)
    return _mismatch(expected, actual, "")


def validate_matcher(expected: Any) -> None:
    """Raise ValueError if ``expected`` (or any part of it) is not a well-formed matcher."""
    if isinstance(expected, dict):
        op = _operator(expected)
        if op is None:
            for value in expected.values():
                validate_matcher(value)
        else:
            _VALIDATORS[op[0]](op[1])
    elif isinstance(expected, list):
        for value in expected:
            validate_matcher(value)
    elif not (expected is None or isinstance(expected, (str, int, float))):
        raise ValueError(f"matcher {_show(expected)}: not a JSON value")


def normalise_text(text: str) -> str:
    """Casefolded, stripped, runs of whitespace collapsed: how plain strings compare."""
    return " ".join(text.split()).casefold()


# ---- evaluation ------------------------------------------------------------------------------


def _mismatch(expected: Any, actual: Any, path: str) -> str | None:
    if isinstance(expected, dict):
        op = _operator(expected)
        if op is not None:
            return _CHECKS[op[0]](op[1], actual, path)
        if not isinstance(actual, dict):
            return _fail(path, f"expected an object with {sorted(expected)}, got {_show(actual)}")
        for key, sub in expected.items():
            reason = _mismatch(sub, actual.get(key, MISSING), f"{path}.{key}" if path else str(key))
            if reason is not None:
                return reason
        return None
    if isinstance(expected, list):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            return _fail(path, f"expected a list of {len(expected)}, got {_show(actual)}")
        for i, (sub, value) in enumerate(zip(expected, actual)):
            reason = _mismatch(sub, value, f"{path}[{i}]")
            if reason is not None:
                return reason
        return None
    if isinstance(expected, str):
        ok = isinstance(actual, str) and normalise_text(expected) == normalise_text(actual)
    elif isinstance(expected, bool) or expected is None:
        ok = actual is expected
    else:
        ok = _is_number(actual) and actual == expected
    return None if ok else _fail(path, f"expected {_show(expected)}, got {_show(actual)}")


def _operator(expected: dict[Any, Any]) -> tuple[str, Any] | None:
    ops = [k for k in expected if isinstance(k, str) and k.startswith("$")]
    if not ops:
        return None
    if len(expected) != 1:
        raise ValueError(f"matcher {_show(expected)}: an operator must be the only key of its object")
    if ops[0] not in _CHECKS:
        raise ValueError(f"matcher {_show(expected)}: unknown operator {ops[0]!r}")
    return ops[0], expected[ops[0]]


def _fail(path: str, message: str) -> str:
    return f"{path}: {message}" if path else message


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _exact(a: Any, b: Any) -> bool:
    """Python equality without case folding or subset matching, and a bool never equals a number."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_exact(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(map(_exact, a, b))
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def _parse_dt(text: Any) -> dt.datetime | None:
    if isinstance(text, str):
        for fmt in _DT_FORMATS:
            try:
                return dt.datetime.strptime(text, fmt)
            except ValueError:
                continue
    return None


def _contains_item(item: str | dict[str, Any], text: str) -> bool:
    options = item["$any"] if isinstance(item, dict) else [item]
    return any(normalise_text(o) in text for o in options)


def _check_eq(operand: Any, actual: Any, path: str) -> str | None:
    return None if _exact(operand, actual) else _fail(path, f"expected exactly {_show(operand)}, got {_show(actual)}")


def _check_phone(operand: str, actual: Any, path: str) -> str | None:
    ok = isinstance(actual, str) and _digits(actual) == _digits(operand)
    return None if ok else _fail(path, f"expected phone {operand!r}, got {_show(actual)}")


def _check_contains(operand: str, actual: Any, path: str) -> str | None:
    ok = isinstance(actual, str) and normalise_text(operand) in normalise_text(actual)
    return None if ok else _fail(path, f"expected text containing {operand!r}, got {_show(actual)}")


def _check_contains_all(operand: list[Any], actual: Any, path: str) -> str | None:
    if not isinstance(actual, str):
        return _fail(path, f"expected text, got {_show(actual)}")
    text = normalise_text(actual)
    missing = [item for item in operand if not _contains_item(item, text)]
    return _fail(path, f"text {_show(actual)} lacks {_show(missing)}") if missing else None


def _check_any(operand: list[Any], actual: Any, path: str) -> str | None:
    if any(_mismatch(option, actual, path) is None for option in operand):
        return None
    return _fail(path, f"expected any of {_show(operand)}, got {_show(actual)}")


def _check_regex(operand: str, actual: Any, path: str) -> str | None:
    ok = isinstance(actual, str) and re.search(operand, actual, re.IGNORECASE) is not None
    return None if ok else _fail(path, f"expected text matching /{operand}/, got {_show(actual)}")


def _check_range(operand: list[float], actual: Any, path: str) -> str | None:
    ok = _is_number(actual) and operand[0] <= actual <= operand[1]
    return None if ok else _fail(path, f"expected a number in [{operand[0]}, {operand[1]}], got {_show(actual)}")


def _check_approx(operand: list[float], actual: Any, path: str) -> str | None:
    ok = _is_number(actual) and abs(actual - operand[0]) <= operand[1]
    return None if ok else _fail(path, f"expected {operand[0]} ± {operand[1]}, got {_show(actual)}")


def _check_dt_between(operand: list[str], actual: Any, path: str) -> str | None:
    lo, hi = (_parse_dt(bound) for bound in operand)
    value = _parse_dt(actual)
    ok = value is not None and lo is not None and hi is not None and lo <= value <= hi
    return None if ok else _fail(path, f"expected a time in [{operand[0]}, {operand[1]}], got {_show(actual)}")


def _check_absent(operand: bool, actual: Any, path: str) -> str | None:
    absent = actual is MISSING or actual is None
    if absent == operand:
        return None
    return _fail(path, f"expected no value, got {_show(actual)}" if operand else "expected a value, got none")


def _check_set(operand: list[Any], actual: Any, path: str) -> str | None:
    if not isinstance(actual, (list, tuple)) or len(actual) != len(operand):
        return _fail(path, f"expected a list of {len(operand)} (any order), got {_show(actual)}")
    pairs = max_matching(len(operand), len(actual), lambda i, j: _mismatch(operand[i], actual[j], "") is None)
    if len(pairs) == len(operand):
        return None
    unmatched = [operand[i] for i in range(len(operand)) if i not in pairs]
    return _fail(path, f"no element of {_show(actual)} matches {_show(unmatched[0])}")


def _check_json(operand: Any, actual: Any, path: str) -> str | None:
    if not isinstance(actual, str):
        return _fail(path, f"expected a JSON string, got {_show(actual)}")
    try:
        parsed = json.loads(actual)
    except json.JSONDecodeError:
        return _fail(path, f"not valid JSON: {_show(actual)}")
    return _mismatch(operand, parsed, path)


def _quantity(operand: Any) -> tuple[float, float, str | None]:
    """(value, tolerance, currency) of an ``$amount`` or ``$number`` operand."""
    if isinstance(operand, dict):
        return operand["value"], operand.get("tolerance", 0.0), operand.get("currency")
    return operand, 0.0, None


def _stated(path: str, actual: Any, ok: Any, fact: str) -> str | None:
    """A fact matcher's verdict: the text must be a string that ``ok(text)`` accepts."""
    if isinstance(actual, str) and ok(actual):
        return None
    return _fail(path, f"does not state {fact}: {_show(actual)}")


def _check_amount(operand: Any, actual: Any, path: str) -> str | None:
    value, tolerance, currency = _quantity(operand)
    return _stated(
        path,
        actual,
        lambda t: facts.states_amount(t, value, tolerance, currency),
        f"the amount {value:g}{' ' + currency if currency else ''}",
    )


def _check_number(operand: Any, actual: Any, path: str) -> str | None:
    value, tolerance, _ = _quantity(operand)
    return _stated(path, actual, lambda t: facts.states_amount(t, value, tolerance), f"the number {value:g}")


def _check_count(operand: int, actual: Any, path: str) -> str | None:
    return _stated(path, actual, lambda t: facts.states_count(t, operand), f"the count {operand}")


def _check_date(operand: str, actual: Any, path: str) -> str | None:
    return _stated(path, actual, lambda t: facts.states_date(t, operand), f"the date {operand}")


def _check_time(operand: str, actual: Any, path: str) -> str | None:
    return _stated(path, actual, lambda t: facts.states_time(t, operand), f"the time {operand}")


def _check_name(operand: str, actual: Any, path: str) -> str | None:
    return _stated(path, actual, lambda t: facts.affirms_name(t, operand), f"the name {operand!r}")


def _check_none(operand: bool, actual: Any, path: str) -> str | None:
    return _stated(path, actual, facts.states_none, "that nothing was found")


def none_of_names(operand: list[str] | dict[str, list[str]]) -> list[str]:
    """The non-member names of a ``$none_of`` operand, in either form."""
    return operand["names"] if isinstance(operand, dict) else operand


def _check_none_of(operand: list[str] | dict[str, list[str]], actual: Any, path: str) -> str | None:
    if not isinstance(actual, str):
        return _fail(path, f"expected text, got {_show(actual)}")
    values, others = (operand["as"], operand["unlike"]) if isinstance(operand, dict) else ((), ())
    stated = [name for name in none_of_names(operand) if facts.affirms_member(actual, name, values, others)]
    return _fail(path, f"states {_show(stated)}, which are not among the answer: {_show(actual)}") if stated else None


def _check_first(operand: dict[str, Any], actual: Any, path: str) -> str | None:
    name, others = operand["name"], operand["others"]
    fact = f"the name {name!r} before the other candidates"
    return _stated(path, actual, lambda t: facts.first_named(t, name, others), fact)


def _check_verdict(operand: str | dict[str, Any], actual: Any, path: str) -> str | None:
    if not isinstance(actual, str):
        return _fail(path, f"expected text, got {_show(actual)}")
    value, about = (operand["value"], operand["about"]) if isinstance(operand, dict) else (operand, [])
    said = facts.verdict(actual)
    if said is None:
        said = facts.verdict_about(actual, about)
        if said not in (None, value):
            stated = "affirms" if said == "yes" else "denies"
            return _fail(path, f"{stated} {_show(about)} where the answer is {value!r}: {_show(actual)}")
        return None
    return None if said == value else _fail(path, f"answers {said!r} where the answer is {value!r}: {_show(actual)}")


def _state(operand: Any) -> tuple[str, str | None, tuple[str, ...]]:
    """(value, asked, subjects) of a ``$state`` operand."""
    if isinstance(operand, dict):
        return operand["value"], operand.get("asked"), tuple(operand.get("subject", ()))
    return operand, None, ()


def _check_state(operand: Any, actual: Any, path: str) -> str | None:
    value, asked, subjects = _state(operand)
    of = f" of {subjects[0]}" if subjects else ""
    # read once: ``facts.states_state`` is "some assertion, and none False" over the same list
    found = facts.state_assertions(actual, value, asked, subjects) if isinstance(actual, str) else []
    if False in found:
        return _fail(path, f"states the opposite of the state {value!r}{of}: {_show(actual)}")
    return _stated(path, actual, lambda _: bool(found), f"the state {value!r}{of}")


_CHECKS: dict[str, Callable[[Any, Any, str], str | None]] = {
    "$eq": _check_eq,
    "$phone": _check_phone,
    "$contains": _check_contains,
    "$contains_all": _check_contains_all,
    "$any": _check_any,
    "$regex": _check_regex,
    "$range": _check_range,
    "$approx": _check_approx,
    "$dt_between": _check_dt_between,
    "$absent": _check_absent,
    "$set": _check_set,
    "$json": _check_json,
    "$amount": _check_amount,
    "$number": _check_number,
    "$count": _check_count,
    "$date": _check_date,
    "$time": _check_time,
    "$name": _check_name,
    "$none": _check_none,
    "$none_of": _check_none_of,
    "$first": _check_first,
    "$state": _check_state,
    "$verdict": _check_verdict,
}


# ---- validation of operands ------------------------------------------------------------------


def _need(ok: bool, op: str, operand: Any, what: str) -> None:
    if not ok:
        raise ValueError(f"matcher {{{op!r}: {_show(operand)}}}: {what}")


def _valid_eq(operand: Any) -> None:
    _need(operand is None or isinstance(operand, (str, int, float, list, dict)), "$eq", operand, "not a JSON value")


def _valid_phone(operand: Any) -> None:
    _need(isinstance(operand, str) and bool(_digits(operand)), "$phone", operand, "needs a phone number string")


def _valid_contains(operand: Any) -> None:
    _need(isinstance(operand, str), "$contains", operand, "needs a string")


def _valid_contains_all(operand: Any) -> None:
    def item_ok(item: Any) -> bool:
        if isinstance(item, dict):
            options = item.get("$any")
            return (
                len(item) == 1
                and isinstance(options, list)
                and bool(options)
                and all(isinstance(o, str) for o in options)
            )
        return isinstance(item, str)

    _need(
        isinstance(operand, list) and bool(operand) and all(item_ok(i) for i in operand),
        "$contains_all",
        operand,
        'needs a non-empty list of strings or {"$any": [strings]}',
    )


def _valid_any(operand: Any) -> None:
    _need(isinstance(operand, list) and bool(operand), "$any", operand, "needs a non-empty list of matchers")
    for option in operand:
        validate_matcher(option)


def _valid_regex(operand: Any) -> None:
    _need(isinstance(operand, str), "$regex", operand, "needs a pattern string")
    try:
        re.compile(operand)
    except re.error as exc:
        raise ValueError(f"matcher {{'$regex': {operand!r}}}: bad pattern ({exc})") from exc


def _valid_interval(op: str) -> Callable[[Any], None]:
    def check(operand: Any) -> None:
        ok = isinstance(operand, list) and len(operand) == 2 and all(_is_number(v) for v in operand)
        _need(ok, op, operand, "needs two numbers")
        if op == "$range":
            _need(operand[0] <= operand[1], op, operand, "low bound above high bound")
        else:
            _need(operand[1] >= 0, op, operand, "tolerance must be >= 0")

    return check


def _valid_dt_between(operand: Any) -> None:
    bounds = [_parse_dt(b) for b in operand] if isinstance(operand, list) and len(operand) == 2 else []
    ok = len(bounds) == 2 and None not in bounds
    _need(ok, "$dt_between", operand, "needs two YYYY-MM-DDTHH:MM[:SS] strings")
    _need(bounds[0] <= bounds[1], "$dt_between", operand, "start after end")  # type: ignore[operator]


def _valid_absent(operand: Any) -> None:
    _need(isinstance(operand, bool), "$absent", operand, "needs true or false")


def _valid_set(operand: Any) -> None:
    _need(isinstance(operand, list), "$set", operand, "needs a list of matchers")
    for item in operand:
        validate_matcher(item)


def _valid_quantity(op: str) -> Callable[[Any], None]:
    def check(operand: Any) -> None:
        if _is_number(operand):
            return
        keys = {"value", "tolerance"} | ({"currency"} if op == "$amount" else set())
        _need(
            isinstance(operand, dict) and "value" in operand and set(operand) <= keys,
            op,
            operand,
            f"needs a number or an object with value and optionally {', '.join(sorted(keys - {'value'}))}",
        )
        _need(_is_number(operand["value"]), op, operand, "value must be a number")
        tolerance = operand.get("tolerance", 0)
        _need(_is_number(tolerance) and tolerance >= 0, op, operand, "tolerance must be a number >= 0")
        currency = operand.get("currency")
        _need(
            currency is None or (isinstance(currency, str) and currency in facts.CURRENCY_CODES),
            op,
            operand,
            f"currency must be one of {', '.join(sorted(facts.CURRENCY_CODES))}",
        )

    return check


def _valid_count(operand: Any) -> None:
    _need(
        isinstance(operand, int) and not isinstance(operand, bool) and operand >= 0,
        "$count",
        operand,
        "needs a whole number >= 0",
    )


def _valid_date(operand: Any) -> None:
    try:
        ok = isinstance(operand, str) and dt.date.fromisoformat(operand).isoformat() == operand
    except ValueError:
        ok = False
    _need(ok, "$date", operand, "needs a YYYY-MM-DD date")


def _valid_time(operand: Any) -> None:
    ok = isinstance(operand, str) and re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", operand) is not None
    _need(ok, "$time", operand, "needs an HH:MM time (24 h)")


def _valid_name(operand: Any) -> None:
    _need(isinstance(operand, str) and bool(facts.fold(operand)), "$name", operand, "needs a non-empty name")


def _valid_none(operand: Any) -> None:
    _need(operand is True, "$none", operand, "needs true")


def _valid_none_of(operand: Any) -> None:
    def names(value: Any) -> bool:
        return isinstance(value, list) and bool(value) and all(isinstance(n, str) and facts.fold(n) for n in value)

    ok = names(operand) or (
        isinstance(operand, dict) and set(operand) == {"names", "as", "unlike"} and all(map(names, operand.values()))
    )
    _need(ok, "$none_of", operand, 'needs a non-empty list of names, or {"names", "as", "unlike"}: three such lists')


_STATE_WORDS = ", ".join(sorted(w for g in facts.STATE_GROUPS for w in g[0] | g[1]))


def _valid_first(operand: Any) -> None:
    ok = (
        isinstance(operand, dict)
        and set(operand) == {"name", "others"}
        and isinstance(operand["name"], str)
        and bool(facts.fold(operand["name"]))
        and isinstance(operand["others"], list)
        and all(isinstance(n, str) and facts.fold(n) for n in operand["others"])
    )
    _need(ok, "$first", operand, "needs a name and a list of other names")


def _valid_verdict(operand: Any) -> None:
    value, about = (operand.get("value"), operand.get("about")) if isinstance(operand, dict) else (operand, [])
    ok = (
        value in ("yes", "no")
        and (not isinstance(operand, dict) or set(operand) == {"value", "about"})
        and isinstance(about, list)
        and all(isinstance(n, str) and facts.fold(n) for n in about)
    )
    _need(ok, "$verdict", operand, 'needs "yes" or "no", or {"value": "yes" or "no", "about": [names]}')


def _valid_state(operand: Any) -> None:
    ok_shape = isinstance(operand, str) or (
        isinstance(operand, dict) and "value" in operand and set(operand) <= {"value", "asked", "subject"}
    )
    _need(ok_shape, "$state", operand, "needs a state word or an object with value, optionally asked and subject")
    value, asked, _subjects = _state(operand)
    group = facts.state_group(value) if isinstance(value, str) else None
    _need(group is not None, "$state", operand, f"value must be one of {_STATE_WORDS}")
    _need(
        asked is None or (isinstance(asked, str) and facts.state_group(asked) == group),
        "$state",
        operand,
        "asked must be a state word of the same kind as value",
    )
    raw = operand.get("subject", []) if isinstance(operand, dict) else []
    _need(
        isinstance(raw, list) and all(isinstance(n, str) and facts.fold(n) for n in raw),
        "$state",
        operand,
        "subject must be a list of names",
    )


_VALIDATORS: dict[str, Callable[[Any], None]] = {
    "$eq": _valid_eq,
    "$phone": _valid_phone,
    "$contains": _valid_contains,
    "$contains_all": _valid_contains_all,
    "$any": _valid_any,
    "$regex": _valid_regex,
    "$range": _valid_interval("$range"),
    "$approx": _valid_interval("$approx"),
    "$dt_between": _valid_dt_between,
    "$absent": _valid_absent,
    "$set": _valid_set,
    "$json": validate_matcher,
    "$amount": _valid_quantity("$amount"),
    "$number": _valid_quantity("$number"),
    "$count": _valid_count,
    "$date": _valid_date,
    "$time": _valid_time,
    "$name": _valid_name,
    "$none": _valid_none,
    "$none_of": _valid_none_of,
    "$first": _valid_first,
    "$state": _valid_state,
    "$verdict": _valid_verdict,
}
