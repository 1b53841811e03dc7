"""Sweeps under real faults: a dead endpoint beside a working planner, a scheduler killed
mid-sweep, a unit that kills its worker every time, values that change results, numbers out of range,
a task id the store cannot key, broken stores and folders. Each sweep ends, in bounded time, with its
report, its MLflow runs closed with the right status and an exit code saying whether anything is
missing; nothing it cannot use is accepted silently, and every failure is one line naming its key or
path."""

from __future__ import annotations

import os
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client
from mlflow.tracking import MlflowClient

from experiments.commands.plans import load_config, parse_args, plan_sweep, sweep_plan
from experiments.commands.sweep import lost_advice, report_main, sweep_main
from experiments.execution.sweep import run_sweep
from experiments.plan.model import SweepConfigError
from experiments.results.store import ResultsStore, SettingsMismatch
from sandbox.suite import load_split
from sandbox.tasks import TaskFormatError, dump_task, load_tasks
from tests.cluster.dask_processes import DASK, start_scheduler
from tests.cluster.slow_planner import KILLER_TASK
from tests.experiments.servers import FaultyServer, ServerThread

pytestmark = pytest.mark.faults

REPO = Path(__file__).resolve().parents[2]
N_TASKS = 34  # handwritten under condition both
HANDWRITTEN = load_split("handwritten.jsonl")


def down_backend() -> ServerThread:
    """An endpoint that passes the pre-flight (it serves the model) and then answers every episode's request
    with 503: its backend is down, as when a served model dies after the sweep has started."""
    return ServerThread(FaultyServer(HANDWRITTEN, fail_tasks=frozenset(t.task_id for t in HANDWRITTEN)))


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0") as dask:
        yield dask


def _args(tmp: Path, *extra: str) -> list[str]:
    return [
        "split=handwritten",
        "seed=0",
        "unit_size=16",
        f"store={tmp / 'results.db'}",
        f"report_dir={tmp / 'report'}",
        f"tracking.uri=sqlite:///{tmp / 'mlflow.db'}",
        *extra,
    ]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_dead_endpoint_beside_a_working_planner_ends_with_the_leaderboard_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, figures
) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    p = "planner.qwen3_8b"
    with down_backend() as thread:
        code = sweep_main(
            _args(
                tmp_path,
                "planner=oracle,qwen3_8b",
                "name=dead-endpoint",
                "infra_retries=1",
                "cluster.processes=false",
                "cluster.n_workers=1",
                "cluster.threads_per_worker=2",
                f"{p}.base_url={thread.base_url}",
                f"{p}.retries.max=0",
                f"{p}.timeouts.connect=1",
            )
        )
    out = capsys.readouterr().out
    assert code == 1, out
    assert "Leaderboard" in out and "100.0" in out  # the oracle's results are shown
    assert "unscored" in out
    assert f"qwen3_8b/handwritten/both/seed0: 34 of 34 keys missing (34 infra_error); endpoint {thread.base_url}" in out
    assert "sweep incomplete" in out
    md = (tmp_path / "report" / "leaderboard.md").read_text()
    assert "| qwen3_8b | both | 0 | 34 | unscored | – | – | – | – |" in md
    assert "| qwen3_8b | both | – | – | – | – | – | 34 (34 infra) |" in md

    mlflow = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    runs = mlflow.search_runs([mlflow.get_experiment_by_name("dead-endpoint").experiment_id])
    status = {r.data.tags.get("mobilepa_cell") or "parent": r.info.status for r in runs}
    assert status == {
        "parent": "FAILED",
        "oracle/handwritten/both/seed0": "FINISHED",
        "qwen3_8b/handwritten/both/seed0": "FAILED",
    }
    [parent] = [r for r in runs if r.data.tags.get("mobilepa_role") == "parent"]
    assert parent.data.metrics["missing_keys"] == 34

    assert report_main(["--store", str(tmp_path / "results.db"), "--out", str(tmp_path / "again")]) == 0
    assert "unscored" in capsys.readouterr().out
    with sqlite3.connect(tmp_path / "results.db") as conn:  # as if MLflow had failed while logging it
        conn.execute("update sweeps set logged = 0")
    assert report_main(["--sync", "--store", str(tmp_path / "results.db")]) == 0
    assert "logged 1 sweep(s)" in capsys.readouterr().out
    figures(
        f"FAULTS dead endpoint beside the oracle: exit {code}, leaderboard printed (oracle 100.0, qwen3_8b "
        "unscored, 34 infra_error), the endpoint named, MLflow parent FAILED, the oracle's child "
        "FINISHED; report and report --sync work on the store"
    )


