"""The health domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import datetime as dt
import json
import random
from typing import Any

from sqlalchemy import Connection, insert, select

from sandbox.domains.common import CITY_CENTRES, STREETS, payment_methods, world_places
from sandbox.domains.food.seed import city_counts, next_number
from sandbox.domains.health.schema import (
    DT_FMT,
    activity_daily,
    body_metrics,
    food_logs,
    health_goals,
    medical_appointments,
    medication_logs,
    medications,
    sleep_sessions,
    water_logs,
    workouts,
    world_doctor_slots,
    world_doctors,
)
from sandbox.domains.health.tools import _at, _estimate, _shift
from sandbox.domains.productivity.schema import calendar_events
from sandbox.executor import rows
from sandbox.locales import business_phone, round_amount
from sandbox.personas import Persona, seeder

# ---- World data -------------------------------------------------------------------------------

SPECIALTIES = (
    "General practice",
    "Dentistry",
    "Dermatology",
    "Cardiology",
    "Pediatrics",
    "Orthopedics",
    "Ophthalmology",
    "ENT",
    "Gynecology",
    "Psychiatry",
    "Physiotherapy",
)
CHINESE_DOCTORS = (
    "Li Na",
    "Zhou Wei",
    "Chen Jing",
    "Liu Yang",
    "Huang Min",
    "Zhao Lei",
    "Wu Fang",
    "Xu Hui",
    "Sun Li",
    "Ma Qiang",
    "Guo Ping",
    "He Yun",
    "Lin Tao",
    "Gao Yan",
)
OTHER_DOCTORS = (
    "Emily Carter",
    "James Wilson",
    "Aisha Rahman",
    "Marco Rossi",
    "Hannah Becker",
    "Kenji Sato",
    "Min-jun Park",
    "Olivia Brown",
    "Raj Patel",
    "Sofia Martinez",
    "Lucas Schmidt",
    "Chloe Nguyen",
    "Daniel Kim",
    "Grace Lee",
    "Noah Thompson",
    "Isabel Garcia",
    "Ethan Clarke",
    "Maria Lopez",
    "Omar Haddad",
    "Ruth Cohen",
    "Priya Sharma",
    "Thomas Muller",
    "Yuki Tanaka",
    "Ana Silva",
    "Samuel Okafor",
    "Laura Rossi",
    "David Cohen",
    "Mei Wong",
    "Peter Novak",
    "Elena Petrova",
)
COUNTRY = {"Beijing": "CN", "Shanghai": "CN", "San Francisco": "US", "Palo Alto": "US"}
INSURERS = {
    "CN": ("Public medical insurance", "Ping An Health", "China Life", "AIA"),
    "US": ("Aetna", "Blue Shield", "Kaiser Permanente", "UnitedHealthcare"),
    "": ("Bupa", "Allianz Care", "AXA", "Cigna"),
}
LANGUAGE = {
    "Beijing": "Mandarin",
    "Shanghai": "Mandarin",
    "Tokyo": "Japanese",
    "Seoul": "Korean",
    "Madrid": "Spanish",
    "Berlin": "German",
    "Mumbai": "Hindi",
}
CLINIC_NAMES = ("Family Health Clinic", "City Medical Center", "Riverside Clinic", "Wellness Medical Group")
DENTIST = ("Sarah Lin", "Bright Smile Dental Clinic")  # the user's dentist (contacts, memory, calendar)
FEES = {"CNY": (50.0, 100.0, 200.0, 300.0), "USD": (60.0, 90.0, 150.0, 220.0)}
MEALS = {  # meal -> menus of (food, quantity, kcal)
    "breakfast": (
        (("Soy milk", "1 cup", 110), ("Steamed bun", "2", 280)),
        (("Oatmeal", "1 bowl", 250), ("Banana", "1", 105)),
        (("Fried egg", "2", 180), ("Toast", "2 slices", 160), ("Coffee", "1 cup", 5)),
        (("Congee", "1 bowl", 200), ("Pickled vegetables", "1 dish", 20)),
    ),
    "lunch": (
        (("Beef noodle soup", "1 bowl", 560),),
        (("Chicken rice bowl", "1", 650),),
        (("Caesar salad", "1", 420), ("Sparkling water", "1 can", 0)),
        (("Dumplings", "12", 540),),
        (("Bibimbap", "1 bowl", 620),),
    ),
    "dinner": (
        (("Steamed fish", "1 portion", 260), ("Rice", "1 bowl", 200), ("Stir-fried greens", "1 plate", 120)),
        (("Spaghetti bolognese", "1 plate", 700),),
        (("Hot pot", "1 meal", 900),),
        (("Tomato and egg stir-fry", "1 plate", 220), ("Rice", "1 bowl", 200)),
        (("Grilled salmon", "1 fillet", 420), ("Salad", "1 bowl", 150)),
    ),
}
MEAL_TIMES = {"breakfast": "07:40", "lunch": "12:30", "dinner": "19:00"}
GYM_SWITCH = dt.date(2025, 5, 2)  # memory: gym moved from Mon/Wed to Tue/Thu evenings


def _hm(day: dt.date, hour: int, minute: int) -> str:
    return (dt.datetime.combine(day, dt.time()) + dt.timedelta(hours=hour, minutes=minute)).strftime(DT_FMT)


def _imperial(currency: str) -> bool:
    return currency == "USD"


@seeder
def seed_health(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """Three months of workouts, activity, sleep and body metrics; diary, water, medications; doctors and visits."""
    now = dt.datetime.fromisoformat(persona.now)
    currency = str(conn.execute(select(payment_methods.c.currency).where(payment_methods.c.is_default == 1)).scalar())
    illness = now.date() - dt.timedelta(days=75)  # a week of sore throat: antibiotics, no workouts
    _seed_fitness(conn, rng, persona, illness)
    _seed_diary(conn, rng, persona, illness)
    _seed_body_metrics(conn, rng, persona, illness, currency)
    _seed_doctors(conn, rng, persona, illness, currency)


def _seed_fitness(conn: Connection, rng: random.Random, persona: Persona, illness: dt.date) -> None:
    now = dt.datetime.fromisoformat(persona.now)
    today, stamp = now.date(), persona.now
    sick = {illness + dt.timedelta(days=d) for d in range(7)}
    done: list[dict[str, Any]] = []
    for back in range(90, 0, -1):
        day = today - dt.timedelta(days=back)
        gym = (1, 3) if day >= GYM_SWITCH else (0, 2)
        plan = []
        if day.weekday() in gym and rng.random() < 0.85:
            plan.append(("strength", 19, 0, rng.choice([55, 60, 70])))
        if day.weekday() == 5 and rng.random() < 0.8:
            plan.append(("run", 7, 30, rng.choice([30, 40, 50, 60])))
        if day.weekday() == 6:
            kind = rng.choices(["yoga", "hike", "cycle", ""], [4, 2, 2, 2])[0]
            if kind:
                plan.append((kind, 9, 0, {"yoga": 50, "hike": 180, "cycle": 75}[kind]))
        if day.weekday() < 5 and rng.random() < 0.1:
            plan.append(("walk", 20, 30, 40))
        for kind, hour, minute, minutes in plan if day not in sick else []:
            start = _hm(day, hour, minute)
            distance, kcal = _estimate(kind, minutes)
            done.append(
                {
                    "type": kind,
                    "status": "completed",
                    "started_at": start,
                    "ended_at": _shift(start, minutes),
                    "duration_min": minutes,
                    "distance_km": round(distance * rng.uniform(0.85, 1.15), 2) if distance else None,
                    "calories": round(kcal * rng.uniform(0.9, 1.1)),
                    "source": "manual" if kind in ("strength", "yoga") and rng.random() < 0.5 else "tracked",
                    "goals_json": None,
                    "notes": None,
                    "created_at": start + ":00",
                    "updated_at": start + ":00",
                }
            )
    for i, w in enumerate(done, start=1):
        w["workout_id"] = f"workout_{i:03d}"
    conn.execute(insert(workouts), done)
    by_day: dict[str, list[dict[str, Any]]] = {}
    for w in done:
        by_day.setdefault(w["started_at"][:10], []).append(w)
    activity, sleep = [], []
    for back in range(90, -1, -1):
        day = today - dt.timedelta(days=back)
        moves = by_day.get(day.isoformat(), [])
        base = 9000 if day.weekday() < 5 else rng.choice([5000, 8000, 12000])
        steps = max(1500, int(rng.gauss(base, 1800))) // (3 if day in sick else 1)
        steps += sum(int((w["distance_km"] or 0) * 1300) for w in moves)
        if back == 0:
            steps = steps * now.hour // 24
        extra = sum(w["duration_min"] for w in moves)
        activity.append(
            {
                "date": day.isoformat(),
                "steps": steps,
                "distance_km": round(steps * 0.00076, 2),
                "calories": 1750 + steps // 25 + sum(w["calories"] for w in moves),
                "active_minutes": steps // 160 + extra,
                "resting_hr": rng.randint(57, 63) + (8 if day in sick else 0),
            }
        )
        weekend = day.weekday() >= 5
        wake = (7, 50) if weekend else ((6, 15) if day >= dt.date(2025, 4, 1) else (6, 45))
        end = _hm(day, wake[0], wake[1] + rng.randint(-10, 25 if weekend else 10))
        start = _hm(day - dt.timedelta(days=1), 23, rng.randint(-30, 70) + (30 if weekend else 0))
        hours = round((_at(end) - _at(start)).total_seconds() / 3600, 1)
        quality = "poor" if hours < 6 else "fair" if hours < 7 else "good" if hours < 8 else "excellent"
        sleep.append({"date": day.isoformat(), "start": start, "end": end, "hours": hours, "quality": quality})
    conn.execute(insert(activity_daily), activity)
    conn.execute(insert(sleep_sessions), sleep)
    conn.execute(
        insert(health_goals),
        [
            {"metric": m, "period": "daily", "target": t, "created_at": stamp, "updated_at": stamp}
            for m, t in (("active_minutes", 30.0), ("sleep_hours", 7.5), ("steps", 8000.0), ("water_ml", 2000.0))
        ],
    )


def _seed_diary(conn: Connection, rng: random.Random, persona: Persona, illness: dt.date) -> None:
    """A week of meals and water, and the medicine cabinet with two weeks of doses."""
    now = dt.datetime.fromisoformat(persona.now)
    today, minute = now.date(), now.strftime(DT_FMT)
    meals: list[dict[str, Any]] = []
    water: list[dict[str, Any]] = []
    for back in range(6, -1, -1):
        day = today - dt.timedelta(days=back)
        for meal, at in MEAL_TIMES.items():
            if _hm(day, int(at[:2]), int(at[3:])) < minute and rng.random() < 0.85:
                items: list[dict[str, Any]] = [
                    {"name": n, "quantity": q, "calories": c} for n, q, c in rng.choice(MEALS[meal])
                ]
                meals.append(
                    {
                        "date": day.isoformat(),
                        "meal": meal,
                        "time": at,
                        "items_json": json.dumps(items),
                        "calories": sum(i["calories"] for i in items),
                    }
                )
        for hour in (8, 10, 13, 15, 18, 21):
            at = _hm(day, hour, rng.choice([0, 15, 30]))
            if at < minute and rng.random() < 0.7:
                water.append({"at": at, "amount_ml": rng.choice([250, 300, 500])})
    conn.execute(
        insert(food_logs),
        [
            {
                "log_id": f"foodlog_{i:03d}",
                **m,
                "created_at": f"{m['date']}T{m['time']}:00",
                "updated_at": f"{m['date']}T{m['time']}:00",
            }
            for i, m in enumerate(meals, 1)
        ],
    )
    conn.execute(
        insert(water_logs),
        [
            {"log_id": f"water_{i:03d}", **w, "created_at": w["at"] + ":00", "updated_at": w["at"] + ":00"}
            for i, w in enumerate(water, 1)
        ],
    )
    course = [
        ("Vitamin D3", "1000 IU", ["08:00"], today - dt.timedelta(days=120), None, 1, "active"),
        ("Loratadine", "10 mg", ["08:00"], today - dt.timedelta(days=30), today + dt.timedelta(days=30), 0, "active"),
        ("Amoxicillin", "500 mg", ["08:00", "14:00", "20:00"], illness, illness + dt.timedelta(days=6), 1, "completed"),
        ("Omega-3 fish oil", "1 capsule", ["20:00"], today - dt.timedelta(days=200), None, 1, "active"),
    ]
    meds, doses = [], []
    for i, (name, dosage, times, start, end, food, status) in enumerate(course, start=1):
        med_id = f"med_{i:03d}"
        meds.append(
            {
                "medication_id": med_id,
                "name": name,
                "dosage": dosage,
                "times_json": json.dumps(times),
                "start_date": start.isoformat(),
                "end_date": end.isoformat() if end else None,
                "with_food": food,
                "refill_reminder_days": None,
                "status": status,
                "created_at": f"{start}T09:00:00",
                "updated_at": f"{start}T09:00:00",
            }
        )
        recent = today - dt.timedelta(days=13)
        first = start if end and end < recent else max(start, recent)  # a finished course is logged in full
        for offset in range(((end or today) - first).days + 1):
            for t in times:
                slot = f"{first + dt.timedelta(days=offset)}T{t}"
                if slot >= minute or (name == "Loratadine" and slot[:10] == today.isoformat()):
                    continue  # today's allergy pill is still to be logged
                fate = rng.random()
                if fate < 0.04:
                    continue
                doses.append(
                    {
                        "medication_id": med_id,
                        "slot_time": slot,
                        "status": "skipped" if fate < 0.08 else "taken",
                        "at": _shift(slot, rng.randint(0, 40)),
                    }
                )
    conn.execute(insert(medications), meds)
    doses.sort(key=lambda d: (d["slot_time"], d["medication_id"]))
    conn.execute(
        insert(medication_logs),
        [
            {"log_id": f"dose_{i:03d}", **d, "created_at": d["at"] + ":00", "updated_at": d["at"] + ":00"}
            for i, d in enumerate(doses, 1)
        ],
    )


def _seed_body_metrics(conn: Connection, rng: random.Random, persona: Persona, illness: dt.date, currency: str) -> None:
    """Weekly weight, blood pressure every ten days, fever during the illness, a few other readings."""
    today = dt.date.fromisoformat(persona.now[:10])
    imperial = _imperial(currency)
    readings = []
    weight = 74.0 + rng.uniform(-3, 3)
    for week in range(13, -1, -1):
        day = today - dt.timedelta(days=today.weekday() + 1 + 7 * week)  # Sundays
        kg = weight - 0.15 * (13 - week) + rng.uniform(-0.3, 0.3)
        readings.append(
            ("weight", f"{kg * 2.2046:.1f}" if imperial else f"{kg:.1f}", "lb" if imperial else "kg", _hm(day, 7, 30))
        )
    for back in range(85, 0, -10):
        day = today - dt.timedelta(days=back)
        readings.append(("blood_pressure", f"{rng.randint(112, 128)}/{rng.randint(72, 84)}", "mmHg", _hm(day, 8, 0)))
    for d, celsius in enumerate((38.6, 38.1, 37.2)):
        value = f"{celsius * 9 / 5 + 32:.1f}" if imperial else f"{celsius:.1f}"
        readings.append(("temperature", value, "F" if imperial else "C", _hm(illness + dt.timedelta(days=d), 21, 0)))
    for back, mmol in ((60, 5.1), (20, 5.4)):
        readings.append(
            (
                "glucose",
                f"{mmol * 18:.0f}" if imperial else f"{mmol:.1f}",
                "mg/dL" if imperial else "mmol/L",
                _hm(today - dt.timedelta(days=back), 7, 15),
            )
        )
    readings += [
        ("spo2", "97", "%", _hm(illness, 21, 5)),
        ("spo2", "98", "%", _hm(today - dt.timedelta(days=30), 8, 5)),
        ("heart_rate", "64", "bpm", _hm(today - dt.timedelta(days=12), 8, 5)),
    ]
    readings.sort(key=lambda r: (r[3], r[0]))
    conn.execute(
        insert(body_metrics),
        [
            {
                "metric_id": f"metric_{i:03d}",
                "metric": m,
                "value": v,
                "unit": u,
                "measured_at": at,
                "created_at": at + ":00",
                "updated_at": at + ":00",
            }
            for i, (m, v, u, at) in enumerate(readings, start=1)
        ],
    )


def _seed_doctors(conn: Connection, rng: random.Random, persona: Persona, illness: dt.date, currency: str) -> None:
    """Doctors in clinics of every city with two weeks of slots; the user's dentist and past and coming visits."""
    now = dt.datetime.fromisoformat(persona.now)
    today, minute, stamp = now.date(), now.strftime(DT_FMT), persona.now
    cities = sorted(set(conn.execute(select(world_places.c.city)).scalars()))
    hospitals = rows(
        conn.execute(
            select(world_places).where(world_places.c.category == "hospital").order_by(world_places.c.place_id)
        )
    )
    place_no = next_number(conn, world_places, "place")
    clinics: dict[str, list[str]] = {c: [h["place_id"] for h in hospitals if h["city"] == c] for c in cities}
    new_places = []
    for city in cities:
        names = [rng.choice(CLINIC_NAMES)] + ([DENTIST[1]] if city == persona.home_city else [])
        for name in names:
            lat0, lon0 = CITY_CENTRES.get(city, (0.0, 0.0))
            new_places.append(
                {
                    "place_id": f"place_{place_no:03d}",
                    "name": name,
                    "category": "clinic",
                    "address": f"{rng.randint(1, 300)} {rng.choice(STREETS)}",
                    "city": city,
                    "lat": round(lat0 + rng.uniform(-0.05, 0.05), 5),
                    "lon": round(lon0 + rng.uniform(-0.05, 0.05), 5),
                    "rating": round(rng.uniform(3.8, 4.9), 1),
                    "open_now": 1,
                    "phone": business_phone(city, rng),
                }
            )
            clinics[city].append(f"place_{place_no:03d}")
            place_no += 1
    conn.execute(insert(world_places), new_places)
    dental_clinic = next(p["place_id"] for p in new_places if p["name"] == DENTIST[1])
    chinese, others = list(CHINESE_DOCTORS), list(OTHER_DOCTORS)
    rng.shuffle(chinese)
    rng.shuffle(others)
    fees = FEES.get(currency) or tuple(round_amount(fee, currency) for fee in FEES["USD"])
    doctors = [
        {
            "name": f"Dr. {DENTIST[0]}",
            "specialty": "Dentistry",
            "city": persona.home_city,
            "clinic_place_id": dental_clinic,
        }
    ]
    for city, count in city_counts(persona, cities, 11, 4, 25).items():
        for k in range(count - (city == persona.home_city)):
            pool = chinese if COUNTRY.get(city) == "CN" and chinese else others
            doctors.append(
                {
                    "name": f"Dr. {pool.pop()}",
                    "city": city,
                    "clinic_place_id": rng.choice(clinics[city]),
                    "specialty": SPECIALTIES[k % len(SPECIALTIES)]
                    if city == persona.home_city
                    else rng.choice(SPECIALTIES),
                }
            )
    doctor_rows, slots = [], []
    for i, d in enumerate(doctors, start=1):
        d["doctor_id"] = f"doctor_{i:03d}"
        spoken = LANGUAGE.get(d["city"], "English")
        languages = [spoken] + (["English"] if spoken != "English" and rng.random() < 0.7 else [])
        doctor_rows.append(
            {
                "doctor_id": d["doctor_id"],
                "name": d["name"],
                "specialty": d["specialty"],
                "clinic_place_id": d["clinic_place_id"],
                "insurance_json": json.dumps(
                    sorted(rng.sample(INSURERS[COUNTRY.get(d["city"], "")], rng.randint(2, 3)))
                ),
                "languages_json": json.dumps(languages),
                "telehealth": int(rng.random() < 0.4),
                "rating": round(rng.uniform(3.9, 5.0), 1),
                "fee": rng.choice(fees),
            }
        )
        for offset in range(14):
            day = today + dt.timedelta(days=offset)
            if day.weekday() >= 5:
                continue
            marks = [f"{h:02d}:{m:02d}" for h in (9, 10, 11, 13, 14, 15, 16) for m in (0, 30)]
            for t in sorted(rng.sample(marks, 4)):
                if f"{day}T{t}" > minute:
                    slots.append(
                        {"doctor_id": d["doctor_id"], "slot_dt": f"{day}T{t}", "available": int(rng.random() < 0.75)}
                    )
    conn.execute(insert(world_doctors), doctor_rows)
    local = [d for d in doctors if d["city"] == persona.home_city]
    gp = next(d["doctor_id"] for d in local if d["specialty"] == "General practice")
    derm = next(d["doctor_id"] for d in local if d["specialty"] == "Dermatology")
    visits = [
        ("doctor_001", "2025-01-20T10:00", "Dental check-up", "completed"),
        (gp, _hm(illness, 10, 30), "Sore throat and fever", "completed"),
        (derm, _hm(today - dt.timedelta(days=20), 15, 0), "Skin rash", "cancelled"),
    ]
    dentist = conn.execute(
        select(calendar_events.c.start).where(
            calendar_events.c.title == "Dentist appointment", calendar_events.c.start > minute
        )
    ).scalar()
    if dentist:
        visits.append(("doctor_001", dentist, "Dental cleaning", "booked"))
        slots = [s for s in slots if (s["doctor_id"], s["slot_dt"]) != ("doctor_001", dentist)]
        slots.append({"doctor_id": "doctor_001", "slot_dt": dentist, "available": 0})
    slots.sort(key=lambda s: (s["doctor_id"], s["slot_dt"]))
    conn.execute(insert(world_doctor_slots), [{"slot_id": i, **s} for i, s in enumerate(slots, start=1)])
    visits.sort(key=lambda v: v[1])
    conn.execute(
        insert(medical_appointments),
        [
            {
                "appointment_id": f"appt_{i:03d}",
                "doctor_id": doc,
                "slot": slot,
                "reason": reason,
                "patient": "self",
                "telehealth": 0,
                "status": status,
                "cancel_reason": "Rash cleared up" if status == "cancelled" else None,
                "cancel_fee": 0.0 if status == "cancelled" else None,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, (doc, slot, reason, status) in enumerate(visits, start=1)
        ],
    )
