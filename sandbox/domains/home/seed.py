"""The home domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import datetime as dt
import json
import random
from typing import Any

from sqlalchemy import Connection, insert, select
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from sandbox.domains.common import world_places
from sandbox.domains.home.schema import (
    DT_FMT,
    HOME,
    WEEKDAYS,
    access_codes,
    home_automations,
    home_devices,
    home_events,
    home_scenes,
    vehicle_events,
    vehicle_state,
)
from sandbox.locales import CITIES
from sandbox.personas import Persona, seeder
from sandbox.schema import app_permissions

# ---- World data -------------------------------------------------------------------------------

# (name, room, type, online, state); hand-written tasks refer to these names and ids (in this order).
DEVICES: list[tuple[str, str, str, int, dict[str, Any]]] = [
    ("Ceiling light", "Living room", "light", 1, {"on": False, "brightness": 80, "color_temp_k": 4000}),
    ("Floor lamp", "Living room", "light", 1, {"on": False, "brightness": 50, "color_temp_k": 2700}),
    ("Kitchen light", "Kitchen", "light", 1, {"on": True, "brightness": 100, "color_temp_k": 5000}),
    ("Master bedroom light", "Master bedroom", "light", 1, {"on": False, "brightness": 60, "color_temp_k": 3000}),
    ("Bedside lamp", "Master bedroom", "light", 1, {"on": False, "brightness": 30, "color_temp_k": 2200}),
    ("Kids room light", "Kids bedroom", "light", 1, {"on": False, "brightness": 70, "color": "#FFD580"}),
    ("Desk lamp", "Study", "light", 1, {"on": False, "brightness": 90, "color_temp_k": 5500}),
    ("Hallway light", "Hallway", "light", 0, {"on": False, "brightness": 60, "color_temp_k": 3000}),
    ("Porch light", "Porch", "light", 1, {"on": False, "brightness": 100, "color_temp_k": 2700}),
    ("Bathroom light", "Bathroom", "light", 1, {"on": False, "brightness": 100, "color_temp_k": 4000}),
    (
        "Living room thermostat",
        "Living room",
        "thermostat",
        1,
        {"mode": "cool", "target_c": 25.0, "current_c": 27.0, "fan": "auto", "humidity_pct": 48, "hold_until": None},
    ),
    (
        "Bedroom AC",
        "Master bedroom",
        "thermostat",
        1,
        {"mode": "off", "target_c": 26.0, "current_c": 26.5, "fan": "auto", "humidity_pct": 52, "hold_until": None},
    ),
    ("Front door lock", "Porch", "lock", 1, {"locked": True, "battery_pct": 82}),
    ("Back door lock", "Kitchen", "lock", 1, {"locked": True, "battery_pct": 64}),
    ("Garage door lock", "Garage", "lock", 0, {"locked": True, "battery_pct": 9}),
    ("Doorbell camera", "Porch", "camera", 1, {"on": True, "recording": True}),
    ("Living room camera", "Living room", "camera", 1, {"on": True, "recording": False}),
    ("Backyard camera", "Garden", "camera", 0, {"on": True, "recording": True}),
    ("Coffee maker plug", "Kitchen", "plug", 1, {"on": False, "power_w": 0}),
    ("Air purifier", "Master bedroom", "plug", 1, {"on": True, "power_w": 35}),
    ("Desk fan plug", "Study", "plug", 1, {"on": False, "power_w": 0}),
    (
        "Robot vacuum",
        "Living room",
        "vacuum",
        1,
        {
            "status": "docked",
            "battery_pct": 92,
            "bin_full": False,
            "mode": "vacuum",
            "suction": "standard",
            "rooms": [],
        },
    ),
    ("Smart speaker", "Living room", "speaker", 1, {"on": True, "volume": 35}),
    ("Living room TV", "Living room", "tv", 1, {"on": False, "input": "hdmi1"}),
    ("Washing machine", "Bathroom", "washer", 1, {"on": False, "program": "cotton"}),
    ("Alarm panel", "Hallway", "alarm_panel", 1, {"armed_mode": "disarmed", "bypassed": []}),
    ("Front door sensor", "Porch", "sensor", 1, {"kind": "contact", "open": False}),
    ("Balcony door sensor", "Living room", "sensor", 1, {"kind": "contact", "open": False}),
    ("Kitchen window sensor", "Kitchen", "sensor", 1, {"kind": "contact", "open": False}),
    ("Hallway motion sensor", "Hallway", "sensor", 1, {"kind": "motion", "motion": False}),
]


# The climate devices in the cold half of the year (the table above is the warm half's): heating, and rooms
# cooler than in summer.
COLD_SEASON: dict[str, dict[str, Any]] = {
    "Living room thermostat": {"mode": "heat", "target_c": 21.0, "current_c": 19.0, "humidity_pct": 38},
    "Bedroom AC": {"mode": "off", "target_c": 20.0, "current_c": 18.5, "humidity_pct": 40},
}


def cold_season(persona: Persona) -> bool:
    """Whether the persona's clock falls in its city's cold half of the year (October to April in the north,
    April to October in the south)."""
    month = dt.date.fromisoformat(persona.now[:10]).month
    north = CITIES[persona.home_city].lat >= 0
    return (month >= 10 or month <= 4) if north else 4 <= month <= 10


def seasonal(name: str, state: dict[str, Any], persona: Persona) -> dict[str, Any]:
    """A device's seeded state in the persona's season."""
    return {**state, **COLD_SEASON.get(name, {})} if cold_season(persona) else state


def _scene_step(name: str, setting: dict[str, Any], persona: Persona) -> dict[str, Any]:
    """A scene's setting of a device in the persona's season: a climate device keeps its season's mode."""
    cold = COLD_SEASON.get(name) if cold_season(persona) else None
    return {**setting, "mode": cold["mode"], "target_c": cold["target_c"]} if cold and "mode" in setting else setting


