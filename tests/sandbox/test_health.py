"""D9 health tools against the wang_lei world (now = 2025-06-13T09:00, a Friday; home in Beijing).

Each tool has a success test asserting its payload and state diff; every declared ErrorType has a
case in ERROR_CASES, where the failed call must change nothing but add its one log row.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import func, insert, select, update

from sandbox.db import open_database, transaction
from sandbox.domains.common import world_places
from sandbox.domains.health import tools as health
from sandbox.domains.health.schema import (
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
from sandbox.domains.productivity.schema import calendar_events
from sandbox.errors import ErrorType
from sandbox.executor import Executor
from sandbox.schema import app_permissions, device_settings
from sandbox.tooling import REGISTRY
from sandbox.world import world_image
from tests.sandbox.conftest import diff, fails, ok, prepare, query

NOW, TODAY = "2025-06-13T09:00", "2025-06-13"
HEALTH_TOOLS = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ == health.__name__)
W, D, DS, AP = workouts.c, world_doctors.c, world_doctor_slots.c, medical_appointments.c


def running(ex: Executor, started: str = "2025-06-13T08:20") -> str:
    """A run being tracked since ``started``."""
    prepare(
        ex.conn,
        insert(workouts).values(
            workout_id="workout_900",
            type="run",
            status="active",
            started_at=started,
            source="tracked",
            goals_json=json.dumps({"distance_km": 5.0, "duration_min": 30}),
            created_at=started,
            updated_at=started,
        ),
    )
    return "workout_900"


def med(ex: Executor, name: str) -> dict[str, Any]:
    return query(ex, select(medications).where(medications.c.name == name))[0]


def free_slot(ex: Executor, after: str = "2025-06-14", before: str = "2025-06-28") -> dict[str, Any]:
    """A free doctor slot between the two days that clashes with nothing in the user's calendar."""
    busy = query(
        ex,
        select(calendar_events.c.start, calendar_events.c.end).where(
            calendar_events.c.status == "confirmed", calendar_events.c.end > after
        ),
    )
    for s in query(
        ex,
        select(world_doctor_slots)
        .where(DS.available == 1, DS.slot_dt > after, DS.slot_dt < before)
        .order_by(DS.slot_dt, DS.doctor_id),
    ):
        end = health._shift(s["slot_dt"], 30)
        if not any(b["start"] < end and b["end"] > s["slot_dt"] for b in busy):
            return s
    raise AssertionError("no free doctor slot")


def booked(ex: Executor, slot: dict[str, Any] | None = None) -> dict[str, Any]:
    s = slot or free_slot(ex)
    return ok(ex, "book_doctor_appointment", {"doctor_id": s["doctor_id"], "slot": s["slot_dt"], "reason": "check-up"})


# ---- the world ------------------------------------------------------------------------------


def test_world_is_seeded_as_promised() -> None:
    for persona in ("wang_lei", "maya_patel"):
        conn = open_database(world_image(persona))
        try:
            with transaction(conn):
                assert conn.execute(select(func.count()).select_from(activity_daily)).scalar() >= 60
                assert conn.execute(select(func.count()).select_from(sleep_sessions)).scalar() >= 60
                kinds = set(conn.execute(select(W.type).where(W.status == "completed")).scalars())
                assert {"strength", "run"} <= kinds
                assert conn.execute(select(func.count()).select_from(workouts)).scalar() >= 30
                assert conn.execute(select(W.workout_id).where(W.status == "active")).first() is None
                statuses = set(conn.execute(select(medications.c.status)).scalars())
                assert statuses == {"active", "completed"}
                assert conn.execute(select(func.count()).select_from(medication_logs)).scalar() >= 40
                doctors = conn.execute(select(world_doctors).order_by(D.doctor_id)).all()
                assert len(doctors) >= 20 and doctors[0].name == "Dr. Sarah Lin"
                clinics = set(
                    conn.execute(
                        select(world_places.c.category).where(
                            world_places.c.place_id.in_([d.clinic_place_id for d in doctors])
                        )
                    ).scalars()
                )
                assert clinics <= {"hospital", "clinic"}
                assert conn.execute(select(func.count()).select_from(world_doctor_slots)).scalar() >= 500
                dentist = conn.execute(
                    select(calendar_events.c.start).where(calendar_events.c.title == "Dentist appointment")
                ).scalar()
                visit = conn.execute(select(medical_appointments).where(AP.status == "booked")).one()
                assert (visit.doctor_id, visit.slot) == ("doctor_001", dentist)
                assert (
                    conn.execute(
                        select(DS.available).where(DS.doctor_id == "doctor_001", DS.slot_dt == dentist)
                    ).scalar()
                    == 0
                )
                metrics = set(conn.execute(select(body_metrics.c.metric)).scalars())
                assert {"weight", "blood_pressure", "temperature"} <= metrics
                assert conn.execute(select(func.count()).select_from(food_logs)).scalar() >= 10
                assert conn.execute(select(func.count()).select_from(water_logs)).scalar() >= 10
        finally:
            conn.close()


