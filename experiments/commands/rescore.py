"""``mobilepa rescore``: judge the trajectories already in a results store again with the current
verifier, calling no planner, so a verifier fix never forces anyone to re-run a (GPU) sweep.

Each stored trajectory is verified against its task as the task file holds it now; the row's verdict,
gates and reasons are replaced and it records the verifier version that judged it. When the task
file changed since the sweep, a trajectory is judged again only if what its episode ran on (the
query, history, world, offered tools and skills, simulated user, events; the gold for planners that
replay it) is unchanged, by the fingerprint each row keeps; otherwise the episode itself would differ,
and the command refuses, or with ``--drop-changed`` deletes those rows so the next sweep runs them.
The command prints which verdicts changed and each cell's Overall before and after, and updates the
MLflow runs of the sweeps that wrote the changed cells when they were tracked.

A store judged by an older ``VERIFIER_VERSION`` must be rescored before its scores are read or
compared: its verdicts were given by rules that have changed since (``stale_verdicts``; `mobilepa
report` says so).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.results.store import (
    GOLD_PLANNERS,
    Key,
    ResultsStore,
    StoreError,
    episode_fingerprint,
    file_sha256,
    record_key,
    record_verdict,
)
from experiments.results.summary import results_document
from sandbox.changes import TableDiff
from sandbox.episode import Step, Trajectory
from sandbox.suite import TASK_DIR
from sandbox.tasks import Task, load_tasks
from verification import VERIFIER_VERSION
from verification.verify import Verdict, verify

Cell = tuple[str, str, str, int]


def stale_verdicts(rows: Sequence[dict[str, Any]], store: Path | str) -> str | None:
    """One line when some rows were judged by another verifier than this one (a row stored before
    versions were recorded has none): their verdicts may differ under the current rules."""
    old = sorted({str(r.get("verifier_version") or "unrecorded") for r in rows} - {VERIFIER_VERSION})
    if not old:
        return None
    n = sum(str(r.get("verifier_version") or "unrecorded") in old for r in rows)
    return (
        f"{n} episode(s) were judged by verifier {', '.join(old)}, not {VERIFIER_VERSION}: "
        f"run `mobilepa rescore --store {store}` before reading or comparing their scores"
    )


class RescoreRefused(RuntimeError):
    """Stored episodes ran tasks that changed beyond their checks; the message names them and what to do."""


@dataclass(frozen=True)
class Change:
    cell: Cell
    key: str
    before: str  # pass | fail | unscorable
    after: str
    reason: str | None  # the first reason of the new verdict (or of the old one, for a new pass)


@dataclass(frozen=True)
class CellScores:
    cell: str
    episodes: int
    before: float | None  # Overall, percent; None when nothing was scorable
    after: float | None
    changed: int  # verdicts that changed (pass, fail or unscorable)


@dataclass
class RescoreOutcome:
    rescored: int = 0
    changes: list[Change] = field(default_factory=list)
    cells: list[CellScores] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # keys deleted (their tasks changed): the next sweep runs them
    mlflow: list[str] = field(default_factory=list)  # what happened to each tracked sweep's runs


def trajectory_from_json(doc: dict[str, Any]) -> Trajectory:
    """The ``Trajectory`` a stored row's trajectory JSON was written from."""
    steps = [
        Step(s["index"], s["name"], s["arguments"], s["envelope"], s.get("latency_s", 0.0), s.get("planner", {}))
        for s in doc["steps"]
    ]
    diff = {
        table: TableDiff(d["inserted"], [(u["before"], u["after"]) for u in d["updated"]], d["deleted"])
        for table, d in doc["diff"].items()
    }
    return Trajectory(
        doc["task_id"],
        steps,
        doc["termination"],
        diff,
        doc["subagent_jobs"],
        doc["internal_errors"],
        doc.get("infra_error"),
        doc.get("context_overflow"),
    )


def _label(verdict: Verdict) -> str:
    return "unscorable" if not verdict.scorable else "pass" if verdict.passed else "fail"


def _overall(verdicts: Sequence[Verdict], cell: Cell) -> float | None:
    planner, split, condition, seed = cell
    return results_document(
        planner=planner, split=split, seed=seed, condition=condition, verdicts=verdicts, wall_s=0.0
    )["overall"]