@pytest.mark.timeout(180)
def test_a_killed_scheduler_ends_the_sweep_soon_after_the_client_gives_up(tmp_path: Path, figures) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    log = (tmp_path / "dask.log").open("w")
    scheduler, address = start_scheduler(tmp_path, env, log)
    worker = subprocess.Popen(
        [str(DASK), "worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-dashboard"],
        env=env,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    killed: list[float] = []
    try:
        with Client(address, timeout="30s") as spy:
            spy.wait_for_workers(1, timeout=60)

        def kill_the_scheduler() -> None:
            while True:
                try:
                    with sqlite3.connect(tmp_path / "results.db") as conn:
                        done = conn.execute("select count(*) from episodes").fetchone()[0]
                except sqlite3.OperationalError:
                    done = 0
                if done >= 4:
                    scheduler.send_signal(signal.SIGKILL)
                    killed.append(time.monotonic())
                    return
                time.sleep(0.02)

        threading.Thread(target=kill_the_scheduler, daemon=True).start()
        connect_timeout = 3
        cfg = load_config(
            *parse_args(
                _args(
                    tmp_path,
                    "planner=oracle",
                    "seed=0,1",
                    "unit_size=4",
                    "tracking=none",
                    "cluster=address",
                    f"cluster.address={address}",
                    f"cluster.connect_timeout={connect_timeout}s",
                    "planner_factory=tests.cluster.slow_planner:build",
                )
            )
        )
        outcome = run_sweep(plan_sweep(cfg))
        ended = time.monotonic()
    finally:
        for proc in (worker, scheduler):
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        log.close()
    assert killed, "the scheduler must die mid-sweep"
    after = ended - killed[0]
    # A hang guard, not a figure: the client gives up after connect_timeout and the driver ends at once
    # (minutes of retries would exceed it; the figure is printed below).
    assert after < connect_timeout + 120, after
    assert outcome.lost and address in outcome.lost and not outcome.complete
    advice = lost_advice(outcome.plan.cluster, tmp_path / "results.db")  # printed after the "cluster lost" line
    assert "exit on their own" in advice and f"`dask worker {address}`" in advice and "same command" in advice
    stored = ResultsStore(tmp_path / "results.db")
    try:
        done = stored.count()
    finally:
        stored.close()
    assert 4 <= done < 2 * N_TASKS and sum(g.not_run for g in outcome.gaps) == 2 * N_TASKS - done
    assert outcome.report is not None  # the leaderboard of what was stored
    figures(
        f"FAULTS scheduler SIGKILLed after {done} of {2 * N_TASKS} episodes: the driver ended {after:.1f} s "
        f"later (cluster.connect_timeout {connect_timeout} s), naming the scheduler; "
        f"{2 * N_TASKS - done} keys reported missing, the report written"
    )


@pytest.mark.timeout(240)
def test_a_unit_that_kills_its_worker_every_time_is_reported_after_its_attempts(tmp_path: Path, figures) -> None:
    started = time.monotonic()
    cfg = load_config(
        *parse_args(
            _args(
                tmp_path,
                "planner=oracle",
                "unit_size=8",
                "unit_attempts=2",
                "tracking=none",
                "cluster.dashboard_address=:0",
                "planner_factory=tests.cluster.slow_planner:build_killer",
            )
        )
    )
    outcome = run_sweep(plan_sweep(cfg))
    took = time.monotonic() - started
    [failure] = outcome.failures
    assert failure.attempts == 2 and "KilledWorker" in failure.error and "oracle/handwritten/both/seed0/" in failure.key
    [gap] = outcome.gaps
    store = ResultsStore(tmp_path / "results.db")
    try:
        stored = {r["task_id"] for r in store.rows()}
    finally:
        store.close()
    assert KILLER_TASK not in stored and gap.not_run == N_TASKS - len(stored) <= 8 and gap.infra_errors == 0
    assert not outcome.complete and outcome.report is not None
    figures(
        f"FAULTS a unit SIGKILLs its worker every time: reported after {failure.attempts} attempts "
        f"(unit_attempts 2 = 2 worker deaths), {len(stored)} of {N_TASKS} keys stored, {gap.not_run} "
        f"reported missing; the sweep ended in {took:.0f} s"
    )


def test_values_that_change_results_are_never_mixed_in_one_store(tmp_path: Path, client: Client) -> None:
    args = _args(tmp_path, "planner=oracle", "tracking=none", "condition=default")
    first = run_sweep(sweep_plan([*args, "t_max=2"]), client=client)
    assert first.ran == 31 and first.complete
    with pytest.raises(SettingsMismatch, match=r"oracle/handwritten/default/seed0 .*t_max: stored 2, now 15"):
        run_sweep(sweep_plan(args), client=client)  # it ran everything to truncated at 2 steps
    again = run_sweep(sweep_plan([*args, "t_max=2"]), client=client)
    assert again.ran == 0 and again.skipped == 31

    noisy = _args(tmp_path / "noisy", "planner=noisy_oracle", "tracking=none", "condition=default")
    run_sweep(sweep_plan(noisy), client=client)
    with pytest.raises(SettingsMismatch, match=r"planner.p_skip_memory: stored 0.3, now 0.9"):
        run_sweep(sweep_plan([*noisy, "planner.noisy_oracle.p_skip_memory=0.9"]), client=client)

    empty = ResultsStore(tmp_path / "empty.db")  # settings of a sweep that stored nothing bind nothing
    try:
        empty.check_settings({("oracle", "handwritten", "default", 0): {"t_max": 2}})
        empty.check_settings({("oracle", "handwritten", "default", 0): {"t_max": 15}})
    finally:
        empty.close()

    endpoint = _args(tmp_path / "endpoint", "planner=qwen3_8b", "tracking=none", "infra_retries=0")
    with down_backend() as thread:
        dead = run_sweep(
            sweep_plan([*endpoint, f"planner.qwen3_8b.base_url={thread.base_url}", "planner.qwen3_8b.retries.max=0"]),
            client=client,
        )
    assert len(dead.infra_errors) == N_TASKS  # stored, as infra_error: the cell's settings now bind
    store = ResultsStore(tmp_path / "endpoint" / "results.db")
    try:
        for extra, refused in (
            (
                [
                    "planner.qwen3_8b.base_url=http://127.0.0.1:2/v1",
                    "planner.qwen3_8b.retries.max=0",
                    "planner.qwen3_8b.concurrency=4",
                ],
                None,
            ),
            (
                ["planner.qwen3_8b.base_url=http://127.0.0.1:2/v1", "planner.qwen3_8b.sampling.temperature=0.0"],
                "planner.sampling.temperature",
            ),
            (
                ["planner.qwen3_8b.base_url=http://127.0.0.1:2/v1", "planner.qwen3_8b.extra_body={top_k: 5}"],
                "planner.extra_body.top_k",
            ),
        ):
            plan = plan_sweep(load_config(*parse_args([*endpoint, *extra])))
            settings = {(c.planner, c.split, c.condition, c.seed): plan.settings(c) for c in plan.cells}
            if refused is None:  # where the endpoint is and how it is retried do not change a result
                store.check_settings(settings)
            else:
                with pytest.raises(SettingsMismatch, match=refused):
                    store.check_settings(settings)
    finally:
        store.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["t_max=0"], "t_max: must be at least 1, got 0"),
        (["t_max=-3"], "t_max: must be at least 1, got -3"),
        (["t_max=abc"], "t_max: an integer is required, got 'abc'"),
        (["concurrency=0"], "concurrency: must be at least 1"),
        (["cluster.n_workers=0"], "cluster.n_workers: must be at least 1"),
        (["cluster.threads_per_worker=1.5"], "cluster.threads_per_worker: an integer is required"),
        (["max_in_flight=-1"], "max_in_flight: must be at least 1, got -1"),
        (["unit_size=abc"], "unit_size: an integer is required, got 'abc'"),
        (["unit_size=2.5"], "unit_size: an integer is required, got 2.5"),
        (["unit_attempts=0"], "unit_attempts: must be at least 1"),
        (["infra_retries=-1"], "infra_retries: must be at least 0"),
        (["infra_retries=true"], "infra_retries: an integer is required, got True"),
        (["seed=12345678901234567890"], "seeds: must be between 0 and 9223372036854775807, got 12345678901234567890"),
        (["seed=1.5"], "seeds: an integer is required, got 1.5"),
        (["seed=-1"], "seeds: must be between 0"),
        (["seed=0,0"], "seeds: each seed once"),
        (["tracking.trace_sample=-1"], "tracking.trace_sample: must be at least 0"),
        (["cluster.no_worker_timeout_s=-5"], "cluster.no_worker_timeout_s: must be at least 0"),
        (
            ["cluster=address", "cluster.address=tcp://127.0.0.1:1", "cluster.connect_timeout=soon"],
            "cluster.connect_timeout: a duration such as 30s is required, got 'soon'",
        ),
        (["planner=oracle", "+planner.oracle.concurrency=0"], "planner.oracle.concurrency: must be at least 1"),
    ],
)
def test_every_numeric_key_is_checked_before_any_work_naming_it(tmp_path: Path, args: list[str], message: str) -> None:
    with pytest.raises(SweepConfigError, match=message.replace("(", r"\(").replace(".", r"\.")):
        run_sweep(
            plan_sweep(
                load_config(
                    *parse_args(
                        [
                            "planner=oracle",
                            "split=handwritten",
                            "tracking=none",
                            *args,
                            f"store={tmp_path / 'results.db'}",
                            f"report_dir={tmp_path / 'report'}",
                        ]
                    )
                )
            )
        )
    assert not (tmp_path / "results.db").exists()


