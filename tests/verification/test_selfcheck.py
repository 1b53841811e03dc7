"""Self-validation: a correct gold passes, broken golds are caught, and the committed suite holds up."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from sandbox.suite import load_split
from sandbox.tasks import Action
from verification.selfcheck import EXTRA_CALL, _changed, check_task, perturbations, run, validate

HANDWRITTEN = {t.task_id: t for t in load_split("handwritten.jsonl")}

scalars = st.one_of(st.booleans(), st.integers(-10**6, 10**6), st.floats(-1e6, 1e6, allow_nan=False),
                    st.text(max_size=30), st.sampled_from(["contact_004", "2025-06-13", "09:30", "+86 138 0000 1111",
                                                           "2025-06-13T09:00"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=5), inner, max_size=3)),
                      max_leaves=8)


@given(values)
def test_a_changed_value_differs_and_keeps_its_kind(value) -> None:
    changed = _changed(value)
    assert changed != value
    assert type(changed) is type(value) or (isinstance(value, str) and isinstance(changed, str))


def test_changed_dates_and_times_stay_valid() -> None:
    assert _changed("2025-06-13") == "2025-06-14" and _changed("23:30") == "00:30"
    dt.datetime.strptime(_changed("2025-06-13T23:00"), "%Y-%m-%dT%H:%M")
    assert _changed("contact_004") == "contact_904"


def test_every_handwritten_task_passes_its_self_check() -> None:
    surprises = validate(HANDWRITTEN.values()).surprises
    assert surprises == []


def test_a_loose_check_is_reported() -> None:
    """A check that ignores a required argument of the decisive call lets a wrong argument through."""
    task = HANDWRITTEN["hw_basic_017"]
    loose = task.model_copy(update={"check": task.check.model_copy(update={"insert": {"calendar_events": [
        {"title": {"$contains": "dentist"}}]}})})
    outcomes = check_task(loose)
    assert any(o.surprise and o.check == "perturb/argument" for o in outcomes)


def test_perturbations_cover_memory_skill_handoff_and_side_effects() -> None:
    kinds = {kind.split(":")[0] for t in HANDWRITTEN.values() for kind, _ in perturbations(t)}
    assert kinds == {"argument", "memory", "extra_call", "skill", "handoff"}
    task = HANDWRITTEN["hw_basic_001"]
    assert run(task, task.gold).passed
    assert not run(task, [*task.gold[:-1], EXTRA_CALL, task.gold[-1]], extra_tools=[EXTRA_CALL.name]).passed
    assert not run(task, [Action(name="finish", arguments={"answer": "done"})]).passed

