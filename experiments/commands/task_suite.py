"""What ``mobilepa tasks`` does: build, validate, describe and try the task suite (its arguments are
parsed in ``experiments.commands.tasks``, which imports this module only to run a command)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from experiments.reporting.progress import episode_progress
from sandbox.generator import gates
from sandbox.generator.answers import answer_report, missing_answer
from sandbox.generator.core import BuildError, replay
from sandbox.generator.gates import GateError, Violation
from sandbox.generator.stats import suite_stats, validation_record, write_validation
from sandbox.generator.suite import TOTALS, Slot, allocation, build_slot, load_families, write_suite
from sandbox.suite import TASK_DIR, load_split
from sandbox.tasks import Task, load_tasks
from verification.selfcheck import Outcome, Summary, check_task


def try_families(prefix: str, variants: int, seed: int) -> int:
    """Build ``variants`` drafts of every family whose name starts with ``prefix`` and self-check them."""
    fams = sorted(n for n in load_families() if n.startswith(prefix))
    if not fams:
        print(f"no family starts with {prefix!r}", file=sys.stderr)
        return 2
    seen: set[tuple[str, str]] = set()
    bad = 0
    tally: Counter[str] = Counter()
    gates.COLLECTED.clear()
    for name in fams:
        for i in range(variants):
            slot = Slot(f"try-{name}-{i}", name)
            try:
                task = build_slot(slot, seed, seen)
            except (BuildError, GateError) as exc:
                bad += 1
                print(f"BUILD  {name}[{i}]: {exc}")
                continue
            for o in check_task(task):
                tally[o.check] += 1
                if o.surprise:
                    bad += 1
                    print(f"SURPRISE {name}[{i}] {o.check}: {o.detail[:400]}  | query: {task.query}")
            if missing_answer(task):
                bad += 1
                print(
                    f"NO ANSWER CHECK {name}[{i}]: the gold's answer states no fact its reads returned "
                    f"({task.gold[-1].arguments.get('answer')!r}); state the facts or set Draft.answer"
                )
    found = [v for v in gates.COLLECTED.violations if v.family in fams]
    for v in found:
        print(f"GATE   {v.family} {v.line()}")
    print(
        f"{len(fams)} families x {variants} variants; checks: {dict(sorted(tally.items()))}; problems: {bad}; "
        + _counts_line(found)
    )
    return 1 if bad else 0


def build(out_dir: Path, strict_gates: bool) -> int:
    """Regenerate the task files; the gates' counts follow (with ``strict_gates`` the first violation stops it)."""
    gates.COLLECTED.clear()
    gates.COLLECTED.strict = strict_gates or gates.COLLECTED.strict
    try:
        with episode_progress(2 * sum(TOTALS.values()), "building full and train") as advance:
            written = write_suite(out_dir, progress=lambda _: advance(True, False))
    except GateError as exc:
        print(f"build refused: {exc}", file=sys.stderr)
        return 1
    for path in written.values():
        print(f"wrote {path}")
    full = written.get("full.jsonl")
    if full is not None:
        print(answer_report(load_tasks(full), {s.task_id: s.family for s in allocation()}))
    print(
        _counts_line(gates.COLLECTED.violations)
        + ("" if not gates.COLLECTED.violations else "  (list them: mobilepa tasks gates)")
    )
    return 0


def _counts_line(violations: list[Violation]) -> str:
    return "gates: " + ", ".join(f"{g} {n}" for g, n in gates.gate_counts(violations).items())


def _check_chunk(chunk: list[tuple[Task, str]]) -> tuple[list[Outcome], list[Violation]]:
    """Self-check a chunk of (task, family) and run the per-task gates on it."""
    outcomes = [o for t, _ in chunk for o in check_task(t)]
    return outcomes, [v for t, family in chunk for v in _task_gates(t, family)]


def _task_gates(task: Task, family: str) -> list[Violation]:
    replayed = replay(task)
    return gates.task_violations(family, task, replayed.context, replayed.results)