def dev_id(name: str) -> str:
    """The seeded id of a device, by its name in ``DEVICES``."""
    return f"hdev_{[d[0] for d in DEVICES].index(name) + 1:03d}"


SCENES: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "Good morning": [
        ("Master bedroom light", {"on": True, "brightness": 60}),
        ("Kitchen light", {"on": True, "brightness": 100}),
        ("Coffee maker plug", {"on": True}),
        ("Living room thermostat", {"mode": "cool", "target_c": 25.0}),
    ],
    "Good night": [
        (n, {"on": False}) for n in ("Ceiling light", "Floor lamp", "Kitchen light", "Hallway light", "Living room TV")
    ]
    + [
        ("Bedside lamp", {"on": True, "brightness": 10}),
        ("Front door lock", {"locked": True}),
        ("Back door lock", {"locked": True}),
    ],
    "Movie time": [
        ("Ceiling light", {"on": False}),
        ("Floor lamp", {"on": True, "brightness": 20}),
        ("Living room TV", {"on": True}),
    ],
    "Dinner": [
        ("Ceiling light", {"on": True, "brightness": 70, "color_temp_k": 2700}),
        ("Kitchen light", {"on": True, "brightness": 100}),
        ("Smart speaker", {"on": True}),
    ],
    "Leave home": [
        (n, {"on": False})
        for n in ("Ceiling light", "Floor lamp", "Kitchen light", "Desk lamp", "Coffee maker plug", "Living room TV")
    ]
    + [("Front door lock", {"locked": True})],
}

