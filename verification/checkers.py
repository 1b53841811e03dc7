"""The three verification buckets. Each checker is ``(check, trajectory) -> reasons``; no reasons = pass.

Checkers read only the trajectory: the planner's steps with their envelopes and the final state diff
``D_T - D_0``. A malformed check (bad matcher, unknown tool) raises ValueError: a broken task must
never silently pass or fail.

Rules every bucket shares: an expected ``ask_user`` matches whatever its ``kind`` (how to put the
question is the planner's choice); a read-only expected call with evidence is satisfied by any read
that returned that evidence; side effects in emails, payment_methods and transactions are collateral
unless the check expects a change in one of them (``ignored_tables_of``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import Table

from sandbox.changes import StateDiff, TableDiff
from sandbox.episode import Step, Trajectory
from sandbox.schema import WORLD, metadata
from sandbox.tasks import AgentBehaviorCheck, ExpectedCall, RowUpdate, StateChangeCheck, ToolCallCheck
from sandbox.tooling import REGISTRY, ToolSpec
from verification.alignment import max_matching
from verification.matchers import explain, fits, validate_matcher

DEFAULT_IGNORED_COLUMNS = frozenset({"created_at", "updated_at"})
# Tables the framework never writes: a change there is the user's money or mail, so collateral
# unless the task asks for it (see ``ignored_tables``).
COLLATERAL_TABLES = frozenset({"emails", "payment_methods", "transactions"})
# Bookkeeping the framework writes on every run; changes there are never collateral damage.
DEFAULT_IGNORED_TABLES = frozenset(
    {
        "Operation_logs",
        "loaded_skills",
        "user_interactions",
        "final_answers",
        "subagent_jobs",
        "id_sequences",
    }
)


# Framework steps whose payloads echo the planner or the user, never the phone's data.
NO_EVIDENCE = frozenset({"finish", "ask_user", "load_skill"})


def _tools() -> dict[str, ToolSpec]:
    """Every declared tool. The phone's domains declare theirs on the first check that asks: importing
    them is not free, and a command that only parses its arguments or reads the store never needs them."""
    import sandbox.domains  # noqa: F401

    return REGISTRY


def _tables() -> Mapping[str, Table]:
    """Every declared table, by name (declared with the tools)."""
    _tools()
    return metadata.tables


def successful_steps(trajectory: Trajectory) -> list[Step]:
    """The planner's steps whose envelope says success: failed calls change nothing and prove nothing."""
    return [s for s in trajectory.steps if s.envelope.get("Status") == "success"]


# ---- Tool Call ---------------------------------------------------------------------------------


def check_tool_calls(check: ToolCallCheck, trajectory: Trajectory) -> list[str]:
    """Every expected call is matched by a distinct successful call, after the calls it depends on
    (``after``), and the final answer states every fact of ``answer``.

    A step matches an expected call when it is that tool with arguments satisfying ``args``, or, for
    a read-only expected call with ``evidence``, when it is any successful read-only call whose
    Payload holds every evidence item (each fits some object at any depth): another tool or other
    arguments that return the same data are as good. Independent calls match in any order.
    Unexpected read-only calls are free (valid alternative paths); an unexpected successful mutating
    call is an unnecessary side effect and fails the check.
    """
    for call in check.calls:
        _validate_call(call)
    for matcher in check.answer:
        validate_matcher(matcher)
    steps = successful_steps(trajectory)
    used, reasons = _match_calls(check.calls, steps)
    for pos, step in enumerate(steps):
        if pos not in used and _is_mutating(step.name):
            reasons.append(f"unexpected side effect at step {step.index}: {_render_call(step.name, step.arguments)}")
    return reasons + answer_failures(check.answer, steps)


def answer_failures(answer: Sequence[Any], steps: list[Step]) -> list[str]:
    """Each fact of ``answer`` the last successful ``finish`` does not state, named."""
    if not answer:
        return []
    final = next(
        (s.arguments.get("answer") for s in reversed(steps) if s.name == "finish" and isinstance(s.arguments, dict)),
        None,
    )
    if not isinstance(final, str):
        return ["answer: the episode never finished with an answer"]
    return [f"answer: {reason}" for matcher in answer if (reason := explain(matcher, final))]