def test_declarations() -> None:
    assert (
        sorted(
            [
                "start_workout",
                "end_workout",
                "log_workout",
                "get_activity_summary",
                "set_fitness_goal",
                "log_meal",
                "log_water_intake",
                "add_medication",
                "log_medication_taken",
                "search_doctors",
                "book_doctor_appointment",
                "cancel_doctor_appointment",
                "log_body_metric",
            ]
        )
        == HEALTH_TOOLS
    )
    assert {n for n in HEALTH_TOOLS if not REGISTRY[n].mutating} == {"get_activity_summary", "search_doctors"}
    perms = {n: set(REGISTRY[n].permissions) for n in HEALTH_TOOLS}
    assert all("ACTIVITY" in perms[n] for n in ("start_workout", "end_workout", "log_workout", "get_activity_summary"))
    assert all(
        "HEALTH" in perms[n]
        for n in ("log_meal", "log_water_intake", "add_medication", "log_medication_taken", "log_body_metric")
    )
    assert {REGISTRY[n].app for n in HEALTH_TOOLS} == {"health"}
    assert {REGISTRY[n].domain for n in HEALTH_TOOLS} == {"D9"}


# ---- 9.1 Workout Tracking -------------------------------------------------------------------


def test_start_workout(ex: Executor) -> None:
    out = ok(ex, "start_workout", {"type": "run", "goal_distance_km": 5})
    assert (out["status"], out["started_at"], out["goals"]) == ("active", NOW, {"distance_km": 5.0})
    [row] = diff(ex)["workouts"]["inserted"]
    assert (row["workout_id"], row["type"], row["status"], row["source"]) == (
        out["workout_id"],
        "run",
        "active",
        "tracked",
    )


def test_end_workout_saves_the_summary(ex: Executor) -> None:
    wid = running(ex)
    out = ok(ex, "end_workout", {"workout_id": wid})
    assert (out["status"], out["duration_min"], out["ended_at"]) == ("completed", 40, NOW)
    assert out["distance_km"] == round(9.5 * 40 / 60, 2) and out["calories"] == 440
    assert out["goals"] == {
        "distance_km": {"target": 5.0, "achieved": True},
        "duration_min": {"target": 30, "achieved": True},
    }
    [upd] = diff(ex)["workouts"]["updated"]
    assert (upd["after"]["status"], upd["after"]["duration_min"]) == ("completed", 40)


def test_end_workout_discard(ex: Executor) -> None:
    wid = running(ex)
    out = ok(ex, "end_workout", {"workout_id": wid, "discard": True})
    assert out["status"] == "discarded" and "goals" not in out
    [upd] = diff(ex)["workouts"]["updated"]
    assert (upd["after"]["status"], upd["after"]["duration_min"]) == ("discarded", None)


def test_log_workout(ex: Executor) -> None:
    out = ok(
        ex,
        "log_workout",
        {
            "type": "swim",
            "date": "2025-06-12",
            "duration_min": 30,
            "distance_km": 1.2,
            "start_time": "18:30",
            "notes": "pool",
        },
    )
    assert (out["started_at"], out["ended_at"], out["calories"], out["source"]) == (
        "2025-06-12T18:30",
        "2025-06-12T19:00",
        270,
        "manual",
    )
    [row] = diff(ex)["workouts"]["inserted"]
    assert (row["distance_km"], row["notes"], row["status"]) == (1.2, "pool", "completed")


# ---- 9.2 Daily Activity & Sleep -------------------------------------------------------------


