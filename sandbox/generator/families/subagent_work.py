"""Sub-agent Collaboration families for Work, Study & Productivity (D1): one per level-2 category 1.1-1.9.

GUI agent: roombook (1.1); screen reader also for screen-time stats (1.8);
monitor agent: a cancelled meeting (1.2) and an awaited email (1.5); screen reader: a whiteboard (1.4), an
expense receipt list (1.6) and a course page (1.7); voice agent: a pharmacy (1.3) and a salon (1.9).
"""

from __future__ import annotations

import datetime as dt
import json

from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import family, service_phone, snapshot_patch, told_agent
from sandbox.generator.families.basic_work import (
    FMT,
    contact,
    day_phrase,
    focus_effects,
    hm_words,
    is_free,
    now_minute,
    unique_future,
)

# ---- 1.1 GUI: book a meeting room for an existing meeting; the flow needs the head count ------------------


@family("subagent", "1.1", agent="gui_agent", friction="sub_agent_failed")
def book_room_for_meeting(g: Gen) -> Draft:
    ev = g.pick(
        unique_future(
            g,
            lambda e: (
                e["is_organizer"] == 1
                and e["start"][:10] == e["end"][:10]
                and e["calendar"] == "work"
                and dt.date.fromisoformat(e["start"][:10]).weekday() < 5
            ),
        )
        or [None]  # type: ignore[list-item]
    )
    if ev is None:
        raise BuildError("no own future work meeting on a weekday")
    n = g.rng.randint(3, 12)
    day, start, end = ev["start"][:10], ev["start"][11:], ev["end"][11:]
    taken = {b["room"] for b in g.rows("room_bookings", {"date": day}) if b["start"] < end and b["end"] > start}
    room = next(
        r["room"]
        for r in sorted(g.rows("meeting_rooms"), key=lambda r: (r["capacity"], r["room"]))
        if r["capacity"] >= n and r["room"] not in taken
    )  # the flow takes the smallest free room that fits
    base = {"date": day, "start": start, "end": end, "title": ev["title"]}
    goal = f"Book a meeting room for {ev['title']}"
    return Draft(
        query=g.say(
            "book a meeting room for my {title} {when}",
            "I need a room for the {title} {when}; book one in roombook",
            "grab a meeting room for the {title} {when}",
            title=ev["title"],
            when=day_phrase(g, ev["start"]),
        ),
        gold=[
            act("search_calendar_events", query=ev["title"]),
            act("call_gui_agent", app_id="roombook", goal=goal, inputs=base, expected_outputs=["room"]),
            act("ask_user", question=f"How many people will attend the {ev['title']}?", slot="attendees"),
            act(
                "call_gui_agent",
                app_id="roombook",
                goal=goal,
                inputs={**base, "attendees": n},
                expected_outputs=["room"],
            ),
            done(f"Booked a room for {n} people."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "roombook"},  # inputs by any name or ISO time: the room shows the head count
            "state": {
                "insert": {
                    "room_bookings": [
                        {
                            "room": room,
                            "date": day,
                            "start": start,
                            "end": end,
                            "attendees": n,
                            "booked_by": "gui_agent",
                        }
                    ]
                }
            },
        },
        script=[
            {
                "answer": f"{n} people.",
                "slot": "attendees",
                "keywords": ["how many", "people", "attend"],
                "kind": "clarify",
            }
        ],
        recovers=(ErrorType.SUB_AGENT_FAILED,),
    )


# ---- 1.2 monitor: if the project review is cancelled, push its prep task ----------------------------------


