"""Lint for what a model reads: template debris in queries, and worlds that contradict themselves.

Each rule is a pure function of text (and the world's frozen "now"), so a rule can be tried on a crafted
string. The gates (``sandbox.generator.gates``) run them over every task and every persona world.

Query rules: ``doubled_word`` ("bill bill", "The The", "the The Art of War"), ``please_twice``
("Please … Please."), ``article`` ("a exam", "a orthopedics", "an book"), ``preposition_pair`` ("for on
2025-01-22"), ``stray_punctuation`` ("on track., then", ". ,"), ``weekday_date`` (a weekday that is
not the weekday of the date, or of today / tomorrow, it stands next to), ``meal_time`` (a meal word
whose time is not a time for that meal).

World rules: ``memory_after_now`` (a memory record dated after the world's now), ``relationship``
(one person with two kinship roles, a one-person role such as mother held by two people or by someone
who is also something else, a birthday the contact and the memory disagree on), ``stale_temporary``
(a temporary fact, "spending the year in Berlin", whose span had ended by now, used as current).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)


@dataclass(frozen=True)
class Finding:
    """One rule's complaint: the rule, the offending text (or record), and why."""

    rule: str
    subject: str
    detail: str


# ---- queries ---------------------------------------------------------------------------------------------------

_DOUBLED = re.compile(r"\b([A-Za-z]+)\s+\1\b", re.IGNORECASE)
_PLEASE_BOTH_ENDS = re.compile(r"^\W*please\b.*\bplease\W*$", re.IGNORECASE | re.DOTALL)
# "a"/"an" in running text, or capitalised where a sentence starts ("Plan A is" is not an article)
_ARTICLE = re.compile(r"(?:(?<=^)|(?<=[.!?:;]\s)|(?<=[\s(\"']))(?:(a|an)|(?<![\w\s])(A|An)|^(A|An))\s+([A-Za-z][\w-]*)")
# vowel letters that read as a consonant sound ("a one-way", "a unit", "a European") and silent h ("an hour")
_A_BEFORE_VOWEL = ("one", "once", "uni", "use", "usu", "uti", "ura", "ure", "uro", "ubi", "eu", "ewe", "u-")
_AN_BEFORE_CONSONANT = ("hour", "honest", "honor", "honour", "heir", "herb")
_DATE_WORDS = (
    r"(?:today|tomorrow|tonight|\d{4}-\d{2}-\d{2}|(?:" + "|".join(WEEKDAYS) + r")s?|"
    r"\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2})"
)
_PREPOSITION_PAIR = re.compile(r"\b(for|at|by|in|to)\s+(on|at)\s+" + _DATE_WORDS + r"\b", re.IGNORECASE)
_STRAY = re.compile(r"[.,;:]\s*[,;:]|,\s*\.(?!\.)|\s[,;:]|\s\.(?![\w.])")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DATE = re.compile(r"\b(" + "|".join(MONTHS) + r")\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?\b", re.IGNORECASE)
_WEEKDAY = re.compile(r"\b(" + "|".join(WEEKDAYS) + r")s?\b", re.IGNORECASE)
_RELATIVE_DAY = re.compile(r"\b(today|tonight|tomorrow|yesterday)\b", re.IGNORECASE)
_RELATIVE_OFFSET = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1}
_CLAUSE_BREAK = re.compile(r"[.;!?](?:\s|$)|\bthen\b|\band\b", re.IGNORECASE)
_NEAR = 40  # characters: a weekday this close to a date, in the same clause, names that date
_MEAL = re.compile(r"\b(breakfast|brunch|lunch|dinner|supper)(?:es|s)?\b", re.IGNORECASE)
_TIME = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b|(?<![\d:])(\d{1,2}):(\d{2})(?![\d:])", re.IGNORECASE)
MEAL_HOURS = {
    "breakfast": (5.0, 11.0),
    "brunch": (9.0, 14.0),
    "lunch": (10.5, 16.0),
    "dinner": (16.5, 23.5),
    "supper": (16.5, 23.5),
}  # [from, to] in hours of the day


