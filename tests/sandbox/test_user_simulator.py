"""The simulated user answers the question asked: slot, confirmation, options, keywords, the one answer left."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Connection

from sandbox.episode import Episode
from sandbox.executor import Executor
from sandbox.tasks import Task, load_tasks
from sandbox.user import NO_ANSWER, NOTHING_TO_ADD, UNREACHABLE_TAG, UserAnswer, choose, question_form

CONFIRM = UserAnswer("Yes, cancel it anyway.", keywords=("fee",))
PHONE = UserAnswer("Her number is +86 137 5555 0199.", slot="phone_number", keywords=("number",))
ALEX = UserAnswer("Alex Morgan, my colleague.", keywords=("which alex",))

CONFIRMATIONS = [
    "Do you want me to proceed?",
    "Should I go ahead?",
    "Shall I book it?",
    "Is that OK?",
    "Can I delete them?",
    "OK to proceed?",
    "Would you like me to cancel it?",
    "Are you sure you want to delete these?",
    "Please confirm you want to cancel the ride.",
    "Let me know if I should proceed.",
    "How does that sound?",
    "Should I cancel it or keep it?",
    "Do you want me to proceed, or should I wait?",
    "May I go ahead and pay?",
    "Is it okay if I send 1,200.00 USD to Aisha?",
    "Go ahead with the purchase?",
    "Want me to book it?",
    "This costs 12.00. Proceed?",
    "Ready to book: Maple at 14:00. Confirm?",
    "So, shall I send it?",
    "Permanently delete 6 file(s)? This can't be undone.",
    "Are you OK with the late fee?",
]
OPEN_QUESTIONS = [
    "Which card should I use?",
    "What is her phone number?",
    "Could you tell me her number?",
    "Do you know her email address?",
    "Which Ben do you mean: Ben Silva or Ben Okafor?",
    "Should I use the Visa or the Mastercard?",
    "How many people will attend?",
    "When should I remind you?",
    "Do you mean Alex Turner or Alex Morgan?",
    "Please tell me: which bedroom?",
    "Who should I text?",
]
LEADS = ["", "Sure. ", "The ride has a driver. ", "Cancelling costs 4.50. "]


@given(
    st.sampled_from(CONFIRMATIONS),
    st.sampled_from(LEADS),
    st.sampled_from(["clarify", "confirm", None]),
    st.lists(st.sampled_from([CONFIRM, PHONE, ALEX]), unique=True),
)
def test_every_confirmation_question_gets_the_scripted_confirmation(
    question: str, lead: str, kind: str | None, others: list[UserAnswer]
) -> None:
    script = [*(a for a in others if a is not CONFIRM), CONFIRM]
    assert choose(script, lead + question, kind=kind) == CONFIRM.answer


@given(st.sampled_from(OPEN_QUESTIONS), st.sampled_from(LEADS))
def test_a_confirmation_answers_no_open_question(question: str, lead: str) -> None:
    assert question_form(lead + question) == "open"
    assert choose([CONFIRM], lead + question) == NOTHING_TO_ADD


def test_kind_confirm_makes_any_question_a_confirmation() -> None:
    assert choose([PHONE, CONFIRM], "What about the fee?", kind="confirm") == CONFIRM.answer


def test_a_declared_kind_overrides_the_yes_no_reading() -> None:
    yes_but_detail = UserAnswer("Yes: 4 people.", kind="clarify")
    assert not yes_but_detail.confirms and CONFIRM.confirms and UserAnswer("No, keep it.").confirms
    assert choose([yes_but_detail], "Shall I go ahead?") == yes_but_detail.answer  # the one answer left
    assert choose([yes_but_detail, CONFIRM], "Shall I go ahead?") == CONFIRM.answer


def test_slot_wins_whatever_the_wording() -> None:
    assert choose([CONFIRM, PHONE], "Should I call her?", slot="phone_number") == PHONE.answer
    assert choose([PHONE, ALEX], "Anything?", slot="Phone-Number") == PHONE.answer


@given(st.permutations(["Ben Silva", "Ben Okafor", "Ben Chen"]), st.sampled_from([True, False]))
def test_the_answer_naming_one_offered_option(options: list[str], as_argument: bool) -> None:
    chosen = UserAnswer("Ben Okafor, please.")
    other = UserAnswer("The 6-digit code is 123456.", slot="verification_code")
    question = "Which one do you mean?" if as_argument else f"Which Ben: {', '.join(options[:-1])} or {options[-1]}?"
    assert choose([other, chosen], question, kind="choose", options=options if as_argument else None) == chosen.answer


def test_options_match_on_words_not_spelling() -> None:
    kids = UserAnswer("The kids' bedroom.")
    master = UserAnswer("The master bedroom, mine.")
    question = "Which bedroom: the master bedroom or the kids' bedroom?"
    assert choose([master, kids], question, options=["Master bedroom", "Kids bedroom"]) == master.answer
    assert choose([PHONE, kids], question, options=["Kids bedroom", "Master bedroom"]) == kids.answer
    both = UserAnswer("The master bedroom, not the kids' bedroom.")
    assert choose([both, PHONE], question, options=["Kids bedroom", "Master bedroom"]) == NOTHING_TO_ADD


def test_keywords_are_the_fallback() -> None:
    assert choose([PHONE, ALEX], "Which Alex did you mean?") == ALEX.answer


def test_the_single_answer_left_answers_an_unforeseen_question() -> None:
    detail = UserAnswer("3 people.", slot="attendees", keywords=("how many",))
    assert choose([detail, CONFIRM], "What size should the room be?") == detail.answer
    assert choose([detail, CONFIRM], "What size should the room be?", given={detail.answer}) == NOTHING_TO_ADD
    assert choose([detail, ALEX], "What else should I know?") == NOTHING_TO_ADD  # two left: nothing to pick
    assert choose([detail, ALEX], "What else should I know?", given={ALEX.answer}) == detail.answer


@given(st.text(max_size=60), st.sampled_from(["clarify", "confirm", "choose", None]))
def test_the_answer_is_deterministic_and_scripted(question: str, kind: str | None) -> None:
    script = [CONFIRM, PHONE, ALEX]
    first = choose(script, question, kind=kind)
    assert first == choose(script, question, kind=kind)
    assert first in {a.answer for a in script} | {NOTHING_TO_ADD}


def test_ask_user_reads_given_answers_back(conn: Connection) -> None:
    detail = UserAnswer("3 people.")
    ex = Executor(conn, visible=frozenset(), user_script=(detail, ALEX))
    ex.step = 1
    assert ex.call("ask_user", {"question": "Which Alex?"})["Payload"] == {"answer": ALEX.answer}
    assert ex.call("ask_user", {"question": "Anything else?", "kind": "clarify"})["Payload"] == {
        "answer": detail.answer
    }  # Alex was given: one answer left


def test_an_unreachable_user_answers_nothing(conn: Connection) -> None:
    ex = Executor(conn, visible=frozenset(), user_script=(CONFIRM,), user_reachable=False)
    env = ex.call("ask_user", {"question": "Shall I cancel it?", "kind": "confirm"})
    assert env["Payload"] == {"answer": None, "message": NO_ANSWER}
    silent = Executor(conn, visible=frozenset())
    assert silent.call("ask_user", {"question": "Shall I cancel it?"})["Payload"] == {"answer": NOTHING_TO_ADD}


def _task(tags: dict[str, str]) -> Task:
    record = json.loads(HANDWRITTEN.read_text(encoding="utf-8").splitlines()[0])
    record["user_script"] = [{"answer": "Yes, go ahead.", "kind": "confirm"}]
    record["tags"] = tags
    return Task.model_validate(record)


HANDWRITTEN = Path(__file__).parents[2] / "sandbox/data/tasks/handwritten.jsonl"


def test_a_task_declares_its_user_unreachable_by_tag() -> None:
    for tags, answer in (({}, "Yes, go ahead."), (dict([UNREACHABLE_TAG]), None)):
        with Episode(_task(tags)) as episode:
            env = episode.step("ask_user", {"question": "Do you want me to proceed?"})
        assert env["Payload"]["answer"] == answer


def test_every_scripted_gold_question_gets_its_intended_answer() -> None:
    """The suite's gold questions, asked again in a different but natural wording, get the same answers."""
    path = Path(__file__).parents[2] / "sandbox/data/tasks/full.jsonl"
    rewordings = {"confirm": "Do you want me to proceed?"}
    checked = 0
    for task in load_tasks(path):
        script = [UserAnswer(a.answer, a.slot, tuple(a.keywords), a.kind) for a in task.user_script]
        for action in (a for a in task.gold if a.name == "ask_user"):
            args = action.arguments
            intended = choose(
                script, args["question"], slot=args.get("slot"), kind=args.get("kind"), options=args.get("options")
            )
            assert intended in {a.answer for a in script}, (task.task_id, args)
            if args.get("kind") in rewordings and not args.get("slot"):
                assert choose(script, rewordings[args["kind"]]) == intended, task.task_id
                checked += 1
    assert checked > 0


