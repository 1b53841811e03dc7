"""The main job: run one planner over one split, print the scores, write results.json and trajectories."""

from __future__ import annotations

import asyncio
import datetime as dt
import gzip
import json
import re
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import hydra
from hydra import compose, initialize_config_module
from hydra.core.global_hydra import GlobalHydra
from hydra.core.hydra_config import HydraConfig
from hydra.errors import HydraException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

import conf
from experiments.analysis import analyse, result_facts, summary_lines
from experiments.console import LOG_NAME, library_logs
from experiments.cost import cell_cost, cost_line, price_of
from experiments.loop import EpisodeResult, run_many
from experiments.progress import episode_progress
from experiments.provenance import now, provenance
from experiments.report import print_summary, results_document
from experiments.selection import SelectionError, selection
from planners import build_planner
from sandbox.conditions import Variant, condition_label, expand
from sandbox.suite import load_split, task_path

CONF_MODULE = "conf"  # the configs ship as the package ``conf``: found from the checkout and from a wheel
CONF_PATH = f"pkg://{CONF_MODULE}"
CONF_DIR = str(Path(conf.__file__).resolve().parent)  # where they lie on disk (their comments are read for --help)
SEARCHPATH = "hydra.searchpath"
INT_KEYS = {"seed": 0, "t_max": 1, "concurrency": 1}  # typed top-level keys and their least value


class RunConfigError(ValueError):
    """A config mistake, said in one line naming the key (instead of Hydra's text or a traceback)."""


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
        cfg = _compose(overrides)
    except (HydraException, OmegaConfBaseException) as exc:
        raise RunConfigError(override_error(exc, overrides)) from None
    check_config(cfg)
    return cfg


def _compose(overrides: Sequence[str], config_name: str = "config") -> DictConfig:
    return compose_config(config_name, overrides)


def compose_config(config_name: str, overrides: Sequence[str] = ()) -> DictConfig:
    """``config_name`` composed from the shipped configs and any folder a ``hydra.searchpath=[...]``
    override adds (a user's own ``planner/<name>.yaml`` or ``split/<name>.yaml``)."""
    with initialize_config_module(config_module=CONF_MODULE, version_base="1.3"):
        return compose(config_name, overrides=list(overrides))


def searchpath_overrides(overrides: Sequence[str]) -> list[str]:
    """The ``hydra.searchpath=[...]`` overrides among ``overrides`` (they decide which configs exist)."""
    return [o for o in overrides if o.lstrip("+~").partition("=")[0] == SEARCHPATH]


def group_options(group: str, overrides: Sequence[str] = (), config_name: str = "config") -> list[str]:
    """The options of a config group in Hydra's config repository: the shipped ones and those of the
    folders on the search path, without the shared bases (``_*.yaml``)."""
    with initialize_config_module(config_module=CONF_MODULE, version_base="1.3"):
        loader = GlobalHydra.instance().config_loader()
        options = loader.get_group_options(group, config_name=config_name, overrides=searchpath_overrides(overrides))
    return sorted(o for o in options if not o.startswith("_"))


def override_error(exc: Exception, overrides: Sequence[str], config_name: str = "config") -> str:
    """Hydra's multi-line composition error as one line: the key, and the keys or options it could be
    (``config_name``: the primary config the overrides were for, e.g. ``sweep``)."""
    text = str(exc)
    if missing := re.search(r"Could not find '([^'/]+)/([^']+)'", text):
        group, option = missing.groups()
        listed = text.partition("Available options in")[2].partition("Config search path")[0].splitlines()[1:]
        known = [name.strip() for name in listed if name.strip() and not name.strip().startswith("_")]
        return f"{group}: unknown {group} {option!r}; known: {', '.join(known)}"
    if unknown := re.match(r"Could not override '([^']+)'", text):
        key = unknown.group(1).lstrip("+~")
        parent = key.rpartition(".")[0]
        try:  # the config the other overrides select (planner=..., split=...), to list what the key could be
            base = _compose(
                [o for o in overrides if "." not in o.partition("=")[0] and o.partition("=")[0] != key]
                + searchpath_overrides(overrides),
                config_name,
            )
        except (HydraException, OmegaConfBaseException):
            return text.splitlines()[0]
        node = OmegaConf.select(base, parent) if parent else base
        if not isinstance(node, DictConfig):
            return f"{key}: {parent} has no keys"
        if key.rpartition(".")[2] in node:  # a known key given a value of the wrong shape
            return f"{key}: {str(getattr(exc.__cause__, 'msg', text)).splitlines()[0]}"
        return f"{key}: no such key; known keys{f' of {parent}' if parent else ''}: {', '.join(map(str, node))}"
    return ": ".join(text.splitlines()[:2])


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
        from experiments.record_run import record_run  # imports the store, which imports this module

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


def episode_row(r: EpisodeResult) -> dict[str, Any]:
    v = r.verdict
    return {
        "task_id": r.key or r.task.task_id,
        "condition": r.condition,
        "category": r.task.category,
        "domain": r.task.domain,
        "l2": r.task.l2,
        "bucket": r.task.bucket,
        "passed": v.passed,
        "checker_passed": v.checker_passed,
        "memory_gate": v.memory_gate,
        "skill_gate": v.skill_gate,
        "scorable": v.scorable,
        "reasons": list(v.reasons),
        "termination": r.trajectory.termination,
        "steps": len(r.trajectory.steps),
        "wall_s": round(r.wall_s, 6),
    }


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
