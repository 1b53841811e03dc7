"""Basic Tool Use families for Work, Study & Productivity (D1): meetings, calendar and tasks, reminders and
alarms, notes, email, documents, courses, focus sessions and the daily agenda."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sandbox.domains.productivity.schema import WEEKDAYS
from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import family

FMT = "%Y-%m-%dT%H:%M"
RECURRING = ("Team standup", "1:1 with Alex Turner", "Family dinner")
NAMED = {"contact_001", "contact_002", "contact_003", "contact_004", "contact_005", "contact_006", "contact_007"}


# ---- helpers -----------------------------------------------------------------------------------


def now_minute(g: Gen) -> str:
    return g.now.strftime(FMT)


def live_events(g: Gen) -> list[dict[str, Any]]:
    return [e for e in g.rows("calendar_events") if e["status"] != "cancelled"]


def is_free(g: Gen, start: str, end: str, exclude: str = "") -> bool:
    return not any(e["start"] < end and e["end"] > start and e["event_id"] != exclude for e in live_events(g))


def stamp(day: str, hm: str, minutes: int = 0) -> str:
    return (dt.datetime.strptime(f"{day}T{hm}", FMT) + dt.timedelta(minutes=minutes)).strftime(FMT)


def free_slot(
    g: Gen, days: tuple[int, int], hours: tuple[int, int], minutes: int, tries: int = 30
) -> tuple[int, str, str]:
    """A (day offset, start, end) in the future that overlaps no live event."""
    for _ in range(tries):
        d = g.rng.randint(*days)
        hm = f"{g.rng.randint(*hours):02d}:{g.pick(['00', '30'])}"
        start = stamp(g.date(d), hm)
        end = stamp(g.date(d), hm, minutes)
        if start > now_minute(g) and is_free(g, start, end):
            return d, start, end
    raise BuildError("no free slot found")


def hm_words(hm: str) -> str:
    """How a user says a time: 14:30 -> 2:30 pm, 09:00 -> 9 am."""
    h, m = int(hm[:2]), hm[3:]
    suffix = "am" if h < 12 else "pm"
    h12 = h % 12 or 12
    return f"{h12} {suffix}" if m == "00" else f"{h12}:{m} {suffix}"


def unique_future(g: Gen, pred: Any) -> list[dict[str, Any]]:
    """Live future events matching ``pred`` whose title is unique among live future events."""
    now = now_minute(g)
    future = [e for e in live_events(g) if e["start"] > now]
    counts: dict[str, int] = {}
    for e in future:
        counts[e["title"].lower()] = counts.get(e["title"].lower(), 0) + 1
    return [e for e in future if counts[e["title"].lower()] == 1 and pred(e) and e["title"] not in RECURRING]


def day_phrase(g: Gen, iso: str) -> str:
    days = (dt.date.fromisoformat(iso[:10]) - g.now.date()).days
    return g.when(days)


def contact(g: Gen, cid: str) -> dict[str, Any]:
    return g.rows("contacts", {"contact_id": cid})[0]


# ---- 1.1 Meeting Scheduling ----------------------------------------------------------------------

RESPONSES = {
    "accept": ("accepted", "confirmed"),
    "decline": ("declined", "cancelled"),
    "tentative": ("tentative", "tentative"),
}


@family("basic", "1.1", pattern="lookup_then_act")
def answer_invitation(g: Gen) -> Draft:
    ev = g.pick(unique_future(g, lambda e: not e["is_organizer"]) or [None])  # type: ignore[list-item]
    if ev is None:
        raise BuildError("no invitation to answer")
    response = g.pick([r for r, (ans, _) in RESPONSES.items() if ans != ev["my_response"]])
    answer, status = RESPONSES[response]
    title, when = ev["title"], day_phrase(g, ev["start"])
    phrasing = {
        "accept": (
            "accept the invitation to the {title} {when}",
            "tell them I'll attend the {title} {when}",
            "RSVP yes to the {title} {when}",
            "please accept the {title} invite for {day}",
        ),
        "decline": (
            "decline the {title} invitation {when}",
            "I can't make the {title} {when}, decline it",
            "RSVP no to the {title} {when}",
            "please turn down the invite to the {title} {when}",
        ),
        "tentative": (
            "mark me as tentative for the {title} {when}",
            "reply maybe to the {title} invite {when}",
            "tentatively accept the {title} {when}",
            "answer 'maybe' to the {title} invitation {when}",
        ),
    }[response]
    return Draft(
        query=g.say(*phrasing, title=title, when=when, day=when.removeprefix("on ")),
        gold=[
            act("search_calendar_events", query=title),
            act("respond_to_invitation", event_id=ev["event_id"], response=response),
            done(f"Answered the {title} invitation: {answer}."),
        ],
        bucket="state_change",
        check={
            "update": {
                "calendar_events": [
                    {"match": {"event_id": ev["event_id"]}, "set": {"my_response": answer, "status": status}}
                ]
            }
        },
    )


@family("basic", "1.1", pattern="cross_app")
def invite_contacts(g: Gen) -> Draft:
    ev = g.pick(unique_future(g, lambda e: e["is_organizer"] == 1) or [None])  # type: ignore[list-item]
    if ev is None:
        raise BuildError("no own future event")
    invited = {r["contact_id"] for r in g.rows("event_attendees", {"event_id": ev["event_id"]})}
    pool = [c for c in sorted(NAMED - invited)]
    if not pool:
        raise BuildError("everyone is invited")
    people = [contact(g, c) for c in g.rng.sample(pool, min(len(pool), g.pick([1, 1, 2])))]
    names = " and ".join(p["name"] for p in people)
    title, when = ev["title"], day_phrase(g, ev["start"])
    gold = [act("search_contacts", name=p["name"]) for p in people]
    gold += [
        act("search_calendar_events", query=title),
        act("send_meeting_invite", event_id=ev["event_id"], attendees=[p["contact_id"] for p in people]),
        done(f"Invited {names} to {title}."),
    ]
    return Draft(
        query=g.say(
            "invite {names} to my {title} {when}",
            "send {names} an invite for the {title} {when}",
            "add {names} as {guests} to the {title} {when}",
            "{names} should join the {title} {when}; invite them",
            names=names,
            title=title,
            when=when,
            guests="guests" if len(people) > 1 else "a guest",
        ),
        gold=gold,
        bucket="state_change",
        check={
            "insert": {"event_attendees": [{"event_id": ev["event_id"], "contact_id": p["contact_id"]} for p in people]}
        },
    )


MEETING_TITLES = (
    "Budget check-in",
    "Roadmap sync",
    "Hiring debrief",
    "Sprint retro prep",
    "Launch go/no-go",
    "Vendor review",
    "Design critique",
    "Metrics deep-dive",
)


def first_shared_slot(g: Gen, day: str, person: str, minutes: int) -> tuple[str, str]:
    """The first window find_free_slots returns for the user and ``person`` on ``day`` (working hours)."""
    lo, hi = day, f"{day}T23:59"
    busy = [(e["start"], e["end"]) for e in live_events(g) if e["start"] < hi and e["end"] > lo]
    busy += [
        (b["start"], b["end"])
        for b in g.rows("world_busy_slots", {"person_key": person})
        if b["start"] < hi and b["end"] > lo
    ]
    cursor, end = max(f"{day}T09:00", now_minute(g)), f"{day}T18:00"
    need = dt.timedelta(minutes=minutes)
    for s, f in [*sorted((s, f) for s, f in busy if s < end and f > cursor), (end, end)]:
        if s > cursor and dt.datetime.strptime(s, FMT) - dt.datetime.strptime(cursor, FMT) >= need:
            return cursor, (dt.datetime.strptime(cursor, FMT) + need).strftime(FMT)
        cursor = max(cursor, f)
    raise BuildError("no shared slot that day")


@family("basic", "1.1", pattern="lookup_then_act")
def schedule_with_colleague(g: Gen) -> Draft:
    person = contact(g, g.pick(["contact_004", "contact_005"]))
    offsets = [d for d in range(1, 10) if (g.now + dt.timedelta(days=d)).weekday() < 5]
    d = g.pick(offsets)
    day, minutes, title = g.date(d), g.pick([30, 45, 60]), g.pick(MEETING_TITLES)
    start, end = first_shared_slot(g, day, person["contact_id"], minutes)
    return Draft(
        query=g.say(
            "find the first {m}-minute slot {when} when {name} and I are both free, put '{title}' on my work "
            "calendar then and invite {name}",
            "set up a {m}-minute {title} with {name} {when} at the earliest time we're both free, and send the invite",
            "{when}, book the earliest free {m} minutes that work for me and {name} as '{title}' (work "
            "calendar) and invite {name}",
            name=person["name"],
            when=g.when(d),
            m=minutes,
            title=title,
        ),
        gold=[
            act("search_contacts", name=person["name"]),
            act("find_free_slots", date_from=day, date_to=day, duration_min=minutes, attendees=[person["contact_id"]]),
            act("create_calendar_event", title=title, start=start, end=end, calendar="work"),
            act("send_meeting_invite", event_id=g.ref(3, "event_id"), attendees=[person["contact_id"]]),
            done(f"Booked {title} at {start[11:]} and invited {person['name']}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "calendar_events": [{"title": {"$contains": title}, "start": start, "end": end, "calendar": "work"}],
                "event_attendees": [{"contact_id": person["contact_id"]}],
            }
        },
    )


# ---- 1.2 Calendar & Tasks ----------------------------------------------------------------------

NEW_TASKS = (
    ("Renew gym membership", "gym membership"),
    ("Email the landlord about the heater", "landlord"),
    ("Book flights for the wedding", "flights"),
    ("Order printer ink", "printer ink"),
    ("Draft the quarterly report", "quarterly report"),
    ("Return library books", "library books"),
    ("Fix the bike tyre", "bike tyre"),
    ("Send thank-you cards", "thank-you cards"),
    ("Back up the laptop", "back up"),
    ("Pick up dry cleaning", "dry cleaning"),
)
LISTS = ("Work", "Inbox", "Personal", "Errands")


@family("basic", "1.2", pattern="single_call")
def add_task(g: Gen) -> Draft:
    title, key = g.pick(NEW_TASKS)
    list_name = g.pick(LISTS)
    d = g.rng.randint(1, 14)
    priority = g.pick(["high", "low", None])
    extra = f", {priority} priority" if priority else ""
    args: dict[str, Any] = {"title": title, "list_name": list_name, "due": g.date(d)}
    expect: dict[str, Any] = {"title": {"$contains": key}, "list_name": list_name, "due": g.date(d), "status": "open"}
    if priority:
        args["priority"] = priority
        expect["priority"] = priority
    return Draft(
        query=g.say(
            "add '{title}' to my {lst} list, due {when}{extra}",
            "put a to-do on my {lst} list: {title}, due {when}{extra}",
            "new task for the {lst} list: {title} (due {when}{extra})",
            title=title,
            lst=list_name,
            when=g.when(d),
            extra=extra,
        ),
        gold=[act("create_task", **args), done(f"Added {title}.")],
        bucket="state_change",
        check={"insert": {"tasks": [expect]}},
    )


EVENT_TITLES = (
    ("Coffee with Sam", "coffee"),
    ("Piano lesson", "piano"),
    ("Physio appointment", "physio"),
    ("Budget workshop", "budget workshop"),
    ("Parent meetup", "parent meetup"),
    ("Tax advisor call", "tax advisor"),
    ("Apartment viewing", "apartment viewing"),
    ("Guitar practice", "guitar"),
    ("Book club", "book club"),
    ("Vet appointment", "vet"),
)


@family("basic", "1.2", pattern="single_call")
def add_event(g: Gen) -> Draft:
    title, key = g.pick(EVENT_TITLES)
    minutes = g.pick([30, 60, 90])
    d, start, end = free_slot(g, (1, 12), (8, 19), minutes)
    place = g.pick([None, "Central Library", "Room 4B", "the community centre"])
    where = f" at {place}" if place else ""
    args: dict[str, Any] = {"title": title, "start": start, "end": end}
    expect: dict[str, Any] = {"title": {"$contains": key}, "start": start, "end": end, "status": "confirmed"}
    if place:
        args["location"] = place
        expect["location"] = {"$contains": place.removeprefix("the ")}
    return Draft(
        query=g.say(
            "put {title} on my calendar {when} from {a} to {b}{where}",
            "add an event '{title}' {when}, {a}-{b}{where}",
            "schedule {title}{where} {when} between {a} and {b}",
            title=title,
            when=g.when(d),
            a=hm_words(start[11:]),
            b=hm_words(end[11:]),
            where=where,
        ),
        gold=[act("create_calendar_event", **args), done(f"Added {title}.")],
        bucket="state_change",
        check={"insert": {"calendar_events": [expect]}},
    )


@family("basic", "1.2", pattern="lookup_then_act")
def change_own_event(g: Gen) -> Draft:
    ev = g.pick(unique_future(g, lambda e: e["is_organizer"] == 1) or [None])  # type: ignore[list-item]
    if ev is None:
        raise BuildError("no own future event")
    title, when = ev["title"], day_phrase(g, ev["start"])
    kind = g.pick(["cancel", "move", "move", "place"])
    search = act("search_calendar_events", query=title)
    if kind == "cancel":
        return Draft(
            query=g.say(
                "cancel my {title} {when}",
                "call off the {title} {when}; take it off my calendar",
                "I won't do the {title} {when} after all, please cancel it",
                title=title,
                when=when,
            ),
            gold=[search, act("delete_calendar_event", event_id=ev["event_id"]), done(f"Cancelled {title}.")],
            bucket="state_change",
            check={
                "update": {"calendar_events": [{"match": {"event_id": ev["event_id"]}, "set": {"status": "cancelled"}}]}
            },
        )
    if kind == "place":
        place = g.pick(["Room 12", "the café downstairs", "Building C lobby", "Zoom"])
        return Draft(
            query=g.say(
                "change the location of my {title} {when} to {place}",
                "the {title} {when} is now at {place}; update it",
                "move the {title} {when} to {place}",
                title=title,
                when=when,
                place=place,
            ),
            gold=[
                search,
                act("update_calendar_event", event_id=ev["event_id"], location=place),
                done(f"Updated {title}."),
            ],
            bucket="state_change",
            check={
                "update": {
                    "calendar_events": [
                        {
                            "match": {"event_id": ev["event_id"]},
                            "set": {"location": {"$contains": place.removeprefix("the ")}},
                        }
                    ]
                }
            },
        )
    length = dt.datetime.strptime(ev["end"], FMT) - dt.datetime.strptime(ev["start"], FMT)
    day = ev["start"][:10]
    for _ in range(20):
        hm = f"{g.rng.randint(8, 19):02d}:{g.pick(['00', '30'])}"
        start = f"{day}T{hm}"
        end = (dt.datetime.strptime(start, FMT) + length).strftime(FMT)
        if start != ev["start"] and start > now_minute(g) and is_free(g, start, end, exclude=ev["event_id"]):
            break
    else:
        raise BuildError("no free time to move to")
    return Draft(
        query=g.say(
            "move my {title} {when} to {a}",
            "push the {title} {when} to start at {a}",
            "reschedule the {title} {when} so it starts at {a} instead",
            title=title,
            when=when,
            a=hm_words(hm),
        ),
        gold=[
            search,
            act("update_calendar_event", event_id=ev["event_id"], start=start),
            done(f"Moved {title} to {hm}."),
        ],
        bucket="state_change",
        check={
            "update": {
                "calendar_events": [{"match": {"event_id": ev["event_id"]}, "set": {"start": start, "end": end}}]
            }
        },
    )


def open_tasks(g: Gen) -> list[dict[str, Any]]:
    rows = [t for t in g.rows("tasks") if t["status"] == "open" and t["remind_at"] is None]
    titles = [t["title"].lower() for t in rows]
    return [t for t in rows if titles.count(t["title"].lower()) == 1]


@family("basic", "1.2", pattern="lookup_then_act")
def delete_existing_task(g: Gen) -> Draft:
    t = g.one("tasks", filter=lambda r: r in open_tasks(g))
    title, lst, tid = t["title"], t["list_name"], t["task_id"]
    return Draft(
        query=g.say(
            "delete '{title}' from my {lst} list",
            "remove the task '{title}'",
            "I don't need '{title}' on my {lst} list any more, delete it",
            title=title,
            lst=lst,
        ),
        gold=[act("list_tasks", list_name=lst), act("delete_task", task_id=tid), done(f"Deleted {title}.")],
        bucket="state_change",
        check={"delete": {"tasks": [{"task_id": tid}]}},
    )


@family("basic", "1.2", pattern="lookup_then_act")
def update_existing_task(g: Gen) -> Draft:
    t = g.one("tasks", filter=lambda r: r in open_tasks(g))
    title, lst = t["title"], t["list_name"]
    kind = g.pick(["done", "due", "priority"])
    look = act("list_tasks", list_name=lst)
    tid = t["task_id"]
    if kind == "done":
        return Draft(
            query=g.say(
                "tick off '{title}' on my {lst} list",
                "mark '{title}' as done",
                "I finished '{title}', check it off",
                title=title,
                lst=lst,
            ),
            gold=[look, act("update_task", task_id=tid, status="completed"), done(f"Completed {title}.")],
            bucket="state_change",
            check={
                "update": {
                    "tasks": [
                        {"match": {"task_id": tid}, "set": {"status": "completed", "completed_at": {"$absent": False}}}
                    ]
                }
            },
        )
    if kind == "due":
        d = g.rng.randint(2, 20)
        if g.date(d) == t["due"]:
            d += 1
        return Draft(
            query=g.say(
                "push '{title}' to {day}",
                "change the due date of '{title}' to {day}",
                "'{title}' is now due {when}; update the task",
                title=title,
                when=g.when(d),
                day=g.when(d).removeprefix("on "),
            ),
            gold=[look, act("update_task", task_id=tid, due=g.date(d)), done(f"{title} is due {g.date(d)}.")],
            bucket="state_change",
            check={"update": {"tasks": [{"match": {"task_id": tid}, "set": {"due": g.date(d)}}]}},
        )
    priority = g.pick([p for p in ("low", "medium", "high") if p != t["priority"]])
    return Draft(
        query=g.say(
            "make '{title}' {p} priority",
            "set the priority of '{title}' to {p}",
            "'{title}' should be {p} priority",
            title=title,
            p=priority,
        ),
        gold=[look, act("update_task", task_id=tid, priority=priority), done(f"{title} is now {priority} priority.")],
        bucket="state_change",
        check={"update": {"tasks": [{"match": {"task_id": tid}, "set": {"priority": priority}}]}},
    )


@family("basic", "1.2", pattern="friction", friction="duplicate_entity")
def readd_existing_task(g: Gen) -> Draft:
    t = g.one("tasks", filter=lambda r: r in open_tasks(g) and r["list_name"] in ("Work", "Inbox"))
    d = g.rng.randint(1, 15)
    if g.date(d) == t["due"]:
        d += 1
    priority = g.pick([p for p in ("low", "medium", "high") if p != t["priority"]])
    title, lst = t["title"], t["list_name"]
    return Draft(
        query=g.say(
            "add '{title}' to my {lst} list, due {when}, {p} priority",
            "new to-do on {lst}: {title}. It's due {when} and it's {p} priority",
            "put '{title}' on my {lst} list for {day} with {p} priority",
            title=title,
            lst=lst,
            when=g.when(d),
            day=g.when(d).removeprefix("on "),
            p=priority,
        ),
        gold=[
            act("create_task", title=title, list_name=lst, due=g.date(d), priority=priority),
            act("update_task", task_id=g.ref(1, "existing_id"), due=g.date(d), priority=priority),
            done(f"'{title}' was already on your {lst} list; I updated its due date and priority."),
        ],
        bucket="state_change",
        check={
            "update": {"tasks": [{"match": {"task_id": t["task_id"]}, "set": {"due": g.date(d), "priority": priority}}]}
        },
        recovers=(ErrorType.DUPLICATE_ENTITY,),
    )


@family("basic", "1.2", pattern="friction", friction="time_conflict")
def add_event_despite_overlap(g: Gen) -> Draft:
    now = now_minute(g)
    clash = g.one(
        "calendar_events",
        filter=lambda e: (
            e["status"] != "cancelled"
            and e["start"] > now
            and e["start"][:10] <= g.date(14)
            and e["start"][11:] >= "08:00"
        ),
    )
    title, key = g.pick(EVENT_TITLES)
    if key in clash["title"].lower() or clash["title"].lower() in title.lower():
        raise BuildError("titles too close")
    minutes = g.pick([30, 60])
    start = clash["start"]
    end = stamp(start[:10], start[11:], minutes)
    when = day_phrase(g, start)
    return Draft(
        query=g.say(
            "add {title} to my calendar {when} at {a} for {m} minutes",
            "schedule '{title}' {when} from {a}, {m} minutes long",
            "block {m} minutes {when} at {a} for {title}",
            title=title,
            when=when,
            a=hm_words(start[11:]),
            m=minutes,
        ),
        # the user named the time, so adding it over the clash needs no question (asking is fine too)
        gold=[
            act("create_calendar_event", title=title, start=start, end=end),
            act("create_calendar_event", title=title, start=start, end=end, allow_overlap=True),
            done(f"Added {title}; note that it overlaps with {clash['title']}."),
        ],
        bucket="state_change",
        check={"insert": {"calendar_events": [{"title": {"$contains": key}, "start": start, "end": end}]}},
        script=[
            {
                "answer": "Yes, add it anyway; I'll sort out the clash myself.",
                "kind": "confirm",
                "keywords": ["overlap", "conflict", "clash", "anyway", "busy", "already"],
            }
        ],
        recovers=(ErrorType.TIME_CONFLICT,),
    )


# ---- 1.3 Reminders & Alarms ----------------------------------------------------------------------

DAY_SETS = {
    "weekdays": ["mon", "tue", "wed", "thu", "fri"],
    "weekends": ["sat", "sun"],
    "Mondays and Wednesdays": ["mon", "wed"],
    "Tuesdays and Thursdays": ["tue", "thu"],
    "": [],
}
ALARM_LABELS = ("Gym", "Meds", "Run", "Call home", "Study", "Walk the dog", "Stretch")


@family("basic", "1.3", pattern="single_call")
def new_alarm(g: Gen) -> Draft:
    hm = f"{g.rng.randint(5, 9):02d}:{g.pick(['00', '10', '15', '20', '30', '40', '45', '50'])}"
    phrase, days = g.pick(list(DAY_SETS.items()))
    enabled = [a for a in g.rows("alarms") if a["enabled"] and a["time"] == hm and json.loads(a["days_json"]) == days]
    if enabled:
        raise BuildError("twin alarm")
    label = g.pick(ALARM_LABELS)
    on = f" on {phrase}" if phrase else ""
    args: dict[str, Any] = {"time": hm, "label": label}
    if days:
        args["days"] = days
    return Draft(
        query=g.say(
            "set an alarm for {t}{on} labelled {label}",
            "wake me at {t}{on}, label it '{label}'",
            "I need a '{label}' alarm at {t}{on}",
            "new alarm: {t}{on}, called {label}",
            t=hm_words(hm),
            on=on,
            label=label,
        ),
        gold=[act("set_alarm", **args), done(f"Alarm set for {hm}.")],
        bucket="state_change",
        check={
            "insert": {
                "alarms": [{"time": hm, "label": {"$contains": label}, "days_json": {"$json": days}, "enabled": 1}]
            }
        },
    )


REMINDERS = (
    ("call the bank", "bank"),
    ("water the plants", "plants"),
    ("take my vitamins", "vitamins"),
    ("book the car service", "car service"),
    ("send the invoice", "invoice"),
    ("check the parcel tracking", "parcel"),
    ("buy flowers for Mom", "flowers"),
    ("move the car for street cleaning", "move the car"),
    ("pay the phone bill", "phone bill"),
    ("submit my timesheet", "timesheet"),
)


@family("basic", "1.3", pattern="single_call")
def timed_reminder(g: Gen) -> Draft:
    text, key = g.pick(REMINDERS)
    d = g.rng.randint(1, 9)
    hm = f"{g.rng.randint(7, 21):02d}:{g.pick(['00', '15', '30', '45'])}"
    at = f"{g.date(d)}T{hm}"
    return Draft(
        query=g.say(
            "remind me to {text} {when} at {t}",
            "{when} at {t}, remind me to {text}",
            "set a reminder for {day} at {t}: {text}",
            text=text,
            when=g.when(d),
            day=g.when(d).removeprefix("on "),
            t=hm_words(hm),
        ),
        gold=[act("create_reminder", text=text[:1].upper() + text[1:], remind_at=at), done("Reminder set.")],
        bucket="state_change",
        check={"insert": {"tasks": [{"title": {"$contains": key}, "remind_at": at, "status": "open"}]}},
    )


@family("basic", "1.3", pattern="friction", friction="missing_argument")
def reminder_without_time(g: Gen) -> Draft:
    text, key = g.pick(REMINDERS)
    d = g.rng.randint(1, 6)
    hm = f"{g.rng.randint(7, 21):02d}:{g.pick(['00', '30'])}"
    at = f"{g.date(d)}T{hm}"
    body = text[:1].upper() + text[1:]
    return Draft(
        query=g.say(
            "remind me to {text}",
            "set a reminder to {text}",
            "can you remind me to {text}?",
            "I keep forgetting to {text}; remind me",
            text=text,
        ),
        gold=[
            act("create_reminder", text=body),
            act("ask_user", question="When should I remind you?", slot="remind_at"),
            act("create_reminder", text=body, remind_at=at),
            done(f"I'll remind you on {g.date(d)} at {hm}."),
        ],
        bucket="agent_behavior",
        check={
            "follow_up": {"tool": "ask_user"},
            "state": {"insert": {"tasks": [{"title": {"$contains": key}, "remind_at": at}]}},
        },
        script=[
            {
                "answer": f"On {g.date(d)} at {hm}, please.",
                "slot": "remind_at",
                "keywords": ["when", "time", "what day"],
            }
        ],
        recovers=(ErrorType.MISSING_REQUIRED_ARGUMENT,),
    )


def next_weekday(g: Gen, names: tuple[int, ...]) -> int:
    return next(d for d in range(1, 8) if (g.now + dt.timedelta(days=d)).weekday() in names)


@family("basic", "1.3", pattern="lookup_then_act")
def adjust_alarm(g: Gen) -> Draft:
    alarms = {a["alarm_id"]: a for a in g.rows("alarms")}
    kind = g.pick(["weekend_on", "wake_time", "parcel_delete", "wake_off", "parcel_on"])
    if kind == "weekend_on":
        a = alarms["alarm_002"]
        d = next_weekday(g, (5, 6))
        hm = g.pick(["08:30", "09:00", "07:45", "09:15"])
        query = g.say(
            "turn my weekend alarm back on and set it to {t}",
            "switch on the weekend alarm, at {t} now",
            "enable my weekend alarm for {t}",
            t=hm_words(hm),
        )
        call = act("update_alarm", alarm_id=a["alarm_id"], enabled=True, time=hm)
        expect = {"enabled": 1, "time": hm}
    elif kind in ("wake_time", "wake_off"):
        a = alarms["alarm_001"]
        d = next_weekday(g, (0, 1, 2, 3, 4))
        if kind == "wake_off":
            query = g.say(
                "switch off my weekday wake-up alarm",
                "disable the 6:45 wake-up alarm",
                "turn off my 'Wake up' alarm for now",
            )
            call = act("update_alarm", alarm_id=a["alarm_id"], enabled=False)
            expect = {"enabled": 0}
        else:
            hm = g.pick(["06:15", "06:30", "07:00", "07:15", "06:00"])
            query = g.say(
                "change my weekday wake-up alarm to {t}",
                "move my 6:45 alarm to {t}",
                "I want to get up at {t} on weekdays; adjust my wake-up alarm",
                t=hm_words(hm),
            )
            call = act("update_alarm", alarm_id=a["alarm_id"], time=hm)
            expect = {"time": hm}
    else:
        a = alarms["alarm_003"]
        d = 1
        if kind == "parcel_delete":
            query = g.say(
                "delete the 'Pick up parcel' alarm",
                "get rid of my parcel pick-up alarm",
                "remove the alarm labelled Pick up parcel",
            )
            call = act("delete_alarm", alarm_id=a["alarm_id"])
            return Draft(
                query=query,
                gold=[act("get_daily_agenda", date=g.date(d)), call, done("Deleted it.")],
                bucket="state_change",
                check={"delete": {"alarms": [{"alarm_id": a["alarm_id"]}]}},
            )
        hm = g.pick(["13:30", "16:00", "17:30", "12:15"])
        query = g.say(
            "turn the parcel pick-up alarm back on for {t}",
            "re-enable my 'Pick up parcel' alarm at {t}",
            "switch the Pick up parcel alarm on and make it {t}",
            t=hm_words(hm),
        )
        call = act("update_alarm", alarm_id=a["alarm_id"], enabled=True, time=hm)
        expect = {"enabled": 1, "time": hm}
    return Draft(
        query=query,
        gold=[act("get_daily_agenda", date=g.date(d)), call, done("Alarm updated.")],
        bucket="state_change",
        check={"update": {"alarms": [{"match": {"alarm_id": a["alarm_id"]}, "set": expect}]}},
    )


# ---- 1.4 Notes & Memos -----------------------------------------------------------------------------

NEW_NOTES = (
    ("Gift list", ["scarf", "board game", "tea set"]),
    ("Meeting takeaways", ["hire a designer", "freeze scope", "demo on Friday"]),
    ("Garden plan", ["tomatoes", "basil", "mint"]),
    ("Conference ideas", ["panel on agents", "demo booth", "swag"]),
    ("Paint colours", ["sage green", "off-white", "navy"]),
    ("Weekend errands", ["pharmacy", "post office", "hardware store"]),
    ("Podcast ideas", ["remote work", "city cycling", "sleep"]),
    ("Birthday party", ["balloons", "cake", "playlist"]),
)


@family("basic", "1.4", pattern="single_call")
def new_note(g: Gen) -> Draft:
    title, items = g.pick(NEW_NOTES)
    items = g.rng.sample(items, len(items))
    folder = g.pick(["Personal", "Work", None])
    where = f" in my {folder} folder" if folder else ""
    args: dict[str, Any] = {"title": title, "content": ", ".join(items)}
    expect: dict[str, Any] = {"title": title, "content": {"$contains_all": items}}
    if folder:
        args["folder"] = folder
        expect["folder"] = folder
    return Draft(
        query=g.say(
            "make a note titled {title}{where}: {list}",
            "save a note '{title}'{where} with {list}",
            "jot down{where} a note called {title}: {list}",
            title=title,
            where=where,
            list=", ".join(items),
        ),
        gold=[act("create_note", **args), done("Saved.")],
        bucket="state_change",
        check={"insert": {"notes": [expect]}},
    )


ADDITIONS = {
    "Project kickoff": ("Launch date moved to 15 September", "15 September"),
    "Standup notes": ("API review unblocked on Tuesday", "unblocked"),
    "Quarterly goals": ("4. Publish the design system", "design system"),
    "Wi-Fi password for guests": ("Router is in the hallway cupboard", "hallway cupboard"),
    "Books to read": ("Klara and the Sun", "Klara and the Sun"),
    "Car maintenance log": ("Brake pads replaced at 47,200 km", "47,200"),
    "Gift ideas for Lily": ("Noise-cancelling headphones", "headphones"),
    "Ideas for the weekend": ("Visit the flower market", "flower market"),
    "Tomato and egg stir-fry": ("Add a splash of soy sauce at the end", "soy sauce"),
    "Packing list": ("Umbrella", "Umbrella"),
}
NOTE_WORDS = {
    "Project kickoff": "kickoff",
    "Standup notes": "standup",
    "Quarterly goals": "quarterly goals",
    "Wi-Fi password for guests": "wi-fi",
    "Books to read": "books",
    "Car maintenance log": "car maintenance",
    "Gift ideas for Lily": "gift ideas",
    "Ideas for the weekend": "weekend",
    "Tomato and egg stir-fry": "stir-fry",
    "Packing list": "packing",
}


@family("basic", "1.4", pattern="lookup_then_act")
def append_to_note(g: Gen) -> Draft:
    note = g.one("notes", filter=lambda n: n["title"] in ADDITIONS)
    extra, key = ADDITIONS[note["title"]]
    head = note["content"][:15]
    return Draft(
        query=g.say(
            "add '{extra}' to my {title} note",
            "append '{extra}' at the end of the note '{title}'",
            "in my '{title}' note, add a line: {extra}",
            extra=extra,
            title=note["title"],
        ),
        gold=[
            act("search_notes", query=NOTE_WORDS[note["title"]]),
            act("update_note", note_id=note["note_id"], append_text=extra),
            done("Added."),
        ],
        bucket="state_change",
        check={
            "update": {
                "notes": [{"match": {"note_id": note["note_id"]}, "set": {"content": {"$contains_all": [head, key]}}}]
            }
        },
    )


@family("basic", "1.4", pattern="friction", friction="duplicate_entity")
def note_title_taken(g: Gen) -> Draft:
    note = g.one("notes", filter=lambda n: n["title"] in ADDITIONS)
    extra, key = ADDITIONS[note["title"]]
    title, folder = note["title"], note["folder"]
    head = note["content"][:15]
    return Draft(
        query=g.say(
            "create a note '{title}' in {folder} that says: {extra}",
            "save a new note called {title} in my {folder} folder with '{extra}'",
            "new note in {folder}, title '{title}', text: {extra}",
            title=title,
            folder=folder,
            extra=extra,
        ),
        gold=[
            act("create_note", title=title, content=extra, folder=folder),
            act("update_note", note_id=g.ref(1, "existing_id"), append_text=extra),
            done(f"You already had a note called {title} in {folder}, so I added the text to it."),
        ],
        bucket="state_change",
        check={
            "update": {
                "notes": [{"match": {"note_id": note["note_id"]}, "set": {"content": {"$contains_all": [head, key]}}}]
            }
        },
        recovers=(ErrorType.DUPLICATE_ENTITY,),
    )


# ---- 1.5 Email Management ----------------------------------------------------------------------

MAIL_TOPICS = (
    ("Friday deadline", "the report will be ready on Friday"),
    ("Tomorrow's meeting", "I'll be ten minutes late tomorrow"),
    ("Weekend plans", "let's do dinner on Saturday"),
    ("Slides", "the slides are almost done"),
    ("Invoice question", "could you resend the March invoice"),
    ("Thank you", "thanks for your help this week"),
    ("Holiday dates", "I'm off from the 10th to the 14th"),
    ("Quick question", "do you have time for a call later"),
)


def mail_people(g: Gen) -> list[dict[str, Any]]:
    return [contact(g, c) for c in sorted(NAMED) if contact(g, c)["email"]]


@family("basic", "1.5", pattern="cross_app")
def send_new_email(g: Gen) -> Draft:
    person = g.pick(mail_people(g))
    subject, body = g.pick(MAIL_TOPICS)
    return Draft(
        query=g.say(
            "email {name} with the subject '{subject}' and say {body}",
            "send {name} an email, subject {subject}: {body}",
            "write to {name} by email ('{subject}') that {body}",
            name=person["name"],
            subject=subject,
            body=body,
        ),
        gold=[
            act("search_contacts", name=person["name"]),
            act("send_email", to=[person["contact_id"]], subject=subject, body=body[:1].upper() + body[1:] + "."),
            done("Sent."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "emails": [
                    {
                        "folder": "sent",
                        "to_json": {"$contains": person["email"]},
                        "subject": {"$contains": subject},
                        "body": {"$contains": body[-14:]},
                    }
                ]
            }
        },
    )


REPLY_LINES = (
    ("I'll take a look this afternoon", "this afternoon"),
    ("sounds good, go ahead", "go ahead"),
    ("can we discuss it on Monday", "monday"),
    ("thanks, I'll review it tonight", "tonight"),
    ("I'm on it", "on it"),
)


@family("basic", "1.5", pattern="lookup_then_act")
def reply_to_email(g: Gen) -> Draft:
    mails = [
        e for e in g.rows("emails") if e["folder"] == "inbox" and e["from_addr"] in {p["email"] for p in mail_people(g)}
    ]
    if not mails:
        raise BuildError("no personal inbox mail")
    m = g.pick(mails)
    same = [e for e in mails if e["subject"] == m["subject"] and e["from_addr"] == m["from_addr"]]
    m = max(same, key=lambda e: (e["sent_at"], e["message_id"]))
    if any(
        e["subject"] == m["subject"] and e["sent_at"] > m["sent_at"] for e in g.rows("emails") if e["folder"] == "inbox"
    ):
        raise BuildError("a newer mail with that subject")
    first = m["from_name"].split()[0]
    line, key = g.pick(REPLY_LINES)
    return Draft(
        query=g.say(
            "reply to {first}'s latest email about '{subject}' saying {line}",
            "answer the latest '{subject}' email from {first}: {line}",
            "write back to {first} on their latest '{subject}' email that {line}",
            first=first,
            subject=m["subject"],
            line=line,
        ),
        gold=[
            act("search_emails", query=m["subject"], sender=m["from_name"]),
            act(
                "send_email",
                to=[m["from_addr"]],
                subject=f"Re: {m['subject']}",
                body=line[:1].upper() + line[1:],
                reply_to_message_id=m["message_id"],
            ),
            done("Replied."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "emails": [
                    {
                        "folder": "sent",
                        "in_reply_to": m["message_id"],
                        "to_json": {"$contains": m["from_addr"]},
                        "subject": {"$contains": m["subject"]},
                        "body": {"$contains": key},
                    }
                ]
            }
        },
    )


@family("basic", "1.5", pattern="lookup_then_act")
def tidy_mailbox(g: Gen) -> Draft:
    mails = g.rows("emails")
    kind = g.pick(["spam", "newsletter_read", "archive_sender", "star"])
    args: dict[str, Any]
    expect: dict[str, Any]
    if kind == "spam":
        ids = [e["message_id"] for e in mails if e["folder"] == "spam"]
        query = g.say(
            "empty my spam folder into the trash",
            "move everything in spam to the bin",
            "trash all the emails sitting in my spam folder",
        )
        search, args, expect = act("search_emails", folder="spam", limit=50), {"folder": "trash"}, {"folder": "trash"}
    elif kind == "newsletter_read":
        sender, addr = g.pick([("TechPulse", "techpulse"), ("City Daily", "citydaily"), ("Coffee Lab", "coffeelab")])
        ids = [e["message_id"] for e in mails if addr in e["from_addr"] and not e["is_read"] and e["folder"] == "inbox"]
        query = g.say(
            "mark all the unread {s} emails in my inbox as read",
            "clear the unread {s} newsletters, mark them read",
            "I've seen the {s} mails; mark the unread ones in the inbox as read",
            s=sender,
        )
        search = act("search_emails", sender=sender, unread_only=True, limit=50)
        args, expect = {"mark_read": True}, {"is_read": 1}
    elif kind == "archive_sender":
        sender, addr = g.pick(
            [
                ("City Power", "citypower"),
                ("ShopMall", "shopmall"),
                ("Harbor Bank", "harborbank"),
                ("Sky Airlines", "skyair"),
            ]
        )
        ids = [e["message_id"] for e in mails if addr in e["from_addr"] and e["folder"] == "inbox"]
        query = g.say(
            "archive every {s} email in my inbox",
            "move all inbox mail from {s} to the archive",
            "get the {s} emails out of my inbox, archive them",
            s=sender,
        )
        search = act("search_emails", sender=sender, limit=50)
        args, expect = {"folder": "archive"}, {"folder": "archive"}
    else:
        cands = [
            e
            for e in mails
            if e["folder"] == "inbox" and not e["is_starred"] and e["from_addr"] == "hr@corp.example.com"
        ]
        if not cands:
            raise BuildError("no HR mail")
        m = max(cands, key=lambda e: e["sent_at"])
        ids = [m["message_id"]]
        query = g.say(
            "star the most recent HR email in my inbox ('{s}')",
            "flag HR's latest email, '{s}', with a star",
            "put a star on the newest email from the People Team: {s}",
            s=m["subject"],
        )
        search = act("search_emails", sender="hr@", limit=5)
        args, expect = {"starred": True}, {"is_starred": 1}
    if not ids or len(ids) > 50:
        raise BuildError("nothing to tidy")
    return Draft(
        query=query,
        gold=[search, act("move_email", message_ids=ids, **args), done("Done.")],
        bucket="state_change",
        check={"update": {"emails": [{"match": {"message_id": i}, "set": expect} for i in ids]}},
    )


@family("basic", "1.5", pattern="single_call")
def draft_email(g: Gen) -> Draft:
    person = g.pick(mail_people(g))
    subject, body = g.pick(MAIL_TOPICS)
    return Draft(
        query=g.say(
            "draft an email to {name} (don't send it yet), subject '{subject}': {body}",
            "save a draft to {name} titled {subject} saying {body}; I'll send it later",
            "prepare, but don't send, an email to {name} with subject {subject} and the text: {body}",
            name=person["name"],
            subject=subject,
            body=body,
        ),
        gold=[
            act("search_contacts", name=person["name"]),
            act("save_email_draft", to=[person["contact_id"]], subject=subject, body=body[:1].upper() + body[1:] + "."),
            done("Draft saved."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "emails": [
                    {
                        "folder": "drafts",
                        "to_json": {"$contains": person["email"]},
                        "subject": {"$contains": subject},
                        "body": {"$contains": body[-14:]},
                    }
                ]
            }
        },
    )


# ---- 1.6 Documents & Collaboration ---------------------------------------------------------------

NEW_DOCS = (  # (title, type, content, what the document must say: every dictated item)
    ("Hiring plan", "doc", "Roles: backend engineer, designer. Timeline: Q3.", ("backend engineer", "designer", "Q3")),
    ("Trip budget", "sheet", "Item,Cost\nFlights,900\nHotel,640", ("Item", "Cost", "Flights", "900", "Hotel", "640")),
    ("Sprint demo", "slides", "Slide 1: what we shipped. Slide 2: next sprint.", ("what we shipped", "next sprint")),
    (
        "Moving checklist",
        "doc",
        "Boxes, movers, change address, utilities.",
        ("Boxes", "movers", {"$any": ["change address", "change of address"]}, "utilities"),
    ),
    ("Reading notes", "doc", "Chapter 4: habits compound over time.", ("Chapter 4", "habits compound over time")),
    (
        "Team contacts",
        "sheet",
        "Name,Role\nAlex Turner,Lead\nAlex Morgan,Design",
        ("Name", "Role", "Alex Turner", "Lead", "Alex Morgan", "Design"),
    ),
    ("Wedding toast", "doc", "Thank you all for coming tonight.", ("Thank you all for coming tonight",)),
    (
        "Quarterly review deck",
        "slides",
        "Revenue up, churn down, hiring on track.",
        ("Revenue up", "churn down", "hiring on track"),
    ),
)
FOLDERS = {
    "work": "/Documents/Work",
    "personal": "/Documents/Personal",
    "finance": "/Documents/Finance",
    "school": "/Documents/School",
}
TYPE_WORDS = {"doc": "document", "sheet": "spreadsheet", "slides": "slide deck"}


def new_doc(g: Gen) -> tuple[str, str, str, dict[str, Any], str, str]:
    """A document to create, the matcher of its dictated items, and a folder the persona's storage holds."""
    title, kind, content, items = g.pick(NEW_DOCS)
    existing = {f["path"] for f in g.rows("folders")}
    word = g.pick([w for w, path in FOLDERS.items() if path in existing])
    return title, kind, content, {"$contains_all": list(items)}, word, FOLDERS[word]


