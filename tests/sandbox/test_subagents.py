"""The monitor, screen-reader and voice sub-agents (the GUI agent is covered in test_framework)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, insert, select, update

import sandbox.domains  # noqa: F401
from sandbox.db import transaction
from sandbox.domains.apps_security.schema import files
from sandbox.domains.communication.schema import contacts
from sandbox.episode import Episode
from sandbox.executor import Executor
from sandbox.schema import app_permissions, apps
from sandbox.subagents import (
    FIELD_SYNONYMS,
    fire_monitors,
    monitors,
    read_path,
    screen_snapshots,
    world_phone_services,
)
from sandbox.tasks import Task
from tests.sandbox.conftest import diff_of, log_count, prepare

WATCH_BOB = {"tool": "search_contacts", "args": {"name": "Bob Stone"}, "path": "$.count", "op": "ge", "value": 1}
GREET_BOB = [
    {"tool": "search_contacts", "args": {"name": "Bob Stone"}},
    {"tool": "send_sms", "args": {"to": ["{{step1.Payload.contacts[0].contact_id}}"], "body": "Welcome!"}},
]


def _line(conn: Connection, name: str) -> str:
    """The number of one of the world's phone-only businesses (a number of the persona's city)."""
    with transaction(conn):
        found = select(world_phone_services.c.phone).where(world_phone_services.c.name.startswith(name))
        return str(conn.execute(found).scalar_one())


def test_read_path() -> None:
    payload = {"a": {"b": [{"c": 3}]}, "price": 9}
    assert read_path(payload, "$.a.b[0].c") == 3 and read_path(payload, "price") == 9
    assert read_path(payload, "$.a.b[5].c") is None and read_path(payload, "$.x.y") is None


def test_monitor_fires_its_plan_when_the_condition_holds(conn: Connection, ex: Executor) -> None:
    env = ex.call("call_monitor_agent", {"condition": WATCH_BOB, "on_trigger": GREET_BOB})
    assert env["Status"] == "success" and env["Payload"]["status"] == "pending"
    prepare(
        conn,
        insert(contacts).values(contact_id="contact_500", name="Bob Stone", phone_number="+15550009999", favorite=0),
    )
    fire_monitors(ex, "2025-06-14T09:00")
    diff = diff_of(conn)
    assert diff["messages"].inserted[0]["contact_id"] == "contact_500"
    assert [a["status"] for _, a in diff["monitors"].updated] == ["triggered"]  # registered before prepare()
    assert [a["status"] for _, a in diff["subagent_jobs"].updated] == ["triggered"]


def test_monitor_stays_pending_when_the_condition_does_not_hold(conn: Connection, ex: Executor) -> None:
    ex.call("call_monitor_agent", {"condition": WATCH_BOB, "notify_only": True})
    fire_monitors(ex, "2025-06-14T09:00")
    diff = diff_of(conn)
    assert diff["monitors"].inserted[0]["status"] == "active" and "messages" not in diff


def test_monitor_expires(conn: Connection, ex: Executor) -> None:
    ex.call("call_monitor_agent", {"condition": WATCH_BOB, "notify_only": True, "expires_at": "2025-06-13T12:00"})
    fire_monitors(ex, "2025-06-14T09:00")
    assert diff_of(conn)["monitors"].inserted[0]["status"] == "expired"


def test_monitor_rejects_bad_handoffs(conn: Connection, ex: Executor) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"condition": {**WATCH_BOB, "tool": "add_contact"}, "notify_only": True}, "InvalidArgumentValue"),
        ({"condition": {**WATCH_BOB, "args": {}}, "notify_only": True}, "InvalidArgumentValue"),
        ({"condition": WATCH_BOB}, "InvalidArgumentValue"),
        ({"condition": WATCH_BOB, "on_trigger": [{"tool": "roombook_reserve", "args": {}}]}, "ToolNotAvailable"),
        ({"condition": WATCH_BOB, "on_trigger": [{"tool": "send_sms", "args": {"body": "x"}}]}, "InvalidArgumentValue"),
        ({"condition": WATCH_BOB, "notify_only": True, "expires_at": "2025-06-01T00:00"}, "InvalidArgumentValue"),
        ({"condition": {**WATCH_BOB, "op": "about"}, "notify_only": True}, "InvalidArgumentValue"),
        (
            {"condition": {k: v for k, v in WATCH_BOB.items() if k != "value"} | {"op": "lt"}, "notify_only": True},
            "InvalidArgumentValue",
        ),
    ]
    for arguments, error in cases:
        before = log_count(conn)
        env = ex.call("call_monitor_agent", arguments)
        assert env["ErrorType"] == error, (arguments, env)
        assert diff_of(conn) == {} and log_count(conn) == before + 1


def test_order_comparisons_hold_only_between_comparable_values() -> None:
    from sandbox.subagents import OPS

    assert OPS["lt"](3, 5) and not OPS["lt"]("3", 5) and not OPS["ge"](None, 1) and not OPS["gt"](2, None)


def test_monitor_fires_when_the_episode_settles() -> None:
    task = Task.model_validate(
        {
            "task_id": "t_monitor",
            "category": "subagent",
            "domain": "D3",
            "l2": "3.2",
            "query": "When Bob Stone is in my contacts, text him welcome.",
            "initial_state": {"world": "wang_lei"},
            "candidate_tools": ["search_contacts", "send_sms"],
            "bucket": "state_change",
            "gold": [
                {"name": "call_monitor_agent", "arguments": {"condition": WATCH_BOB, "on_trigger": GREET_BOB}},
                {"name": "finish", "arguments": {"answer": "Watching."}},
            ],
            "check": {"insert": {"messages": [{"body": "Welcome!"}]}},
            "events": [
                {
                    "at": "2025-06-14T10:00",
                    "changes": {
                        "insert": {
                            "contacts": [
                                {
                                    "contact_id": "contact_500",
                                    "name": "Bob Stone",
                                    "phone_number": "+15550009999",
                                    "favorite": 0,
                                }
                            ]
                        }
                    },
                }
            ],
        }
    )
    with Episode(task) as episode:
        for action in task.gold:
            episode.step(action.name, action.arguments)
        trajectory = episode.trajectory()
    assert trajectory.diff["messages"].inserted[0]["body"] == "Welcome!"
    assert trajectory.subagent_jobs[0]["agent"] == "monitor_agent"


def test_screen_reader_extracts_fields(conn: Connection, ex: Executor) -> None:
    env = ex.call(
        "call_screen_reader_agent",
        {"source": {"type": "screen", "id": "snapshot_002"}, "extract_fields": ["invoice_number", "due_date", "iban"]},
    )
    assert env["Payload"]["fields"] == {"invoice_number": "INV-2291", "due_date": "2025-07-01", "iban": None}
    assert env["Payload"]["missing"] == ["iban"]
    answer = ex.call(
        "call_screen_reader_agent",
        {"source": {"type": "screen", "id": "snapshot_001"}, "question": "When is the workshop?"},
    )
    assert answer["Payload"]["answer_lines"] == ["14:00 Workshop: Tool use"]
    assert (
        ex.call("call_screen_reader_agent", {"source": {"type": "screen", "id": "snapshot_404"}, "question": "x"})[
            "ErrorType"
        ]
        == "EntityNotFound"
    )
    assert (
        ex.call("call_screen_reader_agent", {"source": {"type": "screen", "id": "snapshot_001"}})["ErrorType"]
        == "InvalidArgumentValue"
    )


def test_screen_reader_finds_a_field_by_a_synonym_and_lists_the_fields(conn: Connection, ex: Executor) -> None:
    prepare(
        conn,
        insert(screen_snapshots).values(
            snapshot_id="snapshot_500",
            app_id="camera",
            ocr_text="Ana Silva\nArchitect\nTel +1 415 555 0101",
            fields_json=json.dumps({"name": "Ana Silva", "phone": "+1 415 555 0101", "title": "Architect"}),
        ),
    )
    env = ex.call(
        "call_screen_reader_agent",
        {
            "source": {"type": "screen", "id": "snapshot_500"},
            "extract_fields": ["phone_number", "Job Title", "name", "email"],
        },
    )
    assert env["Payload"]["fields"] == {
        "phone_number": "+1 415 555 0101",
        "Job Title": "Architect",
        "name": "Ana Silva",
        "email": None,
    }
    assert env["Payload"]["missing"] == ["email"]
    assert env["Payload"]["available_fields"] == ["name", "phone", "title"]


def test_screen_reader_extracts_an_invoice_scans_labelled_values(conn: Connection, ex: Executor) -> None:
    scan = conn.execute(select(files.c.file_id).where(files.c.name == "scan_0001.pdf")).scalar_one()
    env = ex.call(
        "call_screen_reader_agent",
        {"source": {"type": "file", "id": scan}, "extract_fields": ["invoice_number", "issuer", "total", "merchant"]},
    )
    assert env["Payload"]["fields"] == {
        "invoice_number": "INV-88231",
        "issuer": "Bright Smile Dental Clinic",
        "total": 350.0,
        "merchant": "Bright Smile Dental Clinic",
    }
    screen = {"type": "screen", "id": "snapshot_002"}
    env = ex.call("call_screen_reader_agent", {"source": screen, "extract_fields": ["Invoice No", "total"]})
    assert env["Payload"]["missing"] == []


def test_field_synonym_groups_are_disjoint() -> None:
    names = [n for group in FIELD_SYNONYMS for n in group]
    assert len(names) == len(set(names))


def test_voice_agent_answers_the_topic_however_it_is_asked(conn: Connection, ex: Executor) -> None:
    prepare(
        conn,
        insert(world_phone_services).values(
            phone="+15550100077",
            place_id=None,
            name="Orbit Mobile",
            handler="inquiry",
            rules_json=json.dumps({"answers": {"roaming|data|abroad": "Roaming in Japan is included."}}),
        ),
    )
    for objective, facts in (
        ("Ask whether roaming in Japan is included", {}),
        ("Ask whether data in Japan costs extra", {}),
        ("Ask about my plan while I travel", {"topic": "using the phone abroad"}),
    ):
        env = ex.call(
            "call_voice_agent", {"callee": {"phone": "+1 555 010 0077"}, "objective": objective, "facts": facts}
        )
        assert env["Payload"]["details"]["answer"] == "Roaming in Japan is included.", objective
    # a question the business cannot answer is the call's failure, never a success to relay
    before = diff_of(conn)
    other = ex.call(
        "call_voice_agent", {"callee": {"phone": "+15550100077"}, "objective": "Ask for my PUK code", "facts": {}}
    )
    assert other["Status"] == "error" and other["ErrorType"] == "SubAgentFailed"
    assert other["Payload"]["reason"] == "no_answer" and "answer" not in other["Payload"]
    assert diff_of(conn) == before


def test_voice_agent_inquiry_booking_and_alternatives(conn: Connection, ex: Executor) -> None:
    answer = ex.call(
        "call_voice_agent",
        {
            "callee": {"phone": _line(conn, "Corner Pharmacy")},
            "objective": "Ask whether ibuprofen is in stock",
            "facts": {},
        },
    )
    assert answer["Payload"]["details"]["answer"] == "In stock, 12 packs."
    facts = {"date": "2025-06-14", "time": "19:00", "party_size": 4, "name": "Wang Lei"}
    booked = ex.call(
        "call_voice_agent",
        {"callee": {"phone": _line(conn, "Golden Dragon")}, "objective": "Book a table", "facts": facts},
    )
    assert booked["Payload"]["outcome"] == "success"
    row = diff_of(conn)["phone_bookings"].inserted[0]
    assert (row["time"], row["party_size"], row["source"]) == ("19:00", 4, "voice_agent")
    other = ex.call(
        "call_voice_agent",
        {
            "callee": {"phone": _line(conn, "Golden Dragon")},
            "objective": "Book a table",
            "facts": {**facts, "time": "19:30"},
        },
    )
    assert (
        other["Payload"]["outcome"] == "alternative_offered" and other["Payload"]["details"]["offered_time"] == "20:00"
    )
    missing = ex.call(
        "call_voice_agent",
        {
            "callee": {"phone": _line(conn, "Golden Dragon")},
            "objective": "Book a table",
            "facts": {"date": "2025-06-14"},
        },
    )
    assert missing["ErrorType"] == "SubAgentFailed" and missing["Payload"]["missing_inputs"] == [
        "time",
        "party_size",
        "name",
    ]


def test_voice_agent_books_an_appointment_without_a_party_size(conn: Connection, ex: Executor) -> None:
    """A salon or a plumber books one customer at a time: nobody there asks how many people come."""
    facts = {"date": "2025-06-14", "time": "14:00", "name": "Wang Lei", "address": "1 Main St"}
    missing = ex.call(
        "call_voice_agent",
        {
            "callee": {"phone": _line(conn, "Style Studio")},
            "objective": "Book a haircut",
            "facts": {"date": "2025-06-14"},
        },
    )
    assert missing["Payload"]["missing_inputs"] == ["time", "name"]
    booked = ex.call(
        "call_voice_agent",
        {"callee": {"phone": _line(conn, "Style Studio")}, "objective": "Book a haircut", "facts": facts},
    )
    assert booked["Payload"]["outcome"] == "success", booked
    row = diff_of(conn)["phone_bookings"].inserted[0]
    assert (row["time"], row["party_size"], row["notes"]) == ("14:00", 1, "1 Main St")


def test_voice_agent_needs_the_phone_permission(conn: Connection, ex: Executor) -> None:
    prepare(
        conn,
        update(app_permissions)
        .where(app_permissions.c.app_id == "assistant", app_permissions.c.permission == "PHONE")
        .values(state="not_requested"),
    )
    env = ex.call(
        "call_voice_agent", {"callee": {"phone": _line(conn, "Corner Pharmacy")}, "objective": "Ask", "facts": {}}
    )
    assert env["ErrorType"] == "PermissionDenied"
    with transaction(conn):
        assert conn.execute(select(monitors)).all() == []


def test_gui_agent_reserves_a_museum_ticket_in_the_venue_app(conn: Connection, ex: Executor) -> None:
    """The paper's example: no API sells the ticket; the GUI agent books it in the museum's own app."""
    api = ex.call("book_event_tickets", {"event_id": "evt_044", "quantity": 1})
    assert api["ErrorType"] == "UnsupportedOperation" and api["Payload"]["hint"] == "call_gui_agent(app_id='shmuseum')"
    handoff = {
        "app_id": api["Payload"]["app_id"],
        "goal": "Reserve 1 general-admission ticket",
        "inputs": {"date": "2025-06-21", "session": "09:00", "quantity": 1, "visitors": [{"self": True}]},
        "expected_outputs": ["reservation_code", "qr_code"],
    }
    missing = ex.call("call_gui_agent", {**handoff, "inputs": {"date": "2025-06-21", "quantity": 1}})
    assert missing["ErrorType"] == "SubAgentFailed" and missing["Payload"]["missing_inputs"] == ["session", "visitors"]
    env = ex.call("call_gui_agent", handoff)
    assert env["Status"] == "success", env
    assert all(env["Payload"]["outputs"][k] for k in ("reservation_code", "qr_code"))
    ticket = diff_of(conn)["event_tickets"].inserted[0]
    assert ticket["source"] == "gui_agent" and ticket["attendee_names_json"] == '["Wang Lei"]'


def test_gui_agent_names_each_input_and_its_format_when_one_is_missing(conn: Connection, ex: Executor) -> None:
    """Values given under other names are no reason to ask the user: the error says how to name them."""
    env = ex.call("call_gui_agent", {"app_id": "roombook", "goal": "Book a room", "inputs": {"title": "Sync"}})
    assert env["Payload"]["hint"] == "retry_with_named_inputs"
    assert env["Payload"]["inputs"] == {
        "date": "YYYY-MM-DD",
        "start": "HH:MM",
        "end": "HH:MM",
        "attendees": "a number or a list of people",
    }
    assert "retry with inputs named date (YYYY-MM-DD); start (HH:MM)" in env["Payload"]["message"]
    away = ex.call("call_gui_agent", {"app_id": "sportzone", "goal": "Claim the coupon", "inputs": {"code": "X"}})
    assert away["ErrorType"] == "UnsupportedOperation" and "shop" in away["Payload"]["installed_apps"]


def test_gui_agent_reads_synonyms_and_iso_times(conn: Connection, ex: Executor) -> None:
    env = ex.call(
        "call_gui_agent",
        {
            "app_id": "roombook",
            "goal": "Book a meeting room",
            "inputs": {"start_time": "2025-06-16T14:00", "end_time": "2025-06-16T15:00:00", "people": 6},
            "expected_outputs": ["room_name", "booking_code"],
        },
    )
    assert env["Status"] == "success", env
    assert env["Payload"]["outputs"]["room_name"] == "Maple"
    row = diff_of(conn)["room_bookings"].inserted[0]
    assert (row["date"], row["start"], row["end"]) == ("2025-06-16", "14:00", "15:00")


def test_gui_agent_pauses_an_automation_asked_in_other_words(conn: Connection, ex: Executor) -> None:
    env = ex.call(
        "call_gui_agent",
        {
            "app_id": "home",
            "goal": "Pause the Porch light at sunset automation",
            "inputs": {"automation_name": "Porch light at sunset", "action": "pause"},
            "expected_outputs": ["automation_status"],
        },
    )
    assert env["Status"] == "success", env
    assert env["Payload"]["outputs"]["automation_status"] == "paused"
    assert diff_of(conn)["home_automations"].updated[0][1]["enabled"] == 0


def test_gui_settings_flows_read_a_labelled_switch(conn: Connection, ex: Executor) -> None:
    """{"personalized_ads": false} and {"option": "mirror_front_camera", "value": true} say what to switch."""
    ads = ex.call(
        "call_gui_agent",
        {
            "app_id": "news",
            "goal": "Turn off personalized ads in the privacy settings",
            "inputs": {"personalized_ads": False},
            "expected_outputs": ["ads_status"],
        },
    )
    assert ads["Status"] == "success", ads
    assert ads["Payload"]["outputs"]["ads_status"] == "personalized ads: off"
    mirror = ex.call(
        "call_gui_agent",
        {
            "app_id": "camera",
            "goal": "Turn on the mirror setting for selfies",
            "inputs": {"option": "mirror_front_camera", "value": True},
        },
    )
    assert mirror["Payload"]["outputs"]["value"] == "on", mirror
    unknown = ex.call(
        "call_gui_agent",
        {"app_id": "camera", "goal": "Change the camera setting", "inputs": {"setting": "night sky", "enabled": True}},
    )
    assert unknown["ErrorType"] == "SubAgentFailed" and "mirror_front" in unknown["Payload"]["options"]


def test_screen_reader_answers_with_every_line_the_question_is_about(conn: Connection, ex: Executor) -> None:
    """ "Accessibility settings" names the accessibility field, so the line showing its value answers too."""
    prepare(
        conn,
        insert(screen_snapshots).values(
            snapshot_id="snapshot_501",
            app_id="notes",
            ocr_text="Phone setup for Grandma\nLanguage: Japanese (ja-JP)\nMono audio: ON\nCall me on Sunday",
            fields_json=json.dumps({"language_code": "ja-JP", "accessibility_on": ["mono_audio"]}),
        ),
    )
    env = ex.call(
        "call_screen_reader_agent",
        {
            "source": {"type": "screen", "id": "snapshot_501"},
            "question": "What language and accessibility settings does it list?",
        },
    )
    assert env["Payload"]["answer_lines"] == ["Language: Japanese (ja-JP)", "Mono audio: ON"]


def test_gui_agent_refuses_a_setting_the_app_does_not_have(conn: Connection, ex: Executor) -> None:
    """Volume has its own tool: the settings screen the GUI agent knows names its options and writes nothing."""
    env = ex.call(
        "call_gui_agent",
        {"app_id": "settings", "goal": "Change the setting", "inputs": {"setting": "Media volume", "value": "30"}},
    )
    assert env["ErrorType"] == "SubAgentFailed" and "Ringtone" in env["Payload"]["settings"], env
    assert "app_preferences" not in diff_of(conn)


def test_gui_agent_refuses_an_input_its_flow_has_no_field_for(conn: Connection, ex: Executor) -> None:
    """A refill given a "quantity" names its "packs" input rather than filing one pack."""
    handoff = {"app_id": "health", "goal": "Request a refill", "inputs": {"medication": "x", "quantity": 3}}
    env = ex.call("call_gui_agent", handoff)
    assert env["ErrorType"] == "SubAgentFailed" and env["Payload"]["unknown_inputs"] == ["quantity"], env
    assert "packs" in env["Payload"]["optional_inputs"]


def test_monitor_refuses_a_condition_that_already_holds(conn: Connection, ex: Executor) -> None:
    """A condition true now would fire at once: it watches for nothing, so the handoff fails and stores nothing."""
    holds_now = {**WATCH_BOB, "value": 0}  # no Bob Stone yet: a count >= 0 holds already
    env = ex.call("call_monitor_agent", {"condition": holds_now, "notify_only": True})
    assert env["Status"] == "error" and "already holds" in env["Payload"]["message"]
    assert "monitors" not in diff_of(conn) and "subagent_jobs" not in diff_of(conn)
    assert ex.call("call_monitor_agent", {"condition": WATCH_BOB, "notify_only": True})["Status"] == "success"


def test_every_signed_out_app_says_how_to_sign_back_in_and_the_gui_agent_does(conn: Connection, ex: Executor) -> None:
    for app_id, name, args in (("social", "search_social_posts", {"platform": "social"}), ("bank", "list_bills", {})):
        prepare(conn, update(apps).where(apps.c.app_id == app_id).values(logged_in=0))
        env = ex.call(name, args)
        assert env["ErrorType"] == "AuthenticationRequired"
        assert f"call_gui_agent(app_id={app_id!r})" in env["Payload"]["hint"]
        handoff = {"app_id": app_id, "goal": "Sign back in", "inputs": {"otp": "123 456"}, "expected_outputs": []}
        assert ex.call("call_gui_agent", handoff)["Payload"]["outputs"]["signed_in"] is True
        assert ex.call(name, args)["Status"] == "success"