def rescore(store: ResultsStore, *, split: str | None = None, drop_changed: bool = False) -> RescoreOutcome:
    """Judge every stored trajectory (of ``split``, or all) again; see the module's docstring."""
    recorded = store.datasets()
    splits = [split] if split else sorted(recorded)
    if split and split not in recorded:
        raise RescoreRefused(f"{store.path} holds no episodes of split {split!r}; it holds {', '.join(recorded)}")
    settings = store.cell_settings()
    plans: list[tuple[str, str, str, dict[str, Task], list[Key]]] = []
    for name in splits:  # everything is checked before anything is written
        file, sha = recorded[name]
        path = TASK_DIR / file
        if not path.is_file():
            raise RescoreRefused(f"split {name!r}: its task file {path} is gone")
        tasks = {t.task_id: t for t in load_tasks(path)}
        now = file_sha256(path)
        stale = [] if now == sha else _stale(store.rows(split=name), tasks, settings)
        if stale and not drop_changed:
            raise RescoreRefused(
                f"split {name!r}: {len(stale)} stored episode(s) ran tasks that changed since beyond their checks "
                f"(e.g. {'/'.join(map(str, stale[0]))}): judging them again would not judge what the tasks ask now; "
                "`mobilepa rescore --drop-changed` deletes them (the next sweep runs them again), or use another store"
            )
        plans.append((name, file, now, tasks, stale))
    outcome = RescoreOutcome()
    for name, file, now, tasks, stale in plans:
        dropped = set(stale)
        cells = sorted({record_key(r)[:4] for r in store.rows(split=name)})
        verdicts: list[dict[str, Any]] = []
        for cell in cells:  # one cell's trajectories in memory at a time
            planner, _, condition, seed = cell
            rows = [
                r
                for r in store.rows(with_trajectories=True, planner=planner, split=name, condition=condition, seed=seed)
                if record_key(r) not in dropped
            ]
            before, after = [record_verdict(r) for r in rows], []
            changed = 0
            for row, old in zip(rows, before):
                task = tasks[row["task_id"].partition("@")[0]]
                new = verify(task, trajectory_from_json(json.loads(gzip.decompress(row["trajectory"]))))
                after.append(new)
                verdicts.append(
                    {
                        **{k: row[k] for k in ("planner", "split", "condition", "seed", "task_id")},
                        "verdict": _label(new),
                        "passed": new.passed,
                        "checker_passed": new.checker_passed,
                        "memory_gate": new.memory_gate,
                        "skill_gate": new.skill_gate,
                        "scorable": new.scorable,
                        "reasons": json.dumps(list(new.reasons)),
                        "verifier_version": VERIFIER_VERSION,
                        "dataset_hash": now,
                    }
                )
                if _label(new) != _label(old):
                    changed += 1
                    reasons = new.reasons or old.reasons
                    outcome.changes.append(
                        Change(
                            cell,
                            "/".join(map(str, record_key(row))),
                            _label(old),
                            _label(new),
                            reasons[0] if reasons else None,
                        )
                    )
            outcome.rescored += len(rows)
            label = f"{planner}/{name}/{condition}/seed{seed}"
            outcome.cells.append(CellScores(label, len(rows), _overall(before, cell), _overall(after, cell), changed))
        store.rejudge(name, file, now, verdicts, drop=sorted(dropped))
        outcome.dropped += ["/".join(map(str, k)) for k in sorted(dropped)]
    return outcome


def _stale(rows: list[dict[str, Any]], tasks: dict[str, Task], settings: dict[Cell, dict[str, Any]]) -> list[Key]:
    """Keys whose episode ran on a task that is gone or differs now in what an episode runs on."""
    stale = []
    for row in rows:
        task = tasks.get(row["task_id"].partition("@")[0])
        kind = (settings.get(record_key(row)[:4]) or {}).get("planner", {}).get("kind", row["planner"])
        if task is None or row["task_hash"] != episode_fingerprint(task, with_gold=kind in GOLD_PLANNERS):
            stale.append(record_key(row))
    return stale


