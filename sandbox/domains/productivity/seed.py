"""The productivity domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import datetime as dt
import json
import random
from typing import Any

from sqlalchemy import Connection, insert

from sandbox.domains.productivity.schema import (
    DT_FMT,
    REMINDERS_LIST,
    WEEKDAYS,
    alarms,
    calendar_events,
    event_attendees,
    notes,
    tasks,
    world_busy_slots,
)
from sandbox.personas import Persona, seeder

# ---- World data -------------------------------------------------------------------------------

BOSS, COLLEAGUE, FRIEND = "contact_004", "contact_005", "contact_007"  # Alex Turner, Alex Morgan, Tom Baker
MOM = "contact_002"  # Zhang Min

# Invitations still waiting for the user's answer: (title, calendar, days ahead, time, minutes, location, host,
# answer so far). Each lands on the first day from its offset where it overlaps nothing (work ones on weekdays).
INVITATIONS = [
    ("Architecture review", "work", 5, "15:00", 60, "Conference room B", BOSS, "needs_action"),
    ("Company all-hands", "work", 6, "16:00", 60, "Auditorium", COLLEAGUE, "needs_action"),
    ("Tom's birthday party", "personal", 8, "19:00", 180, "Tom's place", FRIEND, "tentative"),
]

# (title, calendar, earliest hour, latest hour, minutes, location, attendee)
MISC_EVENTS = [
    ("Lunch with Tom Baker", "personal", 12, 12, 60, "Noodle House", FRIEND),
    ("Design sync with Alex Morgan", "work", 10, 16, 45, "Meeting room 2", COLLEAGUE),
    ("Quarterly planning", "work", 14, 15, 90, "Conference room A", BOSS),
    ("Haircut", "personal", 10, 17, 30, "Studio 8 Salon", None),
    ("Yoga class", "personal", 19, 19, 60, "Lotus Yoga", None),
    ("Car service", "personal", 9, 10, 60, "City Auto Service", None),
    ("Client call", "work", 10, 16, 30, None, None),
    ("Team lunch", "work", 12, 12, 60, "Cafeteria", COLLEAGUE),
    ("Movie night", "family", 20, 20, 120, "Home", None),
    ("Parent-teacher meeting", "family", 16, 17, 45, "Sunrise Primary School", None),
]

SEED_TASKS = [  # (title, list, due offset in days or None, priority); overdue ones are mostly done
    ("Prepare slides for project review", "Work", 1, "high"),
    ("Submit expense report", "Work", 3, "medium"),
    ("Review Alex's design doc", "Work", 2, "medium"),
    ("Update project timeline", "Work", 6, "low"),
    ("Book meeting room for offsite", "Work", -4, "medium"),
    ("Pay electricity bill", "Inbox", 0, "high"),
    ("Renew passport", "Inbox", 20, "medium"),
    ("Call the plumber", "Inbox", None, "medium"),
    ("Buy birthday gift for Mom", "Inbox", 9, "high"),
    ("Schedule car service", "Inbox", -6, "low"),
    *((item, "Groceries", None, "medium") for item in ("Milk", "Eggs", "Bread", "Coffee beans", "Apples")),
]

SEED_NOTES = [  # (title, folder, content)
    ("Project kickoff", "Work", "Goals: ship v2 by Q3. Owners: Alex Turner (scope), Alex Morgan (design)."),
    ("Standup notes", "Work", "Blocked on API review. Follow up with Alex Morgan about the mockups."),
    ("Quarterly goals", "Work", "1. Launch the new dashboard\n2. Cut page load time by 30%\n3. Mentor a new hire"),
    ("Wi-Fi password for guests", "Notes", "Network: HomeNet-Guest, password: sunflower2024"),
    ("Books to read", "Notes", "Project Hail Mary; The Three-Body Problem; Atomic Habits"),
    ("Car maintenance log", "Notes", "Oil change at 45,000 km. Next tyre rotation at 50,000 km."),
    ("Gift ideas for Lily", "Personal", "Silk scarf, pottery class voucher, the new Murakami novel"),
    ("Ideas for the weekend", "Personal", "Hike in the hills near {home_city}; try the new dumpling place"),
    ("Tomato and egg stir-fry", "Recipes", "4 eggs, 3 tomatoes, spring onion, 1 tsp sugar, salt. Scramble, then fold."),
    ("Packing list", "Travel", "Passport, chargers, adapter, toiletries, 3 shirts, running shoes"),
]


def _stamp(day: dt.date, hm: str, minutes: int) -> tuple[str, str]:
    start = dt.datetime.combine(day, dt.time.fromisoformat(hm))
    return start.strftime(DT_FMT), (start + dt.timedelta(minutes=minutes)).strftime(DT_FMT)


@seeder
def seed_productivity(conn: Connection, rng: random.Random, persona: Persona) -> None:
    now = dt.datetime.fromisoformat(persona.now)
    today, stamp = now.date(), persona.now
    events: list[dict[str, Any]] = []
    guests: list[tuple[dict[str, Any], str, str]] = []  # (event, contact id, response)

    def add(
        title: str,
        day: dt.date,
        hm: str,
        minutes: int,
        calendar: str,
        location: str | None = None,
        host: str | None = BOSS,
        reminder: int | None = 10,
    ) -> dict[str, Any]:
        """An event the user organises (``host`` None) or was invited to by ``host`` (and accepted)."""
        start, end = _stamp(day, hm, minutes)
        ev = {
            "title": title,
            "start": start,
            "end": end,
            "location": location,
            "description": None,
            "calendar": calendar,
            "reminder_min": reminder,
            "status": "confirmed",
            "is_organizer": int(host is None),
            "organizer": host,
            "my_response": None if host is None else "accepted",
        }
        events.append(ev)
        return ev

    for offset in range(-35, 36):
        day = today + dt.timedelta(days=offset)
        if day.weekday() < 5:
            standup = add("Team standup", day, "09:30", 15, "work", "Meeting room 3", reminder=5)
            guests += [(standup, BOSS, "accepted"), (standup, COLLEAGUE, "accepted")]
        if day.weekday() == 1:
            guests.append((add("1:1 with Alex Turner", day, "11:00", 30, "work", "Alex's office"), BOSS, "accepted"))
        if day.weekday() == 6 and offset % 14 < 7:
            add("Family dinner", day, "18:30", 90, "family", "Mom's place", MOM, reminder=60)
    review = add(
        "Project review", today + dt.timedelta(days=1), "14:00", 60, "work", "Conference room A", host=None, reminder=15
    )
    review["description"] = "Quarterly project review: status, risks, next milestones."
    guests += [(review, BOSS, "accepted"), (review, COLLEAGUE, "needs_action")]
    add("Dentist check-up", dt.date(2025, 1, 20), "10:00", 45, "personal", "Bright Smile Dental Clinic", None, 60)
    dentist_day = today + dt.timedelta(days=rng.randint(5, 20))
    while dentist_day.weekday() >= 5:
        dentist_day += dt.timedelta(days=1)
    add("Dentist appointment", dentist_day, "15:00", 30, "personal", "Bright Smile Dental Clinic", None, 60)
    misc = 0
    while misc < 24:
        title, calendar, lo, hi, minutes, location, guest = rng.choice(MISC_EVENTS)
        day = today + dt.timedelta(days=rng.randint(-35, 35))
        start, end = _stamp(day, f"{rng.randint(lo, hi):02d}:{rng.choice(['00', '30'])}", minutes)
        if any(ev["start"] < end and ev["end"] > start for ev in events):
            continue
        misc += 1
        ev = add(title, day, start[11:], minutes, calendar, location, host=BOSS if guest == BOSS else None)
        ev["status"] = "cancelled" if misc % 8 == 0 else "confirmed"
        if guest:
            guests.append((ev, guest, rng.choice(["accepted", "accepted", "needs_action", "declined"])))
    for title, calendar, offset, hm, minutes, location, host, answer in INVITATIONS:
        day = today + dt.timedelta(days=offset)
        while (calendar == "work" and day.weekday() >= 5) or any(
            ev["start"] < _stamp(day, hm, minutes)[1] and ev["end"] > _stamp(day, hm, minutes)[0] for ev in events
        ):
            day += dt.timedelta(days=1)
        ev = add(title, day, hm, minutes, calendar, location, host)
        ev.update(my_response=answer, status="tentative" if answer == "tentative" else "confirmed")
        guests.append((ev, host, "accepted"))
    events.sort(key=lambda ev: (ev["start"], ev["title"]))
    for i, ev in enumerate(events, start=1):
        ev.update(event_id=f"event_{i:03d}", created_at=stamp, updated_at=stamp)
    conn.execute(insert(calendar_events), events)
    conn.execute(
        insert(event_attendees),
        sorted(
            (
                {
                    "event_id": ev["event_id"],
                    "contact_id": cid,
                    "response": resp,
                    "created_at": stamp,
                    "updated_at": stamp,
                }
                for ev, cid, resp in guests
            ),
            key=lambda r: (r["event_id"], r["contact_id"]),
        ),
    )

    busy = [
        (cid, ev["start"], ev["end"])
        for ev, cid, resp in guests
        if cid in (BOSS, COLLEAGUE) and ev["status"] == "confirmed" and resp != "declined"
    ]
    for person in (BOSS, COLLEAGUE):
        for offset in range(22):
            day = today + dt.timedelta(days=offset)
            if day.weekday() < 5:
                for _ in range(rng.randint(2, 4)):
                    start, end = _stamp(
                        day, f"{rng.randint(9, 17):02d}:{rng.choice(['00', '30'])}", rng.choice([30, 60, 90])
                    )
                    busy.append((person, start, end))
    conn.execute(
        insert(world_busy_slots),
        [
            {"slot_id": i, "person_key": p, "start": s, "end": e}
            for i, (p, s, e) in enumerate(sorted(set(busy)), start=1)
        ],
    )

    task_rows = []
    for i, (title, list_name, due_in, priority) in enumerate(SEED_TASKS, start=1):
        due = None if due_in is None else (today + dt.timedelta(days=due_in)).isoformat()
        done = due_in is not None and due_in < 0 and rng.random() < 0.8
        task_rows.append(
            {
                "task_id": f"task_{i:03d}",
                "title": title,
                "list_name": list_name,
                "due": due,
                "priority": priority,
                "status": "completed" if done else "open",
                "notes": None,
                "remind_at": None,
                "completed_at": f"{due}T18:00:00" if done else None,
                "created_at": stamp,
                "updated_at": stamp,
            }
        )
    remind_at = f"{today + dt.timedelta(days=1)}T{rng.choice(['19:00', '20:00', '20:30'])}"
    task_rows.append(
        {
            "task_id": f"task_{len(task_rows) + 1:03d}",
            "title": "Take out the recycling",
            "list_name": REMINDERS_LIST,
            "due": None,
            "priority": "medium",
            "status": "open",
            "notes": None,
            "remind_at": remind_at,
            "completed_at": None,
            "created_at": stamp,
            "updated_at": stamp,
        }
    )
    conn.execute(insert(tasks), task_rows)

    conn.execute(
        insert(alarms),
        [
            {
                "alarm_id": aid,
                "time": time,
                "label": label,
                "days_json": json.dumps(days),
                "enabled": on,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for aid, time, label, days, on in (
                ("alarm_001", "06:45", "Wake up", list(WEEKDAYS[:5]), 1),
                ("alarm_002", "08:00", "Weekend", list(WEEKDAYS[5:]), 0),
                ("alarm_003", "14:00", "Pick up parcel", [], 0),
            )
        ],
    )

    note_rows = []
    for i, (title, folder, content) in enumerate(SEED_NOTES, start=1):
        edited = (now - dt.timedelta(days=rng.randint(1, 90), minutes=rng.randint(0, 600))).isoformat()
        note_rows.append(
            {
                "note_id": f"note_{i:03d}",
                "title": title,
                "folder": folder,
                "content": content.format(home_city=persona.home_city),
                "created_at": edited,
                "updated_at": edited,
            }
        )
    conn.execute(insert(notes), note_rows)