@family("subagent", "1.2", agent="monitor_agent")
def push_task_if_meeting_cancelled(g: Gen) -> Draft:
    review = g.one("calendar_events", {"title": "Project review"})
    prep = g.one("tasks", {"title": "Prepare slides for project review", "status": "open"})
    other = g.one(
        "tasks",
        filter=lambda t: (
            t["status"] == "open"
            and t["list_name"] == "Work"
            and t["task_id"] != prep["task_id"]
            and t["priority"] != "high"
        ),
    )
    d = g.rng.randint(5, 10)
    new_due = g.date(d)
    at = (g.now + dt.timedelta(hours=3)).strftime(FMT)
    condition = {
        "tool": "search_calendar_events",
        "args": {"query": "Project review"},
        "path": "$.count",
        "op": "eq",
        "value": 0,
    }
    return Draft(
        query=g.say(
            "make '{other}' high priority now. And keep an eye on tomorrow's Project review: if it gets "
            "cancelled, move '{prep}' to {when}",
            "bump '{other}' to high priority, and if the Project review gets called off, push the task "
            "'{prep}' to {when}",
            other=other["title"],
            prep=prep["title"],
            when=g.when(d).removeprefix("on "),
        ),
        gold=[
            act("list_tasks", list_name="Work"),
            act("update_task", task_id=other["task_id"], priority="high"),
            act(
                "call_monitor_agent",
                condition=condition,
                on_trigger=[{"tool": "update_task", "args": {"task_id": prep["task_id"], "due": new_due}}],
                description="If the Project review is cancelled, move the slides task",
            ),
            done("Done; I'll move the slides task if the review is cancelled."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {"condition": {"tool": "search_calendar_events", "args": {"query": {"$contains": "review"}}}},
            "state": {
                "update": {
                    "tasks": [
                        {"match": {"task_id": other["task_id"]}, "set": {"priority": "high"}},
                        {"match": {"task_id": prep["task_id"]}, "set": {"due": new_due}},
                    ],
                    "calendar_events": [{"match": {"event_id": review["event_id"]}, "set": {"status": "cancelled"}}],
                },
                "insert": {"monitors": [{"status": "triggered"}]},
            },
        },
        events=[
            {
                "at": at,
                "changes": {
                    "update": {
                        "calendar_events": [{"match": {"event_id": review["event_id"]}, "set": {"status": "cancelled"}}]
                    }
                },
            }
        ],
    )


# ---- 1.3 voice: ask the pharmacy, then set a pick-up reminder ---------------------------------------------


@family("subagent", "1.3", agent="voice_agent")
def pharmacy_then_reminder(g: Gen) -> Draft:
    d = g.rng.randint(1, 3)
    hm = g.pick(["17:30", "18:00", "12:30"])
    at = f"{g.date(d)}T{hm}"
    pharmacy = service_phone(g, "Corner Pharmacy")
    return Draft(
        query=g.say(
            "call Corner Pharmacy ({p}) and ask whether they have ibuprofen in stock; if they "
            "do, remind me {when} at {t} to pick it up",
            "phone the Corner Pharmacy on {p} to check if ibuprofen is in stock, then set a "
            "reminder {when} at {t} to collect it",
            when=g.when(d),
            t=hm_words(hm),
            p=pharmacy,
        ),
        gold=[
            act(
                "call_voice_agent",
                callee={"phone": pharmacy},
                objective="Ask whether they have ibuprofen in stock",
                facts={},
            ),
            act("create_reminder", text="Pick up ibuprofen at Corner Pharmacy", remind_at=at),
            done("They have ibuprofen in stock (12 packs); I set the pick-up reminder."),
        ],
        # what the pharmacy said: it has ibuprofen (the state holds the reminder that depends on it)
        answer=[{"$any": [{"$name": w} for w in ("in stock", "have ibuprofen", "have it", "available")]}],
        bucket="agent_behavior",
        check={
            "route": "call_voice_agent",
            "handoff": {"callee": {"phone": {"$phone": pharmacy}}},
            "state": {
                "insert": {
                    "tasks": [{"title": {"$contains": "ibuprofen"}, "remind_at": at}],
                    "subagent_jobs": [told_agent("voice_agent", "ibuprofen")],
                }
            },
        },
    )


# ---- 1.4 screen reader: whiteboard photo to a note ----------------------------------------------------------

BOARDS = (
    ["Ship beta on the 20th", "Hire a QA contractor", "Move standup to 10:00"],
    ["Renew the SSL certificate", "Draft the FAQ", "Book the offsite venue"],
    ["Fix the login bug", "Update the pricing page", "Email the pilot customers"],
)


@family("subagent", "1.4", agent="screen_reader_agent")
def whiteboard_to_note(g: Gen) -> Draft:
    items = list(g.pick(BOARDS))
    sid = "snapshot_101"
    title = g.pick(["Whiteboard actions", "Action items from the board", "Team board"])
    text = "ACTION ITEMS\n" + "\n".join(f"- {i}" for i in items) + "\n(whiteboard, room 3)"
    return Draft(
        query=g.say(
            "read the action items off the whiteboard photo on my screen (snapshot_101) and save them in a "
            "note called '{title}'",
            "there's a whiteboard shot on screen, snapshot_101; put its action items in a new note titled {title}",
            title=title,
        ),
        gold=[
            act("call_screen_reader_agent", source={"type": "screen", "id": sid}, extract_fields=["action_items"]),
            act("create_note", title=title, content="\n".join(items)),
            done("Saved the action items."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": {"source": {"type": "screen", "id": sid}},
            "state": {"insert": {"notes": [{"title": title, "content": {"$contains_all": items}}]}},
        },
        patches=snapshot_patch(sid, "camera", text, {"action_items": items}),
    )


# ---- 1.5 monitor: ask for a contract by email, forward it when it arrives -------------------------------------


@family("subagent", "1.5", agent="monitor_agent")
def forward_contract_when_it_arrives(g: Gen) -> Draft:
    colleague, boss = contact(g, "contact_005"), contact(g, "contact_004")
    doc = g.pick(["signed contract", "signed NDA", "signed statement of work"])
    key = doc.split()[1]
    at = g.now + dt.timedelta(hours=2)
    incoming = {
        "message_id": "email_900",
        "thread_id": "email_900",
        "folder": "inbox",
        "from_name": colleague["name"],
        "from_addr": colleague["email"],
        "to_json": json.dumps([g.persona.email]),
        "cc_json": "[]",
        "bcc_json": "[]",
        "subject": f"The {doc}",
        "body": f"Here is the {doc}, all pages initialled.",
        "attachments_json": json.dumps([{"name": f"{key.lower()}_signed.pdf", "size_mb": 0.4}]),
        "is_read": 0,
        "is_starred": 0,
        "in_reply_to": None,
        "sent_at": at.strftime("%Y-%m-%dT%H:%M:%S"),
        "created_at": at.strftime("%Y-%m-%dT%H:%M:%S"),
        "updated_at": at.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    search = {"query": f"signed {key}", "folder": "inbox"}
    plan = [
        {
            "tool": "send_email",
            "args": {
                "to": ["contact_004"],
                "subject": f"The {doc} is in",
                "body": f"The {doc} from Alex Morgan has arrived; it's in my inbox.",
            },
        }
    ]
    return Draft(
        query=g.say(
            "email Alex Morgan to ask for the {doc}, and as soon as it lands in my inbox let Alex Turner know by email",
            "ask Alex Morgan by email to send me the {doc}; when it arrives, email my boss Alex Turner that it's in",
            doc=doc,
        ),
        gold=[
            act("search_emails", query=f"signed {key}", folder="inbox"),
            act("search_contacts", name=colleague["name"]),
            act("search_contacts", name=boss["name"]),
            act(
                "send_email",
                to=["contact_005"],
                subject=f"Signed {key}",
                body=f"Hi Alex, could you send me the {doc}? Thanks!",
            ),
            act(
                "call_monitor_agent",
                condition={"tool": "search_emails", "args": search, "path": "$.count", "op": "ge", "value": 1},
                on_trigger=plan,
                description=f"Tell Alex Turner when the {doc} arrives",
            ),
            done(f"Asked Alex Morgan; I'll email Alex Turner when the {doc} comes in."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {"condition": {"tool": "search_emails", "args": {"query": {"$contains": key}}}},
            "state": {
                "insert": {
                    "emails": [
                        {"folder": "sent", "to_json": {"$contains": colleague["email"]}, "body": {"$contains": key}},
                        {"message_id": "email_900"},
                        {"folder": "sent", "to_json": {"$contains": boss["email"]}, "body": {"$contains": key}},
                    ],
                    "monitors": [{"status": "triggered"}],
                }
            },
        },
        events=[{"at": at.strftime(FMT), "changes": {"insert": {"emails": [incoming]}}}],
    )


# ---- 1.6 screen reader: expenses on screen to a shared spreadsheet ---------------------------------------------

EXPENSES = (
    (("Taxi", 38), ("Hotel", 412), ("Dinner", 96)),
    (("Train", 74), ("Hotel", 289), ("Lunch", 31)),
    (("Flight", 520), ("Taxi", 45), ("Conference fee", 350)),
)


@family("subagent", "1.6", agent="screen_reader_agent")
def expenses_to_shared_sheet(g: Gen) -> Draft:
    items = g.pick(EXPENSES)
    sid = "snapshot_103"
    title = g.pick(["Trip expenses", "Conference expenses", "Travel claim"])
    text = "EXPENSE SUMMARY\n" + "\n".join(f"{n} .... {a}.00" for n, a in items)
    boss = contact(g, "contact_004")
    content = "Item,Amount\n" + "\n".join(f"{n},{a}" for n, a in items)
    return Draft(
        query=g.say(
            "turn the expense summary on my screen (snapshot_103) into a spreadsheet called '{title}' in "
            "/Documents/Finance and share it with Alex Turner so he can edit",
            "read the expenses shown in snapshot_103, put them in a new sheet '{title}' under "
            "/Documents/Finance, and give Alex Turner edit access",
            title=title,
        ),
        gold=[
            act("call_screen_reader_agent", source={"type": "screen", "id": sid}, extract_fields=["expenses"]),
            act("create_document", title=title, doc_type="sheet", content=content, folder_path="/Documents/Finance"),
            act("search_contacts", name=boss["name"]),
            act("share_document", file_id=g.ref(2, "file_id"), share_with=["contact_004"], access="edit"),
            done("Created the sheet and shared it with Alex Turner."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": {"source": {"type": "screen", "id": sid}},
            "state": {
                "insert": {
                    "documents": [
                        {
                            "title": title,
                            "doc_type": "sheet",
                            "folder_path": "/Documents/Finance",
                            "content": {"$contains_all": [str(a) for _, a in items]},
                        }
                    ],
                    "file_shares": [{"grantee": boss["email"], "access": "edit"}],
                },
                # the user asked only to share: the share's notification email may be sent or not
                "optional_insert": {"emails": [{"folder": "sent", "to_json": {"$contains": boss["email"]}}]},
            },
        },
        patches=snapshot_patch(sid, "browser", text, {"expenses": [{"item": n, "amount": a} for n, a in items]}),
    )


# ---- 1.7 screen reader: a deadline on the course page into the campus app ---------------------------------------


@family("subagent", "1.7", agent="screen_reader_agent")
def course_page_deadline(g: Gen) -> Draft:
    course = g.one("courses", filter=lambda c: "Data Science" not in c["name"])
    title, kind = g.pick([("Case study 2", "project"), ("Problem set 8", "homework"), ("Quiz 4", "exam")])
    d = g.rng.randint(6, 20)
    due = f"{g.date(d)}T23:59" if kind != "exam" else f"{g.date(d)}T18:00"
    sid = "snapshot_104"
    text = f"{course['code']} {course['name']}\nAnnouncements\n{title} due {due.replace('T', ' ')}"
    fields = {"course_code": course["code"], "title": title, "due": due, "kind": kind}
    return Draft(
        query=g.say(
            "I'm looking at my {code} course page (snapshot_104); add the deadline it shows to my coursework",
            "read the deadline off the {code} announcement on screen, snapshot_104, and record it for that course",
            "snapshot_104 is the {name} page: log the deadline it announces",
            code=course["code"],
            name=course["name"],
        ),
        gold=[
            act(
                "call_screen_reader_agent",
                source={"type": "screen", "id": sid},
                extract_fields=["course_code", "title", "due", "kind"],
            ),
            act("add_course_assignment", course=course["code"], title=title, due=due, kind=kind),
            done(f"Added {title} for {course['code']}, due {due}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": {"source": {"type": "screen", "id": sid}},
            "state": {"insert": {"assignments": [{"course_id": course["course_id"], "title": title, "due": due}]}},
        },
        patches=snapshot_patch(sid, "browser", text, fields),
    )


# ---- 1.8 screen reader: screen-time stats decide which app a focus session blocks --------------------------

USAGE = (("shortvid", "Short videos"), ("social", "Social"), ("video", "Video"), ("chat", "Chat"))


@family("subagent", "1.8", agent="screen_reader_agent")
def block_top_app_in_focus(g: Gen) -> Draft:
    installed = {a["app_id"] for a in g.rows("apps") if a["installed"]}
    ranked = g.rng.sample([u for u in USAGE if u[0] in installed], 3)
    minutes = g.pick([30, 45, 50, 60, 90])
    if g.setting("dnd") == "1" and not g.setting("dnd_until"):
        raise BuildError("dnd already on indefinitely")
    _, updates = focus_effects(g, minutes, 1, 5)
    sid = "snapshot_105"
    spent = sorted(g.rng.sample(range(20, 190), 3), reverse=True)
    text = "Screen time today\n" + "\n".join(
        f"{label} ({app}): {m // 60}h {m % 60:02d}m" for (app, label), m in zip(ranked, spent)
    )
    top = ranked[0][0]
    return Draft(
        query=g.say(
            "look at the screen-time page on my screen (snapshot_105) and start a {m}-minute focus session "
            "that blocks whichever app I used most today",
            "snapshot_105 shows today's screen time: block the top app and start focusing for {m} minutes",
            "start {m} minutes of focus and block my most-used app today (see the screen-time screenshot, "
            "snapshot_105)",
            m=minutes,
        ),
        gold=[
            act("call_screen_reader_agent", source={"type": "screen", "id": sid}, extract_fields=["top_app"]),
            act("start_focus_session", duration_min=minutes, blocked_apps=[top]),
            done(f"Focusing for {minutes} minutes with {top} blocked."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": {"source": {"type": "screen", "id": sid}},
            "state": {
                "insert": {"focus_sessions": [{"duration_min": minutes, "blocked_apps_json": {"$contains": top}}]},
                "update": updates,
            },
        },
        patches=snapshot_patch(
            sid,
            "settings",
            text,
            {"top_app": top, "usage_minutes": dict((app, m) for (app, _), m in zip(ranked, spent))},
        ),
    )


# ---- 1.9 voice: book a haircut at the first free time of the day, then calendar it --------------------------------


@family("subagent", "1.9", agent="voice_agent")
def haircut_in_free_slot(g: Gen) -> Draft:
    d = g.rng.randint(1, 6)
    day = g.date(d)
    options = ("10:00", "14:00", "17:00")
    free = [
        t
        for t in options
        if f"{day}T{t}" > now_minute(g)
        and is_free(g, f"{day}T{t}", (dt.datetime.strptime(f"{day}T{t}", FMT) + dt.timedelta(hours=1)).strftime(FMT))
    ]
    if not free:
        raise BuildError("no free salon slot")
    t = free[0]
    start = f"{day}T{t}"
    end = (dt.datetime.strptime(start, FMT) + dt.timedelta(hours=1)).strftime(FMT)
    salon = service_phone(g, "Style Studio")
    return Draft(
        query=g.say(
            "check my agenda {when}, then call Style Studio salon ({p}) to book a haircut at the "
            "first of 10 am, 2 pm or 5 pm that I'm free, and put it on my calendar for an hour",
            "{when} I want a haircut at Style Studio, {p}: look at my day, phone them for the "
            "earliest of 10:00, 14:00 or 17:00 that fits, and add the appointment (1 hour) to my calendar",
            when=g.when(d),
            p=salon,
        ),
        gold=[
            act("get_daily_agenda", date=day),
            act(
                "call_voice_agent",
                callee={"phone": salon},
                objective="Book a haircut",
                facts={"date": day, "time": t, "name": g.persona.name},
            ),
            act("create_calendar_event", title="Haircut at Style Studio", start=start, end=end),
            done(f"Booked a haircut at {t} and added it to your calendar."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_voice_agent",
            "handoff": {"callee": {"phone": {"$phone": salon}}, "facts": {"date": day, "time": t}},
            "state": {
                "insert": {
                    "phone_bookings": [{"business_phone": salon, "date": day, "time": t}],
                    "calendar_events": [
                        {"title": {"$regex": "hair|cut|salon|style studio"}, "start": start, "end": end}
                    ],
                    "subagent_jobs": [told_agent("voice_agent", "hair|cut|trim")],
                }
            },
        },
    )
