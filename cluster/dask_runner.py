"""Dask: a client from the cluster config, and bounded streaming of work units with retries.

Episodes are opaque here: a *unit* is whatever ``fn`` accepts (a chunk of task ids of one sweep cell)
and ``fn(unit)`` returns a list of records. Units are submitted in bounded waves, never the whole grid
at once (a big graph stalls the scheduler), and results stream back as they finish, so the driver
can store them as they arrive and a killed driver loses at most the units in flight. The stream ends
in bounded time whatever the cluster does: a unit that keeps killing its workers is reported after its
attempts, and a lost scheduler (or no worker at all for too long) ends it, saying so.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import math
import re
import socket
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import CancelledError
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import dask
from dask.utils import parse_timedelta
from distributed import Client, Future, LocalCluster, wait
from distributed.comm.addressing import parse_address, parse_host_port
from distributed.comm.core import CommClosedError
from distributed.scheduler import KilledWorker

U = TypeVar("U")
CLUSTER_KINDS = ("local", "address", "slurm", "kubernetes")


class ClusterConfigError(ValueError):
    """The cluster config cannot build a cluster; raised before any work is submitted."""


def _optional(module: str, package: str, kind: str | None) -> Any:
    """Import a deployment backend only when its cluster kind is chosen."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ClusterConfigError(
            f"cluster.kind={kind} needs the {package!r} package ({exc}); install it with "
            f"`.venv/bin/pip install {package}` or choose cluster=local / cluster=address"
        ) from None