def dictated(content: str) -> str:
    """A document's text as the user says it in one line (no closing full stop mid-sentence)."""
    return content.replace("\n", "; ").rstrip(".")


def shared_doc(title: str, kind: str, folder: str, key: dict[str, Any], grantee: str, access: str) -> dict[str, Any]:
    """The state a create-and-share leaves: the document with the dictated text and the grant. The user
    asked only to share, so the share's notification email may be sent or not; any other email is collateral."""
    return {
        "insert": {
            "documents": [{"title": title, "doc_type": kind, "folder_path": folder, "content": key}],
            "file_shares": [{"grantee": grantee, "access": access}],
        },
        "optional_insert": {
            "emails": [{"folder": "sent", "to_json": {"$contains": grantee}, "subject": {"$contains": title}}]
        },
    }


@family("basic", "1.6", pattern="single_call")
def create_doc(g: Gen) -> Draft:
    title, kind, content, key, word, folder = new_doc(g)
    return Draft(
        query=g.say(
            "create a {t} called {title} in my {w} documents folder with: {content}",
            "make a new {t} '{title}' under {folder} containing {content}",
            "start a {t} named {title} in {folder}; put in: {content}",
            t=TYPE_WORDS[kind],
            title=title,
            w=word,
            folder=folder,
            content=dictated(content),
        ),
        gold=[
            act("create_document", title=title, doc_type=kind, content=content, folder_path=folder),
            done(f"Created {title}."),
        ],
        bucket="state_change",
        check={"insert": {"documents": [{"title": title, "doc_type": kind, "folder_path": folder, "content": key}]}},
    )


