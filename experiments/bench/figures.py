"""``mobilepa bench``: every performance figure side by side, in one process run, medians over repeats.

- ``reset_us``: median µs from the end of one episode to the start of the next on the largest persona
  world (``world_bytes``): the rollback that restores the world, the task's patches, the executor; and
  ``load_world_us``: loading the world's image into a connection, paid once per connection and world.
- ``tool_calls_per_s``: a mix of every split task's gold actions (reads, writes, recoveries from
  friction) plus three malformed calls per task, on one core, timed inside ``Episode.step``; and
  ``raw_sqlite_calls_per_s``: *exactly the statements the executor issued*, with their parameters,
  replayed through a plain ``sqlite3`` connection from the same start state, so ``overhead_vs_raw``
  measures the toolkit's own cost (validation, SQLAlchemy, envelopes, logging), not another workload.
- ``oracle_episodes_per_s``: gold replay plus full verification over the whole split (skill tasks
  under both conditions), in this process, on one core.
- ``sweep_wall_s``: ``mobilepa sweep planner=oracle split=<split> seed=0`` end to end (local Dask
  cluster start, results store, MLflow logging, report) into a temporary directory.
- ``scaling_2_over_1``: the oracle sweep's episode rate while its units run (planning, the report
  and the cluster's start are fixed costs, counted in ``sweep_wall_s``) on 2 workers over 1 (warm
  clusters, no tracking, seeds 0-2: 5,715 episodes on ``full``), and ``peak_rss_mb``: the largest
  worker's peak resident memory in that sweep.
- ``llm_bound_efficiency``: episodes/s against the scripted OpenAI-compatible server (its own
  process) answering each completion after a fixed 200 ms, over the ideal for 256 in flight, with
  the episodes in two client processes (128 in flight each, as the default cluster's two workers),
  on warm clients (each has run the split once: ``llm_bound_efficiency_cold`` is that first pass);
  and the CPU milliseconds each episode costs the clients and the server, whose sum bounds what
  the machine's cores can deliver (``llm_cpu_ceiling_episodes_per_s``).

- ``cli_help_s``: the slowest ``mobilepa [COMMAND] --help`` of every command (each listed in
  ``cli_help_by_command_s``), and ``cli_run_one_task_s``: ``mobilepa run planner=oracle
  split=handwritten limit=1`` end to end; each a fresh process, as a user types it.

``mobilepa bench sandbox`` runs only the first two (seconds instead of minutes), ``mobilepa bench llm``
the LLM-bound figure (a cold pass and three warm ones, under a minute: for comparing changes to the
LLM-bound path, run after run), ``mobilepa bench cli`` only the CLI's (seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import gc
import io
import json
import multiprocessing
import os
import platform
import queue
import re
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import text

from sandbox.conditions import expand
from sandbox.db import Traced, open_database, raw, trace_statements
from sandbox.episode import Episode
from sandbox.personas import PERSONAS
from sandbox.suite import TASK_DIR, load_split
from sandbox.tasks import Task
from sandbox.tooling import REGISTRY
from sandbox.world import world_image

LLM_LATENCY_MS = 200
LLM_IN_FLIGHT = 256
SCALING_SEEDS = "0,1,2"  # the scaling sweeps run three cells: a one-cell sweep lasts ~1.5 s on 2 workers, where
# its last unit's tail and the VM's jitter swing the ratio by +-0.3
LLM_CLIENTS = 2  # client processes in the LLM-bound figure, as the default local cluster's two workers
SPLITS = {"full.jsonl": "full", "handwritten.jsonl": "handwritten"}  # task file -> conf/split name
TARGETS = {  # on the 2-core reference machine
    "reset_us": ("<=", 1000),
    "tool_calls_per_s": (">=", 5000),
    "overhead_vs_raw": ("<=", 3),
    "oracle_episodes_per_s": (">=", 300),
    "sweep_wall_s": ("<=", 30),
    "llm_bound_efficiency": (">=", 0.9),
    "scaling_2_over_1": (">=", 1.6),
    "peak_rss_mb": ("<=", 1000),
    "cli_help_s": ("<=", 0.5),  # the slowest command's --help
    "cli_run_one_task_s": ("<=", 3),
}


def machine() -> dict[str, Any]:
    model = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") if hasattr(os, "sysconf") else 0
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu": model,
        "cpus": os.cpu_count(),
        "cpus_usable": usable,
        "ram_gb": round(ram / 2**30, 1),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def default_split() -> str:
    return "full.jsonl" if (TASK_DIR / "full.jsonl").is_file() else "handwritten.jsonl"


def largest_world() -> tuple[str, int]:
    sizes = {p: len(world_image(p)) for p in sorted(PERSONAS)}
    name = max(sizes, key=lambda p: (sizes[p], p))
    return name, sizes[name]


def reset_us(task: Task, repeats: int) -> float:
    """Median µs to end an episode and start the next on the same world: the rollback that restores
    the world, the task's patches, the executor (as a warm worker does between episodes)."""
    Episode(task).close()
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        Episode(task).close()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1e6


