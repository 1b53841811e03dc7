"""``mobilepa sweep``'s work: a checked ``Plan``'s grid run in one driver, on one Dask client.

One driver rather than Hydra's multirun: multirun would start one job (and one cluster) per cell, while
one driver lets episodes of every cell interleave on the cluster. The plan comes read and checked
(``experiments.commands.plans``); the sweep is then: check the cluster, the report folder and the store,
open MLflow, record the sweep, run the pending units (starting the vLLM servers they need), and finish
with the gaps, the report and the MLflow runs, whatever went missing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from distributed import Client
from distributed.client import ClosedClientError

from cluster.dask_runner import (
    ClusterConfigError,
    UnitFailure,
    check_reachable,
    dask_client,
    slots,
    stream_units,
    worker_resources,
)
from cluster.services import Service, ServiceConfigError, ServiceSpec, place, vllm_services
from experiments.analysis.compare import sweep_analysis
from experiments.analysis.cost import share_gpu_seconds, with_costs
from experiments.execution.units import EPISODE_TOPIC, WorkerGC, WorkUnit, run_unit, split_tasks
from experiments.plan.model import DEFAULT_STORE, Cell, Plan, SweepConfigError, recorded_now
from experiments.reporting.leaderboard import ReportError, check_report_dir, write_report
from experiments.reporting.progress import episode_progress
from experiments.results.gaps import Gap, find_gaps, sweep_rows
from experiments.results.provenance import cell_provenance, now, server_provenance
from experiments.results.store import ResultsStore, StoreError, record_key
from planners import MODEL_KINDS
from planners.openai_compat import OpenAIConfig
from planners.preflight import PreflightError, PromptBudget, first_observations, preflight
from sandbox.suite import task_path

if TYPE_CHECKING:
    from experiments.reporting.tracking import SweepTracker


@dataclass
class SweepOutcome:
    plan: Plan
    ran: int  # episodes executed now (retries included)
    skipped: int  # keys already finished in the store
    infra_errors: list[str] = field(default_factory=list)  # keys still infra_error after the retries
    failures: list[UnitFailure] = field(default_factory=list)
    wall_s: float = 0.0  # the whole sweep: checks, cluster start, episodes, report, MLflow
    run_s: float = 0.0  # the episodes alone: first unit submitted to last result in
    tracking_s: float = 0.0  # logging to MLflow after the episodes (a server not answering shows here)
    parent_run_id: str | None = None
    infra_retried: int = 0  # episodes that hit an infrastructure error and were run again
    tracking_error: str | None = None  # MLflow failed after the work: results are in the store, unlogged
    report: tuple[list[dict[str, Any]], Path] | None = None  # the leaderboard and the report's folder
    services: dict[str, Service] = field(default_factory=dict)  # the vLLM servers this sweep started, by planner
    gaps: list[Gap] = field(default_factory=list)  # cells with keys still missing, in grid order
    lost: str | None = None  # the cluster went away mid-sweep (scheduler or every worker); what is stored stays
    report_error: str | None = None  # the report could not be written after the work

    @property
    def complete(self) -> bool:
        """Every key of the grid has its final result, and the report and MLflow have it all."""
        return not (self.gaps or self.failures or self.lost or self.tracking_error or self.report_error)


def unit_size(cell: Cell, configured: int) -> int:
    """Episodes per work unit: ``unit_size``, but for a model planner at most its endpoint's concurrency,
    so a unit is one round of requests in flight and its results (and the sweep's) come back in minutes,
    not after every episode of a large unit has crawled through a slow endpoint."""
    if cell.planner_config.get("kind") not in MODEL_KINDS:
        return configured
    return max(1, min(configured, int(cell.planner_config.get("concurrency") or OpenAIConfig.concurrency)))


def pending_units(plan: Plan, store: ResultsStore) -> tuple[list[WorkUnit], int]:
    """Work units for the keys the store has not finished, and how many keys were skipped."""
    done = store.finished_keys()
    units: list[WorkUnit] = []
    skipped = 0
    for cell in plan.cells:
        size = unit_size(cell, plan.work.unit_size)
        keys = plan.task_ids[(cell.split, cell.condition)]
        ids = [i for i in keys if (cell.planner, cell.split, cell.condition, cell.seed, i) not in done]
        skipped += len(keys) - len(ids)
        units += [WorkUnit(cell, tuple(ids[k : k + size]), plan.work.planner_factory) for k in range(0, len(ids), size)]
    return units, skipped


def first_requests(cells: Sequence[Cell], task_ids: Mapping[tuple[str, str], Sequence[str]]) -> dict[str, list[Any]]:
    """label -> (episode key, first observation) of each model planner's episodes (one seed:
    seeds send the same first messages); keys are ``<split>/<condition>/<key>`` when it has several cells."""
    chosen: dict[str, dict[tuple[str, str], Cell]] = {}
    for cell in cells:
        if cell.planner_config.get("kind") in MODEL_KINDS:
            chosen.setdefault(cell.planner, {}).setdefault((cell.split, cell.condition), cell)
    found: dict[str, list[Any]] = {}
    for label, by_group in chosen.items():
        for (split, condition), cell in by_group.items():
            tasks = split_tasks(cell.split_file, cell.categories, cell.subset).values()
            keys = task_ids[(split, condition)]
            for key, observation in first_observations(tasks, condition, keys, cell.retrieval_model):
                found.setdefault(label, []).append(
                    (key if len(by_group) == 1 else f"{split}/{condition}/{key}", observation)
                )
    return found


async def preflight_cells(
    cells: Sequence[Cell], task_ids: Mapping[tuple[str, str], Sequence[str]]
) -> list[PromptBudget]:
    """Every model planner's endpoint checked and its prompt budget counted (``planners.preflight``)
    before any episode; a ``PreflightError`` becomes the sweep's one line."""
    budgets = []
    configs = {c.planner: c.planner_config for c in cells}
    for label, observations in first_requests(cells, task_ids).items():
        try:
            budgets.append(await preflight({**configs[label], "name": label}, observations))
        except PreflightError as exc:
            raise (PreflightFailed(str(exc)) if exc.infra else SweepConfigError(str(exc))) from None
    return budgets


