"""Helpers shared by several family modules (no families here: this module has no CATEGORY or PLAN)."""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Callable
from typing import Any

from sandbox import db
from sandbox.domains.common import LABEL_ALIASES
from sandbox.episode import apply_changes
from sandbox.executor import Executor
from sandbox.generator.core import BuildError, Gen
from sandbox.generator.core import family as _family
from sandbox.generator.draft import Draft
from sandbox.locales import CITIES, business_phone
from sandbox.tasks import Changes
from sandbox.world import world_image


def family(category: str, l2: str | None = None, **tags: str) -> Callable[[Callable[[Gen], Draft]], Any]:
    """``core.family`` for families that read the world loosely: an IndexError, KeyError or ValueError of
    the family itself means a world that does not fit, so the builder tries another draft."""

    def register(fn: Callable[[Gen], Draft]) -> Any:
        @functools.wraps(fn)
        def guarded(g: Gen) -> Draft:
            try:
                return fn(g)
            except (IndexError, KeyError, ValueError) as exc:
                raise BuildError(f"{type(exc).__name__}: {exc}") from None

        return _family(category, l2, **tags)(guarded)

    return register


def peek(g: Gen, tool: str, patches: dict[str, Any] | None = None, **arguments: Any) -> dict[str, Any]:
    """What a read-only tool returns on the world (with the draft's ``patches``): a gold answer states those
    facts, and a draft knows them before the build replays its gold."""
    conn = db.open_database(world_image(g.persona.persona_id), journal=False)
    try:
        conn.begin()
        apply_changes(conn, Changes.model_validate(patches or {}))
        result = Executor(conn, visible=frozenset({tool})).call(tool, arguments)
    finally:
        db.release(conn)
    if result["Status"] != "success":
        raise BuildError(f"{tool}({arguments}) failed on {g.persona.persona_id}: {result['ErrorType']}")
    return dict(result["Payload"])


def local_line(g: Gen, city: str | None = None) -> str:
    """A business's landline in ``city`` (a city of the worlds; else the persona's), as a person writes it
    (+81 3 1234 5678)."""
    return business_phone(city if city in CITIES else g.persona.home_city, g.rng)


def service_phone(g: Gen, name: str) -> str:
    """The number of a phone-only business of the world (the voice agent's fixtures), by its name."""
    return next(r["phone"] for r in g.rows("world_phone_services") if r["name"].startswith(name))


def history(user: str, assistant: str) -> list[dict[str, str]]:
    """A one-exchange conversation before the query."""
    return [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]


def later(g: Gen, hours: float) -> str:
    """The persona's now plus ``hours``, to the minute."""
    return (g.now + dt.timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M")


# ---- sub-agent tasks ---------------------------------------------------------------------------------------


def told_agent(agent: str, *patterns: str) -> dict[str, Any]:
    """A sub-agent job whose handoff says each of ``patterns`` somewhere (the objective, any fact, any input): the
    facts the agent must learn, however the planner words and structures the handoff."""
    return {"agent": agent, "handoff_json": {"$regex": "(?s)^" + "".join(f"(?=.*(?:{p}))" for p in patterns)}}


def on_screen(sid: str) -> dict[str, Any]:
    """A screen-reader handoff that names the snapshot ``sid``."""
    return {"source": {"type": "screen", "id": sid}}


def screen_rows(sid: str, app: str, text: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The rows to insert for one screen snapshot (a draft's patch)."""
    return {
        "screen_snapshots": [{"snapshot_id": sid, "app_id": app, "ocr_text": text, "fields_json": json.dumps(fields)}]
    }


def snapshot_patch(sid: str, app: str, text: str, fields: dict[str, Any]) -> dict[str, Any]:
    """A patch that inserts one screen snapshot."""
    return {"insert": screen_rows(sid, app, text, fields)}


def origin_names(g: Gen, label: str) -> dict[str, Any]:
    """Every way to name a saved address as a search's origin: its label and what people call it, its id,
    its street line. A check of a "near work" search holds the search to that point: the city's centre or
    another address (home) gives other distances, so neither passes."""
    row = g.one("addresses", {"label": label.title()})
    key = label.lower()
    aliases = [alias for alias, target in LABEL_ALIASES.items() if target == key]
    line = row["address_line"]
    return {"$any": [key, f"my {key}", *aliases, row["address_id"], line, f"{line}, {row['city']}"]}


# a day's forecast as the answer to "will it rain?" and "will it be cold?": a verdict only where the forecast
# leaves no doubt (a 40% chance, a 14 °C high: either answer is defensible, so the facts alone are checked)
RAIN_LIKELY, RAIN_UNLIKELY = 50, 30
COLD_BELOW, MILD_FROM = 10.0, 18.0


def rain_verdict(day: dict[str, Any]) -> str | None:
    """ "yes" where it rains or rain is likely, "no" where the sky is dry and rain unlikely, else None (snow:
    its chance of precipitation is no chance of rain)."""
    if day["condition"] == "snow":
        return None
    if day["condition"] in ("rain", "thunderstorm") or day["precip_pct"] >= RAIN_LIKELY:
        return "yes"
    return "no" if day["precip_pct"] < RAIN_UNLIKELY else None


def cold_verdict(day: dict[str, Any]) -> str | None:
    """ "yes" for a high under ``COLD_BELOW`` °C, "no" for one of ``MILD_FROM`` °C or more, else None."""
    if day["high_c"] < COLD_BELOW:
        return "yes"
    return "no" if day["high_c"] >= MILD_FROM else None


def opened(verdict: str | None, text: str) -> str:
    """The gold's answer opening with its verdict ("Yes, …"), which the build checks as ``$verdict``."""
    return f"{verdict.capitalize()}. {text}" if verdict else text


# a question asking for every item ("what's on the menu?", "what flights are there?") is answered by all of
# them where they are few: up to this many, each is required; of more, any one answers (a model may list any)
EVERY_ITEM_BOUND = 5


def every_named(names: list[str]) -> list[dict[str, Any]]:
    """The answer facts of a question asking for every item of a known set: each name where there are at
    most ``EVERY_ITEM_BOUND``, else any one of them."""
    unique = list(dict.fromkeys(names))
    if len(unique) <= EVERY_ITEM_BOUND:
        return [{"$name": n} for n in unique]
    return [{"$any": [{"$name": n} for n in unique]}]
