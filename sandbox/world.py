"""Worlds: a persona's phone, built deterministically from a seed, serialised once per process.

An episode never builds a world: it deserialises the cached image into a private in-memory
database (``sandbox.db.open_database``) and applies the task's patches. Domain modules add their
own rows through ``@seeder`` functions; each seeder draws from its own RNG stream, so adding a
domain never perturbs the rows of another.
"""

from __future__ import annotations

import functools
import hashlib
import os
import random
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy
from sqlalchemy import Connection, insert, select, update

from sandbox.db import check_layout, empty_database, finish_image
from sandbox.executor import sync_id_sequences
from sandbox.locales import country_of
from sandbox.schema import app_permissions, apps, device_settings, meta, metadata, user_profile
from sandbox.tooling import REGISTRY


@dataclass(frozen=True)
class Address:
    """Where the owner lives or works: the street line, its district, and the point it stands on (home
    and work are apart, so "near work" and "near home" are different searches)."""

    line: str
    district: str
    postal_code: str
    lat: float
    lon: float


@dataclass(frozen=True)
class Persona:
    """The owner of a phone. Only name, phone, email, locale, timezone, the home and work cities and now
    reach the prompt; the addresses are found through the tools."""

    persona_id: str
    seed: int
    name: str
    phone: str
    email: str
    locale: str
    timezone: str
    home_city: str
    work_city: str
    now: str  # the frozen clock, YYYY-MM-DDTHH:MM:SS
    home: Address
    work: Address
    contacts: int = 100
    memories: int = 40  # memory records, distractors and superseded ones included (the paper: 30-80)
    unset_permissions: int = 4  # non-core app permissions never requested or refused

    @property
    def currency(self) -> str:
        """The currency the owner is paid and charged in: their home country's."""
        return country_of(self.home_city).currency


PERSONAS: dict[str, Persona] = {
    p.persona_id: p
    for p in (
        Persona(
            "wang_lei",
            1101,
            "Wang Lei",
            "+86 138 0000 1111",
            "wang.lei@example.com",
            "en-US",
            "Asia/Shanghai",
            "Beijing",
            "Beijing",
            "2025-06-13T09:00:00",
            home=Address("18 Garden Road", "Chaoyang", "100020", 39.9219, 116.4436),
            work=Address("88 Market Street, 12F", "Haidian", "100080", 39.9593, 116.3122),
            unset_permissions=0,
        ),
        Persona(
            "maya_patel",
            2202,
            "Maya Patel",
            "+1 415 555 0101",
            "maya.patel@example.com",
            "en-US",
            "America/Los_Angeles",
            "San Francisco",
            "Palo Alto",
            "2025-03-04T08:30:00",
            home=Address("18 Garden Road", "Mission District", "94110", 37.7599, -122.4148),
            work=Address("88 Market Street, 12F", "University Avenue", "94301", 37.4455, -122.1611),
        ),
        Persona(
            "oliver_hughes",
            3303,
            "Oliver Hughes",
            "+44 20 7946 0102",
            "oliver.hughes@example.co.uk",
            "en-GB",
            "Europe/London",
            "London",
            "London",
            "2025-10-21T07:45:00",
            home=Address("18 Garden Road", "Islington", "N1 2UQ", 51.5416, -0.1022),
            work=Address("88 Market Street, 12F", "Canary Wharf", "E14 5AB", 51.5054, -0.0235),
            contacts=120,
            memories=64,
            unset_permissions=6,
        ),
        Persona(
            "yuki_sato",
            4404,
            "Yuki Sato",
            "+81 3 5555 0103",
            "yuki.sato@example.jp",
            "ja-JP",
            "Asia/Tokyo",
            "Tokyo",
            "Tokyo",
            "2025-01-15T18:20:00",
            home=Address("18 Garden Road", "Setagaya", "154-0004", 35.6464, 139.6533),
            work=Address("88 Market Street, 12F", "Marunouchi", "100-0005", 35.6812, 139.7671),
            contacts=90,
            memories=33,
            unset_permissions=3,
        ),
        Persona(
            "lena_weber",
            5505,
            "Lena Weber",
            "+49 30 5555 0104",
            "lena.weber@example.de",
            "de-DE",
            "Europe/Berlin",
            "Berlin",
            "Berlin",
            "2025-08-02T10:10:00",
            home=Address("18 Garden Road", "Prenzlauer Berg", "10405", 52.5388, 13.4244),
            work=Address("88 Market Street, 12F", "Charlottenburg", "10585", 52.5058, 13.3040),
            contacts=80,
            memories=52,
        ),
        Persona(
            "carlos_ruiz",
            6606,
            "Carlos Ruiz",
            "+34 91 555 0105",
            "carlos.ruiz@example.es",
            "es-ES",
            "Europe/Madrid",
            "Madrid",
            "Madrid",
            "2025-05-28T21:05:00",
            home=Address("18 Garden Road", "Chamberí", "28010", 40.4344, -3.7038),
            work=Address("88 Market Street, 12F", "Salamanca", "28001", 40.4284, -3.6768),
            contacts=110,
            memories=78,
        ),
        Persona(
            "ji_woo_park",
            7707,
            "Ji-woo Park",
            "+82 2 5555 0106",
            "jiwoo.park@example.kr",
            "ko-KR",
            "Asia/Seoul",
            "Seoul",
            "Seoul",
            "2025-12-05T06:50:00",
            home=Address("18 Garden Road", "Mapo-gu", "04001", 37.5563, 126.9100),
            work=Address("88 Market Street, 12F", "Gangnam-gu", "06236", 37.4981, 127.0276),
            contacts=95,
            memories=45,
            unset_permissions=5,
        ),
        Persona(
            "amara_okafor",
            8808,
            "Amara Okafor",
            "+1 416 555 0107",
            "amara.okafor@example.ca",
            "en-CA",
            "America/Toronto",
            "Toronto",
            "Toronto",
            "2025-02-11T12:00:00",
            home=Address("18 Garden Road", "Leslieville", "M4M 1A1", 43.6626, -79.3304),
            work=Address("88 Market Street, 12F", "Financial District", "M5H 2N2", 43.6481, -79.3815),
            contacts=130,
            memories=71,
        ),
    )
}

Seeder = Callable[[Connection, random.Random, Persona], None]
SEEDERS: list[tuple[str, Seeder]] = []


def seeder(fn: Seeder) -> Seeder:
    """Register a function that fills its domain's tables for a persona."""
    SEEDERS.append((f"{fn.__module__}.{fn.__name__}", fn))
    return fn


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


def build_world(persona_id: str) -> bytes:
    """Build a persona's world from scratch and return its database image."""
    import sandbox.domains  # noqa: F401  (registers every tool and seeder)

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
