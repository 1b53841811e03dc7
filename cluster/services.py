"""Long-lived vLLM servers for sweeps: one per open-model planner, on a Dask worker that offers the GPUs
it needs, started before any episode is submitted and stopped when the sweep ends.

A planner of kind ``openai`` whose ``base_url`` is null asks for a server. The driver picks a worker
that declares the Dask worker resource ``GPU`` (``--resources GPU=1``, ``cluster.resources`` for a
local cluster) with at least ``vllm.gpus`` (default 1) left after the other servers, creates a
``VLLMService`` actor there, and calls its ``start``: the actor runs ``cluster.vllm.VLLMServer``
bound to the worker's own address (127.0.0.1 on a local cluster, the node's address on a multi-node
one, so workers on other nodes can call it), waits until it serves the model, and returns its base
URL. Workers running episodes only call that URL. Stopping is the driver's ``finally`` (normal end,
failure, Ctrl-C); should the driver vanish, releasing the actor (or the worker exiting) stops the
server through a finalizer, and the server process gets SIGTERM when its worker process dies.

The driver says what is happening, on stdout whether or not it is a terminal: a line as each server
is started (planner, model, worker, log file), one when it is ready (with the time it took), one
every ``heartbeat_s`` while it is still starting, and one at the end if it died during the sweep.
Its log goes to ``vllm.log_dir``, else the folder the sweep gives (beside its results store), so it
outlives the cluster; only a worker that cannot write there keeps it in its own local directory.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
import uuid
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from distributed import Client, get_worker
from distributed.comm.addressing import get_address_host

from cluster.vllm import (
    API_SERVER_MODULE,
    LOG_TAIL_LINES,
    ServerStartupError,
    VLLMServer,
    build_command,
    engine_facts,
    log_tail,
)
from planners.openai_compat import vllm_section

log = logging.getLogger(__name__)

RESOURCE = "GPU"
"""The Dask worker resource a vLLM server needs (``dask worker ... --resources GPU=1``)."""

SERVER_KEYS = ("model", "served_model_name", "vllm")  # what decides the server (must agree across seeds)
PENDING_URL = "http://vllm-service.pending/v1"  # stands in for the URL while configs are checked


class ServiceConfigError(ValueError):
    """No server can be placed (no worker offers the resources) or its config is wrong; names the key."""


def needs_server(config: Mapping[str, Any]) -> bool:
    """An OpenAI-kind planner without a base URL: the sweep starts a vLLM server for it."""
    return config.get("kind") == "openai" and config.get("base_url") is None


@dataclass(frozen=True)
class ServiceSpec:
    """One server to start: the planner it serves, the parts of its config that define the server,
    and the GPUs (Dask resource ``GPU``) it takes."""

    planner: str
    config: Mapping[str, Any]
    gpus: int = 1

    @property
    def resources(self) -> dict[str, float]:
        return {RESOURCE: self.gpus}

    @classmethod
    def from_config(cls, planner: str, config: Mapping[str, Any]) -> ServiceSpec:
        """Check the ``vllm`` section (``planners.openai_compat.vllm_section``, the one check of its keys)
        and the command it builds; errors name ``planner.<name>.vllm.<key>``."""
        try:
            vllm = vllm_section(config.get("vllm"))
            build_command(config, port=0)
        except ValueError as exc:
            raise ServiceConfigError(str(exc).replace("planner.", f"planner.{planner}.", 1)) from None
        return cls(planner, {k: config[k] for k in SERVER_KEYS if k in config}, int(vllm.get("gpus") or 1))


def service_specs(configs: Sequence[tuple[str, Mapping[str, Any]]]) -> list[ServiceSpec]:
    """One spec per planner that needs a server, from its (planner, config) pairs (one per cell): the
    cells of a planner share its server, so what defines the server must not differ between them."""
    specs: dict[str, ServiceSpec] = {}
    for planner, config in configs:
        if not needs_server(config):
            continue
        spec = ServiceSpec.from_config(planner, config)
        if planner in specs and specs[planner] != spec:
            differs = next(k for k in SERVER_KEYS if specs[planner].config.get(k) != spec.config.get(k))
            raise ServiceConfigError(
                f"planner.{planner}.{differs}: differs between the sweep's cells, but they share one vLLM server"
            )
        specs[planner] = spec
    return list(specs.values())


@dataclass(frozen=True)
class Placement:
    worker: str  # the worker's address
    host: str  # where the server binds and is reached
    devices: tuple[int, ...]  # which of the worker's GPUs (indices into its CUDA_VISIBLE_DEVICES)


def worker_host(address: str) -> str:
    """The host other nodes reach a worker at (its own address); 127.0.0.1 for in-process workers."""
    if address.partition("://")[0] not in ("tcp", "tls", "ws", "wss"):
        return "127.0.0.1"
    return get_address_host(address)


def place(specs: Sequence[ServiceSpec], workers: Mapping[str, Mapping[str, Any]]) -> dict[str, Placement]:
    """A worker for each server (best fit, biggest servers first), from the scheduler's worker info."""
    capacity = {a: float((w.get("resources") or {}).get(RESOURCE, 0)) for a, w in sorted(workers.items())}
    used = dict.fromkeys(capacity, 0)
    taken: list[str] = []
    placements: dict[str, Placement] = {}
    for spec in sorted(specs, key=lambda s: -s.gpus):
        fits = [a for a in capacity if capacity[a] - used[a] >= spec.gpus]
        if not fits:
            others = (
                f" besides the servers of {', '.join(taken)}"
                if taken and any(c >= spec.gpus for c in capacity.values())
                else ""
            )
            raise ServiceConfigError(
                f"planner.{spec.planner}.base_url: null and no worker offers resources {RESOURCE}={spec.gpus}"
                f"{others}; give a base URL or a GPU worker (planner.{spec.planner}.base_url=http://host:port/v1, "
                f"or cluster.resources={{{RESOURCE}:{spec.gpus}}} locally, `dask worker ... --resources "
                f"{RESOURCE}={spec.gpus}` elsewhere)"
            )
        address = min(fits, key=lambda a: (capacity[a] - used[a], a))
        placements[spec.planner] = Placement(
            address, worker_host(address), tuple(range(used[address], used[address] + spec.gpus))
        )
        used[address] += spec.gpus
        taken.append(spec.planner)
    return placements