def load_us(image: bytes, repeats: int) -> float:
    """Median µs to load a world image into a connection (a new connection, or one lent to another world)."""
    conn = open_database(image)
    samples = []
    try:
        for _ in range(repeats):
            started = time.perf_counter()
            raw(conn).deserialize(image)
            conn.execute(text("SELECT value FROM meta WHERE key = 'now'")).scalar()  # SQLite re-reads the schema
            samples.append(time.perf_counter() - started)
    finally:
        conn.close()
    return statistics.median(samples) * 1e6


Mix = list[tuple[Task, list[tuple[str, Any]]]]


def mixed_calls(tasks: list[Task]) -> Mix:
    """Each task's gold actions (reads, writes, recoveries from errors) plus three malformed calls."""
    mix = []
    for t in tasks:
        calls = [(a.name, a.arguments) for a in t.gold if a.name != "finish"]
        first = calls[0][0] if calls else "search_contacts"
        calls += [(first, {"unexpected_argument": 1}), ("no_such_tool", {}), (first, {})]
        mix.append((t, calls))
    return mix


def run_mix(mix: Mix) -> tuple[float, int]:
    """Seconds spent inside ``Episode.step`` for the whole mix, and the call count."""
    spent, calls = 0.0, 0
    clock = time.perf_counter
    for task, actions in mix:
        with Episode(task) as episode:
            for name, arguments in actions:
                started = clock()
                episode.step(name, arguments)
                spent += clock() - started
            calls += len(actions)
    return spent, calls


def _replay(connection: sqlite3.Connection, statements: list[Traced]) -> None:
    for sql, params, many in statements:
        if sql == "COMMIT":
            connection.commit()
        elif sql == "ROLLBACK":
            connection.rollback()
        elif many:
            connection.executemany(sql, params)
        else:
            connection.execute(sql, params).fetchall()


Captured = list[tuple[bytes, list[Traced], int]]  # world image, every statement of the episode, where its steps start


def capture(mix: Mix) -> tuple[Captured, int]:
    """Every statement each task's episode sends to SQLite (its start included, so a plain connection
    can rebuild the start state), and how many of them its steps sent."""
    captured: Captured = []
    for task, actions in mix:
        with trace_statements() as statements, Episode(task) as episode:
            start = len(statements)
            for name, arguments in actions:
                episode.step(name, arguments)
            steps = list(statements)  # closing the episode (its rollback) is not a step
        captured.append((world_image(task.initial_state.world), steps, start))
    return captured, sum(len(s) - start for _, s, start in captured)


def replay_raw(connection: sqlite3.Connection, captured: Captured) -> float:
    """Seconds to run the steps' statements through plain sqlite3, each task from its own start state
    (its world loaded and its start replayed, untimed), reusing one connection with a large statement
    cache as the executor does."""
    total = 0.0
    for image, statements, start in captured:
        if connection.in_transaction:
            connection.rollback()
        connection.deserialize(image)
        _replay(connection, statements[:start])
        started = time.perf_counter()
        _replay(connection, statements[start:])
        total += time.perf_counter() - started
    return total


