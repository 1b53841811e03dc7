"""``mobilepa sweep``: expand the planner × split × condition × seed grid in one driver, on one Dask client.

The grid is parsed here rather than with Hydra's multirun: multirun would start one job (and one
cluster) per cell, while one driver lets episodes of every cell interleave on the cluster. Each cell's
planner and split are still composed by Hydra from ``conf/planner`` and ``conf/split`` (so ``${seed}``
in a planner config resolves per cell), and every cell is composed and its planner built before
any work is submitted, so a bad config fails early, naming the key.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from distributed import Client
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from cluster.dask_runner import (
    ClusterConfigError,
    UnitFailure,
    check_cluster,
    check_reachable,
    config_number,
    dask_client,
    slots,
    stream_units,
    worker_resources,
)
from cluster.services import (
    PENDING_URL,
    Service,
    ServiceConfigError,
    ServiceSpec,
    needs_server,
    place,
    service_specs,
    vllm_services,
)
from experiments.analysis.cost import share_gpu_seconds, with_costs
from experiments.execution.config import SEARCHPATH, compose_config, group_options, searchpath_overrides
from experiments.execution.units import WorkerGC, WorkUnit, resolve_factory, run_unit
from experiments.plan.model import (
    AXIS_KEYS,
    CONDITIONS,
    GRID_KEYS,
    Cell,
    Plan,
    SweepConfigError,
    axes_text,
    refined_conditions,
    variants,
)
from experiments.plan.selection import KEYS as SELECTION_KEYS
from experiments.plan.selection import SelectionError, as_override, selection
from experiments.plan.selection import describe as describe_selection
from experiments.reporting.leaderboard import ReportError, check_report_dir, write_report
from experiments.reporting.progress import episode_progress
from experiments.results.gaps import Gap, find_gaps, sweep_rows
from experiments.results.provenance import cell_provenance, now
from experiments.results.secrets import redacted
from experiments.results.store import ResultsStore, StoreError, file_sha256, record_key
from planners import MODEL_KINDS
from planners.openai_compat import OpenAIConfig
from sandbox.conditions import expand, split_label
from sandbox.suite import TASK_DIR, load_split, task_path

if TYPE_CHECKING:
    from experiments.reporting.tracking import SweepTracker


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
        else:
            overrides.append(arg)
    return overrides, per_planner


def default_name(cfg: Any) -> str:
    """A sweep's name when ``name=`` is not given: what it ran, ``sweep-<planners>-<splits>``."""
    return "-".join(["sweep", "+".join(map(str, cfg["planners"])), "+".join(map(str, cfg["splits"]))])


def sweep_about(config: dict[str, Any]) -> str:
    """One line saying which sweep a report is about: its name and grid (and a quick run's selection)."""
    grid = " × ".join(f"{key} {','.join(map(str, config[key]))}" for key in GRID_KEYS.values()) + axes_text(config)
    chosen = describe_selection(config)
    when = f", {config['recorded_at']}" if config.get("recorded_at") else ""
    return f"sweep {config['name']} ({grid}{' ' + chosen if chosen else ''}{when})"


def load_config(overrides: Sequence[str] = (), per_planner: dict[str, list[str]] | None = None) -> DictConfig:
    """The composed sweep config (per-planner overrides kept under ``planner_overrides``; a
    ``hydra.searchpath=[...]`` override, a user's own config folders, under ``searchpath``, so every
    cell's planner and split are composed from the same folders)."""
    try:
        cfg = compose_config("sweep", overrides)
    except (HydraException, OmegaConfBaseException) as exc:  # their messages name the override that failed
        raise SweepConfigError(str(exc)) from None
    OmegaConf.set_struct(cfg, False)
    cfg.planner_overrides = per_planner or {}
    if cfg.get("name") in (None, "default") and not any(o.lstrip("+~").partition("=")[0] == "name" for o in overrides):
        cfg.name = default_name(cfg)  # not `default`, beside MLflow's own `Default` experiment
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
                            planner,
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
    return Plan(cells, task_ids, datasets, config, services)