def validate(split: str, jobs: int, record: Path | None = None) -> int:
    """Self-validate a task file: oracle passes, noop fails, every perturbation is caught.

    With ``record`` the counts are written there for the dataset card; without, nothing is written
    (an installed package's folder, or a checkout under test, stays as it was)."""
    tasks = load_split(split)
    families = family_of_slots(split)
    summary = Summary()
    violations = gates.suite_violations()
    chunks = [[(t, families[t.task_id]) for t in tasks[i : i + 25]] for i in range(0, len(tasks), 25)]
    with episode_progress(len(tasks), f"validating {split}") as advance, ProcessPoolExecutor(max_workers=jobs) as pool:
        for chunk, (outcomes, found) in zip(chunks, pool.map(_check_chunk, chunks)):
            summary.add(outcomes)
            violations += found
            for task, _ in chunk:
                advance(not any(o.surprise for o in outcomes if o.task_id == task.task_id), False)
    print(f"{'check':<28}{'runs':>8}{'surprises':>11}")
    for check, runs, bad in summary.table():
        print(f"{check:<28}{runs:>8}{bad:>11}")
    oracle = [o for o in summary.outcomes if o.check.startswith("oracle/")]
    print(f"oracle trajectories: {len(oracle)}, passed: {sum(not o.surprise for o in oracle)}")
    alts = [o for o in summary.outcomes if o.check.startswith("alt/")]
    wrong = [o for o in summary.outcomes if o.check.startswith("wrong/")]
    print(
        f"alternatives that must pass: {len(alts)}, failed: {sum(o.surprise for o in alts)}; "
        f"wrong endings that must fail: {len(wrong)}, passed: {sum(o.surprise for o in wrong)}"
    )
    unanswered = [t for t in tasks if missing_answer(t)]
    print(answer_report(tasks, families))
    if record is not None:  # the dataset card shows these counts (sandbox.generator.stats)
        counts = validation_record(tasks, summary.table(), gates.gate_counts(violations))
        print(f"recorded in {write_validation(counts, record)}")
    for o in summary.surprises[:50]:
        print(f"SURPRISE {o.task_id} {o.check}: {o.detail[:300]}")
    print(
        _counts_line(violations)
        + (f"  (each must be 0; list them: mobilepa tasks gates --split {split})" if violations else "")
    )
    if summary.surprises or violations or unanswered:
        print(
            f"{len(summary.surprises)} surprise(s), {len(violations)} gate violation(s), "
            f"{len(unanswered)} information task(s) without an answer check",
            file=sys.stderr,
        )
        return 1
    print("every task behaves as promised and passes the gates")
    return 0


def committed_splits() -> dict[str, list[Task]]:
    """Every split of the committed suite, each file parsed once (the others are drawn from ``full``)."""
    full = load_split("full.jsonl")
    splits = {
        "full": full,
        "mini": [t for t in full if t.tags.get("subset") == "mini"],
        "train": load_split("train.jsonl"),
    }
    for category in TOTALS:
        splits[category] = [t for t in full if t.category == category]
    return splits


