"""The main job: run one planner over one split, print the scores, write results.json and trajectories."""

from __future__ import annotations

import asyncio
import datetime as dt
import gzip
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from experiments.analysis.cost import cell_cost, cost_line, price_of
from experiments.analysis.stats import analyse, result_facts, summary_lines
from experiments.episodes.loop import EpisodeResult, run_many
from experiments.execution.config import (
    CONF_PATH,
    RunConfigError,
    check_config,
    run_condition,
    run_variant,
)
from experiments.plan.selection import SelectionError, selection
from experiments.reporting.console import LOG_NAME, library_logs
from experiments.reporting.progress import episode_progress
from experiments.results.provenance import now, provenance
from experiments.results.store import episode_row
from experiments.results.summary import print_summary, results_document
from planners import build_planner
from sandbox.conditions import expand
from sandbox.suite import load_split, task_path


def run_job(cfg: DictConfig, out_dir: Path) -> Path:
    """Run the configured planner over the configured split; returns the path of results.json."""
    check_config(cfg)
    try:
        planner = build_planner(OmegaConf.to_container(cfg.planner, resolve=True))  # type: ignore[arg-type]
    except ValueError as exc:  # build_planner names the key
        hint = (
            " (mobilepa run starts no vLLM server; mobilepa sweep does on a GPU worker)"
            if cfg.planner.get("kind") == "openai" and cfg.planner.get("base_url") is None
            else ""
        )
        raise RunConfigError(f"{exc}{hint}") from None
    tasks = load_split(cfg.split.file, cfg.split.categories, cfg.split.get("subset"))
    condition = run_condition(cfg)
    if not tasks:
        raise ValueError(f"split {cfg.split.name!r} selects no tasks")
    chosen = selection(cfg)  # a quick run: limit=N, task_ids=[a,b]
    try:
        chosen.check_known((t.task_id for t in tasks), f"split {cfg.split.name!r}")
    except SelectionError as exc:
        raise RunConfigError(str(exc)) from None
    tasks = chosen.apply(tasks)
    out_dir.mkdir(parents=True, exist_ok=True)
    started, started_at = time.perf_counter(), now()
    results: list[EpisodeResult] = []
    ended_at: dict[str, dt.datetime] = {}  # episode key -> when it ended (the store rows' ended_at)

    async def drive() -> None:
        try:
            with episode_progress(len(expand(tasks, condition)), f"{cfg.planner.name} on {cfg.split.name}") as advance:
                async for result in run_many(
                    tasks,
                    planner,
                    concurrency=cfg.concurrency,
                    t_max=cfg.t_max,
                    condition=condition,
                    retrieval_model=run_variant(cfg).model_path,
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
        planner=cfg.planner.name,
        split=cfg.split.name,
        seed=cfg.seed,
        condition=condition,
        verdicts=[r.verdict for r in results],
        wall_s=time.perf_counter() - started,
    )
    doc["provenance"] = provenance(
        task_file=task_path(cfg.split.file),
        started=started_at,
        ended=now(),
        planner_config=OmegaConf.to_container(cfg.planner, resolve=True),  # type: ignore[arg-type]
    )
    facts = [result_facts(r, planner=cfg.planner.name, seed=cfg.seed) for r in results]
    doc["analysis"] = analyse(facts, seed=cfg.seed)
    # tokens per episode, and money when the planner config has a price (mobilepa run starts no server: no GPU-s)
    doc["cost"] = cell_cost(facts, price_of(doc["provenance"]["planner_config"]))
    infra = [r for r in results if r.trajectory.termination == "infra_error"]
    if infra:  # the first by key: what `mobilepa run` names when it exits non-zero
        doc["infra_errors"] = {
            "episodes": len(infra),
            "first": infra[0].key,
            "error": infra[0].trajectory.infra_error,
            "endpoint": cfg.planner.get("base_url") or f"planner {cfg.planner.name}",
        }
    path = out_dir / "results.json"
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    recorded: list[str] = []
    if cfg.get("store") or (cfg.get("tracking") or {}).get("enabled"):
        from experiments.execution.record_run import record_run  # imports the store, which imports this module

        # store=PATH / tracking=mlflow: into the results store (and MLflow) as a one-cell sweep
        with library_logs(
            out_dir / LOG_NAME,
            title="mobilepa run",
            import_mlflow=bool(cfg.tracking.enabled) if cfg.get("tracking") else False,
        ):
            recorded = record_run(
                cfg, results, str(cfg.split.file), task_path(cfg.split.file), started=started_at, ended=ended_at
            )
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


@hydra.main(config_path=CONF_PATH, config_name="config", version_base="1.3")
def main(cfg: DictConfig) -> None:
    """The job; exits 2 on a config mistake, 1 when an episode ended in infra_error (the path still printed)."""
    try:
        path = run_job(cfg, Path(HydraConfig.get().runtime.output_dir))
    except RunConfigError as exc:
        print(f"mobilepa run: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    message = infra_message(json.loads(path.read_text(encoding="utf-8")))
    if message:
        print(f"mobilepa run: {message}", file=sys.stderr, flush=True)
    print(path.resolve())
    if message:
        raise SystemExit(1)
