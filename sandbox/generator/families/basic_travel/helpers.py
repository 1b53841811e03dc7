"""What the travel families share: the retrieval guard, and the words, grants and places their drafts use."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sandbox.domains.travel.tools import _km
from sandbox.generator.core import BuildError, Gen
from sandbox.generator.draft import Draft

# ---- retrieval guard --------------------------------------------------------------------------------


def space_ok(draft: Draft) -> Draft:
    """BuildError instead of the ValueError ``retrieval.action_space`` raises when BM25 finds fewer tools
    than A0 holds and cannot make room for every gold tool (a framework limitation: very short queries)."""
    from sandbox.retrieval import hidden_tools, retrieve
    from sandbox.tooling import REGISTRY

    hide = hidden_tools(draft.skills)
    needed = list(
        dict.fromkeys(
            a["name"]
            for a in draft.gold
            if a["name"] in REGISTRY and REGISTRY[a["name"]].is_domain_tool and a["name"] not in hide
        )
    )
    found = retrieve(draft.query, [m["content"] for m in draft.history], exclude=hide)
    spare = [t for t in found if t not in needed]
    if len(spare) < len([t for t in needed if t not in found]):
        raise BuildError("retrieval finds too few tools for this query to fit the gold in A0")
    return draft


def guarded(fn):
    import functools

    @functools.wraps(fn)
    def wrapper(g: Gen) -> Draft:
        return space_ok(fn(g))

    return wrapper


MODE_WORDS = {
    "driving": ("drive", "driving", "by car"),
    "walking": ("walk", "walking", "on foot"),
    "transit": ("take transit", "public transport", "by public transport"),
    "cycling": ("cycle", "cycling", "by bike"),
}
FAV_LABELS = ("Gym", "Coffee", "Groceries")
PAID = ["payment_methods"]  # balances move with every charge; the transactions rows are checked instead


# ---- shared helpers ---------------------------------------------------------------------------


def name_of(g: Gen) -> str:
    return g.persona.name


def currency(g: Gen) -> str:
    pm = sorted(g.rows("payment_methods"), key=lambda r: (-r["is_default"], r["method_id"]))
    return pm[0]["currency"] if pm else "USD"


def stamp(g: Gen, minutes: float) -> str:
    return (g.now + dt.timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S")


def grant(app: str, perm: str = "LOCATION") -> dict[str, Any]:
    return {"match": {"app_id": app, "permission": perm}, "set": {"state": "granted"}}


def location_ready(*apps: str) -> dict[str, Any]:
    """Patches that give these apps the LOCATION permission (some personas have not granted it)."""
    return {"update": {"app_permissions": [grant(a) for a in apps]}}


def here(g: Gen) -> dict[str, Any]:
    return g.rows("device_location")[0]


def saved(g: Gen, label: str) -> dict[str, Any]:
    return g.rows("saved_places", {"label": label})[0]


def dest_any(row: dict[str, Any]) -> dict[str, Any]:
    """How an agent may name a saved place: its label, place id, name or address."""
    options = [row["label"], row["name"], row["address"], f"{row['name']}, {row['city']}"]
    if row.get("place_id"):
        options.append(row["place_id"])
    return {"$any": list(dict.fromkeys(options))}


def nearest(g: Gen, category: str, lat: float, lon: float, radius: float = 5.0, extra: Any = None) -> dict[str, Any]:
    found = []
    for p in g.rows("world_places", {"category": category}):
        km = _km(lat, lon, p["lat"], p["lon"])
        if km <= radius and (extra is None or extra(p)):
            found.append((round(km, 2), p["place_id"], p))
    if not found:
        raise BuildError(f"no {category} within {radius} km")
    found.sort(key=lambda t: (t[0], t[1]))
    return found[0][2]


def hm(value: str) -> str:
    return value[11:16]
