"""The main job: run one planner over one split, print the scores, write results.json and trajectories."""

from __future__ import annotations

import asyncio
import gzip
import json
import time
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from experiments.analysis import analyse, result_facts, summary_lines
from experiments.loop import EpisodeResult, run_many
from experiments.progress import episode_progress
from experiments.provenance import now, provenance
from experiments.report import print_summary, results_document
from planners import build_planner
from sandbox.conditions import expand
from sandbox.suite import TASK_DIR, load_split

CONF_DIR = str(Path(__file__).resolve().parent.parent / "conf")


def run_job(cfg: DictConfig, out_dir: Path) -> Path:
    """Run the configured planner over the configured split; returns the path of results.json."""
    planner = build_planner(OmegaConf.to_container(cfg.planner, resolve=True))  # type: ignore[arg-type]
    tasks = load_split(cfg.split.file, cfg.split.categories, cfg.split.get("subset"))
    condition = str(cfg.condition.name)
    if not tasks:
        raise ValueError(f"split {cfg.split.name!r} selects no tasks")
    out_dir.mkdir(parents=True, exist_ok=True)
    started, started_at = time.perf_counter(), now()
    results: list[EpisodeResult] = []

    async def drive() -> None:
        try:
            with episode_progress(len(expand(tasks, condition)), f"{cfg.planner.name} on {cfg.split.name}") as advance:
                async for result in run_many(tasks, planner, concurrency=cfg.concurrency, t_max=cfg.t_max,
                                             condition=condition):
                    results.append(result)
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
        planner=cfg.planner.name, split=cfg.split.name, seed=cfg.seed, condition=condition,
        verdicts=[r.verdict for r in results], wall_s=time.perf_counter() - started,
    )
    doc["provenance"] = provenance(task_file=TASK_DIR / cfg.split.file, started=started_at, ended=now(),
                                   planner_config=OmegaConf.to_container(cfg.planner, resolve=True))  # type: ignore[arg-type]
    doc["analysis"] = analyse([result_facts(r, planner=cfg.planner.name, seed=cfg.seed) for r in results],
                              seed=cfg.seed)
    path = out_dir / "results.json"
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print_summary(doc)
    for line in summary_lines(doc["analysis"]):
        print(line)
    return path


def episode_row(r: EpisodeResult) -> dict[str, Any]:
    v = r.verdict
    return {
        "task_id": r.key or r.task.task_id, "condition": r.condition, "category": r.task.category, "domain": r.task.domain, "l2": r.task.l2,
        "bucket": r.task.bucket, "passed": v.passed, "checker_passed": v.checker_passed,
        "memory_gate": v.memory_gate, "skill_gate": v.skill_gate, "scorable": v.scorable,
        "reasons": list(v.reasons), "termination": r.trajectory.termination, "steps": len(r.trajectory.steps),
        "wall_s": round(r.wall_s, 6),
    }


@hydra.main(config_path=CONF_DIR, config_name="config", version_base="1.3")
def main(cfg: DictConfig) -> None:
    path = run_job(cfg, Path(HydraConfig.get().runtime.output_dir))
    print(path.resolve())
