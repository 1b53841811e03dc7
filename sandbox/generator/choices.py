"""Free choices: required arguments the planner fills with a choice of its own, and checks that pin them.

A gold call's required argument is **determined** when what the model read before that call states
it: the phone's context, the dialogue, the query, and every earlier gold result (the world it read,
the memory it searched, the user's answers to its questions). It is **free** otherwise: the time of a
note the user gave no time for, a temperature nobody named, a title in words of the gold's own.

- a time or date-time is free when its time is neither stated nor a stated time moved by a stated
  number of minutes or hours (an alarm 30 minutes before a 07:00 class, an event's end after its
  stated length); its day is what the query's relative words fix;
- free text (words with spaces: a title, a note) is free when it is not stated as whole words;
- anything else is never free: numbers and codes are read, counted or named (a party's size, a
  currency, an app id), booleans and enum values are picked by the request's verb (on/off, a kind),
  and entity ids are held by the ``unseen_id`` gate.

A check **pins** a free value when it expects that very value (a plain value, ``$eq``, or inside
``$json``); the build relaxes each pinned free value to what the task determines (``relax``): a
date-time to its day (``$dt_between``), a time to any time, a text to ``$contains_all`` of the words of
it the model was told (present when none). The build's ``free_choice``
gate counts the pinned free values left in a finished check.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sandbox import facts
from sandbox.tooling import REGISTRY

_DATETIME = re.compile(r"(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::\d{2})?")
_TIME = re.compile(r"\d{2}:\d{2}")
# a stated length of time: "90 minutes", "1.5 h", "2-hour", "an hour", a result's "duration_min": 45
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*-?\s*(minutes?|mins?|hours?|hrs?|h)\b", re.IGNORECASE)
_DURATION_FIELD = re.compile(r'"\w*(?:_min|_minutes)": (\d+)')
_AN_HOUR = re.compile(r"\b(half )?an hour\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+")
# check keys whose values the planner does not write (rows to match, the call's bookkeeping, the answer)
_NOT_ARGUMENTS = frozenset(
    {"match", "ask_before", "confirmed_by", "forbid", "answer", "route", "evidence", "after", "tool", "follow_up"}
)
_STOP = frozenset({"the", "and", "for", "with", "from", "into", "onto", "this", "that", "my", "our", "your"})


@dataclass(frozen=True)
class Choice:
    """A required argument of a successful gold call whose value nothing the model read determines."""

    step: int  # 1-based gold step
    tool: str
    argument: str
    value: Any
    told: tuple[str, ...]  # the value's words the model was told (text values)


def _seen_text(texts: Sequence[str]) -> str:
    """What the model read, with ISO date-times split so their times read as times."""
    return _DATETIME.sub(r"\1 \2", "\n".join(texts))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _enum_values(tool: str, argument: str) -> set[Any]:
    prop = REGISTRY[tool].parameters.get("properties", {}).get(argument, {})
    found: set[Any] = set()
    for spec in (prop, *prop.get("anyOf", [])):
        found |= set(spec.get("enum", []))
    return found


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if (len(w) > 2 or w.isdigit()) and w.casefold() not in _STOP]


def _derived_time(hhmm: str, seen: str) -> bool:
    """``hhmm`` is a time stated in ``seen``, or one moved by a number of minutes or hours stated there."""
    hour, minute = (int(p) for p in hhmm.split(":"))
    stated = facts.times(seen)
    if (hour, minute) in stated:
        return True
    shifts = {30 if half else 60 for half in _AN_HOUR.findall(seen)}
    shifts |= {round(float(n) * (60 if unit[0].casefold() == "h" else 1)) for n, unit in _DURATION.findall(seen)}
    shifts |= {int(n) for n in _DURATION_FIELD.findall(seen)}
    at = hour * 60 + minute
    return any((at - (h * 60 + m)) % (24 * 60) in shifts or (h * 60 + m - at) % (24 * 60) in shifts for h, m in stated)


def is_free(value: Any, seen: str) -> bool:
    """Whether ``value`` is a choice of the planner's own, given the text ``seen`` it read."""
    if not isinstance(value, str):
        return False
    if m := _DATETIME.fullmatch(value):
        return not _derived_time(m.group(2), seen)
    if _TIME.fullmatch(value):
        return not _derived_time(value, seen)
    return len(value.split()) > 1 and not facts.states_name(seen, value)