ACCESS_WORDS = {"view": ("view", "read it"), "comment": ("comment", "leave comments"), "edit": ("edit", "edit it")}


@family("basic", "1.6", pattern="cross_app")
def create_and_share_doc(g: Gen) -> Draft:
    title, kind, content, key, _word, folder = new_doc(g)
    person = g.pick([p for p in mail_people(g) if p["contact_id"] != "contact_007"])
    access = g.pick(list(ACCESS_WORDS))
    return Draft(
        query=g.say(
            "create a {t} '{title}' in {folder} with '{content}' and share it with {name} so they can {a}",
            "make a {t} called {title} ({folder}) saying {content}, then give {name} {level} access",
            "new {t} in {folder}: {title}, text '{content}'. Share it with {name}, {level} access",
            t=TYPE_WORDS[kind],
            title=title,
            folder=folder,
            content=dictated(content),
            name=person["name"],
            a=ACCESS_WORDS[access][1],
            level=access,
        ),
        gold=[
            act("create_document", title=title, doc_type=kind, content=content, folder_path=folder),
            act("search_contacts", name=person["name"]),
            act("share_document", file_id=g.ref(1, "file_id"), share_with=[person["contact_id"]], access=access),
            done(f"Created {title} and shared it with {person['name']}."),
        ],
        bucket="state_change",
        check=shared_doc(title, kind, folder, key, person["email"], access),
    )


