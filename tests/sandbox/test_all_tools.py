"""Every tool, called with arguments generated from its own schema (mostly valid, sometimes broken).

For each call: the envelope comes back, nothing raises, no InternalError, a failed call changes
nothing; after the sequence the database passes integrity and foreign-key checks.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Text, select

import sandbox.domains  # noqa: F401
from sandbox.db import integrity_problems, open_database, transaction
from sandbox.executor import Executor
from sandbox.schema import metadata
from sandbox.tooling import domain_tools
from sandbox.world import world_image
from tests.sandbox.conftest import ALL_DOMAIN_TOOLS, diff_of

TOOLS = domain_tools()
DATES = st.sampled_from(["2025-06-13", "2025-06-14", "2025-06-16", "2025-06-20", "2025-07-01", "2024-12-31"])
TIMES = st.sampled_from(["06:15", "09:30", "12:00", "18:45", "23:59"])
PATTERNS: dict[str, st.SearchStrategy[str]] = {
    r"^\d{4}-\d{2}-\d{2}$": DATES,
    r"^\d{2}:\d{2}$": TIMES,
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$": st.builds(lambda d, t: f"{d}T{t}", DATES, TIMES),
}


@functools.cache
def known_ids() -> dict[str, list[str]]:
    """A few real ids per id column name (``contact_id`` -> contact_001...), so calls can succeed."""
    conn = open_database(world_image("wang_lei"))
    try:
        found: dict[str, list[str]] = {}
        for t in metadata.sorted_tables:
            pk = list(t.primary_key.columns)
            if len(pk) == 1 and isinstance(pk[0].type, Text) and pk[0].name.endswith("_id"):
                ids = conn.execute(select(pk[0]).order_by(pk[0]).limit(4)).scalars().all()
                found.setdefault(pk[0].name, []).extend(ids)
        conn.rollback()
        return found
    finally:
        conn.close()


def string_for(name: str, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    pattern = schema.get("pattern")
    if pattern in PATTERNS:
        return PATTERNS[pattern]
    if pattern and "0-9" in pattern:
        return st.sampled_from(["+86 139 1234 5678", "+1 415 555 0199", "+86 138 0000 1111"])
    if schema.get("format") == "email" or name.endswith("email"):
        return st.sampled_from(["lily.1@example.com", "new.person@example.com"])
    ids = known_ids().get(name) or known_ids().get(f"{name.removesuffix('s')}_id") or []
    lo, hi = schema.get("minLength", 0), min(schema.get("maxLength", 30), 30)
    words = st.sampled_from(["Lily", "Alex", "coffee", "Beijing", "home", "Design sync", "milk", "Tom Baker"])
    base = words.filter(lambda w: lo <= len(w) <= hi) | st.text(min_size=lo, max_size=max(lo, hi))
    return st.sampled_from(ids) | base if ids else base


def from_schema(name: str, schema: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of([from_schema(name, s, depth) for s in schema["anyOf"]])
    kind = schema.get("type")
    if kind == "string":
        return string_for(name, schema)
    if kind == "integer":
        return st.integers(schema.get("minimum", -3), schema.get("maximum", 500))
    if kind == "number":
        return st.floats(schema.get("minimum", -10.0), schema.get("maximum", 5000.0), allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        items = schema.get("items", {"type": "string"})
        return st.lists(
            from_schema(name.removesuffix("s"), items, depth + 1),
            min_size=schema.get("minItems", 0),
            max_size=min(schema.get("maxItems", 3), 3),
        )
    if kind == "object" and "properties" in schema and depth < 3:
        props = schema["properties"]
        required = schema.get("required", [])
        return st.fixed_dictionaries(
            {k: from_schema(k, props[k], depth + 1) for k in required},
            optional={k: from_schema(k, v, depth + 1) for k, v in props.items() if k not in required},
        )
    return st.dictionaries(st.sampled_from(["date", "time", "name", "party_size"]), st.text(max_size=8), max_size=3)


def arguments_for(spec_parameters: dict[str, Any]) -> st.SearchStrategy[Any]:
    valid = from_schema("", spec_parameters)
    broken = valid.flatmap(
        lambda args: st.sampled_from(
            [
                {k: v for k, v in list(args.items())[1:]},  # a field dropped
                {**args, "bogus_field": 1},  # an unknown field
                {k: (12345 if isinstance(v, str) else "x") for k, v in args.items()},  # wrong types
            ]
        )
    )
    return st.one_of(valid, valid, valid, broken)


@pytest.mark.faults
@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_tool_with_schema_generated_arguments(spec: Any) -> None:
    @settings(
        max_examples=12,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(st.lists(arguments_for(spec.parameters), min_size=1, max_size=3))
    def run(calls: list[Any]) -> None:
        conn = open_database(world_image("wang_lei"))
        try:
            ex = Executor(conn, visible=ALL_DOMAIN_TOOLS)
            for step, args in enumerate(calls, start=1):
                ex.step = step
                before = diff_of(conn)
                env = ex.call(spec.name, args)
                assert set(env) == {"Status", "ErrorType", "Payload"}
                assert env["ErrorType"] != "InternalError", (args, ex.internal_errors)
                if env["Status"] == "error":
                    assert diff_of(conn) == before, f"{spec.name} failed with {env['ErrorType']} but changed state"
                    if spec.errors and env["ErrorType"] not in _UNIVERSAL:
                        assert env["ErrorType"] in {e.value for e in spec.errors}, (
                            f"{spec.name} returned undeclared {env['ErrorType']}"
                        )
            if diff_of(conn):  # something was written: the file and its foreign keys must still be sound
                with transaction(conn):
                    assert integrity_problems(conn) == []
        finally:
            conn.close()

    run()


_UNIVERSAL = {
    "ToolNotAvailable",
    "MissingRequiredArgument",
    "UnknownArgument",
    "InvalidArgumentType",
    "InvalidArgumentValue",
    "NetworkUnavailable",
    "ServiceDisabled",
    "PermissionDenied",
    "AuthenticationRequired",
    "UnsupportedOperation",
}


def test_known_ids_cover_the_common_entities() -> None:
    ids = known_ids()
    assert {"contact_id", "event_id", "alarm_id"} <= set(ids)
    assert all(re.match(r"^[a-z_]+_\d{3}$", i) for i in ids["contact_id"])
