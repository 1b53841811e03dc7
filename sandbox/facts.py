"""Facts stated in free text: amounts, numbers, counts, dates, times, names and an explicit "none".

The build reads them in the gold's ``finish`` answer (to derive a task's answer check) and the
verifier reads them in the planner's (to check it), so both read a fact the same way. Accepted
forms: amounts with a sign or code on either side and thousands separators ("$1,234.50",
"1234.5 USD", "€12", "12 euros"); dates as "2025-06-14", "2025/06/14", "14/06/2025" (either
day-month order), "June 14", "14 June 2025", "Saturday, 14th of June"; times as "09:00", "9:00 PM",
"9am", "noon", "midnight", or inside "2025-06-14T09:00"; counts as digits or words up to twenty.
A number matches within what its own digits state: "$15" states 15.24 rounded, "$15.00" does not.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

MONTHS = {
    name: n
    for n, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
COUNT_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
)
_DOLLARS = frozenset({"USD", "AUD", "CAD", "HKD", "SGD", "NZD", "TWD", "MXN"})
# How a currency is written next to an amount -> the ISO codes it may mean.
CURRENCY_MARKS: dict[str, frozenset[str]] = {
    "$": _DOLLARS,
    "us$": frozenset({"USD"}),
    "hk$": frozenset({"HKD"}),
    "s$": frozenset({"SGD"}),
    "a$": frozenset({"AUD"}),
    "c$": frozenset({"CAD"}),
    "€": frozenset({"EUR"}),
    "£": frozenset({"GBP"}),
    "¥": frozenset({"JPY", "CNY"}),
    "￥": frozenset({"JPY", "CNY"}),
    "₩": frozenset({"KRW"}),
    "₹": frozenset({"INR"}),
    "dollar": _DOLLARS,
    "dollars": _DOLLARS,
    "euro": frozenset({"EUR"}),
    "euros": frozenset({"EUR"}),
    "pound": frozenset({"GBP"}),
    "pounds": frozenset({"GBP"}),
    "yuan": frozenset({"CNY"}),
    "rmb": frozenset({"CNY"}),
    "yen": frozenset({"JPY"}),
    "won": frozenset({"KRW"}),
    "franc": frozenset({"CHF"}),
    "francs": frozenset({"CHF"}),
    "rupee": frozenset({"INR"}),
    "rupees": frozenset({"INR"}),
    "baht": frozenset({"THB"}),
}
CURRENCY_CODES = frozenset(
    {
        "USD",
        "EUR",
        "GBP",
        "JPY",
        "CNY",
        "KRW",
        "CHF",
        "AUD",
        "CAD",
        "HKD",
        "SGD",
        "NZD",
        "INR",
        "THB",
        "TWD",
        "MXN",
        "SEK",
        "NOK",
        "DKK",
        "AED",
        "BRL",
        "ZAR",
        "RUB",
        "TRY",
    }
)

_MARK = "|".join(sorted((re.escape(m) for m in CURRENCY_MARKS if not m.isalpha()), key=len, reverse=True))
_WORD = "|".join(
    sorted((m for m in (*CURRENCY_MARKS, *(c.lower() for c in CURRENCY_CODES)) if m.isalpha()), key=len, reverse=True)
)
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_QUANTITY = re.compile(
    rf"(?:(?P<pre>{_MARK}|\b(?:{_WORD})\b)\s?)?(?<![\w.,])(?P<sign>[-−])?(?P<num>{_NUMBER})(?![\w.]*\d)"
    rf"(?:\s?(?P<post>{_MARK}|(?:{_WORD})\b))?",
    re.IGNORECASE,
)
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(?P<year>\d{4}))?"
_DATES = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\b(?P<year>\d{4})[-/.](?P<month>\d{1,2})[-/.](?P<day>\d{1,2})(?!\d)",
        r"\b(?P<a>\d{1,2})/(?P<b>\d{1,2})(?:/(?P<year>\d{4}|\d{2}))?\b(?!/\d)",
        rf"\b{_MONTH}\s+{_DAY}\b{_YEAR}",
        rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}(?![a-z]){_YEAR}",
    )
]
_TIMES = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"(?:\b|T)(?P<h>[01]?\d|2[0-3])[:h](?P<m>[0-5]\d)(?::\d\d)?\s*(?P<ampm>[ap]\.?m\b\.?)?",
        r"\b(?P<h>1[0-2]|0?[1-9])(?:[.:](?P<m>[0-5]\d))?\s*(?P<ampm>[ap]\.?m\b\.?)",
        r"\b(?P<word>noon|midday|midnight)\b",
    )
]
_NONE = re.compile(
    r"\b(?:no|none|nothing|nobody|zero|neither|never|without|not any|not find|not found|empty)\b"
    r"|n't\s+(?:any|find|have|found)\b|(?<![\w.,])0(?:\.0+)?(?![\w.,]*\d)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Quantity:
    """A number as written: its value, the unit of its last digit, and the currencies its sign may mean."""

    value: float
    unit: float
    currencies: frozenset[str]

    def near(self, value: float, tolerance: float = 0.0) -> bool:
        """Whether the text's number states ``value``: equal within ``tolerance`` or its own rounding."""
        return abs(self.value - value) <= max(tolerance, self.unit / 2) + 1e-9


