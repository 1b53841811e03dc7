"""Framework actions: memory search and writes, skills, ask_user, the GUI sub-agent, finish."""

from __future__ import annotations

from sqlalchemy import Connection, select

from sandbox.db import transaction
from sandbox.executor import Executor
from sandbox.memory import bm25_rank
from sandbox.schema import operation_logs
from sandbox.skills import SKILLS, check_skills
from sandbox.subagents import room_bookings
from sandbox.user import NOTHING_TO_ADD, UserAnswer
from tests.sandbox.conftest import diff_of, log_count


def test_search_memory_is_deterministic_and_hides_superseded(ex: Executor) -> None:
    first = ex.call("search_memory", {"query": "wake up time weekdays"})
    assert first == ex.call("search_memory", {"query": "wake up time weekdays"})
    ids = [r["memory_id"] for r in first["Payload"]["records"]]
    assert ids[0] == "mem_010" and "mem_009" not in ids
    with_old = ex.call("search_memory", {"query": "wake up time weekdays", "include_superseded": True})
    assert "mem_009" in [r["memory_id"] for r in with_old["Payload"]["records"]]


def test_bm25_ties_break_on_validity_then_id() -> None:
    docs = [
        ("mem_002", "gym days", "2024-01-01"),
        ("mem_001", "gym days", "2024-01-01"),
        ("mem_003", "gym days", "2025-01-01"),
    ]
    assert [d for d, _ in bm25_rank("gym", docs)] == ["mem_003", "mem_001", "mem_002"]


def test_memory_writes(conn: Connection, ex: Executor) -> None:
    added = ex.call("add_memory", {"content": "Sister Chen Jing's birthday is September 3", "category": "relationship"})
    assert added["Payload"]["memory_id"] == "mem_041"
    assert (
        ex.call("add_memory", {"content": "sister chen jing's  birthday is September 3", "category": "relationship"})[
            "ErrorType"
        ]
        == "DuplicateEntity"
    )
    replaced = ex.call("replace_memory", {"memory_id": "mem_012", "new_content": "Gym on Fridays at 18:00"})
    assert replaced["Status"] == "success"
    assert ex.call("replace_memory", {"memory_id": "mem_012", "new_content": "x"})["ErrorType"] == "StateConflict"
    assert ex.call("delete_memory", {"memory_id": "mem_999"})["ErrorType"] == "EntityNotFound"
    updated = {b["memory_id"]: a for b, a in diff_of(conn)["memory_records"].updated}
    assert (
        updated["mem_012"]["status"] == "superseded" and updated["mem_012"]["superseded_by"] == "mem_042"
    )  # the failed add used no id


def test_skill_tools_hidden_until_loaded(conn: Connection) -> None:
    ex = Executor(conn, visible=frozenset({"search_contacts"}), skills_offered=("contact_hygiene", "bedtime_routine"))
    ex.step = 1
    env = ex.call("block_number", {"phone_number": "+1 202 555 0143"})
    assert env["ErrorType"] == "ToolNotAvailable" and env["Payload"]["hint"] == "load_skill"
    assert "block_number" not in ex.available()
    assert ex.call("load_skill", {"skill_id": "nope"})["ErrorType"] == "EntityNotFound"
    assert ex.call("load_skill", {"skill_id": "contact_hygiene"})["Status"] == "success"
    assert ex.call("load_skill", {"skill_id": "contact_hygiene"})["ErrorType"] == "StateConflict"
    assert "block_number" in ex.available()
    ex.step = 2
    assert ex.call("block_number", {"phone_number": "+1 202 555 0143"})["Status"] == "success"


def test_skills_are_sound() -> None:
    assert check_skills() == []
    assert len(SKILLS) >= 1


def test_ask_user_answers_from_the_script(conn: Connection) -> None:
    ex = Executor(
        conn,
        visible=frozenset(),
        user_script=(
            UserAnswer("+86 137 5555 0199", slot="phone_number"),
            UserAnswer("Alex Morgan", keywords=("which alex",)),
        ),
    )
    assert ex.call("ask_user", {"question": "What is the number?", "slot": "phone_number"})["Payload"] == {
        "answer": "+86 137 5555 0199"
    }
    assert ex.call("ask_user", {"question": "Which Alex do you mean?", "kind": "choose"})["Payload"] == {
        "answer": "Alex Morgan"
    }
    assert ex.call("ask_user", {"question": "What is your favourite colour?"})["Payload"]["answer"] == NOTHING_TO_ADD


def test_gui_agent_books_through_the_executor(conn: Connection, ex: Executor) -> None:
    env = ex.call(
        "call_gui_agent",
        {
            "app_id": "roombook",
            "goal": "Book a meeting room for the design sync",
            "inputs": {"date": "2025-06-16", "start": "14:00", "end": "15:00", "attendees": 6, "title": "Design sync"},
            "expected_outputs": ["room", "booking_code"],
        },
    )
    assert env["Status"] == "success", env
    assert env["Payload"]["outputs"] == {"room": "Maple", "booking_code": "room_booking_002"}
    diff = diff_of(conn)
    assert diff["room_bookings"].inserted[0]["booked_by"] == "gui_agent"
    assert diff["subagent_jobs"].inserted[0]["status"] == "completed"
    with transaction(conn):
        actors = conn.execute(
            select(operation_logs.c.tool_name, operation_logs.c.actor, operation_logs.c.parent_job_id).order_by(
                operation_logs.c.log_id
            )
        ).all()
    assert [tuple(a) for a in actors] == [
        ("roombook_reserve", "gui_agent", "job_001"),
        ("call_gui_agent", "planner", None),
    ]


def test_gui_agent_names_missing_handoff_inputs(conn: Connection, ex: Executor) -> None:
    before = log_count(conn)
    env = ex.call("call_gui_agent", {"app_id": "roombook", "goal": "Book a room", "inputs": {"date": "2025-06-16"}})
    assert env["ErrorType"] == "SubAgentFailed"
    assert env["Payload"]["missing_inputs"] == ["start", "end", "attendees"]
    assert diff_of(conn) == {} and log_count(conn) == before + 1
    assert (
        ex.call("call_gui_agent", {"app_id": "nosuchapp", "goal": "Book", "inputs": {}})["ErrorType"]
        == "UnsupportedOperation"
    )
    with transaction(conn):
        assert conn.execute(select(room_bookings)).all()[0].room_booking_id == "room_booking_001"


def test_finish_records_the_answer(conn: Connection, ex: Executor) -> None:
    assert ex.call("finish", {"answer": "Done."})["Status"] == "success"
