"""``mobilepa bench sandbox``: episode reset time and tool-call throughput, against raw sqlite3.

The raw baseline replays *exactly the statements the executor issued*, with their parameters
(captured from the engine and the prepared bookkeeping statements), through a plain ``sqlite3``
connection on a copy of the same start state, so the ratio measures the toolkit's own overhead
(validation, SQLAlchemy, envelopes, logging), not a different workload.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import statistics
import time
from contextlib import nullcontext
from typing import Any

import sandbox.domains  # noqa: F401
from sandbox.db import Traced, trace_statements
from sandbox.episode import Episode
from sandbox.suite import load_split
from sandbox.tasks import Task
from sandbox.world import PERSONAS, world_image

def machine() -> dict[str, Any]:
    return {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
            "processor": platform.processor() or platform.machine()}


def largest_world() -> tuple[str, int]:
    sizes = {p: len(world_image(p)) for p in sorted(PERSONAS)}
    name = max(sizes, key=lambda p: (sizes[p], p))
    return name, sizes[name]


def reset_us(task: Task, repeats: int) -> float:
    """Median µs to start an episode: private copy of the world, the task's patches, the executor."""
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        episode = Episode(task)
        samples.append(time.perf_counter() - started)
        episode.close()
    return statistics.median(samples) * 1e6


def mixed_calls(tasks: list[Task]) -> list[tuple[Task, list[tuple[str, Any]]]]:
    """Each task's gold actions (reads, writes, recoveries from errors) plus three malformed calls."""
    mix = []
    for t in tasks:
        calls = [(a.name, a.arguments) for a in t.gold if a.name != "finish"]
        first = calls[0][0] if calls else "search_contacts"
        calls += [(first, {"unexpected_argument": 1}), ("no_such_tool", {}), (first, {})]
        mix.append((t, calls))
    return mix


def run_mix(mix: list[tuple[Task, list[tuple[str, Any]]]], capture: bool) -> tuple[float, int, list[list[Traced]]]:
    """Seconds spent inside ``Episode.step`` for the whole mix, the call count, and per-task statements."""
    spent, calls, per_task = 0.0, 0, []
    for task, actions in mix:
        episode = Episode(task)
        with trace_statements() if capture else nullcontext([]) as captured:
            for name, arguments in actions:
                started = time.perf_counter()
                episode.step(name, arguments)
                spent += time.perf_counter() - started
                calls += 1
        per_task.append(list(captured))
        episode.close()
    return spent, calls, per_task


def replay_raw(mix: list[tuple[Task, list[tuple[str, Any]]]], statements: list[list[Traced]]) -> float:
    """Seconds to run the captured statements, with their parameters, through plain sqlite3.

    Like the executor, the baseline reuses one connection with a large statement cache and starts
    each task by deserialising that task's start state; a warm-up pass prepares every statement.
    """
    starts = []
    for task, _ in mix:
        prepared = Episode(task)  # same starting state: world plus patches
        starts.append(prepared.snapshot())
        prepared.close()
    connection = sqlite3.connect(":memory:", isolation_level=None, cached_statements=4096)
    spent = 0.0
    for timed in (False, True):
        for image, stmts in zip(starts, statements, strict=True):
            connection.deserialize(image)
            started = time.perf_counter()
            for sql, params, many in stmts:
                if sql == "COMMIT":
                    connection.commit()
                elif sql == "ROLLBACK":
                    connection.rollback()
                elif many:
                    connection.executemany(sql, params)
                else:
                    connection.execute(sql, params).fetchall()
            if timed:
                spent += time.perf_counter() - started
    connection.close()
    return spent


def bench_sandbox(repeats: int = 5) -> dict[str, Any]:
    tasks = load_split("handwritten.jsonl")
    world, size = largest_world()
    probe = Task.model_validate({**tasks[0].model_dump(), "initial_state": {"world": world}})
    mix = mixed_calls(tasks)
    run_mix(mix, capture=False)  # warm caches: world images, compiled statements
    timings = [run_mix(mix, capture=False) for _ in range(repeats)]
    spent = statistics.median(t[0] for t in timings)
    calls = timings[0][1]
    _, _, statements = run_mix(mix, capture=True)
    raw = statistics.median(replay_raw(mix, statements) for _ in range(repeats))
    return {
        "machine": machine(), "world": world, "world_bytes": size,
        "reset_us": round(reset_us(probe, 200), 1),
        "tool_calls": calls, "tool_calls_per_s": round(calls / spent, 1),
        "raw_sqlite_calls_per_s": round(calls / raw, 1), "overhead_vs_raw": round(spent / raw, 2),
        "statements_per_call": round(sum(len(s) for s in statements) / calls, 2),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="mobilepa bench")
    parser.add_argument("target", choices=["sandbox"])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    figures = bench_sandbox(args.repeats)
    if args.json:
        print(json.dumps(figures, sort_keys=True))
        return 0
    print(f"machine: {figures['machine']}")
    print(f"largest world: {figures['world']} ({figures['world_bytes']:,} bytes)")
    print(f"episode reset (median): {figures['reset_us']:.0f} µs")
    print(f"mixed tool calls: {figures['tool_calls_per_s']:,.0f}/s over {figures['tool_calls']} calls "
          f"({figures['statements_per_call']} SQL statements per call)")
    print(f"same statements through raw sqlite3: {figures['raw_sqlite_calls_per_s']:,.0f}/s")
    print(f"executor overhead vs raw sqlite3: {figures['overhead_vs_raw']}x")
    return 0