@family("basic", "1.6", pattern="friction", friction="invalid_value")
def share_with_contact_without_email(g: Gen) -> Draft:
    title, kind, content, key, _word, folder = new_doc(g)
    person = g.one(
        "contacts",
        filter=lambda c: c["email"] is None and c["relationship"] in ("friend", "classmate", "colleague", "client"),
    )
    name = person["name"]
    address = f"{name.split()[0].lower()}.{name.split()[-1].lower()}@mailbox.example.org"
    access = g.pick(list(ACCESS_WORDS))
    return Draft(
        query=g.say(
            "create a {t} called {title} in {folder} with '{content}' and share it with {name} ({level} access)",
            "make a {t} '{title}' under {folder} ({content}) and let {name} {a}",
            t=TYPE_WORDS[kind],
            title=title,
            folder=folder,
            content=dictated(content),
            name=name,
            level=access,
            a=ACCESS_WORDS[access][1],
        ),
        gold=[
            act("create_document", title=title, doc_type=kind, content=content, folder_path=folder),
            act("search_contacts", name=name),
            act("share_document", file_id=g.ref(1, "file_id"), share_with=[person["contact_id"]], access=access),
            act(
                "ask_user",
                question=f"{name} has no email address saved. Which address should I share it with?",
                slot="email",
            ),
            act("share_document", file_id=g.ref(1, "file_id"), share_with=[address], access=access),
            done(f"Shared {title} with {address}."),
        ],
        bucket="agent_behavior",
        check={"follow_up": {"tool": "ask_user"}, "state": shared_doc(title, kind, folder, key, address, access)},
        script=[{"answer": f"Use {address}.", "slot": "email", "keywords": ["email", "address"]}],
        recovers=(ErrorType.INVALID_ARGUMENT_VALUE,),
    )


