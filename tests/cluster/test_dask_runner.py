"""Bounded streaming of work units, retries and reporting, cluster configs, and a sweep that survives a
worker killed mid-run on a real scheduler with two worker processes on loopback."""

from __future__ import annotations

import gzip
import json
import os
import signal
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import dask
import pytest
from distributed import Client, LocalCluster

from cluster.dask_runner import ClusterConfigError, dask_client, stream_units
from experiments.commands.plans import load_config, parse_args, plan_sweep
from experiments.execution.sweep import run_sweep
from experiments.results.store import ResultsStore
from tests.cluster.dask_processes import DASK, start_scheduler

REPO = Path(__file__).resolve().parents[2]
_lock = threading.Lock()
_state = {"running": 0, "peak": 0, "calls": {}}


def _unit(unit: str) -> list[dict]:
    """Threaded-cluster test unit: tracks concurrency; ``bad*`` always fails, ``flaky*`` fails once."""
    with _lock:
        _state["running"] += 1
        _state["peak"] = max(_state["peak"], _state["running"])
        calls = _state["calls"][unit] = _state["calls"].get(unit, 0) + 1
    try:
        time.sleep(0.02)
        if unit.startswith("bad") or (unit.startswith("flaky") and calls == 1):
            raise RuntimeError(f"unit {unit} failed")
        return [{"unit": unit}]
    finally:
        with _lock:
            _state["running"] -= 1


@pytest.fixture(scope="module")
def threaded_client() -> Iterator[Client]:
    with (
        LocalCluster(n_workers=1, threads_per_worker=4, processes=False, dashboard_address=":0") as cluster,
        Client(cluster) as client,
    ):
        yield client


def test_units_stream_in_bounded_waves_with_follow_ups(threaded_client: Client) -> None:
    _state.update(running=0, peak=0, calls={})
    seen: list[str] = []

    def on_result(unit: str, records: list[dict]) -> list[str]:
        seen.append(unit)
        return [f"{unit}-again"] if unit == "u3" else []  # e.g. infra-error episodes to re-run

    units = [f"u{i}" for i in range(20)]
    outcome = stream_units(threaded_client, _unit, units, key_of=str, on_result=on_result, max_in_flight=2)
    assert sorted(seen) == sorted([*units, "u3-again"])
    assert _state["peak"] <= 2
    assert outcome.failures == [] and outcome.resubmitted == 1


@pytest.mark.faults
def test_failing_units_are_resubmitted_then_reported(threaded_client: Client) -> None:
    _state.update(running=0, peak=0, calls={})
    seen: list[str] = []
    outcome = stream_units(
        threaded_client,
        _unit,
        ["ok", "flaky", "bad"],
        key_of=lambda u: f"key-{u}",
        on_result=lambda u, r: seen.append(u) or [],
        max_attempts=3,
    )
    assert sorted(seen) == ["flaky", "ok"]
    assert _state["calls"] == {"ok": 1, "flaky": 2, "bad": 3}
    [failure] = outcome.failures
    assert failure.key == "key-bad" and failure.attempts == 3 and "unit bad failed" in failure.error


@pytest.mark.faults
def test_a_cluster_without_workers_ends_the_stream_naming_it() -> None:
    """Units waiting on a cluster whose workers are all gone (or never came) stop it after
    ``no_worker_timeout_s`` instead of waiting forever."""
    with LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as cluster, Client(cluster) as client:
        started = time.monotonic()
        outcome = stream_units(
            client, _unit, ["u1", "u2"], key_of=str, on_result=lambda u, r: [], no_worker_timeout_s=1.0
        )
        assert time.monotonic() - started < 60  # a hang guard: the 1 s no-worker timeout ended it
    assert outcome.lost and "no Dask worker" in outcome.lost and "cluster.no_worker_timeout_s" in outcome.lost


@pytest.mark.faults
@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"kind": "address", "address": None}, "cluster.address"),
        ({"kind": "yarn"}, "cluster.kind: unknown kind 'yarn'"),
        (
            {"kind": "local", "n_workers": 0, "threads_per_worker": 1, "processes": False},
            "cluster.n_workers: must be at",
        ),
        ({"kind": "slurm", "jobs": "two"}, "cluster.jobs: an integer is required, got 'two'"),
        (
            {"kind": "address", "address": "tcp://127.0.0.1:1", "connect_timeout": "0s"},
            "cluster.connect_timeout: must be",
        ),
    ],
)
def test_bad_cluster_configs_fail_naming_the_key(config: dict, message: str) -> None:
    with pytest.raises(ClusterConfigError, match=message), dask_client(config):
        pass


@pytest.mark.faults
@pytest.mark.parametrize(("kind", "package"), [("slurm", "dask-jobqueue"), ("kubernetes", "dask-kubernetes")])
def test_deployment_backends_are_imported_lazily_with_a_clear_error(kind: str, package: str) -> None:
    try:
        __import__({"slurm": "dask_jobqueue", "kubernetes": "dask_kubernetes.operator"}[kind])
    except ImportError:
        with pytest.raises(ClusterConfigError, match=package), dask_client({"kind": kind, "jobs": 1, "n_workers": 1}):
            pass
    else:
        pytest.skip(f"{package} is installed")


def _profiling(config: dict) -> list[bool]:
    with dask_client(config) as client:
        return list(client.run(lambda: bool(dask.config.get("distributed.worker.profile.enabled"))).values())