@dataclass
class SweepOutcome:
    plan: Plan
    ran: int  # episodes executed now (retries included)
    skipped: int  # keys already finished in the store
    infra_errors: list[str] = field(default_factory=list)  # keys still infra_error after the retries
    failures: list[UnitFailure] = field(default_factory=list)
    wall_s: float = 0.0
    run_s: float = 0.0  # the episodes alone: first unit submitted to last result in
    parent_run_id: str | None = None
    infra_retried: int = 0  # episodes that hit an infrastructure error and were run again
    tracking_error: str | None = None  # MLflow failed after the work: results are in the store, unlogged
    report: tuple[list[dict[str, Any]], Path, Path] | None = None  # leaderboard, markdown and HTML paths
    services: dict[str, Service] = field(default_factory=dict)  # the vLLM servers this sweep started, by planner
    gaps: list[Gap] = field(default_factory=list)  # cells with keys still missing, in grid order
    lost: str | None = None  # the cluster went away mid-sweep (scheduler or every worker); what is stored stays
    report_error: str | None = None  # the report could not be written after the work

    @property
    def complete(self) -> bool:
        """Every key of the grid has its final result, and the report and MLflow have it all."""
        return not (self.gaps or self.failures or self.lost or self.tracking_error or self.report_error)


def pending_units(plan: Plan, store: ResultsStore) -> tuple[list[WorkUnit], int]:
    """Work units for the keys the store has not finished, and how many keys were skipped."""
    done = store.finished_keys()
    size = int(plan.config["unit_size"])
    units: list[WorkUnit] = []
    skipped = 0
    for cell in plan.cells:
        keys = plan.task_ids[(cell.split, cell.condition)]
        ids = [i for i in keys if (cell.planner, cell.split, cell.condition, cell.seed, i) not in done]
        skipped += len(keys) - len(ids)
        units += [
            WorkUnit(cell, tuple(ids[k : k + size]), str(plan.config["planner_factory"]))
            for k in range(0, len(ids), size)
        ]
    return units, skipped


def with_base_urls(cells: list[Cell], urls: dict[str, str]) -> list[Cell]:
    """The cells with the started servers' base URLs filled into their planner configs."""
    return [
        dataclasses.replace(c, planner_config={**c.planner_config, "base_url": urls[c.planner]})
        if c.planner in urls and needs_server(c.planner_config)
        else c
        for c in cells
    ]