# ---- 1.7 Study & Courses -----------------------------------------------------------------------------

COURSEWORK = (
    ("Problem set 7", "homework"),
    ("Essay draft", "homework"),
    ("Lab report 2", "homework"),
    ("Final exam", "exam"),
    ("Quiz 3", "exam"),
    ("Group project report", "project"),
    ("Reading: chapter 9", "reading"),
    ("Case study presentation", "project"),
)


@family("basic", "1.7", pattern="single_call")
def add_assignment(g: Gen) -> Draft:
    course = g.one("courses", filter=lambda c: "Data Science" not in c["name"])
    title, kind = g.pick(COURSEWORK)
    d = g.rng.randint(3, 30)
    hm = g.pick(["09:00", "12:00", "18:00", "23:59"])
    due = f"{g.date(d)}T{hm}"
    ref = g.pick([course["code"], course["name"]])
    remind = g.pick([None, 1440, 120])
    args: dict[str, Any] = {"course": ref, "title": title, "due": due, "kind": kind}
    # the title in the user's words; a kind's prefix ("Reading: chapter 9") is the kind, said again
    named = {"$contains": title.split(": ")[-1]}
    check: dict[str, Any] = {
        "insert": {"assignments": [{"course_id": course["course_id"], "title": named, "due": due, "kind": kind}]}
    }
    extra = ""
    if remind:
        args["reminder_min"] = remind
        extra = ", and remind me a day before" if remind == 1440 else ", with a reminder two hours before"
        at = (dt.datetime.strptime(due, FMT) - dt.timedelta(minutes=remind)).strftime(FMT)
        check["insert"]["tasks"] = [{"remind_at": at}]
    return Draft(
        query=g.say(
            "add '{title}' ({kind}) for {ref}, due {when} at {t}{extra}",
            "log {a} {kind} for my {ref} course: {title}, due {when} {t}{extra}",
            "{ref}: {title} is due {when} at {t}; record it as {kind}{extra}",
            title=title,
            kind=kind,
            ref=ref,
            a="an" if kind[0] in "aeiou" else "a",
            when=g.when(d),
            t=hm,
            extra=extra,
        ),
        gold=[act("add_course_assignment", **args), done("Recorded.")],
        bucket="state_change",
        check=check,
    )


