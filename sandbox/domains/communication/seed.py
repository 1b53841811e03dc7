"""The communication domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import datetime as dt
import json
import random
from typing import Any

from sqlalchemy import Connection, insert

from sandbox.domains.communication.schema import call_log, contacts, groups, messages
from sandbox.locales import mobile_phone
from sandbox.personas import Persona, seeder

# ---- World data -------------------------------------------------------------------------------

FIRST = [
    "Lily",
    "James",
    "Chen",
    "Sofia",
    "Omar",
    "Aisha",
    "Lucas",
    "Mei",
    "Daniel",
    "Priya",
    "Noah",
    "Yuki",
    "Elena",
    "Marcus",
    "Hana",
    "Ivan",
    "Grace",
    "Tom",
    "Ana",
    "Ravi",
    "Zoe",
    "Leo",
    "Nina",
    "Sam",
    "Olga",
    "Ben",
    "Fatima",
    "Kenji",
    "Clara",
    "Diego",
]
LAST = [
    "Chen",
    "Smith",
    "Garcia",
    "Kim",
    "Nguyen",
    "Brown",
    "Rossi",
    "Haddad",
    "Tanaka",
    "Novak",
    "Silva",
    "Okafor",
    "Müller",
    "Singh",
    "Lopez",
    "Wright",
    "Zhang",
    "Ivanova",
    "Cohen",
    "Park",
]
RELATIONS = ["friend", "colleague", "classmate", "neighbor", "client", None, None]
COMPANIES = ["Acme Corp", "Globex", "Initech", "Umbrella Labs", "Stark Industries", None]

# Fixed people every persona knows; hand-written tasks refer to them by name.
ANCHORS = [
    ("Lily Chen", "spouse"),
    ("Zhang Min", "mother"),
    ("Wang Jun", "father"),
    ("Alex Turner", "boss"),
    ("Alex Morgan", "colleague"),
    ("Dr. Sarah Lin", "dentist"),
    ("Tom Baker", "friend"),
]

SMS_TEMPLATES = [
    "Are we still on for {day}?",
    "Running 10 minutes late, sorry!",
    "Can you send me the address?",
    "Happy birthday! 🎂",
    "Thanks for dinner last night",
    "Call me when you're free",
    "Did you get the documents?",
    "See you at the meeting",
    "Your parcel has been delivered",
    "Don't forget the rent is due on the 15th",
]


def _email_of(name: str, i: int) -> str:
    """``lily.1@example.com`` for contact_001 Lily Chen (a doctor's surname stands in for the first name)."""
    first = name.split()[-1 if name.startswith("Dr.") else 0].lower().strip(".")
    return f"{first}.{i}@example.com"


@seeder
def seed_communication(conn: Connection, rng: random.Random, persona: Persona) -> None:
    country = persona.phone.split()[0]  # contacts live in the user's country
    people: list[dict[str, Any]] = []
    used_names: set[str] = set()
    for name, rel in ANCHORS:
        people.append({"name": name, "relationship": rel})
        used_names.add(name)
    while len(people) < persona.contacts:
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        if name in used_names:
            continue
        used_names.add(name)
        people.append({"name": name, "relationship": rng.choice(RELATIONS)})
    now = persona.now
    contact_rows = []
    for i, p in enumerate(people, start=1):
        contact_rows.append(
            {
                "contact_id": f"contact_{i:03d}",
                "name": p["name"],
                "phone_number": mobile_phone(rng, country),
                "email": _email_of(p["name"], i) if rng.random() < 0.7 else None,
                "relationship": p["relationship"],
                "birthday": f"{rng.randint(1950, 2005)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
                if rng.random() < 0.5
                else None,
                "company": rng.choice(COMPANIES),
                "notes": None,
                "favorite": int(i <= 3),
                "created_at": now,
                "updated_at": now,
            }
        )
    # A mother's birthday, where the contact has one, is the memory's (sandbox/memory.py: "April 18"), in a
    # year that makes her the user's mother.
    mom = contact_rows[1]
    if mom["birthday"]:
        mom["birthday"] = f"{min(int(mom['birthday'][:4]), 1962)}-04-18"
    # Family and work anchors are reachable by email; Tom Baker never is (a contact without an address).
    for i, row in enumerate(contact_rows[:6], start=1):
        row["email"] = row["email"] or _email_of(row["name"], i)
    contact_rows[6]["email"] = None
    # The last contact is a stale second entry for Tom Baker (contact_007), for merge_contacts.
    contact_rows[-1].update(name="Tom B.", relationship="friend", email=None, company=None, notes="badminton")
    conn.execute(insert(contacts), contact_rows)
    year, month = int(now[:4]), int(now[5:7])
    msg_rows, call_rows = [], []
    for i in range(1, 4 * persona.contacts + 1):
        c = contact_rows[min(int(rng.expovariate(1 / 12)), len(contact_rows) - 1)]
        back = rng.randint(0, 120)
        m = (month - 1 - back // 30) % 12 + 1
        y = year - (1 if month - 1 - back // 30 < 0 else 0)
        day = min(28, back % 28 + 1)
        stamp = f"{y}-{m:02d}-{day:02d}T{rng.randint(7, 22):02d}:{rng.randint(0, 59):02d}:00"
        if stamp >= now:
            stamp = f"{year}-{month:02d}-01T08:00:00"
        incoming = rng.random() < 0.6
        msg_rows.append(
            {
                "message_id": f"message_{i:03d}",
                "channel": rng.choice(["sms", "chat"]),
                "direction": "in" if incoming else "out",
                "counterpart": c["phone_number"],
                "contact_id": c["contact_id"],
                "body": rng.choice(SMS_TEMPLATES).format(day=rng.choice(["Friday", "Saturday", "tomorrow"])),
                "is_read": 0 if incoming and back < 3 else 1,
                "status": "received" if incoming else "sent",
                "sent_at": stamp,
                "created_at": stamp,
                "updated_at": stamp,
            }
        )
        if i % 4 == 0:
            call_rows.append(
                {
                    "call_id": f"call_{i // 4:03d}",
                    "number": c["phone_number"],
                    "contact_id": c["contact_id"],
                    "type": rng.choice(["incoming", "outgoing", "missed"]),
                    "app": "phone",
                    "video": int(rng.random() < 0.1),
                    "started_at": stamp,
                    "duration_sec": rng.randint(0, 1800),
                    "created_at": stamp,
                    "updated_at": stamp,
                }
            )
    conn.execute(insert(messages), msg_rows)
    for k in range(8):  # chat-app calls with the family
        call_day = dt.date.fromisoformat(now[:10]) - dt.timedelta(days=2 + 9 * k)
        stamp = f"{call_day}T21:{15 + k:02d}:00"
        target = contact_rows[k % 3] if k % 4 else None
        call_rows.append(
            {
                "call_id": f"call_{len(call_rows) + 1:03d}",
                "number": target["phone_number"] if target else "group_001",
                "contact_id": target["contact_id"] if target else None,
                "type": rng.choice(["incoming", "outgoing"]),
                "app": "chat",
                "video": int(k % 3 != 2),
                "started_at": stamp,
                "duration_sec": rng.randint(60, 2400),
                "created_at": stamp,
                "updated_at": stamp,
            }
        )
    conn.execute(insert(call_log), call_rows)

    def circle(relationship: str, k: int, *fixed: str) -> list[str]:
        pool = [
            c["contact_id"] for c in contact_rows if c["relationship"] == relationship and c["contact_id"] not in fixed
        ]
        return sorted({*fixed, *rng.sample(pool, min(k, len(pool)))})

    conn.execute(
        insert(groups),
        [
            {
                "group_id": f"group_{i:03d}",
                "name": name,
                "members_json": json.dumps(members),
                "is_admin": admin,
                "created_at": now,
                "updated_at": now,
            }
            for i, (name, members, admin) in enumerate(
                (
                    ("Family", ["contact_001", "contact_002", "contact_003"], 1),
                    ("Project Phoenix", circle("colleague", 4, "contact_004", "contact_005"), 0),
                    ("Badminton Sundays", circle("friend", 4, "contact_007"), 1),
                    ("Class reunion", circle("classmate", 6), 0),
                ),
                start=1,
            )
        ],
    )