def test_get_activity_summary(ex: Executor) -> None:
    out = ok(ex, "get_activity_summary", {"date": "2025-06-07", "date_to": "2025-06-13"})
    days = query(ex, select(activity_daily).where(activity_daily.c.date >= "2025-06-07"))
    assert [d["date"] for d in out["days"]] == [d["date"] for d in days] and len(days) == 7
    assert out["totals"]["steps"] == sum(d["steps"] for d in days)
    assert {"sleep_hours", "resting_hr", "bedtime"} <= set(out["days"][0])
    assert all("2025-06-07" <= w["started_at"] <= "2025-06-13T99" for w in out["workouts"]) and out["workouts"]
    assert out["goals"]["steps"] == {"target": 8000.0, "period": "daily"}
    assert diff(ex) == {}


def test_get_activity_summary_today_selected_metrics(ex: Executor) -> None:
    out = ok(ex, "get_activity_summary", {"metrics": ["sleep"]})
    [today] = out["days"]
    assert today["date"] == TODAY and set(today) == {"date", "sleep_hours", "sleep_quality", "bedtime", "wake_time"}
    assert out["totals"] == {} and set(out["averages"]) == {"sleep_hours"}


def test_set_fitness_goal(ex: Executor) -> None:
    out = ok(ex, "set_fitness_goal", {"metric": "steps", "target": 10000})
    assert out["previous"] == {"target": 8000.0, "period": "daily"} and out["changed"]
    [upd] = diff(ex)["health_goals"]["updated"]
    assert upd["after"]["target"] == 10000.0
    out = ok(ex, "set_fitness_goal", {"metric": "weight_kg", "target": 70.5, "period": "weekly"})
    assert out["previous"] is None
    assert diff(ex)["health_goals"]["inserted"][0]["metric"] == "weight_kg"


def test_set_fitness_goal_same_value_changes_nothing(ex: Executor) -> None:
    assert not ok(ex, "set_fitness_goal", {"metric": "steps", "target": 8000})["changed"]
    assert diff(ex) == {}


# ---- 9.3 Nutrition & Hydration --------------------------------------------------------------


def test_log_meal(ex: Executor) -> None:
    before = sum(r["calories"] or 0 for r in query(ex, select(food_logs).where(food_logs.c.date == TODAY)))
    out = ok(
        ex,
        "log_meal",
        {
            "meal": "snack",
            "time": "08:45",
            "items": [
                {"name": "Apple", "quantity": "1", "calories": 95},
                {"name": "Almonds", "calories": 160},
                {"name": "Tea"},
            ],
        },
    )
    assert (out["calories"], out["day_calories"], out["date"]) == (255, before + 255, TODAY)
    [row] = diff(ex)["food_logs"]["inserted"]
    assert json.loads(row["items_json"])[2] == {"name": "Tea"} and row["time"] == "08:45"


def test_log_water_intake(ex: Executor) -> None:
    before = sum(r["amount_ml"] for r in query(ex, select(water_logs).where(water_logs.c.at.like(f"{TODAY}%"))))
    out = ok(ex, "log_water_intake", {"amount_ml": 350})
    assert (out["at"], out["day_total_ml"], out["goal_ml"]) == (NOW, before + 350, 2000.0)
    [row] = diff(ex)["water_logs"]["inserted"]
    assert (row["amount_ml"], row["at"]) == (350, NOW)


# ---- 9.4 Medication Management --------------------------------------------------------------


def test_add_medication_creates_reminders(ex: Executor) -> None:
    out = ok(
        ex,
        "add_medication",
        {
            "name": "Metformin",
            "dosage": "500 mg",
            "times": ["20:00", "08:00"],
            "with_food": True,
            "end_date": "2025-09-13",
            "refill_reminder_days": 30,
        },
    )
    assert out["times"] == ["08:00", "20:00"] and out["start_date"] == TODAY
    d = diff(ex)
    [row] = d["medications"]["inserted"]
    assert (row["name"], row["status"], json.loads(row["times_json"]), row["with_food"]) == (
        "Metformin",
        "active",
        ["08:00", "20:00"],
        1,
    )
    reminders = sorted((t["remind_at"], t["title"], t["list_name"]) for t in d["tasks"]["inserted"])
    assert reminders == [
        ("2025-06-13T20:00", "Take Metformin (500 mg)", "Medications"),
        ("2025-06-14T08:00", "Take Metformin (500 mg)", "Medications"),
        ("2025-07-13T08:00", "Refill Metformin", "Medications"),
    ]
    assert sorted(out["reminder_task_ids"]) == sorted(t["task_id"] for t in d["tasks"]["inserted"])