def free_choices(prompt: Sequence[str], gold: Sequence[dict[str, Any]], results: Sequence[Any]) -> list[Choice]:
    """The free required arguments of the gold's successful domain calls (see the module docstring)."""
    texts = list(prompt)
    found: list[Choice] = []
    for n, (action, result) in enumerate(zip(gold, results, strict=True), start=1):
        spec = REGISTRY.get(action["name"])
        if spec is not None and spec.is_domain_tool and result.get("Status") == "success":
            seen = _seen_text(texts)
            for name in spec.parameters.get("required", []):
                value = action["arguments"].get(name)
                if is_free(value, seen) and value not in _enum_values(action["name"], name):
                    told = (
                        tuple(w for w in _words(value) if facts.states_name(seen, w)) if isinstance(value, str) else ()
                    )
                    found.append(Choice(n, action["name"], name, value, told))
        texts.append(_dumps(result))
    return found


def _same(expected: Any, value: Any) -> bool:
    if isinstance(expected, str) and isinstance(value, str):
        return " ".join(expected.casefold().split()) == " ".join(value.casefold().split())
    if isinstance(expected, bool) or isinstance(value, bool):
        return False
    return isinstance(expected, int | float) and isinstance(value, int | float) and expected == value


def _literal(matcher: Any) -> tuple[bool, Any]:
    """(True, the value) when a matcher expects one exact scalar value."""
    if isinstance(matcher, dict) and set(matcher) == {"$eq"}:
        return True, matcher["$eq"]
    if isinstance(matcher, str | int | float) and not isinstance(matcher, bool):
        return True, matcher
    return False, None


def pinned(check: Any, value: Any) -> bool:
    """Whether ``check`` expects exactly ``value`` where the planner's arguments land."""
    return any(True for _ in _pins(check, value))


def _pins(node: Any, value: Any) -> Iterator[tuple[Any, Any]]:
    """(container, key) of every place of ``node`` that expects exactly ``value``."""
    items: Iterator[tuple[Any, Any]]
    if isinstance(node, dict):
        if set(node) == {"$json"}:
            items = iter([("$json", node["$json"])])
        elif any(str(k).startswith("$") for k in node):
            return
        else:
            items = ((k, v) for k, v in node.items() if k not in _NOT_ARGUMENTS)
    elif isinstance(node, list):
        items = enumerate(node)
    else:
        return
    for key, child in list(items):
        exact, expected = _literal(child)
        if exact and _same(expected, value):
            yield node, key
        else:
            yield from _pins(child, value)


def relaxed(choice: Choice) -> Any:
    """What the task determines of a free value: its day, any time, the words the model was told, or any value."""
    if isinstance(choice.value, str) and (m := _DATETIME.fullmatch(choice.value)):
        return {"$dt_between": [f"{m.group(1)}T00:00", f"{m.group(1)}T23:59"]}
    if isinstance(choice.value, str) and _TIME.fullmatch(choice.value):
        return {"$regex": r"^\d{2}:\d{2}$"}
    if choice.told:
        return {"$contains_all": list(choice.told)}
    return {"$absent": False}


def relax(check: dict[str, Any], choices: Sequence[Choice]) -> dict[str, Any]:
    """``check`` with every place that pins a free choice relaxed to what the task determines."""
    out = json.loads(_dumps(check))
    for choice in choices:
        for node, key in list(_pins(out, choice.value)):
            node[key] = relaxed(choice)
    return out