@functools.lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Casefolded, accents and punctuation dropped, whitespace collapsed: how names compare."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    return " ".join(re.sub(r"[\W_]+", " ", text).split())


def _masked(text: str) -> str:
    """The text with dates and times blanked out, so their digits are not read as quantities."""
    for pattern in (*_DATES, *_TIMES[:2]):
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


def _currencies(mark: str | None) -> frozenset[str]:
    if not mark:
        return frozenset()
    if mark.upper() in CURRENCY_CODES:
        return frozenset({mark.upper()})
    return CURRENCY_MARKS.get(mark.casefold(), frozenset())


def quantities(text: str) -> list[Quantity]:
    """Every number stated outside a date or time, with the currency written beside it."""
    found = []
    for m in _QUANTITY.finditer(_masked(text)):
        digits = m.group("num").replace(",", "")
        decimals = len(digits.partition(".")[2])
        value = float(digits) * (-1 if m.group("sign") else 1)
        found.append(Quantity(value, 10.0**-decimals, _currencies(m.group("pre") or m.group("post"))))
    return found


def count_words(text: str) -> list[int]:
    """Whole numbers stated as words up to twenty ("three"), in order."""
    return [COUNT_WORDS.index(w) for w in re.findall(r"[a-z]+", text.casefold()) if w in COUNT_WORDS]


def counts(text: str) -> list[int]:
    """Whole numbers stated as digits (outside dates and times) or as words up to twenty."""
    return count_words(text) + [int(q.value) for q in quantities(text) if q.unit == 1 and q.value >= 0]


def dates(text: str) -> set[tuple[int | None, int, int]]:
    """(year or None, month, day) of every date the text states; "04/06" gives both readings."""
    out: set[tuple[int | None, int, int]] = set()
    for pattern in _DATES:
        for m in pattern.finditer(text):
            parts = m.groupdict()
            year = int(parts["year"]) if parts.get("year") else None
            if year is not None and year < 100:
                year += 2000
            if parts.get("a"):
                readings = [(int(parts["b"]), int(parts["a"])), (int(parts["a"]), int(parts["b"]))]
            else:
                month = parts["month"]
                readings = [(int(month) if month.isdigit() else MONTHS[month.casefold()], int(parts["day"]))]
            out |= {(year, mo, d) for mo, d in readings if 1 <= mo <= 12 and 1 <= d <= 31}
    return out


def times(text: str) -> set[tuple[int, int]]:
    """(hour, minute) of every time stated; a bare "9:00" may be morning or evening."""
    out: set[tuple[int, int]] = set()
    for m in _TIMES[2].finditer(text):
        out.add((0, 0) if m.group("word").casefold() == "midnight" else (12, 0))
    for pattern in _TIMES[:2]:
        for m in pattern.finditer(text):
            hour, minute = int(m.group("h")), int(m.groupdict().get("m") or 0)
            ampm = (m.group("ampm") or "").casefold()
            if ampm:
                if not 1 <= hour <= 12:
                    continue
                out.add((hour % 12 + (12 if ampm.startswith("p") else 0), minute))
            else:
                out.add((hour, minute))
                if 1 <= hour < 12 and not m.group("h").startswith("0"):
                    out.add((hour + 12, minute))
    return out


