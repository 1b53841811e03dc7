"""Composite skills: a bundle of catalog tools plus instructions, hidden until ``load_skill``."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from sandbox.tooling import REGISTRY


@dataclass(frozen=True)
class Skill:
    """A skill. Its ``description`` (what a planner reads before loading it) is the summary followed by
    what each tool does, taken from the tools' own descriptions, so the two cannot drift apart."""

    skill_id: str
    summary: str
    tools: tuple[str, ...]
    instructions: str

    @functools.cached_property
    def description(self) -> str:
        """Read once every tool is registered (the first episode or catalog that shows it)."""
        return f"{self.summary}. Its tools: " + " ".join(
            f"{t}: {_first_clause(REGISTRY[t].description)}." for t in self.tools
        )


_CLAUSE_END = re.compile(r"[.;](?:\s|$)")


def _first_clause(description: str) -> str:
    """What a tool does, without its details: the description up to its first full stop or semicolon."""
    return _CLAUSE_END.split(description, maxsplit=1)[0]


def _skill(skill_id: str, summary: str, tools: str, instructions: str) -> Skill:
    return Skill(skill_id, summary, tuple(tools.split()), instructions)


SKILLS: dict[str, Skill] = {
    s.skill_id: s
    for s in (
        _skill(
            "trip_booking",
            "Plan and book a trip: flights, hotel, itinerary, destination weather",
            "search_flights book_flight search_hotels book_hotel create_trip_itinerary add_itinerary_item get_weather",
            "1. Search flights for the dates, respecting remembered airports and time preferences. 2. Book the "
            "chosen offer for the travellers. 3. Search hotels (remembered brand first) and book one. 4. Put "
            "bookings on a trip itinerary. 5. Check the destination weather if asked.",
        ),
        _skill(
            "meeting_organizer",
            "Find a common slot, create the meeting and invite people",
            "search_contacts find_free_slots create_calendar_event send_meeting_invite send_email",
            "1. Resolve every invitee with search_contacts. 2. Use find_free_slots over the requested window "
            "and respect the user's meeting preferences. 3. Create the event in the work calendar. "
            "4. Invite the attendees to the created event; email an agenda only if asked.",
        ),
        _skill(
            "study_planner",
            "Turn coursework into tasks, calendar blocks and focus sessions",
            "add_course_assignment create_task create_calendar_event start_focus_session search_notes",
            "1. Record the assignment with its due date. 2. Add study blocks before the due date. "
            "3. Start a focus session when the user wants to work now.",
        ),
        _skill(
            "ride_and_commute",
            "Get from A to B: locate, route, quote, book or cancel a ride, tell someone",
            "get_current_location get_directions estimate_ride_fare book_ride cancel_ride send_sms",
            "1. Locate the user or the pickup. 2. Get a fare estimate before booking. 3. Book the ride type "
            "asked for. 4. Text the ETA to whoever should know.",
        ),
        _skill(
            "dinner_reservation_planner",
            "Pick a restaurant, reserve or adjust, add to calendar, tell guests",
            "search_restaurants get_restaurant_details make_restaurant_reservation "
            "update_restaurant_reservation create_calendar_event send_chat_message",
            "1. Search restaurants matching cuisine, area and dietary needs. 2. Reserve for the party size. "
            "3. Add the dinner to the calendar and message the guests.",
        ),
        _skill(
            "shopping_checkout",
            "Find a product, fill the cart, apply coupons, check out",
            "search_products get_product_details add_to_cart view_cart list_coupons checkout_cart",
            "1. Find the product and variant. 2. Add it to the cart. 3. Apply the best valid coupon. "
            "4. Check out to the right address with the right payment method.",
        ),
        _skill(
            "order_after_sales",
            "Track, cancel or return orders and parcels",
            "list_orders track_order cancel_order request_return track_parcel",
            "1. Find the order. 2. Cancel if not shipped, otherwise request a return. 3. Track parcels.",
        ),
        _skill(
            "bills_and_budget",
            "Review bills and spending, pay bills, set budgets",
            "list_bills pay_bill list_transactions get_budget_status set_budget",
            "1. List due bills. 2. Pay the ones asked for (confirm large amounts). 3. Review or set budgets.",
        ),
        _skill(
            "group_expense_split",
            "Split a shared expense in any currency and notify friends",
            "search_contacts convert_currency split_bill request_money send_chat_message",
            "1. Resolve the friends. 2. Convert the amount if needed. 3. Split and request each share. "
            "4. Tell the group.",
        ),
        _skill(
            "morning_briefing",
            "Weather, agenda, news, yesterday's activity and commute time",
            "get_weather get_daily_agenda get_news_headlines get_activity_summary get_directions",
            "Read each source once and summarise; nothing is changed.",
        ),
        _skill(
            "photo_memories_share",
            "Collect photos into an album and share or post them",
            "search_photos create_photo_album add_photos_to_album share_photos create_social_post",
            "1. Find the photos by date, place or person. 2. Create the album. 3. Share or post as asked.",
        ),
        _skill(
            "party_music_host",
            "Build a playlist, play it on a speaker, set the lights",
            "search_music create_playlist add_tracks_to_playlist play_music cast_to_device activate_scene",
            "1. Find the tracks. 2. Create the playlist. 3. Play it on the speaker. 4. Set the party scene.",
        ),
        _skill(
            "contact_hygiene",
            "Clean up the address book: merge, fix fields, delete stale contacts, block spam",
            "search_contacts merge_contacts update_contact delete_contact block_number",
            "1. Find the contact(s) with search_contacts. 2. Update fields in place instead of adding "
            "duplicates; merge true duplicates. 3. Delete only contacts the user named. 4. Block numbers "
            "the user reports as spam.",
        ),
        _skill(
            "device_cleanup_backup",
            "Free storage and back up before cleaning",
            "get_storage_usage clear_app_cache list_files delete_files backup_data",
            "1. Check storage. 2. Back up before deleting anything. 3. Clear caches, then delete only what "
            "the user named.",
        ),
        _skill(
            "privacy_lockdown",
            "Audit and revoke permissions, location, two-factor, weak passwords",
            "get_app_permissions revoke_app_permission set_location_services enable_two_factor search_passwords",
            "1. Audit the named apps' permissions and revoke what is not needed. 2. Turn off location if "
            "asked. 3. Enable two-factor and report weak passwords.",
        ),
        _skill(
            "bedtime_routine",
            "Quiet the phone for the night: do-not-disturb, wake-up alarm, ringer, lights",
            "search_contacts set_do_not_disturb set_alarm update_alarm set_ringer_mode set_brightness set_light_state",
            "1. Turn on do-not-disturb until the wake-up time. 2. Make sure exactly one alarm rings at the "
            "wake-up time (update an existing alarm rather than adding a duplicate). 3. Set the ringer to "
            "vibrate or silent, dim the screen and the bedroom lights.",
        ),
        _skill(
            "leave_home_routine",
            "Turn things off, lock up, arm security, eco thermostat, start the vacuum",
            "list_smart_devices set_device_power set_lock_state arm_security_system set_thermostat start_robot_vacuum",
            "1. Switch off the devices left on. 2. Lock the doors and arm the system. 3. Set the thermostat "
            "to eco and start the vacuum.",
        ),
        _skill(
            "doctor_visit_booking",
            "Find a doctor, book, add to calendar, remind, route",
            "search_doctors book_doctor_appointment create_calendar_event create_reminder get_directions",
            "1. Find a doctor by specialty and insurance. 2. Book a slot. 3. Add it to the calendar with a "
            "reminder and the route.",
        ),
        _skill(
            "workout_coach",
            "Set goals, run a tracked workout with music, review stats",
            "set_fitness_goal start_workout end_workout get_activity_summary play_music",
            "1. Set or check the goal. 2. Start the workout (with music if asked). 3. Summarise activity.",
        ),
        _skill(
            "event_outing_planner",
            "Find an event, buy tickets, plan the route, calendar, invite a friend",
            "search_events book_event_tickets get_directions create_calendar_event send_chat_message",
            "1. Find the event and session. 2. Book tickets (hand off to the GUI agent when the venue has no "
            "API). 3. Add it to the calendar and invite the friend.",
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