@family("basic", "1.7", pattern="friction", friction="ambiguous_entity")
def ambiguous_course(g: Gen) -> Draft:
    course = g.one("courses", filter=lambda c: "Data Science" in c["name"])
    title, kind = g.pick(COURSEWORK)
    d = g.rng.randint(3, 30)
    hm = g.pick(["09:00", "12:00", "18:00", "23:59"])
    due = f"{g.date(d)}T{hm}"
    answer = {"DS101": "The intro one, DS101.", "DS201": "The applied one, DS201."}[course["code"]]
    return Draft(
        query=g.say(
            "add {title} for my data science course, due {when} at {t}",
            "data science: {title} is due {when} at {t}, log it",
            "record '{title}' for data science, due {when} {t}",
            title=title,
            when=g.when(d),
            t=hm,
        ),
        gold=[
            act("add_course_assignment", course="Data Science", title=title, due=due, kind=kind),
            act(
                "ask_user",
                question="You take two data science courses: Intro to Data Science (DS101) and Applied "
                "Data Science (DS201). Which one?",
                kind="choose",
                options=["DS101", "DS201"],
            ),
            act("add_course_assignment", course=course["code"], title=title, due=due, kind=kind),
            done(f"Added {title} to {course['name']}."),
        ],
        bucket="agent_behavior",
        check={
            "follow_up": {"tool": "ask_user"},
            "state": {"insert": {"assignments": [{"course_id": course["course_id"], "title": title, "due": due}]}},
        },
        script=[{"answer": answer, "slot": "course", "keywords": ["which", "ds101", "ds201", "data science"]}],
        recovers=(ErrorType.AMBIGUOUS_ENTITY,),
    )