def stats(as_json: bool) -> int:
    doc = suite_stats(committed_splits())
    if as_json:
        print(json.dumps(doc, sort_keys=True))
        return 0
    print(f"{doc['tasks']} tasks, {doc['trajectories']} trajectories ({doc['skill_trajectories']} skill)")
    for axis, counts in doc["by"].items():
        if counts:
            print(f"{axis:>14}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print(f"{'memory cells':>14}: " + ", ".join(f"{k} {v}" for k, v in doc["memory_cells"].items()))
    print(f"{'splits':>14}: " + ", ".join(f"{k} {v}" for k, v in doc["splits"].items()))
    for key, value in doc["coverage"].items():
        print(f"{key:>14}: {value}")
    print(f"{'recall@15':>14}: {doc['retrieval']}")
    print(
        f"{'answer checks':>14}: {doc['answers']['with_answer_check']} of {doc['answers']['information_tasks']} "
        "information tasks"
    )
    check = doc["selfcheck"]
    if check is None:
        print(f"{'self-check':>14}: not recorded for these tasks (run mobilepa tasks validate --record)")
    else:
        for key in ("oracle", "noop", "perturbations", "alternatives", "wrong_endings"):
            print(f"{key:>14}: {check[key]['runs']} runs, {check[key]['surprises']} surprises")
        print(f"{'gates':>14}: " + ", ".join(f"{g} {n}" for g, n in check["gates"].items()))
    return 0


def family_of_slots(split: str) -> dict[str, str]:
    """Task id -> the family its allocation slot names (``train`` ids carry the ``train-`` prefix); a
    task no slot names (a hand-written file) is attributed to its file."""
    slots = {s.task_id: s.family for s in allocation("train-" if split.startswith("train") else "")}
    return {t.task_id: slots.get(t.task_id, f"({split})") for t in load_split(split)}


def committed_violations(split: str) -> list[Violation]:
    """The suite-wide gates, and the per-task gates on every task of a committed file (gold replayed)."""
    families = family_of_slots(split)
    found = gates.suite_violations()
    for task in load_split(split):
        replayed = replay(task)
        found += gates.task_violations(families[task.task_id], task, replayed.context, replayed.results)
    return found


def drafted_violations(prefix: str, variants: int, seed: int) -> list[Violation]:
    """Build ``variants`` fresh drafts of every family starting with ``prefix`` (as ``tasks try``) and
    return what the gates found in them; a draft that does not build is reported as a build problem."""
    fams = sorted(n for n in load_families() if n.startswith(prefix))
    if not fams:
        raise ValueError(f"no family starts with {prefix!r}")
    seen: set[tuple[str, str]] = set()
    gates.COLLECTED.clear()
    gates.COLLECTED.strict = False
    for name in fams:
        for i in range(variants):
            try:
                build_slot(Slot(f"try-{name}-{i}", name), seed, seen)
            except BuildError as exc:
                print(f"BUILD  {name}[{i}]: {exc}", file=sys.stderr)
    return [v for v in gates.COLLECTED.violations if v.family.startswith(prefix)]


def gates_report(violations: list[Violation], as_json: bool) -> str:
    """Per-gate counts, then every violation grouped by family (most first)."""
    grouped = gates.by_family(violations)
    if as_json:
        return json.dumps(
            {
                "counts": gates.gate_counts(violations),
                "families": {f: [v.to_json() for v in vs] for f, vs in grouped.items()},
            },
            sort_keys=True,
        )
    lines = ["gate counts: " + ", ".join(f"{g} {n}" for g, n in gates.gate_counts(violations).items())]
    for fam, found in grouped.items():
        per_gate = Counter(v.gate for v in found)
        where = {gates.SCHEMAS: "tool(s)", gates.WORLDS: "world(s)"}.get(fam, "task(s)")
        lines.append(
            f"\n{fam}: {len(found)} violation(s) in {len({v.task_id for v in found})} {where} ("
            + ", ".join(f"{g} {n}" for g, n in sorted(per_gate.items()))
            + ")"
        )
        lines += [f"  {v.line()}" for v in found]
    return "\n".join(lines)


def run_gates(family: str | None, split: str, variants: int, seed: int, as_json: bool) -> int:
    """``mobilepa tasks gates``: every gate violation of a task file, or of fresh drafts of some families."""
    try:
        found = drafted_violations(family, variants, seed) if family is not None else committed_violations(split)
    except (ValueError, FileNotFoundError) as exc:
        print(exc, file=sys.stderr)
        return 2
    print(gates_report(found, as_json))
    return 1 if found else 0


CARD = TASK_DIR / "CARD.md"
TASK_SCHEMA = TASK_DIR / "task.schema.json"


def task_json_schema() -> str:
    """The task record's JSON Schema, exported from the model that loads task files (one declaration)."""
    return json.dumps(Task.model_json_schema(), indent=1, sort_keys=True) + "\n"


def card() -> int:
    """Write the dataset card (markdown with the counts), its chart and the task record's JSON Schema
    next to the task files."""
    from experiments.reporting.plots import suite_composition
    from sandbox.generator.stats import card_markdown

    splits = committed_splits()
    (TASK_DIR / "composition.png").write_bytes(suite_composition(splits["full"]))
    CARD.write_text(card_markdown(suite_stats(splits)), encoding="utf-8")
    TASK_SCHEMA.write_text(task_json_schema(), encoding="utf-8")
    print(f"wrote {CARD}, {TASK_DIR / 'composition.png'} and {TASK_SCHEMA}")
    return 0