def test_a_task_id_with_an_at_sign_is_refused_at_load(tmp_path: Path) -> None:
    """Episode keys are ``<task_id>@<condition>``: such an id ran and was never stored, every re-run 0/1."""
    task = load_split("handwritten.jsonl")[0].model_copy(update={"task_id": "hw@basic"})
    path = tmp_path / "tasks.jsonl"
    path.write_text(dump_task(task) + "\n", encoding="utf-8")
    with pytest.raises(TaskFormatError, match=r"tasks.jsonl:1: task hw@basic: field task_id: String should match"):
        load_tasks(path)


def _one_line(stderr: str, *needles: str) -> None:
    lines = [line for line in stderr.splitlines() if line.startswith("mobilepa ")]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    assert all(n in lines[0] for n in needles), (lines[0], needles)


def test_store_and_folder_failures_are_one_line_naming_the_path_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(os.urandom(8192))
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    port = _free_port()
    base = ["planner=oracle", "tracking=none", "split=handwritten"]
    cases = [
        ([f"store={garbage}", f"report_dir={tmp_path / 'r1'}"], (str(garbage), "not a database", "move it aside")),
        (
            [f"store={blocker}/results.db", f"report_dir={tmp_path / 'r2'}"],
            (f"{blocker}/results.db", "is a file, not a folder"),
        ),
        (
            [f"store={tmp_path / 's3.db'}", f"report_dir={blocker}/report"],
            (f"report folder {blocker}/report", "is a file, not a folder"),
        ),
        (
            [
                f"store={tmp_path / 's4.db'}",
                f"report_dir={tmp_path / 'r4'}",
                "cluster=address",
                f"cluster.address=tcp://127.0.0.1:{port}",
            ],
            (f"no Dask scheduler answers at tcp://127.0.0.1:{port}",),
        ),
    ]
    for args, needles in cases:
        started = time.monotonic()
        assert sweep_main([*base, *args]) == 2
        _one_line(capsys.readouterr().err, *needles)
        assert time.monotonic() - started < 60  # a hang guard: refused before any cluster was started
    assert not (tmp_path / "s3.db").exists() and not (tmp_path / "s4.db").exists()
    garbage_bytes = garbage.read_bytes()
    assert report_main(["--store", str(garbage), "--out", str(tmp_path / "r5")]) == 2
    _one_line(capsys.readouterr().err, str(garbage), "not a database")
    assert garbage.read_bytes() == garbage_bytes  # nothing overwritten