def test_a_local_clusters_workers_profile_only_when_asked() -> None:
    local = {"kind": "local", "n_workers": 1, "threads_per_worker": 1, "processes": True, "dashboard_address": None}
    assert _profiling(local) == [False]
    assert _profiling({**local, "worker_profile": True}) == [True]


def _wait_for_workers(address: str, n: int, timeout: float = 60) -> None:
    with Client(address, timeout="30s") as client:
        client.wait_for_workers(n, timeout=timeout)


# what differs between two runs of the same units: times, the trajectory's latencies, the run's provenance
RAN_AGAIN = ("wall_s", "planner_latency_s", "trajectory", "started_at", "ended_at", "provenance_id")


def _comparable(rows: list[dict]) -> list[dict]:
    """Rows without timings (and the latency the slow planner adds) or the run's provenance id, so runs can be
    compared."""
    out = []
    for r in rows:
        trajectory = json.loads(gzip.decompress(r["trajectory"]))
        for step in trajectory["steps"]:
            step.pop("latency_s"), step.pop("planner")
        out.append(
            {
                **{k: v for k, v in r.items() if k not in RAN_AGAIN},
                "trajectory": trajectory,
            }
        )
    return out


def _checkout_outputs() -> dict[str, float]:
    """What a sweep writes by default in the checkout (``outputs/``: the store, the report, MLflow's
    database), with modification times: a test leaves the user's results alone."""
    outputs = REPO / "outputs"
    files = [outputs / "results.db", outputs / "mlflow.db", *(outputs / "report").glob("*")]
    return {str(p): p.stat().st_mtime for p in files if p.is_file()}


@pytest.mark.faults
def test_sweep_survives_a_worker_killed_mid_run(tmp_path: Path, figures) -> None:
    before = _checkout_outputs()  # it wrote the user's outputs/report: tests use temporary folders
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    log = (tmp_path / "dask.log").open("w")
    scheduler, address = start_scheduler(tmp_path, env, log)
    procs = [scheduler]
    try:
        procs += [
            subprocess.Popen(
                [
                    str(DASK),
                    "worker",
                    address,
                    "--host",
                    "127.0.0.1",
                    "--nthreads",
                    "1",
                    "--no-nanny",
                    "--no-dashboard",
                    "--name",
                    f"w{i}",
                ],
                env=env,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
            for i in range(2)
        ]
        _wait_for_workers(address, 2)
        common = [
            "planner=oracle",
            "split=handwritten",
            "seed=0,1",
            "tracking=none",
            "unit_size=4",
            "cluster=address",
            f"cluster.address={address}",
            f"report_dir={tmp_path / 'report'}",
            "planner_factory=tests.cluster.slow_planner:build",
        ]
        undisturbed = load_config(*parse_args([*common, f"store={tmp_path / 'calm.db'}"]))
        calm = run_sweep(plan_sweep(undisturbed))
        assert calm.ran == 68 and calm.failures == []  # 2 seeds x (28 tasks + 3 skill tasks under SOR and MTSR)

        disturbed_db = tmp_path / "killed.db"
        disturbed = load_config(*parse_args([*common, f"store={disturbed_db}"]))
        killed: list[tuple[int, list[str]]] = []  # (episodes stored, unit keys running on the victim)

        def kill_a_busy_worker() -> None:
            """Once some units have finished, SIGKILL a worker that is running a unit right now."""
            with Client(address, timeout="30s") as spy:
                while True:
                    try:
                        with sqlite3.connect(disturbed_db) as conn:
                            done = conn.execute("select count(*) from episodes").fetchone()[0]
                    except sqlite3.OperationalError:
                        done = 0
                    busy = {a: keys for a, keys in spy.processing().items() if keys}
                    if done >= 4 and busy:
                        victim, keys = next(iter(busy.items()))
                        name = spy.scheduler_info()["workers"][victim]["name"]
                        procs[1 + int(str(name).removeprefix("w"))].send_signal(signal.SIGKILL)
                        killed.append((done, [str(k) for k in keys]))
                        return
                    time.sleep(0.01)

        killer = threading.Thread(target=kill_a_busy_worker, daemon=True)
        killer.start()
        outcome = run_sweep(plan_sweep(disturbed))
        killer.join(timeout=5)
        assert killed and killed[0][0] < 68 and killed[0][1], "a busy worker must die while the sweep runs"
        assert sorted(p.wait(timeout=10) for p in procs[1:] if p.poll() is not None) == [-signal.SIGKILL]
        assert outcome.failures == [] and outcome.infra_errors == []
        assert outcome.ran == 68  # each unit delivered once, the killed ones by their rerun

        calm_store, killed_store = ResultsStore(tmp_path / "calm.db"), ResultsStore(disturbed_db)
        try:
            killed_rows = killed_store.rows(with_trajectories=True)
            keys = [(r["planner"], r["split"], r["condition"], r["seed"], r["task_id"]) for r in killed_rows]
            assert len(keys) == len(set(keys)) == 68  # every key finished, exactly once
            assert _comparable(killed_rows) == _comparable(calm_store.rows(with_trajectories=True))
        finally:
            calm_store.close()
            killed_store.close()
        assert _checkout_outputs() == before
        figures(
            f"FAULTS worker SIGKILL: 1 of 2 workers killed with {len(killed[0][1])} unit(s) running after "
            f"{killed[0][0]} of {calm.ran} episodes were stored; {outcome.ran} episodes ran, lost "
            f"{calm.ran - len(set(keys))}, counted twice {len(keys) - len(set(keys))}, unit failures "
            f"{len(outcome.failures)}; results identical to the undisturbed sweep"
        )
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        log.close()
