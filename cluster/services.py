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
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
import uuid
import weakref
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from distributed import Client, get_worker
from distributed.comm.addressing import get_address_host

from cluster.vllm import API_SERVER_MODULE, ServerStartupError, VLLMServer, build_command

log = logging.getLogger(__name__)

RESOURCE = "GPU"
"""The Dask worker resource a vLLM server needs (``dask worker ... --resources GPU=1``)."""

VLLM_KEYS = frozenset({
    "tool_call_parser", "chat_template", "serve_args",  # the server's command line (cluster.vllm)
    "gpus", "module", "python", "env", "log_dir", "startup_timeout_s", "stop_timeout_s", "poll_interval_s",
})
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
        """Check the ``vllm`` section (and the command it builds); errors name ``planner.<name>.vllm.<key>``."""
        vllm = config.get("vllm") or {}
        if not isinstance(vllm, Mapping):
            raise ServiceConfigError(f"planner.{planner}.vllm: must be a mapping, got {type(vllm).__name__}")
        unknown = sorted(set(vllm) - VLLM_KEYS)
        if unknown:
            raise ServiceConfigError(f"planner.{planner}.vllm.{unknown[0]}: unknown key; known: "
                                     f"{', '.join(sorted(VLLM_KEYS))}")
        gpus = vllm.get("gpus", 1)
        if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 1:
            raise ServiceConfigError(f"planner.{planner}.vllm.gpus: an integer >= 1, got {gpus!r}")
        env = vllm.get("env") or {}
        if not isinstance(env, Mapping):
            raise ServiceConfigError(f"planner.{planner}.vllm.env: a mapping of environment variables")
        for key in ("startup_timeout_s", "stop_timeout_s", "poll_interval_s"):
            value = vllm.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int | float) or value <= 0):
                raise ServiceConfigError(f"planner.{planner}.vllm.{key}: a number > 0, got {value!r}")
        try:
            build_command(config, port=0)
        except ValueError as exc:
            raise ServiceConfigError(str(exc).replace("planner.", f"planner.{planner}.", 1)) from None
        return cls(planner, {k: config[k] for k in SERVER_KEYS if k in config}, gpus)


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
            raise ServiceConfigError(f"planner.{planner}.{differs}: differs between the sweep's cells, "
                                     "but they share one vLLM server")
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
            others = f" besides the servers of {', '.join(taken)}" if taken and any(
                c >= spec.gpus for c in capacity.values()) else ""
            raise ServiceConfigError(
                f"planner.{spec.planner}.base_url: null and no worker offers resources {RESOURCE}={spec.gpus}"
                f"{others}; give a base URL or a GPU worker (planner.{spec.planner}.base_url=http://host:port/v1, "
                f"or cluster.resources={{{RESOURCE}:{spec.gpus}}} locally, `dask worker ... --resources "
                f"{RESOURCE}={spec.gpus}` elsewhere)")
        address = min(fits, key=lambda a: (capacity[a] - used[a], a))
        placements[spec.planner] = Placement(address, worker_host(address),
                                             tuple(range(used[address], used[address] + spec.gpus)))
        used[address] += spec.gpus
        taken.append(spec.planner)
    return placements


def wait_for_placement(client: Client, specs: Sequence[ServiceSpec], wait_s: float = 0.0,
                       poll_s: float = 1.0) -> dict[str, Placement]:
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

    def __init__(self, planner: str, config: Mapping[str, Any], host: str, devices: Sequence[int]) -> None:
        vllm = dict(config.get("vllm") or {})
        gpus = int(vllm.get("gpus", 1))
        serve_args = [str(a) for a in vllm.get("serve_args") or []]
        if gpus > 1 and not any(a in ("--tensor-parallel-size", "-tp") or a.startswith("--tensor-parallel-size=")
                                for a in serve_args):
            serve_args += ["--tensor-parallel-size", str(gpus)]
        env = {str(k): str(v) for k, v in (vllm.get("env") or {}).items()}
        env.setdefault("CUDA_VISIBLE_DEVICES", _visible_devices(devices))
        log_dir = vllm.get("log_dir") or Path(get_worker().local_directory) / "vllm"
        self.planner = planner
        self._stopped = False
        self.server = VLLMServer(
            {**config, "vllm": {**vllm, "serve_args": serve_args}}, python=str(vllm.get("python") or sys.executable),
            env=env, run_dir=log_dir, module=str(vllm.get("module") or API_SERVER_MODULE), host=host,
            startup_timeout=float(vllm.get("startup_timeout_s") or 900.0),
            stop_timeout=float(vllm.get("stop_timeout_s") or 30.0),
            poll_interval=float(vllm.get("poll_interval_s") or 1.0), die_with_parent=True,
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
        return {"base_url": self.server.base_url, "log": str(self.server.log_path), "pid": self.server.process.pid}

    async def stop(self) -> None:
        """Stop the whole process group (SIGTERM, then SIGKILL after ``stop_timeout_s``)."""
        self._stopped = True
        await self.server.astop()


@dataclass(frozen=True)
class Service:
    """A started server, as the driver sees it."""

    planner: str
    worker: str
    base_url: str
    log: str
    pid: int


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)


@contextmanager
def vllm_services(client: Client, specs: Sequence[ServiceSpec], *, wait_s: float = 0.0,
                  create_timeout_s: float = 120.0) -> Iterator[dict[str, Service]]:
    """Start a server per spec (all at once) and yield them by planner; stop them all on leaving, also on
    an error or an interrupt. Placement problems raise ``ServiceConfigError`` before anything starts;
    a server that fails to start raises ``ServerStartupError`` naming the planner, with its log tail."""
    if not specs:
        yield {}
        return
    placements = wait_for_placement(client, specs, wait_s)
    futures = {}
    actors: dict[str, Any] = {}
    try:
        for spec in specs:
            where = placements[spec.planner]
            futures[spec.planner] = client.submit(
                VLLMService, spec.planner, dict(spec.config), where.host, where.devices, actor=True,
                workers=[where.worker], allow_other_workers=False, resources=spec.resources, pure=False,
                key=f"vllm-service-{_safe(spec.planner)}-{uuid.uuid4().hex[:8]}")
        for planner, future in futures.items():
            actors[planner] = future.result(timeout=create_timeout_s)
        starting = {planner: actor.start() for planner, actor in actors.items()}
        services: dict[str, Service] = {}
        for planner, started in starting.items():
            try:
                info = started.result()
            except ServerStartupError as exc:
                raise ServerStartupError(f"planner.{planner}: vLLM server on worker "
                                         f"{placements[planner].worker}: {exc}") from None
            services[planner] = Service(planner, placements[planner].worker, info["base_url"], info["log"],
                                        int(info["pid"]))
            log.info("vLLM server for %s on %s at %s (log %s)", planner, placements[planner].worker,
                     info["base_url"], info["log"])
        yield services
    finally:
        for planner, actor in actors.items():
            try:
                actor.stop().result(timeout=120)
            except Exception:  # keep stopping the others; the finalizer is the fallback
                log.exception("stopping the vLLM server of %s", planner)
        for future in futures.values():
            future.release()