# ---- 1.8 Focus & Time Tracking -------------------------------------------------------------------

BLOCKABLE = (
    ("social", "social media"),
    ("video", "the video app"),
    ("shortvid", "short videos"),
    ("chat", "chat"),
    ("kingdom_clash", "Kingdom Clash"),
)


def focus_effects(g: Gen, minutes: int, cycles: int, pause: int) -> tuple[str, dict[str, Any]]:
    ends = (g.now.replace(second=0) + dt.timedelta(minutes=cycles * minutes + (cycles - 1) * pause)).strftime(FMT)
    updates = [{"match": {"key": "dnd"}, "set": {"value": "1"}}] if g.setting("dnd") != "1" else []
    updates.append({"match": {"key": "dnd_until"}, "set": {"value": ends}})
    return ends, {"device_settings": updates}


@family("basic", "1.8", pattern="single_call")
def pomodoro(g: Gen) -> Draft:
    installed = {a["app_id"] for a in g.rows("apps") if a["installed"]}
    options = [b for b in BLOCKABLE if b[0] in installed]
    block = g.rng.sample(options, g.pick([0, 1, 2]))
    minutes, cycles, pause = g.pick([25, 30, 45, 50]), g.pick([1, 2, 3, 4]), g.pick([5, 10])
    if g.setting("dnd") == "1" and not g.setting("dnd_until"):
        raise BuildError("dnd already on indefinitely")
    _, updates = focus_effects(g, minutes, cycles, pause)
    args: dict[str, Any] = {"duration_min": minutes, "cycles": cycles}
    expect: dict[str, Any] = {"duration_min": minutes, "cycles": cycles, "status": "active"}
    rounds = f"{cycles} rounds of {minutes} minutes" if cycles > 1 else f"{minutes} minutes"
    pause_txt = f" with {pause}-minute breaks" if cycles > 1 else ""
    if cycles > 1:
        args["break_min"] = pause
        expect["break_min"] = pause
    block_txt = ""
    if block:
        args["blocked_apps"] = sorted(b[0] for b in block)
        expect["blocked_apps_json"] = {"$json": {"$set": sorted(b[0] for b in block)}}
        block_txt = " and block " + " and ".join(b[1] for b in block)
    return Draft(
        query=g.say(
            "start a focus session: {rounds}{pause}{block}",
            "focus mode now, {rounds}{pause}{block}",
            "I need to concentrate: {rounds}{pause}{block}",
            rounds=rounds,
            pause=pause_txt,
            block=block_txt,
        ),
        gold=[act("start_focus_session", **args), done("Focus session started.")],
        bucket="state_change",
        check={"insert": {"focus_sessions": [expect]}, "update": updates},
    )


