"""Composite skills: a bundle of catalog tools plus instructions, hidden until ``load_skill``."""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from dataclasses import dataclass

from sandbox.tooling import REGISTRY


@dataclass(frozen=True)
class Step:
    """One step of a skill's instructions: what to do, the skill's tools it uses, and when it applies
    (``None``: on every job). A model follows loaded instructions literally, so a step that changes
    something and holds on every job must be one every job of the skill needs (the build's ``skill_fit``
    gate checks each gold against it); any other such step says when it applies."""

    text: str
    tools: tuple[str, ...]
    when: str | None = None

    def render(self, n: int) -> str:
        if self.when is None:
            return f"{n}. {self.text}."
        return f"{n}. If {self.when}: {self.text[0].lower()}{self.text[1:]}."


@dataclass(frozen=True)
class Skill:
    """A skill. Its ``description`` (what a planner reads before loading it) is the summary followed by
    what each tool does, taken from the tools' own descriptions, so the two cannot drift apart; its
    ``instructions`` (what loading it returns) are its steps, numbered."""

    skill_id: str
    summary: str
    tools: tuple[str, ...]
    steps: tuple[Step, ...]

    @functools.cached_property
    def description(self) -> str:
        """Read once every tool is registered (the first episode or catalog that shows it)."""
        return f"{self.summary}. Its tools: " + " ".join(
            f"{t}: {_first_clause(REGISTRY[t].description)}." for t in self.tools
        )

    @functools.cached_property
    def instructions(self) -> str:
        return "Do only what the user's request needs. " + " ".join(
            step.render(n) for n, step in enumerate(self.steps, start=1)
        )


_CLAUSE_END = re.compile(r"[.;](?:\s|$)")


def _first_clause(description: str) -> str:
    """What a tool does, without its details: the description up to its first full stop or semicolon."""
    return _CLAUSE_END.split(description, maxsplit=1)[0]


def _skill(skill_id: str, summary: str, tools: str, *steps: tuple[str, str] | tuple[str, str, str]) -> Skill:
    """A skill from its tools and its steps: (text, the tools it uses[, when it applies])."""
    return Skill(
        skill_id,
        summary,
        tuple(tools.split()),
        tuple(Step(text, tuple(used.split()), *rest) for text, used, *rest in steps),
    )


