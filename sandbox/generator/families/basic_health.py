"""Basic Tool Use families for Health & Fitness (D9): workouts, activity, nutrition, medication, doctors, metrics."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import peek
from sandbox.generator.families.basic_food import DT, clock, days_ahead, grant, merge, now_minute

WORKOUT_WORDS = {
    "run": "run",
    "walk": "walk",
    "cycle": "bike ride",
    "swim": "swim",
    "yoga": "yoga session",
    "strength": "strength workout",
    "hiit": "HIIT session",
    "hike": "hike",
}
PACE_KMH = {"run": 9.5, "walk": 5.0, "cycle": 18.0, "swim": 2.4, "hike": 4.0}


def ago(g: Gen, days: int) -> str:
    return {0: "today", 1: "yesterday"}.get(days, f"on {g.date(-days)}")


# ---- 9.1 Workout Tracking ----------------------------------------------------------------------


@family("basic", "9.1", pattern="single_call")
def log_past_workout(g: Gen) -> Draft:
    kind = g.pick(sorted(WORKOUT_WORDS))
    back = g.pick((1, 1, 2, 3))
    start = g.pick(("06:15", "06:45", "12:15", "17:45", "18:15", "20:45"))
    minutes = g.pick((20, 25, 35, 45, 50, 65, 80))
    started = f"{g.date(-back)}T{start}"
    if back == 0 and started >= now_minute(g):
        raise BuildError("in the future")
    args: dict[str, Any] = {"type": kind, "date": g.date(-back), "duration_min": minutes, "start_time": start}
    check: dict[str, Any] = {"type": kind, "started_at": started, "duration_min": minutes, "source": "manual"}
    dist = ""
    if kind in PACE_KMH and g.rng.random() < 0.7:
        km = round(PACE_KMH[kind] * minutes / 60 * g.rng.uniform(0.85, 1.1), 1)
        args["distance_km"], check["distance_km"] = km, {"$approx": [km, 0.05]}
        dist = f", {km} km"
    bare = {1: "yesterday"}.get(back, g.date(-back))
    query = g.say(
        "log a {m}-minute {w} I did {day} at {t}{dist}",
        "record my {w} of {bare}: started {t}, {m} minutes{dist}",
        "add a {w} to my workouts for {bare}: {m} min from {t}{dist}",
        m=minutes,
        w=WORKOUT_WORDS[kind],
        day=ago(g, back),
        bare=bare,
        t=clock(start),
        dist=dist,
    )
    return Draft(
        query=query,
        gold=[act("log_workout", **args), done("Logged.")],
        bucket="state_change",
        check={"insert": {"workouts": [check]}},
        patches=grant(g, "health", "ACTIVITY"),
    )


@family("basic", "9.1", pattern="single_call")
def start_tracking_workout(g: Gen) -> Draft:
    kind = g.pick(sorted(WORKOUT_WORDS))
    goal = g.pick(
        ("distance", "duration", "calories", "none") if kind in PACE_KMH else ("duration", "calories", "none")
    )
    args: dict[str, Any] = {"type": kind}
    goals: dict[str, Any] = {}
    text = ""
    if goal == "distance":
        km = g.pick((3, 5, 8, 10, 21) if kind != "swim" else (1, 1.5, 2))
        args["goal_distance_km"], goals["distance_km"], text = km, km, f" with a {km} km goal"
    elif goal == "duration":
        m = g.pick((20, 30, 45, 60, 90))
        args["goal_duration_min"], goals["duration_min"], text = m, m, f", aiming for {m} minutes"
    elif goal == "calories":
        c = g.pick((200, 300, 400, 500))
        args["goal_calories"], goals["calories"], text = c, c, f"; I want to burn {c} calories"
    query = g.say(
        "start tracking a {w}{t}",
        "I'm starting a {w} now{t}",
        "begin recording my {w}{t}",
        w=WORKOUT_WORDS[kind],
        t=text,
    )
    row: dict[str, Any] = {"type": kind, "status": "active", "source": "tracked"}
    if goals:
        row["goals_json"] = {"$json": goals}
    return Draft(
        query=query,
        gold=[act("start_workout", **args), done("Tracking started.")],
        bucket="state_change",
        check={"insert": {"workouts": [row]}},
        patches=grant(g, "health", "ACTIVITY", "LOCATION"),
    )


@family("basic", "9.1", pattern="friction", friction="changed_state")
def start_workout_after_stale_one(g: Gen) -> Draft:
    old = g.pick(("yoga", "strength", "walk", "run", "cycle"))
    new = g.pick([k for k in ("run", "walk", "cycle", "hike", "hiit", "swim") if k != old])
    hours = g.pick((2, 3, 5))
    started = (g.now - dt.timedelta(hours=hours)).strftime(DT)
    stale = {
        "workout_id": "workout_900",
        "type": old,
        "status": "active",
        "started_at": started,
        "source": "tracked",
        "created_at": started + ":00",
        "updated_at": started + ":00",
    }
    query = g.say(
        "start tracking a {w}. If an old session is still recording, stop and save it first.",
        "begin a {w} now; I may have left my earlier workout running, so end and keep that one first",
        "track a {w} for me (save whatever workout is still running from before)",
        w=WORKOUT_WORDS[new],
    )
    saved: dict[str, Any] = {
        "status": "completed",
        "ended_at": {"$absent": False},
        "duration_min": {"$absent": False},
        "calories": {"$absent": False},
    }
    if old in PACE_KMH:
        saved["distance_km"] = {"$absent": False}
    return Draft(
        query=query,
        gold=[
            act("start_workout", type=new),
            act("end_workout", workout_id="workout_900"),
            act("start_workout", type=new),
            done("Saved the old workout and started tracking."),
        ],
        bucket="state_change",
        check={
            "insert": {"workouts": [{"type": new, "status": "active"}]},
            "update": {"workouts": [{"match": {"workout_id": "workout_900"}, "set": saved}]},
        },
        patches=merge({"insert": {"workouts": [stale]}}, grant(g, "health", "ACTIVITY", "LOCATION")),
        recovers=(ErrorType.STATE_CONFLICT,),
    )


# ---- 9.2 Daily Activity & Sleep ----------------------------------------------------------------


@family("basic", "9.2", pattern="single_call")
def activity_lookup(g: Gen) -> Draft:
    kind = g.pick(("steps", "sleep", "week", "calories", "heart"))
    back = g.pick((1, 2, 3, 4, 5))
    patches = grant(g, "health", "ACTIVITY")
    if kind == "week":
        span = g.pick((7, 14))
        first, last = g.date(-span), g.date(-1)
        ask = g.pick(("sleep", "activity", "steps"))
        query = g.say(
            {
                "sleep": "how did I sleep over the last {n} days?",
                "activity": "summarise my activity for the past {n} days",
                "steps": "what were my step totals over the last {n} days?",
            }[ask],
            n=span,
        )
        args: dict[str, Any] = {"date": first, "date_to": last}
        check: dict[str, Any] = {"date": {"$any": [first, g.date(-span + 1)]}, "date_to": {"$any": [last, g.date(0)]}}
        # "the last n days" may end yesterday or today: either window's figure answers
        windows = [
            peek(g, "get_activity_summary", patches, date=a, date_to=b)
            for a, b in ((first, last), (g.date(-span + 1), g.date(0)))
        ]
        if ask == "sleep":
            facts = [
                {"$number": {"value": w["averages"]["sleep_hours"], "tolerance": 0.1}}
                for w in windows
                if "sleep_hours" in w["averages"]
            ]
            said = f"you slept {windows[0]['averages'].get('sleep_hours')} hours a night on average"
        else:
            facts = [{"$number": w["totals"]["steps"]} for w in windows if "steps" in w["totals"]]
            said = f"you walked {windows[0]['totals'].get('steps')} steps in total"
        answer = f"Over the last {span} days {said}."
    else:
        day = g.date(0) if kind == "sleep" else g.date(-back)
        args, check = {"date": day}, {"date": day}
        summary = peek(g, "get_activity_summary", patches, date=day)
        entry: dict[str, Any] = next((d for d in summary["days"] if d["date"] == day), {})
        if kind == "sleep":
            query = g.say(
                "how long did I sleep last night?",
                "how was my sleep last night, {d}?",
                "what time did I fall asleep last night and how many hours did I get?",
                "did I get enough sleep last night?",
                d=g.persona.name.split()[0],
            )
            key = "sleep_hours"
        else:
            what = {
                "steps": "how many steps did I walk",
                "calories": "how many calories did I burn",
                "heart": "what was my resting heart rate",
            }[kind]
            query = g.say(
                "{what} {when}?",
                "quick check: {what} {when}?",
                "from my health data, {what} {when}?",
                what=what,
                when=ago(g, back),
            )
            key = {"steps": "steps", "calories": "calories", "heart": "resting_hr"}[kind]
        if key not in entry:
            raise BuildError(f"no {key} recorded on {day}")
        tolerance = 0.1 if key == "sleep_hours" else 0
        facts = [{"$number": {"value": entry[key], "tolerance": tolerance}}]
        answer = {
            "sleep_hours": "You slept {v} hours",
            "steps": "You walked {v} steps",
            "calories": "You burned {v} calories",
            "resting_hr": "Your resting heart rate was {v} bpm",
        }[key].format(v=entry[key]) + f" on {day}"
        if "fall asleep" in query:
            facts.append({"$time": entry["bedtime"][11:16]})
            answer += f", falling asleep at {entry['bedtime'][11:16]}"
        answer += "."
    if not facts:
        raise BuildError("nothing recorded in the window")
    return Draft(
        query=query,
        gold=[act("get_activity_summary", **args), done(answer)],
        bucket="tool_call",
        check={"calls": [{"tool": "get_activity_summary", "args": check}]},
        patches=patches,
        answer=[{"$any": facts}] if kind == "week" else facts,
    )


GOALS = {
    "steps": ("{v:,} steps", (6000, 7500, 9000, 10000, 12000, 15000)),
    "active_minutes": ("{v} active minutes", (20, 40, 45, 60)),
    "calories": ("{v:,} calories burned", (2200, 2400, 2600, 3000)),
    "sleep_hours": ("{v} hours of sleep", (7, 8, 8.5)),
    "water_ml": ("{v} ml of water", (1500, 2500, 3000)),
}


@family("basic", "9.2", pattern="single_call")
def set_goal(g: Gen) -> Draft:
    metric = g.pick(sorted(GOALS))
    text, values = GOALS[metric]
    current = {r["metric"]: r for r in g.rows("health_goals")}
    v = g.pick([x for x in values if not (metric in current and current[metric]["target"] == x)])
    weekly = metric in ("active_minutes", "steps") and g.rng.random() < 0.3
    if weekly:
        v = v * 5 if metric == "active_minutes" else v * 7
    period = "weekly" if weekly else "daily"
    goal = text.format(v=v)
    query = g.say(
        "set my {p} goal to {goal}",
        "change my {p} target to {goal}",
        "I want to aim for {goal} {per}",
        p=period,
        goal=goal,
        per="a week" if weekly else "a day",
    )
    row = {"target": v, "period": period}
    check = (
        {"update": {"health_goals": [{"match": {"metric": metric}, "set": row}]}}
        if metric in current
        else {"insert": {"health_goals": [{"metric": metric, **row}]}}
    )
    if metric in current and current[metric]["period"] == period:
        check = {"update": {"health_goals": [{"match": {"metric": metric}, "set": {"target": v}}]}}
    return Draft(
        query=query,
        gold=[act("set_fitness_goal", metric=metric, target=v, period=period), done("Set.")],
        bucket="state_change",
        check=check,
    )


# ---- 9.3 Nutrition & Hydration -----------------------------------------------------------------

FOODS = (
    ("a chicken salad", "chicken salad", 450),
    ("an apple", "apple", 95),
    ("a bowl of ramen", "ramen", 620),
    ("two boiled eggs", "egg", 155),
    ("a latte", "latte", 190),
    ("a cheeseburger", "burger", 540),
    ("a bowl of oatmeal", "oatmeal", 250),
    ("a banana", "banana", 105),
    ("a slice of pizza", "pizza", 285),
    ("a protein bar", "protein bar", 210),
    ("a greek yogurt", "yogurt", 130),
    ("a tuna sandwich", "sandwich", 380),
)


def _past_meal(g: Gen) -> tuple[str, int]:
    """A meal that is already over: today's if its time has passed, else yesterday's."""
    hour = g.now.hour
    meal = g.pick(("breakfast", "lunch", "dinner", "snack"))
    done_today = {"breakfast": 9, "lunch": 14, "dinner": 21, "snack": 16}[meal] <= hour
    return meal, 0 if done_today else 1


@family("basic", "9.3", pattern="single_call")
def log_meal_items(g: Gen) -> Draft:
    meal, back = _past_meal(g)
    picks = g.rng.sample(FOODS, g.pick((1, 2)))
    with_kcal = g.rng.random() < 0.6
    spoken = " and ".join(f"{p[0]} ({p[2]} kcal)" if with_kcal else p[0] for p in picks)
    query = g.say(
        "log my {meal} {when}: {s}",
        "for {meal} {when} I had {s}; add it to my food diary",
        "record {s} as {when}'s {meal}",
        meal=meal,
        when=ago(g, back),
        s=spoken,
    )
    items = [{"name": p[1], **({"calories": p[2]} if with_kcal else {})} for p in picks]
    specs = [{"name": {"$contains": p[1].split()[-1]}, **({"calories": p[2]} if with_kcal else {})} for p in picks]
    return Draft(
        query=query,
        gold=[act("log_meal", meal=meal, items=items, date=g.date(-back)), done("Logged.")],
        bucket="state_change",
        check={
            "insert": {"food_logs": [{"meal": meal, "date": g.date(-back), "items_json": {"$json": {"$set": specs}}}]}
        },
        patches=grant(g, "health", "HEALTH"),
    )


@family("basic", "9.3", pattern="single_call")
def log_water(g: Gen) -> Draft:
    amount = g.pick((200, 250, 300, 330, 400, 500, 600, 750, 1000))
    earlier = g.rng.random() < 0.5 and g.now.hour >= 8
    if earlier:
        hm = f"{g.rng.randint(7, g.now.hour - 1 if g.now.hour > 7 else 7):02d}:{g.pick(('00', '30'))}"
        at = f"{g.date(0)}T{hm}"
        if at >= now_minute(g):
            raise BuildError("not earlier")
        query = g.say(
            "log {a} ml of water I drank at {t}",
            "I had {a} ml of water at {t} today, note it",
            "add {a} ml water at {t} to today's intake",
            a=amount,
            t=clock(hm),
        )
        args: dict[str, Any] = {"amount_ml": amount, "at": at}
        row: dict[str, Any] = {"amount_ml": amount, "at": at}
    else:
        query = g.say(
            "I just drank {a} ml of water",
            "log {a} ml of water",
            "track {a} millilitres of water for me",
            "add a {a} ml glass of water to my hydration log",
            a=amount,
        )
        args, row = {"amount_ml": amount}, {"amount_ml": amount}
    return Draft(
        query=query,
        gold=[act("log_water_intake", **args), done("Logged.")],
        bucket="state_change",
        check={"insert": {"water_logs": [row]}},
        patches=grant(g, "health", "HEALTH"),
    )


@family("basic", "9.3", pattern="friction", friction="permission_denied")
def log_water_after_permission(g: Gen) -> Draft:
    amount = g.pick((250, 300, 350, 500, 700, 800))
    cups = g.pick(("", " (two glasses)")) if amount == 500 else ""
    query = g.say(
        "log {a} ml of water{c}",
        "I drank {a} ml of water{c}, please track it",
        "record {a} ml of water for me{c}",
        "put {a} ml into my water log{c}",
        a=amount,
        c=cups,
    )
    return Draft(
        query=query,
        gold=[
            act("log_water_intake", amount_ml=amount),
            act("grant_app_permission", app_id="health", permission="HEALTH"),
            act("log_water_intake", amount_ml=amount),
            done("Logged after allowing Health access."),
        ],
        bucket="state_change",
        check={
            "insert": {"water_logs": [{"amount_ml": amount}]},
            "update": {
                "app_permissions": [
                    {"match": {"app_id": "health", "permission": "HEALTH"}, "set": {"state": "granted"}}
                ]
            },
        },
        patches={
            "update": {
                "app_permissions": [
                    {"match": {"app_id": "health", "permission": "HEALTH"}, "set": {"state": "not_requested"}}
                ]
            }
        },
        recovers=(ErrorType.PERMISSION_DENIED,),
    )


# ---- 9.4 Medication Management -----------------------------------------------------------------

MEDS = (
    ("Metformin", "500 mg", r"500\s*mg"),
    ("Amlodipine", "5 mg", r"5\s*mg"),
    ("Ibuprofen", "400 mg", r"400\s*mg"),
    ("Cetirizine", "10 mg", r"10\s*mg"),
    ("Iron supplement", "1 tablet", r"1\s*tab"),
    ("Magnesium", "250 mg", r"250\s*mg"),
    ("Azithromycin", "250 mg", r"250\s*mg"),
    ("Prednisolone", "20 mg", r"20\s*mg"),
    ("Melatonin", "3 mg", r"3\s*mg"),
    ("Probiotic", "1 capsule", r"1\s*cap"),
)
SCHEDULES = (
    (["08:00"], "every morning at 8"),
    (["21:00"], "every night at 9pm"),
    (["08:00", "20:00"], "twice a day at 8am and 8pm"),
    (["07:00", "13:00", "19:00"], "three times a day at 7am, 1pm and 7pm"),
    (["12:00"], "daily at noon"),
)


@family("basic", "9.4", pattern="single_call")
def add_medication_schedule(g: Gen) -> Draft:
    name, dosage, dose_re = g.pick(MEDS)
    times, spoken = g.pick(SCHEDULES)
    food = g.rng.random() < 0.4
    days = g.pick((None, 5, 7, 10, 14))
    args: dict[str, Any] = {"name": name, "dosage": dosage, "times": times}
    row: dict[str, Any] = {
        "name": name,
        "dosage": {"$regex": dose_re},
        "times_json": {"$json": {"$set": times}},
        "status": "active",
    }
    extra = ""
    if food:
        args["with_food"], row["with_food"], extra = True, 1, " with food"
    if days:
        end = g.date(days - 1)
        args["end_date"], row["end_date"] = end, end
        extra += f" until {end}"
    query = g.say(
        "add {n} {d} {s}{x} to my medications",
        "I've been prescribed {n} {d}, {s}{x}; set it up",
        "remind me to take {n} ({d}) {s}{x}",
        n=name,
        d=dosage,
        s=spoken,
        x=extra,
    )
    reminders = 0
    for t in times:
        due = f"{g.date(0)}T{t}"
        due = due if due > now_minute(g) else f"{g.date(1)}T{t}"
        if not days or due[:10] <= args["end_date"]:
            reminders += 1
    return Draft(
        query=query,
        gold=[act("add_medication", **args), done("Added with reminders.")],
        bucket="state_change",
        check={
            "insert": {
                "medications": [row],
                "tasks": [{"title": {"$contains": name}, "list_name": "Medications"}] * reminders,
            }
        },
        patches=grant(g, "health", "HEALTH", "NOTIFICATIONS"),
    )


@family("basic", "9.4", pattern="lookup_then_act")
def log_dose(g: Gen) -> Draft:
    logged = {(d["medication_id"], d["slot_time"]) for d in g.rows("medication_logs")}
    options = []
    active = g.rows("medications", {"status": "active"})
    names = [m["name"].lower() for m in active]
    for m in (m for m in active if names.count(m["name"].lower()) == 1):
        for back in (0, 1):
            for t in json.loads(m["times_json"]):
                slot = f"{g.date(-back)}T{t}"
                if slot < now_minute(g) and (m["medication_id"], slot) not in logged:
                    options.append((m, back, t))
    if not options:
        raise BuildError("every dose is logged")
    m, back, t = g.pick(options)
    status = g.pick(("taken", "taken", "skipped"))
    when = {0: "today", 1: "yesterday"}[back]
    part = "morning" if t < "12:00" else "evening" if t >= "17:00" else "afternoon"
    if status == "taken":
        query = g.say(
            "I took my {n} {when} {p}, mark it",
            "log my {t} {n} dose {when} as taken",
            "{when} {p}: took the {n}. Please record it",
            n=m["name"],
            when=when,
            p=f"in the {part}" if when == "today" else part,
            t=clock(t),
        )
    else:
        query = g.say(
            "I skipped my {n} {when} {p}; log it as skipped",
            "mark {when}'s {t} {n} dose as skipped",
            "note that I missed the {n} {when} at {t}",
            n=m["name"],
            when=when,
            p=f"in the {part}" if when == "today" else part,
            t=clock(t),
        )
    slot = f"{g.date(-back)}T{t}"
    return Draft(
        query=query,
        # the tool takes the medicine's name as the user says it (the medication list has no read tool)
        gold=[act("log_medication_taken", medication_id=m["name"], status=status, at=slot), done("Logged.")],
        bucket="state_change",
        check={
            "insert": {"medication_logs": [{"medication_id": m["medication_id"], "slot_time": slot, "status": status}]}
        },
        patches=grant(g, "health", "HEALTH"),
    )


# ---- 9.5 Doctor Appointments -------------------------------------------------------------------


def _busy(g: Gen, slot: str) -> bool:
    end = (dt.datetime.strptime(slot, DT) + dt.timedelta(minutes=30)).strftime(DT)
    if any(e["status"] == "confirmed" and e["start"] < end and e["end"] > slot for e in g.rows("calendar_events")):
        return True
    return any(
        a["status"] == "booked"
        and a["patient"] == "self"
        and abs((dt.datetime.strptime(a["slot"], DT) - dt.datetime.strptime(slot, DT)).total_seconds()) < 1800
        for a in g.rows("medical_appointments")
    )


def _doctors(g: Gen) -> list[dict[str, Any]]:
    places = {p["place_id"]: p for p in g.rows("world_places")}
    booked = {a["doctor_id"] for a in g.rows("medical_appointments") if a["status"] == "booked"}
    out = []
    for d in g.rows("world_doctors"):
        p = places[d["clinic_place_id"]]
        if p["city"] == g.persona.home_city and d["doctor_id"] not in booked:
            out.append({**d, "city": p["city"], "clinic": p["name"]})
    return out


def _free(g: Gen, doctor_id: str) -> list[str]:
    return [
        s["slot_dt"]
        for s in g.rows("world_doctor_slots", {"doctor_id": doctor_id, "available": 1})
        if s["slot_dt"] > (g.now + dt.timedelta(hours=30)).strftime(DT)
    ]


# what the user says the visit is for -> what a reason recorded for it mentions
REASONS = {
    "a check-up": "check.?up",
    "a persistent cough": "cough",
    "back pain": "back",
    "a skin rash": "rash",
    "knee pain": "knee",
    "a follow-up": "follow.?up",
    "headaches": "headache",
}
# why the user cancels -> what a cancel reason mentions (or none is recorded)
CANCEL_WHY = {
    "I'm travelling": "travel|trip|away",
    "work came up": "work",
    "I feel better now": "better",
    "a schedule clash": "clash|conflict|schedul",
}


def a_an(word: str) -> str:
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


@family("basic", "9.5", pattern="lookup_then_act")
def book_doctor(g: Gen) -> Draft:
    options = [(d, s) for d in _doctors(g) for s in _free(g, d["doctor_id"]) if not _busy(g, s)]
    if not options:
        raise BuildError("no free slot")
    d, slot = g.pick(options)
    reason = g.pick(sorted(REASONS))
    spec = d["specialty"].lower()
    query = g.say(
        "book me an appointment with {doc} {when} at {t} for {r}",
        "I need to see {doc} ({spec}) {when} at {t} about {r}; please book it",
        "get me {a_spec} visit with {doc} at {t} {when} for {r}",
        doc=d["name"],
        spec=spec,
        a_spec=a_an(spec),
        when=g.when(days_ahead(g, slot)),
        t=clock(slot[11:]),
        r=reason,
    )
    return Draft(
        query=query,
        gold=[
            act("search_doctors", specialty=d["specialty"], date=slot[:10]),
            act("book_doctor_appointment", doctor_id=d["doctor_id"], slot=slot, reason=reason),
            done(f"Booked {d['name']} at {slot}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "medical_appointments": [
                    {
                        "doctor_id": d["doctor_id"],
                        "slot": slot,
                        "patient": "self",
                        "status": "booked",
                        "reason": {"$regex": REASONS[reason]},
                    }
                ]
            }
        },
        patches=grant(g, "health", "LOCATION"),
    )


@family("basic", "9.5", pattern="friction", friction="time_conflict")
def book_doctor_around_meeting(g: Gen) -> Draft:
    options = []
    for d in _doctors(g):
        free = _free(g, d["doctor_id"])
        for s in free:
            # the fallback is the first free slot after the hour-long clash the task adds at ``s``
            clash_end = (dt.datetime.strptime(s, DT) + dt.timedelta(minutes=60)).strftime(DT)
            later = [o for o in free if o[:10] == s[:10] and o >= clash_end and not _busy(g, o)]
            if later and not _busy(g, s):
                options.append((d, s, later[0]))
    if not options:
        raise BuildError("no slot pair")
    d, slot, alt = g.pick(options)
    end = (dt.datetime.strptime(slot, DT) + dt.timedelta(minutes=60)).strftime(DT)
    title = g.pick(("Team sync", "Call with the bank", "Project review", "Parent-teacher meeting", "Haircut"))
    meeting = {
        "event_id": "event_900",
        "title": title,
        "start": slot,
        "end": end,
        "location": None,
        "description": None,
        "calendar": "personal",
        "reminder_min": 15,
        "status": "confirmed",
        "is_organizer": 1,
        "organizer": None,
        "my_response": "accepted",
        "created_at": now_minute(g) + ":00",
        "updated_at": now_minute(g) + ":00",
    }
    query = g.say(
        "book {doc} {when} at {t}; if I'm busy then, take their next free slot that day",
        "get me an appointment with {doc} at {t} {when}, or the next opening that day if that clashes with something",
        "I'd like to see {doc} {when} around {t}: that time, or the first later slot that day that fits my calendar",
        doc=d["name"],
        when=g.when(days_ahead(g, slot)),
        t=clock(slot[11:]),
    )
    return Draft(
        query=query,
        gold=[
            act("search_doctors", specialty=d["specialty"], date=slot[:10]),
            act("book_doctor_appointment", doctor_id=d["doctor_id"], slot=slot),
            act("book_doctor_appointment", doctor_id=d["doctor_id"], slot=alt),
            done(f"You have {title} at {clock(slot[11:])}, so I booked {clock(alt[11:])}."),
        ],
        bucket="state_change",
        check={"insert": {"medical_appointments": [{"doctor_id": d["doctor_id"], "slot": alt, "status": "booked"}]}},
        patches=merge({"insert": {"calendar_events": [meeting]}}, grant(g, "health", "LOCATION")),
        recovers=(ErrorType.TIME_CONFLICT,),
    )


@family("basic", "9.5", pattern="friction", friction="confirmation_required")
def late_cancel_with_fee(g: Gen) -> Draft:
    d = g.pick(_doctors(g))
    soon = g.now + dt.timedelta(hours=g.pick((3, 4, 6)))
    soon = soon.replace(minute=30 if soon.minute >= 30 else 0, second=0)
    if soon.hour >= 18 or soon.hour < 8:
        soon = (
            (g.now + dt.timedelta(days=1)).replace(hour=g.pick((8, 9)), minute=0, second=0)
            if g.now.hour >= 8
            else g.now.replace(hour=10, minute=0, second=0)
        )
    slot = soon.strftime(DT)
    if not (g.now < soon < g.now + dt.timedelta(hours=23)):
        raise BuildError("not within a day")
    appt = {
        "appointment_id": "appt_900",
        "doctor_id": d["doctor_id"],
        "slot": slot,
        "reason": "Check-up",
        "patient": "self",
        "telehealth": 0,
        "status": "booked",
        "cancel_reason": None,
        "cancel_fee": None,
        "created_at": now_minute(g) + ":00",
        "updated_at": now_minute(g) + ":00",
    }
    fee = round(d["fee"] / 2, 2)
    day = "today" if slot[:10] == g.date(0) else "tomorrow"
    query = g.say(
        "cancel my appointment with {doc} {day}",
        "I can't make it to {doc} {day} at {t}; cancel the visit",
        "please call off my {t} visit with {doc} {day}",
        doc=d["name"],
        day=day,
        t=clock(slot[11:]),
    )
    return Draft(
        query=query,
        gold=[
            act("search_doctors", specialty=d["specialty"]),
            act("cancel_doctor_appointment", appointment_id="appt_900"),
            act("ask_user", question=f"Cancelling this late costs a fee of {fee:.2f}. Cancel anyway?", kind="confirm"),
            act("cancel_doctor_appointment", appointment_id="appt_900", confirm=True),
            done("Cancelled; the late fee applies."),
        ],
        bucket="agent_behavior",
        check={
            "follow_up": {"tool": "ask_user"},
            "state": {
                "update": {
                    "medical_appointments": [
                        {
                            "match": {"appointment_id": "appt_900"},
                            "set": {
                                "status": "cancelled",
                                "cancel_fee": {"$approx": [fee, 0.01]},
                                "cancel_reason": {"$any": [None, {"$regex": "."}]},
                            },
                        }
                    ]
                }
            },
        },
        patches=merge({"insert": {"medical_appointments": [appt]}}, grant(g, "health", "LOCATION")),
        script=[
            {"answer": "Yes, cancel it anyway, I'll pay the fee.", "kind": "confirm", "keywords": ["fee", "cancel"]}
        ],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )


@family("basic", "9.5", pattern="lookup_then_act")
def cancel_dentist_visit(g: Gen) -> Draft:
    booked = [
        a
        for a in g.rows("medical_appointments", {"status": "booked"})
        if a["slot"] > (g.now + dt.timedelta(hours=25)).strftime(DT)
    ]
    if not booked:
        raise BuildError("no upcoming visit")
    a = g.pick(booked)
    doc = g.rows("world_doctors", {"doctor_id": a["doctor_id"]})[0]
    reason = g.pick((None, *CANCEL_WHY))
    why = f" ({reason})" if reason else ""
    query = g.say(
        "cancel my appointment with {doc} on {d}{why}",
        "please cancel the {spec} visit on {d}{why}",
        "I won't make it to {doc} on {d} at {t}{why}: cancel it",
        doc=doc["name"],
        d=a["slot"][:10],
        spec=doc["specialty"].lower(),
        t=clock(a["slot"][11:]),
        why=why,
    )
    return Draft(
        query=query,
        gold=[
            act("search_doctors", specialty=doc["specialty"]),
            act(
                "cancel_doctor_appointment",
                appointment_id=a["appointment_id"],
                **({"reason": reason} if reason else {}),
            ),
            done("Cancelled."),
        ],
        bucket="state_change",
        check={
            "update": {
                "medical_appointments": [
                    {
                        "match": {"appointment_id": a["appointment_id"]},
                        "set": {
                            "status": "cancelled",
                            "cancel_fee": 0,
                            "cancel_reason": {"$any": [None, {"$regex": CANCEL_WHY[reason] if reason else "."}]},
                        },
                    }
                ]
            }
        },
        patches=grant(g, "health", "LOCATION"),
    )


# ---- 9.6 Body Metrics & Health Records ---------------------------------------------------------


def _reading(g: Gen) -> tuple[str, str, str | None, str, Any]:
    """(metric, spoken reading, unit, stored value, value argument)."""
    imperial = g.one("payment_methods", {"is_default": 1})["currency"] == "USD"
    metric = g.pick(("weight", "blood_pressure", "heart_rate", "glucose", "temperature", "spo2"))
    if metric == "weight":
        kg = round(g.rng.uniform(60, 90), 1)
        if imperial:
            lb = round(kg * 2.2046, 1)
            return metric, f"I weigh {lb} lb", "lb", f"{lb:g}", lb
        return metric, f"my weight is {kg} kg", "kg", f"{kg:g}", kg
    if metric == "blood_pressure":
        hi, lo = g.rng.randint(108, 138), g.rng.randint(68, 88)
        return metric, f"my blood pressure is {hi}/{lo}", "mmHg", f"{hi}/{lo}", f"{hi}/{lo}"
    if metric == "heart_rate":
        v: float = g.rng.randint(52, 88)
        return metric, f"my heart rate is {v} bpm", "bpm", str(v), v
    if metric == "glucose":
        v = round(g.rng.uniform(4.4, 7.2), 1)
        return metric, f"my blood sugar is {v} mmol/L", "mmol/L", f"{v:g}", v
    if metric == "temperature":
        c = round(g.rng.uniform(36.4, 38.9), 1)
        return metric, f"my temperature is {c} °C", "C", f"{c:g}", c
    v = g.rng.randint(94, 99)
    return metric, f"my oxygen saturation is {v}%", "%", str(v), v


@family("basic", "9.6", pattern="single_call")
def log_reading_now(g: Gen) -> Draft:
    metric, spoken, unit, stored, value = _reading(g)
    query = g.say(
        "{s}, log it", "record this: {s}", "{s} right now; save it in my health records", "please note {s}", s=spoken
    )
    return Draft(
        query=query,
        gold=[act("log_body_metric", metric=metric, value=value, unit=unit), done("Logged.")],
        bucket="state_change",
        check={"insert": {"body_metrics": [{"metric": metric, "value": stored, "unit": unit}]}},
        patches=grant(g, "health", "HEALTH"),
    )


@family("basic", "9.6", pattern="single_call")
def log_reading_earlier(g: Gen) -> Draft:
    metric, spoken, unit, stored, value = _reading(g)
    back = g.pick((0, 1, 1, 2))
    hm = g.pick(("07:10", "07:45", "08:20", "21:30", "22:15"))
    at = f"{g.date(-back)}T{hm}"
    if at >= now_minute(g):
        back, at = back + 1, f"{g.date(-back - 1)}T{hm}"
    query = g.say(
        "{when} at {t} {s}; add it to my records",
        "log a reading from {when}, {t}: {s}",
        "back {when} at {t}, {s}. Please record that",
        when=ago(g, back),
        t=clock(hm),
        s=spoken,
    )
    return Draft(
        query=query,
        gold=[act("log_body_metric", metric=metric, value=value, unit=unit, measured_at=at), done("Logged.")],
        bucket="state_change",
        check={"insert": {"body_metrics": [{"metric": metric, "value": stored, "unit": unit, "measured_at": at}]}},
        patches=grant(g, "health", "HEALTH"),
    )