def query_findings(text: str, now: dt.datetime) -> list[Finding]:
    """Every query rule's findings on one text the user says (the query, or a user turn of H0)."""
    return [
        *doubled_words(text),
        *please_twice(text),
        *articles(text),
        *preposition_pairs(text),
        *stray_punctuation(text),
        *weekday_dates(text, now),
        *meal_times(text),
    ]


def doubled_words(text: str) -> list[Finding]:
    return [Finding("doubled_word", m.group(0), "a word repeated") for m in _DOUBLED.finditer(text)]


def please_twice(text: str) -> list[Finding]:
    if _PLEASE_BOTH_ENDS.search(text.strip()):
        return [Finding("please_twice", _excerpt(text, 0, len(text)), "'please' opens and closes the request")]
    return []


def articles(text: str) -> list[Finding]:
    found = []
    for m in _ARTICLE.finditer(text):
        article = (m.group(1) or m.group(2) or m.group(3)).lower()
        word = m.group(4)
        wants_an = _wants_an(word)
        if wants_an is not None and wants_an != (article == "an"):
            found.append(Finding("article", m.group(0), f"'{word}' takes '{'an' if wants_an else 'a'}'"))
    return found


def _wants_an(word: str) -> bool | None:
    """Whether ``word`` is read with a vowel sound first; None when that is unknown: digits, and
    acronyms (spelled out, "an SMS", or read as a word, "a HIIT class")."""
    if len(word) > 1 and word.isupper():
        return None
    lower = word.lower()
    if not lower[0].isalpha():
        return None
    if lower[0] in "aeiou":
        return not lower.startswith(_A_BEFORE_VOWEL)
    return lower.startswith(_AN_BEFORE_CONSONANT)


def preposition_pairs(text: str) -> list[Finding]:
    return [
        Finding("preposition_pair", m.group(0), "two prepositions in a row before a time or date")
        for m in _PREPOSITION_PAIR.finditer(text)
    ]


def stray_punctuation(text: str) -> list[Finding]:
    return [
        Finding("stray_punctuation", _excerpt(text, m.start(), m.end()), "punctuation out of place")
        for m in _STRAY.finditer(text)
    ]


def weekday_dates(text: str, now: dt.datetime) -> list[Finding]:
    """A weekday next to a date (ISO, "March 12", today, tomorrow) in the same clause must be its weekday."""
    found = []
    dates = [(m.start(), m.end(), _iso(m)) for m in _ISO_DATE.finditer(text)]
    dates += [(m.start(), m.end(), _month_date(m, now)) for m in _MONTH_DATE.finditer(text)]
    dates += [
        (m.start(), m.end(), (now + dt.timedelta(days=_RELATIVE_OFFSET[m.group(1).lower()])).date())
        for m in _RELATIVE_DAY.finditer(text)
    ]
    for start, end, day in dates:
        if day is None:
            continue
        weekday = _nearest(text, start, end, _WEEKDAY)
        if weekday is not None and weekday.group(1).lower() != WEEKDAYS[day.weekday()]:
            found.append(
                Finding(
                    "weekday_date",
                    _excerpt(text, min(start, weekday.start()), max(end, weekday.end())),
                    f"{day.isoformat()} is a {WEEKDAYS[day.weekday()].capitalize()}",
                )
            )
    return found


def meal_times(text: str) -> list[Finding]:
    """A meal word and the nearest time of its clause must fit (lunch at 5:30pm does not)."""
    found = []
    for m in _MEAL.finditer(text):
        time = _nearest(text, m.start(), m.end(), _TIME, reach=60, past_dates=True)
        if time is None:
            continue
        hours = _hours(time)
        meal = m.group(1).lower()
        lo, hi = MEAL_HOURS[meal]
        if hours is not None and not lo <= hours <= hi:
            found.append(
                Finding(
                    "meal_time",
                    _excerpt(text, min(m.start(), time.start()), max(m.end(), time.end())),
                    f"{time.group(0)} is not a time for {meal}",
                )
            )
    return found


def _iso(m: re.Match[str]) -> dt.date | None:
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def _month_date(m: re.Match[str], now: dt.datetime) -> dt.date | None:
    """ "March 12" (the year: as stated, else the one that puts it nearest to now)."""
    month, day = MONTHS.index(m.group(1).lower()) + 1, int(m.group(2))
    years = [int(m.group(3))] if m.group(3) else [now.year - 1, now.year, now.year + 1]
    candidates = []
    for year in years:
        try:
            candidates.append(dt.date(year, month, day))
        except ValueError:
            continue
    return min(candidates, key=lambda d: abs((d - now.date()).days), default=None)


