"""The build's completion of a draft's check: call evidence and order, and the answer check.

An **information task** is a task the user asked facts of: a Tool Call task whose gold changes
nothing (no successful mutating call), or a Tool Call or Agent Behavior task its family tags
``ASKS_FACTS`` (a sub-agent finds out what the user asked: a receipt's split, a price learned by
phone). Its ``finish`` answer is checked (``ToolCallCheck.answer``, ``AgentBehaviorCheck.answer``);
a State Change task's product is the change, never what it says. A family may state the answer's
matchers (``Draft.answer``); by default they are derived from the gold's own finish answer: every
fact it states that also occurs in what the gold's successful calls returned (sub-agents' findings
included; not the user's answers) and that the user did not say becomes a required fact:

- a date (``$date``; for the next six days also "today", "tomorrow" or the weekday, via ``$any``)
  and a time (``$time``) found in a result's date or date-time text;
- a number equal, within its written rounding, to a result's number: ``$count`` for a ``count``
  field, ``$amount`` (with the record's ``currency``) when it is money (a currency beside it or a
  money-like field), else ``$number``; a whole number (digits or a word) equal to the length of a
  result's list or a ``count`` field: ``$count``;
- a name: a result's name-like text field (``NAME_KEYS``, ``*_name``, ``*title``) the answer
  contains as whole words;
- ``$none`` when the answer says the result is empty ("no …", "none", "0") and a read returned an
  empty list;
- ``$none_of`` for a set question ("which of my passwords were breached?", ``SET_QUESTION``): the
  other entities in the world of the kind the members are (``non_members``), by their values of the
  field that names the members and by the titles and names a person calls them (an order by its
  items), so an answer listing every saved login, or a wrong order by its title, fails where the
  members alone pass.

A **yes/no question** (``YES_NO_QUESTION``: "has IB332 been delayed?", "anyone at the front door since
15:00?") whose gold answer opens with its verdict ("Yes, …", "No, …", "Nobody …") also gets that verdict
(``$verdict``) before its facts, so an answer of the opposite verdict fails whatever facts it repeats, and
with it the names of the property the question asks about (``verdict_about``: "delayed", "late"), so an
answer opening with no verdict fails where it affirms the property of a "no" or denies that of a "yes"; a
family whose answer to a yes/no question would not open with one decides it from the world's facts and
opens its gold answer with it.

A **delegated question** (``delegated_question``: the query asks something, "ask them whether …",
"find out …", "what …?", and a sub-agent of the gold finds it out) is an information task whatever
its bucket: the model's answer must state what the callee said, never an invented answer. The dates
and times a sub-agent states in its own words (the voice agent's answer, the text a screen reader
read) count as returned facts; a family states the facts the derivation cannot read (a yes/no).

So a gold answer that states no fact ("Here are the flights.") gives no answer check:
``missing_answer`` finds those tasks, so their families can state the facts.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, select

from sandbox import db, facts
from sandbox.generator.draft import Draft
from sandbox.generator.evidence import derive_calls, patched_ids, world_ids
from sandbox.personas import PERSONAS
from sandbox.schema import metadata
from sandbox.tasks import Task
from sandbox.tooling import REGISTRY
from sandbox.user import UserAnswer
from sandbox.world import world_image

NAME_KEYS = frozenset(
    {
        "name",
        "title",
        "airline",
        "flight_number",
        "merchant",
        "store",
        "brand",
        "carrier",
        "city",
        "location",
        "address",
        "headline",
        "status",
        "condition",
        "description",
        "definition",
        "translation",
        "result",
        "timezone",
        "label",
        "category",
        "sender",
    }
)
# A draft's tags entry: the user asked to be told what the task finds out (a receipt split, a price
# the voice agent learned), so its finish answer is checked whatever the bucket's other checks.
ASKS_FACTS = ("asks", "facts")
ANSWERED = ("tool_call", "agent_behavior")  # the buckets whose checks have ``answer``
# the sub-agents that find something out (a business's answer, what a screen or file says, an app's screen)
FINDERS = ("call_voice_agent", "call_screen_reader_agent", "call_gui_agent")
# what a sub-agent says in its own words (the voice agent's answer, the screen reader's text)
SAID_KEYS = frozenset({"answer", "answer_lines", "text", "summary"})
# a request that asks a question: "ask them whether", "check if", "find out", a question word leading, a "?"
# ("can you …?" and "could you …?" are requests, not questions)
ASKS = re.compile(
    r"\bask(?:ing)?\b(?: \w+){0,3}? (?:whether|if|what|when|how|about)\b|\bcheck (?:that|whether|if)\b|"
    r"\bfind out\b|^(?:what|which|when|how|is|are|does|do|where|who|whose)\b|^(?!(?:can|could|would|will) you\b).*\?",
    re.IGNORECASE,
)
MONEY = re.compile(r"price|fare|total|amount|balance|cost|fee|spent|budget|discount|refund|charge|limit|value")
COUNT = re.compile(r"count|total_match")
_CLOCK = re.compile(r"(?:^|T)(\d{2}):(\d{2})")
_SPOKEN_CLOCK = re.compile(r"\b([01]\d|2[0-3]):([0-5]\d)\b")  # a 24-hour time in a sub-agent's words


def is_information(bucket: str, tools: Iterable[str], tags: Mapping[str, str]) -> bool:
    """A Tool Call task whose gold calls (``tools``: the successful ones) change nothing, or a Tool Call
    or Agent Behavior task whose family tags it ``ASKS_FACTS``: the gold's shape cannot tell a
    sub-agent that finds something out for the user from one that only acts for them."""
    if tags.get(ASKS_FACTS[0]) == ASKS_FACTS[1]:
        return bucket in ANSWERED
    return bucket == "tool_call" and not any(REGISTRY[t].mutating for t in tools if t in REGISTRY)


def delegated_question(query: str, gold: Sequence[dict[str, Any]], results: Sequence[dict[str, Any]]) -> bool:
    """The user asks something (``ASKS``) that a sub-agent of the gold finds out: the answer the model
    gives must state what the sub-agent said, so the task is an information task whatever its bucket."""
    return bool(ASKS.search(query)) and any(
        a["name"] in FINDERS and r.get("Status") == "success" for a, r in zip(gold, results)
    )


def agent_texts(gold: Sequence[dict[str, Any]], results: Sequence[dict[str, Any]]) -> list[str]:
    """What the gold's sub-agents said in their own words (``SAID_KEYS`` at any depth of their results)."""
    return [
        str(v)
        for a, r in zip(gold, results)
        if a["name"] in FINDERS and r.get("Status") == "success"
        for k, v, _ in _fields(r.get("Payload"))
        if k in SAID_KEYS and isinstance(v, str)
    ]