def update_mlflow(store: ResultsStore, changed_cells: set[Cell]) -> list[str]:
    """Log again the tracked sweeps that wrote a changed cell (metrics, artifacts, statuses); one line each."""
    from omegaconf import OmegaConf

    from experiments.commands.plans import plan_sweep
    from experiments.plan.model import SweepConfigError
    from experiments.reporting.tracking import MLFLOW_ERRORS, log_sweep, mlflow_failure, start_tracking

    lines = []
    for key, config in store.recorded_sweeps():
        if not (config.get("tracking") or {}).get("enabled"):
            continue
        try:
            plan = plan_sweep(OmegaConf.create(config))
        except SweepConfigError as exc:
            lines.append(f"sweep {config.get('name')} ({key}): not logged again: {exc}")
            continue
        if not changed_cells & {(c.planner, c.split, c.condition, c.seed) for c in plan.cells}:
            continue
        if plan.sweep_key != key:
            lines.append(
                f"sweep {config.get('name')} ({key}): its task files changed since it ran: its MLflow runs "
                "are left as they were (a new sweep logs new ones)"
            )
            continue
        try:
            parent = log_sweep(start_tracking(plan), store)
        except MLFLOW_ERRORS as exc:
            lines.append(
                f"sweep {config.get('name')} ({key}): MLflow failed ({mlflow_failure(exc)}); "
                "`mobilepa report --sync` logs it when MLflow is back"
            )
            store.record_sweep(key, config)  # not logged: --sync picks it up
            continue
        lines.append(f"sweep {config.get('name')}: MLflow runs updated (parent run {parent})")
    return lines


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def main(args: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="mobilepa rescore", description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default="outputs/results.db", help="results store (SQLite)")
    parser.add_argument("--split", help="only this split")
    parser.add_argument(
        "--drop-changed",
        action="store_true",
        help="delete the stored episodes whose tasks changed beyond their checks (the next sweep "
        "runs them again) instead of refusing",
    )
    parser.add_argument("--no-mlflow", action="store_true", help="leave the tracked sweeps' MLflow runs as they are")
    ns = parser.parse_args(args)
    if not Path(ns.store).is_file():
        print(f"mobilepa rescore: no results store at {ns.store}", file=sys.stderr)
        return 2
    try:
        store = ResultsStore(Path(ns.store))
    except StoreError as exc:
        print(f"mobilepa rescore: {exc}", file=sys.stderr)
        return exc.exit_code
    try:
        try:
            outcome = rescore(store, split=ns.split, drop_changed=ns.drop_changed)
        except (RescoreRefused, StoreError) as exc:
            print(f"mobilepa rescore: {exc}", file=sys.stderr)
            return getattr(exc, "exit_code", 2)  # 1: a full disk
        changed_cells = {c.cell for c in outcome.changes}
        _print(ns.store, outcome)
        if changed_cells and not ns.no_mlflow:
            outcome.mlflow = update_mlflow(store, changed_cells)
            for line in outcome.mlflow:
                print(f"MLflow: {line}")
    finally:
        store.close()
    return 1 if any("MLflow failed" in line for line in outcome.mlflow) else 0


def _print(store: str, outcome: RescoreOutcome) -> None:
    print(
        f"rescored {outcome.rescored} stored episode(s) of {store} with verifier {VERIFIER_VERSION}: "
        f"{len(outcome.changes)} verdict(s) changed" + (f", {len(outcome.dropped)} dropped" if outcome.dropped else "")
    )
    width = max([len(c.cell) for c in outcome.cells] + [4])
    print(f"{'cell':<{width}}  episodes  Overall before  after   changed")
    for c in outcome.cells:
        print(f"{c.cell:<{width}}  {c.episodes:>8}  {_pct(c.before):>14}  {_pct(c.after):>6}  {c.changed:>7}")
    by_turn: dict[str, int] = defaultdict(int)
    for change in outcome.changes:
        by_turn[f"{change.before} → {change.after}"] += 1
        print(
            f"changed {change.key}: {change.before} → {change.after}" + (f" ({change.reason})" if change.reason else "")
        )
    if by_turn:
        print("verdicts: " + ", ".join(f"{n} {turn}" for turn, n in sorted(by_turn.items())))
    for key in outcome.dropped:
        print(f"dropped {key}: its task changed beyond its checks; the next sweep runs it again")