def test_add_medication_again_after_a_finished_course(ex: Executor) -> None:
    ok(ex, "add_medication", {"name": "amoxicillin", "dosage": "250 mg", "times": ["09:30"]})
    assert diff(ex)["medications"]["inserted"][0]["name"] == "amoxicillin"


def test_log_medication_taken(ex: Executor) -> None:
    lor = med(ex, "Loratadine")
    out = ok(ex, "log_medication_taken", {"medication_id": "loratadine", "status": "taken", "at": "2025-06-13T08:10"})
    assert (out["medication_id"], out["slot_time"], out["status"]) == (
        lor["medication_id"],
        "2025-06-13T08:00",
        "taken",
    )
    [row] = diff(ex)["medication_logs"]["inserted"]
    assert (row["medication_id"], row["slot_time"], row["at"]) == (
        lor["medication_id"],
        "2025-06-13T08:00",
        "2025-06-13T08:10",
    )


def test_log_medication_picks_the_nearest_dose(ex: Executor) -> None:
    prepare(
        ex.conn,
        update(medications)
        .where(medications.c.name == "Omega-3 fish oil")
        .values(times_json=json.dumps(["08:00", "20:00"])),
    )
    oid = med(ex, "Omega-3 fish oil")["medication_id"]
    out = ok(ex, "log_medication_taken", {"medication_id": oid, "status": "skipped", "at": "2025-06-12T10:30"})
    assert (out["slot_time"], out["status"]) == ("2025-06-12T08:00", "skipped")
    fails(
        ex,
        "log_medication_taken",
        {"medication_id": oid, "status": "taken", "at": "2025-06-12T06:00"},
        ErrorType.DUPLICATE_ENTITY,
    )


# ---- 9.5 Doctor Appointments ----------------------------------------------------------------


def test_search_doctors(ex: Executor) -> None:
    out = ok(ex, "search_doctors", {"specialty": "dent", "near": "home"})
    assert out["doctors"] and all(d["specialty"] == "Dentistry" and d["city"] == "Beijing" for d in out["doctors"])
    distances = [d["distance_km"] for d in out["doctors"]]
    assert distances == sorted(distances)
    lin = next(d for d in out["doctors"] if d["name"] == "Dr. Sarah Lin")
    assert [a["appointment_id"] for a in lin["my_upcoming_appointments"]] == [
        query(ex, select(AP.appointment_id).where(AP.status == "booked"))[0]["appointment_id"]
    ]
    assert all(s > NOW for d in out["doctors"] for s in d["free_slots"])
    assert diff(ex) == {}


def test_search_doctors_filters(ex: Executor) -> None:
    out = ok(ex, "search_doctors", {"specialty": "ology", "date": "2025-06-16", "language": "english", "limit": 20})
    assert out["doctors"]
    for d in out["doctors"]:
        assert "English" in d["languages"] and all(s.startswith("2025-06-16") for s in d["free_slots"])
    out = ok(ex, "search_doctors", {"specialty": "ology", "telehealth": True, "insurance": "aia", "limit": 20})
    assert all(d["telehealth"] and "AIA" in d["insurance"] for d in out["doctors"])


def test_book_doctor_appointment(ex: Executor) -> None:
    s = free_slot(ex)
    out = booked(ex, s)
    assert (out["doctor_id"], out["slot"], out["patient"]) == (s["doctor_id"], s["slot_dt"], "self")
    d = diff(ex)
    [row] = d["medical_appointments"]["inserted"]
    assert (row["appointment_id"], row["status"], row["reason"]) == (out["appointment_id"], "booked", "check-up")
    [taken] = d["world_doctor_slots"]["updated"]
    assert (taken["before"]["available"], taken["after"]["available"]) == (1, 0)


def test_book_doctor_appointment_for_a_contact_ignores_my_calendar(ex: Executor) -> None:
    s = free_slot(ex)
    prepare(
        ex.conn,
        insert(calendar_events).values(
            event_id="event_900",
            title="Busy",
            start=s["slot_dt"],
            end=health._shift(s["slot_dt"], 60),
            calendar="work",
            status="confirmed",
            is_organizer=1,
        ),
    )
    out = ok(
        ex, "book_doctor_appointment", {"doctor_id": s["doctor_id"], "slot": s["slot_dt"], "patient": "contact_002"}
    )
    assert (out["patient"], out["patient_name"]) == ("contact_002", "Zhang Min")


