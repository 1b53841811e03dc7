"""The main job: run one planner over one split (a one-cell plan), print the scores, write results.json and
trajectories."""

from __future__ import annotations

import asyncio
import datetime as dt
import gzip
import json
import shlex
import time
from pathlib import Path
from typing import Any

from experiments.analysis.cost import cell_cost, cost_line, price_of
from experiments.analysis.stats import analyse, result_facts, summary_lines
from experiments.episodes.loop import EpisodeResult, run_many
from experiments.execution.record_run import check_recording, record_run
from experiments.plan.model import Plan
from experiments.reporting.console import LOG_NAME, library_logs
from experiments.reporting.progress import episode_progress
from experiments.results.provenance import now, provenance
from experiments.results.store import episode_row
from experiments.results.summary import print_summary, results_document
from planners import MODEL_KINDS, build_planner
from planners.preflight import PreflightError, first_observations, preflight
from sandbox.suite import load_split, task_path


def run_job(plan: Plan, out_dir: Path) -> Path:
    """Run the plan's one cell in this process: its planner over its episode keys; write the trajectories,
    the episodes and results.json into ``out_dir`` (and the store and MLflow when the plan has them);
    returns the path of results.json."""
    (cell,) = plan.cells
    condition = cell.condition
    keys = plan.task_ids[(cell.split, condition)]
    wanted = {key.partition("@")[0] for key in keys}
    tasks = [t for t in load_split(cell.split_file, cell.categories, cell.subset) if t.task_id in wanted]
    planner = build_planner(dict(cell.planner_config))
    if cell.planner_config.get("kind") in MODEL_KINDS:  # the endpoint and the prompt budget, before any episode
        budget = asyncio.run(
            preflight(dict(cell.planner_config), first_observations(tasks, condition, keys, cell.retrieval_model))
        )
        print(budget.summary(), flush=True)
        if (refusal := budget.refusal()) and not plan.work.allow_prompt_overflow:
            raise PreflightError(refusal)
    if plan.store is not None:
        check_recording(plan)
    out_dir.mkdir(parents=True, exist_ok=True)
    started, started_at = time.perf_counter(), now()
    results: list[EpisodeResult] = []
    ended_at: dict[str, dt.datetime] = {}  # episode key -> when it ended (the store rows' ended_at)

    async def drive() -> None:
        try:
            with episode_progress(len(keys), f"{cell.planner} on {cell.split}") as advance:
                async for result in run_many(
                    tasks,
                    planner,
                    concurrency=cell.concurrency,
                    t_max=cell.t_max,
                    condition=condition,
                    retrieval_model=cell.retrieval_model,
                ):
                    results.append(result)
                    ended_at[result.key or result.task.task_id] = dt.datetime.now(dt.UTC)
                    advance(result.verdict.passed, not result.verdict.scorable)
        finally:
            close = getattr(planner, "aclose", None)
            if close is not None:  # planners holding HTTP sessions close them in the loop that used them
                await close()

    asyncio.run(drive())
    results.sort(key=lambda r: r.key)
    with gzip.open(out_dir / "trajectories.jsonl.gz", "wt", encoding="utf-8") as fh:
        for r in results:
            fh.write(json.dumps(r.trajectory.to_json(), ensure_ascii=False, sort_keys=True, default=str) + "\n")
    with (out_dir / "episodes.jsonl").open("w", encoding="utf-8") as fh:
        for r in results:
            fh.write(json.dumps(episode_row(r), sort_keys=True) + "\n")
    doc = results_document(
        planner=cell.planner,
        split=cell.split,
        seed=cell.seed,
        condition=condition,
        verdicts=[r.verdict for r in results],
        wall_s=time.perf_counter() - started,
    )
    doc["provenance"] = provenance(
        task_file=task_path(cell.split_file),
        started=started_at,
        ended=now(),
        planner_config=dict(cell.planner_config),
    )
    facts = [result_facts(r, planner=cell.planner, seed=cell.seed) for r in results]
    doc["analysis"] = analyse(facts, seed=cell.seed)
    # tokens per episode, and money when the planner config has a price (mobilepa run starts no server: no GPU-s)
    doc["cost"] = cell_cost(facts, price_of(doc["provenance"]["planner_config"]))
    infra = [r for r in results if r.trajectory.termination == "infra_error"]
    if infra:  # the first by key: what `mobilepa run` names when it exits non-zero
        doc["infra_errors"] = {
            "episodes": len(infra),
            "first": infra[0].key,
            "error": infra[0].trajectory.infra_error,
            "endpoint": cell.planner_config.get("base_url") or f"planner {cell.planner}",
        }
    path = out_dir / "results.json"
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    recorded: list[str] = []
    if plan.store is not None:  # store=PATH / tracking=mlflow: into the results store (and MLflow) as a one-cell sweep
        with library_logs(out_dir / LOG_NAME, title="mobilepa run", import_mlflow=plan.tracking.enabled):
            recorded = record_run(plan, results, started=started_at, ended=ended_at)
    if len(infra) == len(results):  # no table: it would be empty
        print(f"all {len(results)} episodes ended in infra_error: nothing was scored")
    else:
        print_summary(doc)
        for line in summary_lines(doc["analysis"]):
            print(line)
        if (spent := cost_line(doc["cost"])) is not None:
            print(spent)
    for line in recorded:
        print(line)
    print(f"episodes: mobilepa view {shlex.quote(str(out_dir))} [task_id]")
    return path


def infra_message(doc: dict[str, Any]) -> str | None:
    """One line naming the first infra_error episode, its endpoint and the error; None when there was none."""
    infra = doc.get("infra_errors")
    if not infra:
        return None
    where = "" if infra["endpoint"] in (infra["error"] or "") else f" at {infra['endpoint']}"
    return (
        f"{infra['episodes']} of {doc['episodes']} episode(s) ended in infra_error and were not scored; "
        f"first: {infra['first']}{where}: {infra['error']}"
    )
