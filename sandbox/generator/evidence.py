"""What a check's expected calls depend on, derived from the gold's replay: evidence and order.

**Evidence** of an expected read-only call is what the gold's call returned that the task depends
on, as matchers of objects its Payload holds (``ExpectedCall.evidence``). A record with a stable id
(a row of the world or of the task's patches) is its id plus the fields the call computed rather
than stored (a distance from ``near``), with what it holds (a tracked order's events); only the
records a later gold step or the gold's answer uses, or every record when none is singled out.
An id-less payload (a forecast, a world time, a quote) is its scalar fields and empty lists,
object by object, less what the call echoes from its own arguments, ids the call generated, and
fields that differ between calls returning the same data (``VOLATILE``); when the gold's answer
states some of those values, only those.

**Order.** A call depends on an earlier gold step when one of its argument values is first seen in
that step's result (not in the query or the dialogue); ``after`` lists the check's calls among its
ancestors. Independent calls get no order.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import String, select

import sandbox.domains  # noqa: F401  (registers every tool and table)
from sandbox import db
from sandbox.facts import fold, mentions
from sandbox.schema import metadata
from sandbox.tooling import REGISTRY
from sandbox.world import world_image

# Fields that differ between two calls returning the same data: ranking, expiry, and counts that follow filters.
VOLATILE = frozenset({"score", "rank", "relevance", "expires_at", "count", "total_matches", "total_matched"})
ID_SHAPE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*_\d{3,}$")
Payload = dict[str, Any]


@functools.cache
def world_ids(persona_id: str) -> dict[str, str]:
    """Every single-text-key row id of a persona's world -> its table."""
    conn = db.open_database(world_image(persona_id))
    ids: dict[str, str] = {}
    for table in metadata.tables.values():
        keys = list(table.primary_key.columns)
        if len(keys) == 1 and isinstance(keys[0].type, String):
            ids.update({value: table.name for (value,) in conn.execute(select(keys[0]))})
    return ids


def patched_ids(patches: dict[str, Any]) -> dict[str, str]:
    """Ids of the rows a task's patches insert -> their table."""
    out: dict[str, str] = {}
    for table, rows in patches.get("insert", {}).items():
        keys = list(metadata.tables[table].primary_key.columns) if table in metadata.tables else []
        for row in rows:
            if len(keys) == 1 and isinstance(row.get(keys[0].name), str):
                out[row[keys[0].name]] = table
    return out


def derive_calls(
    calls: Sequence[dict[str, Any]],
    gold: Sequence[dict[str, Any]],
    results: Sequence[dict[str, Any]],
    said: str,
    answer: str,
    stable: dict[str, str],
) -> list[dict[str, Any]]:
    """The check's calls with ``evidence`` and ``after`` derived from the replayed gold.

    ``said``: the query and dialogue (values there are the user's, not a result's); ``answer``:
    the gold's finish answer; ``stable``: ids that exist before the episode -> their table.
    """
    ok = [n for n, r in enumerate(results) if r.get("Status") == "success"]
    steps = gold_steps(calls, gold, ok)
    ancestors = _ancestors(gold, results, ok, said)
    out = []
    for c, call in enumerate(calls):
        call = dict(call)
        n = steps[c]
        if n is not None:
            spec = REGISTRY.get(call["tool"])
            if spec is not None and not spec.mutating and call["tool"] != "finish":
                later = [gold[m]["arguments"] for m in range(n + 1, len(gold))]
                evidence = payload_evidence(results[n]["Payload"], gold[n]["arguments"], later, answer, stable)
                if evidence:
                    call["evidence"] = evidence
            after = sorted(d for d, m in enumerate(steps) if m is not None and m in ancestors[n] and d != c)
            if after:
                call["after"] = after
        out.append(call)
    return out


def gold_steps(calls: Sequence[dict[str, Any]], gold: Sequence[dict[str, Any]], ok: list[int]) -> list[int | None]:
    """The gold step of each expected call: the k-th expected call of a tool is its k-th successful gold call."""
    by_tool: dict[str, list[int]] = {}
    for n in ok:
        by_tool.setdefault(gold[n]["name"], []).append(n)
    seen: dict[str, int] = {}
    steps: list[int | None] = []
    for call in calls:
        k = seen[call["tool"]] = seen.get(call["tool"], -1) + 1
        found = by_tool.get(call["tool"], [])
        steps.append(found[k] if k < len(found) else None)
    return steps


def _ancestors(
    gold: Sequence[dict[str, Any]], results: Sequence[dict[str, Any]], ok: list[int], said: str
) -> list[set[int]]:
    """Per gold step, the earlier successful steps whose results it uses, directly or through others."""
    by_step = {n: list(leaves(results[n].get("Payload"))) for n in ok}
    ancestors: list[set[int]] = []
    for n, action in enumerate(gold):
        found: set[int] = set()
        for value in leaves(action["arguments"]):
            if not isinstance(value, str) or len(fold(value)) < 3 or mentions(said, value):
                continue
            source = next((m for m in ok if m < n and any(_holds(leaf, value) for leaf in by_step[m])), None)
            if source is not None:
                found |= {source, *ancestors[source]}
        ancestors.append(found)
    return ancestors