def test_cancel_doctor_appointment(ex: Executor) -> None:
    appt = query(ex, select(medical_appointments).where(AP.status == "booked"))[0]
    out = ok(ex, "cancel_doctor_appointment", {"appointment_id": appt["appointment_id"], "reason": "travel"})
    assert (out["status"], out["fee"]) == ("cancelled", 0.0)
    d = diff(ex)
    [upd] = d["medical_appointments"]["updated"]
    assert (upd["after"]["status"], upd["after"]["cancel_reason"]) == ("cancelled", "travel")
    [freed] = d["world_doctor_slots"]["updated"]
    assert freed["after"]["available"] == 1


def test_cancel_doctor_appointment_late_with_confirmation(ex: Executor) -> None:
    s = free_slot(ex, after=NOW, before="2025-06-14")
    appt = booked(ex, s)
    fee = query(ex, select(D.fee).where(D.doctor_id == s["doctor_id"]))[0]["fee"]
    out = ok(ex, "cancel_doctor_appointment", {"appointment_id": appt["appointment_id"], "confirm": True})
    assert out["fee"] == round(fee / 2, 2)


# ---- 9.6 Body Metrics -----------------------------------------------------------------------


def test_log_body_metric(ex: Executor) -> None:
    out = ok(ex, "log_body_metric", {"metric": "blood_pressure", "value": " 118 / 76 "})
    assert (out["value"], out["unit"], out["measured_at"]) == ("118/76", "mmHg", NOW)
    assert out["previous"]["value"].count("/") == 1
    out = ok(ex, "log_body_metric", {"metric": "weight", "value": 71, "unit": "kg", "measured_at": "2025-06-13T07:30"})
    assert out["value"] == "71"
    rows = diff(ex)["body_metrics"]["inserted"]
    assert [(r["metric"], r["value"], r["unit"]) for r in rows] == [
        ("blood_pressure", "118/76", "mmHg"),
        ("weight", "71", "kg"),
    ]


@pytest.mark.parametrize(
    "args",
    [
        {"metric": "blood_pressure", "value": "120-80"},
        {"metric": "blood_pressure", "value": "80/120"},
        {"metric": "weight", "value": 70, "unit": "mmHg"},
        {"metric": "temperature", "value": 98.6},
        {"metric": "spo2", "value": 101},
    ],
)
def test_log_body_metric_checks_values_and_units(ex: Executor, args: dict[str, Any]) -> None:
    fails(ex, "log_body_metric", args, ErrorType.INVALID_ARGUMENT_VALUE)


# ---- the gates and argument checks ----------------------------------------------------------


def test_permissions_and_services_gate_health_tools(ex: Executor) -> None:
    prepare(
        ex.conn,
        update(app_permissions)
        .where(app_permissions.c.app_id == "health", app_permissions.c.permission == "HEALTH")
        .values(state="denied"),
    )
    payload = fails(ex, "log_water_intake", {"amount_ml": 200}, ErrorType.PERMISSION_DENIED)
    assert payload["permission"] == "HEALTH"
    prepare(ex.conn, update(device_settings).where(device_settings.c.key == "location_service").values(value="0"))
    fails(ex, "start_workout", {"type": "walk"}, ErrorType.SERVICE_DISABLED)
    prepare(
        ex.conn,
        update(device_settings).where(device_settings.c.key == "airplane_mode").values(value="1"),
        update(device_settings).where(device_settings.c.key.in_(["wifi", "mobile_data"])).values(value="0"),
    )
    fails(
        ex,
        "book_doctor_appointment",
        {"doctor_id": "doctor_001", "slot": "2025-06-16T09:00"},
        ErrorType.NETWORK_UNAVAILABLE,
    )


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("log_workout", {"type": "yoga", "date": "2025-06-12", "duration_min": 30, "distance_km": 2}),
        ("get_activity_summary", {"date_to": "2025-06-13"}),
        ("get_activity_summary", {"date": "2025-06-13", "date_to": "2025-06-01"}),
        ("get_activity_summary", {"date": "2025-04-01", "date_to": "2025-06-13"}),
        ("set_fitness_goal", {"metric": "sleep_hours", "target": 30}),
        ("add_medication", {"name": "X", "dosage": "1", "times": ["08:00", "08:00"]}),
        (
            "add_medication",
            {"name": "X", "dosage": "1", "times": ["08:00"], "start_date": "2025-07-01", "end_date": "2025-06-20"},
        ),
    ],
)
def test_cross_field_checks(ex: Executor, name: str, args: dict[str, Any]) -> None:
    fails(ex, name, args, ErrorType.INVALID_ARGUMENT_VALUE)