def states_amount(text: str, value: float, tolerance: float = 0.0, currency: str | None = None) -> bool:
    """A number near ``value`` whose written currency, if any, can be ``currency``."""
    return any(
        q.near(value, tolerance) and (currency is None or not q.currencies or currency in q.currencies)
        for q in quantities(text)
    )


def states_count(text: str, n: int) -> bool:
    return n in counts(text)


def states_date(text: str, iso: str) -> bool:
    """``iso`` (YYYY-MM-DD) is stated, with its year or without one."""
    year, month, day = (int(p) for p in iso.split("-"))
    return any(y in (None, year) and (mo, d) == (month, day) for y, mo, d in dates(text))


def states_time(text: str, hhmm: str) -> bool:
    hour, minute = (int(p) for p in hhmm.split(":"))
    return (hour, minute) in times(text)


_SIBILANT = ("s", "x", "z", "ch", "sh", "o")
# names ending in s that are no plural of the word without it ("News" is not stated by "new")
NOT_PLURAL = frozenset(
    {
        "news",
        "series",
        "species",
        "lens",
        "gas",
        "yes",
        "always",
        "perhaps",
        "thanks",
        "thus",
        "physics",
        "mathematics",
        "economics",
        "politics",
        "athletics",
        "wales",
        "paris",
        "mars",
    }
)


@functools.lru_cache(maxsize=65536)
def number_forms(word: str) -> frozenset[str]:
    """``word`` with its regular plural or singular forms ("lemon"/"lemons", "berry"/"berries",
    "tomato"/"tomatoes", "box"/"boxes"), so "2 lemons" states "lemon"; words under 3 letters and
    endings that are no plural ("glass", "bus", "analysis", "news") are not made singular."""
    if len(word) < 3 or not word.isalpha() or word in NOT_PLURAL:
        return frozenset({word})
    singular: set[str] = set()
    if word.endswith(("ss", "us", "is")):  # glass, bus, analysis: singular already
        singular = set()
    elif word.endswith("ies") and len(word) > 4:
        singular = {word[:-3] + "y"}
    elif word.endswith("es") and word[:-2].endswith(_SIBILANT) and len(word) > 4:
        singular = {word[:-2], word[:-1]}  # boxes, horses
    elif word.endswith("s") and len(word) > 3:
        singular = {word[:-1]}
    if singular:
        return frozenset({word, *singular})
    if word.endswith("y") and word[-2] not in "aeiou":
        return frozenset({word, word[:-1] + "ies"})
    if word.endswith(_SIBILANT):
        return frozenset({word, word + "es", *([word + "s"] if word.endswith("o") else [])})
    return frozenset({word, word + "s"})


def same_noun(named: str, said: str) -> bool:
    """Whether the folded word ``said`` states the name's word ``named`` in the singular or plural, either
    way round ("menu"/"menus" although "menus" ends like "bus"). The name decides: a name in
    ``NOT_PLURAL`` is only itself ("new" does not state "News"), while a word said is read as the
    plural of any other name ("2 mars." states "mar")."""
    return named == said or (named not in NOT_PLURAL and (said in number_forms(named) or named in number_forms(said)))


def states_name(text: str, name: str) -> bool:
    """``name`` appears as whole words, ignoring case, accents, punctuation and spacing; its last
    word in the singular or plural ("2 lemons" states "lemon", "one berry" states "berries")."""
    *head, last = fold(name).split() or [""]
    said = fold(text).split()
    return bool(last) and any(
        said[i : i + len(head)] == head and same_noun(last, said[i + len(head)]) for i in range(len(said) - len(head))
    )


