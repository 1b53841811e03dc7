"""The settings domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import json
import random

from sqlalchemy import Connection, insert, select

from sandbox.domains.communication.schema import contacts
from sandbox.domains.entertainment.schema import devices
from sandbox.domains.settings.schema import A11Y_KEYS, WEEKDAYS, focus_modes, world_nearby_devices
from sandbox.personas import Persona, seeder
from sandbox.schema import device_settings

# ---- World data -------------------------------------------------------------------------------

# (name, kind, companion app or None): devices in pairing mode near the phone, besides the paired ones in range.
NEARBY = [
    ("Sony WH-1000XM5", "headphones", None),
    ("JBL Flip 6", "speaker", None),
    ("Galaxy Buds2", "headphones", None),
    ("Galaxy Buds2 Pro", "headphones", None),
    ("Bose SoundLink Mini", "speaker", None),
    ("Huawei FreeBuds 5", "headphones", "freebuds_link"),
    ("Mi Smart Band 8", "watch", "mi_fitness"),
]
FOCUS_SEED = {  # mode: (schedule, auto_reply)
    "work": ({"days": list(WEEKDAYS[:5]), "start": "09:00", "end": "18:00"}, None),
    "sleep": ({"days": list(WEEKDAYS), "start": "23:00", "end": "07:00"}, None),
    "driving": (None, "I'm driving and will reply when I arrive."),
    "personal": (None, None),
    "fitness": (None, None),
}


@seeder
def seed_settings(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """Accessibility settings, the Bluetooth devices in range, the focus modes."""
    stamp = persona.now
    present = set(conn.execute(select(device_settings.c.key)).scalars())
    extra = {**{k: "0" for k in A11Y_KEYS}, "font_scale": "1.0"}
    conn.execute(insert(device_settings), [{"key": k, "value": v} for k, v in extra.items() if k not in present])
    d = devices.c
    in_range = conn.execute(select(d.name, d.kind).where(d.connection == "bluetooth", d.online == 1)).all()
    conn.execute(
        insert(world_nearby_devices),
        sorted(
            [{"name": n, "kind": k, "companion_app": None} for n, k in in_range]
            + [
                {"name": n, "kind": k, "companion_app": app}
                for n, k, app in NEARBY
                if n not in {r.name for r in in_range}
            ],
            key=lambda r: r["name"],
        ),
    )
    favourites = list(
        conn.execute(
            select(contacts.c.contact_id).where(contacts.c.favorite == 1).order_by(contacts.c.contact_id)
        ).scalars()
    )
    conn.execute(
        insert(focus_modes),
        [
            {
                "mode": mode,
                "enabled": 0,
                "schedule_json": json.dumps(schedule) if schedule else None,
                "allowed_apps_json": json.dumps(["phone"] if mode != "work" else ["calendar", "phone"]),
                "allowed_contacts_json": json.dumps(favourites[:3]),
                "auto_reply": reply,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for mode, (schedule, reply) in FOCUS_SEED.items()
        ],
    )