# ---- declared errors ------------------------------------------------------------------------


def _twin_place(ex: Executor) -> dict[str, Any]:
    first = query(ex, select(world_places).order_by(world_places.c.place_id))[0]
    prepare(ex.conn, insert(world_places).values({**first, "place_id": "place_999"}))
    return {"specialty": "dentistry", "near": first["name"]}


def _start_twice(ex: Executor) -> dict[str, Any]:
    running(ex)
    return {"type": "yoga"}


def _completed_workout(ex: Executor) -> dict[str, Any]:
    return {"workout_id": query(ex, select(W.workout_id).where(W.status == "completed"))[0]["workout_id"]}


def _logged_twice(ex: Executor) -> dict[str, Any]:
    args = {"type": "walk", "date": "2025-06-12", "duration_min": 30, "start_time": "07:00"}
    ok(ex, "log_workout", args)
    return {**args, "duration_min": 45}


def _dose_twice(ex: Executor) -> dict[str, Any]:
    args = {"medication_id": med(ex, "Loratadine")["medication_id"], "status": "taken", "at": "2025-06-13T08:05"}
    ok(ex, "log_medication_taken", args)
    return {**args, "status": "skipped", "at": "2025-06-13T08:30"}


def _taken_slot(ex: Executor) -> dict[str, Any]:
    s = query(ex, select(world_doctor_slots).where(DS.available == 0, DS.slot_dt > NOW))[0]
    return {"doctor_id": s["doctor_id"], "slot": s["slot_dt"]}


def _no_video(ex: Executor) -> dict[str, Any]:
    doc = query(ex, select(D.doctor_id).where(D.telehealth == 0))[0]["doctor_id"]
    s = query(ex, select(world_doctor_slots).where(DS.doctor_id == doc, DS.available == 1, DS.slot_dt > NOW))[0]
    return {"doctor_id": doc, "slot": s["slot_dt"], "telehealth": True}


def _clash(ex: Executor) -> dict[str, Any]:
    s = free_slot(ex)
    prepare(
        ex.conn,
        insert(calendar_events).values(
            event_id="event_900",
            title="Busy",
            start=health._shift(s["slot_dt"], -30),
            end=health._shift(s["slot_dt"], 15),
            calendar="work",
            status="confirmed",
            is_organizer=1,
        ),
    )
    return {"doctor_id": s["doctor_id"], "slot": s["slot_dt"]}


def _same_doctor_twice(ex: Executor) -> dict[str, Any]:
    first = free_slot(ex)
    booked(ex, first)
    other = query(
        ex,
        select(world_doctor_slots).where(
            DS.doctor_id == first["doctor_id"], DS.available == 1, DS.slot_dt > first["slot_dt"]
        ),
    )
    later = next(s for s in other if s["slot_dt"][:10] != first["slot_dt"][:10])
    return {"doctor_id": first["doctor_id"], "slot": later["slot_dt"]}


def _late_cancel(ex: Executor) -> dict[str, Any]:
    appt = booked(ex, free_slot(ex, after=NOW, before="2025-06-14"))
    return {"appointment_id": appt["appointment_id"]}


NF, AMB, STATE, BAD, DUP = (
    ErrorType.ENTITY_NOT_FOUND,
    ErrorType.AMBIGUOUS_ENTITY,
    ErrorType.STATE_CONFLICT,
    ErrorType.INVALID_ARGUMENT_VALUE,
    ErrorType.DUPLICATE_ENTITY,
)
UNAV, TIME, CONF = ErrorType.RESOURCE_UNAVAILABLE, ErrorType.TIME_CONFLICT, ErrorType.CONFIRMATION_REQUIRED
Setup = Callable[[Executor], dict[str, Any]]

