"""Dask: a client from the cluster config, and bounded streaming of work units with retries.

Episodes are opaque here: a *unit* is whatever ``fn`` accepts (a chunk of task ids of one sweep cell)
and ``fn(unit)`` returns a list of records. Units are submitted in bounded waves, never the whole grid
at once (a big graph stalls the scheduler), and results stream back as they finish, so the driver
can store them as they arrive and a killed driver loses at most the units in flight.
"""

from __future__ import annotations

import importlib
import itertools
import re
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import dask
from distributed import Client, Future, LocalCluster, as_completed

U = TypeVar("U")
CLUSTER_KINDS = ("local", "address", "slurm", "kubernetes")


class ClusterConfigError(ValueError):
    """The cluster config cannot build a cluster; raised before any work is submitted."""


def _optional(module: str, package: str, kind: str) -> Any:
    """Import a deployment backend only when its cluster kind is chosen."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ClusterConfigError(
            f"cluster.kind={kind} needs the {package!r} package ({exc}); install it with "
            f"`.venv/bin/pip install {package}` or choose cluster=local / cluster=address") from None


def _cluster(config: Mapping[str, Any]) -> tuple[Any, str]:
    """(cluster object or None, scheduler address or '') for a cluster config."""
    kind = config.get("kind")
    if kind == "local":
        # Dask's statistical profiler samples every worker thread every 10 ms: with millisecond
        # episodes that was a tenth of a worker's CPU. Off unless asked for (the dashboard's profile page).
        with dask.config.set({"distributed.worker.profile.enabled": bool(config.get("worker_profile", False))}):
            cluster = LocalCluster(
                n_workers=int(config["n_workers"]), threads_per_worker=int(config["threads_per_worker"]),
                processes=bool(config["processes"]), dashboard_address=config.get("dashboard_address"),
                resources=worker_resources(config),
            )
        return cluster, ""
    if kind == "address":
        address = config.get("address")
        if not address:
            raise ClusterConfigError("cluster.address: a scheduler address is required, e.g. tcp://host:8786")
        return None, str(address)
    if kind == "slurm":
        jobqueue = _optional("dask_jobqueue", "dask-jobqueue", kind)
        cluster = jobqueue.SLURMCluster(**dict(config.get("params") or {}))
        cluster.scale(jobs=int(config["jobs"]))
        return cluster, ""
    if kind == "kubernetes":
        operator = _optional("dask_kubernetes.operator", "dask-kubernetes", kind)
        cluster = operator.KubeCluster(**dict(config.get("params") or {}))
        cluster.scale(int(config["n_workers"]))
        for group in config.get("worker_groups") or []:  # e.g. GPU workers: worker_command [..., --resources, GPU=1]
            cluster.add_worker_group(**dict(group))
        return cluster, ""
    raise ClusterConfigError(f"cluster.kind: unknown kind {kind!r}; known: {', '.join(CLUSTER_KINDS)}")


def worker_resources(config: Mapping[str, Any]) -> dict[str, float] | None:
    """``cluster.resources`` of a local cluster: the Dask resources each worker offers (e.g. ``{GPU: 1}``,
    which a vLLM server started by a sweep needs); None when it declares none."""
    resources = config.get("resources") or {}
    if not isinstance(resources, Mapping):
        raise ClusterConfigError(f"cluster.resources: a mapping such as {{GPU: 1}}, got {resources!r}")
    try:
        return {str(k): float(v) for k, v in resources.items()} or None
    except (TypeError, ValueError):
        raise ClusterConfigError(f"cluster.resources: amounts must be numbers, got {dict(resources)}") from None


@contextmanager
def dask_client(config: Mapping[str, Any]) -> Iterator[Client]:
    """One client for the whole sweep; a cluster the config created is closed with it."""
    cluster, address = _cluster(config)
    try:
        with Client(cluster if cluster is not None else address,
                    timeout=config.get("connect_timeout", "30s")) as client:
            yield client
    finally:
        if cluster is not None:
            cluster.close()


def slots(client: Client) -> int:
    """Worker threads the scheduler knows now (at least 1, so an empty cluster still gets a wave)."""
    return max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info().get("workers", {}).values()))


@dataclass
class UnitFailure:
    """A unit that failed ``attempts`` times (e.g. it kept killing workers): reported, not retried forever."""

    key: str
    attempts: int
    error: str


@dataclass
class StreamOutcome:
    """Units that never succeeded, and how many units were submitted again (failures and follow-ups)."""

    failures: list[UnitFailure] = field(default_factory=list)
    resubmitted: int = 0


def _safe(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=+-]", "_", key)


def stream_units(
    client: Client, fn: Callable[[U], list[dict[str, Any]]], units: Iterable[U], *,
    key_of: Callable[[U], str], on_result: Callable[[U, list[dict[str, Any]]], list[U]],
    max_in_flight: int | None = None, max_attempts: int = 3,
    group_of: Callable[[U], str] | None = None, group_limits: Mapping[str, int] | None = None,
) -> StreamOutcome:
    """Run ``fn`` over ``units`` on the cluster, at most ``max_in_flight`` at a time (default 2 × slots).

    ``on_result(unit, records)`` is called on this thread as each unit finishes and returns follow-up
    units (e.g. the infrastructure-failed episodes of that unit, to run again). A unit whose task
    raises (its worker died past Dask's own rescheduling, or the code failed) is resubmitted under a
    new key until it has failed ``max_attempts`` times; then it is reported in the outcome.

    ``group_limits[group_of(unit)]`` caps how many units of one group are in flight at once (a
    planner's endpoint shared by its units); other units are submitted past a group at its cap, and
    groups without a limit have none beyond ``max_in_flight``. Units go out in the given order,
    follow-ups and resubmissions first.
    """
    run_id = uuid.uuid4().hex[:8]
    limit = max_in_flight or 2 * slots(client)
    limits = dict(group_limits or {})
    queues: dict[str, deque[tuple[int, U, int]]] = {}  # group -> (priority, unit, attempt), lowest first
    in_flight: dict[str, int] = {}
    order = itertools.count()
    urgent = itertools.count(1)
    attempts: dict[Future, tuple[U, int, str]] = {}
    outcome = StreamOutcome()
    serial = iter(range(1 << 62))

    def enqueue(unit: U, attempt: int, *, first: bool) -> None:
        group = group_of(unit) if group_of is not None else ""
        queue = queues.setdefault(group, deque())
        if first:  # ahead of everything queued so far (a newer follow-up goes before an older one)
            queue.appendleft((-next(urgent), unit, attempt))
        else:
            queue.append((next(order), unit, attempt))

    def next_group() -> str | None:
        best: str | None = None
        for group, queue in queues.items():
            if queue and in_flight.get(group, 0) < limits.get(group, limit) and (
                    best is None or queue[0][0] < queues[best][0][0]):
                best = group
        return best

    def submit(group: str) -> Future:
        _, unit, attempt = queues[group].popleft()
        future = client.submit(fn, unit, key=f"unit-{run_id}-{next(serial)}-{_safe(key_of(unit))}-a{attempt}",
                               pure=False, retries=0)
        attempts[future] = (unit, attempt, group)
        in_flight[group] = in_flight.get(group, 0) + 1
        return future

    def fill(stream: as_completed) -> None:
        while len(attempts) < limit and (group := next_group()) is not None:
            stream.add(submit(group))

    for unit in units:
        enqueue(unit, 1, first=False)
    stream = as_completed()
    fill(stream)
    for future in stream:
        unit, attempt, group = attempts.pop(future)
        in_flight[group] -= 1
        if future.status == "finished":
            follow_up = on_result(unit, future.result())
            outcome.resubmitted += len(follow_up)
            for u in reversed(follow_up):
                enqueue(u, 1, first=True)
        elif attempt < max_attempts:
            enqueue(unit, attempt + 1, first=True)
            outcome.resubmitted += 1
        else:
            error = future.exception() if future.status == "error" else future.status
            outcome.failures.append(UnitFailure(key_of(unit), attempt, f"{type(error).__name__}: {error}"))
        future.release()
        fill(stream)
    return outcome