@family("basic", "1.8", pattern="lookup_then_act")
def focus_on_task(g: Gen) -> Draft:
    t = g.one("tasks", filter=lambda r: r in open_tasks(g) and r["list_name"] in ("Work", "Inbox"))
    minutes = g.pick([25, 40, 50, 60, 90])
    if g.setting("dnd") == "1" and not g.setting("dnd_until"):
        raise BuildError("dnd already on indefinitely")
    _, updates = focus_effects(g, minutes, 1, 5)
    return Draft(
        query=g.say(
            "start a {m}-minute focus session on '{title}'",
            "I'm going to work on '{title}' for {m} minutes; start a focus session for that task",
            "focus timer: {m} minutes on the task '{title}'",
            m=minutes,
            title=t["title"],
        ),
        gold=[
            act("list_tasks", list_name=t["list_name"]),
            act("start_focus_session", duration_min=minutes, task_id=t["task_id"]),
            done("Started."),
        ],
        bucket="state_change",
        check={"insert": {"focus_sessions": [{"duration_min": minutes, "task_id": t["task_id"]}]}, "update": updates},
    )


# ---- 1.9 Daily Agenda & Briefing -----------------------------------------------------------------


@family("basic", "1.9", pattern="single_call")
def agenda_for_day(g: Gen) -> Draft:
    d = g.rng.randint(1, 20)
    day = g.date(d)
    # what get_daily_agenda lists: live events touching the day (by start), open tasks due or reminders set then
    events = sorted(
        (e for e in live_events(g) if e["start"] <= f"{day}T23:59" and e["end"] > day),
        key=lambda e: (e["start"], e["event_id"]),
    )
    todo = [t for t in g.rows("tasks") if t["status"] == "open" and day in (t["due"], (t["remind_at"] or "")[:10])]
    said = [f"{e['title']} at {e['start'][11:16]}" for e in events] + [f"to do: {t['title']}" for t in todo]
    query = g.say(
        "what's on my agenda {when}?",
        "give me a rundown of {day}",
        "what does {when} look like for me?",
        "brief me on {day}: meetings, to-dos and alarms",
        when=g.when(d),
        day=g.when(d).removeprefix("on "),
    )
    if "alarms" in query:  # asked for: the alarms that ring that day
        weekday = WEEKDAYS[dt.date.fromisoformat(day).weekday()]
        said += [
            f"alarm '{a['label']}' at {a['time']}"
            for a in g.rows("alarms")
            if a["enabled"] and (not json.loads(a["days_json"]) or weekday in json.loads(a["days_json"]))
        ]
    answer = f"Your agenda: {'; '.join(said)}." if said else "You have no events, tasks or reminders that day."
    return Draft(
        query=query,
        gold=[act("get_daily_agenda", date=day), done(answer)],
        bucket="tool_call",
        check={"calls": [{"tool": "get_daily_agenda", "args": {"date": day}}]},
    )


@family("basic", "1.9", pattern="lookup_then_act")
def prep_reminder_for_first_event(g: Gen) -> Draft:
    d = g.rng.randint(2, 12)
    day = g.date(d)
    first = [e for e in live_events(g) if e["start"] <= f"{day}T23:59" and e["end"] > day]
    if not first:
        raise BuildError("empty day")
    ev = sorted(first, key=lambda e: (e["start"], e["event_id"]))[0]
    hm = g.pick(["19:00", "20:00", "21:00", "20:30"])
    at = f"{g.date(d - 1)}T{hm}"
    return Draft(
        query=g.say(
            "check my agenda for {when} and remind me at {t} the evening before to prepare for the first "
            "event of that day",
            "look at {when}'s schedule and set a reminder the night before, {t}, to get ready for whatever "
            "comes first that day",
            when=g.when(d).removeprefix("on "),
            t=hm_words(hm),
        ),
        gold=[
            act("get_daily_agenda", date=day),
            act("create_reminder", text=f"Prepare for {ev['title']}", remind_at=at),
            done(f"Your first event {g.when(d)} is {ev['title']}; I'll remind you at {hm} the evening before."),
        ],
        bucket="state_change",
        check={"insert": {"tasks": [{"title": {"$contains": ev["title"]}, "remind_at": at}]}},
    )