class PreflightFailed(RuntimeError):
    """A model endpoint failed its pre-flight (not there, a server error): no episode ran."""


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
    cluster = plan.cluster
    if not plan.services or cluster.get("kind") != "local":
        return
    offered = {"resources": worker_resources(cluster) or {}}
    try:
        place(list(plan.services), {f"local-{i}": offered for i in range(int(cluster["n_workers"]))})
    except ServiceConfigError as exc:
        raise SweepConfigError(str(exc)) from None


def check_cluster(plan: Plan) -> None:
    """The cluster can do the work, known before any: a local cluster's workers can host the servers the
    sweep starts, and a scheduler's address answers."""
    check_local_resources(plan)
    try:
        check_reachable(plan.cluster)
    except ClusterConfigError as exc:
        raise SweepConfigError(str(exc)) from None


def check_store(plan: Plan, store: ResultsStore) -> None:
    """The store holds no results of other task files or other settings under this plan's keys."""
    for split, (file, sha) in plan.datasets.items():
        store.check_dataset(split, file, sha)
    store.check_settings({(c.planner, c.split, c.condition, c.seed): plan.settings(c) for c in plan.cells})


def open_tracking(plan: Plan) -> SweepTracker | None:
    """The sweep's MLflow parent run, opened before any work (None when tracking is off); MLflow being
    unreachable stops the sweep here, when nothing is lost."""
    if not plan.tracking.enabled:
        return None
    from experiments.reporting.tracking import MLFLOW_ERRORS, TrackingUnavailable, mlflow_failure, start_tracking

    try:
        return start_tracking(plan)
    except MLFLOW_ERRORS as exc:
        raise SweepConfigError(
            str(exc) if isinstance(exc, TrackingUnavailable) else f"tracking.uri: MLflow failed: {mlflow_failure(exc)}"
        ) from None


def run_sweep(plan: Plan, *, client: Client | None = None) -> SweepOutcome:
    """Run the missing keys of the plan, store each result as it arrives, then report and log to MLflow.

    Everything that can be checked is checked before any work: the cluster (the scheduler's address,
    the servers' placement), the report folder, the store (its dataset versions and each cell's
    settings), MLflow. Before any unit is submitted, a vLLM server is started for every planner with
    ``base_url: null`` (on a worker offering the GPUs, see ``cluster.services``) and its URL filled into
    the cells; the servers are stopped when the work is done, failed or interrupted.

    The sweep always ends with its report and (when tracking) a closed MLflow parent run, whatever went
    missing: episodes of a dead endpoint (``infra_error``), units reported after their attempts, a lost
    cluster; ``SweepOutcome.gaps`` says which cells lack which keys, ``complete`` whether anything does."""
    started = time.perf_counter()
    if client is None:
        check_cluster(plan)
    check_report_dir(plan.report_dir)
    store = ResultsStore(plan.store or DEFAULT_STORE)
    try:
        check_store(plan, store)
        units, skipped = pending_units(plan, store)
        tracker = open_tracking(plan)
        plan = plan.with_record(recorded_at=recorded_now())  # `report` takes the latest
        store.record_sweep(plan.sweep_key, plan.record, tracked=tracker is not None)
        outcome = SweepOutcome(plan, ran=0, skipped=skipped)
        try:
            if units:  # nothing to run: no cluster to start
                _run_units(units, store, outcome, client, tracked=tracker is not None)
            _finish(store, outcome, tracker)
        except BaseException as exc:
            if tracker is not None:
                tracker.fail(killed=isinstance(exc, KeyboardInterrupt))
            raise
    finally:
        store.close()
    outcome.wall_s = time.perf_counter() - started
    return outcome


