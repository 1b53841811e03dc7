"""The health domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import Table, bindparam, func, insert, select, update

from sandbox.domains.common import km_between, locate, world_places
from sandbox.domains.communication.schema import contacts
from sandbox.domains.health.schema import (
    APP,
    BLOOD_PRESSURE,
    DT_FMT,
    GOAL_RANGES,
    KCAL_PER_MIN,
    LATE_CANCEL_HOURS,
    MEDICATION_LIST,
    PACE_KMH,
    PLAUSIBLE,
    SUMMARY_MAX_DAYS,
    UNITS,
    VISIT_MIN,
    BodyMetric,
    GoalMetric,
    Meal,
    MealItem,
    Note,
    SummaryMetric,
    Unit,
    WorkoutType,
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
from sandbox.domains.productivity.schema import calendar_events, tasks
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, row_by_key, rows
from sandbox.tooling import Date, DateTime, Time, WrongType, tool

# ---- shared helpers ---------------------------------------------------------------------------


def _minute(ctx: Ctx) -> str:
    return ctx.now.strftime(DT_FMT)


def _today(ctx: Ctx) -> str:
    return ctx.now.date().isoformat()


def _at(stamp: str) -> dt.datetime:
    return dt.datetime.strptime(stamp, DT_FMT)


def _shift(stamp: str, minutes: int) -> str:
    return (_at(stamp) + dt.timedelta(minutes=minutes)).strftime(DT_FMT)


def _not_future(ctx: Ctx, stamp: str, field: str) -> None:
    """Logs record what already happened: a time after now is a wrong argument."""
    if stamp > (_minute(ctx) if "T" in stamp else _today(ctx)):
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, f"{field} {stamp} is in the future", field=field)


def _get(ctx: Ctx, tbl: Table, value: str, hint: str | None = None) -> dict[str, Any]:
    """The row with this id, or EntityNotFound (naming the tool that lists such ids)."""
    key = next(iter(tbl.primary_key.columns)).name
    row = ctx.conn.execute(row_by_key(tbl), {"key": value}).first()
    if row is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no {key.removesuffix('_id')} {value!r}",
            field=key,
            **({"hint": hint} if hint else {}),
        )
    return dict(row._mapping)


_GOALS = select(health_goals).order_by(health_goals.c.metric)


def _goal_targets(ctx: Ctx) -> dict[str, dict[str, Any]]:
    return {g["metric"]: {"target": g["target"], "period": g["period"]} for g in rows(ctx.conn.execute(_GOALS))}


# ---- Workout Tracking (9.1) -------------------------------------------------------------------

W = workouts.c


def _estimate(kind: str, minutes: int) -> tuple[float | None, int]:
    """Distance (for distance sports) and calories of a workout of this length."""
    distance = round(PACE_KMH[kind] * minutes / 60, 2) if kind in PACE_KMH else None
    return distance, round(KCAL_PER_MIN[kind] * minutes)


def _workout_out(w: dict[str, Any]) -> dict[str, Any]:
    keep = (
        "workout_id",
        "type",
        "status",
        "started_at",
        "ended_at",
        "duration_min",
        "distance_km",
        "calories",
        "source",
    )
    return {k: w[k] for k in keep}


_ACTIVE_WORKOUT = select(W.workout_id, W.type).where(W.status == "active")
_ADD_WORKOUT = insert(workouts)


@tool(
    l2="9.1",
    app=APP,
    mutating=True,
    permissions=("ACTIVITY", "LOCATION"),
    services=("location_service",),
    errors=(ErrorType.STATE_CONFLICT,),
)
def start_workout(
    ctx: Ctx,
    type: WorkoutType,
    goal_distance_km: Annotated[float, Field(gt=0, le=300)] | None = None,
    goal_duration_min: Annotated[int, Field(ge=1, le=600)] | None = None,
    goal_calories: Annotated[int, Field(ge=1, le=10000)] | None = None,
) -> dict[str, Any]:
    """Start tracking a workout now (only one workout can be tracked at a time).

    Args:
        type: Kind of workout.
        goal_distance_km: Distance to aim for, in km.
        goal_duration_min: Duration to aim for, in minutes.
        goal_calories: Calories to aim for.
    """
    active = ctx.conn.execute(_ACTIVE_WORKOUT).first()
    if active:
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"a {active.type} workout is already being tracked: {active.workout_id}",
            active_workout_id=active.workout_id,
            hint="end_workout",
        )
    goals = {
        k: v
        for k, v in {
            "distance_km": goal_distance_km,
            "duration_min": goal_duration_min,
            "calories": goal_calories,
        }.items()
        if v is not None
    }
    wid = ctx.new_id(workouts)
    started = ctx.ts()[:16]
    ctx.conn.execute(
        _ADD_WORKOUT,
        {
            "workout_id": wid,
            "type": type,
            "status": "active",
            "started_at": started,
            "source": "tracked",
            "goals_json": json.dumps(goals) if goals else None,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {"workout_id": wid, "type": type, "status": "active", "started_at": started, "goals": goals}


_SET_WORKOUT = update(workouts).where(W.workout_id == bindparam("match_workout_id"))


@tool(
    l2="9.1",
    app=APP,
    mutating=True,
    permissions=("ACTIVITY",),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT),
)
def end_workout(ctx: Ctx, workout_id: str, discard: bool = False) -> dict[str, Any]:
    """Stop the workout being tracked and save its summary (or discard it).

    Args:
        workout_id: Id of the active workout, e.g. workout_945.
        discard: Throw the recording away instead of saving it.
    """
    w = _get(ctx, workouts, workout_id)
    if w["status"] != "active":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{workout_id} is not being tracked (it is {w['status']})")
    ended = ctx.ts()[:16]
    minutes = max(1, int((_at(ended) - _at(w["started_at"])).total_seconds() // 60))
    distance, calories = _estimate(w["type"], minutes)
    after = (
        {"status": "discarded", "ended_at": ended}
        if discard
        else {
            "status": "completed",
            "ended_at": ended,
            "duration_min": minutes,
            "distance_km": distance,
            "calories": calories,
        }
    )
    ctx.conn.execute(_SET_WORKOUT, {"match_workout_id": workout_id, **after, "updated_at": ctx.ts()})
    out = _workout_out({**w, **after})
    if not discard:
        done = {"distance_km": distance, "duration_min": minutes, "calories": calories}
        out["goals"] = {
            k: {"target": v, "achieved": (done[k] or 0) >= v} for k, v in json.loads(w["goals_json"] or "{}").items()
        }
    return out


def _distance_fits(args: dict[str, Any]) -> str | None:
    """distance_km is only for type run, walk, cycle, swim or hike."""
    if args.get("distance_km") is not None and args["type"] not in PACE_KMH:
        return f"distance_km applies to {', '.join(PACE_KMH)} only"
    return None


_SAME_WORKOUT = select(W.workout_id).where(
    W.type == bindparam("type"), W.started_at == bindparam("started_at"), W.status != "discarded"
)


@tool(
    l2="9.1",
    app=APP,
    mutating=True,
    permissions=("ACTIVITY",),
    check=_distance_fits,
    errors=(ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.DUPLICATE_ENTITY),
)
def log_workout(
    ctx: Ctx,
    type: WorkoutType,
    date: Date,
    duration_min: Annotated[int, Field(ge=1, le=600)],
    distance_km: Annotated[float, Field(gt=0, le=300)] | None = None,
    calories: Annotated[int, Field(ge=1, le=10000)] | None = None,
    start_time: Time | None = None,
    notes: Note | None = None,
) -> dict[str, Any]:
    """Record a workout that was done without tracking (calories are estimated when not given).

    Args:
        type: Kind of workout.
        date: Day of the workout, YYYY-MM-DD (not in the future).
        duration_min: How long it lasted, in minutes.
        distance_km: Distance covered, in km (distance sports only).
        calories: Calories burned.
        start_time: When it started, HH:MM.
        notes: Notes about the workout.
    """
    started = f"{date}T{start_time}" if start_time else date
    _not_future(ctx, started, "start_time" if start_time else "date")
    twin = ctx.conn.execute(_SAME_WORKOUT, {"type": type, "started_at": started}).scalar()
    if twin:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"this {type} is already logged: {twin}", existing_id=twin)
    row = {
        "workout_id": ctx.new_id(workouts),
        "type": type,
        "status": "completed",
        "started_at": started,
        "ended_at": _shift(started, duration_min) if start_time else None,
        "duration_min": duration_min,
        "distance_km": distance_km,
        "calories": calories or _estimate(type, duration_min)[1],
        "source": "manual",
    }
    ctx.conn.execute(_ADD_WORKOUT, {**row, "notes": notes, "created_at": ctx.ts(), "updated_at": ctx.ts()})
    return _workout_out(row)


# ---- Daily Activity & Sleep (9.2) -------------------------------------------------------------


def _summary_window(args: dict[str, Any]) -> str | None:
    """date_to needs date (the first day), is not before it, and the summary spans under 31 days."""
    if "date_to" not in args:
        return None
    if "date" not in args:
        return "date_to needs date (the first day)"
    days = (dt.date.fromisoformat(args["date_to"]) - dt.date.fromisoformat(args["date"])).days
    if days < 0:
        return "date_to is before date"
    return None if days < SUMMARY_MAX_DAYS else f"a summary spans at most {SUMMARY_MAX_DAYS} days"


_ACTIVITY_DAYS = select(activity_daily).where(
    activity_daily.c.date >= bindparam("first"), activity_daily.c.date <= bindparam("last")
)
_SLEEP_NIGHTS = select(sleep_sessions).where(
    sleep_sessions.c.date >= bindparam("first"), sleep_sessions.c.date <= bindparam("last")
)
_COMPLETED_WORKOUTS = (
    select(workouts)
    .where(W.status == "completed", W.started_at >= bindparam("first"), W.started_at < bindparam("before"))
    .order_by(W.started_at)
)


@tool(l2="9.2", app=APP, mutating=False, permissions=("ACTIVITY",), check=_summary_window)
def get_activity_summary(
    ctx: Ctx,
    date: Date | None = None,
    date_to: Date | None = None,
    metrics: Annotated[list[SummaryMetric], Field(min_length=1, max_length=6)] | None = None,
) -> dict[str, Any]:
    """Daily steps, distance, calories, active minutes, sleep and resting heart rate, with workouts and goals.

    Args:
        date: The day, or the first day of a range, YYYY-MM-DD (default today).
        date_to: Last day of the range (at most 31 days), YYYY-MM-DD.
        metrics: Which measures to include (default all).
    """
    first = date or _today(ctx)
    last = date_to or first
    wanted = set(metrics or ("steps", "distance", "calories", "active_minutes", "sleep", "heart_rate"))
    window = {"first": first, "last": last}
    activity = {r["date"]: r for r in rows(ctx.conn.execute(_ACTIVITY_DAYS, window))}
    sleep = {r["date"]: r for r in rows(ctx.conn.execute(_SLEEP_NIGHTS, window))}
    fields = {
        "steps": ("steps",),
        "distance": ("distance_km",),
        "calories": ("calories",),
        "active_minutes": ("active_minutes",),
        "heart_rate": ("resting_hr",),
    }
    days = []
    for day in sorted(set(activity) | set(sleep)):
        entry: dict[str, Any] = {"date": day}
        for metric, columns in fields.items():
            if metric in wanted and day in activity:
                entry.update({c: activity[day][c] for c in columns})
        if "sleep" in wanted and day in sleep:
            night = sleep[day]
            entry.update(
                sleep_hours=night["hours"],
                sleep_quality=night["quality"],
                bedtime=night["start"],
                wake_time=night["end"],
            )
        days.append(entry)
    totals = {
        c: round(sum(d.get(c, 0) for d in days), 2)
        for c in ("steps", "distance_km", "calories", "active_minutes")
        if any(c in d for d in days)
    }
    averages = {
        c: round(sum(d[c] for d in days if c in d) / n, 1)
        for c in ("sleep_hours", "resting_hr")
        if (n := sum(c in d for d in days))
    }
    done = rows(ctx.conn.execute(_COMPLETED_WORKOUTS, {"first": first, "before": f"{last}T99"}))
    return {
        "date": first,
        "date_to": last,
        "days": days,
        "totals": totals,
        "averages": averages,
        "workouts": [_workout_out(w) for w in done],
        "goals": _goal_targets(ctx),
    }


def _goal_in_range(args: dict[str, Any]) -> str | None:
    """target fits the metric: steps 100-100000, active_minutes 1-1440, calories 100-20000, sleep_hours 1-16,
    weight_kg 20-300, water_ml 100-10000 (weekly goals other than weight_kg: up to seven times as much)."""
    lo, hi = GOAL_RANGES[args["metric"]]
    if args.get("period") == "weekly" and args["metric"] != "weight_kg":
        lo, hi = lo, hi * 7
    return None if lo <= args["target"] <= hi else f"a {args['metric']} target must be between {lo} and {hi}"


_SET_GOAL = update(health_goals).where(health_goals.c.metric == bindparam("match_metric"))
_ADD_GOAL = insert(health_goals)


@tool(l2="9.2", app=APP, mutating=True, check=_goal_in_range)
def set_fitness_goal(
    ctx: Ctx,
    metric: GoalMetric,
    target: Annotated[float, Field(gt=0)],
    period: Literal["daily", "weekly"] = "daily",
) -> dict[str, Any]:
    """Set the daily or weekly target for a fitness metric, replacing the previous one.

    Args:
        metric: What the goal is about.
        target: The target value (steps, minutes, kcal, hours, kg or ml).
        period: Whether the target is per day or per week.
    """
    previous = _goal_targets(ctx).get(metric)
    changed = previous != {"target": target, "period": period}
    if previous and changed:
        ctx.conn.execute(
            _SET_GOAL, {"match_metric": metric, "target": target, "period": period, "updated_at": ctx.ts()}
        )
    elif not previous:
        ctx.conn.execute(
            _ADD_GOAL,
            {"metric": metric, "target": target, "period": period, "created_at": ctx.ts(), "updated_at": ctx.ts()},
        )
    return {"metric": metric, "target": target, "period": period, "previous": previous, "changed": changed}


# ---- Nutrition & Hydration (9.3) --------------------------------------------------------------

_ADD_FOOD_LOG = insert(food_logs)
_DAY_CALORIES = select(func.sum(food_logs.c.calories)).where(food_logs.c.date == bindparam("date"))


@tool(l2="9.3", app=APP, mutating=True, permissions=("HEALTH",), errors=(ErrorType.INVALID_ARGUMENT_VALUE,))
def log_meal(
    ctx: Ctx,
    meal: Meal,
    items: Annotated[list[MealItem], Field(min_length=1, max_length=30)],
    date: Date | None = None,
    time: Time | None = None,
) -> dict[str, Any]:
    """Record food eaten at a meal in the food diary.

    Args:
        meal: Which meal.
        items: What was eaten: [{name, quantity?, calories?}].
        date: Day of the meal, YYYY-MM-DD (default today; not in the future).
        time: Time of the meal, HH:MM.
    """
    day = date or _today(ctx)
    _not_future(ctx, f"{day}T{time}" if time else day, "time" if time else "date")
    known = [i["calories"] for i in items if i.get("calories") is not None]
    calories = sum(known) if known else None  # type: ignore[arg-type]  # the Nones are filtered out
    log_id = ctx.new_id(food_logs)
    clean = [{k: v for k, v in i.items() if v is not None} for i in items]
    ctx.conn.execute(
        _ADD_FOOD_LOG,
        {
            "log_id": log_id,
            "date": day,
            "meal": meal,
            "time": time,
            "items_json": json.dumps(clean, ensure_ascii=False),
            "calories": calories,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    day_total = ctx.conn.execute(_DAY_CALORIES, {"date": day}).scalar()
    return {
        "log_id": log_id,
        "date": day,
        "meal": meal,
        "items": clean,
        "calories": calories,
        "day_calories": day_total,
    }


_ADD_WATER_LOG = insert(water_logs)
_DAY_WATER = select(func.sum(water_logs.c.amount_ml)).where(water_logs.c.at.like(bindparam("day_pattern")))


@tool(l2="9.3", app=APP, mutating=True, permissions=("HEALTH",), errors=(ErrorType.INVALID_ARGUMENT_VALUE,))
def log_water_intake(
    ctx: Ctx,
    amount_ml: Annotated[int, Field(ge=1, le=3000)],
    at: DateTime | None = None,
) -> dict[str, Any]:
    """Record water the user drank.

    Args:
        amount_ml: Amount in millilitres.
        at: When, YYYY-MM-DDTHH:MM (default now; not in the future).
    """
    when = at or _minute(ctx)
    _not_future(ctx, when, "at")
    log_id = ctx.new_id(water_logs)
    ctx.conn.execute(
        _ADD_WATER_LOG,
        {"log_id": log_id, "at": when, "amount_ml": amount_ml, "created_at": ctx.ts(), "updated_at": ctx.ts()},
    )
    total = ctx.conn.execute(_DAY_WATER, {"day_pattern": f"{when[:10]}T%"}).scalar()
    goal = _goal_targets(ctx).get("water_ml")
    return {
        "log_id": log_id,
        "at": when,
        "amount_ml": amount_ml,
        "day_total_ml": total,
        "goal_ml": goal["target"] if goal and goal["period"] == "daily" else None,
    }


# ---- Medication Management (9.4) --------------------------------------------------------------

_MEDICATION = (
    select(medications)
    .where(
        (medications.c.medication_id == bindparam("medication_id"))
        | (func.lower(medications.c.name) == bindparam("name"))
    )
    .order_by((medications.c.status != "active"), medications.c.medication_id.desc())
)
_ACTIVE_MEDICATION_NAMES = select(medications.c.name).where(medications.c.status == "active")


def _medication(ctx: Ctx, ref: str) -> dict[str, Any]:
    """A medication by id, or by name (case-insensitive; the active one first)."""
    row = ctx.conn.execute(_MEDICATION, {"medication_id": ref, "name": ref.strip().lower()}).first()
    if row is None:
        names = sorted(ctx.conn.execute(_ACTIVE_MEDICATION_NAMES).scalars())
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no medication {ref!r}", field="medication_id", candidates=names)
    return dict(row._mapping)


def _course_valid(args: dict[str, Any]) -> str | None:
    """times lists each time once; end_date is not before start_date."""
    if len(set(args["times"])) != len(args["times"]):
        return "times lists the same time twice"
    if args.get("start_date") and args.get("end_date") and args["end_date"] < args["start_date"]:
        return "end_date is before start_date"
    return None


_ACTIVE_MEDICATION_NAMED = select(medications.c.medication_id).where(
    medications.c.status == "active", func.lower(medications.c.name) == bindparam("name")
)
_ADD_MEDICATION = insert(medications)
_ADD_TASK = insert(tasks)


@tool(
    l2="9.4",
    app=APP,
    mutating=True,
    permissions=("HEALTH", "NOTIFICATIONS"),
    check=_course_valid,
    errors=(ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.DUPLICATE_ENTITY),
)
def add_medication(
    ctx: Ctx,
    name: Annotated[str, Field(min_length=1, max_length=80, pattern=r"\S")],
    dosage: Annotated[str, Field(min_length=1, max_length=60, pattern=r"\S")],
    times: Annotated[list[Time], Field(min_length=1, max_length=8)],
    start_date: Date | None = None,
    end_date: Date | None = None,
    with_food: bool = False,
    refill_reminder_days: Annotated[int, Field(ge=1, le=365)] | None = None,
) -> dict[str, Any]:
    """Add a daily medication schedule; a reminder task is created for each dose time.

    Args:
        name: Name of the medicine, e.g. "Metformin".
        dosage: Amount per dose, e.g. "500 mg" or "1 tablet".
        times: Daily dose times, HH:MM, e.g. ["08:00", "20:00"].
        start_date: First day, YYYY-MM-DD (default today).
        end_date: Last day, YYYY-MM-DD (default: no end).
        with_food: Take it with food.
        refill_reminder_days: Remind the user to refill this many days after the start.
    """
    start = start_date or _today(ctx)
    if end_date and end_date < max(start, _today(ctx)):
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE, f"the course would already be over ({end_date})", field="end_date"
        )
    twin = ctx.conn.execute(_ACTIVE_MEDICATION_NAMED, {"name": name.lower()}).scalar()
    if twin:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY, f"{name} is already on the medication list: {twin}", existing_id=twin
        )
    med_id = ctx.new_id(medications)
    doses = sorted(times)
    ctx.conn.execute(
        _ADD_MEDICATION,
        {
            "medication_id": med_id,
            "name": name,
            "dosage": dosage,
            "times_json": json.dumps(doses),
            "start_date": start,
            "end_date": end_date,
            "with_food": int(with_food),
            "refill_reminder_days": refill_reminder_days,
            "status": "active",
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    first_day = max(start, _today(ctx))
    food = " with food" if with_food else ""
    until = f" until {end_date}" if end_date else ""
    reminders: list[tuple[str, str, str | None]] = []
    for t in doses:
        due = f"{first_day}T{t}"
        due = due if due > _minute(ctx) else _shift(due, 24 * 60)
        if not end_date or due[:10] <= end_date:
            reminders.append((f"Take {name} ({dosage})", due, f"Daily at {t}{food}{until}"))
    if refill_reminder_days:
        refill = f"{dt.date.fromisoformat(start) + dt.timedelta(days=refill_reminder_days)}T{doses[0]}"
        if refill > _minute(ctx):
            reminders.append((f"Refill {name}", refill, None))
    task_ids = []
    for title, due, note in reminders:
        task_ids.append(ctx.new_id(tasks))
        ctx.conn.execute(
            _ADD_TASK,
            {
                "task_id": task_ids[-1],
                "title": title,
                "list_name": MEDICATION_LIST,
                "due": None,
                "priority": "high",
                "status": "open",
                "notes": note,
                "remind_at": due,
                "completed_at": None,
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            },
        )
    return {
        "medication_id": med_id,
        "name": name,
        "dosage": dosage,
        "times": doses,
        "start_date": start,
        "end_date": end_date,
        "with_food": with_food,
        "reminder_task_ids": task_ids,
    }


_DOSE_LOG = select(medication_logs.c.log_id, medication_logs.c.status).where(
    medication_logs.c.medication_id == bindparam("medication_id"), medication_logs.c.slot_time == bindparam("slot_time")
)
_ADD_DOSE_LOG = insert(medication_logs)


@tool(
    l2="9.4",
    app=APP,
    mutating=True,
    permissions=("HEALTH",),
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.STATE_CONFLICT,
        ErrorType.DUPLICATE_ENTITY,
    ),
)
def log_medication_taken(
    ctx: Ctx,
    medication_id: str,
    status: Literal["taken", "skipped"],
    at: DateTime | None = None,
) -> dict[str, Any]:
    """Record that a scheduled dose was taken or skipped (the dose time nearest to ``at`` that day).

    Args:
        medication_id: Id of the medication (e.g. med_902) or its name.
        status: Whether the dose was taken or skipped.
        at: When, YYYY-MM-DDTHH:MM (default now; not in the future).
    """
    med = _medication(ctx, medication_id)
    when = at or _minute(ctx)
    _not_future(ctx, when, "at")
    day = when[:10]
    if med["status"] != "active" or day < med["start_date"] or (med["end_date"] and day > med["end_date"]):
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"{med['name']} is not scheduled on {day} "
            f"({med['status']}, {med['start_date']} to {med['end_date'] or 'no end'})",
        )
    slot = min(
        (f"{day}T{t}" for t in json.loads(med["times_json"])),
        key=lambda s: (abs((_at(s) - _at(when)).total_seconds()), s),
    )
    logged = ctx.conn.execute(_DOSE_LOG, {"medication_id": med["medication_id"], "slot_time": slot}).first()
    if logged:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"the {slot[11:]} dose of {day} is already logged as {logged.status}: {logged.log_id}",
            existing_id=logged.log_id,
        )
    log_id = ctx.new_id(medication_logs)
    medication_id = med["medication_id"]
    ctx.conn.execute(
        _ADD_DOSE_LOG,
        {
            "log_id": log_id,
            "medication_id": medication_id,
            "slot_time": slot,
            "status": status,
            "at": when,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    return {
        "log_id": log_id,
        "medication_id": medication_id,
        "name": med["name"],
        "dosage": med["dosage"],
        "slot_time": slot,
        "status": status,
        "at": when,
    }


# ---- Doctor Appointments (9.5) ----------------------------------------------------------------

D, DS = world_doctors.c, world_doctor_slots.c
DOCTORS = select(
    world_doctors,
    world_places.c.name.label("clinic"),
    world_places.c.address,
    world_places.c.city,
    world_places.c.lat,
    world_places.c.lon,
).join(world_places, world_places.c.place_id == D.clinic_place_id)
_DOCTOR = DOCTORS.where(D.doctor_id == bindparam("doctor_id"))


def _doctor(ctx: Ctx, doctor_id: str) -> dict[str, Any]:
    row = ctx.conn.execute(_DOCTOR, {"doctor_id": doctor_id}).first()
    if row is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no doctor {doctor_id!r}", field="doctor_id", hint="search_doctors"
        )
    return dict(row._mapping)


_FREE_SLOTS = (
    select(DS.slot_dt)
    .where(DS.doctor_id == bindparam("doctor_id"), DS.available == 1, DS.slot_dt > bindparam("after"))
    .order_by(DS.slot_dt)
    .limit(bindparam("limit"))
)
_FREE_SLOTS_ON_DAY = _FREE_SLOTS.where(DS.slot_dt.like(bindparam("day_pattern")))  # the WHERE gains the day


def _free_slots(ctx: Ctx, doctor_id: str, day: str | None, limit: int = 6) -> list[str]:
    values = {"doctor_id": doctor_id, "after": _minute(ctx), "limit": limit}
    if day:
        return list(ctx.conn.execute(_FREE_SLOTS_ON_DAY, {**values, "day_pattern": f"{day}T%"}).scalars())
    return list(ctx.conn.execute(_FREE_SLOTS, values).scalars())


def _doctor_out(d: dict[str, Any]) -> dict[str, Any]:
    return {
        "doctor_id": d["doctor_id"],
        "name": d["name"],
        "specialty": d["specialty"],
        "clinic": d["clinic"],
        "address": d["address"],
        "city": d["city"],
        "rating": d["rating"],
        "fee": d["fee"],
        "telehealth": bool(d["telehealth"]),
        "languages": json.loads(d["languages_json"]),
        "insurance": json.loads(d["insurance_json"]),
    }


_MY_UPCOMING_VISITS = (
    select(medical_appointments.c.appointment_id, medical_appointments.c.doctor_id, medical_appointments.c.slot)
    .where(medical_appointments.c.status == "booked", medical_appointments.c.slot > bindparam("after"))
    .order_by(medical_appointments.c.slot)
)


@tool(
    l2="9.5",
    app=APP,
    mutating=False,
    permissions=("LOCATION",),
    services=("location_service",),
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.AMBIGUOUS_ENTITY),
)
def search_doctors(
    ctx: Ctx,
    specialty: Annotated[str, Field(min_length=2, max_length=60)],
    near: Annotated[str, Field(min_length=1, max_length=200)] | None = None,
    date: Date | None = None,
    insurance: Annotated[str, Field(min_length=1, max_length=60)] | None = None,
    language: Annotated[str, Field(min_length=1, max_length=40)] | None = None,
    telehealth: bool | None = None,
    limit: Annotated[int, Field(ge=1, le=20)] = 10,
) -> dict[str, Any]:
    """Find doctors of a specialty who have free appointment slots, with their next free times.

    Args:
        specialty: Specialty, e.g. "dermatology", "dentistry", "general practice".
        near: Where: a place id, "home", "work", "current", a city, or a place name; results are in that
            city, nearest first.
        date: Only doctors with a free slot on this day, YYYY-MM-DD.
        insurance: Insurance the doctor must accept.
        language: Language the doctor must speak.
        telehealth: true for doctors who offer video visits.
        limit: Maximum number of doctors.
    """
    origin = locate(ctx, near) if near else None
    q = DOCTORS.where(func.lower(D.specialty).contains(specialty.lower(), autoescape=True))
    if origin:
        q = q.where(world_places.c.city == origin["city"])
    if telehealth is not None:
        q = q.where(D.telehealth == int(telehealth))
    mine: dict[str, list[dict[str, str]]] = {}
    for appt_id, doctor_id, slot in ctx.conn.execute(_MY_UPCOMING_VISITS, {"after": _minute(ctx)}):
        mine.setdefault(doctor_id, []).append({"appointment_id": appt_id, "slot": slot})
    found = []
    for d in rows(ctx.conn.execute(q.order_by(D.rating.desc(), D.doctor_id))):
        if insurance and insurance.lower() not in [i.lower() for i in json.loads(d["insurance_json"])]:
            continue
        if language and language.lower() not in [x.lower() for x in json.loads(d["languages_json"])]:
            continue
        free = _free_slots(ctx, d["doctor_id"], date)
        if not free:
            continue
        item = {**_doctor_out(d), "free_slots": free, "my_upcoming_appointments": mine.get(d["doctor_id"], [])}
        if origin:
            item["distance_km"] = km_between(origin["lat"], origin["lon"], d["lat"], d["lon"])
        found.append(item)
    found.sort(key=lambda d: (d["distance_km"], d["free_slots"][0]) if origin else (d["free_slots"][0], -d["rating"]))
    return {"doctors": found[:limit], "count": min(len(found), limit), "total_matches": len(found)}


_SLOT_AVAILABLE = select(DS.available).where(DS.doctor_id == bindparam("doctor_id"), DS.slot_dt == bindparam("slot_dt"))
_CALENDAR_CLASHES = (
    select(calendar_events.c.event_id, calendar_events.c.title, calendar_events.c.start, calendar_events.c.end)
    .where(
        calendar_events.c.status == "confirmed",
        calendar_events.c.start < bindparam("until"),
        calendar_events.c.end > bindparam("since"),
    )
    .order_by(calendar_events.c.start)
)
_VISIT_CLASHES = select(medical_appointments.c.appointment_id, medical_appointments.c.slot).where(
    medical_appointments.c.status == "booked",
    medical_appointments.c.patient == "self",
    medical_appointments.c.slot > bindparam("after"),
    medical_appointments.c.slot < bindparam("until"),
)
_UPCOMING_VISIT = select(medical_appointments.c.appointment_id).where(
    medical_appointments.c.doctor_id == bindparam("doctor_id"),
    medical_appointments.c.patient == bindparam("patient"),
    medical_appointments.c.status == "booked",
    medical_appointments.c.slot > bindparam("after"),
)
_ADD_APPOINTMENT = insert(medical_appointments)
_SET_DOCTOR_SLOT = update(world_doctor_slots).where(
    DS.doctor_id == bindparam("match_doctor_id"), DS.slot_dt == bindparam("match_slot_dt")
)


@tool(
    l2="9.5",
    app=APP,
    mutating=True,
    network="internet",
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.TIME_CONFLICT,
        ErrorType.DUPLICATE_ENTITY,
    ),
)
def book_doctor_appointment(
    ctx: Ctx,
    doctor_id: str,
    slot: DateTime,
    reason: Note | None = None,
    patient: Annotated[str, Field(min_length=1, max_length=64)] = "self",
    telehealth: bool = False,
) -> dict[str, Any]:
    """Book a 30-minute visit in one of a doctor's free slots, for the user or for a contact.

    Args:
        doctor_id: Id of the doctor, e.g. doctor_907.
        slot: Start of a free slot, YYYY-MM-DDTHH:MM.
        reason: Reason for the visit.
        patient: "self", or the contact id of the person the visit is for.
        telehealth: Make it a video visit.
    """
    doc = _doctor(ctx, doctor_id)
    who = "self"
    if patient != "self":
        who = _get(ctx, contacts, patient, hint="search_contacts")["name"]
    if slot <= _minute(ctx):
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, f"{slot} is not in the future", field="slot")
    if telehealth and not doc["telehealth"]:
        raise ToolError(ErrorType.RESOURCE_UNAVAILABLE, f"{doc['name']} does not offer video visits")
    free = ctx.conn.execute(_SLOT_AVAILABLE, {"doctor_id": doctor_id, "slot_dt": slot}).scalar()
    if free != 1:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"{doc['name']} has no free slot at {slot}",
            free_slots=_free_slots(ctx, doctor_id, None),
            hint="pick one of free_slots",
        )
    end = _shift(slot, VISIT_MIN)
    if patient == "self":
        clashes = rows(ctx.conn.execute(_CALENDAR_CLASHES, {"until": end, "since": slot}))
        visits = ctx.conn.execute(_VISIT_CLASHES, {"after": _shift(slot, -VISIT_MIN), "until": end})
        clashes += [{"appointment_id": a, "start": s} for a, s in visits]
        if clashes:
            raise ToolError(
                ErrorType.TIME_CONFLICT,
                f"{slot} overlaps {len(clashes)} commitment(s)",
                conflicts=clashes,
                free_slots=_free_slots(ctx, doctor_id, None),
            )
    twin = ctx.conn.execute(
        _UPCOMING_VISIT, {"doctor_id": doctor_id, "patient": patient, "after": _minute(ctx)}
    ).scalar()
    if twin:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"there is already an upcoming visit with {doc['name']}: {twin}",
            existing_id=twin,
            hint="cancel_doctor_appointment first to move it",
        )
    appt_id = ctx.new_id(medical_appointments)
    ctx.conn.execute(
        _ADD_APPOINTMENT,
        {
            "appointment_id": appt_id,
            "doctor_id": doctor_id,
            "slot": slot,
            "reason": reason,
            "patient": patient,
            "telehealth": int(telehealth),
            "status": "booked",
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    ctx.conn.execute(_SET_DOCTOR_SLOT, {"match_doctor_id": doctor_id, "match_slot_dt": slot, "available": 0})
    return {
        "appointment_id": appt_id,
        "doctor_id": doctor_id,
        "doctor": doc["name"],
        "specialty": doc["specialty"],
        "clinic": doc["clinic"],
        "address": doc["address"],
        "slot": slot,
        "end": end,
        "telehealth": telehealth,
        "patient": patient,
        "patient_name": who if patient != "self" else None,
        "fee": doc["fee"],
    }


_SET_APPOINTMENT = update(medical_appointments).where(
    medical_appointments.c.appointment_id == bindparam("match_appointment_id")
)


@tool(
    l2="9.5",
    app=APP,
    mutating=True,
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.CONFIRMATION_REQUIRED),
)
def cancel_doctor_appointment(
    ctx: Ctx,
    appointment_id: str,
    reason: Note | None = None,
    confirm: bool = False,
) -> dict[str, Any]:
    """Cancel an upcoming doctor appointment; within 24 hours of the visit a fee applies and needs confirm=true.

    Args:
        appointment_id: Id of the appointment, e.g. appt_904.
        reason: Why it is cancelled.
        confirm: Set true, after the user agreed, to cancel late and pay the late-cancellation fee.
    """
    appt = _get(ctx, medical_appointments, appointment_id)
    if appt["status"] != "booked":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{appointment_id} is {appt['status']}")
    if appt["slot"] <= _minute(ctx):
        raise ToolError(ErrorType.STATE_CONFLICT, f"{appointment_id} was at {appt['slot']}, already past")
    doc = _doctor(ctx, appt["doctor_id"])
    late = _at(appt["slot"]) - ctx.now < dt.timedelta(hours=LATE_CANCEL_HOURS)
    fee = round(doc["fee"] / 2, 2) if late else 0.0
    if late and not confirm:
        raise ToolError(
            ErrorType.CONFIRMATION_REQUIRED,
            f"the visit is within {LATE_CANCEL_HOURS} hours: cancelling costs a fee of {fee:.2f}",
            fee=fee,
            hint="ask the user, then pass confirm=true",
        )
    ctx.conn.execute(
        _SET_APPOINTMENT,
        {
            "match_appointment_id": appointment_id,
            "status": "cancelled",
            "cancel_reason": reason,
            "cancel_fee": fee,
            "updated_at": ctx.ts(),
        },
    )
    ctx.conn.execute(
        _SET_DOCTOR_SLOT, {"match_doctor_id": appt["doctor_id"], "match_slot_dt": appt["slot"], "available": 1}
    )
    return {
        "appointment_id": appointment_id,
        "doctor": doc["name"],
        "slot": appt["slot"],
        "status": "cancelled",
        "fee": fee,
    }


# ---- Body Metrics & Health Records (9.6) ------------------------------------------------------


def _metric_valid(args: dict[str, Any]) -> str | WrongType | None:
    """value is blood pressure as the text systolic/diastolic ("120/80") for metric=blood_pressure, otherwise a
    plausible JSON number (72.5, not "72.5"); unit fits the metric (weight kg or lb, glucose mmol/L or mg/dL,
    temperature C or F)."""
    metric, value = args["metric"], args["value"]
    unit = args.get("unit") or UNITS[metric][0]
    if unit not in UNITS[metric]:
        return f"unit {unit} does not fit {metric}; use {' or '.join(UNITS[metric])}"
    if metric == "blood_pressure":
        if not isinstance(value, str):
            return WrongType("value", f'blood pressure is the text systolic/diastolic ("120/80"), not {value!r}')
        m = BLOOD_PRESSURE.match(value)
        if m is None:
            return "blood pressure must look like 120/80 (systolic/diastolic)"
        high, low = int(m.group(1)), int(m.group(2))
        return None if 50 <= high <= 260 and 30 <= low <= 160 and high > low else f"{high}/{low} is not plausible"
    if isinstance(value, str):
        return WrongType("value", f"{metric} is a number (e.g. 72.5), not the text {value!r}")
    lo, hi = PLAUSIBLE[(metric, unit)]
    return None if lo <= value <= hi else f"{metric} must be between {lo} and {hi} {unit}"


def _canonical(value: str | float) -> str:
    """The stored spelling: blood pressure (the only text the check lets through) as 120/80, a number as %g."""
    if isinstance(value, str):
        m = BLOOD_PRESSURE.match(value)
        assert m is not None  # the check already enforced the format
        return f"{int(m.group(1))}/{int(m.group(2))}"
    return f"{value:g}"


_LAST_READING = (
    select(body_metrics.c.value, body_metrics.c.unit, body_metrics.c.measured_at)
    .where(body_metrics.c.metric == bindparam("metric"), body_metrics.c.measured_at <= bindparam("until"))
    .order_by(body_metrics.c.measured_at.desc(), body_metrics.c.metric_id.desc())
)
_ADD_BODY_METRIC = insert(body_metrics)


@tool(
    l2="9.6",
    app=APP,
    mutating=True,
    permissions=("HEALTH",),
    check=_metric_valid,
    errors=(ErrorType.INVALID_ARGUMENT_VALUE,),
)
def log_body_metric(
    ctx: Ctx,
    metric: BodyMetric,
    value: str | float,
    unit: Unit | None = None,
    measured_at: DateTime | None = None,
) -> dict[str, Any]:
    """Record a body measurement: weight, blood pressure, heart rate, glucose, temperature or SpO2.

    Args:
        metric: What was measured.
        value: The reading: a number, or "120/80" for blood pressure.
        unit: Unit of the reading (default kg, mmHg, bpm, mmol/L, C or %).
        measured_at: When, YYYY-MM-DDTHH:MM (default now; not in the future).
    """
    when = measured_at or _minute(ctx)
    _not_future(ctx, when, "measured_at")
    last = ctx.conn.execute(_LAST_READING, {"metric": metric, "until": when}).first()
    row = {
        "metric_id": ctx.new_id(body_metrics),
        "metric": metric,
        "value": _canonical(value),
        "unit": unit or UNITS[metric][0],
        "measured_at": when,
    }
    ctx.conn.execute(_ADD_BODY_METRIC, {**row, "created_at": ctx.ts(), "updated_at": ctx.ts()})
    return {**row, "previous": dict(last._mapping) if last else None}
