"""The health domain's data model: its tables, and the constants and types its tools and seeder share."""

from __future__ import annotations

import re
from typing import Annotated, Literal, NotRequired

from pydantic import ConfigDict, Field
from sqlalchemy import Column, Float, Integer, Text
from typing_extensions import TypedDict

from sandbox.schema import USER, WORLD, stamps, table

workouts = table(
    "workouts",
    USER,
    Column("workout_id", Text, primary_key=True),
    Column("type", Text, nullable=False),
    Column("status", Text, nullable=False),  # active | completed | discarded
    Column("started_at", Text, nullable=False),  # YYYY-MM-DDTHH:MM, or YYYY-MM-DD when logged without a time
    Column("ended_at", Text),
    Column("duration_min", Integer),
    Column("distance_km", Float),
    Column("calories", Integer),
    Column("source", Text, nullable=False),  # tracked | manual
    Column("goals_json", Text),
    Column("notes", Text),
    *stamps(),
    natural_key=("type", "started_at"),
)

activity_daily = table(
    "activity_daily",
    USER,
    Column("date", Text, primary_key=True),
    Column("steps", Integer, nullable=False),
    Column("distance_km", Float, nullable=False),
    Column("calories", Integer, nullable=False),
    Column("active_minutes", Integer, nullable=False),
    Column("resting_hr", Integer, nullable=False),
    natural_key=("date",),
)

sleep_sessions = table(
    "sleep_sessions",
    USER,
    Column("date", Text, primary_key=True),  # the morning the night ended
    Column("start", Text, nullable=False),
    Column("end", Text, nullable=False),
    Column("hours", Float, nullable=False),
    Column("quality", Text, nullable=False),  # poor | fair | good | excellent
    natural_key=("date",),
)

health_goals = table(
    "health_goals",
    USER,
    Column("metric", Text, primary_key=True),
    Column("period", Text, nullable=False),  # daily | weekly
    Column("target", Float, nullable=False),
    *stamps(),
    natural_key=("metric",),
)

food_logs = table(
    "food_logs",
    USER,
    Column("log_id", Text, primary_key=True),
    Column("date", Text, nullable=False),
    Column("meal", Text, nullable=False),
    Column("time", Text),
    Column("items_json", Text, nullable=False),  # [{name, quantity?, calories?}]
    Column("calories", Integer),
    *stamps(),
    natural_key=("date", "meal"),
    id_prefix="foodlog",
)

water_logs = table(
    "water_logs",
    USER,
    Column("log_id", Text, primary_key=True),
    Column("at", Text, nullable=False),
    Column("amount_ml", Integer, nullable=False),
    *stamps(),
    natural_key=("at",),
    id_prefix="water",
)

