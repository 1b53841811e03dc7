"""The configs read once into plans, before any work: ``plan_sweep`` for ``mobilepa sweep`` (every cell
composed, its planner built, its tasks loaded) and ``run_plan`` for ``mobilepa run`` (one cell). Nothing
below this layer sees a Hydra config."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from cluster.dask_runner import ClusterConfigError, check_cluster, config_number
from cluster.services import PENDING_URL, ServiceConfigError, needs_server, service_specs
from experiments.commands.config import (
    SEARCHPATH,
    RunConfigError,
    check_added_keys,
    compose_config,
    group_options,
    searchpath_overrides,
)
from experiments.execution.units import resolve_factory
from experiments.plan.model import (
    AXIS_KEYS,
    CONDITIONS,
    GRID_KEYS,
    Cell,
    Grid,
    Plan,
    SweepConfigError,
    Tracking,
    Work,
    default_name,
    default_report_dir,
    refined_conditions,
    variants,
)
from experiments.plan.selection import KEYS as SELECTION_KEYS
from experiments.plan.selection import SelectionError, as_override, selection
from experiments.results.store import file_sha256
from planners import MODEL_KINDS
from planners.config import evaluated_name
from sandbox.conditions import expand, split_label
from sandbox.suite import TASK_DIR, load_split, task_path


def parse_args(args: Sequence[str]) -> tuple[list[str], dict[str, list[str]]]:
    """Hydra overrides for ``conf/sweep.yaml`` and per-planner overrides from the command line.

    ``planner=a,b`` / ``split=x`` / ``seed=0,1,2`` / ``condition=default`` set the grid lists;
    ``planner.<name>.<key>=value`` overrides one planner's config (e.g. its ``base_url``), with or
    without ``+``: applied as Hydra's ``++`` (set or add), so a misspelt key reaches the planner's own
    check, which names it in one line;
    anything else (``cluster=address cluster.address=tcp://…``, ``name=…``) goes to Hydra as is.
    """
    overrides: list[str] = []
    per_planner: dict[str, list[str]] = {}
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep:
            raise SweepConfigError(f"{arg!r}: expected key=value")
        if key in GRID_KEYS:
            items = [v.strip() for v in value.strip("[]").split(",") if v.strip()]
            if not items:
                raise SweepConfigError(f"{key}: empty list")
            overrides.append(f"{GRID_KEYS[key]}=[{','.join(items)}]")
        elif key.lstrip("+") in AXIS_KEYS:  # retrieval.top_n=5,10 / ablation=none,memory_off: lists, as above
            items = [v.strip() for v in value.strip("[]").split(",") if v.strip()]
            if not items:
                raise SweepConfigError(f"{key.lstrip('+')}: empty list")
            name = key.lstrip("+")
            overrides.append(
                f"{'retrieval.' if name.startswith('retrieval.') else ''}{AXIS_KEYS[name]}=[{','.join(items)}]"
            )
        elif key.lstrip("+~") in SELECTION_KEYS:  # limit=N, task_ids=[a,b]: added to the config by Hydra
            overrides.append(as_override(arg))
        elif key.lstrip("+").startswith("planner.") and key.count(".") >= 2:
            _, name, rest = key.lstrip("+").split(".", 2)
            per_planner.setdefault(name, []).append(f"++planner.{rest}={value}")
        elif key.lstrip("+").startswith("planner."):  # no planner named: it would be recorded and ignored
            rest = key.lstrip("+").partition(".")[2]
            raise SweepConfigError(
                f"{key.lstrip('+')}: a sweep sets one planner's key: planner.<name>.{rest}=… "
                f"(e.g. planner.qwen3_8b.{rest})"
            )
        else:
            overrides.append(arg)
    return overrides, per_planner


def load_config(overrides: Sequence[str] = (), per_planner: dict[str, list[str]] | None = None) -> DictConfig:
    """The composed sweep config (per-planner overrides kept under ``planner_overrides``; a
    ``hydra.searchpath=[...]`` override, a user's own config folders, under ``searchpath``, so every
    cell's planner and split are composed from the same folders)."""
    try:
        cfg = compose_config("sweep", overrides)
        check_added_keys(overrides, "sweep", allowed=SELECTION_KEYS)
    except (HydraException, OmegaConfBaseException) as exc:  # their messages name the override that failed
        raise SweepConfigError(str(exc)) from None
    except RunConfigError as exc:
        raise SweepConfigError(str(exc)) from None
    OmegaConf.set_struct(cfg, False)
    cfg.planner_overrides = per_planner or {}
    if cfg.get("name") in (None, "default") and not any(o.lstrip("+~").partition("=")[0] == "name" for o in overrides):
        cfg.name = default_name(OmegaConf.to_container(cfg, resolve=True))  # type: ignore[arg-type]  # not `default`
    if cfg.get("report_dir") is None:  # each sweep's report in a folder of its own, beside its store
        cfg.report_dir = str(default_report_dir(cfg.store, str(cfg.name)))
    searchpath = searchpath_overrides(overrides)
    folders = OverridesParser.create().parse_overrides(searchpath[-1:])[0].value() if searchpath else []
    cfg.searchpath = [str(f) for f in folders]  # type: ignore[union-attr]
    return cfg


SEED_MAX = 2**63 - 1  # a seed is stored as an SQLite integer


COUNTS = {"t_max": 1, "concurrency": 1, "unit_size": 1, "max_in_flight": 1, "unit_attempts": 1, "infra_retries": 0}
"""The sweep's integer keys and their least values; ``max_in_flight`` may also be null (2 × worker threads)."""


def check_numbers(config: dict[str, Any]) -> list[int]:
    """Every numeric key of the sweep, type and range, before any work, each problem naming its key
    (``t_max=0`` ran every episode to nothing, ``concurrency=0`` hung, ``seed=1.5`` was stored as 1);
    returns the seeds."""
    try:
        for key, least in COUNTS.items():
            if not (key == "max_in_flight" and config.get(key) is None):
                config_number(config.get(key), key, minimum=least)
        seeds = [config_number(s, "seeds", minimum=0, maximum=SEED_MAX) for s in config["seeds"]]
        if (config.get("tracking") or {}).get("trace_sample") is not None:
            config_number(config["tracking"]["trace_sample"], "tracking.trace_sample", minimum=0)
    except ValueError as exc:
        raise SweepConfigError(str(exc)) from None
    if len(set(seeds)) != len(seeds):
        raise SweepConfigError(f"seeds: each seed once, got {config['seeds']}")
    try:
        check_cluster(config.get("cluster") or {})
    except ClusterConfigError as exc:
        raise SweepConfigError(str(exc)) from None
    return seeds


def _searchpath(config: dict[str, Any]) -> list[str]:
    """The sweep's ``hydra.searchpath`` as an override (none when it adds no folder)."""
    folders = config.get("searchpath") or []
    return [f"{SEARCHPATH}=[{','.join(json.dumps(str(f)) for f in folders)}]"] if folders else []


def _compose_cell(planner: str, split: str, seed: int, extra: list[str], searchpath: list[str]) -> DictConfig:
    return compose_config("config", [*searchpath, f"planner={planner}", f"split={split}", f"seed={seed}", *extra])


def _label(planner: str, planner_config: Any, overrides: list[str], own: Any) -> str:
    """What the planner's results are named (``planners.config.evaluated_name``): the config's name, or
    ``<config>:<model>`` when its per-planner overrides chose another model than the config's own
    (``own()``: the planner composed without them)."""
    if planner_config.get("kind") not in MODEL_KINDS or not overrides:
        return planner
    base = own()
    return evaluated_name(
        planner,
        planner_config.get("served_model_name") or planner_config.get("model"),
        OmegaConf.select(base, "served_model_name", default=None)
        or OmegaConf.select(base, "model", default=None, throw_on_missing=False),
    )


def plan_sweep(cfg: DictConfig) -> Plan:
    """Compose and check every cell; raise SweepConfigError naming the key before any work starts."""
    try:
        config: dict[str, Any] = OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)  # type: ignore[assignment]
    except OmegaConfBaseException as exc:
        raise SweepConfigError(f"{exc.full_key or 'config'}: {str(exc.msg).splitlines()[0]}") from None
    for key in GRID_KEYS.values():
        if not isinstance(config.get(key), list) or not config[key]:
            raise SweepConfigError(f"{key}: a non-empty list is required")
    searchpath = _searchpath(config)
    try:  # Hydra's config repository: the shipped configs and a user's own folders; _*: shared bases
        known = {kind: group_options(kind, searchpath) for kind in ("planner", "split")}
    except (HydraException, OmegaConfBaseException) as exc:
        raise SweepConfigError(f"searchpath: {str(exc).splitlines()[0]}") from None
    for kind, names in (("planner", config["planners"]), ("split", config["splits"])):
        for name in names:
            if str(name) not in known[kind]:
                raise SweepConfigError(f"{kind}s: unknown {kind} {name!r}; known: {', '.join(known[kind])}")
    for condition in config["conditions"]:
        if condition not in CONDITIONS:  # the names of conf/condition/*.yaml (a test keeps them equal)
            raise SweepConfigError(f"conditions: unknown condition {condition!r}; known: {', '.join(CONDITIONS)}")
    for name in config.get("planner_overrides") or {}:
        if name not in config["planners"]:
            raise SweepConfigError(f"planner.{name}: overrides a planner that is not in the sweep")
    seeds = check_numbers(config)
    variants(config)  # checked: one line naming the key
    refined = refined_conditions(config)  # each condition under each action-space variant
    try:
        chosen = selection(config)
    except SelectionError as exc:
        raise SweepConfigError(str(exc)) from None
    known_ids: set[str] = set()
    try:
        factory = resolve_factory(str(config["planner_factory"]))
    except (ImportError, ValueError, TypeError) as exc:
        raise SweepConfigError(f"planner_factory: {exc}") from None
    task_ids: dict[tuple[str, str], list[str]] = {}
    datasets: dict[str, tuple[str, str]] = {}
    cells: list[Cell] = []
    for split in map(str, config["splits"]):
        split_cfg = _compose_cell(str(config["planners"][0]), split, seeds[0], [], searchpath).split
        if not task_path(split_cfg.file).is_relative_to(TASK_DIR):  # a user's own task file: by its full path,
            split_cfg.file = str(task_path(split_cfg.file))  # as workers elsewhere do not share this cwd
        try:
            tasks = load_split(split_cfg.file, split_cfg.categories, split_cfg.get("subset"))
        except (FileNotFoundError, ValueError) as exc:
            raise SweepConfigError(f"split {split!r}: {exc}") from None
        if not tasks:
            raise SweepConfigError(f"split {split!r}: selects no tasks")
        known_ids.update(t.task_id for t in tasks)
        if not (tasks := chosen.apply(tasks)):
            try:
                chosen.check_known(
                    {t.task_id for t in load_split(split_cfg.file, split_cfg.categories, split_cfg.get("subset"))},
                    f"split {split!r}",
                )
            except SelectionError as exc:
                raise SweepConfigError(str(exc)) from None
            raise SweepConfigError(f"split {split!r}: {chosen.describe()} selects none of its tasks")
        for condition in refined:
            task_ids[(split, condition)] = [key for key, _, _ in expand(tasks, condition)]
        datasets[split] = (split_cfg.file, file_sha256(task_path(split_cfg.file)))
        for planner in map(str, config["planners"]):
            for seed in seeds:
                composed = _compose_cell(planner, split, seed, config["planner_overrides"].get(planner, []), searchpath)
                try:
                    planner_config = OmegaConf.to_container(composed.planner, resolve=True, throw_on_missing=True)
                    # base_url null: the sweep starts a server and fills it in; check the rest now
                    factory(
                        {**planner_config, "base_url": PENDING_URL}  # type: ignore[arg-type, dict-item]
                        if needs_server(planner_config)  # type: ignore[arg-type]
                        else planner_config
                    )
                except OmegaConfBaseException as exc:
                    raise SweepConfigError(
                        f"planner {planner!r}: {exc.full_key}: {str(exc.msg).splitlines()[0]}"
                    ) from None
                except ValueError as exc:  # "planner.<key>: ..." becomes "planner.<name>.<key>: ..."
                    message = str(exc)
                    raise SweepConfigError(
                        message.replace("planner.", f"planner.{planner}.", 1)
                        if message.startswith("planner.")
                        else f"planner {planner!r}: {message}"
                    ) from None
                own_overrides = config["planner_overrides"].get(planner, [])
                label = _label(
                    planner,
                    planner_config,
                    own_overrides,
                    lambda: _compose_cell(planner, split, seed, [], searchpath).planner,  # noqa: B023 (called now)
                )
                config.setdefault("labels", {})[planner] = label
                categories = tuple(split_cfg.categories) if split_cfg.categories else None
                concurrency = planner_config.get("concurrency")  # type: ignore[union-attr]
                try:
                    concurrency = (
                        config["concurrency"]
                        if concurrency is None
                        else config_number(concurrency, f"planner.{planner}.concurrency")
                    )
                except ValueError as exc:
                    raise SweepConfigError(str(exc)) from None
                for condition in refined:
                    cells.append(
                        Cell(
                            label,
                            split,
                            condition,
                            seed,
                            planner_config,  # type: ignore[arg-type]
                            split_cfg.file,
                            categories,
                            split_cfg.get("subset"),
                            datasets[split][1],
                            concurrency,
                            int(config["t_max"]),
                            (config.get("retrieval") or {}).get("model_path")
                            if split_label(condition)[1].method == "dense"
                            else None,
                        )
                    )
    try:
        chosen.check_known(known_ids, "split(s) " + ", ".join(map(str, config["splits"])))
    except SelectionError as exc:
        raise SweepConfigError(str(exc)) from None
    try:
        services = service_specs([(c.planner, c.planner_config) for c in cells])
    except ServiceConfigError as exc:
        raise SweepConfigError(str(exc)) from None
    if chosen.active:  # a quick run's episode keys, recorded with the sweep so its report holds only them
        config["selected"] = {f"{split}/{condition}": keys for (split, condition), keys in task_ids.items()}
    tracking = config.get("tracking") or {}
    return Plan(
        name=str(config["name"]),
        grid=Grid(
            tuple(map(str, config["planners"])),
            tuple(map(str, config["splits"])),
            tuple(seeds),
            tuple(map(str, config["conditions"])),
            tuple(variants(config)),
        ),
        cells=tuple(cells),
        task_ids={where: tuple(keys) for where, keys in task_ids.items()},
        datasets=datasets,
        work=Work(
            t_max=int(config["t_max"]),
            concurrency=int(config["concurrency"]),
            planner_factory=str(config["planner_factory"]),
            unit_size=int(config["unit_size"]),
            max_in_flight=None if config.get("max_in_flight") is None else int(config["max_in_flight"]),
            unit_attempts=int(config["unit_attempts"]),
            infra_retries=int(config["infra_retries"]),
            allow_prompt_overflow=bool(config.get("allow_prompt_overflow")),
        ),
        tracking=Tracking(
            enabled=bool(tracking.get("enabled")),
            uri=tracking.get("uri"),
            experiment=tracking.get("experiment"),
            trace_sample=int(tracking.get("trace_sample") or 0),
        ),
        store=Path(config["store"]),
        report_dir=Path(config["report_dir"]),
        cluster=config["cluster"],
        services=tuple(services),
        record=config,
    )


def sweep_plan(args: Sequence[str]) -> Plan:
    """``mobilepa sweep``'s arguments read into its checked plan (what ``sweep --dry-run`` describes)."""
    return plan_sweep(load_config(*parse_args(args)))