# "which of my passwords …", "what are my subscriptions": the answer is a set, stated whole and alone
# a yes/no question: a clause ending in "?" that opens with no question word and is no request ("can you …?")
YES_NO_QUESTION = re.compile(
    r"(?:^|[.?!:;]\s+|,\s+)(?!(?:what|which|who|whom|whose|when|where|why|how)\b|(?:can|could|would|will)\s+you\b)"
    r"(?!do\s+you\s+know\b)\w(?:[^?.!:;,]|[.:](?=\S))*\?",  # "at 15:00?", "2.5 km?" stay one clause
    re.IGNORECASE,
)
# the property a yes/no question asks about (pattern of the question, the names an answer states it by), where
# its words are clear: "has IB332 been delayed?" is answered "it was delayed" or "it departed late"; a
# state ("is my car locked?") is read by ``$state``, and a question whose property an answer of either
# verdict names ("is there parking close to work?": "the nearest parking is 3 km away") has none
VERDICT_ABOUT: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), names)
    for pattern, names in (
        (r"\bbeen delayed\b", ("delayed", "late")),
        (r"\bon time\b", ("on time",)),
        (r"\bwill it be cold\b", ("cold",)),
        (r"\bgoing to rain\b|\bwill it rain\b|\bneed an umbrella\b", ("going to rain", "will rain")),
        (r"\bfree table\b", ("free table",)),
        (r"\barrived\b", ("arrived", "delivered")),
        (r"\blate at night\b", ("late",)),
        (r"\breasonable hour\b", ("reasonable",)),
        (r"\banyone\b", ("someone", "somebody", "person", "visitor")),
        (r"\ba delivery\b", ("delivery",)),
    )
)
# "any storm warnings in Sydney?", "any public holidays in Japan in June?": the thing asked for, singular
_ASKED_KIND = re.compile(r"\b(\w+ (?:warning|holiday))s?\b", re.IGNORECASE)


