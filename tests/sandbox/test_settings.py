"""D11 settings tools: success paths, every declared error, and the gates they open."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import Connection, Update, select, update

from sandbox.db import transaction
from sandbox.domains.entertainment.schema import devices
from sandbox.domains.settings import tools as settings
from sandbox.domains.settings.schema import focus_modes, world_nearby_devices
from sandbox.executor import Executor
from sandbox.schema import device_settings, operation_logs
from sandbox.tooling import REGISTRY
from tests.sandbox.conftest import diff_of, prepare, query

SETTINGS_TOOLS = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ == settings.__name__)
CATALOG_D11 = {  # catalog section 4, D11
    "set_wifi",
    "set_mobile_data",
    "set_airplane_mode",
    "set_location_services",
    "set_bluetooth",
    "pair_bluetooth_device",
    "set_volume",
    "set_ringer_mode",
    "set_brightness",
    "set_dark_mode",
    "get_device_status",
    "set_low_power_mode",
    "set_do_not_disturb",
    "set_focus_mode",
    "set_system_language",
    "set_accessibility_option",
}


def values(**new: str) -> list[Update]:
    """Statements setting device_settings rows, for ``prepare``."""
    return [update(device_settings).where(device_settings.c.key == k).values(value=v) for k, v in new.items()]


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
    assert set(SETTINGS_TOOLS) == CATALOG_D11
    assert {n for n, s in REGISTRY.items() if s.domain == "D11"} == CATALOG_D11
    for name in SETTINGS_TOOLS:
        spec = REGISTRY[name]
        assert spec.app == "settings" and spec.network is None and spec.domain == "D11"
        bluetooth = name == "pair_bluetooth_device"
        assert spec.permissions == (("NEARBY_DEVICES",) if bluetooth else ())
        assert spec.services == (("bluetooth",) if bluetooth else ())
        assert spec.mutating == (not name.startswith("get_")), name
        for arg in spec.parameters["properties"].values():
            assert arg["description"], name


# ---- success paths ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
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
        (
            "set_do_not_disturb",
            {"enabled": True, "until": "2025-06-13T12:30"},
            {"dnd": "1", "dnd_until": "2025-06-13T12:30"},
        ),
    ],
)
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
    assert status["accessibility"]["font_scale"] == 1.0 and status["accessibility"]["a11y_screen_reader"] is False
    assert diff_of(ex.conn) == {}


def test_set_accessibility_option(ex: Executor) -> None:
    payload = ok(ex, "set_accessibility_option", {"option": "screen_reader", "enabled": True})
    assert payload["updated"] == {"a11y_screen_reader": True}
    assert changed_settings(ex.conn) == {"a11y_screen_reader": "1"}


def test_large_text_sets_and_resets_the_font_scale(ex: Executor) -> None:
    ok(ex, "set_accessibility_option", {"option": "large_text", "enabled": True})
    assert changed_settings(ex.conn) == {"a11y_large_text": "1", "font_scale": "1.3"}
    ex.step = 2
    ok(ex, "set_accessibility_option", {"option": "large_text", "enabled": True, "font_scale": 1.5})
    assert changed_settings(ex.conn) == {"a11y_large_text": "1", "font_scale": "1.5"}
    ex.step = 3
    ok(ex, "set_accessibility_option", {"option": "large_text", "enabled": False})
    assert changed_settings(ex.conn) == {}


def bt_device(ex: Executor, name: str) -> dict[str, Any]:
    [row] = query(ex, select(devices).where(devices.c.name == name))
    return row


def test_pair_bluetooth_device(ex: Executor) -> None:
    payload = ok(ex, "pair_bluetooth_device", {"device_name": "jbl flip"})
    assert payload == {
        "device_id": payload["device_id"],
        "name": "JBL Flip 6",
        "kind": "speaker",
        "paired": True,
        "connected": True,
    }
    d = diff_of(ex.conn)
    assert set(d) == {"devices"}
    [row] = d["devices"].inserted
    assert (row["name"], row["connection"], row["paired"], row["connected"], row["online"]) == (
        "JBL Flip 6",
        "bluetooth",
        1,
        1,
        1,
    )


def test_forget_then_pair_again_reuses_the_device(ex: Executor) -> None:
    watch = bt_device(ex, "Smart Watch")
    assert ok(ex, "pair_bluetooth_device", {"device_name": "Smart Watch", "action": "forget"})["paired"] is False
    ex.step = 2
    assert ok(ex, "pair_bluetooth_device", {"device_name": "smart watch"})["device_id"] == watch["device_id"]
    [(before, after)] = diff_of(ex.conn)["devices"].updated  # back as it was
    assert {k for k in after if after[k] != before[k]} == {"updated_at"}


@pytest.mark.parametrize(("action", "before", "after"), [("disconnect", 1, 0), ("connect", 0, 1)])
def test_connect_and_disconnect(ex: Executor, action: str, before: int, after: int) -> None:
    name = "Sony WH-1000XM4"
    prepare(ex.conn, update(devices).where(devices.c.name == name).values(connected=before))
    assert ok(ex, "pair_bluetooth_device", {"device_name": name, "action": action})["connected"] is bool(after)
    [(_, row)] = diff_of(ex.conn)["devices"].updated
    assert (row["name"], row["connected"], row["paired"]) == (name, after, 1)


def test_pair_bluetooth_device_needs_bluetooth(ex: Executor) -> None:
    prepare(ex.conn, *values(bluetooth="0"))
    env = ex.call("pair_bluetooth_device", {"device_name": "JBL Flip 6"})
    assert env["ErrorType"] == "ServiceDisabled" and diff_of(ex.conn) == {}


def test_companion_app_devices_point_to_the_gui_agent(ex: Executor) -> None:
    env = ex.call("pair_bluetooth_device", {"device_name": "FreeBuds"})
    assert env["ErrorType"] == "UnsupportedOperation" and "call_gui_agent" in env["Payload"]["hint"]


def test_set_focus_mode(ex: Executor) -> None:
    prepare(ex.conn, update(focus_modes).where(focus_modes.c.mode == "sleep").values(enabled=1))
    payload = ok(
        ex,
        "set_focus_mode",
        {
            "mode": "work",
            "enabled": True,
            "days": ["fri", "mon"],
            "start": "08:30",
            "end": "17:30",
            "allowed_apps": ["calendar", "chat", "calendar"],
            "allowed_contacts": ["contact_004"],
            "auto_reply": "In focus time, back at 17:30.",
        },
    )
    assert payload["turned_off"] == ["sleep"] and payload["allowed_apps"] == ["calendar", "chat"]
    assert payload["schedule"] == {"days": ["mon", "fri"], "start": "08:30", "end": "17:30"}
    rows = {after["mode"]: after for _, after in diff_of(ex.conn)["focus_modes"].updated}
    assert rows["sleep"]["enabled"] == 0
    work = rows["work"]
    assert (work["enabled"], json.loads(work["allowed_contacts_json"]), work["auto_reply"]) == (
        1,
        ["contact_004"],
        "In focus time, back at 17:30.",
    )
    assert set(diff_of(ex.conn)) == {"focus_modes"}


def test_set_focus_mode_schedule_defaults_to_every_day(ex: Executor) -> None:
    ok(ex, "set_focus_mode", {"mode": "fitness", "enabled": False, "start": "18:00", "end": "19:00"})
    [(_, after)] = diff_of(ex.conn)["focus_modes"].updated
    assert json.loads(after["schedule_json"])["days"] == ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


def test_nearby_devices_include_the_paired_ones_in_range(ex: Executor) -> None:
    nearby = {r["name"] for r in query(ex, select(world_nearby_devices))}
    in_range = {
        r["name"] for r in query(ex, select(devices).where(devices.c.connection == "bluetooth", devices.c.online == 1))
    }
    assert in_range <= nearby and len(nearby - in_range) >= 5


# ---- declared errors --------------------------------------------------------------------------

# (tool, arguments, settings before, expected error)
ERROR_CASES: list[tuple[str, dict[str, Any], dict[str, str], str]] = [
    ("set_wifi", {"enabled": True}, {}, "StateConflict"),
    ("set_mobile_data", {"enabled": True}, {}, "StateConflict"),
    ("set_mobile_data", {"enabled": True}, {"airplane_mode": "1", "mobile_data": "0"}, "StateConflict"),
    ("set_airplane_mode", {"enabled": False}, {}, "StateConflict"),
    ("set_location_services", {"enabled": True}, {}, "StateConflict"),
    ("set_location_services", {"enabled": True}, {"low_power_mode": "1", "location_service": "0"}, "StateConflict"),
    ("set_bluetooth", {"enabled": True}, {}, "StateConflict"),
    ("pair_bluetooth_device", {"device_name": "Beats Studio"}, {}, "EntityNotFound"),
    ("pair_bluetooth_device", {"device_name": "JBL Flip 6", "action": "connect"}, {}, "EntityNotFound"),
    ("pair_bluetooth_device", {"device_name": "galaxy buds"}, {}, "AmbiguousEntity"),
    ("pair_bluetooth_device", {"device_name": "Smart Watch", "action": "connect"}, {}, "StateConflict"),
    ("pair_bluetooth_device", {"device_name": "My Car", "action": "disconnect"}, {}, "StateConflict"),
    ("pair_bluetooth_device", {"device_name": "My Car", "action": "connect"}, {}, "ResourceUnavailable"),
    ("pair_bluetooth_device", {"device_name": "Mi Smart Band 8"}, {}, "UnsupportedOperation"),
    ("pair_bluetooth_device", {"device_name": "Sony WH-1000XM4"}, {}, "DuplicateEntity"),
    ("set_volume", {"stream": "media", "level": 60}, {}, "StateConflict"),
    ("set_ringer_mode", {"mode": "normal"}, {}, "StateConflict"),
    ("set_brightness", {"level": 40}, {"brightness": "40", "auto_brightness": "0"}, "StateConflict"),
    ("set_dark_mode", {"enabled": False}, {}, "StateConflict"),
    ("set_low_power_mode", {"enabled": False}, {}, "StateConflict"),
    ("set_do_not_disturb", {"enabled": False}, {}, "StateConflict"),
    ("set_do_not_disturb", {"enabled": True, "until": "2025-06-13T08:59"}, {}, "InvalidArgumentValue"),
    (
        "set_focus_mode",
        {"mode": "work", "enabled": True, "allowed_apps": ["calendar", "no_such_app"]},
        {},
        "EntityNotFound",
    ),
    ("set_focus_mode", {"mode": "work", "enabled": True, "allowed_contacts": ["contact_999"]}, {}, "EntityNotFound"),
    ("set_focus_mode", {"mode": "sleep", "enabled": False}, {}, "StateConflict"),
    ("set_focus_mode", {"mode": "work", "enabled": False, "allowed_apps": ["phone", "calendar"]}, {}, "StateConflict"),
    ("set_system_language", {"language": "en-US"}, {}, "StateConflict"),
    ("set_accessibility_option", {"option": "captions", "enabled": False}, {}, "StateConflict"),
    ("set_accessibility_option", {"option": "large_text", "enabled": True}, {"a11y_large_text": "1"}, "StateConflict"),
]


@pytest.mark.parametrize(
    ("name", "args", "before", "error"), ERROR_CASES, ids=[f"{c[0]}-{c[3]}-{i}" for i, c in enumerate(ERROR_CASES)]
)
def test_declared_error_changes_nothing(
    ex: Executor,
    name: str,
    args: dict[str, Any],
    before: dict[str, str],
    error: str,
) -> None:
    prepare(ex.conn, *values(**before))
    env = ex.call(name, args)
    assert (env["Status"], env["ErrorType"]) == ("error", error), env
    assert diff_of(ex.conn) == {}
    with transaction(ex.conn):
        logged = ex.conn.execute(select(operation_logs.c.tool_name, operation_logs.c.error_type)).all()
    assert logged == [(name, error)]


def test_every_declared_error_is_tested() -> None:
    declared = {(n, e.value) for n in SETTINGS_TOOLS for e in REGISTRY[n].errors}
    assert {(c[0], c[3]) for c in ERROR_CASES} == declared


def test_state_conflict_payload_names_the_current_value(ex: Executor) -> None:
    env = ex.call("set_wifi", {"enabled": True})
    assert env["Payload"]["current"] == {"wifi": True}
    prepare(ex.conn, *values(low_power_mode="1", location_service="0"))
    env = ex.call("set_location_services", {"enabled": True})
    assert env["Payload"]["current"] == {"low_power_mode": True} and "set_low_power_mode" in env["Payload"]["hint"]


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("set_do_not_disturb", {"enabled": False, "until": "2025-06-13T12:00"}),
        ("set_focus_mode", {"mode": "work", "enabled": True, "start": "09:00"}),
        ("set_focus_mode", {"mode": "work", "enabled": True, "days": ["mon"]}),
        ("set_focus_mode", {"mode": "work", "enabled": True, "start": "09:00", "end": "09:00"}),
        ("set_accessibility_option", {"option": "bold_text", "enabled": True, "font_scale": 1.2}),
        ("set_accessibility_option", {"option": "large_text", "enabled": False, "font_scale": 1.2}),
        ("set_accessibility_option", {"option": "large_text", "enabled": True, "font_scale": 2.5}),
    ],
)
def test_cross_field_rules(ex: Executor, name: str, args: dict[str, Any]) -> None:
    env = ex.call(name, args)
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
