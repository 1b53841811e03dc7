"""vLLM servers as long-lived services of a sweep, without vLLM or a GPU: a LocalCluster whose workers
declare the Dask resource GPU=1, and the open-model planner ``qwen2_5_7b`` (kind openai, base_url
null) whose server module is the stand-in tests.cluster.scripted_vllm (vLLM's flags, the scripted gold
replies). The sweep starts one server on a GPU worker before any episode, fills its URL into the cells,
records it, and stops the whole process group at the end, on a failure and on an interrupt; a cluster
without GPU workers and a server that dies at start-up fail before any episode."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client, LocalCluster
from mlflow.tracking import MlflowClient

from cluster.dask_runner import stream_units
from cluster.services import ServiceSpec, place, service_specs, vllm_services
from cluster.vllm import ServerStartupError, group_alive
from experiments.commands.plans import load_config, parse_args, plan_sweep, sweep_plan
from experiments.execution import sweep as sweep_module
from experiments.execution.sweep import endpoint_shares, run_sweep
from experiments.plan.model import SweepConfigError
from experiments.results.store import ResultsStore

REPO = Path(__file__).resolve().parents[2]
PLANNER = "qwen2_5_7b"
MODEL = "Qwen/Qwen2.5-7B-Instruct"
N_TASKS = 31  # the hand-written split under condition=default: each task once


@pytest.fixture(scope="module")
def gpu_client() -> Iterator[Client]:
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", resources={"GPU": 1}
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def _args(tmp: Path, *extra: str, env: dict[str, str] | None = None) -> list[str]:
    env = {"PYTHONPATH": str(REPO), "SCRIPTED_VLLM_RECORD": str(tmp / "servers"), **(env or {})}
    env_text = ",".join(f"{k}:'{v}'" for k, v in env.items())
    return [
        f"planner={PLANNER}",
        "split=handwritten",
        "condition=default",
        "seed=0",
        "unit_size=8",
        "name=test-vllm-service",
        f"store={tmp / 'results.db'}",
        f"report_dir={tmp / 'report'}",
        f"tracking.uri=sqlite:///{tmp / 'mlflow.db'}",
        f"+planner.{PLANNER}.vllm.module=tests.cluster.scripted_vllm",
        f"+planner.{PLANNER}.vllm.env={{{env_text}}}",
        f"+planner.{PLANNER}.vllm.poll_interval_s=0.1",
        f"+planner.{PLANNER}.vllm.startup_timeout_s=60",
        f"+planner.{PLANNER}.vllm.stop_timeout_s=5",
        *extra,
    ]


def _started(tmp: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((tmp / "servers").glob("[0-9]*[0-9].json"))]


def _gone(server: dict) -> bool:
    """The server's process group is empty (its forked worker included); waited for up to 60 s, a hang guard
    (a loaded machine can take seconds to schedule the exits)."""
    deadline = time.monotonic() + 60
    while group_alive(server["pgid"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not group_alive(server["pgid"])


def test_sweep_starts_one_server_on_a_gpu_worker_and_stops_it(
    gpu_client: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)  # an earlier sweep's mlflow.set_tracking_uri sets it
    cfg = load_config(*parse_args(_args(tmp_path, f"planner.{PLANNER}.concurrency=3")))
    outcome = run_sweep(plan_sweep(cfg), client=gpu_client)
    assert outcome.ran == N_TASKS and outcome.failures == [] and outcome.infra_errors == []

    # what it said while it happened: the start (model, worker, log), then ready with the time it took
    out = capsys.readouterr().out
    service = outcome.services[PLANNER]
    [log] = (tmp_path / "vllm").glob(f"vllm-{PLANNER}-*.log")  # beside the store: kept after the cluster is gone
    assert service.log == str(log) and "scripted vllm: stopped on SIGTERM" in log.read_text()
    starting = f"vLLM for {PLANNER}: starting {MODEL} on worker {service.worker} (GPU 0); log {log}"
    assert starting in out, out
    ready = re.search(rf"vLLM for {PLANNER}: ready in (\d+\.\d) s at (\S+) \(log {re.escape(str(log))}\)", out)
    assert ready is not None and ready.group(2) == service.base_url and out.index(starting) < ready.start()

    [server] = _started(tmp_path)  # started once, for all the units of the planner
    base_url = f"http://127.0.0.1:{server['port']}/v1"  # a local cluster: bound to the worker's 127.0.0.1
    assert server["host"] == "127.0.0.1" and server["model"] == server["served"] == MODEL
    assert "--enable-auto-tool-choice" not in server["extra"] and "--max-model-len" in server["extra"]
    assert server["cuda_visible_devices"] == "0"
    assert _gone(server), "the server's process group must be gone after the sweep"
    assert service.base_url == base_url and service.pid == server["pid"]
    assert service.worker in gpu_client.scheduler_info()["workers"]

    stats = json.loads((tmp_path / "servers" / f"{server['pid']}.stats.json").read_text())
    assert stats["requests"] > N_TASKS
    assert 1 <= stats["max_in_flight"] <= 3, "concurrency is the endpoint's limit across the cluster"

    store = ResultsStore(tmp_path / "results.db")
    try:
        rows = store.rows()
    finally:
        store.close()
    assert len(rows) == N_TASKS and all(r["passed"] for r in rows), [r["task_id"] for r in rows if not r["passed"]]
    with sqlite3.connect(tmp_path / "results.db") as conn:
        [(config,)] = conn.execute("select config from sweeps").fetchall()
    assert json.loads(config)["endpoints"] == {PLANNER: base_url}

    mlflow = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    experiment = mlflow.get_experiment_by_name("test-vllm-service")
    children = [r for r in mlflow.search_runs([experiment.experiment_id]) if r.data.tags.get("mobilepa_cell")]
    assert [c.data.params["base_url"] for c in children] == [base_url]
    assert children[0].data.metrics["overall"] == 100.0


def test_a_server_that_dies_at_start_up_fails_the_sweep_before_any_episode(gpu_client: Client, tmp_path: Path) -> None:
    cfg = load_config(*parse_args(_args(tmp_path, "tracking=none", env={"SCRIPTED_VLLM_EXIT": "3"})))
    with pytest.raises(ServerStartupError) as err:
        run_sweep(plan_sweep(cfg), client=gpu_client)
    message = str(err.value)
    assert f"planner.{PLANNER}: vLLM server on worker tcp://127.0.0.1:" in message
    assert "exited with code 3" in message and "CUDA out of memory while loading the weights" in message
    assert "startup line 59" in message  # the log tail
    [log] = (tmp_path / "vllm").glob(f"vllm-{PLANNER}-*.log")
    assert str(log) in message and "startup line 59" in log.read_text()  # named, and kept after the cluster
    store = ResultsStore(tmp_path / "results.db")
    try:
        assert store.count() == 0
    finally:
        store.close()
    [server] = _started(tmp_path)
    assert _gone(server)


def test_an_interrupted_sweep_stops_its_server(
    gpu_client: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(sweep_module, "stream_units", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(sweep_plan(_args(tmp_path, "tracking=none")), client=gpu_client)
    [server] = _started(tmp_path)
    assert _gone(server)


def test_a_slow_start_is_reported_while_it_lasts_and_a_server_that_died_is_named_at_the_end(
    gpu_client: Client, tmp_path: Path
) -> None:
    lines: list[str] = []
    spec = ServiceSpec(
        PLANNER,
        {
            "model": MODEL,
            "vllm": {
                "tool_call_parser": "hermes",
                "module": "tests.cluster.fake_vllm",
                "poll_interval_s": 0.1,
                "env": {"PYTHONPATH": str(REPO), "FAKE_VLLM_DELAY": "1.5"},
                "stop_timeout_s": 5,
            },
        },
    )
    with vllm_services(gpu_client, [spec], log_dir=tmp_path / "logs", heartbeat_s=0.5, say=lines.append) as services:
        os.killpg(services[PLANNER].pid, signal.SIGKILL)  # the server dies mid-sweep
        deadline = time.monotonic() + 60  # a hang guard: the sweep ends once the kill has taken effect
        while group_alive(services[PLANNER].pid) and time.monotonic() < deadline:
            time.sleep(0.05)
    log = services[PLANNER].log
    assert Path(log).parent == tmp_path / "logs" and "fake vllm: listening" in Path(log).read_text()
    assert lines[0].startswith(f"vLLM for {PLANNER}: starting {MODEL} on worker tcp://") and lines[0].endswith(log)
    assert any(line.startswith(f"vLLM for {PLANNER}: still starting after ") for line in lines[1:-2]), lines
    assert lines[-2].startswith(f"vLLM for {PLANNER}: ready in ")
    assert (
        lines[-1].startswith(
            f"vLLM for {PLANNER}: the server had exited with code -9 during the sweep; last 40 lines of {log}:"
        )
        and "fake vllm: listening" in lines[-1]
    )


@pytest.mark.faults
def test_no_gpu_worker_fails_before_any_work_naming_the_key(tmp_path: Path) -> None:
    message = f"planner.{PLANNER}.base_url: null and no worker offers resources GPU=1; give a base URL or a GPU worker"
    # the default local cluster declares no resources: refused before a cluster or a store exists
    cfg = load_config(*parse_args(_args(tmp_path, "tracking=none")))
    with pytest.raises(SweepConfigError, match=message):
        run_sweep(plan_sweep(cfg))
    assert not (tmp_path / "results.db").exists()
    # a running cluster without GPU workers: refused by the scheduler's view, before any unit
    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster,
        Client(cluster) as client,
        pytest.raises(SweepConfigError, match=message),
    ):
        run_sweep(plan_sweep(cfg), client=client)
    store = ResultsStore(tmp_path / "results.db")
    try:
        assert store.count() == 0
    finally:
        store.close()
    assert not (tmp_path / "servers").exists()


def test_plan_checks_the_server_config_and_placement_packs_gpus(tmp_path: Path) -> None:
    plan = plan_sweep(load_config(*parse_args([*_args(tmp_path), "seed=0,1,2"])))
    assert [s.planner for s in plan.services] == [PLANNER] and plan.services[0].gpus == 1  # one for all seeds
    assert len(plan.cells) == 3
    config = dict(plan.cells[0].planner_config)
    with pytest.raises(ValueError, match=rf"planner\.{PLANNER}\.model: differs between the sweep's cells"):
        service_specs([(PLANNER, config), (PLANNER, {**config, "model": "Qwen/Qwen3-8B"})])
    assert all(c.planner_config["base_url"] is None for c in plan.cells)
    with pytest.raises(SweepConfigError, match=rf"planner\.{PLANNER}\.vllm\.gpus: must be an integer >= 1"):
        plan_sweep(load_config(*parse_args(_args(tmp_path, f"planner.{PLANNER}.vllm.gpus=0"))))
    with pytest.raises(SweepConfigError, match=rf"planner\.{PLANNER}\.vllm\.tool_call_parser: missing"):
        plan_sweep(load_config(*parse_args(_args(tmp_path, f"planner.{PLANNER}.vllm.tool_call_parser=null"))))

    a, b, big = ServiceSpec("a", {}), ServiceSpec("b", {}), ServiceSpec("big", {}, gpus=2)
    workers = {
        "tcp://10.0.0.7:4000": {"resources": {"GPU": 2}},
        "tcp://10.0.0.8:4000": {"resources": {"GPU": 2}},
        "tcp://10.0.0.9:4000": {"resources": {}},
    }
    placed = place([a, big, b], workers)
    assert placed["big"].worker == "tcp://10.0.0.7:4000" and placed["big"].devices == (0, 1)
    assert placed["big"].host == "10.0.0.7"  # multi-node: the worker's own address, not 127.0.0.1
    assert placed["a"].worker == placed["b"].worker == "tcp://10.0.0.8:4000"
    assert {placed["a"].devices, placed["b"].devices} == {(0,), (1,)}  # one GPU each on the shared worker
    with pytest.raises(
        ValueError, match=r"planner.a.base_url: null and no worker offers resources GPU=1 besides the servers of big"
    ):
        place([a, big], {"tcp://10.0.0.7:4000": {"resources": {"GPU": 2}}})


_lock = threading.Lock()
_running: dict[str, int] = {}
_peak: dict[str, int] = {}


def _unit(unit: str) -> list[dict]:
    group = unit[0]
    with _lock:
        _running[group] = _running.get(group, 0) + 1
        _peak[group] = max(_peak.get(group, 0), _running[group])
    try:
        time.sleep(0.02)
        return [{"unit": unit}]
    finally:
        with _lock:
            _running[group] -= 1


def test_units_of_one_endpoint_share_its_concurrency() -> None:
    units = [f"{g}{i}" for g in "ab" for i in range(12)]
    seen: list[str] = []
    with (
        LocalCluster(n_workers=1, threads_per_worker=4, processes=False, dashboard_address=":0") as cluster,
        Client(cluster) as client,
    ):
        outcome = stream_units(
            client,
            _unit,
            units,
            key_of=str,
            on_result=lambda u, r: seen.append(u) or [],
            max_in_flight=4,
            group_of=lambda u: u[0],
            group_limits={"a": 1},
        )
    assert sorted(seen) == sorted(units) and outcome.failures == []
    assert _peak["a"] == 1 and _peak["b"] > 1  # b runs beside a's single unit

    plan = plan_sweep(
        load_config(
            *parse_args(
                ["planner=qwen2_5_7b,oracle", "split=handwritten", "unit_size=8", "planner.qwen2_5_7b.concurrency=10"]
            )
        )
    )
    units_ = sweep_module.pending_units(plan, _EmptyStore())[0]
    shares = endpoint_shares(units_, threads=4, max_in_flight=None)
    assert shares == {PLANNER: (4, 2)}  # 4 units at once, 2 requests each: never more than 10 in flight
    assert endpoint_shares(units_, threads=64, max_in_flight=None) == {PLANNER: (5, 2)}  # 5 units of 8 tasks
    assert endpoint_shares(units_, threads=2, max_in_flight=1) == {PLANNER: (1, 10)}


class _EmptyStore:
    def finished_keys(self) -> set:
        return set()