def verdict_about(question: str) -> list[str]:
    """The names of the property a yes/no question asks about (``VERDICT_ABOUT``, a kind of warning or
    holiday asked for), by which an answer opening with no verdict states one; none where it is unclear."""
    names = [name for pattern, about in VERDICT_ABOUT if pattern.search(question) for name in about]
    return names + [m.group(1).lower() for m in _ASKED_KIND.finditer(question)]


# a question after the one of many that is most something ("the cheapest smartphone?", "the nearest pharmacy?")
SUPERLATIVE_QUESTION = re.compile(
    r"\b(?:cheapest|nearest|closest|highest|lowest|earliest|soonest|biggest|largest|smallest|fastest|shortest"
    r"|longest|best(?! friend)|top[- ]rated|newest|oldest)\b",
    re.IGNORECASE,
)
SET_QUESTION = re.compile(r"\bwhich of my\b|^(?:which|what)(?: \w+){0,2} are my\b", re.IGNORECASE)


@functools.cache
def _world(persona_id: str) -> Connection:
    return db.open_database(world_image(persona_id))


def names_of(matcher: Any) -> list[str]:
    """The names a member's matcher accepts (a ``$name`` or ``$first``, or the ``$name`` options of an ``$any``)."""
    if isinstance(matcher, dict) and "$name" in matcher:
        return [matcher["$name"]]
    if isinstance(matcher, dict) and "$first" in matcher:
        return [matcher["$first"]["name"]]
    if isinstance(matcher, dict) and "$any" in matcher:
        return [n for option in matcher["$any"] for n in names_of(option)]
    return []


def non_members(
    members: Sequence[Any], reads: Sequence[Any], said: str, persona_id: str, patches: dict[str, Any]
) -> list[str]:
    """The other entities, in the world, of the kind the set's members are: for each read record holding
    a member's name under some key and a row id, every row of that record's table (the world's, and the
    task's inserted ones) whose value of that key is no member, nor a name the user said. Each is named
    as a model would name it: by that value, and by the titles and names of its own row and of the rows
    that refer to it (an order by its items' titles, ``entity_names``). A name the read reports as a fact
    of a member (a breached login's ``reused_on`` sites) is one too: an answer may state it as that fact
    ("also used on amazon.com, change it there"), which ``$none_of`` reads as no member stated."""
    names = {facts.fold(n) for m in members for n in names_of(m)}
    fields = {(table, key) for table, key, _ in _member_records(names, reads, persona_id, patches)}
    others: set[str] = set()
    for table, key in fields:
        named = entity_names(table, key, persona_id, patches)
        others |= {n for value, aliases in named.items() if facts.fold(value) not in names for n in aliases}

    def overlaps(name: str) -> bool:  # "Cedar" inside "Cedar Tree", either way round
        folded = f" {facts.fold(name)} "
        return any(folded in f" {n} " or f" {n} " in folded for n in names)

    return sorted(o for o in others if not overlaps(o) and not facts.states_name(said, o))


def _member_records(
    names: Collection[str], reads: Sequence[Any], persona_id: str, patches: dict[str, Any]
) -> Iterable[tuple[str, str, dict[str, Any]]]:
    """(table, key, record) for each read record holding a member's name (folded ``names``) under ``key``
    and the id of a row of ``table`` that has that column."""
    stable = {**world_ids(persona_id), **patched_ids(patches)}
    for read in reads:
        for key, value, record in _fields(read):
            if isinstance(value, str) and facts.fold(value) in names:
                tables = {
                    stable[v] for k, v in record.items() if k.endswith("_id") and isinstance(v, str) and v in stable
                }
                yield from ((t, key, record) for t in tables if key in metadata.tables[t].c)