# a denial ("not", "no", "never", "don't" folded to "don t") governs the name it stands before, across at most
# ``_REACH`` words that only carry it over (an auxiliary, a pronoun, an article, a verb of having or offering:
# "don't have it in stock", "is no longer available"), never across a word that says something else ("won't be
# cold in London" denies the cold, not London); what only asks or supposes a name ("whether they have it",
# "if it's available") does neither
_DENIALS = frozenset({"not", "no", "never", "without", "nor", "cannot", "t"})
_SUPPOSALS = frozenset({"whether", "if", "unless"})
_REACH = 4
_CARRIERS = frozenset(
    {
        *("be", "been", "being", "is", "are", "was", "were", "s", "re", "have", "has", "had", "ve", "do", "does"),
        *("it", "them", "that", "this", "any", "a", "an", "the", "your", "my", "their", "its", "those", "these"),
        *("longer", "more", "yet", "currently", "sadly", "really", "actually", "even", "still", "quite", "at"),
        *("got", "get", "carry", "carrying", "offer", "offering", "sell", "selling", "serve", "serving", "stock"),
        *("find", "found", "see", "list", "listed", "show", "showing", "in", "on", "of", "for", "from", "anymore"),
    }
)
# after a name, a negated auxiliary then one of these denies it ("the fish is not available", "X isn't on the
# menu", "amazon.com was not breached"); other predicates deny something said of it ("Toronto won't be cold")
_NEGATED_AUX = frozenset(
    {"isn", "aren", "wasn", "weren", "doesn", "don", "didn", "won", "hasn", "haven", "can", "couldn"}
)
_AUX = frozenset({"is", "are", "was", "were", "does", "do", "did", "will", "has", "have", "had", "can", "s", "re"})
_PRESENCE = frozenset(
    {
        *("available", "offered", "served", "listed", "stocked", "sold", "carried", "included", "there", "on"),
        *("option", "among", "part", "breached", "compromised", "affected", "leaked", "exposed", "pwned"),
    }
)


_NOUNS_BEFORE_AUX = 2


def _negates(word: str, following: str) -> bool:
    """Whether two words make a negated auxiliary: "isn t" (folded "isn't"), "is not", "was never"."""
    return (word in _NEGATED_AUX and following == "t") or (word in _AUX and following in _DENIALS)


def _governs_before(before: list[str]) -> bool:
    """Whether a denial among the clause's words before a name (nearest last) reaches it."""
    for word in reversed(before[-_REACH:]):
        if word in _DENIALS:
            return True
        if word not in _CARRIERS:
            return False
    return False


def _governs_after(after: list[str]) -> bool:
    """Whether the clause's words after a name deny it: a negated auxiliary, then words that carry the
    denial over, then a word of its presence ("is not available", "isn't on the menu", "was never listed")."""
    # the auxiliary right after the name or its kind ("your amazon.com login was not breached", "GitHub" in
    # "github.com login")
    at = next((k for k in range(min(_NOUNS_BEFORE_AUX + 1, len(after) - 1)) if _negates(after[k], after[k + 1])), None)
    if at is None:
        return False
    rest = after[at + 2 :]
    for k, word in enumerate(rest[:_REACH]):
        if word in _PRESENCE or rest[k : k + 2] == ["in", "stock"]:  # not "in the phrase table": that is where
            return True
        if word not in _CARRIERS and word not in _DENIALS and word not in _AUX:
            return False
    return not rest  # "No, the fish isn't."


# a sentence that states how a name relates to a member before naming it ("this same password is reused on
# amazon.com, netflix.com", "also used on amazon.com") names it as a fact of that member, not as a member
_RELATION = re.compile(r"\b(?:also|re-?)\s*used\b|\breuse[sd]?\b|\bsame password\b|\bshared with\b", re.IGNORECASE)


# an aside naming an example of what its sentence goes on to say ("Your other logins, e.g. amazon.com, were not
# breached"): the next clause says it of the name
_ASIDES = frozenset({"eg", "ie", "such", "as", "like", "including", "say"})


class _Token(NamedTuple):
    """A folded word of a text and where it stands."""

    word: str
    clause: int  # a clause number, unique in the text
    question: bool  # inside a question
    related: bool  # after a relation its sentence states (``_RELATION``)
    stretch: int  # a stretch number: a sentence up to a contrast (``_CONTRASTS``)
    goes_on: bool  # its stretch goes on about the subject of the one before ("…, but it was placed earlier")
    label: bool  # the last word before a colon ("Pending: order_019")


# a contrast opens another stretch of a sentence, which goes on about the subject of the one before when its
# first word says so ("…, but it was placed earlier"); a list shares its predicate across commas and "and"
# ("order_016 and order_017 are shipped")
_CONTRASTS = re.compile(r"\b(?:but|however|whereas|while|although|though)\b|[—–]|\s-\s", re.IGNORECASE)
_SAME_SUBJECT = frozenset({"it", "they", "both", "this", "that", "these", "those", "he", "she", "was", "is", "were"})


