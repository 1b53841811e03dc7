"""The executor's promises: fixed validation order, the envelope, one log row per call, failed calls change nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from sqlalchemy import Connection, select, update

from sandbox.db import integrity_problems, open_database, state_bytes, transaction
from sandbox.executor import Executor
from sandbox.schema import app_permissions, device_settings, meta, operation_logs
from sandbox.tooling import REGISTRY
from sandbox.world import world_image
from tests.sandbox.conftest import ALL_DOMAIN_TOOLS, diff_of, log_count, prepare

CONTACT = {"name": "Mike Ross", "phone_number": "+86 139 1234 5678"}


def assert_failed_cleanly(conn: Connection, env: dict[str, Any], error_type: str, logs_before: int) -> None:
    assert env["Status"] == "error"
    assert env["ErrorType"] == error_type
    assert isinstance(env["Payload"]["message"], str)
    assert diff_of(conn) == {}, "a failed call must change nothing but the log"
    assert log_count(conn) == logs_before + 1


@pytest.mark.parametrize(
    ("name", "arguments", "error_type", "fields"),
    [
        ("add_contact", {}, "MissingRequiredArgument", ["name", "phone_number"]),
        ("add_contact", {"name": "Mike"}, "MissingRequiredArgument", ["phone_number"]),
        ("add_contact", {**CONTACT, "phoneNumber": "1"}, "UnknownArgument", ["phoneNumber"]),
        ("add_contact", {"name": "Mike", "phone_number": 861391234}, "InvalidArgumentType", ["phone_number"]),
        ("add_contact", {"name": "Mike", "phone_number": "call me"}, "InvalidArgumentValue", ["phone_number"]),
        ("add_contact", {**CONTACT, "birthday": "1990-02-31"}, "InvalidArgumentValue", ["birthday"]),
        ("search_contacts", {}, "InvalidArgumentValue", []),
        ("search_contacts", {"name": "x", "limit": 0}, "InvalidArgumentValue", ["limit"]),
        ("search_contacts", {"name": "x", "limit": "5"}, "InvalidArgumentType", ["limit"]),
        ("log_body_metric", {"metric": "weight", "value": "72.5"}, "InvalidArgumentType", ["value"]),
        ("log_body_metric", {"metric": "blood_pressure", "value": 120}, "InvalidArgumentType", ["value"]),
    ],
)
def test_argument_errors_follow_the_pipeline_order(
    conn: Connection,
    ex: Executor,
    name: str,
    arguments: dict[str, Any],
    error_type: str,
    fields: list[str],
) -> None:
    before = log_count(conn)
    env = ex.call(name, arguments)
    assert_failed_cleanly(conn, env, error_type, before)
    assert env["Payload"]["fields"] == fields


def _numeric_arguments() -> list[tuple[str, str]]:
    """(tool, argument) for every top-level argument whose schema takes a number and no text."""
    found = []
    for name, spec in sorted(REGISTRY.items()):
        for arg, schema in spec.parameters.get("properties", {}).items():
            kinds = {s.get("type") for s in schema.get("anyOf", [schema])} - {"null"}
            if kinds and kinds <= {"number", "integer"}:
                found.append((name, arg))
    return found


@pytest.mark.parametrize(("name", "argument"), _numeric_arguments())
def test_a_number_sent_as_text_is_a_type_error(name: str, argument: str) -> None:
    """The strict schema layer every tool shares: "5" is never read as 5 (an enum of numbers refuses it as
    no member)."""
    try:
        REGISTRY[name].args_model.model_validate({argument: "5"})
    except ValidationError as exc:
        kinds = {e["type"] for e in exc.errors() if e["loc"][:1] == (argument,)}
    else:
        kinds = set()
    assert kinds and all(k.endswith("_type") or k == "literal_error" for k in kinds), kinds


def test_missing_beats_unknown_beats_type(conn: Connection, ex: Executor) -> None:
    env = ex.call("add_contact", {"name": 5, "bogus": 1})
    assert env["ErrorType"] == "MissingRequiredArgument"
    env = ex.call("add_contact", {"name": 5, "phone_number": "+861391234567", "bogus": 1})
    assert env["ErrorType"] == "UnknownArgument"
    env = ex.call("add_contact", {"name": 5, "phone_number": "+861391234567"})
    assert env["ErrorType"] == "InvalidArgumentType"


def test_tool_outside_action_space(conn: Connection) -> None:
    ex = Executor(conn, visible=frozenset({"search_contacts"}))
    before = log_count(conn)
    assert_failed_cleanly(conn, ex.call("add_contact", CONTACT), "ToolNotAvailable", before)
    assert_failed_cleanly(conn, ex.call("no_such_tool", {}), "ToolNotAvailable", before + 1)
    assert_failed_cleanly(conn, ex.call(None, {}), "ToolNotAvailable", before + 2)


def test_internal_app_actions_are_not_callable_by_the_planner(conn: Connection, ex: Executor) -> None:
    env = ex.call(
        "roombook_reserve", {"room": "Oak", "date": "2025-06-16", "start": "10:00", "end": "11:00", "title": "x"}
    )
    assert env["ErrorType"] == "ToolNotAvailable"


def test_permission_denied_until_granted(conn: Connection, ex: Executor) -> None:
    prepare(conn, update(app_permissions).where(app_permissions.c.app_id == "contacts").values(state="not_requested"))
    before = log_count(conn)
    env = ex.call("add_contact", CONTACT)
    assert_failed_cleanly(conn, env, "PermissionDenied", before)
    assert env["Payload"] == {
        "message": env["Payload"]["message"],
        "app_id": "contacts",
        "permission": "CONTACTS",
        "reason": "app_permission",
    }
    prepare(conn, update(app_permissions).where(app_permissions.c.app_id == "contacts").values(state="granted"))
    assert ex.call("add_contact", CONTACT)["Status"] == "success"


def test_network_and_service_gates(conn: Connection, ex: Executor) -> None:
    prepare(conn, update(device_settings).where(device_settings.c.key == "airplane_mode").values(value="1"))
    before = log_count(conn)
    assert_failed_cleanly(
        conn, ex.call("send_sms", {"to": ["contact_001"], "body": "hi"}), "NetworkUnavailable", before
    )
    prepare(
        conn,
        update(device_settings).where(device_settings.c.key.in_(["wifi", "mobile_data"])).values(value="0"),
        update(device_settings).where(device_settings.c.key == "airplane_mode").values(value="0"),
    )
    before = log_count(conn)
    env = ex.call("send_chat_message", {"to": "contact_001", "text": "hi"})
    assert_failed_cleanly(conn, env, "NetworkUnavailable", before)


def test_duplicate_and_not_found(conn: Connection, ex: Executor) -> None:
    assert ex.call("add_contact", CONTACT)["Status"] == "success"
    before = log_count(conn)
    baseline = diff_of(conn)
    env = ex.call("add_contact", {**CONTACT, "name": "Michael Ross"})
    assert env["ErrorType"] == "DuplicateEntity" and env["Payload"]["existing_id"] == "contact_101"
    assert diff_of(conn) == baseline and log_count(conn) == before + 1
    env = ex.call("update_contact", {"contact_id": "contact_999", "notes": "x"})
    assert env["ErrorType"] == "EntityNotFound"
    assert diff_of(conn) == baseline


def test_ids_follow_the_table_and_are_never_reused(conn: Connection, ex: Executor) -> None:
    first = ex.call("add_contact", CONTACT)["Payload"]["contact_id"]
    assert first == "contact_101"  # 100 contacts in the world
    assert ex.call("delete_contact", {"contact_id": first})["Status"] == "success"
    again = ex.call("add_contact", CONTACT)["Payload"]["contact_id"]
    assert again == "contact_102"


def test_one_log_row_per_call_with_actor_and_step(conn: Connection, ex: Executor) -> None:
    ex.step = 3
    ex.call("search_contacts", {"name": "Lily"})
    ex.call("add_contact", {"name": "x"})
    with transaction(conn):
        logs = conn.execute(select(operation_logs).order_by(operation_logs.c.log_id)).all()
    assert [(r.tool_name, r.status, r.error_type, r.actor, r.step) for r in logs] == [
        ("search_contacts", "success", None, "planner", 3),
        ("add_contact", "error", "MissingRequiredArgument", "planner", 3),
    ]
    assert json.loads(logs[1].args_json) == {"name": "x"}


def test_frozen_clock_stamps(conn: Connection, ex: Executor) -> None:
    ex.step = 4
    ex.call("add_contact", CONTACT)
    row = diff_of(conn)["contacts"].inserted[0]
    assert row["created_at"] == "2025-06-13T09:00:04"


def test_a_world_without_its_clock_is_refused(conn: Connection) -> None:
    with transaction(conn):
        conn.execute(meta.delete().where(meta.c.key == "now"))
    with pytest.raises(ValueError, match=r"no meta.now"):
        Executor(conn, visible=ALL_DOMAIN_TOOLS)


def _replay(actions: list[tuple[str, dict[str, Any]]]) -> bytes:
    conn = open_database(world_image("wang_lei"))
    try:
        ex = Executor(conn, visible=ALL_DOMAIN_TOOLS)
        for i, (name, args) in enumerate(actions, start=1):
            ex.step = i
            ex.call(name, args)
        return state_bytes(conn)
    finally:
        conn.close()


def test_same_actions_give_identical_database_content() -> None:
    actions = [
        ("add_contact", CONTACT),
        ("add_contact", {"name": "x"}),
        ("send_sms", {"to": ["contact_101"], "body": "hi"}),
        ("search_memory", {"query": "wake up"}),
        ("delete_contact", {"contact_id": "contact_007"}),
    ]
    assert _replay(actions) == _replay(actions)
    assert _replay(actions) != _replay(actions[:-1])


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
NAMES = st.sampled_from([*sorted(REGISTRY), "", "nope", "finish "])


def _arguments(name: str) -> st.SearchStrategy[Any]:
    params = REGISTRY[name].parameters["properties"] if name in REGISTRY else {}
    keys = st.sampled_from([*sorted(params), "bogus"]) if params else st.just("bogus")
    return (
        st.dictionaries(
            keys, JSON | st.sampled_from(["contact_001", "+86 139 1234 5678", "2025-06-16", "10:00"]), max_size=4
        )
        | JSON
    )


@pytest.mark.faults
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(NAMES.flatmap(lambda n: st.tuples(st.just(n), _arguments(n))), min_size=1, max_size=6))
def test_fuzzed_calls_always_return_an_envelope_and_keep_the_database_sound(
    calls: list[tuple[str, Any]],
) -> None:
    conn = open_database(world_image("wang_lei"))
    try:
        ex = Executor(conn, visible=ALL_DOMAIN_TOOLS, skills_offered=("bedtime_routine",))
        for i, (name, args) in enumerate(calls, start=1):
            ex.step = i
            before = diff_of(conn)
            env = ex.call(name, args)
            assert set(env) == {"Status", "ErrorType", "Payload"}
            assert env["Status"] in ("success", "error")
            assert (env["ErrorType"] is None) == (env["Status"] == "success")
            if env["Status"] == "error":
                assert diff_of(conn) == before
        assert ex.internal_errors == []
        with transaction(conn):
            assert integrity_problems(conn) == []
    finally:
        conn.close()