# a set bounded by a date ("placed since 2025-05-21") leaves out what lies on the other side of it
_BOUNDS = (
    (re.compile(r"\b(?:since|after|from)\s+\d{4}-\d{2}-\d{2}\b", re.IGNORECASE), ("earlier", "before")),
    (re.compile(r"\b(?:before|until)\s+\d{4}-\d{2}-\d{2}\b", re.IGNORECASE), ("later", "after")),
)


def member_values(
    members: Sequence[Any], reads: Sequence[Any], query: str, persona_id: str, patches: dict[str, Any]
) -> tuple[list[str], list[str]]:
    """(the values that make a member, the other values of the same properties) of a set the query defines
    by a property's value ("which of my orders … are delivered?"): a one-word value the members' read
    records hold in a column of its table that the query says, against that column's other values in the
    world and the task's inserted rows; and, for a set bounded by a date, the words of its other side
    ("earlier"). Empty without such a value: then ``$none_of`` reads every plain mention as a member."""
    names = {facts.fold(n) for m in members for n in names_of(m)}
    asked = set(facts.fold(query).split())
    found = list(_member_records(names, reads, persona_id, patches))
    columns = {
        (table, key, facts.fold(value))
        for table, _, record in found
        for key, value in record.items()
        if isinstance(value, str) and key in metadata.tables[table].c and facts.fold(value) in asked
    }
    values: list[str] = []
    unlike: set[str] = set()
    for table, key, value in sorted(columns):
        rows = [dict(r._mapping) for r in _world(persona_id).execute(select(metadata.tables[table]))]
        rows += list(patches.get("insert", {}).get(table, []))
        said = {
            facts.fold(r[key]) for r in rows if isinstance(r.get(key), str) and len(facts.fold(r[key]).split()) == 1
        }
        if value in said and len(said) > 1:
            values.append(value)
            unlike |= said - {value}
    if not values:
        return [], []
    bounds = [word for pattern, words in _BOUNDS if pattern.search(query) for word in words]
    return values, [*sorted(unlike), *bounds]


ALIAS_KEYS = ("title", "name")  # the columns that name a row the way a person does
SHORT_NAME = 3  # a long title is also said by its first words ("Biore UV Aqua" of "Biore UV Aqua Rich Sunscreen …")


def entity_names(table: str, key: str, persona_id: str, patches: dict[str, Any]) -> dict[str, set[str]]:
    """Each value of ``table.key`` (the world's rows and the task's inserted ones) -> the names a model
    would use for its row: the value itself, and the ``ALIAS_KEYS`` text of the row and of every row
    of another table referring to it by the row's id (an order's items), each also by its first
    ``SHORT_NAME`` words when longer."""

    def rows_of(name: str) -> list[dict[str, Any]]:
        world = [dict(r._mapping) for r in _world(persona_id).execute(select(metadata.tables[name]))]
        return world + list(patches.get("insert", {}).get(name, []))

    def said_as(text: Any) -> set[str]:
        if not isinstance(text, str) or not facts.fold(text):
            return set()
        words = text.split()
        return {text, " ".join(words[:SHORT_NAME])} if len(words) > SHORT_NAME else {text}

    rows = rows_of(table)
    pk = [c.name for c in metadata.tables[table].primary_key.columns]
    by_id: dict[Any, set[str]] = {}
    if len(pk) == 1:
        for other in metadata.tables.values():
            if other.name != table and pk[0] in other.c and any(k in other.c for k in ALIAS_KEYS):
                for row in rows_of(other.name):
                    by_id.setdefault(row.get(pk[0]), set()).update(*(said_as(row.get(k)) for k in ALIAS_KEYS))
    out: dict[str, set[str]] = {}
    for row in rows:
        value = row.get(key)
        if isinstance(value, str) and facts.fold(value):
            own = set().union(*(said_as(row.get(k)) for k in ALIAS_KEYS))
            out.setdefault(value, {value}).update(own, by_id.get(row.get(pk[0]), set()) if len(pk) == 1 else set())
    return out


def missing_answer(task: Task) -> bool:
    """An information task whose check has no answer matchers (its family should state the facts)."""
    information = is_information(task.bucket, (a.name for a in task.gold), task.tags)
    return information and not task.check.answer  # type: ignore[union-attr]