def bench_sandbox(tasks: list[Task], repeats: int) -> dict[str, Any]:
    """Tool calls through the toolkit and the same statements through plain sqlite3, pass by pass (each
    repeat runs both back to back, so the ratio compares the machine with itself)."""
    world, size = largest_world()
    probe = Task.model_validate({**tasks[0].model_dump(), "initial_state": {"world": world}})
    mix = mixed_calls(tasks)
    captured, statements = capture(mix)  # also warms world images and compiled statements
    gc.freeze()  # the suite and the captured statements are not the workload: the collector skips them
    connection = sqlite3.connect(":memory:", isolation_level=None, cached_statements=4096)
    try:
        replay_raw(connection, captured)  # an untimed pass prepares every statement
        passes = [(run_mix(mix), replay_raw(connection, captured)) for _ in range(repeats)]
    finally:
        connection.close()
    calls = passes[0][0][1]
    spent = statistics.median(toolkit for (toolkit, _), _ in passes)
    raw = statistics.median(r for _, r in passes)
    tools = {name for _, actions in mix for name, _ in actions if name in REGISTRY}
    return {
        "world": world,
        "world_bytes": size,
        "reset_us": round(reset_us(probe, 200), 1),
        "load_world_us": round(load_us(world_image(world), 50), 1),
        "tool_calls": calls,
        "tools_in_mix": len(tools),
        "tool_calls_per_s": round(calls / spent, 1),
        "raw_sqlite_calls_per_s": round(calls / raw, 1),
        "overhead_vs_raw": round(statistics.median(toolkit / r for (toolkit, _), r in passes), 2),
        "statements_per_call": round(statements / calls, 2),
    }


# ---- whole-split figures ------------------------------------------------------------------------


async def _drain(results: Any) -> list[Any]:
    return [r async for r in results]


def bench_oracle(tasks: list[Task], repeats: int) -> dict[str, Any]:
    """Gold replay plus verification of every episode of the split, one process, one core."""
    from experiments.episodes.loop import run_many
    from planners.reference import OraclePlanner

    for persona in PERSONAS:
        world_image(persona)
    rates, passed, episodes = [], 0, 0
    for _ in range(repeats):
        started = time.perf_counter()
        results = asyncio.run(_drain(run_many(tasks, OraclePlanner(), concurrency=64, condition="both")))
        rates.append(len(results) / (time.perf_counter() - started))
        passed, episodes = sum(r.verdict.passed for r in results), len(results)
    return {
        "oracle_episodes": episodes,
        "oracle_passed": passed,
        "oracle_episodes_per_s": round(statistics.median(rates), 1),
    }


def _sweep_args(split: str, tmp: Path, *extra: str, seeds: str = "0") -> list[str]:
    return [
        "planner=oracle",
        f"split={SPLITS[split]}",
        f"seed={seeds}",
        f"store={tmp / 'results.db'}",
        f"report_dir={tmp / 'report'}",
        f"tracking.uri=sqlite:///{tmp / 'mlflow.db'}",
        "name=bench",
        *extra,
    ]


def bench_sweep(split: str, repeats: int) -> dict[str, Any]:
    """``mobilepa sweep planner=oracle split=<split> seed=0`` end to end, cluster start included."""
    from experiments.commands.sweep import sweep_main

    walls, code = [], 0
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="mobilepa-bench-") as tmp:
            saved = os.environ.pop("MLFLOW_TRACKING_URI", None)
            try:
                started = time.perf_counter()
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    code = sweep_main(_sweep_args(split, Path(tmp)))
                walls.append(time.perf_counter() - started)
            finally:
                if saved is not None:
                    os.environ["MLFLOW_TRACKING_URI"] = saved
    return {"sweep_wall_s": round(statistics.median(walls), 2), "sweep_exit_code": code}