@functools.lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[_Token, ...]:
    """The folded words of ``text`` with their clause, question, relation, stretch and label; read once per
    answer although a set check asks about each of its (often dozens of) names."""
    text = re.sub(r"\b(e)\.(g)\.|\b(i)\.(e)\.", lambda m: m.group(0).replace(".", ""), text, flags=re.IGNORECASE)
    tokens: list[_Token] = []
    clause = stretch = depth = 0
    goes_on = False
    for sentence in re.split(r"(?<=[.!?;])\s+|\n", text):
        question = sentence.rstrip().endswith("?")
        relation = _RELATION.search(sentence)
        unrelated = len(fold(sentence[: relation.end()]).split()) if relation else None  # words before it ends
        start = len(tokens)
        pieces = re.split(f"({_CLAUSES.pattern})", sentence)
        for k, piece in enumerate(pieces):
            clause += k % 2  # a separator (kept, so a name holding "and" is still found) opens a clause
            if k % 2:
                if _CONTRASTS.fullmatch(piece.strip() or piece):
                    following = fold(pieces[k + 1]).split()[:1] if k + 1 < len(pieces) else []
                    stretch, goes_on = stretch + 1, bool(set(following) & _SAME_SUBJECT)
                if piece.strip() == ":" and len(tokens) > start:
                    tokens[-1] = tokens[-1]._replace(label=True)
            tokens += [
                _Token(
                    w,
                    clause,
                    question,
                    unrelated is not None and len(tokens) + j - start >= unrelated,
                    stretch,
                    goes_on,
                    False,
                )
                for j, w in enumerate(fold(piece).split())
            ]
        clause += 1
        depth = max(0, depth + sentence.count("(") - sentence.count(")"))
        if depth <= 0:  # a parenthesis goes on across a ";" ("(kettle, jacket; €1,078.95) was placed …")
            stretch, goes_on = stretch + 1, False
    return tuple(tokens)


def name_mentions(text: str, name: str) -> list[tuple[int, bool, bool]]:
    """(word position, denied, related) of each mention of ``name`` in ``text`` that states or denies it: a
    mention is denied where a denial governs it (``_governs_before``, ``_governs_after``), and related where
    its sentence states a relation (``_RELATION``) before it; what is only asked or supposed ("whether they
    have it", "if it's available", a question other than the name alone) is no mention; the name's own
    words do not deny it ("no extra cost")."""
    *head, last = fold(name).split() or [""]
    if not last:
        return []
    tokens = _tokens(text)
    words = [t.word for t in tokens]
    found: list[tuple[int, bool, bool]] = []
    for i in range(len(words) - len(head)):
        if words[i : i + len(head)] != head or not same_noun(last, words[i + len(head)]):
            continue
        at, question, related = tokens[i].clause, tokens[i].question, tokens[i].related
        before = [t.word for t in tokens[:i] if t.clause == at]
        after = [t.word for t in tokens[i + len(head) + 1 :] if t.clause == at]
        if before and set(before) <= _ASIDES:  # "Your other logins, e.g. amazon.com, were not …"
            after += [t.word for t in tokens[i + len(head) + 1 :] if t.clause == at + 1]
        if (question and (before or after)) or set(before) & _SUPPOSALS:
            continue  # a question quoted whole ("In French: Comment allez-vous ?") still states itself
        found.append((i, _governs_before(before) or _governs_after(after), related))
    return found


def name_polarity(text: str, name: str) -> tuple[bool, bool]:
    """(stated plainly somewhere, denied somewhere) of ``name`` in ``text`` (``name_mentions``)."""
    found = name_mentions(text, name)
    return any(not denied for _, denied, _ in found), any(denied for _, denied, _ in found)


def affirms_name(text: str, name: str) -> bool:
    """``states_name`` read by polarity: the text states the name plainly at least once and no denial
    governs any mention of it ("not available", "they don't have it in stock", "the fish is not available",
    "No, it isn't open" do not affirm "available", "have it", "fish", "open"); a denial of something
    else in the clause ("It won't be cold in London", "not a great day for a picnic in Sydney") leaves
    the name stated."""
    plain, denied = name_polarity(text, name)
    return plain and not denied