def endpoint_shares(units: list[WorkUnit], threads: int, max_in_flight: int | None) -> dict[str, tuple[int, int]]:
    """planner -> (units of it in flight at once, requests in flight per unit) for model planners.

    A planner's ``concurrency`` is the limit of its endpoint across the whole cluster: at most
    k = min(concurrency, worker threads, max_in_flight, its units) of its units are in flight at once
    (``stream_units`` enforces k) and each may have concurrency // k requests (and episodes) in flight,
    so the endpoint never sees more than ``concurrency`` requests from the sweep.
    """
    limits: dict[str, int] = {}
    counts: Counter[str] = Counter()
    for unit in units:
        config = unit.cell.planner_config
        if config.get("kind") in MODEL_KINDS:
            counts[unit.cell.planner] += 1
            own = int(config.get("concurrency") or OpenAIConfig.concurrency)
            limits[unit.cell.planner] = min(limits.get(unit.cell.planner, own), own)
    shares = {}
    for planner, n in counts.items():
        at_once = max(1, min(limits[planner], threads, int(max_in_flight or threads), n))
        shares[planner] = (at_once, limits[planner] // at_once)
    return shares


def _share(cell: Cell, at_once: int, per_unit: int) -> Cell:
    """A unit's share of its planner's endpoint: ``per_unit`` requests in flight and 1/``at_once`` of its
    rate limits (units of the planner in flight at once each hold their own client)."""
    config = {**cell.planner_config, "concurrency": per_unit}
    if isinstance(config.get("rate_limits"), dict):
        config["rate_limits"] = {
            k: v if v is None else max(1, int(v) // at_once) for k, v in config["rate_limits"].items()
        }
    return dataclasses.replace(cell, planner_config=config, concurrency=min(cell.concurrency, per_unit))


def check_local_resources(plan: Plan) -> None:
    """A local cluster's workers are known from its config: refuse a server nobody can host before any work."""
    cluster = plan.config["cluster"]
    if not plan.services or cluster.get("kind") != "local":
        return
    offered = {"resources": worker_resources(cluster) or {}}
    try:
        place(plan.services, {f"local-{i}": offered for i in range(int(cluster["n_workers"]))})
    except ServiceConfigError as exc:
        raise SweepConfigError(str(exc)) from None


def run_sweep(cfg: DictConfig, *, client: Client | None = None) -> SweepOutcome:
    """Run the missing keys of the grid, store each result as it arrives, then report and log to MLflow.

    Everything that can be checked is checked before any work: the config (every number, the cluster),
    the scheduler's address, the report folder, the store (its dataset versions and each cell's
    settings). Before any unit is submitted, a vLLM server is started for every planner with
    ``base_url: null`` (on a worker offering the GPUs, see ``cluster.services``) and its URL filled into
    the cells; the servers are stopped when the work is done, failed or interrupted.

    The sweep always ends with its report and (when tracking) a closed MLflow parent run, whatever went
    missing: episodes of a dead endpoint (``infra_error``), units reported after their attempts, a lost
    cluster; ``SweepOutcome.gaps`` says which cells lack which keys, ``complete`` whether anything does."""
    started = time.perf_counter()
    plan = plan_sweep(cfg)
    config = plan.config
    if client is None:
        check_local_resources(plan)
        try:
            check_reachable(config["cluster"])
        except ClusterConfigError as exc:
            raise SweepConfigError(str(exc)) from None
    check_report_dir(Path(config["report_dir"]))
    store = ResultsStore(Path(config["store"]))
    tracker = None
    try:
        for split, (file, sha) in plan.datasets.items():
            store.check_dataset(split, file, sha)
        store.check_settings({(c.planner, c.split, c.condition, c.seed): plan.settings(c) for c in plan.cells})
        units, skipped = pending_units(plan, store)
        outcome = SweepOutcome(plan, ran=0, skipped=skipped)
        if config["tracking"]["enabled"]:
            from mlflow.exceptions import MlflowException

            from experiments.reporting.tracking import TrackingUnavailable, start_tracking

            try:
                tracker = start_tracking(plan)
            except (MlflowException, OSError, TrackingUnavailable) as exc:  # before any work: nothing is lost
                raise SweepConfigError(
                    str(exc) if isinstance(exc, TrackingUnavailable) else f"tracking.uri: MLflow failed: {exc}"
                ) from None
        config["recorded_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")  # `mobilepa report` reports the latest sweep
        store.record_sweep(plan.sweep_key, redacted(config), tracked=tracker is not None)
        try:
            if units:  # nothing to run: no cluster to start
                _run_units(plan, units, store, outcome, client, record=tracker is not None)
            _finish(plan, store, outcome, tracker)
        except BaseException as exc:
            if tracker is not None:
                tracker.fail(killed=isinstance(exc, KeyboardInterrupt))
            raise
    finally:
        store.close()
    outcome.wall_s = time.perf_counter() - started
    return outcome


def cluster_summary(cluster: dict[str, Any]) -> str:
    """The cluster a sweep will start or join, in a few words."""
    kind = cluster.get("kind")
    if kind == "local":
        resources = f", resources {cluster['resources']}" if cluster.get("resources") else ""
        return (
            f"local, {cluster.get('n_workers')} worker process(es) × {cluster.get('threads_per_worker')} "
            f"thread(s){resources}"
        )
    if kind == "address":
        return f"the scheduler at {cluster.get('address')}"
    if kind in ("slurm", "slurm_gpu"):
        return f"{kind}, {cluster.get('jobs', '?')} job(s)"
    return str(kind)


@contextmanager
def _announced(cluster: dict[str, Any], attempts: int) -> Iterator[Client]:
    """``dask_client``, saying that the cluster is starting (it can take a while, with nothing else moving)
    and, once it answers, how many worker threads it has."""
    print(f"starting the Dask cluster: {cluster_summary(cluster)}", flush=True)
    started = time.perf_counter()
    with dask_client(cluster, unit_attempts=attempts) as dask:
        print(
            f"Dask cluster ready: {slots(dask)} worker thread(s) in {time.perf_counter() - started:.1f} s", flush=True
        )
        if cluster.get("kind") != "address":  # worker processes this sweep started (not a scheduler's own)
            dask.register_plugin(WorkerGC(), name=WorkerGC.name)
        yield dask


def _run_units(
    plan: Plan,
    units: list[WorkUnit],
    store: ResultsStore,
    outcome: SweepOutcome,
    client: Client | None,
    *,
    record: bool,
) -> None:
    """Start the cluster (or use ``client``) and the vLLM services, and stream the units through it,
    storing each unit's records as they arrive."""
    config = plan.config
    total = sum(len(u.task_ids) for u in units)
    infra_runs: dict[tuple[str, str], int] = {}
    label = f"sweep {config['name']}: {len(plan.cells)} cells"
    attempts = int(config["unit_attempts"])
    started_at = now()
    usage: dict[str, dict[str, float]] = {}  # planner -> the GPUs its server held and for how long
    latencies: dict[str, list[float]] = {}  # cell label -> its episodes' model latency in this run
    prov: dict[str, tuple[str, dict[str, Any]]] = {}  # cell label -> (provenance id, record)
    try:
        with (
            nullcontext(client) if client is not None else _announced(config["cluster"], attempts) as dask,
            _timed_services(
                dask,
                plan.services,
                usage,
                wait_s=float(config["cluster"].get("gpu_worker_wait_s") or 0),
                log_dir=Path(config["store"]).resolve().parent / "vllm",
            ) as services,
        ):
            if services:
                outcome.services = services
                config["endpoints"] = {name: s.base_url for name, s in services.items()}
                plan.cells = with_base_urls(plan.cells, config["endpoints"])
                store.record_sweep(plan.sweep_key, redacted(config), tracked=record)
            prov.update(
                cell_provenance(
                    plan.cells,
                    started=started_at,
                    sweep_key=plan.sweep_key,
                    task_files={split: (task_path(file), sha) for split, (file, sha) in plan.datasets.items()},
                )
            )
            store.record_provenance(dict(prov.values()))
            by_label = {c.label: c for c in plan.cells}
            shares = endpoint_shares(
                [dataclasses.replace(u, cell=by_label[u.cell.label]) for u in units],
                slots(dask),
                config.get("max_in_flight"),
            )
            cells = {
                label_: _share(c, *shares[c.planner]) if c.planner in shares else c for label_, c in by_label.items()
            }
            units = [dataclasses.replace(u, cell=cells[u.cell.label]) for u in units]

            with episode_progress(total, label) as advance:

                def on_result(unit: WorkUnit, records: list[dict[str, Any]]) -> list[WorkUnit]:
                    for r in records:  # what made them: one record per cell and sweep run, named by id
                        r["provenance_id"] = prov[unit.cell.label][0]
                    latencies.setdefault(unit.cell.label, []).extend(r["planner_latency_s"] for r in records)
                    store.upsert(records)
                    outcome.ran += len(records)
                    retry: list[str] = []
                    for r in records:
                        if r["termination"] == "infra_error":
                            runs = infra_runs[(unit.cell.label, r["task_id"])] = (
                                infra_runs.get((unit.cell.label, r["task_id"]), 0) + 1
                            )
                            if runs <= int(config["infra_retries"]):
                                outcome.infra_retried += 1
                                retry.append(r["task_id"])
                                continue
                        advance(bool(r["passed"]), not r["scorable"])
                    return [WorkUnit(unit.cell, tuple(retry), unit.planner_factory)] if retry else []

                running = time.perf_counter()
                stream = stream_units(
                    dask,
                    run_unit,
                    units,
                    key_of=lambda u: u.key,
                    on_result=on_result,
                    max_in_flight=config.get("max_in_flight"),
                    max_attempts=attempts,
                    group_of=lambda u: u.cell.planner,
                    group_limits={p: k for p, (k, _) in shares.items()},
                    no_worker_timeout_s=float(config["cluster"].get("no_worker_timeout_s") or 120),
                )
                outcome.run_s = time.perf_counter() - running
            outcome.failures = stream.failures
            outcome.lost = stream.lost
    except ServiceConfigError as exc:  # no worker can host a server: nothing ran
        raise SweepConfigError(str(exc)) from None
    finally:
        if prov:
            _finish_provenance(plan, store, prov, usage, latencies)


@contextmanager
def _timed_services(
    dask: Client, specs: Sequence[ServiceSpec], usage: dict[str, dict[str, float]], **kwargs: Any
) -> Iterator[dict[str, Service]]:
    """``vllm_services``, noting in ``usage`` the GPUs each server held and for how long: from the sweep
    asking for it until it was stopped (start-up included), whatever ended it."""
    began = time.monotonic()
    try:
        with vllm_services(dask, specs, **kwargs) as services:
            yield services
    finally:
        up = time.monotonic() - began
        usage.update({s.planner: {"gpus": s.gpus, "up_s": up, "gpu_s": s.gpus * up} for s in specs})


def _finish_provenance(
    plan: Plan,
    store: ResultsStore,
    prov: dict[str, tuple[str, dict[str, Any]]],
    usage: dict[str, dict[str, float]],
    latencies: dict[str, list[float]],
) -> None:
    """The sweep run's end time into its provenance records, and each started server's GPU-seconds shared
    among the cells that used it (by model latency); never the error that ends a failing sweep."""
    planner_of = {c.label: c.planner for c in plan.cells}
    gpu_s: dict[str, float] = {}
    for planner, used in usage.items():
        mine = {label: values for label, values in latencies.items() if planner_of.get(label) == planner}
        gpu_s.update({prov[label][0]: share for label, share in share_gpu_seconds(used["gpu_s"], mine).items()})
    plan.config["services_usage"] = usage
    failing = sys.exc_info()[1] is not None  # called from a ``finally``: the sweep's own error, if any
    try:
        store.finish_provenance(now(), [pid for pid, _ in prov.values()], gpu_s)
    except StoreError:
        if not failing:
            raise


def _finish(plan: Plan, store: ResultsStore, outcome: SweepOutcome, tracker: SweepTracker | None) -> None:
    """What every sweep ends with, whatever went missing: the gaps, the report, the MLflow runs closed."""
    config = plan.config
    rows = with_costs(sweep_rows(plan, store.rows()), store.provenance())  # + cost_usd, gpu_s
    outcome.infra_errors = sorted("/".join(map(str, record_key(r))) for r in rows if r["termination"] == "infra_error")
    outcome.gaps = find_gaps(plan, rows)
    if rows:
        try:
            outcome.report = write_report(rows, Path(config["report_dir"]), about=sweep_about(config))
        except ReportError as exc:  # e.g. a full disk: the results are in the store; `mobilepa report` later
            outcome.report_error = str(exc)
    if tracker is not None:
        from mlflow.exceptions import MlflowException

        from experiments.reporting.tracking import log_sweep

        try:
            outcome.parent_run_id = log_sweep(tracker, store, report_written=outcome.report is not None, rows=rows)
        except (MlflowException, OSError, ReportError) as exc:  # the results are safe in the store; sync them later
            outcome.tracking_error = f"{type(exc).__name__}: {exc}"
