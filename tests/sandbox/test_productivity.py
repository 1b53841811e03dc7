"""D1 productivity and work tools against the wang_lei world (now = 2025-06-13T09:00, a Friday).

Each tool has a success test and one test per declared ErrorType; a failed call must leave the
database exactly as it was (only its Operation_logs row is added).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import Connection, insert, select, update

from sandbox.db import open_database, transaction
from sandbox.domains.productivity import tools as productivity
from sandbox.domains.productivity.schema import alarms, calendar_events, event_attendees, notes, tasks, world_busy_slots
from sandbox.domains.work import tools as work
from sandbox.domains.work.schema import assignments, emails, focus_sessions
from sandbox.errors import ErrorType
from sandbox.executor import Executor
from sandbox.schema import apps, device_settings
from sandbox.tooling import REGISTRY
from sandbox.world import build_world, world_image
from tests.sandbox.conftest import diff, fails, ok, prepare, query

TOMORROW = "2025-06-14"
STAMP = "2025-06-13T09:00:01"  # the first step's timestamp
D1_TOOLS = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ in (productivity.__name__, work.__name__))


@pytest.fixture
def ex(conn: Connection) -> Executor:
    """Every registered domain tool visible (the work module may not be in the shared fixture yet)."""
    e = Executor(conn, visible=frozenset(n for n, s in REGISTRY.items() if s.is_domain_tool))
    e.step = 1
    return e


def event_id(ex: Executor, title: str, start: str) -> str:
    e = calendar_events.c
    return query(ex, select(e.event_id).where(e.title == title, e.start == start))[0]["event_id"]


def cancelled_event(ex: Executor) -> str:
    return query(ex, select(calendar_events.c.event_id).where(calendar_events.c.status == "cancelled"))[0]["event_id"]


def task_id(ex: Executor, title: str) -> str:
    return query(ex, select(tasks.c.task_id).where(tasks.c.title == title))[0]["task_id"]


# ---- the world ------------------------------------------------------------------------------


def test_world_is_deterministic_and_seeded_as_promised() -> None:
    assert build_world("wang_lei") == world_image("wang_lei")
    conn = open_database(world_image("wang_lei"))
    try:
        with transaction(conn):
            events = [dict(r._mapping) for r in conn.execute(select(calendar_events))]
            standups = {ev["start"] for ev in events if ev["title"] == "Team standup"}
            assert {f"2025-06-{d:02d}T09:30" for d in range(9, 14)} <= standups
            review = [ev for ev in events if ev["title"] == "Project review"]
            assert [(ev["start"], ev["end"]) for ev in review] == [("2025-06-14T14:00", "2025-06-14T15:00")]
            assert 60 <= len(events) <= 120
            assert {ev["status"] for ev in events} == {"confirmed", "tentative", "cancelled"}
            pending = [ev["title"] for ev in events if ev["my_response"] == "needs_action"]
            assert pending == ["Architecture review", "Company all-hands"]
            assert all((ev["organizer"] is None) == bool(ev["is_organizer"]) for ev in events)
            people = set(conn.execute(select(world_busy_slots.c.person_key)).scalars())
            assert people == {"contact_004", "contact_005"}
            wake = conn.execute(select(alarms).where(alarms.c.alarm_id == "alarm_001")).one()
            assert (wake.time, json.loads(wake.days_json), wake.enabled, wake.label) == (
                "06:45",
                ["mon", "tue", "wed", "thu", "fri"],
                1,
                "Wake up",
            )
            lists = set(conn.execute(select(tasks.c.list_name)).scalars())
            assert {"Inbox", "Work", "Groceries"} <= lists
            assert len(conn.execute(select(notes)).all()) == 10
    finally:
        conn.close()


def test_declarations() -> None:
    d1 = {n: REGISTRY[n] for n in D1_TOOLS}
    assert len(d1) == 27 and all(s.domain == "D1" for s in d1.values())
    assert {n for n, s in d1.items() if not s.mutating} == {
        "find_free_slots",
        "search_calendar_events",
        "list_tasks",
        "search_notes",
        "get_daily_agenda",
        "search_emails",
    }
    assert all("CALENDAR" in s.permissions for s in d1.values() if s.app == "calendar")
    assert {n for n, s in d1.items() if s.needs_login} == {"send_email", "search_emails"}
    assert {s.app for n, s in d1.items() if s.fn.__module__ == work.__name__} == {"mail", "docs", "campus", "focus"}


# ---- 1.1 Meeting Scheduling -----------------------------------------------------------------


def test_find_free_slots_avoids_busy_times(ex: Executor) -> None:
    out = ok(
        ex,
        "find_free_slots",
        {
            "date_from": "2025-06-16",
            "date_to": "2025-06-17",
            "duration_min": 30,
            "attendees": ["contact_004", "contact_005"],
            "max_results": 20,
        },
    )
    assert out["free_slots"]
    busy = query(ex, select(world_busy_slots).where(world_busy_slots.c.person_key.in_(["contact_004", "contact_005"])))
    busy += query(ex, select(calendar_events).where(calendar_events.c.status == "confirmed"))
    for slot in out["free_slots"]:
        assert "2025-06-16T09:00" <= slot["start"] < slot["end"] <= "2025-06-17T18:00"
        assert not any(b["start"] < slot["end"] and b["end"] > slot["start"] for b in busy), slot
    assert "2025-06-16T09:30" not in [s["start"] for s in out["free_slots"]]  # the standup


def test_find_free_slots_skips_weekends_and_the_past(ex: Executor) -> None:
    out = ok(ex, "find_free_slots", {"date_from": "2025-06-12", "date_to": "2025-06-15", "duration_min": 15})
    assert all(s["start"] >= "2025-06-13T09:00" and s["start"][:10] == "2025-06-13" for s in out["free_slots"])


def test_find_free_slots_unknown_attendee(ex: Executor) -> None:
    fails(
        ex,
        "find_free_slots",
        {"date_from": "2025-06-16", "date_to": "2025-06-16", "duration_min": 30, "attendees": ["contact_999"]},
        ErrorType.ENTITY_NOT_FOUND,
    )


def test_find_free_slots_range_too_long(ex: Executor) -> None:
    fails(
        ex,
        "find_free_slots",
        {"date_from": "2025-06-16", "date_to": "2025-07-16", "duration_min": 30},
        ErrorType.INVALID_ARGUMENT_VALUE,
    )


def test_send_meeting_invite(ex: Executor) -> None:
    review = event_id(ex, "Project review", f"{TOMORROW}T14:00")
    out = ok(ex, "send_meeting_invite", {"event_id": review, "attendees": ["contact_004", "contact_010"]})
    assert out["invited"] == ["contact_010"] and out["skipped_already_invited"] == ["contact_004"]
    inserted = diff(ex)["event_attendees"]["inserted"]
    assert [(r["event_id"], r["contact_id"], r["response"]) for r in inserted] == [
        (review, "contact_010", "needs_action")
    ]


def test_send_meeting_invite_not_found(ex: Executor) -> None:
    fails(
        ex, "send_meeting_invite", {"event_id": "event_999", "attendees": ["contact_004"]}, ErrorType.ENTITY_NOT_FOUND
    )
    review = event_id(ex, "Project review", f"{TOMORROW}T14:00")
    fails(ex, "send_meeting_invite", {"event_id": review, "attendees": ["contact_999"]}, ErrorType.ENTITY_NOT_FOUND)


def test_send_meeting_invite_cancelled_or_past(ex: Executor) -> None:
    fails(
        ex,
        "send_meeting_invite",
        {"event_id": cancelled_event(ex), "attendees": ["contact_010"]},
        ErrorType.STATE_CONFLICT,
    )
    past = event_id(ex, "Team standup", "2025-06-12T09:30")
    fails(ex, "send_meeting_invite", {"event_id": past, "attendees": ["contact_010"]}, ErrorType.STATE_CONFLICT)


def test_send_meeting_invite_all_already_invited(ex: Executor) -> None:
    review = event_id(ex, "Project review", f"{TOMORROW}T14:00")
    fails(
        ex,
        "send_meeting_invite",
        {"event_id": review, "attendees": ["contact_004", "contact_005"]},
        ErrorType.DUPLICATE_ENTITY,
    )


# ---- 1.2 Calendar & Tasks -------------------------------------------------------------------


def test_create_calendar_event(ex: Executor) -> None:
    out = ok(
        ex,
        "create_calendar_event",
        {"title": "Morning run", "start": f"{TOMORROW}T06:00", "end": f"{TOMORROW}T07:00", "reminder_min": 10},
    )
    [row] = diff(ex)["calendar_events"]["inserted"]
    assert row["event_id"] == out["event_id"]
    assert (row["title"], row["start"], row["end"], row["calendar"], row["status"], row["reminder_min"]) == (
        "Morning run",
        f"{TOMORROW}T06:00",
        f"{TOMORROW}T07:00",
        "personal",
        "confirmed",
        10,
    )
    assert row["created_at"] == row["updated_at"] == "2025-06-13T09:00:01"


def test_create_calendar_event_end_before_start(ex: Executor) -> None:
    fails(
        ex,
        "create_calendar_event",
        {"title": "Oops", "start": f"{TOMORROW}T07:00", "end": f"{TOMORROW}T06:00"},
        ErrorType.INVALID_ARGUMENT_VALUE,
    )


def test_create_calendar_event_duplicate(ex: Executor) -> None:
    review = event_id(ex, "Project review", f"{TOMORROW}T14:00")
    payload = fails(
        ex,
        "create_calendar_event",
        {"title": "project REVIEW meeting", "start": f"{TOMORROW}T14:00", "end": f"{TOMORROW}T15:00"},
        ErrorType.DUPLICATE_ENTITY,
    )
    assert payload["existing_id"] == review


def test_create_calendar_event_overlap(ex: Executor) -> None:
    args = {"title": "Gym", "start": f"{TOMORROW}T14:30", "end": f"{TOMORROW}T15:30"}
    payload = fails(ex, "create_calendar_event", args, ErrorType.TIME_CONFLICT)
    assert [c["title"] for c in payload["conflicts"]] == ["Project review"]
    ok(ex, "create_calendar_event", {**args, "allow_overlap": True})


def test_search_calendar_events(ex: Executor) -> None:
    out = ok(ex, "search_calendar_events", {"query": "standup", "date_from": "2025-06-09", "date_to": "2025-06-13"})
    assert [e["start"] for e in out["events"]] == [f"2025-06-{d:02d}T09:30" for d in range(9, 14)]
    cancelled = cancelled_event(ex)
    everything = ok(ex, "search_calendar_events", {"date_from": "2025-05-01", "date_to": "2025-07-31", "limit": 50})
    assert cancelled not in {e["event_id"] for e in everything["events"]}


def test_search_calendar_events_needs_a_filter(ex: Executor) -> None:
    fails(ex, "search_calendar_events", {}, ErrorType.INVALID_ARGUMENT_VALUE)


def test_update_calendar_event_keeps_length_when_moved(ex: Executor) -> None:
    review = event_id(ex, "Project review", f"{TOMORROW}T14:00")
    ok(ex, "update_calendar_event", {"event_id": review, "start": f"{TOMORROW}T07:00", "location": "Room B"})
    [upd] = diff(ex)["calendar_events"]["updated"]
    assert (upd["after"]["start"], upd["after"]["end"], upd["after"]["location"]) == (
        f"{TOMORROW}T07:00",
        f"{TOMORROW}T08:00",
        "Room B",
    )


def test_update_calendar_event_not_found(ex: Executor) -> None:
    fails(ex, "update_calendar_event", {"event_id": "event_999", "title": "x"}, ErrorType.ENTITY_NOT_FOUND)


def test_update_calendar_event_cancelled(ex: Executor) -> None:
    fails(ex, "update_calendar_event", {"event_id": cancelled_event(ex), "title": "x"}, ErrorType.STATE_CONFLICT)


def test_update_calendar_event_end_before_start(ex: Executor) -> None:
    review = event_id(ex, "Project review", f"{TOMORROW}T14:00")
    fails(
        ex, "update_calendar_event", {"event_id": review, "end": f"{TOMORROW}T13:00"}, ErrorType.INVALID_ARGUMENT_VALUE
    )


def test_update_calendar_event_overlap(ex: Executor) -> None:
    standup = event_id(ex, "Team standup", "2025-06-17T09:30")  # a Tuesday: 1:1 with Alex Turner at 11:00
    fails(ex, "update_calendar_event", {"event_id": standup, "start": "2025-06-17T11:15"}, ErrorType.TIME_CONFLICT)


def test_delete_calendar_event(ex: Executor) -> None:
    review = event_id(ex, "Project review", f"{TOMORROW}T14:00")
    ok(ex, "delete_calendar_event", {"event_id": review})
    [upd] = diff(ex)["calendar_events"]["updated"]
    assert (upd["before"]["status"], upd["after"]["status"]) == ("confirmed", "cancelled")


def test_delete_calendar_event_not_found(ex: Executor) -> None:
    fails(ex, "delete_calendar_event", {"event_id": "event_999"}, ErrorType.ENTITY_NOT_FOUND)


def test_delete_calendar_event_already_cancelled(ex: Executor) -> None:
    fails(ex, "delete_calendar_event", {"event_id": cancelled_event(ex)}, ErrorType.STATE_CONFLICT)


def test_create_task(ex: Executor) -> None:
    out = ok(ex, "create_task", {"title": "Buy stamps", "list_name": "inbox", "due": "2025-06-15"})
    [row] = diff(ex)["tasks"]["inserted"]
    assert (row["task_id"], row["list_name"], row["due"], row["priority"], row["status"]) == (
        out["task_id"],
        "Inbox",
        "2025-06-15",
        "medium",
        "open",
    )


def test_create_task_duplicate(ex: Executor) -> None:
    fails(ex, "create_task", {"title": "pay electricity bill"}, ErrorType.DUPLICATE_ENTITY)


def test_list_tasks(ex: Executor) -> None:
    out = ok(ex, "list_tasks", {"list_name": "Groceries"})
    assert {t["title"] for t in out["tasks"]} == {"Milk", "Eggs", "Bread", "Coffee beans", "Apples"}
    assert all(t["status"] == "open" for t in ok(ex, "list_tasks", {})["tasks"])


def test_list_tasks_unknown_list(ex: Executor) -> None:
    payload = fails(ex, "list_tasks", {"list_name": "Holiday"}, ErrorType.ENTITY_NOT_FOUND)
    assert "Work" in payload["candidates"]


def test_update_task_complete(ex: Executor) -> None:
    tid = task_id(ex, "Pay electricity bill")
    ok(ex, "update_task", {"task_id": tid, "status": "completed"})
    [upd] = diff(ex)["tasks"]["updated"]
    assert upd["after"]["status"] == "completed" and upd["after"]["completed_at"] == "2025-06-13T09:00:01"


def test_update_task_not_found(ex: Executor) -> None:
    fails(ex, "update_task", {"task_id": "task_999", "priority": "low"}, ErrorType.ENTITY_NOT_FOUND)


def test_update_task_already_completed(ex: Executor) -> None:
    tid = task_id(ex, "Pay electricity bill")
    ok(ex, "update_task", {"task_id": tid, "status": "completed"})
    fails(ex, "update_task", {"task_id": tid, "status": "completed"}, ErrorType.STATE_CONFLICT)


def test_delete_task(ex: Executor) -> None:
    tid = task_id(ex, "Milk")
    ok(ex, "delete_task", {"task_id": tid})
    assert [r["task_id"] for r in diff(ex)["tasks"]["deleted"]] == [tid]


def test_delete_task_not_found(ex: Executor) -> None:
    fails(ex, "delete_task", {"task_id": "task_999"}, ErrorType.ENTITY_NOT_FOUND)


# ---- 1.3 Reminders & Alarms -----------------------------------------------------------------


def test_create_reminder(ex: Executor) -> None:
    out = ok(ex, "create_reminder", {"text": "Call Mom", "remind_at": f"{TOMORROW}T18:00"})
    [row] = diff(ex)["tasks"]["inserted"]
    assert (row["task_id"], row["title"], row["remind_at"], row["list_name"]) == (
        out["task_id"],
        "Call Mom",
        f"{TOMORROW}T18:00",
        "Reminders",
    )


def test_create_reminder_in_the_past(ex: Executor) -> None:
    fails(
        ex, "create_reminder", {"text": "Call Mom", "remind_at": "2025-06-13T08:00"}, ErrorType.INVALID_ARGUMENT_VALUE
    )


def test_create_reminder_duplicate(ex: Executor) -> None:
    ok(ex, "create_reminder", {"text": "Call Mom", "remind_at": f"{TOMORROW}T18:00"})
    fails(ex, "create_reminder", {"text": "call mom", "remind_at": f"{TOMORROW}T18:00"}, ErrorType.DUPLICATE_ENTITY)


def test_set_alarm(ex: Executor) -> None:
    out = ok(ex, "set_alarm", {"time": "06:15", "days": ["fri", "mon"], "label": "Early"})
    assert out["alarm_id"] == "alarm_004" and out["days"] == ["mon", "fri"]
    [row] = diff(ex)["alarms"]["inserted"]
    assert (row["time"], json.loads(row["days_json"]), row["enabled"]) == ("06:15", ["mon", "fri"], 1)


def test_set_alarm_duplicate(ex: Executor) -> None:
    payload = fails(
        ex, "set_alarm", {"time": "06:45", "days": ["mon", "tue", "wed", "thu", "fri"]}, ErrorType.DUPLICATE_ENTITY
    )
    assert payload["existing_id"] == "alarm_001"


def test_update_alarm(ex: Executor) -> None:
    ok(ex, "update_alarm", {"alarm_id": "alarm_001", "time": "06:15"})
    [upd] = diff(ex)["alarms"]["updated"]
    assert (upd["before"]["time"], upd["after"]["time"]) == ("06:45", "06:15")


def test_update_alarm_not_found(ex: Executor) -> None:
    fails(ex, "update_alarm", {"alarm_id": "alarm_999", "enabled": True}, ErrorType.ENTITY_NOT_FOUND)


def test_update_alarm_already_in_that_state(ex: Executor) -> None:
    fails(ex, "update_alarm", {"alarm_id": "alarm_001", "enabled": True}, ErrorType.STATE_CONFLICT)
    fails(ex, "update_alarm", {"alarm_id": "alarm_002", "enabled": False}, ErrorType.STATE_CONFLICT)


def test_update_alarm_duplicate(ex: Executor) -> None:
    payload = fails(
        ex,
        "update_alarm",
        {"alarm_id": "alarm_002", "time": "06:45", "enabled": True, "days": ["mon", "tue", "wed", "thu", "fri"]},
        ErrorType.DUPLICATE_ENTITY,
    )
    assert payload["existing_id"] == "alarm_001"


def test_delete_alarm(ex: Executor) -> None:
    ok(ex, "delete_alarm", {"alarm_id": "alarm_003"})
    assert [r["alarm_id"] for r in diff(ex)["alarms"]["deleted"]] == ["alarm_003"]


def test_delete_alarm_not_found(ex: Executor) -> None:
    fails(ex, "delete_alarm", {"alarm_id": "alarm_999"}, ErrorType.ENTITY_NOT_FOUND)


# ---- 1.4 Notes & Memos ----------------------------------------------------------------------


def test_create_note(ex: Executor) -> None:
    out = ok(ex, "create_note", {"title": "Offsite agenda", "content": "Day 1: strategy", "folder": "work"})
    [row] = diff(ex)["notes"]["inserted"]
    assert (row["note_id"], row["folder"], row["content"]) == (out["note_id"], "Work", "Day 1: strategy")


def test_create_note_duplicate(ex: Executor) -> None:
    fails(ex, "create_note", {"title": "books to read", "content": "x"}, ErrorType.DUPLICATE_ENTITY)


def test_search_notes(ex: Executor) -> None:
    out = ok(ex, "search_notes", {"query": "alex morgan", "folder": "Work"})
    assert {n["title"] for n in out["notes"]} == {"Project kickoff", "Standup notes"}


def test_update_note_append(ex: Executor) -> None:
    nid = query(ex, select(notes.c.note_id).where(notes.c.title == "Books to read"))[0]["note_id"]
    ok(ex, "update_note", {"note_id": nid, "append_text": "Dune"})
    [upd] = diff(ex)["notes"]["updated"]
    assert upd["after"]["content"] == upd["before"]["content"] + "\nDune"


def test_update_note_content_and_append_are_exclusive(ex: Executor) -> None:
    fails(
        ex, "update_note", {"note_id": "note_001", "content": "a", "append_text": "b"}, ErrorType.INVALID_ARGUMENT_VALUE
    )


def test_update_note_not_found(ex: Executor) -> None:
    fails(ex, "update_note", {"note_id": "note_999", "title": "x"}, ErrorType.ENTITY_NOT_FOUND)


def test_update_note_rename_onto_existing(ex: Executor) -> None:
    work = query(ex, select(notes.c.note_id, notes.c.title).where(notes.c.folder == "Work"))
    fails(ex, "update_note", {"note_id": work[0]["note_id"], "title": work[1]["title"]}, ErrorType.DUPLICATE_ENTITY)


# ---- 1.9 Daily Agenda -----------------------------------------------------------------------


def test_get_daily_agenda_today(ex: Executor) -> None:
    out = ok(ex, "get_daily_agenda", {})
    assert out["date"] == "2025-06-13" and out["weekday"] == "fri"
    assert "Team standup" in [e["title"] for e in out["events"]]
    assert "Pay electricity bill" in [t["title"] for t in out["tasks_due"]]
    assert [a["alarm_id"] for a in out["alarms"]] == ["alarm_001", "alarm_003"]


def test_get_daily_agenda_tomorrow(ex: Executor) -> None:
    out = ok(ex, "get_daily_agenda", {"date": TOMORROW})
    assert [e["title"] for e in out["events"] if e["title"] == "Project review"] == ["Project review"]
    assert [r["title"] for r in out["reminders"]] == ["Take out the recycling"]
    assert {a["alarm_id"]: a["enabled"] for a in out["alarms"]} == {"alarm_002": False, "alarm_003": False}


def test_event_attendees_reference_events(ex: Executor) -> None:
    ids = {r["event_id"] for r in query(ex, select(calendar_events.c.event_id))}
    assert {r["event_id"] for r in query(ex, select(event_attendees.c.event_id))} <= ids


# ---- 1.1 Invitations ------------------------------------------------------------------------


def invitation(ex: Executor, title: str) -> dict[str, Any]:
    return query(ex, select(calendar_events).where(calendar_events.c.title == title))[0]


def test_respond_to_invitation_accept(ex: Executor) -> None:
    ev = invitation(ex, "Architecture review")
    out = ok(ex, "respond_to_invitation", {"event_id": ev["event_id"], "response": "accept"})
    assert out == {
        "event_id": ev["event_id"],
        "title": "Architecture review",
        "start": ev["start"],
        "organizer": "contact_004",
        "my_response": "accepted",
        "status": "confirmed",
        "previous": "needs_action",
    }
    [upd] = diff(ex)["calendar_events"]["updated"]
    assert (upd["after"]["my_response"], upd["after"]["status"], upd["after"]["updated_at"]) == (
        "accepted",
        "confirmed",
        STAMP,
    )


def test_respond_to_invitation_decline_frees_the_time(ex: Executor) -> None:
    ev = invitation(ex, "Company all-hands")
    ok(ex, "respond_to_invitation", {"event_id": ev["event_id"], "response": "decline"})
    [upd] = diff(ex)["calendar_events"]["updated"]
    assert (upd["after"]["my_response"], upd["after"]["status"]) == ("declined", "cancelled")
    day = ev["start"][:10]
    assert ev["event_id"] not in {e["event_id"] for e in ok(ex, "get_daily_agenda", {"date": day})["events"]}
    ok(ex, "create_calendar_event", {"title": "Dentist", "start": ev["start"], "end": ev["end"]})  # no overlap now
    ok(ex, "respond_to_invitation", {"event_id": ev["event_id"], "response": "tentative"})  # changed their mind


def test_tentative_events_stay_on_the_calendar(ex: Executor) -> None:
    party = invitation(ex, "Tom's birthday party")
    assert party["status"] == "tentative"
    found = ok(ex, "search_calendar_events", {"query": "birthday party"})["events"]
    assert [(e["event_id"], e["status"], e["my_response"]) for e in found] == [
        (party["event_id"], "tentative", "tentative")
    ]
    fails(
        ex,
        "create_calendar_event",
        {"title": "Gym", "start": party["start"], "end": party["end"]},
        ErrorType.TIME_CONFLICT,
    )


def test_respond_to_invitation_errors(ex: Executor) -> None:
    fails(ex, "respond_to_invitation", {"event_id": "event_999", "response": "accept"}, ErrorType.ENTITY_NOT_FOUND)
    review = event_id(ex, "Project review", f"{TOMORROW}T14:00")  # the user organises it
    payload = fails(ex, "respond_to_invitation", {"event_id": review, "response": "decline"}, ErrorType.STATE_CONFLICT)
    assert "update_calendar_event" in payload["hint"]
    party = invitation(ex, "Tom's birthday party")
    fails(
        ex, "respond_to_invitation", {"event_id": party["event_id"], "response": "tentative"}, ErrorType.STATE_CONFLICT
    )
    past = event_id(ex, "Team standup", "2025-06-12T09:30")
    fails(ex, "respond_to_invitation", {"event_id": past, "response": "decline"}, ErrorType.STATE_CONFLICT)
    arch = invitation(ex, "Architecture review")["event_id"]
    prepare(ex.conn, update(calendar_events).where(calendar_events.c.event_id == arch).values(status="cancelled"))
    fails(ex, "respond_to_invitation", {"event_id": arch, "response": "accept"}, ErrorType.STATE_CONFLICT)


# ---- 1.5 Email ------------------------------------------------------------------------------


def offline() -> list[Any]:
    return [update(device_settings).where(device_settings.c.key.in_(["wifi", "mobile_data"])).values(value="0")]


def email_where(ex: Executor, *conditions: Any) -> dict[str, Any]:
    return query(ex, select(emails).where(*conditions).order_by(emails.c.message_id))[0]


def test_send_email(ex: Executor) -> None:
    out = ok(
        ex,
        "send_email",
        {
            "to": ["contact_004", "Client@Example.com"],
            "cc": ["contact_001"],
            "bcc": ["contact_004"],
            "subject": "Budget",
            "body": "Attached.",
            "attachments": ["document_001"],
        },
    )
    assert out["to"] == ["alex.4@example.com", "client@example.com"] and out["cc"] == ["lily.1@example.com"]
    assert out["attachments"] == [{"file_id": "document_001", "name": "Q2 budget.sheet", "size_mb": 0.35}]
    assert (out["folder"], out["from"], out["thread_id"], out["sent_at"]) == (
        "sent",
        "Wang Lei <wang.lei@example.com>",
        out["message_id"],
        STAMP,
    )
    [row] = diff(ex)["emails"]["inserted"]
    assert (row["message_id"], row["folder"], row["is_read"], json.loads(row["bcc_json"])) == (
        out["message_id"],
        "sent",
        1,
        ["alex.4@example.com"],
    )


def test_send_email_reply_keeps_the_thread(ex: Executor) -> None:
    original = email_where(ex, emails.c.subject.like("Q_ budget review"), emails.c.folder == "inbox")
    out = ok(
        ex,
        "send_email",
        {
            "to": [original["from_addr"]],
            "subject": f"Re: {original['subject']}",
            "body": "Will do.",
            "reply_to_message_id": original["message_id"],
        },
    )
    [row] = diff(ex)["emails"]["inserted"]
    assert (row["thread_id"], row["in_reply_to"]) == (original["thread_id"], original["message_id"])
    assert out["thread_id"] == original["thread_id"]


def test_send_email_forward_carries_attachments(ex: Executor) -> None:
    original = email_where(ex, emails.c.subject.like("Design mockups%"))
    out = ok(
        ex,
        "send_email",
        {
            "to": ["contact_001"],
            "subject": "Fwd: mockups",
            "body": "FYI",
            "forward_message_id": original["message_id"],
            "attachments": ["document_002"],
        },
    )
    assert [a["name"] for a in out["attachments"]] == [
        json.loads(original["attachments_json"])[0]["name"],
        "Project Phoenix roadmap.slides",
    ]


def test_send_email_errors(ex: Executor) -> None:
    base = {"to": ["contact_004"], "subject": "Hi", "body": "Hello"}
    fails(ex, "send_email", {**base, "reply_to_message_id": "email_999"}, ErrorType.ENTITY_NOT_FOUND)
    fails(ex, "send_email", {**base, "to": ["contact_999", "contact_007"]}, ErrorType.ENTITY_NOT_FOUND)
    fails(ex, "send_email", {**base, "attachments": ["document_999"]}, ErrorType.ENTITY_NOT_FOUND)
    payload = fails(ex, "send_email", {**base, "cc": ["contact_007"]}, ErrorType.INVALID_ARGUMENT_VALUE)
    assert payload["contact_ids"] == ["contact_007"]
    fails(ex, "send_email", {**base, "to": ["not an address"]}, ErrorType.INVALID_ARGUMENT_VALUE)
    fails(
        ex,
        "send_email",
        {**base, "reply_to_message_id": "email_001", "forward_message_id": "email_002"},
        ErrorType.INVALID_ARGUMENT_VALUE,
    )
    footage = email_where(ex, emails.c.subject == "Raw footage from the shoot")
    payload = fails(ex, "send_email", {**base, "forward_message_id": footage["message_id"]}, ErrorType.LIMIT_EXCEEDED)
    assert payload["total_mb"] == 27.3


def test_send_email_gates(ex: Executor) -> None:
    base = {"to": ["contact_004"], "subject": "Hi", "body": "Hello"}
    prepare(ex.conn, update(apps).where(apps.c.app_id == "mail").values(logged_in=0))
    fails(ex, "send_email", base, ErrorType.AUTHENTICATION_REQUIRED)
    fails(ex, "search_emails", {"unread_only": True}, ErrorType.AUTHENTICATION_REQUIRED)
    prepare(ex.conn, *offline())
    fails(ex, "send_email", base, ErrorType.NETWORK_UNAVAILABLE)
    ok(ex, "save_email_draft", {"body": "offline and signed out is fine for drafts"})


def test_save_email_draft(ex: Executor) -> None:
    out = ok(ex, "save_email_draft", {"body": "Draft text", "to": ["contact_002"], "attachments": ["document_009"]})
    assert (out["folder"], out["to"], out["subject"]) == ("drafts", ["zhang.2@example.com"], "")
    [row] = diff(ex)["emails"]["inserted"]
    assert (row["folder"], row["body"]) == ("drafts", "Draft text")


def test_save_email_draft_errors(ex: Executor) -> None:
    fails(ex, "save_email_draft", {"body": "x", "reply_to_message_id": "email_999"}, ErrorType.ENTITY_NOT_FOUND)
    fails(ex, "save_email_draft", {"body": "x", "to": ["contact_007"]}, ErrorType.INVALID_ARGUMENT_VALUE)


def test_search_emails(ex: Executor) -> None:
    unread = ok(ex, "search_emails", {"unread_only": True, "limit": 50})["emails"]
    assert unread and all(e["folder"] == "inbox" and not e["is_read"] for e in unread)
    assert [e["sent_at"] for e in unread] == sorted((e["sent_at"] for e in unread), reverse=True)
    hr = ok(ex, "search_emails", {"sender": "hr@corp", "folder": "all", "limit": 50})["emails"]
    assert hr and {e["from"] for e in hr} == {"People Team <hr@corp.example.com>"}
    files = ok(ex, "search_emails", {"has_attachment": True, "folder": "all", "query": "statement", "limit": 50})
    assert files["count"] and all(e["attachments"] and "statement" in e["subject"].lower() for e in files["emails"])
    june = ok(ex, "search_emails", {"date_from": "2025-06-01", "date_to": "2025-06-12", "folder": "all", "limit": 50})
    assert june["count"] and all("2025-06-01" <= e["sent_at"] < "2025-06-13" for e in june["emails"])
    assert ok(ex, "search_emails", {"folder": "drafts"})["count"] == 2
    assert diff(ex) == {}


def test_search_emails_needs_a_filter(ex: Executor) -> None:
    fails(ex, "search_emails", {"limit": 5}, ErrorType.INVALID_ARGUMENT_VALUE)


def test_move_email(ex: Executor) -> None:
    unread = email_where(ex, emails.c.folder == "inbox", emails.c.is_read == 0)
    archived = email_where(ex, emails.c.folder == "archive", emails.c.is_read == 1)
    out = ok(
        ex,
        "move_email",
        {"message_ids": [unread["message_id"], archived["message_id"]], "folder": "archive", "mark_read": True},
    )
    assert out["updated"] == [unread["message_id"]] and out["unchanged"] == [archived["message_id"]]
    [upd] = diff(ex)["emails"]["updated"]
    assert (upd["after"]["folder"], upd["after"]["is_read"], upd["after"]["updated_at"]) == ("archive", 1, STAMP)


def test_move_email_errors(ex: Executor) -> None:
    fails(ex, "move_email", {"message_ids": ["email_001", "email_999"], "starred": True}, ErrorType.ENTITY_NOT_FOUND)
    archived = email_where(ex, emails.c.folder == "archive")
    fails(ex, "move_email", {"message_ids": [archived["message_id"]], "folder": "archive"}, ErrorType.STATE_CONFLICT)
    fails(ex, "move_email", {"message_ids": [archived["message_id"]]}, ErrorType.INVALID_ARGUMENT_VALUE)


# ---- 1.6 Documents --------------------------------------------------------------------------


def test_create_document(ex: Executor) -> None:
    out = ok(
        ex,
        "create_document",
        {"title": "Offsite budget", "doc_type": "sheet", "content": "Item,Cost", "folder_path": "documents/work/"},
    )
    assert out == {
        "file_id": "document_018",
        "title": "Offsite budget",
        "doc_type": "sheet",
        "folder_path": "/Documents/Work",
        "size_mb": 0.02,
    }
    [row] = diff(ex)["documents"]["inserted"]
    assert (row["file_id"], row["content"], row["created_at"]) == ("document_018", "Item,Cost", STAMP)
    ok(ex, "create_document", {"title": "Q2 budget", "doc_type": "doc", "folder_path": "/Documents/Finance"})


def test_create_document_errors(ex: Executor) -> None:
    payload = fails(
        ex, "create_document", {"title": "x", "doc_type": "doc", "folder_path": "/Nope"}, ErrorType.ENTITY_NOT_FOUND
    )
    assert "/Documents/School" in payload["candidates"]
    payload = fails(
        ex,
        "create_document",
        {"title": "q2 BUDGET", "doc_type": "sheet", "folder_path": "/Documents/Finance"},
        ErrorType.DUPLICATE_ENTITY,
    )
    assert payload["existing_id"] == "document_001"
    prepare(ex.conn, update(device_settings).where(device_settings.c.key == "storage_free_gb").values(value="0.05"))
    fails(ex, "create_document", {"title": "x", "doc_type": "doc"}, ErrorType.LIMIT_EXCEEDED)


def test_create_document_folders_are_the_files_apps(ex: Executor) -> None:
    """Documents go to the /Documents folders list_files shows; a missing one is refused until create_folder."""
    listed = ok(ex, "list_files", {"folder_path": "/Documents"})["subfolders"]
    assert {"/Documents/Finance", "/Documents/Personal", "/Documents/School"} <= set(listed)
    payload = fails(
        ex,
        "create_document",
        {"title": "x", "doc_type": "doc", "folder_path": "/Documents/Hobbies"},
        ErrorType.ENTITY_NOT_FOUND,
    )
    assert set(listed) <= set(payload["candidates"]) and "create_folder" in payload["hint"]
    ok(ex, "create_folder", {"path": "/Documents/Hobbies"})
    out = ok(ex, "create_document", {"title": "x", "doc_type": "doc", "folder_path": "/documents/hobbies"})
    assert out["folder_path"] == "/Documents/Hobbies"


def test_share_document(ex: Executor) -> None:
    out = ok(
        ex,
        "share_document",
        {
            "file_id": "document_001",
            "share_with": ["contact_004", "contact_005", "a@b.co"],
            "access": "comment",
            "message": "Please check the travel line.",
        },
    )
    assert out["shared"] == [
        {"grantee": "alex.4@example.com", "access": "comment", "previous": "edit"},
        {"grantee": "alex.5@example.com", "access": "comment", "previous": None},
        {"grantee": "a@b.co", "access": "comment", "previous": None},
    ]
    d = diff(ex)
    assert [(u["before"]["access"], u["after"]["access"]) for u in d["file_shares"]["updated"]] == [("edit", "comment")]
    assert sorted(r["grantee"] for r in d["file_shares"]["inserted"]) == ["a@b.co", "alex.5@example.com"]
    [mail] = d["emails"]["inserted"]
    assert mail["message_id"] == out["notification_email_id"] and mail["folder"] == "sent"
    assert json.loads(mail["to_json"]) == ["alex.4@example.com", "alex.5@example.com", "a@b.co"]
    assert "Please check the travel line." in mail["body"] and "document_001" in mail["body"]


def test_share_document_without_notification(ex: Executor) -> None:
    out = ok(
        ex,
        "share_document",
        {"file_id": "document_002", "share_with": ["contact_001"], "access": "view", "notify": False},
    )
    assert out["notification_email_id"] is None and set(diff(ex)) == {"file_shares"}


def test_share_document_errors(ex: Executor) -> None:
    fails(
        ex,
        "share_document",
        {"file_id": "document_999", "share_with": ["a@b.co"], "access": "view"},
        ErrorType.ENTITY_NOT_FOUND,
    )
    fails(
        ex,
        "share_document",
        {"file_id": "document_001", "share_with": ["contact_999"], "access": "view"},
        ErrorType.ENTITY_NOT_FOUND,
    )
    fails(
        ex,
        "share_document",
        {"file_id": "document_001", "share_with": ["contact_007"], "access": "view"},
        ErrorType.INVALID_ARGUMENT_VALUE,
    )
    fails(
        ex,
        "share_document",
        {"file_id": "document_001", "share_with": ["wang.lei@example.com"], "access": "view"},
        ErrorType.INVALID_ARGUMENT_VALUE,
    )
    payload = fails(
        ex,
        "share_document",
        {"file_id": "document_001", "share_with": ["contact_004"], "access": "edit"},
        ErrorType.DUPLICATE_ENTITY,
    )
    assert payload["existing_ids"] == ["alex.4@example.com"]
    prepare(ex.conn, *offline())
    fails(
        ex,
        "share_document",
        {"file_id": "document_001", "share_with": ["a@b.co"], "access": "view"},
        ErrorType.NETWORK_UNAVAILABLE,
    )


# ---- 1.7 Courses ----------------------------------------------------------------------------


def test_add_course_assignment_with_reminder(ex: Executor) -> None:
    out = ok(
        ex,
        "add_course_assignment",
        {"course": "ds101", "title": "Problem set 9", "due": "2025-06-20T23:59", "kind": "exam", "reminder_min": 1440},
    )
    assert out == {
        "assignment_id": out["assignment_id"],
        "course_id": "course_001",
        "course": "Intro to Data Science",
        "title": "Problem set 9",
        "kind": "exam",
        "due": "2025-06-20T23:59",
        "task_id": out["task_id"],
        "remind_at": "2025-06-19T23:59",
    }
    d = diff(ex)
    [a] = d["assignments"]["inserted"]
    [t] = d["tasks"]["inserted"]
    assert (a["task_id"], a["status"], t["task_id"], t["list_name"], t["priority"], t["remind_at"]) == (
        t["task_id"],
        "open",
        out["task_id"],
        "School",
        "high",
        "2025-06-19T23:59",
    )


def test_add_course_assignment_by_name_part(ex: Executor) -> None:
    out = ok(
        ex, "add_course_assignment", {"course": "accounting", "title": "Chapter 5 exercises", "due": "2025-06-24T18:30"}
    )
    assert out["course_id"] == "course_003" and out["task_id"] is None
    assert set(diff(ex)) == {"assignments"}


def test_add_course_assignment_errors(ex: Executor) -> None:
    args = {"title": "Essay", "due": "2025-06-20T23:59"}
    payload = fails(ex, "add_course_assignment", {**args, "course": "Quantum physics"}, ErrorType.ENTITY_NOT_FOUND)
    assert "DS101 Intro to Data Science" in payload["candidates"]
    payload = fails(ex, "add_course_assignment", {**args, "course": "data science"}, ErrorType.AMBIGUOUS_ENTITY)
    assert [c["code"] for c in payload["candidates"]] == ["DS101", "DS201"]
    existing = query(ex, select(assignments).where(assignments.c.course_id == "course_001"))[0]
    payload = fails(
        ex,
        "add_course_assignment",
        {**args, "course": "course_001", "title": existing["title"].upper()},
        ErrorType.DUPLICATE_ENTITY,
    )
    assert payload["existing_id"] == existing["assignment_id"]


# ---- 1.8 Focus ------------------------------------------------------------------------------


def test_start_focus_session(ex: Executor) -> None:
    out = ok(
        ex,
        "start_focus_session",
        {
            "duration_min": 25,
            "cycles": 2,
            "break_min": 5,
            "task_id": "task_001",
            "blocked_apps": ["messages", "chat", "messages"],
        },
    )
    assert out == {
        "session_id": "focus_037",
        "started_at": "2025-06-13T09:00",
        "ends_at": "2025-06-13T09:55",
        "task_id": "task_001",
        "blocked_apps": ["chat", "messages"],
        "dnd_until": "2025-06-13T09:55",
    }
    d = diff(ex)
    [row] = d["focus_sessions"]["inserted"]
    assert (row["status"], json.loads(row["blocked_apps_json"])) == ("active", ["chat", "messages"])
    assert {u["after"]["key"]: u["after"]["value"] for u in d["device_settings"]["updated"]} == {
        "dnd": "1",
        "dnd_until": "2025-06-13T09:55",
    }


def test_start_focus_session_blocks_apps_by_name(ex: Executor) -> None:
    """A user names the app as the phone shows it; the session stores its id."""
    out = ok(ex, "start_focus_session", {"duration_min": 25, "blocked_apps": ["kingdom clash", "Chat", "chat"]})
    assert out["blocked_apps"] == ["chat", "kingdom_clash"]


def test_start_focus_session_keeps_a_longer_do_not_disturb(ex: Executor) -> None:
    prepare(ex.conn, update(device_settings).where(device_settings.c.key == "dnd").values(value="1"))
    assert ok(ex, "start_focus_session", {"duration_min": 30})["dnd_until"] is None  # on until switched off
    assert set(diff(ex)) == {"focus_sessions"}


def test_start_focus_session_errors(ex: Executor) -> None:
    fails(ex, "start_focus_session", {"duration_min": 25, "task_id": "task_999"}, ErrorType.ENTITY_NOT_FOUND)
    payload = fails(
        ex, "start_focus_session", {"duration_min": 25, "blocked_apps": ["tiktok"]}, ErrorType.ENTITY_NOT_FOUND
    )
    assert payload["missing"] == ["tiktok"]
    assert "chat (Chat)" in payload["candidates"]  # the installed apps, so the model can pick an id
    fails(ex, "start_focus_session", {"duration_min": 4}, ErrorType.INVALID_ARGUMENT_VALUE)
    prepare(
        ex.conn,
        insert(focus_sessions).values(
            session_id="focus_900",
            duration_min=50,
            break_min=5,
            cycles=1,
            task_id=None,
            blocked_apps_json="[]",
            started_at="2025-06-13T08:30",
            ends_at="2025-06-13T09:20",
            status="active",
        ),
    )
    payload = fails(ex, "start_focus_session", {"duration_min": 25}, ErrorType.STATE_CONFLICT)
    assert payload["session_id"] == "focus_900"


# ---- every declared error has a test --------------------------------------------------------

# (tool, ErrorType) pairs the tests above exercise with ``fails``; a newly declared error must be added here.
COVERED: set[tuple[str, ErrorType]] = {
    ("find_free_slots", ErrorType.ENTITY_NOT_FOUND),
    ("send_meeting_invite", ErrorType.ENTITY_NOT_FOUND),
    ("send_meeting_invite", ErrorType.STATE_CONFLICT),
    ("send_meeting_invite", ErrorType.DUPLICATE_ENTITY),
    ("respond_to_invitation", ErrorType.ENTITY_NOT_FOUND),
    ("respond_to_invitation", ErrorType.STATE_CONFLICT),
    ("create_calendar_event", ErrorType.DUPLICATE_ENTITY),
    ("create_calendar_event", ErrorType.TIME_CONFLICT),
    ("update_calendar_event", ErrorType.ENTITY_NOT_FOUND),
    ("update_calendar_event", ErrorType.STATE_CONFLICT),
    ("update_calendar_event", ErrorType.INVALID_ARGUMENT_VALUE),
    ("update_calendar_event", ErrorType.TIME_CONFLICT),
    ("delete_calendar_event", ErrorType.ENTITY_NOT_FOUND),
    ("delete_calendar_event", ErrorType.STATE_CONFLICT),
    ("create_task", ErrorType.DUPLICATE_ENTITY),
    ("list_tasks", ErrorType.ENTITY_NOT_FOUND),
    ("update_task", ErrorType.ENTITY_NOT_FOUND),
    ("update_task", ErrorType.STATE_CONFLICT),
    ("delete_task", ErrorType.ENTITY_NOT_FOUND),
    ("create_reminder", ErrorType.INVALID_ARGUMENT_VALUE),
    ("create_reminder", ErrorType.DUPLICATE_ENTITY),
    ("set_alarm", ErrorType.DUPLICATE_ENTITY),
    ("update_alarm", ErrorType.ENTITY_NOT_FOUND),
    ("update_alarm", ErrorType.STATE_CONFLICT),
    ("update_alarm", ErrorType.DUPLICATE_ENTITY),
    ("delete_alarm", ErrorType.ENTITY_NOT_FOUND),
    ("create_note", ErrorType.DUPLICATE_ENTITY),
    ("update_note", ErrorType.ENTITY_NOT_FOUND),
    ("update_note", ErrorType.DUPLICATE_ENTITY),
    ("send_email", ErrorType.ENTITY_NOT_FOUND),
    ("send_email", ErrorType.INVALID_ARGUMENT_VALUE),
    ("send_email", ErrorType.LIMIT_EXCEEDED),
    ("save_email_draft", ErrorType.ENTITY_NOT_FOUND),
    ("save_email_draft", ErrorType.INVALID_ARGUMENT_VALUE),
    ("move_email", ErrorType.ENTITY_NOT_FOUND),
    ("move_email", ErrorType.STATE_CONFLICT),
    ("create_document", ErrorType.ENTITY_NOT_FOUND),
    ("create_document", ErrorType.DUPLICATE_ENTITY),
    ("create_document", ErrorType.LIMIT_EXCEEDED),
    ("share_document", ErrorType.ENTITY_NOT_FOUND),
    ("share_document", ErrorType.INVALID_ARGUMENT_VALUE),
    ("share_document", ErrorType.DUPLICATE_ENTITY),
    ("add_course_assignment", ErrorType.ENTITY_NOT_FOUND),
    ("add_course_assignment", ErrorType.AMBIGUOUS_ENTITY),
    ("add_course_assignment", ErrorType.DUPLICATE_ENTITY),
    ("start_focus_session", ErrorType.ENTITY_NOT_FOUND),
    ("start_focus_session", ErrorType.STATE_CONFLICT),
}


def test_every_declared_error_is_covered() -> None:
    assert {(n, e) for n in D1_TOOLS for e in REGISTRY[n].errors} == COVERED