def _match_calls(calls: Sequence[ExpectedCall], steps: list[Step]) -> tuple[set[int], list[str]]:
    """Distinct steps for all calls with every ``after`` call's step earlier, found by backtracking
    in dependency order (checks hold a handful of calls); else the reasons, from a maximum matching."""
    reads = _evidence_reads(steps) if any(_has_evidence(call) for call in calls) else {}
    fit = [_fitting_steps(call, steps, reads) for call in calls]
    placed: dict[int, int] = {}

    def place(order: list[int]) -> bool:
        if not order:
            return True
        c, rest = order[0], order[1:]
        floor = max((placed[i] for i in calls[c].after), default=-1)
        for p in fit[c]:
            if p > floor and p not in placed.values():
                placed[c] = p
                if place(rest):
                    return True
                del placed[c]
        return False

    if place(_dependency_order(calls)):
        return set(placed.values()), []
    pairs = max_matching(len(calls), len(steps), lambda i, j: j in fit[i])
    reasons = [_missing_call(f"expected call #{i + 1}", call, steps) for i, call in enumerate(calls) if i not in pairs]
    if not reasons:
        for c, call in enumerate(calls):
            for i in call.after:
                if not any(p > q for p in fit[c] for q in fit[i]):
                    reasons.append(
                        f"expected call #{c + 1} {_render_call(call.tool, call.args)} uses the result of "
                        f"expected call #{i + 1} ({calls[i].tool}) but was only made before it "
                        f"(step {steps[fit[c][0]].index})"
                    )
        reasons = reasons or ["the expected calls were made, but in no order that respects their dependencies"]
    return set(pairs.values()), reasons


def _dependency_order(calls: Sequence[ExpectedCall]) -> list[int]:
    """Indexes with every call after those it depends on (the check's validator rules out cycles)."""
    order: list[int] = []

    def visit(c: int) -> None:
        if c not in order:
            for i in calls[c].after:
                visit(i)
            order.append(c)

    for c in range(len(calls)):
        visit(c)
    return order


def _evidence_reads(steps: list[Step]) -> dict[int, list[dict[str, Any]]]:
    """Per step that may stand in for an expected read (a read-only call, not a framework step echoing
    the planner or the user), the objects its Payload holds: walked once, whatever the calls."""
    return {
        p: list(objects(s.envelope.get("Payload")))
        for p, s in enumerate(steps)
        if not _is_mutating(s.name) and s.name not in NO_EVIDENCE
    }


def _fitting_steps(call: ExpectedCall, steps: list[Step], reads: dict[int, list[dict[str, Any]]]) -> list[int]:
    """Positions of the steps that satisfy the call: the same tool and arguments, or (a read-only
    call with evidence) a read-only step whose result holds the evidence."""
    args = _expected_args(call)
    evidence = call.evidence if _has_evidence(call) else []
    return [
        p
        for p, step in enumerate(steps)
        if (step.name == call.tool and fits(args, step.arguments))
        or (evidence and p in reads and _holds_all(evidence, reads[p]))
    ]


def _has_evidence(call: ExpectedCall) -> bool:
    return bool(call.evidence) and not _is_mutating(call.tool)


def holds_evidence(call: ExpectedCall, payload: Any) -> bool:
    """A read-only expected call with evidence, and a result that holds every item of it."""
    return _has_evidence(call) and _holds_all(call.evidence, list(objects(payload)))


def _holds_all(evidence: Sequence[dict[str, Any]], found: list[dict[str, Any]]) -> bool:
    """Every evidence item fits some object of a result (``found``: its objects at any depth)."""
    return all(any(fits(item, obj) for obj in found) for item in evidence)