def _nearest(
    text: str, start: int, end: int, pattern: re.Pattern[str], reach: int = _NEAR, past_dates: bool = False
) -> re.Match[str] | None:
    """The match of ``pattern`` closest to ``text[start:end]`` within ``reach`` characters and no clause
    break (nor, unless ``past_dates``, another date: a weekday belongs to the date it stands next to)."""
    best: tuple[int, re.Match[str]] | None = None
    for m in pattern.finditer(text):
        if m.start() < end and m.end() > start:
            continue
        lo, hi = (end, m.start()) if m.start() >= end else (m.end(), start)
        distance = hi - lo
        between = text[lo:hi]
        if distance > reach or _CLAUSE_BREAK.search(between) or (not past_dates and _ISO_DATE.search(between)):
            continue
        if best is None or distance < best[0]:
            best = (distance, m)
    return best[1] if best else None


def _hours(m: re.Match[str]) -> float | None:
    if m.group(3):  # 12-hour clock
        hour, minute = int(m.group(1)), int(m.group(2) or 0)
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if m.group(3).lower() == "pm" else 0)
    else:
        hour, minute = int(m.group(4)), int(m.group(5))
        if hour > 23:
            return None
    return hour + minute / 60


def _excerpt(text: str, start: int, end: int, pad: int = 12) -> str:
    return text[max(0, start - pad) : end + pad].strip()


# ---- worlds ----------------------------------------------------------------------------------------------------

ROLE_SYNONYMS = {
    "wife": "spouse",
    "husband": "spouse",
    "partner": "spouse",
    "spouse": "spouse",
    "mom": "mother",
    "mum": "mother",
    "mother": "mother",
    "dad": "father",
    "father": "father",
    "boss": "boss",
    "manager": "boss",
}
ONE_PERSON_ROLES = frozenset({"spouse", "mother", "father", "boss"})
# one person holds at most one of these; other roles combine freely (a neighbor can be a climbing partner)
KINSHIP = frozenset(
    {
        "spouse",
        "mother",
        "father",
        "sister",
        "brother",
        "daughter",
        "son",
        "cousin",
        "grandmother",
        "grandfather",
        "granddaughter",
        "grandson",
        "uncle",
        "aunt",
        "niece",
        "nephew",
        "godmother",
        "godfather",
        "goddaughter",
        "godson",
        "stepmother",
        "stepfather",
        "stepsister",
        "stepbrother",
    }
)
_NAME = r"(?:Dr\.\s)?[A-Z][\w'-]*(?:\s[A-Z][\w'-]*)*"
_IS_MY = re.compile(rf"(?P<name>{_NAME}) is my (?P<role>[a-z]+(?: [a-z]+)?)")
_MY_IS = re.compile(rf"\b[Mm]y (?P<role>[a-z]+) is (?P<name>{_NAME})")
_PAREN = re.compile(rf"\b(?P<role>Mom|Mum|Dad)\s*\((?P<name>{_NAME})\)")
_BIRTHDAY = re.compile(r"birthday is (" + "|".join(m.capitalize() for m in MONTHS) + r") (\d{1,2})\b")
# a fact true for a span of time: "spending the year in Berlin", "staying in Rome this month"
_TEMPORARY = re.compile(
    r"\b(?:spending|staying|living|working|studying|based)\b[^.]*?\b(?:the|this)\s+"
    r"(year|semester|term|summer|winter|month|week)\b",
    re.IGNORECASE,
)
SPAN_DAYS = {"year": 366, "semester": 183, "term": 122, "summer": 92, "winter": 92, "month": 31, "week": 7}


def memory_after_now(memories: Iterable[dict[str, Any]], now: dt.datetime) -> list[Finding]:
    """Records whose ``valid_from`` or ``created_at`` is later than the world's frozen now."""
    found = []
    for r in memories:
        for key in ("valid_from", "created_at"):
            stamp = r.get(key)
            if isinstance(stamp, str) and _after(stamp, now):
                found.append(
                    Finding(
                        "memory_after_now",
                        str(r["memory_id"]),
                        f"{key} {stamp} is after now ({now:%Y-%m-%dT%H:%M}): {r['content']!r}",
                    )
                )
                break
    return found


