"""Free choices: what the model read determines a value or leaves it to the planner, and the relaxation."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox.generator import choices

OK = {"Status": "success", "Payload": {}}


@pytest.mark.parametrize(
    ("value", "seen"),
    [
        ("2025-06-20T20:30", "chess club moved to Fridays at 20:30"),
        ("06:30", "my class is at 07:00; wake me 30 minutes before"),
        ("2025-06-20T22:00", "at 20:30, 90 minutes"),
        ("2025-06-20T10:00", 'starts at 09:00, "duration_min": 60'),
        ("Team offsite", "add the team offsite to my calendar"),
        ("USD", "convert it to my cousin's currency"),  # a code: named, never free
        (6, "book for everyone in my dinner group"),  # a number: counted, never free
    ],
)
def test_stated_derived_or_read_values_are_not_free(value: Any, seen: str) -> None:
    assert not choices.is_free(value, choices._seen_text([seen]))


@pytest.mark.parametrize(
    ("value", "seen"),
    [("2025-06-20T12:00", "add a note for my trip, check-in at 15:00"), ("Trip notes Madrid", "a note on the trip")],
)
def test_a_time_or_a_text_nobody_gave_is_free(value: Any, seen: str) -> None:
    assert choices.is_free(value, seen)


def test_a_pinned_free_time_relaxes_to_its_day_and_a_free_title_to_the_words_the_user_gave() -> None:
    gold = [
        {"name": "create_calendar_event", "arguments": {"title": "Madrid trip note", "start": "2025-06-20T12:00"}},
        {"name": "finish", "arguments": {"answer": "Done."}},
    ]
    found = choices.free_choices(["note the Madrid trip on 2025-06-20"], gold, [OK, OK])
    assert {(c.argument, c.value) for c in found} >= {("start", "2025-06-20T12:00"), ("title", "Madrid trip note")}
    check = {"insert": {"calendar_events": [{"title": "Madrid trip note", "start": "2025-06-20T12:00"}]}}
    assert all(choices.pinned(check, c.value) for c in found)
    relaxed = choices.relax(check, found)
    row = relaxed["insert"]["calendar_events"][0]
    assert row["start"] == {"$dt_between": ["2025-06-20T00:00", "2025-06-20T23:59"]}
    assert row["title"] == {"$contains_all": ["Madrid", "trip", "note"]}
    assert not any(choices.pinned(relaxed, c.value) for c in found)


def test_rows_to_match_and_values_inside_json_are_read_as_the_check_states_them() -> None:
    check = {
        "update": {"home_devices": [{"match": {"note": "a b"}, "set": {"state_json": {"$json": {"label": "a b"}}}}]}
    }
    relaxed = choices.relax(check, [choices.Choice(1, "t", "label", "a b", ())])
    assert relaxed["update"]["home_devices"][0] == {
        "match": {"note": "a b"},
        "set": {"state_json": {"$json": {"label": {"$absent": False}}}},
    }