def objects(value: Any) -> Iterator[dict[str, Any]]:
    """Every object of a JSON value at any depth, the value itself first."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from objects(item)
    elif isinstance(value, list):
        for item in value:
            yield from objects(item)


def _fits(call: ExpectedCall, step: Step) -> bool:
    return step.name == call.tool and fits(_expected_args(call), step.arguments)


def _expected_args(call: ExpectedCall) -> dict[str, Any]:
    """The matchers a step's arguments must satisfy. An ``ask_user`` matches whatever its ``kind``:
    whether the planner confirms, chooses or asks openly is its own choice, never a requirement."""
    return {k: v for k, v in call.args.items() if k != "kind"} if call.tool == "ask_user" else call.args


def _missing_call(what: str, call: ExpectedCall, steps: list[Step]) -> str:
    """Why an expected call found no partner: wrong arguments, or never made."""
    label = f"{what} {_render_call(call.tool, call.args)}"
    same_tool = [s for s in steps if s.name == call.tool]
    if not same_tool:
        return f"{label}: never called successfully" + (
            "; no read-only call returned its evidence" if call.evidence else ""
        )
    args = _expected_args(call)
    best = same_tool[_closest(args, [s.arguments for s in same_tool])]
    return f"{label}: wrong arguments at step {best.index}: {explain(args, best.arguments)}" + (
        "; no read-only call returned its evidence" if call.evidence else ""
    )


def _is_mutating(name: Any) -> bool:
    """A tool the registry does not know is treated as mutating: nothing shows it was harmless."""
    spec = _tools().get(name) if isinstance(name, str) else None
    return spec is None or spec.mutating


def _validate_call(call: ExpectedCall) -> None:
    if call.tool not in _tools():
        raise ValueError(f"check expects unknown tool {call.tool!r}")
    validate_matcher(call.args)
    for item in call.evidence:
        validate_matcher(item)


# ---- State Change ------------------------------------------------------------------------------


def check_state_change(check: StateChangeCheck, trajectory: Trajectory) -> list[str]:
    """The trajectory's final diff satisfies the expected diff (see ``diff_failures``), and the
    tools of ``ask_before`` acted only after the user confirmed (``unconfirmed``)."""
    return unconfirmed(check, successful_steps(trajectory)) + diff_failures(check, trajectory.diff)


def unconfirmed(check: StateChangeCheck, steps: list[Step]) -> list[str]:
    """``ask_before``: a listed tool's first successful call came before any ``ask_user`` the user
    answered with a confirmation (``confirmed_by``). Asking is not enough: a question about
    something else, or one the user declined, is no go-ahead."""
    reasons = []
    for tool in check.ask_before:
        first = next((n for n, s in enumerate(steps) if s.name == tool), None)
        if first is not None and not any(_confirmed(check, s) for s in steps[:first]):
            asked = any(s.name == "ask_user" for s in steps[:first])
            reasons.append(
                f"ask first: step {steps[first].index} {_render_call(tool, steps[first].arguments)} "
                + (
                    "acted although no question before it was answered with a go-ahead"
                    if asked
                    else "acted without asking the user to confirm"
                )
            )
    return reasons


def _confirmed(check: StateChangeCheck, step: Step) -> bool:
    """An ``ask_user`` step whose answer is one of the check's confirmations."""
    payload = step.envelope.get("Payload")
    return step.name == "ask_user" and isinstance(payload, dict) and payload.get("answer") in check.confirmed_by


def diff_failures(check: StateChangeCheck, diff: StateDiff) -> list[str]:
    """Compare ``D_T - D_0`` with the expected diff; the reasons name the table, the expectation and the closest row.

    Expectations are checked in every table, ignored ones included; ``ignore_tables`` and
    ``ignore_columns`` only decide what counts as collateral damage under ``strict``.
    """
    _validate_state(check)
    ignored_tables = ignored_tables_of(check)
    ignored_columns = DEFAULT_IGNORED_COLUMNS | set(check.ignore_columns)
    reasons: list[str] = []
    for table in sorted(set(diff) | set(check.insert) | set(check.update) | set(check.delete)):
        changes = diff.get(table, TableDiff())
        # World catalogues (stock, seats, prices) move with scenario events: diffed only where asked.
        is_world = table in _tables() and _tables()[table].info["kind"] == WORLD
        strict = check.strict and table not in ignored_tables and not is_world
        expected = check.insert.get(table, [])
        optional = check.optional_insert.get(table, [])
        inserted = [
            r for r in changes.inserted if not any(fits(o, r) for o in optional) or any(fits(e, r) for e in expected)
        ]
        reasons += _align_rows(table, "inserted", expected, inserted, strict)
        reasons += _align_updates(table, check.update.get(table, []), changes.updated, strict, ignored_columns)
        reasons += _align_rows(table, "deleted", check.delete.get(table, []), changes.deleted, strict)
    for table, specs in sorted(check.forbid.items()):
        changes = diff.get(table, TableDiff())
        rows = changes.inserted + [after for _, after in changes.updated]
        reasons += [
            f"{table}: forbidden change {_label(row, spec)} matches forbid {_short(spec)}"
            for spec in specs
            for row in rows
            if fits(spec, row)
        ]
    return reasons