def _warm_worker(split_file: str) -> int:
    """Run on each worker before timing: its collector tuned as a sweep's workers are, worlds built, the
    split parsed (what a first unit would pay)."""
    import sandbox.domains  # noqa: F401  (registers every tool: in the process that runs episodes, not at import)
    from experiments.execution.units import split_tasks_for_unit, tune_worker_process

    tune_worker_process()
    for persona in PERSONAS:
        world_image(persona)
    return len(split_tasks_for_unit(split_file, None, None))


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def bench_scaling(split: str, repeats: int) -> dict[str, Any]:
    """The oracle sweep's episode rate on 2 warm workers over 1 (no tracking); the workers' peak RSS.

    Warm: each cluster runs the sweep once untimed first, so every worker's connections hold their
    worlds with their statements prepared. A worker's first sweep pays that once (about a quarter of
    its CPU on this split), and half the episodes per worker would make that fixed cost count twice
    as much on 2 workers, measuring warm-up instead of scaling.

    Both clusters stay up and their timed sweeps alternate (1, 2, 2, 1, 1, 2, ...), and the figure is
    the median of the ratios of adjacent pairs: this VM's speed drifts by up to 2.5x over minutes,
    and timing all of one cluster's sweeps before the other's measured that drift (1.33 to 1.91 for
    the same code)."""
    from cluster.dask_runner import dask_client
    from experiments.commands.plans import load_config, parse_args, sweep_plan
    from experiments.execution.sweep import run_sweep

    def rate(client: Any) -> float:
        with tempfile.TemporaryDirectory(prefix="mobilepa-bench-") as tmp:
            plan = sweep_plan(_sweep_args(split, Path(tmp), "tracking=none", seeds=SCALING_SEEDS))
            with contextlib.redirect_stderr(io.StringIO()):
                outcome = run_sweep(plan, client=client)
        return outcome.ran / outcome.run_s

    with contextlib.ExitStack() as stack:
        clients = {
            workers: stack.enter_context(
                dask_client(load_config(*parse_args(["tracking=none", f"cluster.n_workers={workers}"])).cluster)
            )
            for workers in (1, 2)
        }
        for client in clients.values():
            client.run(_warm_worker, split)
            rate(client)  # untimed: connections and statements warm
        samples: dict[int, list[float]] = {1: [], 2: []}
        for pair in range(repeats):
            for workers in (1, 2) if pair % 2 == 0 else (2, 1):
                samples[workers].append(rate(clients[workers]))
        peak = max(clients[2].run(_peak_rss_mb).values())
    ratios = [two / one for one, two in zip(samples[1], samples[2], strict=True)]
    return {
        "sweep_1_worker_episodes_per_s": round(statistics.median(samples[1]), 1),
        "sweep_2_workers_episodes_per_s": round(statistics.median(samples[2]), 1),
        "scaling_2_over_1": round(statistics.median(ratios), 2),
        "peak_rss_mb": round(peak, 1),
    }


def _serve(split_file: str, policy: str, ports: Any, stop: Any) -> None:
    """The scripted server, in its own process so its work does not share the client's event loop, on
    uvloop where it is installed, as vLLM's server runs (it stands in for that server, whose CPU is not
    the client machine's: on this VM uvloop cut the server's CPU per request by about a tenth)."""
    import sandbox.domains  # noqa: F401  (registers every tool: in the process that runs episodes, not at import)
    from experiments.bench.scripted_server import ScriptedServer
    from experiments.execution.units import split_tasks_for_unit, tune_worker_process

    async def serve() -> None:
        # loaded as a worker loads them: frozen out of the collector's sight (a full collection over them
        # stalled replies), its young generation collected at the workers' threshold
        tune_worker_process()
        tasks = list(split_tasks_for_unit(split_file, None, None).values())
        server = ScriptedServer(tasks, policy, keep_bodies=False)
        async with server:
            ports.put(server.port)
            while not stop.is_set():
                await asyncio.sleep(0.05)

    try:
        import uvloop
    except ImportError:  # not on Windows
        asyncio.run(serve())
    else:
        uvloop.run(serve())