def config_number(
    value: Any, key: str, *, integer: bool = True, minimum: float = 1, maximum: float | None = None
) -> Any:
    """``value`` when it is a number of the right type and range, else ValueError naming ``key``: Hydra
    passes ``1.5``, ``abc`` or ``true`` on as they are, and none of them may become a silent integer."""
    kind = int if integer else (int, float)
    if (
        isinstance(value, bool)
        or not isinstance(value, kind)
        or (isinstance(value, float) and not math.isfinite(value))
    ):
        raise ValueError(f"{key}: {'an integer' if integer else 'a number'} is required, got {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"at least {minimum}" if maximum is None else f"between {minimum} and {maximum}"
        raise ValueError(f"{key}: must be {bound}, got {value!r}")
    return value


def connect_timeout_s(config: Mapping[str, Any]) -> float:
    """``cluster.connect_timeout`` in seconds: how long the client waits to connect, and to reconnect
    after losing the scheduler before it gives up (then the sweep ends, see ``stream_units``)."""
    value = config.get("connect_timeout", "30s")
    try:
        seconds = float(parse_timedelta(value, default="s"))
    except (TypeError, ValueError, KeyError):  # KeyError: an unknown unit
        raise ClusterConfigError(
            f"cluster.connect_timeout: a duration such as 30s is required, got {value!r}"
        ) from None
    if not seconds > 0:
        raise ClusterConfigError(f"cluster.connect_timeout: must be positive, got {value!r}")
    return seconds


def check_cluster(config: Mapping[str, Any]) -> None:
    """Every value the cluster's kind reads, checked before any work and naming its key (a local cluster
    of 0 workers, for one, would wait forever for a worker)."""
    kind = config.get("kind")
    if kind not in CLUSTER_KINDS:
        raise ClusterConfigError(f"cluster.kind: unknown kind {kind!r}; known: {', '.join(CLUSTER_KINDS)}")
    counts = {
        "local": ("n_workers", "threads_per_worker"),
        "kubernetes": ("n_workers",),
        "slurm": ("jobs",),
        "address": (),
    }[kind]
    try:
        for key in counts:
            config_number(config.get(key), f"cluster.{key}")
        for key in ("gpu_worker_wait_s", "no_worker_timeout_s"):
            if config.get(key) is not None:
                config_number(config[key], f"cluster.{key}", integer=False, minimum=0)
    except ValueError as exc:
        raise ClusterConfigError(str(exc)) from None
    connect_timeout_s(config)
    worker_resources(config)
    if kind == "address" and not config.get("address"):
        raise ClusterConfigError("cluster.address: a scheduler address is required, e.g. tcp://host:8786")


def check_reachable(config: Mapping[str, Any]) -> None:
    """For ``kind: address``, fail now, naming the address, when nothing listens there: the client
    would otherwise fail only after its connect timeout, with a traceback."""
    if config.get("kind") != "address":
        return
    address = str(config["address"])
    try:
        scheme, location = parse_address(address)
        host, port = parse_host_port(location, default_port=8786)
    except (TypeError, ValueError) as exc:
        raise ClusterConfigError(
            f"cluster.address: {address!r} is not a scheduler address ({exc}); e.g. tcp://host:8786"
        ) from None
    if scheme not in ("tcp", "tls"):
        return
    try:
        with socket.create_connection((host, port), timeout=min(connect_timeout_s(config), 10.0)):
            pass
    except OSError as exc:
        raise ClusterConfigError(
            f"cluster.address: no Dask scheduler answers at {address} "
            f"({exc.strerror or type(exc).__name__}); start one with `dask scheduler`, "
            "or fix the address"
        ) from None


def _cluster(config: Mapping[str, Any], allowed_failures: int | None) -> tuple[Any, str]:
    """(cluster object or None, scheduler address or '') for a checked cluster config."""
    kind = config.get("kind")
    if kind == "local":
        # Dask's statistical profiler samples every worker thread every 10 ms: with millisecond
        # episodes that was a tenth of a worker's CPU. Off unless asked for (the dashboard's profile page).
        # A worker holds only the units it runs (saturation 1.0, Dask's default 1.1 queues one more on a
        # one-thread worker): a unit that kills its worker then takes no waiting unit's attempt with it.
        with dask.config.set(
            {
                "distributed.worker.profile.enabled": bool(config.get("worker_profile", False)),
                "distributed.scheduler.worker-saturation": 1.0,
            }
        ):
            cluster = LocalCluster(
                n_workers=int(config["n_workers"]),
                threads_per_worker=int(config["threads_per_worker"]),
                processes=bool(config["processes"]),
                dashboard_address=config.get("dashboard_address"),
                resources=worker_resources(config),
                scheduler_kwargs={} if allowed_failures is None else {"allowed_failures": allowed_failures},
            )
        return cluster, ""
    if kind == "address":
        return None, str(config["address"])
    if kind == "slurm":
        jobqueue = _optional("dask_jobqueue", "dask-jobqueue", kind)
        cluster = jobqueue.SLURMCluster(**dict(config.get("params") or {}))
        cluster.scale(jobs=int(config["jobs"]))
        return cluster, ""
    operator = _optional("dask_kubernetes.operator", "dask-kubernetes", kind)
    cluster = operator.KubeCluster(**dict(config.get("params") or {}))
    cluster.scale(int(config["n_workers"]))
    for group in config.get("worker_groups") or []:  # e.g. GPU workers: worker_command [..., --resources, GPU=1]
        cluster.add_worker_group(**dict(group))
    return cluster, ""


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
def dask_client(config: Mapping[str, Any], *, unit_attempts: int | None = None) -> Iterator[Client]:
    """One client for the whole sweep; a cluster the config created is closed with it.

    A local cluster's scheduler gives up on a task after ``unit_attempts`` worker deaths (Dask's
    ``allowed-failures``), so a unit that kills its worker every time kills ``unit_attempts`` of them,
    not four per attempt."""
    check_cluster(config)
    allowed = None if unit_attempts is None else max(0, unit_attempts - 1)
    cluster, address = _cluster(config, allowed)
    try:
        try:
            client = Client(cluster if cluster is not None else address, timeout=connect_timeout_s(config))
        except (OSError, TimeoutError) as exc:
            where = f"cluster.address: the Dask scheduler at {address}" if address else f"cluster: {cluster}"
            raise ClusterConfigError(f"{where}: cannot connect ({type(exc).__name__}: {exc})") from None
        with client:
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
    """Units that never succeeded, how many units were submitted again (failures and follow-ups), and
    why the stream stopped early (``lost``: the scheduler or every worker gone), if it did."""

    failures: list[UnitFailure] = field(default_factory=list)
    resubmitted: int = 0
    lost: str | None = None


POLL_S = 1.0  # how often the driver looks at the cluster's health while no unit finishes
GATHER_TIMEOUT_S = 60.0  # fetching a finished unit's records; past it the result is waited for again


def _safe(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=+-]", "_", key)


def _deaths(error: BaseException | None) -> int:
    """Attempts a failure used: a ``KilledWorker`` means every worker that ran the unit died
    (``allowed_failures`` + 1 of them); any other error is one attempt."""
    if isinstance(error, KilledWorker):
        return int(error.allowed_failures) + 1
    return 1


def _workers(client: Client) -> int | None:
    """Workers the scheduler knows now; None when it cannot be asked."""
    try:
        return len(client.scheduler_info().get("workers", {}))
    except (OSError, TimeoutError, CommClosedError):
        return None


def stream_units(
    client: Client,
    fn: Callable[[U], list[dict[str, Any]]],
    units: Iterable[U],
    *,
    key_of: Callable[[U], str],
    on_result: Callable[[U, list[dict[str, Any]]], list[U]],
    max_in_flight: int | None = None,
    max_attempts: int = 3,
    group_of: Callable[[U], str] | None = None,
    group_limits: Mapping[str, int] | None = None,
    no_worker_timeout_s: float = 120.0,
) -> StreamOutcome:
    """Run ``fn`` over ``units`` on the cluster, at most ``max_in_flight`` at a time (default 2 × slots).

    ``on_result(unit, records)`` is called on this thread as each unit finishes and returns follow-up
    units (e.g. the infrastructure-failed episodes of that unit, to run again). A unit whose task
    raises, or whose workers die, is resubmitted under a new key until it has used ``max_attempts``
    attempts, then reported in the outcome; each worker death counts as an attempt (a ``KilledWorker``
    after Dask's own rescheduling counts every worker that died running it), so a unit that kills its
    worker every time is reported instead of taking the cluster down for good.

    The stream never waits forever: when the client has given up on the scheduler (its reconnect limit,
    ``cluster.connect_timeout``), or no worker has been there for ``no_worker_timeout_s`` with units to
    run, it stops and says so in ``lost``; the units not finished are simply not reported done. Units
    cancelled because the scheduler connection was lost go out again once it is back.

    ``group_limits[group_of(unit)]`` caps how many units of one group are in flight at once (a
    planner's endpoint shared by its units); other units are submitted past a group at its cap, and
    groups without a limit have none beyond ``max_in_flight``. Units go out in the given order,
    follow-ups and resubmissions first.
    """
    run_id = uuid.uuid4().hex[:8]
    limit = max_in_flight or 2 * slots(client)
    limits = dict(group_limits or {})
    queues: dict[str, deque[tuple[int, U, int]]] = {}  # group -> (priority, unit, attempts used), lowest first
    in_flight: dict[str, int] = {}
    order = itertools.count()
    urgent = itertools.count(1)
    attempts: dict[Future, tuple[U, int, str]] = {}
    outcome = StreamOutcome()
    serial = iter(range(1 << 62))
    address = getattr(client.scheduler, "address", None) or "the scheduler"

    def enqueue(unit: U, used: int, *, first: bool) -> None:
        group = group_of(unit) if group_of is not None else ""
        queue = queues.setdefault(group, deque())
        if first:  # ahead of everything queued so far (a newer follow-up goes before an older one)
            queue.appendleft((-next(urgent), unit, used))
        else:
            queue.append((next(order), unit, used))

    def next_group() -> str | None:
        best: str | None = None
        for group, queue in queues.items():
            if (
                queue
                and in_flight.get(group, 0) < limits.get(group, limit)
                and (best is None or queue[0][0] < queues[best][0][0])
            ):
                best = group
        return best

    def fill() -> None:
        while client.status == "running" and len(attempts) < limit and (group := next_group()) is not None:
            _, unit, used = queues[group].popleft()
            future = client.submit(
                fn, unit, key=f"unit-{run_id}-{next(serial)}-{_safe(key_of(unit))}-a{used + 1}", pure=False, retries=0
            )
            attempts[future] = (unit, used, group)
            in_flight[group] = in_flight.get(group, 0) + 1

    def settle(future: Future) -> None:
        if future.status == "finished":
            try:
                records = future.result(timeout=GATHER_TIMEOUT_S)
            except TimeoutError:  # its result was lost with a worker: Dask computes it again; wait for that
                return
            except Exception:  # it failed or was cancelled meanwhile: settled by its new status
                if future.status == "finished":
                    raise
        unit, used, group = attempts.pop(future)
        in_flight[group] -= 1
        if future.status == "finished":
            follow_up = on_result(unit, records)
            outcome.resubmitted += len(follow_up)
            for u in reversed(follow_up):
                enqueue(u, 0, first=True)
        elif future.status == "cancelled" and client.status != "running":
            enqueue(unit, used, first=True)  # the scheduler connection was lost: not the unit's fault
        else:
            error = future.exception() if future.status == "error" else None
            used += _deaths(error)
            if used < max_attempts:
                enqueue(unit, used, first=True)
                outcome.resubmitted += 1
            elif isinstance(error, KilledWorker):
                outcome.failures.append(
                    UnitFailure(
                        key_of(unit),
                        used,
                        (
                            f"KilledWorker: its worker died {used} times (as in a crash or an OOM kill); the last was "
                            f"{getattr(error.last_worker, 'address', error.last_worker)}"
                        ),
                    )
                )
            else:
                outcome.failures.append(
                    UnitFailure(
                        key_of(unit),
                        used,
                        f"{type(error).__name__}: {error}" if error is not None else future.status,  # type: ignore[arg-type]
                    )
                )
        future.release()

    for unit in units:
        enqueue(unit, 0, first=False)
    fill()
    idle_since: float | None = None
    while attempts or any(queues.values()):
        if client.status in ("closing", "closed"):
            outcome.lost = f"lost the Dask scheduler at {address}: the client gave up reconnecting to it"
            break
        if attempts:
            # none finished yet, or the scheduler connection was lost
            with contextlib.suppress(TimeoutError, CancelledError):
                wait(list(attempts), timeout=POLL_S, return_when="FIRST_COMPLETED")
        else:
            time.sleep(POLL_S / 10)  # units queued while the scheduler connection is being restored
        done = [f for f in attempts if f.done()]  # in the order they were submitted
        if done:
            idle_since = None
            for future in done:
                settle(future)
        elif client.status == "running" and _workers(client) == 0:
            idle_since = idle_since or time.monotonic()
            if time.monotonic() - idle_since > no_worker_timeout_s:
                outcome.lost = (
                    f"no Dask worker at {address} for {no_worker_timeout_s:g} s "
                    "(cluster.no_worker_timeout_s) with units still to run"
                )
                break
        else:
            idle_since = None
        fill()
    return outcome