def _holds(leaf: Any, value: str) -> bool:
    """A result's value carries ``value``: equal, or (text) naming it as whole words."""
    return isinstance(leaf, str) and (leaf == value or mentions(leaf, value))


def leaves(value: Any) -> Iterator[Any]:
    """Every scalar of a JSON value at any depth, in order."""
    if isinstance(value, dict):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from leaves(v)
    else:
        yield value


def payload_evidence(
    payload: Any, arguments: dict[str, Any], later: Sequence[Any], answer: str, stable: dict[str, str]
) -> list[Payload]:
    """The evidence items of one read's result (see the module docstring)."""
    records: list[tuple[Payload, str]] = []
    plain: list[Payload] = []
    _walk(payload, stable, records, plain)
    used_later = {v for v in leaves(later) if isinstance(v, str)}
    used = [(obj, key) for obj, key in records if obj[key] in used_later or _named_in(obj, answer, stable)]
    echoes = {_echo(v) for v in leaves(arguments)} - {None}
    items = [item for obj in plain if (item := _scalars(obj, echoes, stable))]  # type: ignore[arg-type]  # None removed
    stated = [kept for item in items if (kept := {k: v for k, v in item.items() if mentions(answer, v)})]
    rows = [item for obj, key in used or records for item in _row_items(obj, key, echoes, stable)]  # type: ignore[arg-type]  # None removed
    return rows + (stated or items)


def _walk(
    value: Any, stable: dict[str, str], records: list[tuple[Payload, str]], plain: list[Payload], top: bool = True
) -> None:
    """Sort the result's objects into stable rows (not entered) and id-less objects. A listing (a
    result holding a list of stable rows) is neither: its counts follow the filters, not the data."""
    if isinstance(value, list):
        for item in value:
            _walk(item, stable, records, plain, top=False)
    elif isinstance(value, dict):
        key = _id_key(value, stable)
        if key is not None:
            records.append((value, key))
            return
        listing = top and any(
            isinstance(v, list) and any(isinstance(i, dict) and _id_key(i, stable) for i in v) for v in value.values()
        )
        if not listing:
            plain.append(value)
        for item in value.values():
            _walk(item, stable, records, plain, top=False)


def _row_items(obj: Payload, key: str, echoes: set[str | float], stable: dict[str, str]) -> list[Payload]:
    """A stable row's item and those of what it holds (a tracked order's events, an order's items)."""
    records: list[tuple[Payload, str]] = []
    plain: list[Payload] = []
    for value in obj.values():
        _walk(value, stable, records, plain, top=False)
    return [
        _stable_item(obj, key, echoes, stable),
        *(item for sub, sub_key in records for item in _row_items(sub, sub_key, echoes, stable)),
        *(item for sub in plain if (item := _scalars(sub, echoes, stable))),
    ]


def _id_key(obj: Payload, stable: dict[str, str]) -> str | None:
    """The key holding the object's own stable id: the primary key of the table its value is a row of."""
    for key, value in obj.items():
        if (
            isinstance(value, str)
            and value in stable
            and (
                key == "id" or key in metadata.tables[stable[value]].primary_key.columns.keys()  # noqa: SIM118  (a ColumnCollection)
            )
        ):
            return key
    return None


def _named_in(obj: Payload, answer: str, stable: dict[str, str]) -> bool:
    """The answer names the record: its id, or one of its name-like text fields."""
    return any(
        isinstance(v, str) and (k == "name" or k.endswith(("_name", "title")) or v in stable) and mentions(answer, v)
        for k, v in obj.items()
    )


def _stable_item(obj: Payload, key: str, echoes: set[str | float], stable: dict[str, str]) -> Payload:
    """A stable row's id and the fields the call computed (not columns of its table, nor echoes of its arguments)."""
    columns = metadata.tables[stable[obj[key]]].columns
    computed = _scalars({k: v for k, v in obj.items() if k not in columns and v != []}, echoes, stable)
    return {key: obj[key], **computed}


def _scalars(obj: Payload, echoes: set[str | float], stable: dict[str, str]) -> Payload:
    """An id-less object's own facts: scalars and empty lists (nothing found is a fact too), less
    echoes of the arguments, generated ids and volatile fields."""
    return {
        k: v
        for k, v in obj.items()
        if (_scalar(v) or v == [])
        and k not in VOLATILE
        and (v == [] or _echo(v) not in echoes)
        and not (isinstance(v, str) and ID_SHAPE.match(v) and v not in stable)
    }


def _echo(value: Any) -> str | float | None:
    """How a value compares as an echo of an argument: text folded, numbers as numbers, nothing else."""
    if isinstance(value, str):
        return fold(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _scalar(value: Any) -> bool:
    return value is not None and isinstance(value, (str, int, float, bool))
