"""The three verification buckets. Each checker is ``(check, trajectory) -> reasons``; no reasons = pass.

Checkers read only the trajectory: the planner's steps with their envelopes and the final state diff
``D_T - D_0``. A malformed check (bad matcher, unknown tool) raises ValueError: a broken task must
never silently pass or fail.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sandbox.domains  # noqa: F401  (registers every tool, so REGISTRY knows which ones mutate state)
from sandbox.changes import StateDiff, TableDiff
from sandbox.episode import Step, Trajectory
from sandbox.schema import WORLD, metadata
from sandbox.tasks import AgentBehaviorCheck, ExpectedCall, RowUpdate, StateChangeCheck, ToolCallCheck
from sandbox.tooling import REGISTRY
from verification.alignment import max_matching
from verification.matchers import explain, fits, validate_matcher

DEFAULT_IGNORED_COLUMNS = frozenset({"created_at", "updated_at"})
# Bookkeeping the framework writes on every run; changes there are never collateral damage.
DEFAULT_IGNORED_TABLES = frozenset({
    "Operation_logs", "loaded_skills", "user_interactions", "final_answers", "subagent_jobs",
    "id_sequences",
})


def successful_steps(trajectory: Trajectory) -> list[Step]:
    """The planner's steps whose envelope says success: failed calls change nothing and prove nothing."""
    return [s for s in trajectory.steps if s.envelope.get("Status") == "success"]


# ---- Tool Call ---------------------------------------------------------------------------------


def check_tool_calls(check: ToolCallCheck, trajectory: Trajectory) -> list[str]:
    """Every expected call appears as a distinct successful call (in order if ``ordered``).

    Unexpected read-only calls are free (valid alternative paths); an unexpected successful mutating
    call is an unnecessary side effect and fails the check.
    """
    for call in check.calls:
        _validate_call(call)
    steps = successful_steps(trajectory)
    used, reasons = (_match_in_order if check.ordered else _match_any_order)(check.calls, steps)
    for pos, step in enumerate(steps):
        if pos not in used and _is_mutating(step.name):
            reasons.append(f"unexpected side effect at step {step.index}: {_render_call(step.name, step.arguments)}")
    return reasons


def _match_in_order(calls: Sequence[ExpectedCall], steps: list[Step]) -> tuple[set[int], list[str]]:
    """Greedy earliest match keeps the most room for later calls, so it finds an ordered match if any exists."""
    used: set[int] = set()
    reasons: list[str] = []
    start = 0
    for n, call in enumerate(calls, start=1):
        pos = next((p for p in range(start, len(steps)) if _fits(call, steps[p])), None)
        if pos is None:
            earlier = [steps[p] for p in range(start) if p not in used and _fits(call, steps[p])]
            reasons.append(_missing_call(f"expected call #{n}", call, steps, earlier))
        else:
            used.add(pos)
            start = pos + 1
    return used, reasons


def _match_any_order(calls: Sequence[ExpectedCall], steps: list[Step]) -> tuple[set[int], list[str]]:
    pairs = max_matching(len(calls), len(steps), lambda i, j: _fits(calls[i], steps[j]))
    reasons = [_missing_call(f"expected call #{i + 1}", call, steps, [])
               for i, call in enumerate(calls) if i not in pairs]
    return set(pairs.values()), reasons


def _fits(call: ExpectedCall, step: Step) -> bool:
    return step.name == call.tool and fits(call.args, step.arguments)


def _missing_call(what: str, call: ExpectedCall, steps: list[Step], earlier: list[Step]) -> str:
    """Why an expected call found no partner: out of order, wrong arguments, or never made."""
    label = f"{what} {_render_call(call.tool, call.args)}"
    if earlier:
        return f"{label}: only made out of order (step {earlier[0].index}, before the previous expected call)"
    same_tool = [s for s in steps if s.name == call.tool]
    if not same_tool:
        return f"{label}: never called successfully"
    best = same_tool[_closest(call.args, [s.arguments for s in same_tool])]
    return f"{label}: wrong arguments at step {best.index}: {explain(call.args, best.arguments)}"


def _is_mutating(name: Any) -> bool:
    """A tool the registry does not know is treated as mutating: nothing shows it was harmless."""
    spec = REGISTRY.get(name) if isinstance(name, str) else None
    return spec is None or spec.mutating


def _validate_call(call: ExpectedCall) -> None:
    if call.tool not in REGISTRY:
        raise ValueError(f"check expects unknown tool {call.tool!r}")
    validate_matcher(call.args)


# ---- State Change ------------------------------------------------------------------------------


def check_state_change(check: StateChangeCheck, trajectory: Trajectory) -> list[str]:
    """The trajectory's final diff satisfies the expected diff (see ``diff_failures``)."""
    return diff_failures(check, trajectory.diff)


