"""D10 smart-home and vehicle tools against the wang_lei world (now = 2025-06-13T09:00, a Friday).

Each tool has a success test asserting its payload and state diff, and every declared ErrorType has a
case in ``ERROR_CASES``: the failed call changes nothing and adds exactly one log row.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import Update, delete, select, update

from sandbox.db import transaction
from sandbox.domains.home import tools as home
from sandbox.domains.home.schema import SWITCHABLE, home_automations, home_devices, home_events, vehicle_state
from sandbox.domains.home.seed import DEVICES, dev_id, seasonal
from sandbox.errors import ErrorType
from sandbox.executor import Executor
from sandbox.schema import app_permissions, device_settings
from sandbox.tooling import REGISTRY
from sandbox.world import PERSONAS, build_world
from tests.sandbox.conftest import diff, diff_of, fails, log_count, prepare

HOME_TOOLS = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ == home.__name__)
LIVING_LIGHTS = [dev_id("Ceiling light"), dev_id("Floor lamp")]
FRONT_DOOR, GARAGE_LOCK, DOORBELL, PANEL = (
    dev_id(n) for n in ("Front door lock", "Garage door lock", "Doorbell camera", "Alarm panel")
)
VACUUM, COFFEE, THERMOSTAT = dev_id("Robot vacuum"), dev_id("Coffee maker plug"), dev_id("Living room thermostat")


def ok(ex: Executor, name: str, args: dict[str, Any]) -> dict[str, Any]:
    env = ex.call(name, args)
    assert env["Status"] == "success", env
    ex.step += 1
    payload: dict[str, Any] = env["Payload"]
    return payload


def states(ex: Executor) -> dict[str, dict[str, Any]]:
    """device_id -> new state, for the devices the episode changed."""
    return {
        after["device_id"]: json.loads(after["state_json"]) for _, after in diff_of(ex.conn)["home_devices"].updated
    }


def seeded_state(device_id: str) -> dict[str, Any]:
    return dict(DEVICES[int(device_id.removeprefix("hdev_")) - 1][4])


def with_state(device_id: str, **changes: Any) -> Update:
    """A statement giving a device a patched copy of its seeded state (for ``prepare``)."""
    state = {**seeded_state(device_id), **changes}
    return (
        update(home_devices)
        .where(home_devices.c.device_id == device_id)
        .values(state_json=json.dumps(state, sort_keys=True))
    )


def offline(*device_ids: str) -> Update:
    return update(home_devices).where(home_devices.c.device_id.in_(device_ids)).values(online=0)


def car(**values: str) -> list[Update]:
    return [update(vehicle_state).where(vehicle_state.c.key == k).values(value=v) for k, v in values.items()]


def car_state(ex: Executor) -> dict[str, str]:
    """The vehicle_state keys the episode changed, with their new values."""
    d = diff_of(ex.conn)
    return {after["key"]: after["value"] for _, after in d["vehicle_state"].updated} if "vehicle_state" in d else {}


# ---- world and declarations -------------------------------------------------------------------


def test_world_is_seeded_as_promised(ex: Executor) -> None:
    with transaction(ex.conn):
        devices = ex.conn.execute(select(home_devices)).all()
        events = ex.conn.execute(select(home_events)).all()
        automations = ex.conn.execute(select(home_automations)).all()
        keys = set(ex.conn.execute(select(vehicle_state.c.key)).scalars())
    assert len(devices) == len(DEVICES) == 30
    assert {d.type for d in devices} == set(SWITCHABLE) | {"thermostat", "lock", "vacuum", "sensor", "alarm_panel"}
    assert {d.name for d in devices if not d.online} == {"Hallway light", "Garage door lock", "Backyard camera"}
    assert len({d.room for d in devices if d.type == "light"}) >= 6
    assert len(events) > 80 and {"package", "person", "armed_away", "disarmed"} <= {e.kind for e in events}
    assert len(automations) == 6
    assert {
        "online",
        "locked",
        "engine_on",
        "battery_pct",
        "range_km",
        "tire_pressure_json",
        "location_place_id",
        "odometer_km",
    } <= keys
    assert build_world("maya_patel") != build_world("wang_lei")


def test_declarations() -> None:
    assert len(HOME_TOOLS) == 13
    readonly = {n for n in HOME_TOOLS if not REGISTRY[n].mutating}
    assert readonly == {"get_camera_snapshot", "list_smart_devices", "get_vehicle_status"}
    for name in HOME_TOOLS:
        spec = REGISTRY[name]
        assert spec.domain == "D10" and spec.network == "internet" and spec.permissions == ()
        assert spec.app == ("car" if "vehicle" in name else "home"), name
        for arg in spec.parameters["properties"].values():
            assert arg["description"], name


# ---- 10.1 Lights & Scenes ---------------------------------------------------------------------


def test_set_light_state_room(ex: Executor) -> None:
    out = ok(ex, "set_light_state", {"target": "living room", "brightness": 40})
    assert [u["device_id"] for u in out["updated"]] == LIVING_LIGHTS
    assert states(ex) == {d: {**seeded_state(d), "on": True, "brightness": 40} for d in LIVING_LIGHTS}
    assert set(diff(ex)) == {"home_devices"}


def test_set_light_state_one_light_colour(ex: Executor) -> None:
    light = dev_id("Kids room light")
    ok(ex, "set_light_state", {"target": light, "color": "#ff0000"})
    assert states(ex) == {light: {**seeded_state(light), "on": True, "color": "#FF0000"}}


def test_set_light_state_skips_offline_lights(ex: Executor) -> None:
    prepare(ex.conn, offline(LIVING_LIGHTS[1]))
    out = ok(ex, "set_light_state", {"target": "Living room", "on": True})
    assert out["skipped_offline"] == [LIVING_LIGHTS[1]] and list(states(ex)) == [LIVING_LIGHTS[0]]


def test_set_light_state_arguments_must_agree(ex: Executor) -> None:
    for args in (
        {"target": "Kitchen"},
        {"target": "Kitchen", "on": False, "brightness": 10},
        {"target": "Kitchen", "color": "#FFFFFF", "color_temp_k": 3000},
    ):
        assert ex.call("set_light_state", args)["ErrorType"] == "InvalidArgumentValue"
    assert diff(ex) == {}


def test_activate_scene_lists_offline_devices(ex: Executor) -> None:
    out = ok(ex, "activate_scene", {"scene_name": "good night"})
    assert out["scene_name"] == "Good night"
    assert out["failed"] == [{"device_id": dev_id("Hallway light"), "name": "Hallway light", "reason": "offline"}]
    changed = states(ex)
    assert set(changed) == {d["device_id"] for d in out["applied"]}
    assert changed[dev_id("Kitchen light")]["on"] is False
    assert changed[dev_id("Bedside lamp")] == {**seeded_state(dev_id("Bedside lamp")), "on": True, "brightness": 10}
    assert FRONT_DOOR in out["unchanged"]  # already locked


# ---- 10.2 Climate -----------------------------------------------------------------------------


def test_set_thermostat(ex: Executor) -> None:
    out = ok(
        ex, "set_thermostat", {"target": "bedroom", "target_c": 23.3, "mode": "cool", "hold_until": "2025-06-13T22:00"}
    )
    ac = dev_id("Bedroom AC")
    assert out["device_id"] == ac
    assert states(ex) == {ac: {**seeded_state(ac), "mode": "cool", "target_c": 23.5, "hold_until": "2025-06-13T22:00"}}


def test_a_thermostat_turned_off_keeps_its_target_and_needs_a_target_or_a_mode(ex: Executor) -> None:
    ok(ex, "set_thermostat", {"target": THERMOSTAT, "mode": "off"})
    assert states(ex)[THERMOSTAT] == {**seeded_state(THERMOSTAT), "mode": "off", "hold_until": None}
    fails(ex, "set_thermostat", {"target": THERMOSTAT}, ErrorType.INVALID_ARGUMENT_VALUE)


# ---- 10.3 Home Security & Locks ---------------------------------------------------------------


def test_set_lock_state_unlock_with_confirmation(ex: Executor) -> None:
    assert ok(ex, "set_lock_state", {"device_id": FRONT_DOOR, "locked": False, "confirm": True})["locked"] is False
    assert states(ex) == {FRONT_DOOR: {**seeded_state(FRONT_DOOR), "locked": False}}
    ok(ex, "set_lock_state", {"device_id": FRONT_DOOR, "locked": True})  # locking needs no confirmation
    assert states(ex) == {FRONT_DOOR: seeded_state(FRONT_DOOR)}


def test_set_lock_state_guest_code(ex: Executor) -> None:
    out = ok(
        ex, "set_lock_state", {"device_id": FRONT_DOOR, "locked": True, "guest_code_label": "Plumber", "confirm": True}
    )
    code = out["guest_code"]
    assert code["valid_until"] == "2025-06-14T09:00" and len(code["code"]) == 6 and code["code"].isdigit()
    d = diff(ex)
    assert set(d) == {"access_codes"}
    [row] = d["access_codes"]["inserted"]
    assert (row["code_id"], row["device_id"], row["label"], row["code"]) == (
        "code_003",
        FRONT_DOOR,
        "Plumber",
        code["code"],
    )


def test_arm_security_system(ex: Executor) -> None:
    out = ok(ex, "arm_security_system", {"mode": "away"})
    assert (out["armed_mode"], out["previous"], out["bypassed_sensors"]) == ("away", "disarmed", [])
    assert states(ex) == {PANEL: {"armed_mode": "away", "bypassed": []}}
    [event] = diff(ex)["home_events"]["inserted"]
    assert (event["device_id"], event["kind"], event["ts"]) == (PANEL, "armed_away", "2025-06-13T09:00:01")


def test_arm_security_system_bypass_and_disarm(ex: Executor) -> None:
    window = dev_id("Kitchen window sensor")
    prepare(ex.conn, with_state(window, open=True))
    out = ok(ex, "arm_security_system", {"mode": "night", "bypass_open_sensors": True})
    assert out["bypassed_sensors"] == [window]
    ok(ex, "arm_security_system", {"mode": "disarm", "confirm": True})
    assert states(ex)[PANEL] == {"armed_mode": "disarmed", "bypassed": []}
    assert [e["kind"] for e in diff(ex)["home_events"]["inserted"]] == ["armed_night", "disarmed"]


def test_get_camera_snapshot(ex: Executor) -> None:
    out = ok(ex, "get_camera_snapshot", {"camera_id": DOORBELL})
    assert out["snapshot"]["captured_at"] == "2025-06-13T09:00"
    assert [d["kind"] for d in out["detections"][:2]] == ["package", "doorbell"]
    assert all(d["ts"] >= "2025-06-12T09:00" for d in out["detections"])
    older = ok(ex, "get_camera_snapshot", {"camera_id": DOORBELL, "since": "2025-06-01T00:00"})
    assert len(older["detections"]) > len(out["detections"])
    assert diff(ex) == {}


# ---- 10.4 Appliances & Plugs ------------------------------------------------------------------


def test_list_smart_devices(ex: Executor) -> None:
    out = ok(ex, "list_smart_devices", {"room": "kitchen"})
    assert {d["name"] for d in out["devices"]} == {
        "Kitchen light",
        "Back door lock",
        "Coffee maker plug",
        "Kitchen window sensor",
    }
    locks = ok(ex, "list_smart_devices", {"type": "lock"})["devices"]
    assert [(d["device_id"], d["online"]) for d in locks] == [
        (FRONT_DOOR, True),
        (dev_id("Back door lock"), True),
        (GARAGE_LOCK, False),
    ]
    assert locks[0]["state"] == {"battery_pct": 82, "locked": True}
    assert "Garden" in out["rooms"] and diff(ex) == {}


def test_set_device_power(ex: Executor) -> None:
    assert ok(ex, "set_device_power", {"device_id": COFFEE, "on": True}) == {
        "device_id": COFFEE,
        "name": "Coffee maker plug",
        "on": True,
    }
    assert states(ex) == {COFFEE: {**seeded_state(COFFEE), "on": True}}


def test_start_robot_vacuum_start_pause_dock(ex: Executor) -> None:
    out = ok(
        ex,
        "start_robot_vacuum",
        {"device_id": VACUUM, "action": "start", "rooms": ["kitchen", "Study"], "mode": "both", "suction": "max"},
    )
    assert (out["status"], out["previous"], out["rooms"]) == ("cleaning", "docked", ["Kitchen", "Study"])
    assert states(ex)[VACUUM] == {
        **seeded_state(VACUUM),
        "status": "cleaning",
        "rooms": ["Kitchen", "Study"],
        "mode": "both",
        "suction": "max",
    }
    ok(ex, "start_robot_vacuum", {"device_id": VACUUM, "action": "pause"})
    assert states(ex)[VACUUM]["status"] == "paused"
    ok(ex, "start_robot_vacuum", {"device_id": VACUUM, "action": "dock"})
    assert states(ex)[VACUUM] == {**seeded_state(VACUUM), "mode": "both", "suction": "max"}


# ---- 10.5 Home Automations --------------------------------------------------------------------


def test_create_home_automation(ex: Executor) -> None:
    out = ok(
        ex,
        "create_home_automation",
        {
            "name": "Evening lights",
            "trigger": {"type": "sunset", "value": -15},
            "actions": [
                {"target": LIVING_LIGHTS[0], "command": "set_brightness", "value": 60},
                {"target": "movie TIME", "command": "activate_scene"},
            ],
            "days": ["fri", "mon"],
        },
    )
    assert out["automation_id"] == "automation_007"
    [row] = diff(ex)["home_automations"]["inserted"]
    assert json.loads(row["trigger_json"]) == {"type": "sunset", "value": -15}
    assert json.loads(row["actions_json"]) == [
        {"target": LIVING_LIGHTS[0], "command": "set_brightness", "value": 60},
        {"target": "Movie time", "command": "activate_scene"},
    ]
    assert (json.loads(row["days_json"]), row["enabled"]) == (["mon", "fri"], 1)


def test_create_home_automation_geofence_uses_location(ex: Executor) -> None:
    ok(
        ex,
        "create_home_automation",
        {
            "name": "Arrive",
            "trigger": {"type": "arrive_home"},
            "actions": [{"target": THERMOSTAT, "command": "set_temperature", "value": 24}],
        },
    )
    assert len(diff(ex)["home_automations"]["inserted"]) == 1


@pytest.mark.parametrize(
    "trigger",
    [
        {"type": "time"},
        {"type": "time", "value": "7am"},
        {"type": "sunset", "value": 500},
        {"type": "leave_home", "value": "x"},
        {"type": "sensor"},
    ],
)
def test_create_home_automation_checks_trigger_values(ex: Executor, trigger: dict[str, Any]) -> None:
    env = ex.call(
        "create_home_automation",
        {"name": "x", "trigger": trigger, "actions": [{"target": COFFEE, "command": "turn_on"}]},
    )
    assert env["ErrorType"] == "InvalidArgumentValue" and diff(ex) == {}


# ---- 10.6 Vehicle -----------------------------------------------------------------------------


def test_vehicle_remote_command(ex: Executor) -> None:
    out = ok(ex, "vehicle_remote_command", {"command": "unlock", "confirm": True})
    assert out["locked"] is False and car_state(ex) == {"locked": "0"}
    ok(ex, "vehicle_remote_command", {"command": "start_engine", "confirm": True})
    ok(ex, "vehicle_remote_command", {"command": "honk_flash"})
    assert car_state(ex) == {"locked": "0", "engine_on": "1"}
    logged = [(r["command"], r["result"]) for r in diff(ex)["vehicle_events"]["inserted"]]
    assert logged == [("unlock", "ok"), ("start_engine", "ok"), ("honk_flash", "ok")]


def test_set_vehicle_climate(ex: Executor) -> None:
    out = ok(ex, "set_vehicle_climate", {"target_c": 21.2, "seat_heat": "low", "duration_min": 10})
    assert (out["target_c"], out["until"], out["seat_heat"], out["defrost"]) == (21.0, "2025-06-13T09:10", "low", False)
    assert car_state(ex) == {
        "climate_on": "1",
        "climate_target_c": "21.0",
        "climate_until": "2025-06-13T09:10",
        "seat_heat": "low",
    }


def test_get_vehicle_status(ex: Executor) -> None:
    out = ok(ex, "get_vehicle_status", {})
    assert out["vehicle"]["powertrain"] == "ev" and out["energy"]["battery_pct"] == 64
    assert out["security"] == {"locked": True, "engine_on": False, "windows_closed": True, "trunk_open": False}
    assert out["tyres"]["tire_pressure"]["rear_left"] == 2.0
    assert out["tyres"]["recommended_bar"] == 2.4 and out["tyres"]["low"] == ["rear_left"]
    assert out["location"]["city"] == "Beijing" and diff(ex) == {}


# ---- declared errors --------------------------------------------------------------------------

SET = "set_light_state"
ERROR_CASES: list[tuple[str, dict[str, Any], list[Any], ErrorType]] = [
    (SET, {"target": "Garage", "on": True}, [], ErrorType.ENTITY_NOT_FOUND),
    (SET, {"target": FRONT_DOOR, "on": True}, [], ErrorType.ENTITY_NOT_FOUND),
    (SET, {"target": "bedroom", "on": True}, [], ErrorType.AMBIGUOUS_ENTITY),
    (SET, {"target": dev_id("Hallway light"), "on": True}, [], ErrorType.RESOURCE_UNAVAILABLE),
    (SET, {"target": "Kitchen", "on": True, "brightness": 100}, [], ErrorType.STATE_CONFLICT),
    ("activate_scene", {"scene_name": "Party"}, [], ErrorType.ENTITY_NOT_FOUND),
    (
        "activate_scene",
        {"scene_name": "Movie time"},
        [offline(*LIVING_LIGHTS, dev_id("Living room TV"))],
        ErrorType.RESOURCE_UNAVAILABLE,
    ),
    (
        "set_thermostat",
        {"target": THERMOSTAT, "target_c": 24, "hold_until": "2025-06-13T08:00"},
        [],
        ErrorType.INVALID_ARGUMENT_VALUE,
    ),
    ("set_thermostat", {"target": "Garage", "target_c": 24}, [], ErrorType.ENTITY_NOT_FOUND),
    ("set_thermostat", {"target": "room", "target_c": 24}, [], ErrorType.AMBIGUOUS_ENTITY),
    (
        "set_thermostat",
        {"target": "Living room", "target_c": 24},
        [offline(THERMOSTAT)],
        ErrorType.RESOURCE_UNAVAILABLE,
    ),
    ("set_thermostat", {"target": THERMOSTAT, "target_c": 25, "mode": "cool"}, [], ErrorType.STATE_CONFLICT),
    (
        "set_lock_state",
        {
            "device_id": FRONT_DOOR,
            "locked": True,
            "guest_code_label": "Cleaner",
            "code_valid_until": "2025-06-12T10:00",
            "confirm": True,
        },
        [],
        ErrorType.INVALID_ARGUMENT_VALUE,
    ),
    ("set_lock_state", {"device_id": LIVING_LIGHTS[0], "locked": True}, [], ErrorType.ENTITY_NOT_FOUND),
    (
        "set_lock_state",
        {"device_id": GARAGE_LOCK, "locked": False, "confirm": True},
        [],
        ErrorType.RESOURCE_UNAVAILABLE,
    ),
    ("set_lock_state", {"device_id": FRONT_DOOR, "locked": True}, [], ErrorType.STATE_CONFLICT),
    ("set_lock_state", {"device_id": FRONT_DOOR, "locked": False}, [], ErrorType.CONFIRMATION_REQUIRED),
    (
        "set_lock_state",
        {"device_id": FRONT_DOOR, "locked": True, "guest_code_label": "Nanny"},
        [],
        ErrorType.CONFIRMATION_REQUIRED,
    ),
    (
        "arm_security_system",
        {"mode": "away"},
        [delete(home_devices).where(home_devices.c.device_id == PANEL)],
        ErrorType.ENTITY_NOT_FOUND,
    ),
    ("arm_security_system", {"mode": "away"}, [offline(PANEL)], ErrorType.RESOURCE_UNAVAILABLE),
    ("arm_security_system", {"mode": "disarm", "confirm": True}, [], ErrorType.STATE_CONFLICT),
    (
        "arm_security_system",
        {"mode": "away"},
        [with_state(dev_id("Balcony door sensor"), open=True)],
        ErrorType.STATE_CONFLICT,
    ),
    (
        "arm_security_system",
        {"mode": "disarm"},
        [with_state(PANEL, armed_mode="away")],
        ErrorType.CONFIRMATION_REQUIRED,
    ),
    ("get_camera_snapshot", {"camera_id": FRONT_DOOR}, [], ErrorType.ENTITY_NOT_FOUND),
    ("get_camera_snapshot", {"camera_id": dev_id("Backyard camera")}, [], ErrorType.RESOURCE_UNAVAILABLE),
    ("get_camera_snapshot", {"camera_id": DOORBELL}, [with_state(DOORBELL, on=False)], ErrorType.RESOURCE_UNAVAILABLE),
    ("set_device_power", {"device_id": "hdev_999", "on": True}, [], ErrorType.ENTITY_NOT_FOUND),
    ("set_device_power", {"device_id": dev_id("Hallway light"), "on": True}, [], ErrorType.RESOURCE_UNAVAILABLE),
    ("set_device_power", {"device_id": FRONT_DOOR, "on": True}, [], ErrorType.UNSUPPORTED_OPERATION),
    ("set_device_power", {"device_id": dev_id("Air purifier"), "on": True}, [], ErrorType.STATE_CONFLICT),
    ("start_robot_vacuum", {"device_id": COFFEE, "action": "start"}, [], ErrorType.ENTITY_NOT_FOUND),
    (
        "start_robot_vacuum",
        {"device_id": VACUUM, "action": "start", "rooms": ["Attic"]},
        [],
        ErrorType.ENTITY_NOT_FOUND,
    ),
    ("start_robot_vacuum", {"device_id": VACUUM, "action": "start"}, [offline(VACUUM)], ErrorType.RESOURCE_UNAVAILABLE),
    ("start_robot_vacuum", {"device_id": VACUUM, "action": "dock"}, [], ErrorType.STATE_CONFLICT),
    (
        "start_robot_vacuum",
        {"device_id": VACUUM, "action": "start"},
        [with_state(VACUUM, bin_full=True)],
        ErrorType.STATE_CONFLICT,
    ),
    (
        "start_robot_vacuum",
        {"device_id": VACUUM, "action": "start"},
        [with_state(VACUUM, battery_pct=12)],
        ErrorType.STATE_CONFLICT,
    ),
    (
        "create_home_automation",
        {
            "name": "Leave",
            "trigger": {"type": "leave_home"},
            "actions": [{"target": VACUUM, "command": "start_vacuum"}],
        },
        [update(app_permissions).where(app_permissions.c.app_id == "home").values(state="not_requested")],
        ErrorType.PERMISSION_DENIED,
    ),
    (
        "create_home_automation",
        {"name": "x", "trigger": {"type": "sunset"}, "actions": [{"target": "hdev_999", "command": "turn_on"}]},
        [],
        ErrorType.ENTITY_NOT_FOUND,
    ),
    (
        "create_home_automation",
        {
            "name": "x",
            "trigger": {"type": "sensor", "value": COFFEE},
            "actions": [{"target": LIVING_LIGHTS[0], "command": "turn_on"}],
        },
        [],
        ErrorType.ENTITY_NOT_FOUND,
    ),
    (
        "create_home_automation",
        {"name": "x", "trigger": {"type": "sunset"}, "actions": [{"target": "Party", "command": "activate_scene"}]},
        [],
        ErrorType.ENTITY_NOT_FOUND,
    ),
    (
        "create_home_automation",
        {"name": "x", "trigger": {"type": "sunset"}, "actions": [{"target": FRONT_DOOR, "command": "turn_on"}]},
        [],
        ErrorType.INVALID_ARGUMENT_VALUE,
    ),
    (
        "create_home_automation",
        {
            "name": "morning COFFEE",
            "trigger": {"type": "time", "value": "07:00"},
            "actions": [{"target": COFFEE, "command": "turn_on"}],
        },
        [],
        ErrorType.DUPLICATE_ENTITY,
    ),
    ("vehicle_remote_command", {"command": "lock"}, car(online="0"), ErrorType.RESOURCE_UNAVAILABLE),
    ("vehicle_remote_command", {"command": "lock"}, [], ErrorType.STATE_CONFLICT),
    ("vehicle_remote_command", {"command": "start_engine"}, [], ErrorType.CONFIRMATION_REQUIRED),
    ("vehicle_remote_command", {"command": "open_trunk"}, [], ErrorType.CONFIRMATION_REQUIRED),
    ("set_vehicle_climate", {"target_c": 20}, car(online="0"), ErrorType.RESOURCE_UNAVAILABLE),
    ("set_vehicle_climate", {"target_c": 20}, car(battery_pct="18"), ErrorType.LIMIT_EXCEEDED),
    ("get_vehicle_status", {}, car(online="0"), ErrorType.RESOURCE_UNAVAILABLE),
]


@pytest.mark.parametrize(
    ("name", "args", "before", "error"),
    ERROR_CASES,
    ids=[f"{c[0]}-{c[3].value}-{i}" for i, c in enumerate(ERROR_CASES)],
)
def test_declared_error_changes_nothing(
    ex: Executor,
    name: str,
    args: dict[str, Any],
    before: list[Any],
    error: ErrorType,
) -> None:
    prepare(ex.conn, *before)
    logged = log_count(ex.conn)
    env = ex.call(name, args)
    assert (env["Status"], env["ErrorType"]) == ("error", error.value), env
    assert isinstance(env["Payload"]["message"], str)
    assert diff(ex) == {}
    assert log_count(ex.conn) == logged + 1


def test_every_declared_error_is_tested() -> None:
    declared = {(n, e) for n in HOME_TOOLS for e in REGISTRY[n].errors}
    assert {(c[0], c[3]) for c in ERROR_CASES} == declared


def test_error_payloads_guide_the_planner(ex: Executor) -> None:
    env = ex.call("set_light_state", {"target": "bedroom", "on": True})
    assert env["Payload"]["candidates"] == ["Kids bedroom", "Master bedroom"]
    prepare(ex.conn, with_state(dev_id("Balcony door sensor"), open=True))
    env = ex.call("arm_security_system", {"mode": "away"})
    assert env["Payload"]["open_sensors"] == [
        {"device_id": dev_id("Balcony door sensor"), "name": "Balcony door sensor"}
    ]
    env = ex.call("set_lock_state", {"device_id": FRONT_DOOR, "locked": False})
    assert "confirm=true" in env["Payload"]["hint"]
    env = ex.call("set_device_power", {"device_id": THERMOSTAT, "on": False})
    assert env["Payload"]["hint"] == "set_thermostat"


def test_home_tools_need_the_network(ex: Executor) -> None:
    prepare(
        ex.conn, update(device_settings).where(device_settings.c.key.in_(["wifi", "mobile_data"])).values(value="0")
    )
    env = ex.call("set_light_state", {"target": "Kitchen", "on": False})
    assert env["ErrorType"] == "NetworkUnavailable" and diff(ex) == {}


@pytest.mark.parametrize(
    ("persona_id", "mode"), [("wang_lei", "cool"), ("yuki_sato", "heat"), ("amara_okafor", "heat")]
)
def test_the_thermostat_keeps_the_season_of_the_world(persona_id: str, mode: str) -> None:
    """Beijing in June cools; Tokyo in January and Toronto in February heat."""
    thermostat = dict(next(d for d in DEVICES if d[0] == "Living room thermostat")[4])
    assert seasonal("Living room thermostat", thermostat, PERSONAS[persona_id])["mode"] == mode
