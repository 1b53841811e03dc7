"""``mobilepa bench sandbox``: episode reset time and tool-call throughput, against raw sqlite3.

The raw baseline replays *exactly the statements the executor issued* (captured from the engine)
through a plain ``sqlite3`` connection on a fresh copy of the same world, so the ratio measures
the toolkit's own overhead (validation, SQLAlchemy, envelopes, logging), not a different workload.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import statistics
import time
from typing import Any

import sandbox.domains  # noqa: F401
from sandbox.db import raw
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


def run_mix(mix: list[tuple[Task, list[tuple[str, Any]]]], capture: bool) -> tuple[float, int, list[list[str]]]:
    """Seconds spent inside ``Episode.step`` for the whole mix, the call count, and per-task statements.

    Statements are captured with SQLite's own trace hook, so the executor's prepared bookkeeping
    statements are included. Python reports each trigger firing as a repeat of the statement that
    fired it; consecutive repeats are dropped, since replaying the statement fires the trigger again.
    """
    spent, calls, per_task = 0.0, 0, []
    for task, actions in mix:
        episode = Episode(task)
        captured: list[str] = []
        if capture:
            raw(episode.conn).set_trace_callback(captured.append)
        for name, arguments in actions:
            started = time.perf_counter()
            episode.step(name, arguments)
            spent += time.perf_counter() - started
            calls += 1
        raw(episode.conn).set_trace_callback(None)
        per_task.append([sql for n, sql in enumerate(captured) if n == 0 or sql != captured[n - 1]])
        episode.close()
    return spent, calls, per_task


def replay_raw(mix: list[tuple[Task, list[tuple[str, Any]]]], statements: list[list[str]]) -> float:
    """Seconds to run the captured statements through plain sqlite3 on fresh copies of the worlds.

    Like the executor, the baseline reuses one connection (deserialising each start state into it),
    so neither side pays SQLite's schema parse per episode.
    """
    spent = 0.0
    connection = sqlite3.connect(":memory:", isolation_level=None)
    for (task, _), stmts in zip(mix, statements, strict=True):
        prepared = Episode(task)  # same starting state: world plus patches
        image = prepared.snapshot()
        prepared.close()
        connection.deserialize(image)
        connection.execute("SELECT 1 FROM meta").fetchall()
        started = time.perf_counter()
        for sql in stmts:
            connection.execute(sql).fetchall()
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
