from __future__ import annotations

from typing import Any

import pytest

from verification.matchers import explain, fits, matches, validate_matcher


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ("Harbor Coffee", "  harbor   COFFEE "),
        ("a b", "A\tB\n"),
        ({"$eq": "Hello"}, "Hello"),
        ({"$eq": [1, {"a": None}]}, [1, {"a": None}]),
        (3, 3.0),
        (2.5, 2.5),
        (True, True),
        (None, None),
        ({"$phone": "+86 139 0000 1234"}, "8613900001234"),
        ({"$phone": "+86-139-0000-1234"}, "+86 139 0000 1234"),
        ({"$contains": "bay rd"}, "Harbor Coffee, 12 Bay  Rd"),
        ({"$contains_all": ["rent", {"$any": ["two days", "2 days"]}]}, "Rent is due in 2 days"),
        ({"$any": ["x", {"$range": [1, 3]}]}, 2),
        ({"$regex": r"^event_\d+$"}, "EVENT_007"),
        ({"$range": [1, 3]}, 3),
        ({"$range": [1, 3]}, 1.0),
        ({"$approx": [10, 0.5]}, 10.4),
        ({"$dt_between": ["2025-06-13T08:00", "2025-06-13T10:00"]}, "2025-06-13T10:00"),
        ({"$dt_between": ["2025-06-13T08:00", "2025-06-13T10:00"]}, "2025-06-13T09:30:15"),
        ({"a": {"$absent": True}}, {}),
        ({"a": {"$absent": True}}, {"a": None}),
        ({"a": {"$absent": False}}, {"a": 0}),
        ({"$set": ["b", "a"]}, ["A", "b"]),
        ({"$set": [{"$any": ["a", "b"]}, "a"]}, ["a", "b"]),
        ({"$json": {"app_id": "roombook"}}, '{"app_id": "roombook", "x": 1}'),
        ({"a": 1, "b": {"c": "x"}}, {"a": 1, "b": {"c": "X", "d": 2}, "e": 3}),
        ([1, "a"], [1, "A"]),
        ({}, {"anything": 1}),
    ],
)
def test_matches(expected: Any, actual: Any) -> None:
    assert matches(expected, actual)
    assert explain(expected, actual) is None


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ("Harbor Coffee", "Harbor Cafe"),
        ("3", 3),
        ({"$eq": "Hello"}, "hello"),
        ({"$eq": 1}, True),
        ({"$eq": {"a": 1}}, {"a": 1, "b": 2}),
        (1, True),
        (True, 1),
        (False, None),
        (None, "None"),
        (None, False),
        (3, "3"),
        ({"$phone": "+86 139 0000 1234"}, "13900001234"),
        ({"$phone": "+86 139 0000 1234"}, 8613900001234),
        ({"$contains": "bay rd"}, "Harbor Coffee"),
        ({"$contains": "1"}, 1),
        ({"$contains_all": ["rent", {"$any": ["two days", "2 days"]}]}, "Rent is due in 3 days"),
        ({"$any": ["x", "y"]}, "z"),
        ({"$regex": r"^event_\d+$"}, "event_x"),
        ({"$range": [1, 3]}, 3.5),
        ({"$range": [1, 3]}, True),
        ({"$approx": [10, 0.5]}, 10.6),
        ({"$dt_between": ["2025-06-13T08:00", "2025-06-13T10:00"]}, "2025-06-13T10:00:01"),
        ({"$dt_between": ["2025-06-13T08:00", "2025-06-13T10:00"]}, "2025-06-13"),
        ({"a": {"$absent": True}}, {"a": ""}),
        ({"a": {"$absent": False}}, {}),
        ({"$set": ["a", "b"]}, ["a", "a"]),
        ({"$set": ["a"]}, ["a", "b"]),
        ({"$json": {"app_id": "roombook"}}, '{"app_id": "maps"}'),
        ({"$json": {"app_id": "roombook"}}, "not json"),
        ({"$json": {"app_id": "roombook"}}, {"app_id": "roombook"}),
        ({"a": 1}, {"b": 1}),
        ({"a": 1}, "a"),
        ([1, 2], [1]),
        ([1, 2], [2, 1]),
    ],
)
def test_mismatches(expected: Any, actual: Any) -> None:
    assert not matches(expected, actual)
    reason = explain(expected, actual)
    assert isinstance(reason, str) and reason


def test_explanation_names_the_path() -> None:
    reason = explain({"inputs": {"date": "2025-06-16"}}, {"inputs": {"date": "2025-06-15"}})
    assert reason == "inputs.date: expected '2025-06-16', got '2025-06-15'"
    assert explain({"to": ["a", "b"]}, {"to": ["a", "c"]}).startswith("to[1]:")  # type: ignore[union-attr]
    assert "missing" in explain({"a": 1}, {})  # type: ignore[operator]


@pytest.mark.parametrize(
    "matcher",
    [
        {"$unknown": 1},
        {"a": {"$nope": 1}},
        {"$any": ["a", {"$typo": 1}]},  # found even when an earlier alternative would match
        {"$eq": 1, "other": 2},
        {"$range": [3, 1]},
        {"$range": ["a", 1]},
        {"$approx": [1, -1]},
        {"$dt_between": ["2025-06-13", "2025-06-14"]},
        {"$dt_between": ["2025-06-14T00:00", "2025-06-13T00:00"]},
        {"$regex": "("},
        {"$contains_all": ["a", {"$all": ["b"]}]},
        {"$contains_all": []},
        {"$any": []},
        {"$absent": "yes"},
        {"$phone": "no digits"},
        {"$set": "ab"},
        {"$json": {"$bad": 1}},
    ],
)
def test_malformed_matchers_raise(matcher: Any) -> None:
    with pytest.raises(ValueError):
        validate_matcher(matcher)
    with pytest.raises(ValueError):
        matches(matcher, "a")


def test_fits_agrees_with_matches_on_validated_matchers() -> None:
    cases = [
        ({"name": "mo", "n": {"$range": [1, 3]}}, {"name": " MO ", "n": 2, "x": 0}),
        ({"name": "mo"}, {"name": "max"}),
        ([1, {"$any": ["a", "b"]}], [1.0, "B"]),
        (None, 0),
    ]
    for expected, actual in cases:
        validate_matcher(expected)
        assert fits(expected, actual) == matches(expected, actual)
    assert [fits(e, a) for e, a in cases] == [True, False, True, False]