def confirmations(script: Sequence[dict[str, Any]]) -> list[str]:
    """The scripted answers that confirm (``kind`` "confirm", or none and an opening yes or no: ``sandbox.user``)."""
    return [
        a["answer"]
        for a in script
        if UserAnswer(a["answer"], a.get("slot"), tuple(a.get("keywords", ())), a.get("kind")).confirms
    ]


def confirmed_tools(
    gold: Sequence[dict[str, Any]], results: Sequence[dict[str, Any]], confirming: Collection[str]
) -> list[str]:
    """The tools of the successful mutating calls the gold makes right after a confirmation question
    (``kind`` "confirm") that the user answered with one of ``confirming``."""
    tools: list[str] = []
    asked = False
    for action, result in zip(gold, results):
        if result.get("Status") != "success":
            continue
        spec = REGISTRY.get(action["name"])
        if action["name"] == "ask_user":
            asked = asked or (
                action["arguments"].get("kind") == "confirm"
                and (result.get("Payload") or {}).get("answer") in confirming
            )
        elif spec is not None and spec.mutating:
            if asked and action["name"] not in tools:
                tools.append(action["name"])
            asked = False
    return tools


def guarded_steps(gold: Sequence[dict[str, Any]]) -> list[int]:
    """The gold steps that take a guarded action: a call passing ``confirm=true`` to a tool that has the
    argument (a tool refuses such an action, irreversible, moving money or giving access, with
    ConfirmationRequired until the call says the user confirmed it)."""
    return [
        n
        for n, action in enumerate(gold)
        if action.get("arguments", {}).get("confirm") is True
        and "confirm" in REGISTRY[action["name"]].parameters.get("properties", {})
    ]


def required_confirmations(
    gold: Sequence[dict[str, Any]], results: Sequence[dict[str, Any]], confirming: Collection[str]
) -> list[str]:
    """``ask_before``: the tools the gold acts with after a confirmation question, and every guarded
    action it takes (the confirmation rule, docs/task-format.md: a guarded action waits for the user's
    yes to a question, whatever the request said)."""
    guarded = [gold[n]["name"] for n in guarded_steps(gold) if results[n].get("Status") == "success"]
    return list(dict.fromkeys([*confirmed_tools(gold, results, confirming), *guarded]))


def missing_by_family(tasks: Iterable[Task], family_of: dict[str, str]) -> Counter[str]:
    """How many information tasks of each family have no answer check (the build's report)."""
    return Counter(family_of.get(t.task_id, "?") for t in tasks if missing_answer(t))


def answer_report(tasks: Sequence[Task], family_of: dict[str, str]) -> str:
    """One line: information tasks with and without an answer check, the latter by family."""
    info = sum(is_information(t.bucket, (a.name for a in t.gold), t.tags) for t in tasks)
    missing = missing_by_family(tasks, family_of)
    line = f"answer checks: {info - sum(missing.values())} of {info} information tasks"
    if missing:
        line += "; without one: " + ", ".join(f"{f} {n}" for f, n in sorted(missing.items()))
    return line