def diff_failures(check: StateChangeCheck, diff: StateDiff) -> list[str]:
    """Compare ``D_T - D_0`` with the expected diff; the reasons name the table, the expectation and the closest row.

    Expectations are checked in every table, ignored ones included; ``ignore_tables`` and
    ``ignore_columns`` only decide what counts as collateral damage under ``strict``.
    """
    _validate_state(check)
    ignored_tables = DEFAULT_IGNORED_TABLES | set(check.ignore_tables)
    ignored_columns = DEFAULT_IGNORED_COLUMNS | set(check.ignore_columns)
    reasons: list[str] = []
    for table in sorted(set(diff) | set(check.insert) | set(check.update) | set(check.delete)):
        changes = diff.get(table, TableDiff())
        # World catalogues (stock, seats, prices) move with scenario events: diffed only where asked.
        is_world = table in metadata.tables and metadata.tables[table].info["kind"] == WORLD
        strict = check.strict and table not in ignored_tables and not is_world
        reasons += _align_rows(table, "inserted", check.insert.get(table, []), changes.inserted, strict)
        reasons += _align_updates(table, check.update.get(table, []), changes.updated, strict, ignored_columns)
        reasons += _align_rows(table, "deleted", check.delete.get(table, []), changes.deleted, strict)
    for table, specs in sorted(check.forbid.items()):
        changes = diff.get(table, TableDiff())
        rows = changes.inserted + [after for _, after in changes.updated]
        reasons += [f"{table}: forbidden change {_label(row, spec)} matches forbid {_short(spec)}"
                    for spec in specs for row in rows if fits(spec, row)]
    return reasons


def _align_rows(table: str, kind: str, specs: list[dict[str, Any]], rows: list[dict[str, Any]],
                strict: bool) -> list[str]:
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
        reasons.append(f"{table}: expected a row {kind} like {_short(spec)}; closest {kind} row "
                       f"{_label(best, spec)}: {explain(spec, best)}")
    if strict:
        reasons += [f"{table}: unexpected row {kind}: {_short(row)}" for j, row in enumerate(rows) if j not in taken]
    return reasons


def _align_updates(table: str, specs: list[RowUpdate], rows: list[tuple[dict[str, Any], dict[str, Any]]],
                   strict: bool, ignored: frozenset[str]) -> list[str]:
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
            reasons.append(f"{label}; no updated row matches; closest {_label(best, spec.match)}: "
                           f"{explain(spec.match, best)}")
        else:
            reasons.append(f"{label}; no row was updated")
    if strict:
        for j, (before, after) in enumerate(rows):
            changed = _changed(before, after, ignored)
            if j not in reported and changed:
                reasons.append(f"{table}: unexpected update of {_label(before, {})}: "
                               f"{_render_changes(before, after, changed)}")
    return reasons


def _update_fits(spec: RowUpdate, row: tuple[dict[str, Any], dict[str, Any]]) -> bool:
    return fits(spec.match, row[0]) and fits(spec.set, row[1])


def _changed(before: dict[str, Any], after: dict[str, Any], ignored: frozenset[str]) -> list[str]:
    return sorted(c for c in before.keys() | after.keys() if c not in ignored and before.get(c) != after.get(c))


def _render_changes(before: dict[str, Any], after: dict[str, Any], columns: list[str]) -> str:
    return ", ".join(f"{c}: {before.get(c)!r} -> {after.get(c)!r}" for c in columns)


def _validate_state(check: StateChangeCheck) -> None:
    for specs in (*check.insert.values(), *check.delete.values(), *check.forbid.values()):
        for spec in specs:
            validate_matcher(spec)
    for updates in check.update.values():
        for update in updates:
            validate_matcher(update.match)
            validate_matcher(update.set)


# ---- Agent Behavior ----------------------------------------------------------------------------


def check_agent_behavior(check: AgentBehaviorCheck, trajectory: Trajectory) -> list[str]:
    """The sub-agent was called with a complete handoff, the follow-up came after it, the effects hold.

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
            reasons.append(f"handoff: {check.route} at step {steps[best].index}: "
                           f"{explain(check.handoff, steps[best].arguments)}")
        anchor = (handed or routed or [None])[-1]
    if check.follow_up is not None and anchor is not None:
        reasons += _follow_up_failures(check.follow_up, steps, anchor)
    if check.state is not None:
        reasons += diff_failures(check.state, trajectory.diff)
    return reasons


def _follow_up_failures(call: ExpectedCall, steps: list[Step], anchor: int) -> list[str]:
    if any(_fits(call, s) for s in steps[anchor + 1:]):
        return []
    early = [s for s in steps[:max(anchor, 0)] if _fits(call, s)]
    if early:
        return [f"follow-up {_render_call(call.tool, call.args)} came at step {early[0].index}, "
                f"before the route call at step {steps[anchor].index}"]
    return [_missing_call("follow-up", call, steps[anchor + 1:], [])]


def _validate_behavior(check: AgentBehaviorCheck) -> None:
    if check.route is None and check.follow_up is None and check.state is None:
        raise ValueError("agent_behavior check checks nothing: give route, follow_up or state")
    if check.route is None and check.handoff:
        raise ValueError("agent_behavior check has handoff fields but no route")
    if check.route is not None and check.route not in REGISTRY:
        raise ValueError(f"agent_behavior check routes to unknown tool {check.route!r}")
    validate_matcher(check.handoff)
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
