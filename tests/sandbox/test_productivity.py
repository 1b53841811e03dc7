"""D1 productivity tools against the wang_lei world (now = 2025-06-13T09:00, a Friday).

Each tool has a success test and one test per declared ErrorType; a failed call must leave the
database exactly as it was (only its Operation_logs row is added).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from sandbox.db import open_database
from sandbox.domains import productivity
from sandbox.domains.productivity import alarms, calendar_events, event_attendees, notes, tasks, world_busy_slots
from sandbox.errors import ErrorType
from sandbox.executor import Executor
from sandbox.tooling import REGISTRY
from sandbox.world import build_world, world_image
from tests.sandbox.conftest import diff_of, log_count

TOMORROW = "2025-06-14"


def diff(ex: Executor) -> dict[str, Any]:
    """D_T - D_0 as JSON (inserted / updated [{before, after}] / deleted per table)."""
    return {name: d.to_json() for name, d in diff_of(ex.conn).items()}


def query(ex: Executor, stmt: Any) -> list[dict[str, Any]]:
    with ex.conn.begin():
        return [dict(r._mapping) for r in ex.conn.execute(stmt)]


def ok(ex: Executor, name: str, args: dict[str, Any]) -> dict[str, Any]:
    env = ex.call(name, args)
    assert env["Status"] == "success", env
    ex.step += 1
    return env["Payload"]


def fails(ex: Executor, name: str, args: dict[str, Any], error: ErrorType) -> dict[str, Any]:
    """The call fails with exactly ``error``, changes nothing, and is logged."""
    before, logged = diff(ex), log_count(ex.conn)
    env = ex.call(name, args)
    assert env["Status"] == "error" and env["ErrorType"] == error.value, env
    assert diff(ex) == before
    assert log_count(ex.conn) == logged + 1
    return env["Payload"]


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
        with conn.begin():
            events = [dict(r._mapping) for r in conn.execute(select(calendar_events))]
            standups = {ev["start"] for ev in events if ev["title"] == "Team standup"}
            assert {f"2025-06-{d:02d}T09:30" for d in range(9, 14)} <= standups
            review = [ev for ev in events if ev["title"] == "Project review"]
            assert [(ev["start"], ev["end"]) for ev in review] == [("2025-06-14T14:00", "2025-06-14T15:00")]
            assert 60 <= len(events) <= 120
            assert {ev["status"] for ev in events} == {"confirmed", "cancelled"}
            people = set(conn.execute(select(world_busy_slots.c.person_key)).scalars())
            assert people == {"contact_004", "contact_005"}
            wake = conn.execute(select(alarms).where(alarms.c.alarm_id == "alarm_001")).one()
            assert (wake.time, json.loads(wake.days_json), wake.enabled, wake.label) == (
                "06:45", ["mon", "tue", "wed", "thu", "fri"], 1, "Wake up")
            lists = set(conn.execute(select(tasks.c.list_name)).scalars())
            assert {"Inbox", "Work", "Groceries"} <= lists
            assert len(conn.execute(select(notes)).all()) == 10
    finally:
        conn.close()


def test_declarations() -> None:
    d1 = {n: s for n, s in REGISTRY.items() if s.fn.__module__ == productivity.__name__}
    assert len(d1) == 18
    assert {n for n, s in d1.items() if not s.mutating} == {
        "find_free_slots", "search_calendar_events", "list_tasks", "search_notes", "get_daily_agenda"}
    assert all("CALENDAR" in s.permissions for s in d1.values() if s.app == "calendar")


# ---- 1.1 Meeting Scheduling -----------------------------------------------------------------

def test_find_free_slots_avoids_busy_times(ex: Executor) -> None:
    out = ok(ex, "find_free_slots", {"date_from": "2025-06-16", "date_to": "2025-06-17", "duration_min": 30,
                                     "attendees": ["contact_004", "contact_005"], "max_results": 20})
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
    fails(ex, "find_free_slots", {"date_from": "2025-06-16", "date_to": "2025-06-16", "duration_min": 30,
                                  "attendees": ["contact_999"]}, ErrorType.ENTITY_NOT_FOUND)


def test_find_free_slots_range_too_long(ex: Executor) -> None:
    fails(ex, "find_free_slots", {"date_from": "2025-06-16", "date_to": "2025-07-16", "duration_min": 30},
          ErrorType.INVALID_ARGUMENT_VALUE)


def test_send_meeting_invite(ex: Executor) -> None:
    review = event_id(ex, "Project review", f"{TOMORROW}T14:00")
    out = ok(ex, "send_meeting_invite", {"event_id": review, "attendees": ["contact_004", "contact_010"]})
    assert out["invited"] == ["contact_010"] and out["skipped_already_invited"] == ["contact_004"]
    inserted = diff(ex)["event_attendees"]["inserted"]
    assert [(r["event_id"], r["contact_id"], r["response"]) for r in inserted] == [
        (review, "contact_010", "needs_action")]


def test_send_meeting_invite_not_found(ex: Executor) -> None:
    fails(ex, "send_meeting_invite", {"event_id": "event_999", "attendees": ["contact_004"]},
          ErrorType.ENTITY_NOT_FOUND)
    review = event_id(ex, "Project review", f"{TOMORROW}T14:00")
    fails(ex, "send_meeting_invite", {"event_id": review, "attendees": ["contact_999"]}, ErrorType.ENTITY_NOT_FOUND)


def test_send_meeting_invite_cancelled_or_past(ex: Executor) -> None:
    fails(ex, "send_meeting_invite", {"event_id": cancelled_event(ex), "attendees": ["contact_010"]},
          ErrorType.STATE_CONFLICT)
    past = event_id(ex, "Team standup", "2025-06-12T09:30")
    fails(ex, "send_meeting_invite", {"event_id": past, "attendees": ["contact_010"]}, ErrorType.STATE_CONFLICT)


def test_send_meeting_invite_all_already_invited(ex: Executor) -> None:
    review = event_id(ex, "Project review", f"{TOMORROW}T14:00")
    fails(ex, "send_meeting_invite", {"event_id": review, "attendees": ["contact_004", "contact_005"]},
          ErrorType.DUPLICATE_ENTITY)


# ---- 1.2 Calendar & Tasks -------------------------------------------------------------------

def test_create_calendar_event(ex: Executor) -> None:
    out = ok(ex, "create_calendar_event", {"title": "Morning run", "start": f"{TOMORROW}T06:00",
                                           "end": f"{TOMORROW}T07:00", "reminder_min": 10})
    [row] = diff(ex)["calendar_events"]["inserted"]
    assert row["event_id"] == out["event_id"]
    assert (row["title"], row["start"], row["end"], row["calendar"], row["status"], row["reminder_min"]) == (
        "Morning run", f"{TOMORROW}T06:00", f"{TOMORROW}T07:00", "personal", "confirmed", 10)
    assert row["created_at"] == row["updated_at"] == "2025-06-13T09:00:01"


def test_create_calendar_event_end_before_start(ex: Executor) -> None:
    fails(ex, "create_calendar_event", {"title": "Oops", "start": f"{TOMORROW}T07:00", "end": f"{TOMORROW}T06:00"},
          ErrorType.INVALID_ARGUMENT_VALUE)


def test_create_calendar_event_duplicate(ex: Executor) -> None:
    review = event_id(ex, "Project review", f"{TOMORROW}T14:00")
    payload = fails(ex, "create_calendar_event", {"title": "project REVIEW meeting", "start": f"{TOMORROW}T14:00",
                                                  "end": f"{TOMORROW}T15:00"}, ErrorType.DUPLICATE_ENTITY)
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
        f"{TOMORROW}T07:00", f"{TOMORROW}T08:00", "Room B")


def test_update_calendar_event_not_found(ex: Executor) -> None:
    fails(ex, "update_calendar_event", {"event_id": "event_999", "title": "x"}, ErrorType.ENTITY_NOT_FOUND)


def test_update_calendar_event_cancelled(ex: Executor) -> None:
    fails(ex, "update_calendar_event", {"event_id": cancelled_event(ex), "title": "x"}, ErrorType.STATE_CONFLICT)


def test_update_calendar_event_end_before_start(ex: Executor) -> None:
    review = event_id(ex, "Project review", f"{TOMORROW}T14:00")
    fails(ex, "update_calendar_event", {"event_id": review, "end": f"{TOMORROW}T13:00"},
          ErrorType.INVALID_ARGUMENT_VALUE)


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
        out["task_id"], "Inbox", "2025-06-15", "medium", "open")


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
        out["task_id"], "Call Mom", f"{TOMORROW}T18:00", "Reminders")


def test_create_reminder_in_the_past(ex: Executor) -> None:
    fails(ex, "create_reminder", {"text": "Call Mom", "remind_at": "2025-06-13T08:00"},
          ErrorType.INVALID_ARGUMENT_VALUE)


def test_create_reminder_duplicate(ex: Executor) -> None:
    ok(ex, "create_reminder", {"text": "Call Mom", "remind_at": f"{TOMORROW}T18:00"})
    fails(ex, "create_reminder", {"text": "call mom", "remind_at": f"{TOMORROW}T18:00"}, ErrorType.DUPLICATE_ENTITY)


def test_set_alarm(ex: Executor) -> None:
    out = ok(ex, "set_alarm", {"time": "06:15", "days": ["fri", "mon"], "label": "Early"})
    assert out["alarm_id"] == "alarm_004" and out["days"] == ["mon", "fri"]
    [row] = diff(ex)["alarms"]["inserted"]
    assert (row["time"], json.loads(row["days_json"]), row["enabled"]) == ("06:15", ["mon", "fri"], 1)


def test_set_alarm_duplicate(ex: Executor) -> None:
    payload = fails(ex, "set_alarm", {"time": "06:45", "days": ["mon", "tue", "wed", "thu", "fri"]},
                    ErrorType.DUPLICATE_ENTITY)
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
    payload = fails(ex, "update_alarm", {"alarm_id": "alarm_002", "time": "06:45", "enabled": True,
                                         "days": ["mon", "tue", "wed", "thu", "fri"]}, ErrorType.DUPLICATE_ENTITY)
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
    fails(ex, "update_note", {"note_id": "note_001", "content": "a", "append_text": "b"},
          ErrorType.INVALID_ARGUMENT_VALUE)


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