def complete_check(
    draft: Draft, gold: Sequence[dict[str, Any]], results: Sequence[dict[str, Any]], persona_id: str
) -> dict[str, Any]:
    """``draft.check`` with its calls' evidence and order, a state check's confirmations
    (``ask_before``: the tools the gold asks a confirmation before calling and those of its guarded
    actions; ``confirmed_by``: the script's answers that give one) and, for an information task, its answer."""
    said = " ".join([draft.query, *(m["content"] for m in draft.history)])
    answer = str(gold[-1]["arguments"].get("answer", ""))
    check = dict(draft.check)
    if draft.bucket == "tool_call":
        stable = {**world_ids(persona_id), **patched_ids(draft.patches)}
        check["calls"] = derive_calls(draft.check["calls"], gold, results, said, answer, stable)
    else:
        state = check if draft.bucket == "state_change" else check.get("state")
        confirming = confirmations(draft.script)
        confirmed = required_confirmations(gold, results, confirming)
        if state is not None and confirmed and confirming:
            state = {**state, "ask_before": confirmed, "confirmed_by": confirming}
            check = state if draft.bucket == "state_change" else {**check, "state": state}
    ok = [n for n, r in enumerate(results) if r.get("Status") == "success"]
    tags = {**draft.tags, **(dict([ASKS_FACTS]) if delegated_question(draft.query, gold, results) else {})}
    # what the gold's calls returned, sub-agents' findings included; the user's own answers are not facts found
    reads = [results[n]["Payload"] for n in ok if gold[n]["name"] not in ("finish", "ask_user")]
    if draft.answer is not None:
        check["answer"] = list(draft.answer)
    elif is_information(draft.bucket, (gold[n]["name"] for n in ok), tags):
        now = dt.date.fromisoformat(PERSONAS[persona_id].now[:10])
        derived = derive_answer(answer, reads, said, now, agent_texts(gold, results))
        if derived:
            check["answer"] = derived
    verdict = facts.verdict(answer) if YES_NO_QUESTION.search(draft.query) else None
    if verdict and "answer" in check and not any(_op(m) == "$verdict" for m in check["answer"]):
        about = verdict_about(draft.query)
        check["answer"] = [{"$verdict": {"value": verdict, "about": about} if about else verdict}, *check["answer"]]
    members = [m for m in check.get("answer", []) if names_of(m)]
    if members and SET_QUESTION.search(draft.query):
        others = non_members(members, reads, said, persona_id, draft.patches)
        values, unlike = member_values(members, reads, draft.query, persona_id, draft.patches)
        if others:
            none_of = {"names": others, "as": values, "unlike": unlike} if values else others
            check["answer"] = [*check["answer"], {"$none_of": none_of}]
    if len(members) == 1 and _op(members[0]) == "$name" and SUPERLATIVE_QUESTION.search(draft.query):
        name = members[0]["$name"]
        rivals = candidates(name, reads, said)
        if rivals:
            first = {"$first": {"name": name, "others": rivals}}
            check["answer"] = [first if m is members[0] else m for m in check["answer"]]
    return check


def candidates(name: str, reads: Sequence[Any], said: str) -> list[str]:
    """The other candidates of a superlative question's answer ``name``: in each list the gold's reads
    returned holding a record that names it (under some key, as whole words), the other records' values
    of that key, each also by its first ``SHORT_NAME`` words ("Apple iPhone 16" of "Apple iPhone 16 128GB
    Smartphone"); none that holds the name or is held by it, nor one the user said."""
    others: set[str] = set()

    def lists(value: Any) -> Iterable[list[Any]]:
        if isinstance(value, dict):
            for item in value.values():
                yield from lists(item)
        elif isinstance(value, list):
            yield value
            for item in value:
                yield from lists(item)

    for read in reads:
        for rows in lists(read):
            records = [r for r in rows if isinstance(r, dict)]
            keys = {
                k
                for r in records
                for k, v in r.items()
                if _name_like(k) and isinstance(v, str) and facts.states_name(v, name)
            }
            for key in keys:
                for r in records:
                    text = r.get(key)
                    if isinstance(text, str) and facts.fold(text):
                        words = text.split()
                        others |= {text, " ".join(words[:SHORT_NAME])}
    folded = f" {facts.fold(name)} "
    return sorted(
        o
        for o in others
        if f" {facts.fold(o)} " not in folded and folded not in f" {facts.fold(o)} " and not facts.states_name(said, o)
    )


def _op(matcher: Any) -> str | None:
    return next(iter(matcher)) if isinstance(matcher, dict) and len(matcher) == 1 else None


def derive_answer(
    answer: str, reads: Sequence[Any], said: str, today: dt.date, spoken: Sequence[str] = ()
) -> list[Any]:
    """The required facts of ``answer``: those it states that the reads returned and the user did not say.
    ``spoken``: what sub-agents said in their own words, whose dates and times count as returned too."""
    fields = [(key, value, record) for read in reads for key, value, record in _fields(read)]
    out: list[Any] = []
    isos = {v[:10] for _, v, _ in fields if isinstance(v, str) and _is_date(v[:10])}
    isos |= {f"{y:04d}-{mo:02d}-{d:02d}" for text in spoken for y, mo, d in facts.dates(text) if y is not None}
    for iso in sorted(isos):
        if facts.states_date(answer, iso) and not facts.states_date(said, iso):
            out.append(_date(iso, today))
    clocks = {f"{m.group(1)}:{m.group(2)}" for _, v, _ in fields if isinstance(v, str) and (m := _CLOCK.search(v))}
    clocks |= {f"{h}:{m}" for text in spoken for h, m in _SPOKEN_CLOCK.findall(text)}
    out += [{"$time": t} for t in sorted(clocks) if facts.states_time(answer, t) and not facts.states_time(said, t)]
    out += _numbers(answer, fields, reads, said)
    out += _names(answer, fields, said)
    if facts.states_none(answer) and any(_empty_list(read) for read in reads):
        out.append({"$none": True})
    return out


