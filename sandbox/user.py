"""The simulated user: answers an ``ask_user`` question from the task's script by what is asked.

A real user answers the question in front of them, however it is phrased, so the answer is chosen by
the question, never by the planner's wording luck. The rules, in order; the first that picks wins:

1. slot: the planner names the slot of a scripted answer (case and separators ignored);
2. options: for a question offering options (the ``options`` argument, else the alternatives "A, B or
   C" of the question), the scripted answer naming exactly one of them, a confirmation or not ("Yes,
   1080p is fine." picks "Record in 1080p"): whatever ``kind`` the planner chose, a user picks;
3. confirmation: a yes/no question that proposes an action ("Do you want me to proceed?", "Shall I
   book it?", "Is that OK?", or ``kind="confirm"``) gets the scripted confirmation; a confirmation
   answers nothing else but a statement or a question offering options that carries one of its
   keywords ("... overlaps your standup. Add it anyway or pick another time?");
4. keywords: a scripted answer with a keyword in the question;
5. the one scripted non-confirmation answer not given yet, when exactly one is left (the user answers
   with what they have in mind);
6. otherwise the user has nothing to add (``NOTHING_TO_ADD``).

A user the task declares unreachable (``UNREACHABLE_TAG``) answers nothing. Among several answers one
rule picks, one not given yet comes first, then script order: the answer is deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

NOTHING_TO_ADD = "I have nothing to add to what I asked."
NO_ANSWER = "The user did not answer that question."
UNREACHABLE_TAG = ("user", "unreachable")  # a task's tags entry: the user cannot be asked anything


def reachable(tags: Mapping[str, str]) -> bool:
    """Whether a task's user answers questions (every task's does, unless it declares otherwise)."""
    return tags.get(UNREACHABLE_TAG[0]) != UNREACHABLE_TAG[1]


_YES_NO = frozenset({"yes", "no", "yeah", "yep", "nope", "sure"})


@dataclass(frozen=True)
class UserAnswer:
    """One scripted answer. ``kind`` "confirm" marks a confirmation; None infers it from an opening yes or no."""

    answer: str
    slot: str | None = None
    keywords: tuple[str, ...] = ()
    kind: str | None = None

    @property
    def confirms(self) -> bool:
        if self.kind is not None:
            return self.kind == "confirm"
        opening = _WORD.findall(self.answer.lower())[:1]
        return bool(opening) and opening[0] in _YES_NO

    def keyword_in(self, question: str) -> bool:
        lowered = question.lower()
        return any(k.lower() in lowered for k in self.keywords)


_WORD = re.compile(r"[a-z0-9]+")
# a sentence ends at . ? or ! and a space, but not after an abbreviation ("e.g. photos", "Dr. Chen")
_SENTENCE_END = re.compile(
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\bcf\.)(?<!\bapprox\.)(?<!\bincl\.)"
    r"(?<!\bmr\.)(?<!\bmrs\.)(?<!\bms\.)(?<!\bdr\.)(?<=[.?!])\s+",
    re.IGNORECASE,
)
_WH = frozenset({"what", "which", "who", "whom", "whose", "when", "where", "why", "how"})
# words that open a question without deciding its form ("Please confirm: ...", "So, should I ...")
_LEADS = frozenset({"please", "so", "ok", "okay", "and", "then", "also", "just", "alright", "great", "now", "but"})
# a polar question that asks the user for information, not for a go-ahead
_INFO_REQUEST = re.compile(
    r"^(?:(?:can|could|would|will) you (?:please )?(?:tell|give|send|share|provide|spell|list|remind|let me know)"
    r"|do you (?:know|have|remember|recall))\b"
)
# "A or B" offers alternatives; "or not", "or wait", "or keep it" only close a yes/no question
_ALTERNATIVES = re.compile(r"\bor\s+(?!(?:not|no|wait|hold off|stop|leave it|keep it|skip it|should i wait)\b)")
# open in form, asking for a go-ahead all the same
_CONFIRM_PHRASES = re.compile(
    r"\b(?:how does (?:that|this) sound|what do you (?:think|say)|sounds? (?:good|ok|okay|right))\b"
)
_CONFIRM_WORDS = re.compile(r"\b(?:confirm|proceed|go ahead|okay|ok|approve|all right|alright)\b")
_SPLIT_OPTIONS = re.compile(r",\s*(?:or\s+)?|\s+or\s+")
_STOP = frozenset(
    {
        "a",
        "an",
        "the",
        "do",
        "you",
        "mean",
        "i",
        "should",
        "would",
        "like",
        "want",
        "which",
        "one",
        "or",
        "and",
        "to",
        "of",
        "for",
        "my",
        "your",
        "please",
        "is",
        "it",
        "that",
        "this",
        "me",
    }
)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("'", ""))


def _opening(clause: str) -> list[str]:
    words = _words(clause)
    while words and words[0] in _LEADS:
        words = words[1:]
    return words


def question_form(question: str, kind: str | None = None, options: Sequence[str] | None = None) -> str:
    """``confirm`` (a yes/no question proposing an action), ``open`` (asks what, which, or for a detail)
    or ``statement`` (no question asked)."""
    if kind == "confirm":
        return "confirm"
    if options:
        return "open"
    asks = [s for s in _SENTENCE_END.split(question.strip()) if s.endswith("?")]
    if not asks:
        return "confirm" if _CONFIRM_WORDS.search(question.lower()) else "statement"
    for ask in asks:
        lowered = ask.lower()
        if _CONFIRM_PHRASES.search(lowered):
            continue
        clauses = [_opening(c) for c in lowered.split(":")]
        if (
            any(c and c[0] in _WH for c in clauses)
            or _ALTERNATIVES.search(lowered)
            or _INFO_REQUEST.match(" ".join(clauses[0]))
        ):
            return "open"
    return "confirm"


def offered_options(question: str, options: Sequence[str] | None) -> list[str]:
    """The options given, else the alternatives the question lists ("Which Ben: Ben Silva or Ben Okafor?")."""
    if options:
        return list(options)
    for ask in (s for s in _SENTENCE_END.split(question.strip()) if s.endswith("?")):
        if _ALTERNATIVES.search(ask.lower()):
            parts = [p.strip() for p in _SPLIT_OPTIONS.split(ask.rsplit(":", 1)[-1].rstrip("?"))]
            return [p for p in parts if p]
    return []


def names_one(answer: str, options: Sequence[str]) -> bool:
    """Whether ``answer`` names exactly one option, by a word no other option has."""
    sets = [set(_words(o)) - _STOP for o in options]
    said = set(_words(answer))
    named = [i for i, own in enumerate(sets) if own - set().union(*(s for j, s in enumerate(sets) if j != i)) & said]
    return len(named) == 1


def _norm_slot(slot: str) -> str:
    return "".join(_words(slot))


def choose(
    script: Sequence[UserAnswer],
    question: str,
    *,
    slot: str | None = None,
    kind: str | None = None,
    options: Sequence[str] | None = None,
    given: Collection[str] = (),
) -> str:
    """The user's answer to ``question`` under the rules above; ``given`` holds the answers already given."""

    def pick(candidates: list[UserAnswer]) -> str | None:
        fresh = [a for a in candidates if a.answer not in given]
        return (fresh or candidates)[0].answer if candidates else None

    if slot and (hit := pick([a for a in script if a.slot and _norm_slot(a.slot) == _norm_slot(slot)])):
        return hit
    form = question_form(question, kind, options)
    offered = offered_options(question, options)
    if len(offered) >= 2 and (hit := pick([a for a in script if names_one(a.answer, offered)])):
        return hit
    confirmations = [a for a in script if a.confirms]
    others = [a for a in script if not a.confirms]
    if form == "confirm" and confirmations:
        return pick([a for a in confirmations if a.keyword_in(question)] or confirmations) or NOTHING_TO_ADD
    by_keyword = [a for a in (script if form == "statement" or len(offered) >= 2 else others) if a.keyword_in(question)]
    if hit := pick(by_keyword):
        return hit
    left = [a for a in others if a.answer not in given]
    return left[0].answer if len(left) == 1 else NOTHING_TO_ADD
