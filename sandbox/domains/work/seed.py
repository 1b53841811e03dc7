"""The work domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import datetime as dt
import json
import random
from typing import Any

from sqlalchemy import Connection, insert, select

from sandbox.domains.communication.schema import contacts
from sandbox.domains.productivity.schema import DT_FMT, WEEKDAYS
from sandbox.domains.work.schema import assignments, courses, documents, emails, file_shares, focus_sessions
from sandbox.personas import Persona, seeder

# ---- World data -------------------------------------------------------------------------------

ORGS = {  # sender key -> (display name, address)
    "hr": ("People Team", "hr@corp.example.com"),
    "techpulse": ("TechPulse", "weekly@techpulse.example.com"),
    "citydaily": ("City Daily", "news@citydaily.example.com"),
    "coffeelab": ("Coffee Lab", "hello@coffeelab.example.com"),
    "bank": ("Harbor Bank", "statements@harborbank.example.com"),
    "utility": ("City Power", "billing@citypower.example.com"),
    "airline": ("Sky Airlines", "bookings@skyair.example.com"),
    "shop": ("ShopMall", "orders@shopmall.example.com"),
    "campus": ("Campus Online", "noreply@campus.example.edu"),
    "spam1": ("Prize Center", "prize@win-big.example.net"),
    "spam2": ("Account Security", "security@acc0unt-verify.example.net"),
}
PEOPLE = {"boss": "contact_004", "colleague": "contact_005", "spouse": "contact_001", "mother": "contact_002"}

# Incoming mail: (kind, sender key, subject, body, attachments as (name, MB)); "team" is any colleague.
INBOUND = [
    (
        "work",
        "boss",
        "Q{q} budget review",
        "Hi {name},\n\nPlease review the attached budget draft before Thursday and "
        "flag anything above plan.\n\nThanks,\n{sender}",
        [("budget_q{q}.xlsx", 0.8)],
    ),
    (
        "work",
        "colleague",
        "Design mockups v{n}",
        "Hi {name}, the latest dashboard mockups are attached. Feedback by Friday would be great.",
        [("mockups_v{n}.pdf", 4.2)],
    ),
    (
        "work",
        "boss",
        "Project Phoenix: weekly status",
        "Status: on track. Risk: the API review is late. Next: load testing on staging.",
        [],
    ),
    (
        "work",
        "colleague",
        "Code review: PR #{n}",
        "Could you take a look at PR #{n}? It touches the billing service.",
        [],
    ),
    (
        "work",
        "team",
        "Offsite planning",
        "We're looking at the last week of the month for the team offsite. Which days work for you?",
        [],
    ),
    (
        "work",
        "team",
        "Meeting notes {day}",
        "Notes from today's sync are attached. Action items are at the bottom.",
        [("notes_{day}.docx", 0.1)],
    ),
    (
        "work",
        "boss",
        "Travel approval",
        "Your trip to Shanghai is approved. Please book through the travel portal.",
        [],
    ),
    (
        "work",
        "team",
        "Client feedback",
        "The client liked the demo but wants the export feature sooner. Can we discuss tomorrow?",
        [],
    ),
    ("hr", "hr", "Payslip for {month}", "Your payslip for {month} is attached.", [("payslip_{month}.pdf", 0.2)]),
    (
        "hr",
        "hr",
        "Open enrolment for health benefits",
        "Open enrolment closes on the 30th. Review your plan in the HR portal.",
        [],
    ),
    (
        "hr",
        "hr",
        "Updated leave policy",
        "The updated annual leave policy takes effect next month. Details are in the attached PDF.",
        [("leave_policy.pdf", 0.6)],
    ),
    (
        "newsletter",
        "techpulse",
        "This week in tech: {k} stories you missed",
        "Foldable phones, battery tips and the smartwatch showdown.",
        [],
    ),
    ("newsletter", "citydaily", "Your weekend guide", "Night market, jazz in the park and road works to avoid.", []),
    (
        "newsletter",
        "coffeelab",
        "20% off Ethiopian beans this week",
        "Use code BREW20 at checkout. Offer ends Sunday.",
        [],
    ),
    (
        "finance",
        "bank",
        "Your {month} statement is ready",
        "Your card statement for {month} is attached. Payment is due on the 25th.",
        [("statement_{month}.pdf", 0.4)],
    ),
    (
        "finance",
        "utility",
        "Electricity bill for {month}",
        "Your electricity bill for {month} is {amount}, due on the 20th.",
        [],
    ),
    (
        "travel",
        "airline",
        "Booking confirmation: flight CA{n}",
        "Your booking is confirmed. Check-in opens 24 hours before departure.",
        [("eticket_CA{n}.pdf", 0.3)],
    ),
    ("shop", "shop", "Your order #{n} has shipped", "Your parcel is on the way and should arrive in 2-3 days.", []),
    (
        "campus",
        "campus",
        "New grade posted in {course}",
        "A new grade is available for {course}. Open the campus app to see it.",
        [],
    ),
    ("campus", "campus", "Reminder: {course} assignment due soon", "An assignment for {course} is due this week.", []),
    (
        "family",
        "spouse",
        "Photos from the weekend",
        "Here are the photos from Saturday. Everyone loved the lake!",
        [("weekend_photos.zip", 8.5)],
    ),
    (
        "family",
        "spouse",
        "Dinner with my parents",
        "Are we still on for dinner with my parents on Sunday? I'll book the place.",
        [],
    ),
    ("family", "mother", "Recipe you asked for", "Here is the dumpling recipe. Don't forget the ginger!", []),
    ("spam", "spam1", "You have won a prize!!!", "Claim your prize now by replying with your bank details.", []),
    ("spam", "spam2", "Your account will be suspended", "Verify your password within 24 hours at the link below.", []),
]
# The user's own mail: (folder, recipient key, subject, body, attachments).
OUTBOUND = [
    (
        "sent",
        "boss",
        "Slides for the project review",
        "Hi Alex, the slides for the review are attached.",
        [("project_review.pptx", 3.1)],
    ),
    ("sent", "spouse", "Flight details", "Our flight leaves at 08:40 from Terminal 3.", []),
    ("sent", "colleague", "Lunch on Thursday?", "Want to grab lunch on Thursday?", []),
    ("sent", "hr", "Leave request", "I'd like to take three days of annual leave next month.", []),
    ("drafts", "boss", "Re: Offsite planning", "I can do Tuesday or Wednesday, but", []),
    ("drafts", "hr", "Question about the dental plan", "Hi, does the dental plan cover", []),
]
REPLIES = [
    "Thanks, will do.",
    "Looks good to me. Let's go ahead.",
    "I'll have it ready by Thursday.",
    "Can we talk about this tomorrow morning?",
    "Thanks! Sunday works for us.",
]
FOOTAGE = (
    "Raw footage from the shoot",
    "Both clips from Tuesday's product shoot.",
    [("clip_a.mp4", 14.2), ("clip_b.mp4", 13.1)],
)  # together over the 25 MB sending limit

DOCS = [  # (title, type, folder, content, MB)
    (
        "Q2 budget",
        "sheet",
        "/Documents/Finance",
        "Category,Plan,Actual\nTravel,12000,9800\nSoftware,8000,8450\nTraining,5000,3200",
        0.35,
    ),
    (
        "Project Phoenix roadmap",
        "slides",
        "/Documents/Work",
        "Q3: load testing and beta launch. Q4: general availability.",
        2.8,
    ),
    (
        "Meeting notes",
        "doc",
        "/Documents/Work",
        "Decisions: ship the beta in July. Owners: Alex Morgan (design), Alex Turner (scope).",
        0.05,
    ),
    ("Onboarding checklist", "doc", "/Documents/Work", "Laptop, badge, accounts, buddy lunch, first-week goals.", 0.04),
    ("Team offsite agenda", "doc", "/Documents/Work", "Day 1: strategy. Day 2: hackathon. Dinner at the lake.", 0.04),
    ("Client demo script", "doc", "/Documents/Work", "1. Login 2. Dashboard tour 3. Export 4. Q&A", 0.06),
    (
        "Quarterly OKRs",
        "sheet",
        "/Documents/Work",
        "Objective,Key result,Progress\nLaunch dashboard,Beta live,60%",
        0.12,
    ),
    ("Resume", "doc", "/Documents/Personal", "Software engineer, 8 years. Skills: Python, SQL, data pipelines.", 0.09),
    ("Trip plan: Tokyo", "doc", "/Documents/Personal", "Day 1 Asakusa, day 2 Shibuya, day 3 Kamakura day trip.", 0.07),
    (
        "Anniversary ideas",
        "doc",
        "/Documents/Personal",
        "Pottery class, dinner by the river, weekend at the lake.",
        0.03,
    ),
    ("Household expenses", "sheet", "/Documents/Finance", "Month,Rent,Utilities,Groceries\nMay,6500,420,2100", 0.18),
    ("Tax documents checklist", "doc", "/Documents/Finance", "Payslips, bank statements, donation receipts.", 0.03),
    ("Data science notes", "doc", "/Documents/School", "Week 3: linear regression, residuals, R squared.", 0.11),
    ("Accounting homework 3", "sheet", "/Documents/School", "Account,Debit,Credit\nCash,5000,\nRevenue,,5000", 0.08),
    ("Public speaking final", "slides", "/Documents/School", "Title: Why cities need more trees.", 4.6),
    ("Reading list", "doc", "/Documents", "Project Hail Mary; The Three-Body Problem; Atomic Habits", 0.02),
    ("Untitled", "doc", "/Documents", "", 0.02),
]
SHARES = [
    ("Q2 budget", "boss", "edit"),
    ("Project Phoenix roadmap", "colleague", "comment"),
    ("Project Phoenix roadmap", "boss", "view"),
    ("Meeting notes", "colleague", "edit"),
    ("Trip plan: Tokyo", "spouse", "edit"),
    ("Household expenses", "spouse", "edit"),
]

COURSES = [  # (code, name, instructor, weekday, time, room)
    ("DS101", "Intro to Data Science", "Dr. Helen Zhou", "mon", "19:00", "B201"),
    ("DS201", "Applied Data Science", "Prof. Omar Haddad", "wed", "19:00", "B105"),
    ("ACC110", "Financial Accounting", "Dr. Grace Park", "tue", "18:30", "C310"),
    ("ENG150", "Business English", "Ms. Clara Wright", "thu", "18:30", "A12"),
    ("ML210", "Machine Learning Foundations", "Prof. Kenji Tanaka", "sat", "09:30", "Online"),
    ("COM120", "Public Speaking", "Mr. Daniel Lopez", "fri", "18:00", "Hall 2"),
]
COURSEWORK = [
    ("Problem set 1", "homework"),
    ("Reading: chapters 1-3", "reading"),
    ("Problem set 2", "homework"),
    ("Midterm exam", "exam"),
    ("Final project proposal", "project"),
    ("Problem set 3", "homework"),
]


def _clock(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def _seed_emails(conn: Connection, rng: random.Random, persona: Persona, now: dt.datetime) -> None:
    people = {
        key: conn.execute(select(contacts.c.name, contacts.c.email).where(contacts.c.contact_id == cid)).one()
        for key, cid in PEOPLE.items()
    }
    team = conn.execute(
        select(contacts.c.name, contacts.c.email)
        .where(contacts.c.relationship == "colleague", contacts.c.email.is_not(None))
        .order_by(contacts.c.contact_id)
    ).all()

    def who(key: str) -> tuple[str, str]:
        if key in ORGS:
            return ORGS[key]
        name, addr = people[key] if key in people else rng.choice(team or [people["boss"]])
        return name, addr

    def mail(
        folder: str,
        sender: tuple[str, str],
        to: list[str],
        subject: str,
        body: str,
        files: list[tuple[str, float]],
        at: dt.datetime,
        is_read: int,
        parent: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        return {
            "folder": folder,
            "from_name": sender[0],
            "from_addr": sender[1],
            "to_json": json.dumps(to),
            "cc_json": "[]",
            "bcc_json": "[]",
            "subject": subject,
            "body": body,
            "attachments_json": json.dumps([{"name": n, "size_mb": mb} for n, mb in files]),
            "is_read": is_read,
            "is_starred": 0,
            "sent_at": _clock(at),
            "parent": parent,
        }

    me = (persona.name, persona.email)
    out: list[dict[str, Any]] = []
    for _ in range(120):
        kind, key, subject, body, files = rng.choice(INBOUND)
        at = dt.datetime.combine(
            now.date() - dt.timedelta(days=rng.randint(0, 150)), dt.time(rng.randint(7, 20), rng.randint(0, 59))
        )
        if at >= now:
            at = now - dt.timedelta(minutes=rng.randint(10, 90))
        days = (now - at).days
        fill = {
            "name": persona.name,
            "month": at.strftime("%B"),
            "q": (at.month - 1) // 3 + 1,
            "n": rng.randint(100, 999),
            "k": rng.randint(5, 12),
            "day": at.date().isoformat(),
            "amount": f"{rng.randint(180, 420)}.{rng.randint(0, 99):02d}",
            "course": rng.choice(COURSES)[1],
        }
        sender = who(key)
        fill["sender"] = sender[0]
        if kind == "spam":
            folder = "spam"
        elif kind == "newsletter" and days > 60 and rng.random() < 0.3:
            folder = "trash"
        else:
            folder = "archive" if days > 30 and rng.random() < 0.6 else "inbox"
        unread = rng.random() < (0.6 if days <= 14 else 0.4 if kind in ("newsletter", "spam") else 0.05)
        row = mail(
            folder,
            sender,
            [persona.email],
            subject.format(**fill),
            body.format(**fill),
            [(n.format(**fill), mb) for n, mb in files],
            at,
            int(not unread),
        )
        row["is_starred"] = int(kind == "work" and rng.random() < 0.12)
        out.append(row)
        reply_at = at + dt.timedelta(minutes=rng.randint(20, 300))
        if kind in ("work", "family") and reply_at < now and rng.random() < 0.3:
            out.append(
                mail("sent", me, [sender[1]], f"Re: {row['subject']}", rng.choice(REPLIES), [], reply_at, 1, parent=row)
            )
    for i, (folder, key, subject, body, files) in enumerate(OUTBOUND):
        at = dt.datetime.combine(now.date() - dt.timedelta(days=3 + 11 * i), dt.time(rng.randint(8, 19), 5 * i))
        out.append(mail(folder, me, [who(key)[1]], subject, body, files, at, 1))
    out.append(mail("inbox", who("colleague"), [persona.email], *FOOTAGE, now - dt.timedelta(days=9, hours=3), 1))
    out.sort(key=lambda r: (r["sent_at"], r["subject"]))
    for i, r in enumerate(out, start=1):
        r["message_id"] = f"email_{i:03d}"
    for r in out:
        parent = r.pop("parent")
        r.update(
            thread_id=parent["message_id"] if parent else r["message_id"],
            in_reply_to=parent["message_id"] if parent else None,
            created_at=r["sent_at"],
            updated_at=r["sent_at"],
        )
    conn.execute(insert(emails), out)


@seeder
def seed_work(conn: Connection, rng: random.Random, persona: Persona) -> None:
    now = dt.datetime.fromisoformat(persona.now)
    stamp = persona.now
    _seed_emails(conn, rng, persona, now)

    doc_rows = []
    for i, (title, doc_type, folder, content, size) in enumerate(DOCS, start=1):
        edited = _clock(now - dt.timedelta(days=rng.randint(1, 120), hours=rng.randint(0, 10)))
        doc_rows.append(
            {
                "file_id": f"document_{i:03d}",
                "title": title,
                "doc_type": doc_type,
                "folder_path": folder,
                "content": content,
                "size_mb": size,
                "created_at": edited,
                "updated_at": edited,
            }
        )
    conn.execute(insert(documents), doc_rows)
    doc_ids = {d["title"]: d["file_id"] for d in doc_rows}
    addr = {
        key: conn.execute(select(contacts.c.email).where(contacts.c.contact_id == cid)).scalar_one()
        for key, cid in PEOPLE.items()
    }
    conn.execute(
        insert(file_shares),
        [
            {
                "share_id": f"share_{i:03d}",
                "file_id": doc_ids[title],
                "grantee": addr[key],
                "access": access,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, (title, key, access) in enumerate(SHARES, start=1)
        ],
    )

    conn.execute(
        insert(courses),
        [
            {
                "course_id": f"course_{i:03d}",
                "code": code,
                "name": name,
                "instructor": teacher,
                "schedule_json": json.dumps([{"day": day, "time": time, "room": room}]),
            }
            for i, (code, name, teacher, day, time, room) in enumerate(COURSES, start=1)
        ],
    )
    work_rows = []
    for c, (_, _, _, day, time, _) in enumerate(COURSES, start=1):
        lesson = now.date() + dt.timedelta(days=(WEEKDAYS.index(day) - now.weekday()) % 7 - 49)
        for j, (title, kind) in enumerate(COURSEWORK[: rng.randint(4, 6)]):
            day_due = lesson + dt.timedelta(weeks=2 * j + rng.randint(0, 1))
            due = dt.datetime.combine(day_due, dt.time.fromisoformat(time))
            status = (
                "open"
                if due > now or rng.random() < 0.1
                else ("graded" if now - due > dt.timedelta(days=10) else "submitted")
            )
            work_rows.append(
                {
                    "course_id": f"course_{c:03d}",
                    "title": title,
                    "kind": kind,
                    "due": due.strftime(DT_FMT),
                    "status": status,
                    "notes": None,
                    "task_id": None,
                    "created_at": stamp,
                    "updated_at": stamp,
                }
            )
    work_rows.sort(key=lambda r: (r["due"], r["course_id"]))
    conn.execute(
        insert(assignments), [{**r, "assignment_id": f"assignment_{i:03d}"} for i, r in enumerate(work_rows, start=1)]
    )

    sessions: list[dict[str, Any]] = []
    for i in range(36):
        start = now - dt.timedelta(days=2 * i + 1, hours=rng.randint(0, 6), minutes=rng.choice([0, 15, 30, 45]))
        minutes, cycles = rng.choice([25, 25, 50, 90]), rng.choice([1, 1, 2, 4])
        end = start + dt.timedelta(minutes=cycles * minutes + (cycles - 1) * 5)
        sessions.append(
            {
                "duration_min": minutes,
                "break_min": 5,
                "cycles": cycles,
                "task_id": rng.choice([None, None, "task_001", "task_002"]),
                "blocked_apps_json": json.dumps(rng.choice([[], ["social"], ["chat", "social"]])),
                "started_at": start.strftime(DT_FMT),
                "ends_at": end.strftime(DT_FMT),
                "status": "cancelled" if rng.random() < 0.15 else "completed",
                "created_at": _clock(start),
                "updated_at": _clock(end),
            }
        )
    sessions.sort(key=lambda r: r["started_at"])
    conn.execute(insert(focus_sessions), [{**r, "session_id": f"focus_{i:03d}"} for i, r in enumerate(sessions, 1)])
