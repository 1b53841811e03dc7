"""Tracking faults: an unreachable MLflow stops a sweep before any work; MLflow failing after the work
loses nothing (the results are in the store) and ``mobilepa report --sync`` logs them when it is back."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from contextlib import closing, suppress
from pathlib import Path

import pytest
from distributed import Client
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from experiments.commands.plans import load_config, parse_args, plan_sweep
from experiments.commands.sweep import report_main
from experiments.execution.sweep import run_sweep
from experiments.plan.model import SweepConfigError
from experiments.reporting import tracking
from experiments.results.store import ResultsStore

pytestmark = pytest.mark.faults

GRID = ["planner=oracle", "split=handwritten", "seed=0", "unit_size=16", "name=test-faults"]


@pytest.fixture(scope="module")
def client() -> Client:
    with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0") as dask:
        yield dask


def _config(tmp: Path, uri: str, *extra: str):
    return load_config(
        *parse_args(
            [*GRID, f"store={tmp / 'results.db'}", f"report_dir={tmp / 'report'}", f"tracking.uri={uri}", *extra]
        )
    )


def _half_built_mlflow_store(path: Path) -> None:
    """MLflow's first schema migration stopped by a full disk, as a file-size limit of 53 KB stops it: some
    tables and the migration's mark, then SQLite's "database or disk is full" (or "disk I/O error")."""
    code = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (53 * 1024, resource.RLIM_INFINITY)); "
        "from mlflow.tracking import MlflowClient; MlflowClient(tracking_uri=sys.argv[1]).search_experiments()"
    )
    failed = subprocess.run([sys.executable, "-c", code, f"sqlite:///{path}"], capture_output=True, text=True)
    assert failed.returncode != 0, failed.stderr[-2000:]
    assert "disk is full" in failed.stderr or "disk I/O error" in failed.stderr, failed.stderr[-2000:]
    with closing(sqlite3.connect(path)) as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "alembic_version" in tables and "registered_models" not in tables, tables  # half-built


def test_a_half_built_mlflow_store_is_named_before_any_work_and_sync_refills_a_new_one(
    tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """MLflow re-ran the interrupted migration on every later start ("duplicate column name: step"), so
    every sweep failed with a long traceback until the file was deleted by hand."""
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    db = tmp_path / "mlflow.db"
    uri = f"sqlite:///{db}"
    first = run_sweep(plan_sweep(_config(tmp_path, uri)), client=client)
    assert first.parent_run_id and first.ran == 34
    db.rename(tmp_path / "lost.db")  # the sweep's runs are gone with it
    _half_built_mlflow_store(db)
    half = db.read_bytes()
    with pytest.raises(SweepConfigError) as refused:
        run_sweep(plan_sweep(_config(tmp_path, uri, "seed=1")), client=client)
    line = str(refused.value)
    assert "\n" not in line and f"MLflow store {db} was left half-built by an interrupted schema migration" in line
    assert f"`mv {db} {db}.broken`" in line and f"`mobilepa report --sync --store {tmp_path / 'results.db'}`" in line
    assert db.read_bytes() == half
    store = ResultsStore(tmp_path / "results.db")
    try:
        assert store.count() == 34  # the refused sweep ran nothing
    finally:
        store.close()

    db.rename(tmp_path / "mlflow.db.broken")  # what the line says; the sync then refills a new store
    # in a process of its own, as a user runs it: MLflow keeps its stores' connections per process, and
    # this one's still reach the file the first sweep wrote
    sync = [sys.executable, "-m", "experiments.cli", "report", "--sync", "--store", str(tmp_path / "results.db")]
    synced = subprocess.run(sync, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert synced.returncode == 0 and "logged 1 sweep(s) to MLflow" in synced.stdout, synced.stdout + synced.stderr
    mlflow = MlflowClient(tracking_uri=uri)
    experiment = mlflow.get_experiment_by_name("test-faults")
    children = mlflow.search_runs([experiment.experiment_id], filter_string="tags.mobilepa_cell LIKE '%'")
    assert len(children) == 1 and children[0].data.metrics["overall"] == 100.0
    assert report_main(["--sync", "--store", str(tmp_path / "results.db")]) == 0
    assert "nothing was waiting" in capsys.readouterr().out


def test_an_unreachable_tracking_server_fails_before_any_work(
    tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    with pytest.raises(SweepConfigError, match=r"tracking.uri: cannot reach MLflow at http://127.0.0.1:9"):
        run_sweep(plan_sweep(_config(tmp_path, "http://127.0.0.1:9")), client=client)
    store = ResultsStore(tmp_path / "results.db")
    try:
        assert store.count() == 0
    finally:
        store.close()


def test_mlflow_down_after_the_work_loses_nothing_and_sync_logs_it_later(
    tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"

    def down(*args: object, **kwargs: object) -> None:
        raise MlflowException("connection refused (simulated outage)")

    with monkeypatch.context() as outage:
        outage.setattr(tracking, "_log_metrics", down)
        outcome = run_sweep(plan_sweep(_config(tmp_path, uri)), client=client)
    assert outcome.tracking_error and "simulated outage" in outcome.tracking_error
    store = ResultsStore(tmp_path / "results.db")
    try:
        assert store.count() == outcome.ran == 34 and all(r["passed"] for r in store.rows())
        assert [key for key, _ in store.unlogged_sweeps()] == [outcome.plan.sweep_key]
    finally:
        store.close()

    assert report_main(["--sync", "--store", str(tmp_path / "results.db")]) == 0
    assert "logged 1 sweep(s) to MLflow" in capsys.readouterr().out
    mlflow = MlflowClient(tracking_uri=uri)
    experiment = mlflow.get_experiment_by_name("test-faults")
    children = mlflow.search_runs([experiment.experiment_id], filter_string="tags.mobilepa_cell LIKE '%'")
    assert len(children) == 1 and children[0].data.metrics["overall"] == 100.0
    store = ResultsStore(tmp_path / "results.db")
    try:
        assert store.unlogged_sweeps() == []
    finally:
        store.close()
    assert report_main(["--sync", "--store", str(tmp_path / "results.db")]) == 0
    assert "nothing was waiting" in capsys.readouterr().out
    # MLflow writes the URI into the environment; left there it would send the next sweep in this
    # process to this store instead of its own tracking.uri
    assert "MLFLOW_TRACKING_URI" not in os.environ


def test_sync_completes_runs_that_lack_params_metrics_or_traces(
    tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """MLflow dying between creating a run and logging it left a child FINISHED without params after
    ``--sync`` (runs found again by tag were never completed), and a child with 2 of its 3 traces."""
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    calls = {"params": 0, "traces": 0}
    log_batch, start_trace = MlflowClient.log_batch, MlflowClient.start_trace

    def dies_after_creating_the_child(self: MlflowClient, run_id: str, *args: object, **kwargs: object) -> None:
        if kwargs.get("params"):
            calls["params"] += 1
            if calls["params"] == 2:  # the parent's params went in; the child was created, then MLflow died
                raise MlflowException("connection refused (simulated outage)")
        log_batch(self, run_id, *args, **kwargs)

    def dies_at_the_third_trace(self: MlflowClient, *args: object, **kwargs: object) -> object:
        calls["traces"] += 1
        if calls["traces"] == 3:
            raise MlflowException("connection reset (simulated outage)")
        return start_trace(self, *args, **kwargs)

    with monkeypatch.context() as outage:
        outage.setattr(MlflowClient, "log_batch", dies_after_creating_the_child)
        outcome = run_sweep(plan_sweep(_config(tmp_path, uri)), client=client)
    assert outcome.tracking_error and "simulated outage" in outcome.tracking_error
    with monkeypatch.context() as outage:
        outage.setattr(MlflowClient, "start_trace", dies_at_the_third_trace)
        assert report_main(["--sync", "--store", str(tmp_path / "results.db")]) == 1
    assert "simulated outage" in capsys.readouterr().err

    mlflow = MlflowClient(tracking_uri=uri)
    experiment_id = mlflow.get_experiment_by_name("test-faults").experiment_id
    [child] = mlflow.search_runs([experiment_id], filter_string="tags.mobilepa_cell LIKE '%'")
    assert child.data.params["planner"] == "oracle"  # completed by the first sync, before the traces failed
    assert len(mlflow.search_traces(locations=[experiment_id], run_id=child.info.run_id)) == 2

    assert report_main(["--sync", "--store", str(tmp_path / "results.db")]) == 0
    assert "logged 1 sweep(s) to MLflow" in capsys.readouterr().out
    [child] = mlflow.search_runs([experiment_id], filter_string="tags.mobilepa_cell LIKE '%'")
    assert {"planner", "split", "seed", "condition", "t_max", "dataset_hash"} <= set(child.data.params)
    assert child.data.metrics["overall"] == 100.0 and child.info.status == "FINISHED"
    traces = mlflow.search_traces(locations=[experiment_id], run_id=child.info.run_id)
    assert sorted(t.info.tags["task_id"] for t in traces) == sorted(
        r["task_id"] for r in tracking.trace_sample(_rows(tmp_path), 3)
    )  # the three sampled episodes, each once
    [parent] = mlflow.search_runs([experiment_id], filter_string="tags.mobilepa_role = 'parent'")
    assert parent.info.status == "FINISHED" and len(mlflow.search_runs([experiment_id])) == 2


def _rows(tmp: Path) -> list[dict]:
    store = ResultsStore(tmp / "results.db")
    try:
        return store.rows()
    finally:
        store.close()


def _start(plan: object, uri: str, barrier: object) -> None:
    """One sweep's start of tracking, in its own process, at the same moment as the others."""
    import os

    os.environ["MLFLOW_TRACKING_URI"] = uri
    barrier.wait()  # type: ignore[attr-defined]
    tracking.start_tracking(plan)  # type: ignore[arg-type]