LOW_RES = UserAnswer("Yes, 1080p is fine.", keywords=("1080", "storage", "space", "instead"))
ANYWAY = UserAnswer(
    "Yes, add it anyway; I'll sort out the clash myself.", keywords=("overlap", "anyway"), kind="confirm"
)
STORAGE_OPTIONS = ["Record 120 s in 1080p", "Record a shorter 4K clip", "Free up space first", "Cancel"]


@given(st.sampled_from(["choose", "clarify", "confirm", None]), st.sampled_from([True, False]))
def test_a_confirmation_naming_one_offered_option_picks_it_whatever_the_kind(kind: str | None, listed: bool) -> None:
    question = (
        "Not enough storage for 4K. How would you like to proceed: record in 1080p instead, record a "
        "shorter 4K clip, or free up space first (e.g. delete photos) and then record in 4K?"
    )
    options = STORAGE_OPTIONS if listed else None
    assert choose([LOW_RES], question, kind=kind, options=options) == LOW_RES.answer
    assert choose([PHONE, LOW_RES], question, kind=kind, options=options) == LOW_RES.answer


@given(st.sampled_from(["choose", "clarify", "confirm", None]), st.sampled_from([True, False]))
def test_a_confirmation_answers_a_choice_carrying_its_keyword(kind: str | None, listed: bool) -> None:
    question = "Book club overlaps your Team standup. Should I schedule it regardless, or pick another time?"
    options = ["Schedule regardless", "Pick another time"] if listed else None
    assert choose([PHONE, ANYWAY], question, kind=kind, options=options) == ANYWAY.answer
    unrelated = "Should I schedule it at 9:30, or pick another time?"
    assert choose([PHONE, ANYWAY], unrelated, kind="choose", options=options) == PHONE.answer  # the one left
    assert (
        choose(
            [ANYWAY],
            "Should I add it anyway at 9:30, or pick another time?",
            kind=kind,
            options=["Add it anyway at 9:30", "Choose another time"] if listed else None,
        )
        == ANYWAY.answer
    )


def test_a_confirmation_answers_no_choice_it_does_not_name() -> None:
    question = "Which card should I use: the Visa or the Mastercard?"
    assert choose([LOW_RES, CONFIRM], question, kind="choose", options=["Visa", "Mastercard"]) == NOTHING_TO_ADD
    assert choose([LOW_RES], question) == NOTHING_TO_ADD


def test_an_abbreviation_ends_no_sentence() -> None:
    question = "Should I free up space first (e.g. delete old photos) or record a shorter clip?"
    assert question_form(question) == "open"
    assert question_form("I found Dr. Chen. Which Chen do you mean?") == "open"
    assert question_form("Space is low (see e.g. Photos). Shall I record it in 1080p?") == "confirm"