# (name, trigger, [(device name or scene, command, value)], days, enabled)
AUTOMATIONS: list[tuple[str, dict[str, Any], list[tuple[str, str, Any]], list[str], int]] = [
    ("Porch light at sunset", {"type": "sunset"}, [("Porch light", "turn_on", None)], [], 1),
    (
        "Morning coffee",
        {"type": "time", "value": "06:50"},
        [("Coffee maker plug", "turn_on", None)],
        list(WEEKDAYS[:5]),
        1,
    ),
    (
        "Lock up at night",
        {"type": "time", "value": "23:00"},
        [("Front door lock", "lock", None), ("Back door lock", "lock", None)],
        [],
        1,
    ),
    (
        "Welcome home",
        {"type": "arrive_home"},
        [("Ceiling light", "turn_on", None), ("Living room thermostat", "set_temperature", 24)],
        [],
        1,
    ),
    ("Clean while out", {"type": "leave_home"}, [("Robot vacuum", "start_vacuum", None)], list(WEEKDAYS[:5]), 0),
    ("Night mode", {"type": "time", "value": "22:30"}, [("Good night", "activate_scene", None)], [], 1),
]

DETECTIONS = ["person", "person", "package", "vehicle", "animal", "motion"]
CARS = {
    "ev": {"model": "BYD Seal", "powertrain": "ev", "battery_pct": "64", "charging": "0", "range_km": "352"},
    "hybrid": {"model": "Toyota RAV4 Hybrid", "powertrain": "hybrid", "fuel_pct": "58", "range_km": "540"},
}