def test_sweeps_starting_together_on_a_new_mlflow_store_all_start(tmp_path: Path, figures) -> None:
    """Two sweeps started together on a new SQLite store: the second crashed in 3 of 3 tries (alembic
    ``CommandError``, ``duplicate column name: step``) while both created the schema."""
    import multiprocessing

    from experiments.commands.plans import plan_sweep

    plan = plan_sweep(_config(tmp_path, "sqlite:///unused.db"))
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(3)
    starts = [context.Process(target=_start, args=(plan, uri, barrier)) for _ in range(3)]
    for process in starts:
        process.start()
    for process in starts:
        process.join(timeout=600)  # a hang guard: three processes import MLflow at once
    assert [p.exitcode for p in starts] == [0, 0, 0]
    mlflow = MlflowClient(tracking_uri=uri)
    experiment = mlflow.get_experiment_by_name("test-faults")
    assert len(mlflow.search_runs([experiment.experiment_id])) == 1  # the same sweep: one parent run
    figures(
        "FAULTS 3 sweeps starting together on a new MLflow SQLite store: 3 of 3 started, one experiment, one parent run"
    )


def test_make_ui_serves_and_stops_on_sigterm_to_its_process_group(tmp_path: Path, figures) -> None:
    """``make ui`` took 114 s to serve on a loaded machine and outlived a SIGTERM to its process group."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    repo = Path(__file__).resolve().parents[2]
    make = [
        "make",
        "-s",
        "-C",
        str(repo),
        "-o",
        ".venv/.installed-stamp",  # the venv as it is: never reinstalled by a test
        "ui",
        f"MLFLOW_URI=sqlite:///{tmp_path / 'mlflow.db'}",
        f"UI_PORT={port}",
    ]
    log = (tmp_path / "ui.log").open("w")
    started = time.monotonic()
    ui = subprocess.Popen(make, stdout=log, stderr=log, start_new_session=True)
    try:
        while True:  # a hang guard, not a figure: the figure is printed
            assert ui.poll() is None and time.monotonic() - started < 600, (tmp_path / "ui.log").read_text()[-3000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        served = time.monotonic() - started
        os.killpg(ui.pid, signal.SIGTERM)
        stopping = time.monotonic()
        ui.wait(timeout=60)
        while time.monotonic() - stopping < 60:  # every process of the group gone, not only make
            try:
                os.killpg(ui.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            raise AssertionError("a process of `make ui`'s group outlived the SIGTERM by 60 s")
        stopped = time.monotonic() - stopping
    finally:
        with suppress(ProcessLookupError):
            os.killpg(ui.pid, signal.SIGKILL)
        log.close()
    figures(f"FAULTS make ui: served after {served:.1f} s, its process group gone {stopped:.1f} s after SIGTERM")


def test_a_tracking_server_that_stops_answering_is_named_within_seconds(
    monkeypatch: pytest.MonkeyPatch, figures
) -> None:
    """MLflow's own client retried a dead server for about 4 minutes (7 retries with backoff) before the
    sweep could say so; the toolkit bounds its retries and timeout unless the user set them."""
    for name in tracking.MLFLOW_CLIENT_LIMITS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_TIMEOUT", "7")  # the user's own choice stays
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"  # nothing listens once the socket is closed
    with pytest.raises(tracking.TrackingUnavailable, match=f"cannot reach MLflow at {dead}"):
        tracking.check_tracking_store(dead)
    assert os.environ["MLFLOW_HTTP_REQUEST_MAX_RETRIES"] == "1" and os.environ["MLFLOW_HTTP_REQUEST_TIMEOUT"] == "7"
    assert os.environ["MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT"] == "true"  # no "View run" lines on the console
    started = time.monotonic()
    with pytest.raises(MlflowException):  # what logging a finished sweep meets when the server died meanwhile
        MlflowClient(tracking_uri=dead).search_experiments()
    took = time.monotonic() - started
    assert took < 60, took  # a hang guard, not a figure (MLflow's default took minutes)
    figures(f"FAULTS MLflow server gone: the client gave up after {took:.1f} s (MLflow's default: about 4 minutes)")