SKILLS: dict[str, Skill] = {
    s.skill_id: s
    for s in (
        _skill(
            "trip_booking",
            "Plan and book a trip: flights, hotel, itinerary, destination weather",
            "search_flights book_flight search_hotels book_hotel create_trip_itinerary add_itinerary_item get_weather",
            (
                "Search flights for the dates, respecting remembered airports and time preferences",
                "search_flights",
                "the trip needs a flight",
            ),
            ("Book the chosen offer for the travellers", "book_flight", "the user wants the flight booked"),
            (
                "Search hotels (remembered brand first) and book one",
                "search_hotels book_hotel",
                "the trip needs a hotel",
            ),
            (
                "Put the bookings on a trip itinerary",
                "create_trip_itinerary add_itinerary_item",
                "the user wants an itinerary",
            ),
            ("Check the destination weather", "get_weather", "asked"),
        ),
        _skill(
            "meeting_organizer",
            "Find a common slot, create the meeting and invite people",
            "search_contacts find_free_slots create_calendar_event send_meeting_invite send_email",
            ("Resolve every invitee with search_contacts", "search_contacts"),
            (
                "Use find_free_slots over the requested window and respect the user's meeting preferences",
                "find_free_slots",
                "no time is fixed yet",
            ),
            (
                "Create the event in the work calendar",
                "create_calendar_event",
                "the meeting is not on the calendar yet",
            ),
            ("Invite the attendees to the event", "send_meeting_invite", "there are people to invite"),
            ("Email them an agenda", "send_email", "asked for an agenda"),
        ),
        _skill(
            "study_planner",
            "Turn coursework into tasks, calendar blocks and focus sessions",
            "add_course_assignment create_task create_calendar_event start_focus_session search_notes",
            (
                "Record the assignment with its due date",
                "add_course_assignment create_task",
                "there is a new assignment or task",
            ),
            ("Add study blocks before the due date", "create_calendar_event", "the user wants time blocked"),
            ("Start a focus session", "start_focus_session", "the user wants to work now"),
        ),
        _skill(
            "ride_and_commute",
            "Get from A to B: locate, route, quote, book or cancel a ride, tell someone",
            "get_current_location get_directions estimate_ride_fare book_ride cancel_ride send_sms",
            ("Locate the user or the pickup", "get_current_location get_directions"),
            (
                "Get a fare estimate, then book the ride type asked for",
                "estimate_ride_fare book_ride",
                "the user wants a ride",
            ),
            ("Cancel the ride", "cancel_ride", "the user wants a ride cancelled"),
            ("Text the ETA to whoever should know", "send_sms", "the user asks to tell someone"),
        ),
        _skill(
            "dinner_reservation_planner",
            "Pick a restaurant, reserve or adjust, add to calendar, tell guests",
            "search_restaurants get_restaurant_details make_restaurant_reservation "
            "update_restaurant_reservation create_calendar_event send_chat_message",
            (
                "Search restaurants matching cuisine, area and dietary needs",
                "search_restaurants get_restaurant_details",
            ),
            (
                "Reserve for the party size, or change the existing booking",
                "make_restaurant_reservation update_restaurant_reservation",
                "the user wants a table",
            ),
            ("Add the dinner to the calendar", "create_calendar_event", "asked"),
            ("Message the guests", "send_chat_message", "the user asks to tell them"),
        ),
        _skill(
            "shopping_checkout",
            "Find a product, fill the cart, apply coupons, check out",
            "search_products get_product_details add_to_cart view_cart list_coupons checkout_cart",
            ("Find the product and variant", "search_products get_product_details"),
            ("Add it to the cart", "add_to_cart", "the user wants to buy it"),
            ("Apply the best valid coupon", "list_coupons view_cart"),
            (
                "Check out to the right address with the right payment method",
                "checkout_cart",
                "the user wants the order placed",
            ),
        ),
        _skill(
            "order_after_sales",
            "Track, cancel or return orders and parcels",
            "list_orders track_order cancel_order request_return track_parcel",
            ("Find the order", "list_orders"),
            (
                "Cancel it if not shipped, otherwise request a return",
                "cancel_order request_return",
                "the user wants to cancel or return it",
            ),
            ("Track the order or parcel", "track_order track_parcel", "asked where it is"),
        ),
        _skill(
            "bills_and_budget",
            "Review bills and spending, pay bills, set budgets",
            "list_bills pay_bill list_transactions get_budget_status set_budget",
            ("List due bills", "list_bills", "the job is about bills"),
            ("Pay the ones asked for (confirm large amounts)", "pay_bill", "the user asks to pay"),
            ("Review spending or budgets", "list_transactions get_budget_status", "asked"),
            ("Set a budget", "set_budget", "the user asks for one"),
        ),
        _skill(
            "group_expense_split",
            "Split a shared expense in any currency and notify friends",
            "search_contacts convert_currency split_bill request_money send_chat_message",
            ("Resolve the friends", "search_contacts"),
            ("Convert the amount", "convert_currency", "it is in another currency"),
            ("Split it and request each share", "split_bill request_money", "the user wants the shares requested"),
            ("Tell the group", "send_chat_message", "the user asks to tell them"),
        ),
        _skill(
            "morning_briefing",
            "Weather, agenda, news, yesterday's activity and commute time",
            "get_weather get_daily_agenda get_news_headlines get_activity_summary get_directions",
            (
                "Read each source the user asks about once and summarise; nothing is changed",
                "get_weather get_daily_agenda get_news_headlines get_activity_summary get_directions",
            ),
        ),
        _skill(
            "photo_memories_share",
            "Collect photos into an album and share or post them",
            "search_photos create_photo_album add_photos_to_album share_photos create_social_post",
            ("Find the photos by date, place or person", "search_photos"),
            ("Create the album and add them", "create_photo_album add_photos_to_album", "the user wants an album"),
            ("Share or post them", "share_photos create_social_post", "the user asks to share or post"),
        ),
        _skill(
            "party_music_host",
            "Build a playlist, play it on a speaker, set the lights",
            "search_music create_playlist add_tracks_to_playlist play_music cast_to_device activate_scene",
            ("Find the tracks", "search_music"),
            ("Create the playlist and add them", "create_playlist add_tracks_to_playlist", "the user wants a playlist"),
            ("Play it, on the speaker named", "play_music cast_to_device", "the user wants music now"),
            ("Set the party scene", "activate_scene", "the user asks for the lights"),
        ),
        _skill(
            "contact_hygiene",
            "Clean up the address book: merge, fix fields, delete stale contacts, block spam",
            "search_contacts merge_contacts update_contact delete_contact block_number",
            ("Find the contact(s) with search_contacts", "search_contacts"),
            (
                "Update fields in place instead of adding duplicates; merge true duplicates",
                "update_contact merge_contacts",
                "a contact needs fixing",
            ),
            ("Delete only the contacts the user named", "delete_contact", "the user asks to delete"),
            ("Block the numbers the user reports as spam", "block_number", "the user reports spam"),
        ),
        _skill(
            "device_cleanup_backup",
            "Free storage and back up before cleaning",
            "get_storage_usage clear_app_cache list_files delete_files backup_data",
            ("Check storage", "get_storage_usage list_files"),
            ("Back up the data", "backup_data", "the user asks for a backup, or before deleting anything"),
            ("Clear caches", "clear_app_cache", "the user asks to free space or clear caches"),
            ("Delete only the files the user named", "delete_files", "the user asks to delete files"),
        ),
        _skill(
            "privacy_lockdown",
            "Audit and revoke permissions, location, two-factor, weak passwords",
            "get_app_permissions revoke_app_permission set_location_services enable_two_factor search_passwords",
            ("Audit the named apps' permissions", "get_app_permissions"),
            ("Revoke what is not needed", "revoke_app_permission", "the user wants permissions taken away"),
            ("Turn off location", "set_location_services", "asked"),
            ("Enable two-factor", "enable_two_factor", "asked"),
            ("Report weak passwords", "search_passwords", "asked"),
        ),
        _skill(
            "bedtime_routine",
            "Quiet the phone for the night: do-not-disturb, wake-up alarm, ringer, lights",
            "search_contacts set_do_not_disturb set_alarm update_alarm set_ringer_mode set_brightness set_light_state",
            (
                "Turn on do-not-disturb until the wake-up time",
                "set_do_not_disturb",
                "the user wants quiet or do-not-disturb",
            ),
            (
                "Set one alarm at the wake-up time (set_alarm refuses a twin of an enabled alarm and names it; "
                "change that one with update_alarm only if it needs a new label or days)",
                "set_alarm update_alarm",
                "the user gives a wake-up time",
            ),
            ("Set the ringer to vibrate or silent", "set_ringer_mode", "asked"),
            ("Dim the screen as asked", "set_brightness", "the user asks about the screen"),
            ("Set the lights as asked", "set_light_state", "the user asks about the lights"),
            ("Look up the people the user names (who may still ring)", "search_contacts", "someone is named"),
        ),
        _skill(
            "leave_home_routine",
            "Turn things off, lock up, arm security, eco thermostat, start the vacuum",
            "list_smart_devices set_device_power set_lock_state arm_security_system set_thermostat start_robot_vacuum",
            ("List the devices", "list_smart_devices"),
            ("Switch off the devices left on", "set_device_power", "the user asks to turn things off"),
            ("Lock the doors and arm the system", "set_lock_state arm_security_system", "the user asks to lock up"),
            ("Set the thermostat to eco", "set_thermostat", "asked"),
            ("Start the vacuum", "start_robot_vacuum", "asked"),
        ),
        _skill(
            "doctor_visit_booking",
            "Find a doctor, book, add to calendar, remind, route",
            "search_doctors book_doctor_appointment create_calendar_event create_reminder get_directions",
            ("Find a doctor by specialty and insurance", "search_doctors"),
            ("Book a slot", "book_doctor_appointment", "the user wants a visit booked"),
            ("Add it to the calendar", "create_calendar_event", "asked"),
            ("Set a reminder", "create_reminder", "asked"),
            ("Get the route", "get_directions", "asked"),
        ),
        _skill(
            "workout_coach",
            "Set goals, run a tracked workout with music, review stats",
            "set_fitness_goal start_workout end_workout get_activity_summary play_music",
            ("Set the goal", "set_fitness_goal", "the user gives one"),
            ("Start or end the workout", "start_workout end_workout", "the user is working out"),
            ("Play music", "play_music", "asked"),
            ("Summarise activity", "get_activity_summary", "asked"),
        ),
        _skill(
            "event_outing_planner",
            "Find an event, buy tickets, plan the route, calendar, invite a friend",
            "search_events book_event_tickets get_directions create_calendar_event send_chat_message",
            ("Find the event and session", "search_events"),
            (
                "Book tickets (hand off to the GUI agent when the venue has no API)",
                "book_event_tickets",
                "the user wants tickets",
            ),
            ("Get the route", "get_directions", "asked"),
            ("Add it to the calendar", "create_calendar_event", "asked"),
            ("Invite the friend", "send_chat_message", "the user asks to invite someone"),
        ),
    )
}