def _cpu_s(pid: int) -> float | None:
    """CPU seconds a process has used (Linux ``/proc``; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _llm_client(
    split_file: str, shard: int, shards: int, port: int, in_flight: int, ready: Any, go: list[Any], out: Any
) -> None:
    """One client process (as one worker of the default two-worker cluster): its share of the episodes
    and of the in-flight requests, run once per pass, each pass started together with the other clients."""
    import sandbox.domains  # noqa: F401  (registers every tool: in the process that runs episodes, not at import)
    from experiments.episodes.loop import run_many
    from experiments.execution.units import freeze_warm_state, split_tasks_for_unit, tune_worker_process
    from planners import build_planner

    # as a worker loads them; dealt by gold length, so each client gets the same work, as Dask balances
    # a sweep's units across its workers
    tune_worker_process()
    tasks = sorted(split_tasks_for_unit(split_file, None, None).values(), key=lambda t: len(t.gold))[shard::shards]
    for persona in PERSONAS:
        world_image(persona)
    config = {
        "kind": "openai",
        "model": "scripted",
        "base_url": f"http://127.0.0.1:{port}/v1",
        "concurrency": in_flight,
        "timeouts": {"connect": 60, "read": 120},
        "retries": {"max": 3, "backoff_s": 0.1, "max_backoff_s": 1.0},
        "sampling": {"temperature": 0.0, "max_tokens": 256},
        "tool_choice": "auto",
    }

    async def drive() -> list[Any]:
        planner = build_planner(config)
        try:
            return await _drain(run_many(tasks, planner, concurrency=in_flight, condition="both"))
        finally:
            await planner.aclose()  # type: ignore[attr-defined]

    ready.put(shard)
    for index, started in enumerate(go):
        started.wait()
        cpu = time.process_time()
        results = asyncio.run(drive())
        cpu = time.process_time() - cpu
        part = {
            "episodes": len(results),
            "passed": sum(r.verdict.passed for r in results),
            "infra_errors": sum(r.trajectory.termination == "infra_error" for r in results),
            "completions": sum(len(r.trajectory.steps) for r in results),
            "cpu_s": cpu,
        }
        del results
        freeze_warm_state()  # as a worker does after its first unit; before reporting, so the next pass starts warm
        out.put((index, part))


def bench_llm(split_file: str, warm_passes: int = 1) -> dict[str, Any]:
    """Episodes/s against a server taking 200 ms per completion, over the ideal for 256 in flight, with
    the clients in two processes (the default cluster's two workers) and the server in a third.

    Passes over the split: one ``cold``, from processes that have only built their worlds (each new
    connection loads a world image and prepares its statements: with 128 episodes in flight a process
    opens about 180 connections, a few episodes each in one pass), then ``warm_passes`` by the same
    processes again, as a worker is for all but the first minute of a sweep. The figures are the warm
    pass of median efficiency (``llm_bound_efficiency_passes`` lists them all); the CPU each episode
    costs the clients and the server there bounds what the machine's cores can deliver
    (``llm_cpu_ceiling_episodes_per_s``)."""
    spawn = multiprocessing.get_context("spawn")
    ports, stop, ready, out = spawn.Queue(), spawn.Event(), spawn.Queue(), spawn.Queue()
    go = [spawn.Event() for _ in range(1 + warm_passes)]
    server = spawn.Process(target=_serve, args=(split_file, f"latency:{LLM_LATENCY_MS}", ports, stop), daemon=True)
    server.start()
    clients: list[Any] = []
    passes: list[dict[str, Any]] = []
    try:
        watched = {"the scripted server": server}
        port = _next_from(ports, watched, 120, "the server's port")
        clients = [
            spawn.Process(
                target=_llm_client,
                args=(split_file, i, LLM_CLIENTS, port, LLM_IN_FLIGHT // LLM_CLIENTS, ready, go, out),
                daemon=True,
            )
            for i in range(LLM_CLIENTS)
        ]
        for i, c in enumerate(clients):
            c.start()
            watched[f"LLM client {i}"] = c
        for _ in clients:
            _next_from(ready, watched, 300, "the clients to load the split")
        for index, started in enumerate(go):
            server_cpu = _cpu_s(server.pid) if server.pid else None
            clock = time.perf_counter()
            started.set()
            parts = [_next_from(out, watched, 1800, f"pass {index}") for _ in clients]
            wall = time.perf_counter() - clock
            server_end = _cpu_s(server.pid) if server.pid else None
            assert all(i == index for i, _ in parts)
            server_s = server_end - server_cpu if server_cpu is not None and server_end is not None else None
            passes.append(_llm_pass([p for _, p in parts], wall, server_s))
    finally:
        stop.set()
        for p in [*clients, server]:
            p.join(10)
            if p.is_alive():
                p.terminate()
    cold, *warm = passes
    median = sorted(warm, key=lambda p: p["llm_bound_efficiency"])[(len(warm) - 1) // 2]
    return {
        **median,
        "llm_bound_efficiency_passes": [p["llm_bound_efficiency"] for p in warm],
        "llm_bound_efficiency_cold": cold["llm_bound_efficiency"],
        "llm_client_cpu_ms_per_episode_cold": cold["llm_client_cpu_ms_per_episode"],
    }


def _next_from(source: Any, processes: dict[str, Any], timeout_s: float, awaited: str) -> Any:
    """The next item on a process queue; an error naming the process as soon as one of ``processes`` has
    failed (exited non-zero or killed; its traceback is on stderr above), not after ``timeout_s``: a
    client that crashed mid-pass would otherwise hold the bench for half an hour. A client that has
    exited 0 is done: it put its last pass's figures before exiting."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return source.get(timeout=max(0.0, min(1.0, deadline - time.monotonic())))
        except queue.Empty:
            dead = [f"{name} (exit code {p.exitcode})" for name, p in processes.items() if p.exitcode not in (None, 0)]
            if dead:
                try:  # what it put just before exiting
                    return source.get(timeout=1.0)
                except queue.Empty:
                    raise RuntimeError(
                        f"bench llm: {', '.join(dead)} exited while the bench waited for "
                        f"{awaited}; its traceback, if any, is above"
                    ) from None
            if time.monotonic() >= deadline:
                raise TimeoutError(f"bench llm: waited {timeout_s:.0f} s for {awaited}") from None


def _llm_pass(parts: list[dict[str, Any]], wall: float, server_s: float | None) -> dict[str, Any]:
    episodes = sum(p["episodes"] for p in parts)
    completions = sum(p["completions"] for p in parts)
    ideal = min(LLM_IN_FLIGHT, episodes) / (completions / episodes * LLM_LATENCY_MS / 1000)
    client_ms = sum(p["cpu_s"] for p in parts) / episodes * 1000
    server_ms = server_s / episodes * 1000 if server_s is not None else None
    ceiling = (os.cpu_count() or 1) * 1000 / (client_ms + (server_ms or 0.0))
    return {
        "llm_episodes": episodes,
        "llm_passed": sum(p["passed"] for p in parts),
        "llm_infra_errors": sum(p["infra_errors"] for p in parts),
        "llm_episodes_per_s": round(episodes / wall, 1),
        "llm_ideal_episodes_per_s": round(ideal, 1),
        "llm_bound_efficiency": round(episodes / wall / ideal, 3),
        "llm_client_cpu_ms_per_episode": round(client_ms, 2),
        "llm_server_cpu_ms_per_episode": round(server_ms, 2) if server_ms is not None else None,
        "llm_cpu_ceiling_episodes_per_s": round(ceiling, 1),
    }


def short_of_target(figures: dict[str, Any]) -> list[str]:
    short = []
    for key, (op, bound) in TARGETS.items():
        if key in figures and not (figures[key] <= bound if op == "<=" else figures[key] >= bound):
            short.append(f"{key} {figures[key]} (target {op} {bound})")
    return short


BENCH_TARGETS = ("all", "sandbox", "llm", "cli")  # every stage, or the one of that name


def _timed_cli(args: list[str], cwd: Path) -> float:
    """Wall seconds of ``mobilepa ARGS`` in a fresh process, as a user types it; an error names the command."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "experiments.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        raise RuntimeError(f"mobilepa {' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return time.perf_counter() - started


def bench_cli(repeats: int) -> dict[str, Any]:
    """How soon the CLI answers: ``mobilepa [COMMAND] --help`` for every command, and a one-task
    ``mobilepa run planner=oracle split=handwritten limit=1`` (world cache warm), each the median of
    ``repeats`` fresh processes."""
    listing = subprocess.run(
        [sys.executable, "-m", "experiments.cli", "--help"], capture_output=True, text=True, timeout=300
    ).stdout
    commands = re.findall(r"^    (\w+) ", listing.partition("\ncommands:")[2], re.MULTILINE)  # as a user finds them
    with tempfile.TemporaryDirectory(prefix="mobilepa-bench-") as tmp:
        help_s = {
            name or "mobilepa": statistics.median(
                _timed_cli([name, "--help"] if name else ["--help"], Path(tmp)) for _ in range(repeats)
            )
            for name in ("", *commands)
        }
        run = ["run", "planner=oracle", "split=handwritten", "limit=1", f"hydra.run.dir={tmp}/run"]
        _timed_cli(run, Path(tmp))  # the persona's world built and cached once, as after any first run
        run_s = statistics.median(_timed_cli(run, Path(tmp)) for _ in range(repeats))
    slowest = max(help_s, key=help_s.__getitem__)
    return {
        "cli_help_s": round(help_s[slowest], 3),
        "cli_help_slowest": slowest,
        "cli_help_by_command_s": {k: round(v, 3) for k, v in help_s.items()},
        "cli_run_one_task_s": round(run_s, 3),
    }


def run_all(split: str, repeats: int, suite_repeats: int, target: str, log: Callable[[str], None]) -> dict[str, Any]:
    import sandbox.domains  # noqa: F401  (registers every tool: in the process that runs episodes, not at import)

    tasks = load_split(split)
    figures: dict[str, Any] = {
        "machine": machine(),
        "split": split,
        "tasks": len(tasks),
        "episodes": len(expand(tasks, "both")),
        "repeats": repeats,
    }
    if target != "sandbox":
        figures["suite_repeats"] = suite_repeats
    every: dict[str, Callable[[], dict[str, Any]]] = {
        "sandbox": lambda: bench_sandbox(tasks, repeats),
        "oracle": lambda: bench_oracle(tasks, suite_repeats),
        "sweep": lambda: bench_sweep(split, suite_repeats),
        "scaling": lambda: bench_scaling(split, suite_repeats),
        "llm": lambda: bench_llm(split, suite_repeats),
        "cli": lambda: bench_cli(repeats),
    }
    for name in every if target == "all" else (target,):
        started = time.perf_counter()
        figures.update(every[name]())
        log(f"{name}: {time.perf_counter() - started:.1f} s")
    figures["short_of_target"] = short_of_target(figures)
    return figures


def report(figures: dict[str, Any]) -> None:
    m = figures["machine"]
    print(
        f"machine: {m['cpu']}, {m['cpus_usable']}/{m['cpus']} cores, {m['ram_gb']} GiB RAM, Python {m['python']}, "
        f"SQLite {m['sqlite']} ({m['date']})"
    )
    print(f"split: {figures['split']} ({figures['tasks']:,} tasks, {figures['episodes']:,} episodes)")
    if "reset_us" in figures:
        print(
            f"episode reset (median, {figures['world']}, {figures['world_bytes']:,} bytes): "
            f"{figures['reset_us']:.0f} µs "
            f"(loading the world into a connection, once per connection and world: {figures['load_world_us']:.0f} µs)"
        )
        print(
            f"mixed tool calls: {figures['tool_calls_per_s']:,.0f}/s over {figures['tool_calls']:,} calls of "
            f"{figures['tools_in_mix']} tools ({figures['statements_per_call']} SQL statements per call)"
        )
        print(
            f"same statements through raw sqlite3: {figures['raw_sqlite_calls_per_s']:,.0f}/s "
            f"(overhead {figures['overhead_vs_raw']}x)"
        )
    if "oracle_episodes_per_s" in figures:
        print(
            f"oracle + verification, one core: {figures['oracle_episodes_per_s']:,.1f} episodes/s "
            f"({figures['oracle_passed']}/{figures['oracle_episodes']} passed)"
        )
        print(f"sweep end to end (cluster, store, MLflow, report): {figures['sweep_wall_s']:.1f} s")
        print(
            f"sweep scaling 2 workers / 1: {figures['scaling_2_over_1']}x "
            f"({figures['sweep_2_workers_episodes_per_s']} vs {figures['sweep_1_worker_episodes_per_s']} episodes/s); "
            f"worker peak RSS {figures['peak_rss_mb']:.0f} MB"
        )
    if "llm_bound_efficiency" in figures:
        print(
            f"LLM-bound ({LLM_LATENCY_MS} ms per completion, {LLM_IN_FLIGHT} in flight, {LLM_CLIENTS} client "
            f"processes): {figures['llm_episodes_per_s']} episodes/s of an ideal {figures['llm_ideal_episodes_per_s']} "
            f"(efficiency {figures['llm_bound_efficiency']}, "
            f"warm clients{_median_of(figures['llm_bound_efficiency_passes'])}; their first pass: "
            f"{figures['llm_bound_efficiency_cold']}); CPU per episode: clients "
            f"{figures['llm_client_cpu_ms_per_episode']} ms, server {figures['llm_server_cpu_ms_per_episode']} ms, "
            f"so this machine's cores allow at most {figures['llm_cpu_ceiling_episodes_per_s']} episodes/s"
        )
    if "cli_help_s" in figures:
        print(
            f"CLI: --help {figures['cli_help_s']:.2f} s at most ({figures['cli_help_slowest']}; "
            + ", ".join(f"{k} {v:.2f}" for k, v in figures["cli_help_by_command_s"].items())
            + f"); a one-task mobilepa run {figures['cli_run_one_task_s']:.2f} s"
        )
    for line in figures["short_of_target"]:
        print(f"short of target: {line}")


def _median_of(passes: list[float]) -> str:
    return f", the median of {len(passes)} passes: {', '.join(map(str, passes))}" if len(passes) > 1 else ""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="mobilepa bench", description=__doc__.splitlines()[0])
    parser.add_argument(
        "target",
        nargs="?",
        choices=BENCH_TARGETS,
        default="all",
        help="all figures (default), only reset and tool calls, only the LLM-bound figure, or only the CLI's",
    )
    parser.add_argument("--json", action="store_true", help="end with one JSON object on the last line")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of the reset and tool-call figures")
    parser.add_argument(
        "--suite-repeats",
        type=int,
        default=3,
        help="repeats of the whole-split figures (this VM's speed drifts: medians of three)",
    )
    parser.add_argument("--split", default=None, help="task file (default: full.jsonl, else handwritten.jsonl)")
    args = parser.parse_args(argv)
    split = args.split or default_split()
    if args.target == "all" and split not in SPLITS:
        parser.error(f"--split: the sweep figures need a split with a conf/split entry: {', '.join(SPLITS)}")
    log = (lambda line: print(line, flush=True)) if args.json else (lambda line: None)
    figures = run_all(split, max(1, args.repeats), max(1, args.suite_repeats), args.target, log)
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        report(figures)
    return 0
