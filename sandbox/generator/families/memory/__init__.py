"""Memory Usage families: the gold recalls facts with search_memory and uses them in a domain call.

Every draft inserts its own records (ids mem_901...) through patches, with distractors, and checks that
the gold's search really returns the required ids (the BM25 of ``sandbox.memory`` on the patched world).
Tags: memory_type, turn, primary, write, conflict_rule (see PLAN below for the counts).

The families are split by memory type: ``single_record``, ``conflict`` and ``composition``, on what they
share in ``helpers``; every one is named ``memory.<function>`` (``core.family_group``)."""

# importing the modules registers their families
from sandbox.generator.families.memory import composition, conflict, single_record  # noqa: F401

CATEGORY = "memory"

# (family, count); tags per family are in its @family line. Sub-counts: single_record 80 single (40 db / 40 api)
# + 72 multi (36 / 36); conflict 40 single (20 / 20) + 60 multi (30 / 30); composition 56 single (28 / 28) + 68
# multi (34 / 34). Writes (multi db only): add 40, replace 40, delete 20. Conflict rules: recency 45,
# specificity 20, source_authority 10, ask_user 25.
PLAN = [
    (f"memory.{name}", n)
    for name, n in (
        # single_record, single-turn
        ("weather_where_relative_lives", 14),
        ("world_time_where_relative_lives", 13),
        ("restaurants_favourite_cuisine", 13),
        ("alarm_for_routine", 14),
        ("reservation_group_size", 13),
        ("thermostat_preference", 13),
        # single_record, multi-turn
        ("flights_from_usual_airport", 12),
        ("directions_to_remembered_place", 12),
        ("hotels_preferred_brand", 12),
        ("add_fact_then_text_helper", 10),
        ("add_class_then_calendar", 10),
        ("replace_lesson_time_then_calendar", 10),
        ("forget_routine_and_event", 6),
        # conflict, single-turn
        ("recency_weather_relative_moved", 10),
        ("specificity_cuisine_for_occasion", 6),
        ("source_weather_on_appointment_day", 4),
        ("ask_which_partner_to_text", 10),
        ("recency_alarm_for_practice", 5),
        ("specificity_party_size_friday", 3),
        ("source_reminder_before_appointment", 2),
        # conflict, multi-turn
        ("recency_weather_relative_moved_multi", 10),
        ("recency_world_time_relative", 10),
        ("specificity_hotel_brand_with_kids", 8),
        ("source_weather_on_appointment_day_multi", 2),
        ("ask_ride_type_then_forget_wrong", 10),
        ("ask_group_size_then_correct", 5),
        ("recency_shift_then_alarm", 10),
        ("specificity_airport_ride_add", 3),
        ("source_reminder_before_appointment_add", 2),
        # composition, single-turn
        ("flights_home_to_relative", 14),
        ("restaurants_cuisine_and_diet", 14),
        ("reservation_usual_place_household", 14),
        ("text_code_to_helper", 14),
        # composition, multi-turn
        ("ride_fare_between_remembered_places", 17),
        ("convert_to_relative_currency", 17),
        ("dinner_guest_add_then_book", 15),
        ("relative_moved_replace_then_ride", 15),
        ("forget_carpool_then_text", 4),
    )
]