def affirms_member(text: str, name: str, values: Collection[str] = (), others: Collection[str] = ()) -> bool:
    """``affirms_name`` of a set's member: a mention in a sentence stating the name's relation to a member
    before it ("this same password is reused on amazon.com") is a fact of that member, not a member
    stated; the same name listed as one ("breached: dropbox.com and amazon.com") is. Given the ``values``
    that make a member ("delivered") and the ``others`` of its defining properties ("shipped", "pending",
    "earlier"), a mention whose stretch states it another value (``states_other_value``) is none either:
    "order_016 and order_017 are shipped", "not delivered yet: order_016", "order_014 was also delivered,
    but it was placed earlier"."""
    found = name_mentions(text, name)
    tokens = _tokens(text) if values or others else ()
    width = len(fold(name).split())

    def claimed(i: int) -> bool:
        return not (tokens and states_other_value(tokens, i, width, values, others))

    plain = [i for i, denied, related in found if not denied and not related]
    return any(claimed(i) for i in plain) and not any(d for _, d, _ in found)


def _value_at(tokens: Sequence[_Token], k: int, values: Collection[str], others: Collection[str]) -> bool | None:
    """Whether the word at ``k`` states a member's value (True), another (False: one of ``others``, or a
    member's value denied, "not delivered yet"), or no value (None)."""
    word = tokens[k].word
    if word in others:
        return False
    if word not in values:
        return None
    return not _governs_before([t.word for t in tokens[max(0, k - _REACH) : k] if t.clause == tokens[k].clause])


def states_other_value(
    tokens: Sequence[_Token], i: int, width: int, values: Collection[str], others: Collection[str]
) -> bool:
    """Whether the stretch of the name at ``tokens[i : i + width]`` gives it a value other than a member's: the
    nearest label before it ("Pending: …", "not delivered yet: …") says, else the first value stated after
    it ("… are shipped"), else the nearest before; a stretch going on about it ("…, but it was placed earlier")
    says too."""
    values, others = {fold(v) for v in values}, {fold(o) for o in others}
    own = [k for k, t in enumerate(tokens) if t.stretch == tokens[i].stretch]
    before = [k for k in own if k < i]
    after = [k for k in own if k >= i + width]
    labels = [
        v for k in reversed(before) if tokens[k].label and (v := _value_at(tokens, k, values, others)) is not None
    ]
    stated = [v for k in after if (v := _value_at(tokens, k, values, others)) is not None]
    earlier = [v for k in reversed(before) if (v := _value_at(tokens, k, values, others)) is not None]
    if next(iter(labels or stated or earlier), None) is False:
        return True
    # the next stretch, going on about it, may give it another value of another property ("placed earlier")
    then = [
        k for k in range(i + width, len(tokens)) if tokens[k].stretch == tokens[i].stretch + 1 and tokens[k].goes_on
    ]
    return any(_value_at(tokens, k, values, others) is False for k in then)


def first_named(text: str, name: str, others: Iterable[str]) -> bool:
    """Whether ``text`` affirms ``name`` (``affirms_name``) and states it before any of ``others``: the one
    of many a superlative question asks for ("the cheapest is the Xiaomi 15; next is the iPhone 16") is
    the first candidate the answer names, so naming another first ("the cheapest is the iPhone 16; the
    Xiaomi 15 is pricier") answers with that other."""
    if not affirms_name(text, name):
        return False
    first = min(i for i, denied, _ in name_mentions(text, name) if not denied)
    return all(i > first for other in others for i, denied, _ in name_mentions(text, other) if not denied)


# a leading verdict of an answer to a yes/no question: an affirmation, or a denial ("No", "Nobody", "Not
# delayed", "It won't", "There wasn't", "There's no")
_YES = re.compile(r"^\W*(?:yes|yeah|yep|yup|indeed|correct|definitely|absolutely)\b", re.IGNORECASE)
_NO = re.compile(
    r"^\W*(?:no|nope|nobody|no\s+one|nothing|none|not|never|negative)\b"
    r"|^\W*(?:it|there|they|he|she|that|this|you|we)(?:\s+|')"
    r"(?:\w+n[’']t|cannot|(?:will|is|was|has|have|does|did|are|were|s|re)\s+(?:not|no|nothing|never)\b)",
    re.IGNORECASE,
)


def verdict(text: str) -> str | None:
    """The answer's leading yes/no: "yes" ("Yes, …", "Sure"), "no" ("No, …", "Nobody came", "Not delayed",
    "It won't …", "There's no …"), or None where it opens with neither."""
    if _YES.match(text):
        return "yes"
    if _NO.match(text):
        return "no"
    return None