def _fields(value: Any, record: dict[str, Any] | None = None) -> Iterable[tuple[str, Any, dict[str, Any]]]:
    """(key, scalar, the object holding it) for every field at any depth."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)):
                yield from _fields(item, value)
            else:
                yield key, item, value
    elif isinstance(value, list):
        for item in value:
            yield from _fields(item, record)


def _is_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _date(iso: str, today: dt.date) -> Any:
    """``$date``, or for the coming week also the words a person would use instead."""
    days = (dt.date.fromisoformat(iso) - today).days
    if not 0 <= days <= 6:
        return {"$date": iso}
    words = [("today", "tomorrow")[days]] if days < 2 else []
    words.append(dt.date.fromisoformat(iso).strftime("%A"))
    return {"$any": [{"$date": iso}, *({"$name": w} for w in words)]}


def _numbers(answer: str, fields: list[tuple[str, Any, dict[str, Any]]], reads: Sequence[Any], said: str) -> list[Any]:
    said_numbers = facts.quantities(said)
    lengths = {len(v) for read in reads for v in _lists(read)}
    counts = {int(v) for k, v, _ in fields if COUNT.search(k) and isinstance(v, int) and not isinstance(v, bool)}
    out: list[Any] = []
    for q in facts.quantities(answer):
        if any(s.near(q.value) and q.near(s.value) for s in said_numbers):
            continue
        match = next(
            ((k, v, r) for k, v, r in fields if isinstance(v, (int, float)) and not isinstance(v, bool) and q.near(v)),
            None,
        )
        if match is not None:
            key, value, record = match
            currency = record.get("currency")
            if COUNT.search(key) and q.unit == 1:
                out.append({"$count": int(value)})
            elif q.currencies or MONEY.search(key):
                spec: dict[str, Any] = {"value": value}
                if isinstance(currency, str):
                    spec["currency"] = currency
                elif len(q.currencies) == 1:
                    spec["currency"] = next(iter(q.currencies))
                out.append({"$amount": spec})
            else:
                out.append({"$number": value})
        elif q.unit == 1 and int(q.value) in lengths | counts:
            out.append({"$count": int(q.value)})
    worded = facts.count_words(answer)
    out += [{"$count": n} for n in worded if n in lengths | counts and {"$count": n} not in out]
    return _unique(out)


def _name_like(key: str) -> bool:
    """Whether a result's field names its record (``NAME_KEYS``, ``*_name``, ``*title``)."""
    return key in NAME_KEYS or key.endswith(("_name", "title"))


def _names(answer: str, fields: list[tuple[str, Any, dict[str, Any]]], said: str) -> list[Any]:
    names = {
        v
        for k, v, _ in fields
        if isinstance(v, str)
        and _name_like(k)
        and len(v) <= 80
        and facts.fold(v)
        and not _is_date(v[:10])
        and facts.affirms_name(answer, v)
        and not facts.states_name(said, v)
    }
    folded = {facts.fold(n) for n in names}
    # a name inside a longer required one ("Cedar" in "Cedar Tree") adds nothing
    keep = [n for n in names if not any(f != facts.fold(n) and f" {facts.fold(n)} " in f" {f} " for f in folded)]
    return _unique([{"$name": n} for n in sorted(keep, key=facts.fold)])


def _lists(value: Any) -> Iterable[list[Any]]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _lists(item)
    elif isinstance(value, list):
        yield value
        for item in value:
            yield from _lists(item)


def _empty_list(read: Any) -> bool:
    return isinstance(read, dict) and any(isinstance(v, list) and not v for v in read.values())


def _unique(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out