def wait_for_placement(
    client: Client, specs: Sequence[ServiceSpec], wait_s: float = 0.0, poll_s: float = 1.0
) -> dict[str, Placement]:
    """``place`` on the workers the scheduler knows, waiting up to ``wait_s`` for suitable ones to join
    (SLURM or Kubernetes workers start after the driver)."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return place(specs, client.scheduler_info(n_workers=-1).get("workers", {}))
        except ServiceConfigError:
            if time.monotonic() >= deadline:
                raise
        time.sleep(poll_s)


def _visible_devices(devices: Sequence[int]) -> str:
    """CUDA_VISIBLE_DEVICES for the server: the worker's own list, narrowed to ``devices``."""
    own = [d.strip() for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
    if own and max(devices) < len(own):
        return ",".join(own[i] for i in devices)
    return ",".join(str(i) for i in devices)


def _stop_quietly(server: VLLMServer) -> None:
    try:
        server.stop()
    except Exception:  # a finalizer must not raise
        log.exception("stopping the vLLM server %s", server.log_path)


class VLLMService:
    """The Dask Actor that owns one vLLM server on its worker. ``start`` and ``stop`` are coroutines, so
    they run on the worker's event loop side by side: a ``stop`` sent during a long start-up kills it."""

    def __init__(
        self, planner: str, config: Mapping[str, Any], host: str, devices: Sequence[int], log_path: str | None = None
    ) -> None:
        """``log_path``: the driver's choice of log file (None: in the worker's local directory)."""
        vllm = dict(config.get("vllm") or {})
        gpus = int(vllm.get("gpus", 1))
        serve_args = [str(a) for a in vllm.get("serve_args") or []]
        if gpus > 1 and not any(
            a in ("--tensor-parallel-size", "-tp") or a.startswith("--tensor-parallel-size=") for a in serve_args
        ):
            serve_args += ["--tensor-parallel-size", str(gpus)]
        env = {str(k): str(v) for k, v in (vllm.get("env") or {}).items()}
        env.setdefault("CUDA_VISIBLE_DEVICES", _visible_devices(devices))
        own_dir = Path(get_worker().local_directory) / "vllm"
        log = Path(log_path) if log_path else None
        if log is not None:
            try:
                log.parent.mkdir(parents=True, exist_ok=True)
            except OSError:  # not writable from this node (no shared file system): the worker's own folder
                log = own_dir / log.name
        self.planner = planner
        self._stopped = False
        self.server = VLLMServer(
            {**config, "vllm": {**vllm, "serve_args": serve_args}},
            python=str(vllm.get("python") or sys.executable),
            env=env,
            log_path=log,
            run_dir=own_dir,
            module=str(vllm.get("module") or API_SERVER_MODULE),
            host=host,
            startup_timeout=float(vllm.get("startup_timeout_s") or 900.0),
            stop_timeout=float(vllm.get("stop_timeout_s") or 30.0),
            poll_interval=float(vllm.get("poll_interval_s") or 1.0),
            die_with_parent=True,
        )
        weakref.finalize(self, _stop_quietly, self.server)  # released actor or exiting worker: no orphan

    async def start(self) -> dict[str, Any]:
        """Start the server and wait until it serves the model; its base URL, log path and process id."""
        if self._stopped:
            raise ServerStartupError("stopped before it started")
        await self.server.astart()
        if self._stopped:  # a stop arrived while the process was being spawned
            await self.server.astop()
            raise ServerStartupError("stopped while starting")
        assert self.server.process is not None
        return {
            "base_url": self.server.base_url,
            "log": str(self.server.log_path),
            "pid": self.server.process.pid,
            **engine_facts(self.server.log_path),  # read here: the driver may not see this node's files
        }

    async def stop(self) -> dict[str, Any]:
        """Stop the whole process group (SIGTERM, then SIGKILL after ``stop_timeout_s``); the exit code of
        a server that had already ended on its own (None when it was still serving), its log and, if it
        had ended, the log's last lines (read here: the driver may not see this node's files)."""
        self._stopped = True
        process = self.server.process
        ended = process.poll() if process is not None else None
        await self.server.astop()
        log_path = self.server.log_path
        tail = log_tail(log_path) if ended is not None and log_path is not None else ""
        return {"exited": ended, "log": str(log_path), "tail": tail}


@dataclass(frozen=True)
class Service:
    """A started server, as the driver sees it."""

    planner: str
    worker: str
    base_url: str
    log: str
    pid: int
    vllm_version: str | None = None  # as the server's log says (cluster.vllm.engine_facts)
    device: str | None = None  # cpu, cuda, ...: what its server-seconds were spent on


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)