def verdict_about(text: str, about: Iterable[str]) -> str | None:
    """The verdict an answer opening with none states of the property a yes/no question asks about, named by
    ``about`` ("delayed", "late"): "yes" where it affirms one of them ("it was delayed by 30 minutes"),
    "no" where it only denies them ("not delayed", "on time, no delay"), None where it names none or
    both affirms and denies them."""
    read = [name_polarity(text, name) for name in about]
    affirmed = any(plain and not denied for plain, denied in read)
    denied = any(denied and not plain for plain, denied in read)
    return "yes" if affirmed and not denied else "no" if denied and not affirmed else None


def states_none(text: str) -> bool:
    """An explicit empty result: "none", "no …", "nothing", "0"."""
    return _NONE.search(text) is not None


_ISO = re.compile(r"(?P<date>\d{4}-\d{2}-\d{2})?(?:T?(?P<time>\d{2}:\d{2})(?::\d{2})?)?")


def mentions(text: str, value: Any) -> bool:
    """Whether ``text`` states a result's ``value``: a date or time in any accepted form, a number
    within its written rounding, other text as whole words."""
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        return any(q.near(value) for q in quantities(text))
    if not isinstance(value, str) or not fold(value):
        return False
    iso = _ISO.fullmatch(value)
    if iso and (iso.group("date") or iso.group("time")):
        return bool(
            (iso.group("date") and states_date(text, iso.group("date")))
            or (iso.group("time") and states_time(text, iso.group("time")))
        )
    return states_name(text, value)


# ---- the state of a switch, a lock, a door: polarity read about the subject ----------------------