def ignored_tables_of(check: StateChangeCheck) -> frozenset[str]:
    """The tables whose changes are never collateral: the framework's bookkeeping and the check's
    ``ignore_tables``, except that a collateral table (emails, payment_methods, transactions) is
    ignored only when the check itself expects a change in one of them: then the task asked for a
    payment or a mail, and the bookkeeping that comes with it (a balance, a receipt) is part of it.
    Otherwise an email sent or money moved that nobody asked for fails the check, whatever it ignores."""
    asked = any(t in COLLATERAL_TABLES for t in (*check.insert, *check.update, *check.delete))
    own = set(check.ignore_tables) if asked else set(check.ignore_tables) - COLLATERAL_TABLES
    return DEFAULT_IGNORED_TABLES | own


def overridden_ignores(check: StateChangeCheck) -> list[str]:
    """The check's ``ignore_tables`` entries the rule above does not honour (for the families' owners)."""
    return sorted(set(check.ignore_tables) - ignored_tables_of(check))


def _align_rows(
    table: str, kind: str, specs: list[dict[str, Any]], rows: list[dict[str, Any]], strict: bool
) -> list[str]:
    """Pair expected rows with ``kind`` (inserted or deleted) rows by maximum matching: generated ids never matter."""
    pairs = max_matching(len(specs), len(rows), lambda i, j: fits(specs[i], rows[j]))
    taken = set(pairs.values())
    free = [row for j, row in enumerate(rows) if j not in taken] or rows
    reasons = []
    for i, spec in enumerate(specs):
        if i in pairs:
            continue
        if not free:
            reasons.append(f"{table}: expected a row {kind} like {_short(spec)}; no row was {kind}")
            continue
        best = free[_closest(spec, free)]
        reasons.append(
            f"{table}: expected a row {kind} like {_short(spec)}; closest {kind} row "
            f"{_label(best, spec)}: {explain(spec, best)}"
        )
    if strict:
        reasons += [f"{table}: unexpected row {kind}: {_short(row)}" for j, row in enumerate(rows) if j not in taken]
    return reasons


def _align_updates(
    table: str,
    specs: list[RowUpdate],
    rows: list[tuple[dict[str, Any], dict[str, Any]]],
    strict: bool,
    ignored: frozenset[str],
) -> list[str]:
    """``match`` selects a row by its before image and ``set`` must hold on its after image."""
    pairs = max_matching(len(specs), len(rows), lambda i, j: _update_fits(specs[i], rows[j]))
    reported = set(pairs.values())  # rows already explained by an expectation: never reported twice
    reasons = []
    for i, spec in enumerate(specs):
        label = f"{table}: expected update of {_short(spec.match)} to {_short(spec.set)}"
        if i in pairs:
            before, after = rows[pairs[i]]
            extra = [c for c in _changed(before, after, ignored) if c not in spec.set]
            if strict and extra:
                reasons.append(f"{label}; it also changed {_render_changes(before, after, extra)}")
            continue
        selected = [j for j, (before, _) in enumerate(rows) if fits(spec.match, before)]
        if selected:
            reported.update(selected)
            reasons.append(f"{label}; the row was updated but {explain(spec.set, rows[selected[0]][1])}")
        elif rows:
            best = rows[_closest(spec.match, [before for before, _ in rows])][0]
            reasons.append(
                f"{label}; no updated row matches; closest {_label(best, spec.match)}: {explain(spec.match, best)}"
            )
        else:
            reasons.append(f"{label}; no row was updated")
    if strict:
        for j, (before, after) in enumerate(rows):
            changed = _changed(before, after, ignored)
            if j not in reported and changed:
                reasons.append(
                    f"{table}: unexpected update of {_label(before, {})}: {_render_changes(before, after, changed)}"
                )
    return reasons


def _update_fits(spec: RowUpdate, row: tuple[dict[str, Any], dict[str, Any]]) -> bool:
    return fits(spec.match, row[0]) and fits(spec.set, row[1])


def _changed(before: dict[str, Any], after: dict[str, Any], ignored: frozenset[str]) -> list[str]:
    return sorted(c for c in before.keys() | after.keys() if c not in ignored and before.get(c) != after.get(c))