def cluster_summary(cluster: Mapping[str, Any]) -> str:
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
def _announced(cluster: Mapping[str, Any], attempts: int) -> Iterator[Client]:
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
    units: list[WorkUnit], store: ResultsStore, outcome: SweepOutcome, client: Client | None, *, tracked: bool
) -> None:
    """Start the cluster (or use ``client``) and the vLLM services, and stream the units through it,
    storing each unit's records as they arrive; ``outcome.plan`` becomes the plan as served (the
    started servers' URLs in its cells)."""
    plan = outcome.plan
    total = sum(len(u.task_ids) for u in units)
    infra_runs: dict[tuple[str, str], int] = {}
    label = f"sweep {plan.name}: {len(plan.cells)} cells"
    attempts = plan.work.unit_attempts
    started_at = now()
    usage: dict[str, dict[str, Any]] = {}  # planner -> the GPUs its server held and for how long
    latencies: dict[str, list[float]] = {}  # cell label -> its episodes' model latency in this run
    prov: dict[str, tuple[str, dict[str, Any]]] = {}  # cell label -> (provenance id, record)
    try:
        with (
            nullcontext(client) if client is not None else _announced(plan.cluster, attempts) as dask,
            _timed_services(
                dask,
                plan.services,
                usage,
                wait_s=float(plan.cluster.get("gpu_worker_wait_s") or 0),
                log_dir=(plan.store or DEFAULT_STORE).resolve().parent / "vllm",
            ) as services,
        ):
            if services:
                endpoints = {name: s.base_url for name, s in services.items()}
                outcome.services = services
                outcome.plan = plan = plan.served_by(endpoints).with_record(endpoints=endpoints)
                store.record_sweep(plan.sweep_key, plan.record, tracked=tracked)
            for budget in asyncio.run(preflight_cells(plan.cells, plan.task_ids)):
                print(budget.summary(), flush=True)
                if (refusal := budget.refusal()) and not plan.work.allow_prompt_overflow:
                    raise SweepConfigError(refusal)
            configs = {c.planner: c.planner_config for c in plan.cells}
            prov.update(
                cell_provenance(
                    plan.cells,
                    started=started_at,
                    sweep_key=plan.sweep_key,
                    task_files={split: (task_path(file), sha) for split, (file, sha) in plan.datasets.items()},
                    servers={name: server_provenance(s, configs[name]) for name, s in services.items()},
                )
            )
            store.record_provenance(dict(prov.values()))
            by_label = {c.label: c for c in plan.cells}
            shares = endpoint_shares(
                [dataclasses.replace(u, cell=by_label[u.cell.label]) for u in units],
                slots(dask),
                plan.work.max_in_flight,
            )
            cells = {
                label_: _share(c, *shares[c.planner]) if c.planner in shares else c for label_, c in by_label.items()
            }
            units = [dataclasses.replace(u, cell=cells[u.cell.label]) for u in units]

            with episode_progress(total, label) as advance, _episodes_seen(dask, units, advance) as seen:

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
                            if runs <= plan.work.infra_retries:
                                outcome.infra_retried += 1
                                retry.append(r["task_id"])
                                continue
                        seen(unit.cell.label, r["task_id"], bool(r["passed"]), not r["scorable"])
                    return [WorkUnit(unit.cell, tuple(retry), unit.planner_factory)] if retry else []

                running = time.perf_counter()
                stream = stream_units(
                    dask,
                    run_unit,
                    units,
                    key_of=lambda u: u.key,
                    on_result=on_result,
                    max_in_flight=plan.work.max_in_flight,
                    max_attempts=attempts,
                    group_of=lambda u: u.cell.planner,
                    group_limits={p: k for p, (k, _) in shares.items()},
                    no_worker_timeout_s=float(plan.cluster.get("no_worker_timeout_s") or 120),
                )
                outcome.run_s = time.perf_counter() - running
            outcome.failures = stream.failures
            outcome.lost = stream.lost
    except ServiceConfigError as exc:  # no worker can host a server: nothing ran
        raise SweepConfigError(str(exc)) from None
    finally:
        if prov:
            _finish_provenance(outcome, store, prov, usage, latencies)