def _after(stamp: str, now: dt.datetime) -> bool:
    if len(stamp) == 10:
        return stamp > now.strftime("%Y-%m-%d")
    return stamp[:16] > now.strftime("%Y-%m-%dT%H:%M")


def stated_relationships(memories: Iterable[dict[str, Any]]) -> Iterator[tuple[str, str, str]]:
    """(name, role, memory id) for every relationship an active record states."""
    for r in memories:
        if r.get("status", "active") != "active":
            continue
        for pattern in (_IS_MY, _MY_IS, _PAREN):
            for m in pattern.finditer(r["content"]):
                role = m.group("role").lower()
                yield m.group("name"), ROLE_SYNONYMS.get(role, role), str(r["memory_id"])


def relationships(memories: list[dict[str, Any]], contacts: list[dict[str, Any]]) -> list[Finding]:
    """A person with two kinship roles (or a one-person role and another), a one-person role (mother,
    spouse, boss) held by two people, or a birthday the memory and the contact disagree on."""
    roles: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))  # name -> role -> sources
    for c in contacts:
        if c.get("relationship"):
            role = c["relationship"].lower()
            roles[c["name"]][ROLE_SYNONYMS.get(role, role)].add(str(c["contact_id"]))
    for name, role, source in stated_relationships(memories):
        roles[name][role].add(source)
    found = []
    for name, held in sorted(roles.items()):
        exclusive = [r for r in held if r in KINSHIP or r in ONE_PERSON_ROLES]
        if len(exclusive) > 1 or (exclusive and exclusive[0] in ONE_PERSON_ROLES and len(held) > 1):
            found.append(
                Finding(
                    "relationship",
                    name,
                    "is " + " and ".join(f"{role} ({', '.join(sorted(src))})" for role, src in sorted(held.items())),
                )
            )
    holders: dict[str, set[str]] = defaultdict(set)
    for name, held in roles.items():
        for role in held:
            if role in ONE_PERSON_ROLES:
                holders[role].add(name)
    for role, names in sorted(holders.items()):
        if len(names) > 1:
            found.append(Finding("relationship", role, f"held by {len(names)} people: {', '.join(sorted(names))}"))
    return found + _birthdays(memories, contacts)


def _birthdays(memories: list[dict[str, Any]], contacts: list[dict[str, Any]]) -> list[Finding]:
    by_name = {c["name"]: c for c in contacts}
    found = []
    for r in memories:
        if r.get("status", "active") != "active" or not (m := _BIRTHDAY.search(r["content"])):
            continue
        names = [n for n in by_name if n in r["content"]]
        stated = f"{MONTHS.index(m.group(1).lower()) + 1:02d}-{int(m.group(2)):02d}"
        for name in names:
            birthday = by_name[name].get("birthday")
            if birthday and birthday[5:10] != stated:
                found.append(
                    Finding(
                        "relationship",
                        name,
                        f"birthday {birthday} in the contact, {m.group(1)} {m.group(2)} in {r['memory_id']}",
                    )
                )
    return found


def stale_temporary(record: dict[str, Any], now: dt.datetime) -> Finding | None:
    """A temporary fact whose span had ended by now ("spending the year in Berlin", dated three years ago)."""
    m = _TEMPORARY.search(record["content"])
    if not m or record.get("status", "active") != "active":
        return None
    since = dt.date.fromisoformat(str(record["valid_from"])[:10])
    span = SPAN_DAYS[m.group(1).lower()]
    if (now.date() - since).days <= span:
        return None
    return Finding(
        "stale_temporary",
        str(record["memory_id"]),
        f"{record['content']!r} dates from {since}, more than a {m.group(1).lower()} before now",
    )


def world_findings(now: dt.datetime, memories: list[dict[str, Any]], contacts: list[dict[str, Any]]) -> list[Finding]:
    """Every world rule over one world's memory and contacts (stale temporary facts only when active)."""
    stale = [f for r in memories if (f := stale_temporary(r, now))]
    return memory_after_now(memories, now) + relationships(memories, contacts) + stale