def _render_changes(before: dict[str, Any], after: dict[str, Any], columns: list[str]) -> str:
    return ", ".join(f"{c}: {before.get(c)!r} -> {after.get(c)!r}" for c in columns)


def _validate_state(check: StateChangeCheck) -> None:
    unknown = [t for t in check.ask_before if t not in _tools()]
    if unknown:
        raise ValueError(f"ask_before names unknown tool(s) {unknown}")
    for specs in (
        *check.insert.values(),
        *check.delete.values(),
        *check.forbid.values(),
        *check.optional_insert.values(),
    ):
        for spec in specs:
            validate_matcher(spec)
    for updates in check.update.values():
        for update in updates:
            validate_matcher(update.match)
            validate_matcher(update.set)


# ---- Agent Behavior ----------------------------------------------------------------------------


def check_agent_behavior(check: AgentBehaviorCheck, trajectory: Trajectory) -> list[str]:
    """The sub-agent was called with a complete handoff, the follow-up came after it, the effects hold,
    and the final answer states every fact of ``answer``.

    The route call is the last successful one whose arguments satisfy ``handoff``; the follow-up must
    come after it (anywhere when no route is expected).
    """
    _validate_behavior(check)
    steps = successful_steps(trajectory)
    reasons: list[str] = []
    anchor: int | None = -1  # position of the route call; -1: the follow-up may come anywhere
    if check.route is not None:
        routed = [p for p, s in enumerate(steps) if s.name == check.route]
        handed = [p for p in routed if fits(check.handoff, steps[p].arguments)]
        if not routed:
            reasons.append(f"route: {check.route} was never called successfully")
        elif not handed:
            best = routed[_closest(check.handoff, [steps[p].arguments for p in routed])]
            reasons.append(
                f"handoff: {check.route} at step {steps[best].index}: {explain(check.handoff, steps[best].arguments)}"
            )
        anchor = (handed or routed or [None])[-1]  # type: ignore[list-item]
    if check.follow_up is not None and anchor is not None:
        reasons += _follow_up_failures(check.follow_up, steps, anchor)
    if check.state is not None:
        reasons += unconfirmed(check.state, steps) + diff_failures(check.state, trajectory.diff)
    return reasons + answer_failures(check.answer, steps)


def _follow_up_failures(call: ExpectedCall, steps: list[Step], anchor: int) -> list[str]:
    if any(_fits(call, s) for s in steps[anchor + 1 :]):
        return []
    early = [s for s in steps[: max(anchor, 0)] if _fits(call, s)]
    if early:
        return [
            f"follow-up {_render_call(call.tool, call.args)} came at step {early[0].index}, "
            f"before the route call at step {steps[anchor].index}"
        ]
    return [_missing_call("follow-up", call, steps[anchor + 1 :])]


def _validate_behavior(check: AgentBehaviorCheck) -> None:
    if check.route is None and check.follow_up is None and check.state is None:
        raise ValueError("agent_behavior check checks nothing: give route, follow_up or state")
    if check.route is None and check.handoff:
        raise ValueError("agent_behavior check has handoff fields but no route")
    if check.route is not None and check.route not in _tools():
        raise ValueError(f"agent_behavior check routes to unknown tool {check.route!r}")
    validate_matcher(check.handoff)
    for matcher in check.answer:
        validate_matcher(matcher)
    if check.follow_up is not None:
        _validate_call(check.follow_up)


# ---- reporting helpers -------------------------------------------------------------------------


def _closest(spec: Any, candidates: Sequence[Any]) -> int:
    """Index of the candidate that fails the fewest of the spec's keys (the first one on ties)."""

    def misses(actual: Any) -> int:
        if not isinstance(spec, dict) or not isinstance(actual, dict):
            return 0 if fits(spec, actual) else 1
        return sum(not fits({key: value}, actual) for key, value in spec.items())

    scores = [misses(c) for c in candidates]
    return scores.index(min(scores))


def _label(row: dict[str, Any], spec: Any) -> str:
    """The row's first column (its key) and the columns the spec talks about."""
    keys = list(row)[:1] + [k for k in (spec if isinstance(spec, dict) else {}) if k in row]
    return _short({k: row[k] for k in dict.fromkeys(keys)})


def _render_call(name: Any, arguments: Any) -> str:
    return f"{name}({_short(arguments)})"


def _short(value: Any, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