def _say(line: str) -> None:
    """A progress line on stdout, flushed: read live in a log file as on a terminal."""
    print(line, flush=True)


def log_file(spec: ServiceSpec, log_dir: Path | None) -> str | None:
    """Where a server's log goes: ``vllm.log_dir``, else ``log_dir``; None leaves it to the worker."""
    folder = (spec.config.get("vllm") or {}).get("log_dir") or log_dir
    if folder is None:
        return None
    return str(
        Path(folder).resolve() / f"vllm-{_safe(spec.planner)}-{time.strftime('%Y%m%d-%H%M%S')}-"
        f"{uuid.uuid4().hex[:6]}.log"
    )


@contextmanager
def vllm_services(
    client: Client,
    specs: Sequence[ServiceSpec],
    *,
    wait_s: float = 0.0,
    create_timeout_s: float = 120.0,
    log_dir: Path | None = None,
    heartbeat_s: float = 60.0,
    say: Callable[[str], None] = _say,
) -> Iterator[dict[str, Service]]:
    """Start a server per spec (all at once) and yield them by planner; stop them all on leaving, also on
    an error or an interrupt. Placement problems raise ``ServiceConfigError`` before anything starts;
    a server that fails to start raises ``ServerStartupError`` naming the planner, with its log tail.
    Each server logs to ``vllm.log_dir``, else under ``log_dir``, else in its worker's local directory
    (deleted with a local cluster); ``say`` gets a line as each starts, is ready, or is found dead."""
    if not specs:
        yield {}
        return
    placements = wait_for_placement(client, specs, wait_s)
    futures = {}
    actors: dict[str, Any] = {}
    logs: dict[str, str] = {}
    try:
        for spec in specs:
            where = placements[spec.planner]
            path = log_file(spec, log_dir)
            logs[spec.planner] = path or "the worker's local directory"
            gpus = ",".join(map(str, where.devices))
            say(
                f"vLLM for {spec.planner}: starting {spec.config.get('model')} on worker {where.worker} "
                f"(GPU {gpus}); log {logs[spec.planner]}"
            )
            futures[spec.planner] = client.submit(
                VLLMService,
                spec.planner,
                dict(spec.config),
                where.host,
                where.devices,
                path,
                actor=True,
                workers=[where.worker],
                allow_other_workers=False,
                resources=spec.resources,
                pure=False,
                key=f"vllm-service-{_safe(spec.planner)}-{uuid.uuid4().hex[:8]}",
            )
        began = time.monotonic()
        for planner, future in futures.items():
            actors[planner] = future.result(timeout=create_timeout_s)
        starting = {planner: actor.start() for planner, actor in actors.items()}
        services: dict[str, Service] = {}
        for planner, started in starting.items():
            while True:
                try:
                    info = started.result(timeout=heartbeat_s)
                    break
                except TimeoutError:
                    say(
                        f"vLLM for {planner}: still starting after {time.monotonic() - began:.0f} s "
                        f"(log {logs[planner]})"
                    )
                except ServerStartupError as exc:
                    raise ServerStartupError(
                        f"planner.{planner}: vLLM server on worker {placements[planner].worker}: {exc}"
                    ) from None
            logs[planner] = info["log"]
            services[planner] = Service(
                planner,
                placements[planner].worker,
                info["base_url"],
                info["log"],
                int(info["pid"]),
                info.get("vllm_version"),
                info.get("device"),
            )
            say(
                f"vLLM for {planner}: ready in {time.monotonic() - began:.1f} s at {info['base_url']} "
                f"(log {info['log']})"
            )
        yield services
    finally:
        for planner, actor in actors.items():
            try:
                ended = actor.stop().result(timeout=120)
            except Exception:  # keep stopping the others; the finalizer is the fallback
                log.exception("stopping the vLLM server of %s (log %s)", planner, logs.get(planner))
                continue
            if ended["exited"] is not None:
                say(
                    f"vLLM for {planner}: the server had exited with code {ended['exited']} during the sweep; "
                    f"last {LOG_TAIL_LINES} lines of {ended['log']}:\n{ended['tail']}"
                )
        for future in futures.values():
            future.release()