def suits(skill_id: str, decisive: str, done: Collection[str]) -> bool:
    """Whether a job is ``skill_id``'s: its decisive tool (the call doing what the user asked) is this skill's
    alone, or the job (the tools it calls, ``done``) does one of the skill's steps for every job. A tool
    several skills share (a chat message, a calendar event) alone is no skill's job: the skill's other
    steps would be about something else."""
    skill = SKILLS[skill_id]
    shared = sum(decisive in s.tools for s in SKILLS.values()) > 1
    return not shared or any(step.when is None and set(step.tools) & set(done) for step in skill.steps)


def check_skills() -> list[str]:
    """Problems with the skill declarations (unknown tools, sizes outside 3-8, steps using tools the skill
    has not); empty when sound."""
    problems = []
    for s in SKILLS.values():
        for step in s.steps:
            if foreign := [t for t in step.tools if t not in s.tools]:
                problems.append(f"skill {s.skill_id}: step {step.text!r} uses {foreign}, not the skill's")
        missing = [t for t in s.tools if t not in REGISTRY]
        if missing:
            problems.append(f"skill {s.skill_id}: unknown tools {missing}")
        if not 3 <= len(s.tools) <= 8:
            problems.append(f"skill {s.skill_id}: {len(s.tools)} tools, expected 3-8")
    return problems