@contextmanager
def _episodes_seen(
    dask: Client, units: Sequence[WorkUnit], advance: Callable[[bool, bool], None]
) -> Iterator[Callable[[str, str, bool, bool], None]]:
    """Progress per episode: ``advance`` once per episode of ``units``, as its worker announces it
    (``units.announce``, Dask events) or, for one whose announcement never came, when its unit's records
    arrive; yields that second path. An episode that ended in infra_error is left to the unit's records
    (the sweep decides whether it runs again), and a unit run twice (a worker lost) counts once."""
    expected = {(u.cell.label, key) for u in units for key in u.task_ids}
    counted: set[tuple[str, str]] = set()
    lock = threading.Lock()

    def seen(cell: str, key: str, passed: bool, unscorable: bool) -> None:
        with lock:
            if (cell, key) in counted or (cell, key) not in expected:
                return
            counted.add((cell, key))
        advance(passed, unscorable)

    def on_event(event: tuple[float, dict[str, Any]]) -> None:
        message = event[1]
        if isinstance(message, dict) and not message.get("infra_error"):
            seen(str(message["cell"]), str(message["key"]), bool(message["passed"]), not message["scorable"])

    dask.subscribe_topic(EPISODE_TOPIC, on_event)
    try:
        yield seen
    finally:
        # A client whose scheduler is gone holds no subscription to end; the lost cluster is reported
        # by the stream, not by this clean-up.
        with suppress(ClosedClientError):
            dask.unsubscribe_topic(EPISODE_TOPIC)


@contextmanager
def _timed_services(
    dask: Client, specs: Sequence[ServiceSpec], usage: dict[str, dict[str, Any]], **kwargs: Any
) -> Iterator[dict[str, Service]]:
    """``vllm_services``, noting in ``usage`` the GPUs each server held and for how long: from the sweep
    asking for it until it was stopped (start-up included), whatever ended it."""
    began = time.monotonic()
    devices: dict[str, str | None] = {}
    try:
        with vllm_services(dask, specs, **kwargs) as services:
            devices.update({name: s.device for name, s in services.items()})
            yield services
    finally:
        up = time.monotonic() - began
        usage.update(
            {
                s.planner: {"gpus": s.gpus, "up_s": up, "gpu_s": s.gpus * up, "device": devices.get(s.planner)}
                for s in specs
            }
        )


def _finish_provenance(
    outcome: SweepOutcome,
    store: ResultsStore,
    prov: dict[str, tuple[str, dict[str, Any]]],
    usage: dict[str, dict[str, Any]],
    latencies: dict[str, list[float]],
) -> None:
    """The sweep run's end time into its provenance records, and each started server's GPU-seconds shared
    among the cells that used it (by model latency); never the error that ends a failing sweep."""
    planner_of = {c.label: c.planner for c in outcome.plan.cells}
    gpu_s: dict[str, float] = {}
    for planner, used in usage.items():
        mine = {label: values for label, values in latencies.items() if planner_of.get(label) == planner}
        gpu_s.update({prov[label][0]: share for label, share in share_gpu_seconds(used["gpu_s"], mine).items()})
    outcome.plan = outcome.plan.with_record(services_usage=usage)
    failing = sys.exc_info()[1] is not None  # called from a ``finally``: the sweep's own error, if any
    try:
        store.finish_provenance(now(), [pid for pid, _ in prov.values()], gpu_s)
    except StoreError:
        if not failing:
            raise


def _finish(store: ResultsStore, outcome: SweepOutcome, tracker: SweepTracker | None) -> None:
    """What every sweep ends with, whatever went missing: the gaps, the report, the MLflow runs closed."""
    plan = outcome.plan
    rows = with_costs(sweep_rows(plan, store.rows()), store.provenance())  # + cost_usd, gpu_s
    outcome.infra_errors = sorted("/".join(map(str, record_key(r))) for r in rows if r["termination"] == "infra_error")
    outcome.gaps = find_gaps(plan, rows)
    if rows:
        try:
            analysis = sweep_analysis(store, {record_key(r) for r in rows})
            about = f"{plan.about} [key {plan.sweep_key}]"
            outcome.report = write_report(rows, plan.report_dir, about=about, analysis=analysis)
        except ReportError as exc:  # e.g. a full disk: the results are in the store; `mobilepa report` later
            outcome.report_error = str(exc)
    if tracker is not None:
        from experiments.reporting.tracking import MLFLOW_ERRORS, log_sweep, mlflow_failure

        logging_started = time.perf_counter()
        try:
            outcome.parent_run_id = log_sweep(
                dataclasses.replace(tracker, plan=plan), store, report_written=outcome.report is not None, rows=rows
            )
        except (*MLFLOW_ERRORS, ReportError) as exc:  # type: ignore[misc]  # the results are safe in the store; sync them later
            outcome.tracking_error = mlflow_failure(exc)
        outcome.tracking_s = time.perf_counter() - logging_started