@pytest.mark.timeout(240)
def test_a_full_disk_and_a_truncated_store_are_one_line_and_the_store_stays_resumable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], figures
) -> None:
    args = [
        sys.executable,
        "-m",
        "experiments.cli",
        "sweep",
        "planner=oracle",
        "split=handwritten",
        "tracking=none",
        "unit_size=4",
        "cluster.processes=false",
        "cluster.n_workers=1",
        f"store={tmp_path / 'results.db'}",
        f"report_dir={tmp_path / 'report'}",
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    # bytes any one file may grow to, as `ulimit -f` sets it: the store (44 KB empty, 80 KB with this split's
    # results) fills up mid-sweep
    limit = 60 * 1024

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    full = subprocess.run(
        args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180, preexec_fn=small_files
    )
    assert full.returncode == 1, full.stdout + full.stderr  # the machine, not what the user gave
    _one_line(full.stderr, f"results store {tmp_path / 'results.db'}", "free space and run again")
    store = ResultsStore(tmp_path / "results.db")
    try:
        kept = store.count()
        assert 0 < kept < N_TASKS
    finally:
        store.close()
    resumed = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"ran {N_TASKS - kept} episodes, {kept} already finished" in resumed.stdout

    truncated = tmp_path / "truncated.db"
    data = (tmp_path / "results.db").read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    assert report_main(["--store", str(truncated), "--out", str(tmp_path / "r")]) == 2
    _one_line(capsys.readouterr().err, str(truncated), "move it aside")
    figures(
        f"FAULTS files limited to {limit // 1024} KB (ulimit -f): the sweep stopped with one line naming the "
        f"store after {kept} of {N_TASKS} results; the same command then ran the other {N_TASKS - kept}; "
        "a store cut in half, a garbage store, a store or report folder under a file and a wrong scheduler "
        "address: one line each, naming the path or address, before any work"
    )
