"""``mobilepa run``: the Hydra job. It reads the composed config into a one-cell plan (``run_plan``; a
mistake: one line, exit 2), runs it (``experiments.execution.run``) and prints where results.json is
(exit 1 when an episode ended in ``infra_error``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.errors import HydraException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from experiments.commands.config import CONF_PATH, RunConfigError, check_added_keys, compose_config, override_error
from experiments.execution.run import infra_message, run_job
from experiments.plan.model import DEFAULT_STORE, Cell, Grid, Plan, Tracking, Work, default_report_dir
from experiments.plan.selection import KEYS as SELECTION_KEYS
from experiments.plan.selection import SelectionError, selection
from experiments.reporting.console import report_failure
from experiments.results.store import file_sha256
from planners import build_planner
from planners.preflight import PreflightError
from sandbox.conditions import Variant, condition_label, expand
from sandbox.suite import load_split, task_path

INT_KEYS = {"seed": 0, "t_max": 1, "concurrency": 1}  # typed top-level keys and their least value


ADDED_KEYS = (*SELECTION_KEYS, "store", "tracking")
"""Keys ``mobilepa run`` adds to conf/config.yaml itself (a quick run's selection; recording like a sweep)."""


def check_config(cfg: DictConfig) -> None:
    """Hydra takes ``seed=abc`` as a string; refuse it before it reaches results.json or a seeded RNG."""
    for key, least in INT_KEYS.items():
        value = cfg.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise RunConfigError(f"{key}: an integer is required, got {value!r}")
        if value < least:
            raise RunConfigError(f"{key}: at least {least}, got {value}")
    try:
        selection(cfg)  # limit=, task_ids=
    except SelectionError as exc:
        raise RunConfigError(str(exc)) from None
    run_variant(cfg)


def run_variant(cfg: DictConfig) -> Variant:
    """The run's action-space variant (``retrieval.*``, ``ablation``), checked: one line naming the key."""
    retrieval = cfg.get("retrieval")
    try:
        return Variant.from_config(
            OmegaConf.to_container(retrieval, resolve=True) if OmegaConf.is_config(retrieval) else retrieval,  # type: ignore[arg-type]
            cfg.get("ablation", "none"),
        )
    except ValueError as exc:
        raise RunConfigError(str(exc)) from None


def run_condition(cfg: DictConfig) -> str:
    """The condition the run's episodes are stored under: the skill condition, refined by the variant
    when there is one (``both.bm25-n10``)."""
    return condition_label(str(cfg.condition.name), run_variant(cfg))


def compose_checked(overrides: Sequence[str]) -> DictConfig:
    """Compose ``conf/config.yaml`` as ``mobilepa run`` will and check it, so a mistake is one line
    before Hydra starts the job (Hydra's own message for ``sed=0`` is "append with +sed=0")."""
    try:
        cfg = compose_config("config", overrides)
    except (HydraException, OmegaConfBaseException) as exc:
        raise RunConfigError(override_error(exc, overrides)) from None
    check_added_keys(overrides, allowed=ADDED_KEYS)
    check_config(cfg)
    return cfg


def run_plan(cfg: DictConfig) -> Plan:
    """``mobilepa run``'s config read once, as a one-cell sweep: its cell, its episode keys (``limit=``,
    ``task_ids=`` applied), the split's dataset hash, and where it is recorded (``store=PATH``,
    ``tracking=mlflow``; neither: only in the run's folder). The same cell and settings check as a
    sweep's, so a run and a sweep of the same cell share stored results."""
    check_config(cfg)
    try:
        tasks = load_split(cfg.split.file, cfg.split.categories, cfg.split.get("subset"))
    except (FileNotFoundError, ValueError) as exc:  # a task file that cannot be used: its line names it
        raise RunConfigError(f"split {cfg.split.name!r}: {exc}") from None
    if not tasks:
        raise RunConfigError(f"split {cfg.split.name!r} selects no tasks")
    chosen = selection(cfg)  # a quick run: limit=N, task_ids=[a,b]
    try:
        chosen.check_known((t.task_id for t in tasks), f"split {cfg.split.name!r}")
    except SelectionError as exc:
        raise RunConfigError(str(exc)) from None
    condition = run_condition(cfg)
    keys = tuple(key for key, _, _ in expand(chosen.apply(tasks), condition))
    planner_config: dict[str, Any] = OmegaConf.to_container(cfg.planner, resolve=True)  # type: ignore[assignment]
    try:
        build_planner(planner_config)  # checked now: build_planner names the key
    except ValueError as exc:
        from cluster.services import needs_server  # only to word the error: it imports Dask

        hint = (
            " (mobilepa run starts no vLLM server; mobilepa sweep does on a GPU worker)"
            if needs_server(planner_config)
            else ""
        )
        raise RunConfigError(f"{exc}{hint}") from None
    tracking: dict[str, Any] = (
        OmegaConf.to_container(cfg.tracking, resolve=True)  # type: ignore[assignment]
        if cfg.get("tracking")
        else {"enabled": False, "uri": None, "experiment": None, "trace_sample": 0}
    )
    store = cfg.get("store") or (DEFAULT_STORE if tracking.get("enabled") else None)
    split, split_file = str(cfg.split.name), str(cfg.split.file)
    sha256 = file_sha256(task_path(split_file))
    name = str(cfg.get("name") or f"run-{cfg.planner.name}-{split}")
    record: dict[str, Any] = {
        "name": name,
        "planners": [str(cfg.planner.name)],
        "splits": [split],
        "seeds": [int(cfg.seed)],
        "conditions": [condition],
        "t_max": int(cfg.t_max),
        "concurrency": int(cfg.concurrency),
        "planner_factory": "planners:build_planner",
        "store": str(store or DEFAULT_STORE),
        "report_dir": str(default_report_dir(store or DEFAULT_STORE, name)),
        "tracking": tracking,
        "cluster": {"kind": "none (mobilepa run)"},
        **{
            k: OmegaConf.to_container(cfg[k]) if OmegaConf.is_config(cfg[k]) else cfg[k]
            for k in ("limit", "task_ids")
            if cfg.get(k) is not None
        },
    }
    if chosen.active:
        record["selected"] = {f"{split}/{condition}": list(keys)}
    variant = run_variant(cfg)
    cell = Cell(
        str(cfg.planner.name),
        split,
        condition,
        int(cfg.seed),
        planner_config,
        split_file,
        tuple(cfg.split.categories) if cfg.split.categories else None,
        cfg.split.get("subset"),
        sha256,
        int(cfg.concurrency),
        int(cfg.t_max),
        variant.model_path,
    )
    return Plan(
        name=record["name"],
        grid=Grid((cell.planner,), (split,), (cell.seed,), (condition,)),  # the condition refined by the variant
        cells=(cell,),
        task_ids={(split, condition): keys},
        datasets={split: (split_file, sha256)},
        work=Work(
            t_max=cell.t_max,
            concurrency=cell.concurrency,
            allow_prompt_overflow=bool(cfg.get("allow_prompt_overflow")),
        ),
        tracking=Tracking(
            enabled=bool(tracking.get("enabled")),
            uri=tracking.get("uri"),
            experiment=tracking.get("experiment"),
            trace_sample=int(tracking.get("trace_sample") or 0),
        ),
        store=Path(store) if store else None,
        report_dir=Path(record["report_dir"]),
        cluster=record["cluster"],
        record=record,
    )


@hydra.main(config_path=CONF_PATH, config_name="config", version_base="1.3")
def main(cfg: DictConfig) -> None:
    """The job; exits 2 on a config mistake, 1 when an episode ended in infra_error (the path still printed)."""
    try:
        plan = run_plan(cfg)
        path = run_job(plan, Path(HydraConfig.get().runtime.output_dir))
    except RunConfigError as exc:
        print(f"mobilepa run: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except PreflightError as exc:  # before any episode: the endpoint (exit 1) or its config (exit 2)
        print(f"mobilepa run: {exc}", file=sys.stderr)
        raise SystemExit(1 if exc.infra else 2) from None
    except Exception as exc:  # one line here: Hydra would print its own traceback
        raise SystemExit(report_failure("run", exc)) from None
    message = infra_message(json.loads(path.read_text(encoding="utf-8")))
    if message:
        print(f"mobilepa run: {message}", file=sys.stderr, flush=True)
    print(path.resolve())
    if message:
        raise SystemExit(1)
