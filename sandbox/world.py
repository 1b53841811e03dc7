"""Worlds: a persona's phone, built deterministically from a seed, serialised once per process.

An episode never builds a world: it deserialises the cached image into a private in-memory
database (``sandbox.db.open_database``) and applies the task's patches. A world is its persona
(``sandbox.personas``) and the rows every domain's ``@seeder`` adds, each from its own RNG stream.
"""

from __future__ import annotations

import functools
import hashlib
import os
import random
import sqlite3
import sys
import tempfile
from pathlib import Path

import sqlalchemy
from sqlalchemy import Connection, insert, select, update

from sandbox.db import check_layout, empty_database, finish_image
from sandbox.executor import sync_id_sequences
from sandbox.personas import PERSONAS, SEEDERS, Persona
from sandbox.schema import app_permissions, apps, device_settings, meta, metadata, user_profile
from sandbox.tooling import REGISTRY

DEFAULT_SETTINGS = {
    "wifi": "1",
    "wifi_connected_ssid": "HomeNet",
    "mobile_data": "1",
    "airplane_mode": "0",
    "bluetooth": "1",
    "location_service": "1",
    "nfc": "1",
    "low_power_mode": "0",
    "battery_pct": "78",
    "charging": "0",
    "dnd": "0",
    "dnd_until": "",
    "ringer_mode": "normal",
    "volume_media": "60",
    "volume_ring": "70",
    "volume_alarm": "80",
    "brightness": "70",
    "auto_brightness": "1",
    "dark_mode": "0",
    "language": "en-US",
    "storage_free_gb": "41.5",
}


def _seed_system(conn: Connection, persona: Persona) -> None:
    conn.execute(
        insert(meta),
        [
            {"key": "now", "value": persona.now},
            {"key": "persona", "value": persona.persona_id},
            {"key": "seed", "value": str(persona.seed)},
            {"key": "schema_version", "value": "1"},
        ],
    )
    conn.execute(
        insert(user_profile).values(
            user_id="user_001",
            name=persona.name,
            phone=persona.phone,
            email=persona.email,
            locale=persona.locale,
            timezone=persona.timezone,
            home_city=persona.home_city,
            work_city=persona.work_city,
        )
    )
    conn.execute(insert(device_settings), [{"key": k, "value": v} for k, v in sorted(DEFAULT_SETTINGS.items())])
    # Apps and the permissions they ask for come from the tool declarations: declared once.
    needed: dict[str, set[str]] = {}
    for spec in REGISTRY.values():
        needed.setdefault(spec.app, set()).update(spec.permissions)
    conn.execute(
        insert(apps),
        [
            {
                "app_id": app,
                "name": app.replace("_", " ").title(),
                "installed": 1,
                "logged_in": 1,
                "notifications_enabled": 1,
            }
            for app in sorted(needed)
        ],
    )
    grants = [
        {"app_id": app, "permission": p, "state": "granted"} for app in sorted(needed) for p in sorted(needed[app])
    ]
    if grants:
        conn.execute(insert(app_permissions), grants)


# Apps whose permissions every persona has granted: the everyday core a phone is set up with.
CORE_APPS = frozenset(
    {"assistant", "calendar", "chat", "clock", "contacts", "mail", "messages", "notes", "phone", "settings", "tasks"}
)


def _mix_permissions(conn: Connection, rng: random.Random, count: int) -> None:
    """Leave a few non-core permissions never requested or refused, as on a real phone."""
    rows = conn.execute(
        select(app_permissions.c.app_id, app_permissions.c.permission)
        .where(app_permissions.c.state == "granted", app_permissions.c.app_id.not_in(CORE_APPS))
        .order_by(app_permissions.c.app_id, app_permissions.c.permission)
    ).all()
    for app_id, permission in rng.sample(rows, min(len(rows), count)):
        conn.execute(
            update(app_permissions)
            .where(app_permissions.c.app_id == app_id, app_permissions.c.permission == permission)
            .values(state=rng.choice(["not_requested", "not_requested", "denied"]))
        )


def declare_phone() -> None:
    """Import every domain, which registers the tools, tables and seeders a world is made of: on the first
    use of a world, as importing them is not free and parsing a command's arguments never needs them."""
    import sandbox.domains  # noqa: F401


def build_world(persona_id: str) -> bytes:
    """Build a persona's world from scratch and return its database image."""
    declare_phone()
    persona = PERSONAS[persona_id]
    conn = empty_database()
    try:
        with conn.begin():
            _seed_system(conn, persona)
            for name, fn in SEEDERS:
                fn(conn, random.Random(f"{persona.seed}:{name}"), persona)
            _mix_permissions(conn, random.Random(f"{persona.seed}:permissions"), persona.unset_permissions)
            sync_id_sequences(conn, metadata.sorted_tables)
        image = finish_image(conn)
        check_layout(conn)
        return image
    finally:
        conn.close()


CACHE_ENV = "MOBILEPA_WORLD_CACHE"  # a folder for built images; "off" builds in every process
SQLITE_HEADER = b"SQLite format 3\x00"


@functools.cache
def world_image(persona_id: str) -> bytes:
    """The world's image, built once per process, or read from the disk cache of images built by the
    same code (a sweep's workers then skip the ~1 s build per world)."""
    declare_phone()  # an image read from the cache needs the tools and tables it was built with
    if persona_id not in PERSONAS:
        raise KeyError(f"unknown world {persona_id!r}; known: {', '.join(sorted(PERSONAS))}")
    folder = cache_dir()
    if folder is None:
        return build_world(persona_id)
    path = folder / f"{code_key()}-{persona_id}.db"
    try:
        image = path.read_bytes()
        if image.startswith(SQLITE_HEADER):
            return image
    except OSError:
        pass
    image = build_world(persona_id)
    try:  # write whole or not at all: several workers may build the same world at once
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, delete=False, suffix=".tmp") as tmp:
            tmp.write(image)
        os.replace(tmp.name, path)
    except OSError:
        pass  # a read-only or full disk only costs the build next time
    return image


def cache_dir() -> Path | None:
    setting = os.environ.get(CACHE_ENV)
    if setting == "off":
        return None
    if setting:
        return Path(setting)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mobilepa" / "worlds"


@functools.cache
def code_key() -> str:
    """What a world image depends on: the sandbox's Python sources and the library versions."""
    digest = hashlib.sha256(f"{sys.version_info[:2]} {sqlite3.sqlite_version} {sqlalchemy.__version__}".encode())
    root = Path(__file__).resolve().parent
    for source in sorted(root.rglob("*.py")):
        digest.update(str(source.relative_to(root)).encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:20]