medications = table(
    "medications",
    USER,
    Column("medication_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("dosage", Text, nullable=False),
    Column("times_json", Text, nullable=False),  # daily dose times, ["08:00", "20:00"]
    Column("start_date", Text, nullable=False),
    Column("end_date", Text),
    Column("with_food", Integer, nullable=False),
    Column("refill_reminder_days", Integer),
    Column("status", Text, nullable=False),  # active | completed | stopped
    *stamps(),
    natural_key=("name",),
    id_prefix="med",
)

medication_logs = table(
    "medication_logs",
    USER,
    Column("log_id", Text, primary_key=True),
    Column("medication_id", Text, nullable=False),
    Column("slot_time", Text, nullable=False),  # the scheduled dose, YYYY-MM-DDTHH:MM
    Column("status", Text, nullable=False),  # taken | skipped
    Column("at", Text, nullable=False),
    *stamps(),
    natural_key=("medication_id", "slot_time"),
    id_prefix="dose",
)

world_doctors = table(
    "world_doctors",
    WORLD,
    Column("doctor_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("specialty", Text, nullable=False),
    Column("clinic_place_id", Text, nullable=False),
    Column("insurance_json", Text, nullable=False),
    Column("languages_json", Text, nullable=False),
    Column("telehealth", Integer, nullable=False),
    Column("rating", Float, nullable=False),
    Column("fee", Float, nullable=False),  # per visit, in the user's currency
    natural_key=("name",),
)

world_doctor_slots = table(
    "world_doctor_slots",
    WORLD,
    Column("slot_id", Integer, primary_key=True),
    Column("doctor_id", Text, nullable=False),
    Column("slot_dt", Text, nullable=False),  # start of a 30-minute visit
    Column("available", Integer, nullable=False),
    natural_key=("doctor_id", "slot_dt"),
)

medical_appointments = table(
    "medical_appointments",
    USER,
    Column("appointment_id", Text, primary_key=True),
    Column("doctor_id", Text, nullable=False),
    Column("slot", Text, nullable=False),
    Column("reason", Text),
    Column("patient", Text, nullable=False),  # "self" or a contact id
    Column("telehealth", Integer, nullable=False),
    Column("status", Text, nullable=False),  # booked | cancelled | completed
    Column("cancel_reason", Text),
    Column("cancel_fee", Float),
    *stamps(),
    natural_key=("doctor_id", "slot"),
    id_prefix="appt",
)

body_metrics = table(
    "body_metrics",
    USER,
    Column("metric_id", Text, primary_key=True),
    Column("metric", Text, nullable=False),
    Column("value", Text, nullable=False),  # a number, or systolic/diastolic for blood pressure
    Column("unit", Text, nullable=False),
    Column("measured_at", Text, nullable=False),
    *stamps(),
    natural_key=("metric", "measured_at"),
)

DT_FMT = "%Y-%m-%dT%H:%M"
APP = "health"
WorkoutType = Literal["run", "walk", "cycle", "swim", "yoga", "strength", "hiit", "hike"]
Meal = Literal["breakfast", "lunch", "dinner", "snack"]
GoalMetric = Literal["steps", "active_minutes", "calories", "sleep_hours", "weight_kg", "water_ml"]
SummaryMetric = Literal["steps", "distance", "calories", "active_minutes", "sleep", "heart_rate"]
BodyMetric = Literal["weight", "blood_pressure", "heart_rate", "glucose", "temperature", "spo2"]
Unit = Literal["kg", "lb", "mmHg", "bpm", "mmol/L", "mg/dL", "C", "F", "%"]
Note = Annotated[str, Field(min_length=1, max_length=300)]
PACE_KMH = {"run": 9.5, "walk": 5.0, "cycle": 18.0, "swim": 2.4, "hike": 4.0}  # types that cover a distance
KCAL_PER_MIN = {
    "run": 11.0,
    "walk": 4.5,
    "cycle": 8.0,
    "swim": 9.0,
    "yoga": 3.5,
    "strength": 6.0,
    "hiit": 12.0,
    "hike": 6.5,
}
GOAL_RANGES = {
    "steps": (100, 100000),
    "active_minutes": (1, 1440),
    "calories": (100, 20000),
    "sleep_hours": (1, 16),
    "weight_kg": (20, 300),
    "water_ml": (100, 10000),
}
UNITS = {
    "weight": ("kg", "lb"),
    "blood_pressure": ("mmHg",),
    "heart_rate": ("bpm",),
    "glucose": ("mmol/L", "mg/dL"),
    "temperature": ("C", "F"),
    "spo2": ("%",),
}
PLAUSIBLE = {
    ("weight", "kg"): (2, 400),
    ("weight", "lb"): (4, 880),
    ("heart_rate", "bpm"): (20, 250),
    ("glucose", "mmol/L"): (1, 40),
    ("glucose", "mg/dL"): (18, 720),
    ("temperature", "C"): (30, 45),
    ("temperature", "F"): (86, 113),
    ("spo2", "%"): (50, 100),
}
BLOOD_PRESSURE = re.compile(r"^\s*(\d{2,3})\s*/\s*(\d{2,3})\s*$")
MEDICATION_LIST = "Medications"
VISIT_MIN = 30
LATE_CANCEL_HOURS = 24
SUMMARY_MAX_DAYS = 31


class MealItem(TypedDict):
    """One food of a logged meal."""

    __pydantic_config__ = ConfigDict(extra="forbid", strict=True)  # type: ignore[misc]
    name: Annotated[str, Field(min_length=1, max_length=80, pattern=r"\S", description="What was eaten.")]
    quantity: NotRequired[
        Annotated[str, Field(min_length=1, max_length=40, description='How much, e.g. "1 bowl".')] | None
    ]
    calories: NotRequired[Annotated[int, Field(ge=0, le=5000, description="Calories of this item.")] | None]
