"""Server faults during a sweep: the OpenAI-compatible planner's server refuses connections and
comes back, answers a burst of 503s, or restarts mid-sweep.

The planner retries each request (bounded, with backoff); an episode whose retries run out ends as
``infra_error`` and the sweep runs it again, at most ``infra_retries`` times; one that still fails
stays ``infra_error``: unscorable, left out of every score, reported in ``SweepOutcome.infra_errors``.
The counting planner factory (``tests/experiments/servers.py``) records what really ran, so the test
checks the sweep's own figures against it: every run counted once (``ran``), every infra-failed run
either retried (``infra_retried``) or reported (``infra_errors``), one store row per key, none lost.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from distributed import Client

from experiments.commands.plans import sweep_plan
from experiments.execution.sweep import SweepOutcome, run_sweep
from experiments.reporting.leaderboard import cell_metrics
from experiments.results.store import ResultsStore, record_key, trajectory_json
from sandbox.suite import load_split
from tests.experiments import servers
from tests.experiments.servers import FaultyServer, ServerThread

pytestmark = pytest.mark.faults

TASKS = load_split("handwritten.jsonl")
N = len(TASKS)
INFRA_RETRIES = 2
PLANNER = "qwen3_8b"  # a real model config, pointed at the scripted server
DOWN_TASK = "hw_basic_001"


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0") as dask:
        yield dask


def sweep(client: Client, tmp: Path, base_url: str, *, retries: int, backoff_s: float) -> SweepOutcome:
    servers.reset_counts()
    p = f"planner.{PLANNER}"
    args = [
        f"planner={PLANNER}",
        "split=handwritten",
        "seed=0",
        "condition=default",
        "unit_size=8",
        "max_in_flight=2",
        "tracking=none",
        f"infra_retries={INFRA_RETRIES}",
        "planner_factory=tests.experiments.servers:build_counting",
        f"store={tmp / 'results.db'}",
        f"report_dir={tmp / 'report'}",
        f"{p}.base_url={base_url}",
        f"{p}.concurrency=16",
        f"{p}.retries.max={retries}",
        f"{p}.retries.backoff_s={backoff_s}",
        f"{p}.retries.max_backoff_s={4 * backoff_s}",
        f"{p}.timeouts.connect=2",
        f"{p}.timeouts.read=10",
    ]
    return run_sweep(sweep_plan(args), client=client)


def accounted(name: str, tmp: Path, outcome: SweepOutcome, figures: Callable[[str], None]) -> dict[str, Any]:
    """The promises every scenario keeps; returns the figures it measured."""
    runs, infra = dict(servers.RUNS), dict(servers.INFRA)
    store = ResultsStore(tmp / "results.db")
    try:
        rows = store.rows(with_trajectories=True)
    finally:
        store.close()
    keys = [record_key(r) for r in rows]
    ids = {t.task_id for t in TASKS}
    assert len(keys) == len(set(keys)) == N and {k[4] for k in keys} == ids  # none lost, none twice
    assert outcome.failures == [] and outcome.skipped == 0
    assert sum(runs.values()) == outcome.ran  # every run counted once
    assert set(runs) == ids and max(runs.values()) <= 1 + INFRA_RETRIES  # retried within bounds
    assert sum(infra.values()) == outcome.infra_retried + len(outcome.infra_errors)
    still = {key.rsplit("/", 1)[-1] for key in outcome.infra_errors}
    for task_id in ids:  # each infra-failed run was run again, unless the key is reported
        assert runs[task_id] == infra.get(task_id, 0) + (0 if task_id in still else 1), task_id
    failed = [r for r in rows if r["termination"] == "infra_error"]
    assert sorted("/".join(map(str, record_key(r))) for r in failed) == outcome.infra_errors
    assert all(not r["scorable"] and r["verdict"] == "unscorable" and not r["passed"] for r in failed)
    assert all(r["scorable"] and r["passed"] for r in rows if r["termination"] != "infra_error")
    metrics = cell_metrics(rows)
    assert metrics["overall"] == 100.0 and metrics["unscorable"] == len(failed)  # infra errors are not scored
    planner_retries = sum(
        step["planner"]["retries"]
        for r in rows
        if r["termination"] != "infra_error"
        for step in json.loads(trajectory_json(r))["steps"]
    )
    measured = {
        "keys": N,
        "episode_runs": outcome.ran,
        "infra_failed_runs": sum(infra.values()),
        "infra_retried": outcome.infra_retried,
        "infra_errors": len(outcome.infra_errors),
        "request_retries_in_kept_runs": planner_retries,
        "lost": N - len(set(keys)),
        "counted_twice": len(keys) - len(set(keys)),
        "wall_s": round(outcome.wall_s, 1),
    }
    figures(f"FAULTS server {name}: {measured}")
    return measured


def test_refused_connections_then_the_server_comes_back(
    client: Client, tmp_path: Path, figures: Callable[[str], None]
) -> None:
    """The server answers the pre-flight, then nothing listens on the planner's port from the first episode's
    request until an episode has failed all its retries."""
    server = FaultyServer(TASKS)
    with ServerThread(server) as thread:

        def bring_up() -> None:
            deadline = time.monotonic() + 60
            while not server.stats.requests and time.monotonic() < deadline:
                time.sleep(0.001)
            thread.stop()
            while not servers.INFRA and time.monotonic() < deadline:
                time.sleep(0.005)
            thread.start()

        waiter = threading.Thread(target=bring_up, daemon=True)
        servers.reset_counts()
        waiter.start()
        outcome = sweep(client, tmp_path, thread.base_url, retries=2, backoff_s=0.2)
        waiter.join(timeout=60)
    measured = accounted("refused then back", tmp_path, outcome, figures)
    assert server.stats.requests > 0 and outcome.infra_errors == []
    assert measured["infra_failed_runs"] >= 1 and outcome.infra_retried >= 1  # the server came up only after one


def test_a_burst_of_503s_and_a_task_whose_backend_stays_down(
    client: Client, tmp_path: Path, figures: Callable[[str], None]
) -> None:
    """Requests 20-79 answer 503; every request of one task always does. With three attempts per request
    and 16 episodes in flight, the burst outlasts what request retries absorb (2 x 16 < 60)."""
    server = FaultyServer(TASKS, burst=range(20, 80), fail_tasks=frozenset({DOWN_TASK}))
    with ServerThread(server) as thread:
        outcome = sweep(client, tmp_path, thread.base_url, retries=2, backoff_s=0.005)
    measured = accounted("503 burst", tmp_path, outcome, figures)
    assert server.faults["burst"] == 60
    assert outcome.infra_errors == [f"{PLANNER}/handwritten/default/0/{DOWN_TASK}"]
    assert servers.RUNS[DOWN_TASK] == servers.INFRA[DOWN_TASK] == 1 + INFRA_RETRIES
    assert measured["infra_failed_runs"] > 1 + INFRA_RETRIES  # the burst cost whole episodes too, all recovered


def test_the_server_restarts_mid_sweep(client: Client, tmp_path: Path, figures: Callable[[str], None]) -> None:
    """After 40 requests the server stops (dropping its connections), stays down 0.4 s, and comes back on the
    same port; a run rides out up to 0.3-0.6 s of refusals, so no key needs a third run."""
    server = FaultyServer(TASKS)
    with ServerThread(server) as thread:
        marks: dict[str, int] = {}

        def restart() -> None:
            deadline = time.monotonic() + 60
            while server.stats.requests < 40 and time.monotonic() < deadline:
                time.sleep(0.002)
            marks["before"] = server.stats.requests
            thread.restart(down_s=0.4)
            marks["after_restart"] = server.stats.requests

        restarter = threading.Thread(target=restart, daemon=True)
        restarter.start()
        outcome = sweep(client, tmp_path, thread.base_url, retries=2, backoff_s=0.2)
        restarter.join(timeout=60)
    measured = accounted("restart", tmp_path, outcome, figures)
    assert thread.restarts == 1 and 40 <= marks["before"] < server.stats.requests  # it restarted mid-sweep
    assert outcome.infra_errors == []
    assert measured["request_retries_in_kept_runs"] + measured["infra_failed_runs"] >= 1  # the restart was felt