# (positive words, negative words) of each kind of state; a ``$state`` value names one of them
STATE_GROUPS = (
    (
        frozenset({"on", "enabled", "active", "activated", "running"}),
        frozenset({"off", "disabled", "inactive", "deactivated"}),
    ),
    (frozenset({"locked"}), frozenset({"unlocked"})),
    (frozenset({"closed", "shut"}), frozenset({"open", "opened"})),
    (frozenset({"connected", "online"}), frozenset({"disconnected", "offline"})),
    (frozenset({"charging"}), frozenset({"discharging"})),
    (frozenset({"over"}), frozenset({"within", "under"})),  # a budget: "over budget", "within budget"
)
_AMBIGUOUS = frozenset({"on", "off", "open", "active", "running", "online", "over", "under"})  # also a preposition...
_COPULAS = frozenset(
    {
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "remains",
        "remain",
        "stays",
        "stay",
        "seems",
        "appears",
        "looks",
    }
)
_SKIPPED = frozenset(
    {
        "currently",
        "still",
        "now",
        "already",
        "right",
        "presently",
        "actually",
        "fully",
        "completely",
        "switched",
        "turned",
        "set",
        "kept",
        "left",
        "all",
        "both",
        "also",
        "indeed",
        "definitely",
        "really",
        "properly",
        "securely",
        "just",
        "longer",
        "yet",
    }
)
_NEGATION = frozenset({"not", "never", "no"})
_PRONOUNS = frozenset(
    {"it", "that", "this", "they", "you", "everything", "which", "mode", "feature", "setting", "subj"}
)
# what may follow "on"/"off"/"open" stating a state ("is on right now"), not a place ("on your phone")
_FOLLOWERS = frozenset(
    {
        "right",
        "now",
        "currently",
        "at",
        "already",
        "too",
        "again",
        "still",
        "as",
        "so",
        "for",
        "until",
        "till",
        "since",
        "and",
        "but",
        "which",
        "because",
        "though",
        "yet",
        "while",
        "with",
        "today",
        "tonight",
        "anymore",
        "either",
        "on",
        "off",
        "in",
    }
)
# what may follow "over"/"under" stating a budget's state ("over budget", "over your limit by 20")
_BUDGET_FOLLOWERS = frozenset({"budget", "the", "your", "my", "limit", "by"})
_ANSWER = re.compile(r"^\W*(?P<word>yes|yeah|yep|yup|no|nope)\b(?=\s*(?:[^\w\s]|$))", re.IGNORECASE)
_CLAUSES = re.compile(r"[,;:!()\n—–]|\.(?!\w)|\s-\s|\b(?:but|and|while|whereas|so|though|although)\b")
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def state_group(word: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """The (positive, negative) words of the state ``word`` names, or None."""
    return next((g for g in STATE_GROUPS if word.casefold() in g[0] | g[1]), None)


def _subject_blanked(text: str, subjects: tuple[str, ...]) -> str:
    """The text lowercased with its subject's names as the token "subj", and "Do Not Disturb" as "dnd"
    (a name, no negation)."""
    text = text.replace("’", "'").lower()
    for name in sorted(subjects, key=len, reverse=True):
        words = _TOKEN.findall(name.lower())
        if words:
            text = re.sub(r"\b" + r"\W+".join(map(re.escape, words)) + r"\b", " subj ", text)
    return re.sub(r"\bdo\W+not\W+disturb\b", " dnd ", text)


def state_assertions(text: str, value: str, asked: str | None = None, subjects: tuple[str, ...] = ()) -> list[bool]:
    """What the text asserts about the state ``value`` names: True per statement of ``value``'s side
    (positive or negative word of its group), False per statement of the opposite. Read are a leading
    yes/no (affirming or denying ``asked``, the state the user asked about), "<subject> is [not] on",
    "isn't enabled", "it's locked", a clause opening with the state ("Currently off."); not read are
    questions, actions ("until you turn it off"), "on" as a preposition ("on your phone"), and, when
    ``subjects`` are given, what is said of another subject ("Wi-Fi is on")."""
    group = state_group(value)
    if group is None:
        return []
    positive, negative = group
    wanted = value.casefold() in positive
    found: list[bool] = []
    if asked is not None and (lead := _ANSWER.match(text)):
        says_yes = lead.group("word").lower() in ("yes", "yeah", "yep", "yup")
        found.append(((asked.casefold() in positive) == says_yes) == wanted)
    subject_words = {w for s in subjects for w in _TOKEN.findall(s.lower())} - {"the", "a", "my", "your"}
    # a statement then a question after ";" or a dash ("The engine is running; want me to turn it off?")
    for sentence in re.split(r"(?<=[.!?;])\s+|\s*[—–]\s*|\s-\s|\n", _subject_blanked(text, subjects)):
        if sentence.rstrip().endswith("?"):
            continue
        for clause in _CLAUSES.split(sentence):
            tokens = _TOKEN.findall(clause)
            for i, token in enumerate(tokens):
                if token not in positive | negative:
                    continue
                negated = _asserted(tokens, i, subject_words if subjects else None)
                if negated is not None:
                    found.append(((token in positive) != negated) == wanted)
    return found


def _asserted(tokens: list[str], i: int, subject_words: set[str] | None) -> bool | None:
    """Whether tokens[i], a state word, is stated negated (True) or plainly (False); None if it is
    not stated of the subject (``subject_words`` None: of anything)."""
    followers = _FOLLOWERS | _BUDGET_FOLLOWERS if tokens[i] in ("over", "under") else _FOLLOWERS
    if tokens[i] in _AMBIGUOUS and i + 1 < len(tokens) and tokens[i + 1] not in followers:
        return None
    negated, j = False, i - 1
    while j >= 0 and (tokens[j] in _SKIPPED or tokens[j] in _NEGATION):
        negated ^= tokens[j] in _NEGATION
        j -= 1
    if j < 0:
        return negated  # the clause opens with the state: "Currently off", "Not charging"
    token = tokens[j]
    before: str | None
    if token in _COPULAS:
        before = tokens[j - 1] if j > 0 else None
    elif token.endswith("n't"):
        negated, before = not negated, tokens[j - 1] if j > 0 else None
    elif token.endswith(("'s", "'re", "'m")):
        before = token.split("'")[0]
    elif tokens[i] in _AMBIGUOUS:
        return None  # "turn it off", "on" without a verb
    else:
        before = token  # "DND disabled", "phone charging"
    if before is None or subject_words is None or before in _PRONOUNS or before in subject_words:
        return negated
    return None


def states_state(text: str, value: str, asked: str | None = None, subjects: tuple[str, ...] = ()) -> bool:
    """The text states ``value`` (at least once) and never its opposite."""
    found = state_assertions(text, value, asked, subjects)
    return bool(found) and all(found)