def _iso(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _home_event_rows(rng: random.Random, now: dt.datetime) -> list[dict[str, Any]]:
    """About three weeks of camera detections, doorbell rings and alarm changes, plus today's parcel."""
    events: list[tuple[str, str, str, list[str]]] = []  # (ts, device name, kind, labels)
    for back in range(21, 0, -1):
        day = now - dt.timedelta(days=back)
        for _ in range(rng.randint(3, 7)):
            cam = rng.choice(["Doorbell camera", "Doorbell camera", "Living room camera", "Backyard camera"])
            if cam == "Backyard camera" and back < 3:  # offline for the last days
                continue
            kind = rng.choice(DETECTIONS)
            at = day.replace(hour=rng.randint(6, 22), minute=rng.randint(0, 59), second=0)
            events.append((_iso(at), cam, kind, [kind] + (["courier"] if kind == "package" else [])))
        if day.weekday() < 5:
            events.append(
                (_iso(day.replace(hour=8, minute=rng.randint(10, 40), second=0)), "Alarm panel", "armed_away", [])
            )
            events.append(
                (_iso(day.replace(hour=18, minute=rng.randint(5, 55), second=0)), "Alarm panel", "disarmed", [])
            )
    today = now.replace(second=0)
    events += [
        (_iso(today - dt.timedelta(minutes=48)), "Doorbell camera", "doorbell", ["person", "courier"]),
        (_iso(today - dt.timedelta(minutes=47)), "Doorbell camera", "package", ["package", "courier"]),
    ]
    events.sort()
    out = []
    for i, (ts, name, kind, labels) in enumerate(events, start=1):
        device = dev_id(name)
        image = f"{device}_{ts[:16].replace('-', '').replace(':', '')}.jpg" if name.endswith("camera") else None
        out.append(
            {
                "event_id": f"hevent_{i:03d}",
                "device_id": device,
                "kind": kind,
                "ts": ts,
                "labels_json": json.dumps(labels),
                "image": image,
                "created_at": ts,
                "updated_at": ts,
            }
        )
    return out


@seeder
def seed_home(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """The home's devices, scenes, automations, access codes and event history; the car and its log."""
    now_dt = dt.datetime.fromisoformat(persona.now)
    now = persona.now
    conn.execute(
        insert(home_devices),
        [
            {
                "device_id": dev_id(name),
                "name": name,
                "room": room,
                "type": kind,
                "online": online,
                "state_json": json.dumps(seasonal(name, state, persona), sort_keys=True),
                "created_at": now,
                "updated_at": now,
            }
            for name, room, kind, online, state in DEVICES
        ],
    )
    conn.execute(
        insert(home_scenes),
        [
            {
                "scene_name": scene,
                "actions_json": json.dumps(
                    [{"device_id": dev_id(n), "set": _scene_step(n, s, persona)} for n, s in steps], sort_keys=True
                ),
                "created_at": now,
                "updated_at": now,
            }
            for scene, steps in SCENES.items()
        ],
    )
    conn.execute(
        insert(home_automations),
        [
            {
                "automation_id": f"automation_{i:03d}",
                "name": name,
                "trigger_json": json.dumps(trigger, sort_keys=True),
                "actions_json": json.dumps(
                    [
                        {
                            "target": t if cmd == "activate_scene" else dev_id(t),
                            "command": cmd,
                            **({"value": v} if v is not None else {}),
                        }
                        for t, cmd, v in steps
                    ],
                    sort_keys=True,
                ),
                "days_json": json.dumps(days),
                "enabled": enabled,
                "created_at": now,
                "updated_at": now,
            }
            for i, (name, trigger, steps, days, enabled) in enumerate(AUTOMATIONS, start=1)
        ],
    )
    soon, past = now_dt + dt.timedelta(days=rng.randint(20, 40)), now_dt - dt.timedelta(days=rng.randint(5, 15))
    conn.execute(
        insert(access_codes),
        [
            {
                "code_id": "code_001",
                "device_id": dev_id("Front door lock"),
                "label": "Cleaner",
                "code": f"{rng.randint(0, 999999):06d}",
                "valid_until": soon.strftime(DT_FMT),
                "created_at": now,
                "updated_at": now,
            },
            {
                "code_id": "code_002",
                "device_id": dev_id("Front door lock"),
                "label": "Dog walker",
                "code": f"{rng.randint(0, 999999):06d}",
                "valid_until": past.strftime(DT_FMT),
                "created_at": now,
                "updated_at": now,
            },
        ],
    )
    conn.execute(insert(home_events), _home_event_rows(rng, now_dt))
    # Arrive/leave-home automations need the home app's LOCATION permission: granted by default.
    conn.execute(
        sqlite_insert(app_permissions)
        .values(app_id=HOME, permission="LOCATION", state="granted")
        .on_conflict_do_nothing()
    )

    parking = (
        conn.execute(
            select(world_places.c.place_id)
            .where(world_places.c.city == persona.home_city, world_places.c.category == "parking")
            .order_by(world_places.c.place_id)
        ).scalar()
        or ""
    )
    car = CARS["ev" if persona.timezone.startswith("Asia") else "hybrid"]
    pressures = {w: round(rng.uniform(2.3, 2.5), 1) for w in ("front_left", "front_right", "rear_left", "rear_right")}
    pressures["rear_left"] = 2.0  # a slow leak worth reporting
    state = {
        **car,
        "online": "1",
        "locked": "1",
        "engine_on": "0",
        "windows_closed": "1",
        "trunk_open": "0",
        "tire_pressure_json": json.dumps(pressures, sort_keys=True),
        "cabin_temp_c": f"{rng.randint(22, 31)}",
        "location_place_id": parking,
        "odometer_km": f"{rng.randint(18000, 42000)}",
        "climate_on": "0",
        "climate_target_c": "22.0",
        "climate_until": "",
        "defrost": "0",
        "seat_heat": "off",
        "last_seen": _iso(now_dt - dt.timedelta(minutes=rng.randint(2, 20))),
    }
    conn.execute(insert(vehicle_state), [{"key": k, "value": v} for k, v in sorted(state.items())])
    log = []
    for back in range(60, 0, -1):
        day = now_dt - dt.timedelta(days=back)
        for command in rng.sample(
            ["lock", "unlock", "climate_on", "honk_flash", "start_engine", "stop_engine"], rng.randint(0, 2)
        ):
            log.append((_iso(day.replace(hour=rng.randint(7, 21), minute=rng.randint(0, 59), second=0)), command))
    log.sort()
    conn.execute(
        insert(vehicle_events),
        [
            {
                "event_id": f"vevent_{i:03d}",
                "command": c,
                "ts": ts,
                "result": "ok" if i % 17 else "timeout",
                "created_at": ts,
                "updated_at": ts,
            }
            for i, (ts, c) in enumerate(log, start=1)
        ],
    )
