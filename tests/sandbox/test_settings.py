"""D11 settings tools and 4.2 app permissions: success paths, every declared error, and the gates they open."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Connection, Update, select, update

from sandbox.domains import settings
from sandbox.executor import Executor
from sandbox.schema import app_permissions, device_settings, operation_logs
from sandbox.tooling import REGISTRY
from tests.sandbox.conftest import diff_of, prepare

SETTINGS_TOOLS = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ == settings.__name__)


def values(**new: str) -> list[Update]:
    """Statements setting device_settings rows, for ``prepare``."""
    return [update(device_settings).where(device_settings.c.key == k).values(value=v) for k, v in new.items()]


def states(new: dict[tuple[str, str], str]) -> list[Update]:
    """Statements setting app_permissions states, for ``prepare``."""
    return [update(app_permissions).where(app_permissions.c.app_id == app_id, app_permissions.c.permission == perm)
            .values(state=state) for (app_id, perm), state in new.items()]


def permission_state(conn: Connection, app_id: str, permission: str) -> str | None:
    with conn.begin():
        return conn.execute(select(app_permissions.c.state).where(
            app_permissions.c.app_id == app_id, app_permissions.c.permission == permission)).scalar()


def changed_settings(conn: Connection) -> dict[str, str]:
    """The device_settings keys the episode changed, with their new values."""
    d = diff_of(conn)
    assert set(d) <= {"device_settings"}
    return {after["key"]: after["value"] for _, after in d["device_settings"].updated} if d else {}


def ok(ex: Executor, name: str, args: dict[str, Any]) -> dict[str, Any]:
    env = ex.call(name, args)
    assert env["Status"] == "success", env
    return env["Payload"]


# ---- declarations -----------------------------------------------------------------------------

def test_declarations() -> None:
    assert len(SETTINGS_TOOLS) == 16
    for name in SETTINGS_TOOLS:
        spec = REGISTRY[name]
        assert spec.app == "settings" and spec.permissions == () and spec.network is None
        assert spec.mutating == (not name.startswith("get_")), name
        for arg in spec.parameters["properties"].values():
            assert arg["description"], name
    assert REGISTRY["grant_app_permission"].domain == "D4" and REGISTRY["set_wifi"].domain == "D11"
    assert len(REGISTRY["grant_app_permission"].parameters["properties"]["permission"]["enum"]) == 13


# ---- success paths ----------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "args", "expected"), [
    ("set_wifi", {"enabled": False}, {"wifi": "0"}),
    ("set_mobile_data", {"enabled": False}, {"mobile_data": "0"}),
    ("set_location_services", {"enabled": False}, {"location_service": "0"}),
    ("set_bluetooth", {"enabled": False}, {"bluetooth": "0"}),
    ("set_volume", {"stream": "ring", "level": 0}, {"volume_ring": "0"}),
    ("set_ringer_mode", {"mode": "vibrate"}, {"ringer_mode": "vibrate"}),
    ("set_brightness", {"level": 35}, {"brightness": "35", "auto_brightness": "0"}),
    ("set_dark_mode", {"enabled": True}, {"dark_mode": "1"}),
    ("set_system_language", {"language": "zh-CN"}, {"language": "zh-CN"}),
    ("set_do_not_disturb", {"enabled": True}, {"dnd": "1"}),
    ("set_do_not_disturb", {"enabled": True, "until": "2025-06-13T12:30"},
     {"dnd": "1", "dnd_until": "2025-06-13T12:30"}),
])
def test_setter_writes_only_its_keys(ex: Executor, name: str, args: dict[str, Any], expected: dict[str, str]) -> None:
    payload = ok(ex, name, args)
    assert changed_settings(ex.conn) == expected
    assert set(payload["updated"]) == set(expected)


def test_set_airplane_mode_turns_radios_off(ex: Executor) -> None:
    payload = ok(ex, "set_airplane_mode", {"enabled": True})
    assert changed_settings(ex.conn) == {"airplane_mode": "1", "wifi": "0", "mobile_data": "0", "bluetooth": "0"}
    assert payload["updated"]["airplane_mode"] is True and payload["previous"]["wifi"] is True
    ok(ex, "set_airplane_mode", {"enabled": False})
    assert changed_settings(ex.conn) == {"wifi": "0", "mobile_data": "0", "bluetooth": "0"}  # not restored


def test_set_low_power_mode_side_effects(ex: Executor) -> None:
    ok(ex, "set_low_power_mode", {"enabled": True})
    assert changed_settings(ex.conn) == {"low_power_mode": "1", "location_service": "0", "brightness": "60"}


def test_set_low_power_mode_keeps_a_dim_screen(ex: Executor) -> None:
    prepare(ex.conn, *values(brightness="20", location_service="0"))
    ok(ex, "set_low_power_mode", {"enabled": True})
    assert changed_settings(ex.conn) == {"low_power_mode": "1"}
    ok(ex, "set_low_power_mode", {"enabled": False})
    assert changed_settings(ex.conn) == {}


def test_set_do_not_disturb_off_clears_end_time(ex: Executor) -> None:
    prepare(ex.conn, *values(dnd="1", dnd_until="2025-06-13T12:00"))
    ok(ex, "set_do_not_disturb", {"enabled": False})
    assert changed_settings(ex.conn) == {"dnd": "0", "dnd_until": ""}


def test_set_do_not_disturb_new_end_time_is_a_change(ex: Executor) -> None:
    prepare(ex.conn, *values(dnd="1", dnd_until="2025-06-13T12:00"))
    ok(ex, "set_do_not_disturb", {"enabled": True, "until": "2025-06-13T18:00"})
    assert changed_settings(ex.conn) == {"dnd_until": "2025-06-13T18:00"}


def test_get_device_status(ex: Executor) -> None:
    prepare(ex.conn, *values(wifi="0"))
    status = ok(ex, "get_device_status", {})
    assert status["battery"] == {"battery_pct": 78, "charging": False, "low_power_mode": False}
    assert status["connectivity"]["wifi"] is False and status["connectivity"]["wifi_connected_ssid"] is None
    assert status["connectivity"]["mobile_data"] is True
    assert status["storage"] == {"storage_free_gb": 41.5}
    assert status["sound"]["ringer_mode"] == "normal" and status["display"]["brightness"] == 70
    assert status["modes"] == {"dnd": False, "dnd_until": None, "language": "en-US"}
    assert diff_of(ex.conn) == {}


def test_get_app_permissions(ex: Executor) -> None:
    assert ok(ex, "get_app_permissions", {"app_id": "contacts"}) == {
        "app_id": "contacts", "permissions": {"CONTACTS": "granted"}}
    assert diff_of(ex.conn) == {}


@pytest.mark.parametrize("before", ["not_requested", "denied"])
def test_grant_app_permission(ex: Executor, before: str) -> None:
    prepare(ex.conn, *states({("contacts", "CONTACTS"): before}))
    payload = ok(ex, "grant_app_permission", {"app_id": "contacts", "permission": "CONTACTS", "confirm": True})
    assert payload == {"app_id": "contacts", "permission": "CONTACTS", "state": "granted", "previous": before}
    assert permission_state(ex.conn, "contacts", "CONTACTS") == "granted"


def test_grant_app_permission_never_requested_inserts_the_row(ex: Executor) -> None:
    ok(ex, "grant_app_permission", {"app_id": "chat", "permission": "CAMERA"})
    d = diff_of(ex.conn)
    assert set(d) == {"app_permissions"}
    assert d["app_permissions"].inserted == [{"app_id": "chat", "permission": "CAMERA", "state": "granted"}]


def test_revoke_app_permission(ex: Executor) -> None:
    ok(ex, "revoke_app_permission", {"app_id": "messages", "permission": "SMS"})
    assert permission_state(ex.conn, "messages", "SMS") == "denied"
    assert set(diff_of(ex.conn)) == {"app_permissions"}


# ---- declared errors --------------------------------------------------------------------------

# (tool, arguments, settings before, permission states before, expected error)
ERROR_CASES: list[tuple[str, dict[str, Any], dict[str, str], dict[tuple[str, str], str], str]] = [
    ("set_wifi", {"enabled": True}, {}, {}, "StateConflict"),
    ("set_mobile_data", {"enabled": True}, {}, {}, "StateConflict"),
    ("set_mobile_data", {"enabled": True}, {"airplane_mode": "1", "mobile_data": "0"}, {}, "StateConflict"),
    ("set_airplane_mode", {"enabled": False}, {}, {}, "StateConflict"),
    ("set_location_services", {"enabled": True}, {}, {}, "StateConflict"),
    ("set_location_services", {"enabled": True}, {"low_power_mode": "1", "location_service": "0"}, {},
     "StateConflict"),
    ("set_bluetooth", {"enabled": True}, {}, {}, "StateConflict"),
    ("set_volume", {"stream": "media", "level": 60}, {}, {}, "StateConflict"),
    ("set_ringer_mode", {"mode": "normal"}, {}, {}, "StateConflict"),
    ("set_brightness", {"level": 40}, {"brightness": "40", "auto_brightness": "0"}, {}, "StateConflict"),
    ("set_dark_mode", {"enabled": False}, {}, {}, "StateConflict"),
    ("set_low_power_mode", {"enabled": False}, {}, {}, "StateConflict"),
    ("set_do_not_disturb", {"enabled": False}, {}, {}, "StateConflict"),
    ("set_do_not_disturb", {"enabled": True, "until": "2025-06-13T08:59"}, {}, {}, "InvalidArgumentValue"),
    ("set_system_language", {"language": "en-US"}, {}, {}, "StateConflict"),
    ("get_app_permissions", {"app_id": "no_such_app"}, {}, {}, "EntityNotFound"),
    ("grant_app_permission", {"app_id": "no_such_app", "permission": "CAMERA"}, {}, {}, "EntityNotFound"),
    ("grant_app_permission", {"app_id": "contacts", "permission": "CONTACTS"}, {}, {}, "StateConflict"),
    ("grant_app_permission", {"app_id": "contacts", "permission": "CONTACTS"}, {},
     {("contacts", "CONTACTS"): "denied"}, "ConfirmationRequired"),
    ("grant_app_permission", {"app_id": "contacts", "permission": "CONTACTS", "confirm": True}, {},
     {("contacts", "CONTACTS"): "policy_blocked"}, "PermissionDenied"),
    ("revoke_app_permission", {"app_id": "no_such_app", "permission": "SMS"}, {}, {}, "EntityNotFound"),
    ("revoke_app_permission", {"app_id": "chat", "permission": "CAMERA"}, {}, {}, "StateConflict"),
]


@pytest.mark.parametrize(("name", "args", "before", "permissions", "error"), ERROR_CASES,
                         ids=[f"{c[0]}-{c[4]}-{i}" for i, c in enumerate(ERROR_CASES)])
def test_declared_error_changes_nothing(
    ex: Executor, name: str, args: dict[str, Any], before: dict[str, str],
    permissions: dict[tuple[str, str], str], error: str,
) -> None:
    prepare(ex.conn, *values(**before), *states(permissions))
    env = ex.call(name, args)
    assert (env["Status"], env["ErrorType"]) == ("error", error), env
    assert diff_of(ex.conn) == {}
    with ex.conn.begin():
        logged = ex.conn.execute(select(operation_logs.c.tool_name, operation_logs.c.error_type)).all()
    assert logged == [(name, error)]


def test_every_declared_error_is_tested() -> None:
    declared = {(n, e.value) for n in SETTINGS_TOOLS for e in REGISTRY[n].errors}
    assert {(c[0], c[4]) for c in ERROR_CASES} == declared


def test_state_conflict_payload_names_the_current_value(ex: Executor) -> None:
    env = ex.call("set_wifi", {"enabled": True})
    assert env["Payload"]["current"] == {"wifi": True}
    prepare(ex.conn, *values(low_power_mode="1", location_service="0"))
    env = ex.call("set_location_services", {"enabled": True})
    assert env["Payload"]["current"] == {"low_power_mode": True} and "set_low_power_mode" in env["Payload"]["hint"]


def test_grant_policy_blocked_reason(ex: Executor) -> None:
    prepare(ex.conn, *states({("contacts", "CONTACTS"): "policy_blocked"}))
    env = ex.call("grant_app_permission", {"app_id": "contacts", "permission": "CONTACTS"})
    assert env["Payload"]["reason"] == "policy"


def test_do_not_disturb_until_needs_enabled(ex: Executor) -> None:
    env = ex.call("set_do_not_disturb", {"enabled": False, "until": "2025-06-13T12:00"})
    assert env["ErrorType"] == "InvalidArgumentValue" and diff_of(ex.conn) == {}


# ---- the executor's gates ---------------------------------------------------------------------

def test_airplane_mode_gates_sms(ex: Executor) -> None:
    sms = {"to": ["contact_001"], "body": "Landing soon"}
    ok(ex, "set_airplane_mode", {"enabled": True})
    ex.step = 2
    env = ex.call("send_sms", sms)
    assert env["ErrorType"] == "NetworkUnavailable"
    ex.step = 3
    ok(ex, "set_airplane_mode", {"enabled": False})
    ex.step = 4
    assert ok(ex, "send_sms", sms)["sent"][0]["contact_id"] == "contact_001"


def test_permission_gate_opens_after_grant(ex: Executor) -> None:
    prepare(ex.conn, *states({("contacts", "CONTACTS"): "not_requested"}))
    new = {"name": "Nora Quinn", "phone_number": "+86 139 1234 5678"}
    env = ex.call("add_contact", new)
    assert env["ErrorType"] == "PermissionDenied"
    assert env["Payload"]["app_id"] == "contacts" and env["Payload"]["permission"] == "CONTACTS"
    assert env["Payload"]["reason"] == "app_permission"
    assert diff_of(ex.conn) == {}
    ex.step = 2
    ok(ex, "grant_app_permission", {"app_id": "contacts", "permission": "CONTACTS"})
    ex.step = 3
    assert ok(ex, "add_contact", new)["name"] == "Nora Quinn"
