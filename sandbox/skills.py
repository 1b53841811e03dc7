"""Composite skills: a bundle of catalog tools plus instructions, hidden until ``load_skill``."""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.tooling import REGISTRY


@dataclass(frozen=True)
class Skill:
    skill_id: str
    description: str
    tools: tuple[str, ...]
    instructions: str


SKILLS: dict[str, Skill] = {
    s.skill_id: s
    for s in (
        Skill(
            "meeting_organizer",
            "Find a common slot, create the meeting and invite people",
            ("search_contacts", "find_free_slots", "create_calendar_event", "send_meeting_invite"),
            "1. Resolve every invitee with search_contacts. 2. Use find_free_slots over the requested window "
            "and respect the user's meeting preferences. 3. Create the event in the work calendar. "
            "4. Invite the attendees to the created event.",
        ),
        Skill(
            "bedtime_routine",
            "Quiet the phone for the night: do-not-disturb, wake-up alarm, ringer and brightness",
            ("set_do_not_disturb", "set_alarm", "update_alarm", "set_ringer_mode", "set_brightness"),
            "1. Turn on do-not-disturb until the wake-up time. 2. Make sure exactly one alarm rings at the "
            "wake-up time (update an existing alarm rather than adding a duplicate). 3. Set the ringer to "
            "vibrate or silent and dim the screen.",
        ),
        Skill(
            "contact_hygiene",
            "Clean up the address book: fix fields, delete stale contacts, block spam numbers",
            ("search_contacts", "update_contact", "delete_contact", "block_number"),
            "1. Find the contact(s) with search_contacts. 2. Update fields in place instead of adding "
            "duplicates. 3. Delete only contacts the user named. 4. Block numbers the user reports as spam.",
        ),
    )
}


def check_skills() -> list[str]:
    """Problems with the skill declarations (unknown tools, sizes outside 3-8); empty when sound."""
    problems = []
    for s in SKILLS.values():
        missing = [t for t in s.tools if t not in REGISTRY]
        if missing:
            problems.append(f"skill {s.skill_id}: unknown tools {missing}")
        if not 3 <= len(s.tools) <= 8:
            problems.append(f"skill {s.skill_id}: {len(s.tools)} tools, expected 3-8")
    return problems
