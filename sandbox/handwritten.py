"""The hand-written tasks of the first slice, authored here and written to ``data/tasks/handwritten.jsonl``.

Run ``python -m sandbox.handwritten`` to rewrite the file; a test checks the committed file is
exactly what this module produces. Each task is checked by replaying its gold (oracle must pass)
and by the no-op planner (must fail unless doing nothing is correct).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sandbox.retrieval import action_space
from sandbox.skills import SKILLS
from sandbox.suite import TASK_DIR
from sandbox.tasks import Task, dump_task
from sandbox.taxonomy import domain_of
from sandbox.tooling import REGISTRY

WORLD = "wang_lei"
NOW = "2025-06-13"  # Friday; the persona's frozen clock is 09:00


def act(tool: str, /, **arguments: Any) -> dict[str, Any]:
    return {"name": tool, "arguments": arguments}


def done(answer: str) -> dict[str, Any]:
    return act("finish", answer=answer)


def task(
    task_id: str,
    category: str,
    l2: str,
    query: str,
    gold: list[dict[str, Any]],
    bucket: str,
    check: dict[str, Any],
    *,
    patches: dict[str, Any] | None = None,
    history: list[dict[str, str]] | None = None,
    memory: list[str] | None = None,
    skill: str | None = None,
    skills: tuple[str, ...] = (),
    script: list[dict[str, Any]] | None = None,
    tags: dict[str, str] | None = None,
    recovers: tuple[str, ...] = (),
) -> Task:
    """One hand-written task; ``recovers`` names the ErrorTypes its gold hits on purpose (as a family's draft
    declares them), so the self-check knows every other gold error is a fault."""
    hidden = tuple(t for s in skills for t in SKILLS[s].tools)
    space = action_space(
        query,
        [m["content"] for m in history or []],
        [g["name"] for g in gold if g["name"] in REGISTRY and REGISTRY[g["name"]].is_domain_tool],
        hidden,
    )
    return Task.model_validate(
        {
            "task_id": task_id,
            "category": category,
            "domain": domain_of(l2),
            "l2": l2,
            "query": query,
            "history": history or [],
            "initial_state": {"world": WORLD, "patches": patches or {}},
            "candidate_tools": space.tools,
            "candidate_skills": list(skills),
            "bucket": bucket,
            "gold": gold,
            "check": check,
            "required_memory_ids": memory or [],
            "required_skill_id": skill,
            "user_script": script or [],
            "tags": {
                **(tags or {}),
                "recall_at_15": f"{space.recall:.2f}",
                **({"recovers": ",".join(recovers)} if recovers else {}),
            },
        }
    )


def next_id(table: str) -> str:
    """The id the world will give the next row of ``table`` (gold trajectories refer to it)."""
    from sandbox.db import open_database
    from sandbox.executor import Ctx, Executor
    from sandbox.schema import metadata
    from sandbox.world import world_image

    conn = open_database(world_image(WORLD))
    try:
        ctx = Ctx(conn, Executor(conn, visible=frozenset()), 0, "planner")
        with conn.begin():
            return ctx.new_id(metadata.tables[table])
    finally:
        conn.close()


def permission(app: str, perm: str, state: str) -> dict[str, Any]:
    return {"app_permissions": [{"match": {"app_id": app, "permission": perm}, "set": {"state": state}}]}


def setting(key: str, value: str) -> dict[str, Any]:
    return {"match": {"key": key}, "set": {"value": value}}


def tasks() -> list[Task]:
    lily, mom, dad, alex_m, tom = "contact_001", "contact_002", "contact_003", "contact_005", "contact_007"
    out = [
        # ---- Basic Tool Use: Communication & Social ------------------------------------------
        task(
            "hw_basic_001",
            "basic",
            "3.1",
            "Save my new plumber Mike Ross, his number is +86 139 1234 5678.",
            [
                act("add_contact", name="Mike Ross", phone_number="+86 139 1234 5678", relationship="plumber"),
                done("Saved Mike Ross."),
            ],
            "state_change",
            {"insert": {"contacts": [{"name": "Mike Ross", "phone_number": {"$phone": "+8613912345678"}}]}},
            tags={"pattern": "single_call"},
        ),
        task(
            "hw_basic_002",
            "basic",
            "3.1",
            "Lily Chen has a new phone number, +86 139 0000 1234. Please save it.",
            [
                act("add_contact", name="Lily Chen", phone_number="+86 139 0000 1234"),
                act("update_contact", contact_id=lily, phone_number="+86 139 0000 1234"),
                done("Updated Lily Chen's number."),
            ],
            "state_change",
            {
                "update": {
                    "contacts": [{"match": {"contact_id": lily}, "set": {"phone_number": {"$phone": "+8613900001234"}}}]
                }
            },
            tags={"pattern": "friction", "friction": "duplicate_entity"},
            recovers=("DuplicateEntity",),
        ),
        task(
            "hw_basic_003",
            "basic",
            "3.2",
            "Text my wife that I'll be home by 7pm.",
            [
                act("search_contacts", relationship="spouse"),
                act("send_sms", to=[lily], body="I'll be home by 7pm."),
                act("grant_app_permission", app_id="messages", permission="SMS"),
                act("send_sms", to=[lily], body="I'll be home by 7pm."),
                done("Texted Lily that you'll be home by 7pm."),
            ],
            "state_change",
            {
                "insert": {
                    "messages": [
                        {
                            "channel": "sms",
                            "contact_id": lily,
                            "body": {"$regex": r"\b7(\s*(pm|p\.m\.|o'clock))?\b|19:00"},
                        }
                    ]
                },
                "update": {
                    "app_permissions": [
                        {"match": {"app_id": "messages", "permission": "SMS"}, "set": {"state": "granted"}}
                    ]
                },
            },
            patches={"update": permission("messages", "SMS", "not_requested")},
            tags={"pattern": "friction", "friction": "permission_denied"},
            recovers=("PermissionDenied",),
        ),
        task(
            "hw_basic_004",
            "basic",
            "3.3",
            "What did Tom Baker text me most recently?",
            [
                act("search_contacts", name="Tom Baker"),
                act("search_messages", contact_id=tom, limit=5),
                done("Tom's latest message: 'Running 10 minutes late, sorry!'"),
            ],
            "tool_call",
            {
                "calls": [{"tool": "search_messages", "args": {"contact_id": tom}}],
                "answer": [{"$name": "Running 10 minutes late"}],
            },
            tags={"pattern": "lookup_then_read"},
        ),
        task(
            "hw_basic_005",
            "basic",
            "3.5",
            "Block +1 202 555 0143 and report it as spam.",
            [act("block_number", phone_number="+1 202 555 0143", report_spam=True), done("Blocked and reported.")],
            "state_change",
            {"insert": {"blocked_numbers": [{"number": {"$phone": "+12025550143"}, "reported_spam": 1}]}},
            tags={"pattern": "single_call"},
        ),
        task(
            "hw_basic_006",
            "basic",
            "3.6",
            "Create a group chat called Weekend Hike with Tom Baker and Alex Morgan.",
            [
                act("search_contacts", name="Tom Baker"),
                act("search_contacts", name="Alex Morgan"),
                act("create_group_chat", name="Weekend Hike", member_ids=[tom, alex_m]),
                done("Created Weekend Hike."),
            ],
            "state_change",
            {"insert": {"groups": [{"name": "Weekend Hike", "members_json": {"$json": {"$set": [tom, alex_m]}}}]}},
            tags={"pattern": "lookup_then_act"},
        ),
        task(
            "hw_basic_007",
            "basic",
            "3.4",
            "Call my dad.",
            [act("search_contacts", relationship="father"), act("make_phone_call", to=dad), done("Calling Wang Jun.")],
            "state_change",
            {"insert": {"call_log": [{"contact_id": dad, "type": "outgoing"}]}},
            tags={"pattern": "lookup_then_act"},
        ),
        task(
            "hw_basic_008",
            "basic",
            "3.4",
            "Call Alex.",
            [
                act("search_contacts", name="Alex"),
                act(
                    "ask_user",
                    question="Which Alex do you mean: Alex Turner or Alex Morgan?",
                    kind="choose",
                    options=["Alex Turner", "Alex Morgan"],
                ),
                act("make_phone_call", to=alex_m),
                done("Calling Alex Morgan."),
            ],
            "agent_behavior",
            {
                "follow_up": {"tool": "ask_user", "args": {"kind": "choose"}},
                "state": {"insert": {"call_log": [{"contact_id": alex_m, "type": "outgoing"}]}},
            },
            script=[
                {"answer": "Alex Morgan, my colleague.", "keywords": ["which alex", "alex turner or", "alex morgan or"]}
            ],
            tags={"pattern": "friction", "friction": "ambiguous_entity"},
        ),
        task(
            "hw_basic_009",
            "basic",
            "3.1",
            "Add my new colleague Priya Das to my contacts.",
            [
                act("ask_user", question="What is Priya Das's phone number?", slot="phone_number"),
                act("add_contact", name="Priya Das", phone_number="+86 137 5555 0199", relationship="colleague"),
                done("Added Priya Das."),
            ],
            "agent_behavior",
            {
                "follow_up": {"tool": "ask_user", "args": {"slot": {"$any": ["phone_number", "phone"]}}},
                "state": {
                    "insert": {"contacts": [{"name": "Priya Das", "phone_number": {"$phone": "+8613755550199"}}]}
                },
            },
            script=[
                {"answer": "Her number is +86 137 5555 0199.", "slot": "phone_number", "keywords": ["number", "phone"]}
            ],
            tags={"pattern": "friction", "friction": "missing_argument"},
        ),
        task(
            "hw_basic_010",
            "basic",
            "3.2",
            "Text Mom happy birthday.",
            [
                act("search_contacts", relationship="mother"),
                act("send_sms", to=[mom], body="Happy birthday, Mom!"),
                act("set_airplane_mode", enabled=False),
                act("send_sms", to=[mom], body="Happy birthday, Mom!"),
                done("Wished Mom a happy birthday."),
            ],
            "state_change",
            {
                "insert": {"messages": [{"channel": "sms", "contact_id": mom, "body": {"$contains": "birthday"}}]},
                "update": {"device_settings": [{"match": {"key": "airplane_mode"}, "set": {"value": "0"}}]},
            },
            patches={"update": {"device_settings": [setting("airplane_mode", "1")]}},
            tags={"pattern": "friction", "friction": "network_unavailable"},
            recovers=("NetworkUnavailable",),
        ),
        task(
            "hw_basic_011",
            "basic",
            "3.1",
            "Remove Tom Baker from my contacts.",
            [act("search_contacts", name="Tom Baker"), act("delete_contact", contact_id=tom), done("Removed.")],
            "state_change",
            {"delete": {"contacts": [{"contact_id": tom}]}},
            tags={"pattern": "lookup_then_act"},
        ),
        # ---- Basic Tool Use: Device & System Settings ------------------------------------------
        task(
            "hw_basic_012",
            "basic",
            "11.4",
            "Switch the phone to dark mode.",
            [act("set_dark_mode", enabled=True), done("Dark mode is on.")],
            "state_change",
            {"update": {"device_settings": [{"match": {"key": "dark_mode"}, "set": {"value": "1"}}]}},
            tags={"pattern": "single_call"},
        ),
        task(
            "hw_basic_013",
            "basic",
            "11.3",
            "Put my phone on vibrate.",
            [act("set_ringer_mode", mode="vibrate"), done("Ringer set to vibrate.")],
            "state_change",
            {"update": {"device_settings": [{"match": {"key": "ringer_mode"}, "set": {"value": "vibrate"}}]}},
            tags={"pattern": "single_call"},
        ),
        task(
            "hw_basic_014",
            "basic",
            "11.1",
            "Turn off Wi-Fi.",
            [act("set_wifi", enabled=False), done("Wi-Fi is off.")],
            "state_change",
            {"update": {"device_settings": [{"match": {"key": "wifi"}, "set": {"value": "0"}}]}},
            tags={"pattern": "single_call"},
        ),
        task(
            "hw_basic_015",
            "basic",
            "4.2",
            "Give the chat app access to my location.",
            [
                act("grant_app_permission", app_id="chat", permission="LOCATION"),
                act(
                    "finish",
                    answer="I can't: a standing rule forbids giving chat apps your location.",
                    status="refused",
                ),
            ],
            "state_change",
            {},
            patches={
                "insert": {"app_permissions": [{"app_id": "chat", "permission": "LOCATION", "state": "policy_blocked"}]}
            },
            tags={"pattern": "friction", "friction": "policy_blocked", "expected": "noop"},
            recovers=("PermissionDenied",),
        ),
        task(
            "hw_basic_016",
            "basic",
            "11.5",
            "How much battery do I have left?",
            [act("get_device_status"), done("Your battery is at 78%.")],
            "tool_call",
            {"calls": [{"tool": "get_device_status"}], "answer": [{"$number": 78}]},
            tags={"pattern": "single_call"},
        ),
        # ---- Basic Tool Use: Work, Study & Productivity ------------------------------------------
        task(
            "hw_basic_017",
            "basic",
            "1.2",
            "Put a dentist appointment on my calendar on 2025-06-17 from 15:00 to 16:00.",
            [
                act(
                    "create_calendar_event",
                    title="Dentist appointment",
                    start="2025-06-17T15:00",
                    end="2025-06-17T16:00",
                ),
                done("Added."),
            ],
            "state_change",
            {
                "insert": {
                    "calendar_events": [
                        {"title": {"$contains": "dentist"}, "start": "2025-06-17T15:00", "end": "2025-06-17T16:00"}
                    ]
                }
            },
            tags={"pattern": "single_call"},
        ),
        task(
            "hw_basic_018",
            "basic",
            "1.3",
            "Set an alarm for 6:45 on weekdays.",
            [
                act("set_alarm", time="06:45", days=["mon", "tue", "wed", "thu", "fri"]),
                done("You already have a 06:45 weekday alarm, so I left it as it is."),
            ],
            "state_change",
            {},
            tags={"pattern": "friction", "friction": "duplicate_entity", "expected": "noop"},
            recovers=("DuplicateEntity",),
        ),
        task(
            "hw_basic_019",
            "basic",
            "1.2",
            "Add buy milk to my Groceries list.",
            [act("create_task", title="Buy milk", list_name="Groceries"), done("Added.")],
            "state_change",
            {"insert": {"tasks": [{"title": {"$contains": "milk"}, "list_name": "Groceries"}]}},
            tags={"pattern": "single_call"},
        ),
        task(
            "hw_basic_020",
            "basic",
            "1.4",
            "Make a note titled Packing list with: passport, charger, sunglasses.",
            [act("create_note", title="Packing list", content="passport, charger, sunglasses"), done("Saved.")],
            "state_change",
            {
                "insert": {
                    "notes": [
                        {"title": "Packing list", "content": {"$contains_all": ["passport", "charger", "sunglasses"]}}
                    ]
                }
            },
            tags={"pattern": "single_call"},
        ),
        task(
            "hw_basic_021",
            "basic",
            "1.9",
            "What's on my agenda tomorrow?",
            [
                act("get_daily_agenda", date="2025-06-14"),
                done(
                    "Tomorrow: Project review at 14:00 and the Parent-teacher meeting at 16:00; the slides for the "
                    "project review are due, and you have a reminder to take out the recycling at 19:00."
                ),
            ],
            # the events are what "on my agenda" asks for; tasks and reminders are a bonus
            "tool_call",
            {
                "calls": [{"tool": "get_daily_agenda", "args": {"date": "2025-06-14"}}],
                "answer": [
                    {"$name": "Project review"},
                    {"$time": "14:00"},
                    {"$name": "Parent-teacher meeting"},
                    {"$time": "16:00"},
                ],
            },
            tags={"pattern": "single_call"},
        ),
        # ---- Sub-agent Collaboration --------------------------------------------------------------
        task(
            "hw_subagent_001",
            "subagent",
            "1.1",
            "Book a meeting room for 6 people on 2025-06-16 from 14:00 to 15:00 for the Design sync.",
            [
                act(
                    "call_gui_agent",
                    app_id="roombook",
                    goal="Book a meeting room for the Design sync",
                    inputs={
                        "date": "2025-06-16",
                        "start": "14:00",
                        "end": "15:00",
                        "attendees": 6,
                        "title": "Design sync",
                    },
                    expected_outputs=["room", "booking_code"],
                ),
                done("Booked a room for the Design sync."),
            ],
            "agent_behavior",
            {
                "route": "call_gui_agent",
                "handoff": {
                    "app_id": "roombook",
                    "inputs": {"date": "2025-06-16", "start": "14:00", "end": "15:00", "attendees": 6},
                },
                "state": {
                    "insert": {
                        "room_bookings": [
                            {"date": "2025-06-16", "start": "14:00", "end": "15:00", "booked_by": "gui_agent"}
                        ]
                    },
                    "ignore_tables": [],
                },
            },
            tags={"agent": "gui_agent"},
        ),
        task(
            "hw_subagent_002",
            "subagent",
            "1.1",
            "Book a meeting room on 2025-06-16 from 10:00 to 11:00 for the quarterly planning.",
            [
                act(
                    "call_gui_agent",
                    app_id="roombook",
                    goal="Book a meeting room for quarterly planning",
                    inputs={"date": "2025-06-16", "start": "10:00", "end": "11:00", "title": "Quarterly planning"},
                ),
                act("ask_user", question="How many people will attend the quarterly planning?", slot="attendees"),
                act(
                    "call_gui_agent",
                    app_id="roombook",
                    goal="Book a meeting room for quarterly planning",
                    inputs={
                        "date": "2025-06-16",
                        "start": "10:00",
                        "end": "11:00",
                        "title": "Quarterly planning",
                        "attendees": 10,
                    },
                ),
                done("Booked a room for 10 people."),
            ],
            "agent_behavior",
            {
                "route": "call_gui_agent",
                "handoff": {"app_id": "roombook", "inputs": {"attendees": {"$any": [10, "10"]}}},
                "state": {"insert": {"room_bookings": [{"room": "Oak", "date": "2025-06-16"}]}},
            },
            script=[{"answer": "Ten people.  Make it 10.", "slot": "attendees", "keywords": ["how many", "people"]}],
            tags={"agent": "gui_agent", "friction": "missing_handoff_input"},
            recovers=("SubAgentFailed",),
        ),
        # ---- Memory Usage -------------------------------------------------------------------------
        task(
            "hw_memory_001",
            "memory",
            "3.2",
            "Text my wife our home address.",
            [
                act("search_memory", query="wife"),
                act("search_memory", query="home address"),
                act("send_sms", to=[lily], body="Our address: 18 Garden Road, Beijing"),
                done("Sent."),
            ],
            "state_change",
            {"insert": {"messages": [{"contact_id": lily, "body": {"$contains": "18 Garden Road"}}]}},
            memory=["mem_001", "mem_003"],
            tags={"memory_type": "multi_record", "turns": "single", "primary": "db"},
        ),
        task(
            "hw_memory_002",
            "memory",
            "1.3",
            "Change my weekday wake-up alarm to the time I get up now.",
            [
                act("search_memory", query="wake up time weekdays"),
                act("update_alarm", alarm_id="alarm_001", time="06:15"),
                done("Your weekday alarm is now 06:15."),
            ],
            "state_change",
            {"update": {"alarms": [{"match": {"alarm_id": "alarm_001"}, "set": {"time": "06:15"}}]}},
            memory=["mem_010"],
            tags={"memory_type": "conflict", "conflict_rule": "recency", "turns": "single", "primary": "db"},
        ),
        task(
            "hw_memory_003",
            "memory",
            "1.2",
            "Put my gym session next Tuesday (2025-06-17) on my calendar, one hour at my usual time.",
            [
                act("search_memory", query="gym"),
                act("create_calendar_event", title="Gym", start="2025-06-17T19:00", end="2025-06-17T20:00"),
                done("Added Gym on Tuesday 19:00-20:00."),
            ],
            "state_change",
            {
                "insert": {
                    "calendar_events": [
                        {"title": {"$contains": "gym"}, "start": "2025-06-17T19:00", "end": "2025-06-17T20:00"}
                    ]
                }
            },
            memory=["mem_012"],
            tags={"memory_type": "conflict", "conflict_rule": "recency", "turns": "single", "primary": "db"},
        ),
        task(
            "hw_memory_004",
            "memory",
            "1.2",
            "Please remember that.",
            [
                act(
                    "add_memory",
                    content="Sister Chen Jing's birthday is September 3",
                    category="relationship",
                    entities=["Chen Jing", "sister", "birthday"],
                ),
                done("I'll remember Chen Jing's birthday."),
            ],
            "state_change",
            {
                "insert": {
                    "memory_records": [{"content": {"$contains_all": ["Chen Jing", "September 3"]}, "status": "active"}]
                }
            },
            history=[
                {"role": "user", "content": "My sister Chen Jing's birthday is September 3."},
                {"role": "assistant", "content": "Noted: Chen Jing's birthday is September 3."},
            ],
            tags={"memory_type": "write", "turns": "multi", "primary": "db"},
        ),
        task(
            "hw_memory_005",
            "memory",
            "3.4",
            "Call the person who is my dentist.",
            [
                act("search_memory", query="dentist"),
                act("search_contacts", name="Sarah Lin"),
                act("make_phone_call", to="contact_006"),
                done("Calling Dr. Sarah Lin."),
            ],
            "tool_call",
            {"calls": [{"tool": "make_phone_call", "args": {"to": "contact_006"}}]},
            memory=["mem_006"],
            tags={"memory_type": "single_record", "turns": "single", "primary": "api"},
        ),
        # ---- Skill Usage --------------------------------------------------------------------------
        task(
            "hw_skill_001",
            "skill",
            "11.6",
            "Get my phone ready for bed: do not disturb until 06:15 tomorrow, and put it on vibrate.",
            [
                act("load_skill", skill_id="bedtime_routine"),
                act("set_do_not_disturb", enabled=True, until="2025-06-14T06:15"),
                act("set_ringer_mode", mode="vibrate"),
                done("Do not disturb until 06:15 and vibrate are on."),
            ],
            "state_change",
            {
                "update": {
                    "device_settings": [
                        {"match": {"key": "dnd"}, "set": {"value": "1"}},
                        {"match": {"key": "dnd_until"}, "set": {"value": {"$contains": "2025-06-14T06:15"}}},
                        {"match": {"key": "ringer_mode"}, "set": {"value": "vibrate"}},
                    ]
                }
            },
            skill="bedtime_routine",
            skills=("bedtime_routine", "contact_hygiene"),
        ),
        task(
            "hw_skill_002",
            "skill",
            "3.1",
            "Tom Baker works at Globex now; update his contact. Also block the spam number +1 202 555 0199.",
            [
                act("load_skill", skill_id="contact_hygiene"),
                act("search_contacts", name="Tom Baker"),
                act("update_contact", contact_id=tom, company="Globex"),
                act("block_number", phone_number="+1 202 555 0199", report_spam=True),
                done("Done."),
            ],
            "state_change",
            {
                "update": {"contacts": [{"match": {"contact_id": tom}, "set": {"company": "Globex"}}]},
                "insert": {"blocked_numbers": [{"number": {"$phone": "+12025550199"}}]},
            },
            skill="contact_hygiene",
            skills=("contact_hygiene", "bedtime_routine"),
        ),
        task(
            "hw_skill_003",
            "skill",
            "1.1",
            "Set up a one-hour meeting called Design sync with Alex Morgan on 2025-06-16 at 10:00 and invite him.",
            [
                act("load_skill", skill_id="meeting_organizer"),
                act("search_contacts", name="Alex Morgan"),
                act(
                    "create_calendar_event",
                    title="Design sync",
                    start="2025-06-16T10:00",
                    end="2025-06-16T11:00",
                    calendar="work",
                ),
                act("send_meeting_invite", event_id=next_id("calendar_events"), attendees=[alex_m]),
                done("Invited Alex Morgan."),
            ],
            "state_change",
            {
                "insert": {
                    "calendar_events": [
                        {"title": "Design sync", "start": "2025-06-16T10:00", "end": "2025-06-16T11:00"}
                    ],
                    "event_attendees": [{"contact_id": alex_m}],
                }
            },
            skill="meeting_organizer",
            skills=("meeting_organizer", "contact_hygiene"),
        ),
    ]
    return out


def write(path: Path = TASK_DIR / "handwritten.jsonl") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(dump_task(t) + "\n" for t in tasks()), encoding="utf-8")
    return path


if __name__ == "__main__":
    import sandbox.domains  # noqa: F401

    print(write())
