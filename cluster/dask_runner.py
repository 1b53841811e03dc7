"""Dask: a client from the cluster config, and bounded streaming of work units with retries.

Episodes are opaque here: a *unit* is whatever ``fn`` accepts (a chunk of task ids of one sweep cell)
and ``fn(unit)`` returns a list of records. Units are submitted in bounded waves, never the whole grid
at once (a big graph stalls the scheduler), and results stream back as they finish, so the driver
can store them as they arrive and a killed driver loses at most the units in flight.
"""

from __future__ import annotations

import importlib
import re
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

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
        cluster = LocalCluster(
            n_workers=int(config["n_workers"]), threads_per_worker=int(config["threads_per_worker"]),
            processes=bool(config["processes"]), dashboard_address=config.get("dashboard_address"),
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
        return cluster, ""
    raise ClusterConfigError(f"cluster.kind: unknown kind {kind!r}; known: {', '.join(CLUSTER_KINDS)}")


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
) -> StreamOutcome:
    """Run ``fn`` over ``units`` on the cluster, at most ``max_in_flight`` at a time (default 2 × slots).

    ``on_result(unit, records)`` is called on this thread as each unit finishes and returns follow-up
    units (e.g. the infrastructure-failed episodes of that unit, to run again). A unit whose task
    raises (its worker died past Dask's own rescheduling, or the code failed) is resubmitted under a
    new key until it has failed ``max_attempts`` times; then it is reported in the outcome.
    """
    run_id = uuid.uuid4().hex[:8]
    limit = max_in_flight or 2 * slots(client)
    pending: list[tuple[U, int]] = [(u, 1) for u in units]
    pending.reverse()  # pop() from the end keeps submission in the given order
    attempts: dict[Future, tuple[U, int]] = {}
    outcome = StreamOutcome()
    serial = iter(range(1 << 62))

    def submit() -> Future:
        unit, attempt = pending.pop()
        future = client.submit(fn, unit, key=f"unit-{run_id}-{next(serial)}-{_safe(key_of(unit))}-a{attempt}",
                               pure=False, retries=0)
        attempts[future] = (unit, attempt)
        return future

    stream = as_completed([submit() for _ in range(min(limit, len(pending)))])
    for future in stream:
        unit, attempt = attempts.pop(future)
        if future.status == "finished":
            follow_up = on_result(unit, future.result())
            outcome.resubmitted += len(follow_up)
            pending.extend((u, 1) for u in reversed(follow_up))
        elif attempt < max_attempts:
            pending.append((unit, attempt + 1))
            outcome.resubmitted += 1
        else:
            error = future.exception() if future.status == "error" else future.status
            outcome.failures.append(UnitFailure(key_of(unit), attempt, f"{type(error).__name__}: {error}"))
        future.release()
        while pending and len(attempts) < limit:
            stream.add(submit())
    return outcome
