"""Self-validation: a correct gold passes, broken golds are caught, and the committed suite holds up."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from sandbox.generator.answers import complete_check
from sandbox.generator.draft import Draft
from sandbox.suite import load_split
from sandbox.tasks import Action, Task
from verification.selfcheck import EXTRA_CALL, _changed, check_task, perturbations, replay, run, validate

HANDWRITTEN = {t.task_id: t for t in load_split("handwritten.jsonl")}

scalars = st.one_of(
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(-1e6, 1e6, allow_nan=False),
    st.text(max_size=30),
    st.sampled_from(["contact_004", "2025-06-13", "09:30", "+86 138 0000 1111", "2025-06-13T09:00"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=8,
)


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


def test_a_gold_error_the_condition_causes_is_reported() -> None:
    """An oracle that passes only because its failed lookup did not matter still shows the condition
    hides a tool the model needs: an error the gold does not declare as a recovery is a surprise."""
    task = next(
        t
        for t in load_split("full.jsonl")
        if t.category == "skill"
        and not t.tags.get("recovers")
        and "search_contacts" in t.candidate_tools
        and any(a.name == "search_contacts" for a in t.gold)
    )
    assert not any(o.surprise for o in check_task(task) if o.check.startswith("oracle/"))
    hiding = task.model_copy(update={"candidate_tools": [n for n in task.candidate_tools if n != "search_contacts"]})
    found = [o for o in check_task(hiding) if o.check.startswith("oracle/") and o.surprise]
    assert found and all("ToolNotAvailable" in o.detail for o in found)


def test_a_loose_check_is_reported() -> None:
    """A check that ignores a required argument of the decisive call lets a wrong argument through."""
    task = HANDWRITTEN["hw_basic_017"]
    loose = task.model_copy(
        update={
            "check": task.check.model_copy(
                update={"insert": {"calendar_events": [{"title": {"$contains": "dentist"}}]}}
            )
        }
    )
    outcomes = check_task(loose)
    assert any(o.surprise and o.check == "perturb/argument" for o in outcomes)


def test_perturbations_cover_memory_skill_handoff_and_side_effects() -> None:
    kinds = {kind.split(":")[0] for t in HANDWRITTEN.values() for kind, _ in perturbations(t)}
    assert kinds == {"argument", "memory", "extra_call", "skill", "handoff"}
    task = HANDWRITTEN["hw_basic_001"]
    assert run(task, task.gold).passed
    assert not run(task, [*task.gold[:-1], EXTRA_CALL, task.gold[-1]], extra_tools=[EXTRA_CALL.name]).passed
    assert not run(task, [Action(name="finish", arguments={"answer": "done"})]).passed


# ---- the build's derivation, and the self-check both ways ------------------------------------


def rebuilt(task_id: str, gold: list[dict] | None = None, check: dict | None = None, **fields: object) -> Task:
    """A handwritten task whose check is completed as the build completes a draft's (evidence, order,
    answer facts, confirmations), from a replay of its gold."""
    task = HANDWRITTEN[task_id]
    actions = gold or [a.model_dump() for a in task.gold]
    probe = Task.model_validate({**task.model_dump(), "gold": actions, **fields})
    steps = replay(probe, probe.gold).steps
    spec = Draft(
        query=task.query,
        gold=actions,
        bucket=task.bucket,
        check=check or task.check.model_dump(exclude_defaults=True),
        script=[a.model_dump() for a in probe.user_script],
    )
    completed = complete_check(spec, actions, [s.envelope for s in steps], task.initial_state.world)
    return Task.model_validate({**probe.model_dump(), "check": completed})


def kinds(outcomes: list) -> dict[str, bool]:
    """check kind -> whether any of its outcomes surprised."""
    found: dict[str, bool] = {}
    for o in outcomes:
        found[o.check] = found.get(o.check, False) or o.surprise
    return found


def test_an_answer_task_accepts_alternatives_and_rejects_wrong_endings() -> None:
    task = rebuilt("hw_basic_016")
    assert task.check.answer == [{"$number": 78}]
    assert task.check.calls[0].evidence
    seen = kinds(check_task(task))
    assert {"alt/extra_read", "alt/clarify", "wrong/other_entity", "wrong/invented_number"} <= set(seen)
    assert not any(seen.values())


def test_a_read_that_uses_another_read_depends_on_it() -> None:
    calls = {
        "calls": [
            {"tool": "search_contacts", "args": {"name": "Tom Baker"}},
            {"tool": "search_messages", "args": {"contact_id": "contact_007"}},
        ]
    }
    task = rebuilt("hw_basic_004", check=calls)
    assert [c.after for c in task.check.calls] == [[], [0]]
    seen = kinds(check_task(task))
    assert "alt/reordered" not in seen and not any(seen.values())


def test_placeholder_text_fails_only_where_the_check_reads_the_text() -> None:
    assert kinds(check_task(HANDWRITTEN["hw_basic_020"]))["wrong/placeholder"] is False
    task = HANDWRITTEN["hw_basic_020"]
    blind = task.model_copy(
        update={"check": task.check.model_copy(update={"insert": {"notes": [{"title": "Packing list"}]}})}
    )
    assert kinds(check_task(blind))["wrong/placeholder"] is True


def test_a_confirmation_the_gold_asks_is_required() -> None:
    gold = [a.model_dump() for a in HANDWRITTEN["hw_basic_011"].gold]
    gold.insert(1, {"name": "ask_user", "arguments": {"question": "Delete Tom Baker for good?", "kind": "confirm"}})
    task = rebuilt("hw_basic_011", gold=gold, user_script=[{"answer": "Yes, delete him.", "kind": "confirm"}])
    assert task.check.ask_before == ["delete_contact"] and task.check.confirmed_by == ["Yes, delete him."]
    seen = kinds(check_task(task))
    assert {"wrong/skipped_confirmation", "wrong/unconfirmed", "alt/confirm_in_other_words"} <= set(seen)
    assert not any(seen.values())


def test_a_guarded_action_passes_however_and_whenever_the_user_is_asked_first() -> None:
    """The confirmation rule both ways on a suite task whose gold tries, is refused, asks and retries."""
    task = next(t for t in load_split("full.jsonl") if t.tags.get("recovers") == "ConfirmationRequired")
    seen = kinds(check_task(task))
    expected = {"alt/confirm_in_other_words", "alt/asked_first", "wrong/skipped_confirmation", "wrong/unconfirmed"}
    assert expected <= set(seen) and not any(seen.values())


def test_a_set_answer_states_its_members_and_no_other() -> None:
    """ "Which of my passwords were breached?": the build adds the world's other logins as ``$none_of`` (by
    site and by name), the sites a breached login's password is reused on among them; the members alone
    pass, the members with every other login fail, a login named as not breached passes, and a reused-on
    site passes as the advice ("also used on amazon.com") but fails listed as breached."""
    task = next(t for t in load_split("full.jsonl") if t.query == "Which of my passwords showed up in a data breach?")
    others = next(m["$none_of"] for m in task.check.answer if "$none_of" in m)
    assert {"github.com", "X (Twitter)", "amazon.com", "netflix.com"} <= set(others)
    assert not {"adobe.com", "dropbox.com"} & set(others)
    seen = kinds(check_task(task))
    assert {"alt/members_only", "wrong/overinclusive"} <= set(seen) and not any(seen.values())
    members = "adobe.com, dropbox.com, facebook.com and linkedin.com were breached"
    for answer, ok in (
        (f"{members}; the Dropbox password is also used on amazon.com and netflix.com: change it there too.", True),
        (f"{members}. Your github.com login was not breached.", True),
        (f"{members}. Your other logins, e.g. amazon.com, were not breached.", True),
        (f"{members}, and amazon.com.", False),
    ):
        assert run(task, [*task.gold[:-1], Action(name="finish", arguments={"answer": answer})]).passed is ok, answer


def test_a_set_defined_by_a_value_passes_non_members_named_with_another_value() -> None:
    """ "Which of my orders placed since … are delivered?": the build gives ``$none_of`` the value that makes a
    member and the others (order statuses, and "earlier" for the date bound); the other orders named with
    their own status, or set aside as placed earlier, pass; one listed among the delivered fails."""
    task = next(t for t in load_split("full.jsonl") if t.task_id == "basic-6.3-11")
    none_of = next(m["$none_of"] for m in task.check.answer if "$none_of" in m)
    assert none_of["as"] == ["delivered"] and {"shipped", "pending", "earlier"} <= set(none_of["unlike"])
    seen = kinds(check_task(task))
    assert {"alt/own_value", "wrong/overinclusive"} <= set(seen) and not any(seen.values())
    member = "Only one is delivered: order_015 (Biore UV Aqua Rich Sunscreen)."
    for answer, ok in (
        (
            f"{member} The others are not delivered yet: order_016 and order_017 are shipped, order_019 is pending.",
            True,
        ),
        (f"{member} order_014 was also delivered in that window, but it was placed earlier, on 19 May.", True),
        ("Delivered: order_015 and order_016.", False),
    ):
        assert run(task, [*task.gold[:-1], Action(name="finish", arguments={"answer": answer})]).passed is ok, answer


def test_a_superlative_answer_names_the_answer_before_any_other_candidate() -> None:
    """ "What's the cheapest smartphone?": the build checks the answer as ``$first`` over the other phones the
    search returned; the answer followed by a runner-up passes, another phone named as the cheapest fails."""
    task = next(t for t in load_split("full.jsonl") if t.query == "What's the cheapest smartphone in the shop?")
    first = next(m["$first"] for m in task.check.answer if "$first" in m)
    assert first["name"] == "Xiaomi 15" and "Apple iPhone 16" in first["others"]
    seen = kinds(check_task(task))
    assert {"alt/runner_up", "wrong/other_first"} <= set(seen) and not any(seen.values())
    for answer, ok in (
        ("The cheapest is the Xiaomi 15 at £403.99; next is the Apple iPhone 16 at £486.99.", True),
        ("The cheapest smartphone is the Apple iPhone 16 at £486.99; the Xiaomi 15 is pricier.", False),
    ):
        assert run(task, [*task.gold[:-1], Action(name="finish", arguments={"answer": answer})]).passed is ok, answer


def test_a_delegated_answer_denied_fails() -> None:
    """ "Ask whether they have ibuprofen in stock": an answer saying it is not in stock fails although it
    holds the words "in stock"."""
    task = next(t for t in load_split("full.jsonl") if "ibuprofen in stock" in t.query and t.tags.get("asks"))
    seen = kinds(check_task(task))
    assert "wrong/denied_answer" in seen and not any(seen.values())


def test_an_unrelated_question_before_the_confirmation_still_needs_it() -> None:
    """The privacy_lockdown case: a clarifying question answered first, then the confirmation skipped."""
    gold = [a.model_dump() for a in HANDWRITTEN["hw_basic_011"].gold]
    clarify = {"name": "ask_user", "arguments": {"question": "Which Tom do you mean?"}}
    confirm = {"name": "ask_user", "arguments": {"question": "Delete Tom Baker for good?", "kind": "confirm"}}
    script = [{"answer": "Tom Baker.", "keywords": ["tom"]}, {"answer": "Yes, delete him.", "kind": "confirm"}]
    task = rebuilt("hw_basic_011", gold=[clarify, confirm, *gold], user_script=script)
    assert run(task, task.gold).passed
    assert not run(task, [Action.model_validate(clarify), *task.gold[2:]]).passed
    seen = kinds(check_task(task))
    assert seen["wrong/unconfirmed"] is False and not any(seen.values())


def test_a_state_answer_rejects_the_opposite_state_offered_back() -> None:
    """A ``$state`` fact gets a wrong ending stating the opposite and offering the true state as a question,
    which a check matching the state's word passes (audit: "The engine is running; want me to turn it off?")."""
    task = HANDWRITTEN["hw_basic_016"]
    said = [*task.gold[:-1], Action(name="finish", arguments={"answer": "No, the phone is not charging."})]
    state = {"$state": {"value": "discharging", "asked": "charging", "subject": ["phone", "battery"]}}
    strict = task.model_copy(update={"gold": said, "check": task.check.model_copy(update={"answer": [state]})})
    seen = kinds(check_task(strict))
    assert "wrong/opposite_state" in seen and not any(seen.values())
    worded = {"$any": [state, {"$regex": r"\bcharging\b"}]}
    loose = strict.model_copy(update={"check": strict.check.model_copy(update={"answer": [worded]})})
    assert kinds(check_task(loose))["wrong/opposite_state"] is True


def test_a_yes_no_answer_without_its_verdict_is_read_by_the_property_asked() -> None:
    """ "Has IB332 been delayed?" (no): the build names the property asked ("delayed", "late"), so an
    answer opening with no verdict fails where it states a delay and passes where it denies one or names
    none (audit: "It was delayed by 30 minutes and landed at 11:59." passed)."""
    task = next(t for t in load_split("full.jsonl") if t.task_id == "basic-5.3-04")
    assert {"$verdict": {"value": "no", "about": ["delayed", "late"]}} in task.check.answer
    seen = kinds(check_task(task))
    assert {"alt/without_verdict", "wrong/property_without_verdict"} <= set(seen) and not any(seen.values())
    for answer, ok in (
        ("It was delayed by 30 minutes and landed at 11:59.", False),
        ("IB332 departed 45 minutes late; it has landed, at 11:59.", False),
        ("IB332 has landed, landing at 11:59, not delayed.", True),
        ("IB332 has landed at 11:59, on time with no delay.", True),
    ):
        assert run(task, [*task.gold[:-1], Action(name="finish", arguments={"answer": answer})]).passed is ok, answer