# (tool, expected error, setup returning the arguments)
ERROR_CASES: list[tuple[str, ErrorType, Setup]] = [
    ("start_workout", STATE, _start_twice),
    ("end_workout", NF, lambda ex: {"workout_id": "workout_999"}),
    ("end_workout", STATE, _completed_workout),
    ("log_workout", BAD, lambda ex: {"type": "run", "date": "2025-06-14", "duration_min": 30}),
    ("log_workout", BAD, lambda ex: {"type": "run", "date": TODAY, "duration_min": 30, "start_time": "18:00"}),
    ("log_workout", DUP, _logged_twice),
    ("log_meal", BAD, lambda ex: {"meal": "dinner", "items": [{"name": "Soup"}], "time": "19:00"}),
    ("log_water_intake", BAD, lambda ex: {"amount_ml": 250, "at": "2025-06-13T12:00"}),
    (
        "add_medication",
        BAD,
        lambda ex: {"name": "Ibuprofen", "dosage": "200 mg", "times": ["08:00"], "end_date": "2025-06-01"},
    ),
    ("add_medication", DUP, lambda ex: {"name": "vitamin d3", "dosage": "2000 IU", "times": ["09:00"]}),
    ("log_medication_taken", NF, lambda ex: {"medication_id": "med_999", "status": "taken"}),
    ("log_medication_taken", NF, lambda ex: {"medication_id": "Aspirin", "status": "taken"}),
    (
        "log_medication_taken",
        BAD,
        lambda ex: {"medication_id": "Vitamin D3", "status": "taken", "at": "2025-06-13T20:00"},
    ),
    ("log_medication_taken", STATE, lambda ex: {"medication_id": "Amoxicillin", "status": "taken"}),
    (
        "log_medication_taken",
        STATE,
        lambda ex: {"medication_id": "Loratadine", "status": "taken", "at": "2025-01-02T08:00"},
    ),
    ("log_medication_taken", DUP, _dose_twice),
    ("search_doctors", NF, lambda ex: {"specialty": "dentistry", "near": "Atlantis"}),
    ("search_doctors", AMB, _twin_place),
    ("book_doctor_appointment", NF, lambda ex: {"doctor_id": "doctor_999", "slot": "2025-06-16T09:00"}),
    ("book_doctor_appointment", NF, lambda ex: {**_taken_slot(ex), "patient": "contact_999"}),
    ("book_doctor_appointment", BAD, lambda ex: {"doctor_id": "doctor_001", "slot": "2025-06-12T09:00"}),
    ("book_doctor_appointment", UNAV, _taken_slot),
    ("book_doctor_appointment", UNAV, lambda ex: {"doctor_id": "doctor_001", "slot": "2025-06-16T09:10"}),
    ("book_doctor_appointment", UNAV, _no_video),
    ("book_doctor_appointment", TIME, _clash),
    ("book_doctor_appointment", DUP, _same_doctor_twice),
    ("cancel_doctor_appointment", NF, lambda ex: {"appointment_id": "appt_999"}),
    (
        "cancel_doctor_appointment",
        STATE,
        lambda ex: {
            "appointment_id": query(ex, select(AP.appointment_id).where(AP.status == "completed"))[0]["appointment_id"]
        },
    ),
    (
        "cancel_doctor_appointment",
        STATE,
        lambda ex: {
            "appointment_id": query(ex, select(AP.appointment_id).where(AP.status == "cancelled"))[0]["appointment_id"]
        },
    ),
    ("cancel_doctor_appointment", CONF, _late_cancel),
    ("log_body_metric", BAD, lambda ex: {"metric": "heart_rate", "value": 70, "measured_at": "2025-06-13T10:00"}),
]


@pytest.mark.parametrize(
    ("name", "error", "setup"), ERROR_CASES, ids=[f"{c[0]}-{c[1].value}-{i}" for i, c in enumerate(ERROR_CASES)]
)
def test_declared_error_changes_nothing(ex: Executor, name: str, error: ErrorType, setup: Setup) -> None:
    fails(ex, name, setup(ex), error)


def test_every_declared_error_is_tested() -> None:
    declared = {(n, e) for n in HEALTH_TOOLS for e in REGISTRY[n].errors}
    assert {(c[0], c[1]) for c in ERROR_CASES} == declared


def test_error_payloads_guide_the_planner(ex: Executor) -> None:
    running(ex)
    assert fails(ex, "start_workout", {"type": "run"}, STATE)["active_workout_id"] == "workout_900"
    payload = fails(ex, "add_medication", {"name": "VITAMIN D3", "dosage": "1", "times": ["08:00"]}, DUP)
    assert payload["existing_id"] == med(ex, "Vitamin D3")["medication_id"]
    payload = fails(ex, "cancel_doctor_appointment", _late_cancel(ex), CONF)
    assert payload["fee"] > 0 and "confirm" in payload["hint"]
    goals = query(ex, select(health_goals))
    assert {g["metric"] for g in goals} >= {"steps", "water_ml"}
