"""Tracking faults: an unreachable MLflow stops a sweep before any work; MLflow failing after the work
loses nothing (the results are in the store) and ``mobilepa report --sync`` logs them when it is back."""

from __future__ import annotations

from pathlib import Path

import pytest
from distributed import Client
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from experiments import tracking
from experiments.store import ResultsStore
from experiments.sweep import SweepConfigError, load_config, parse_args, run_sweep
from experiments.sweep_cli import report_main

pytestmark = pytest.mark.faults

GRID = ["planner=oracle", "split=handwritten", "seed=0", "unit_size=16", "name=test-faults"]


@pytest.fixture(scope="module")
def client() -> Client:
    with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0") as dask:
        yield dask


def _config(tmp: Path, uri: str):
    return load_config(*parse_args([*GRID, f"store={tmp / 'results.db'}", f"report_dir={tmp / 'report'}",
                                    f"tracking.uri={uri}"]))


def test_an_unreachable_tracking_server_fails_before_any_work(tmp_path: Path, client: Client,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    with pytest.raises(SweepConfigError, match=r"tracking.uri: cannot reach MLflow at http://127.0.0.1:9"):
        run_sweep(_config(tmp_path, "http://127.0.0.1:9"), client=client)
    store = ResultsStore(tmp_path / "results.db")
    try:
        assert store.count() == 0
    finally:
        store.close()


def test_mlflow_down_after_the_work_loses_nothing_and_sync_logs_it_later(
        tmp_path: Path, client: Client, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"

    def down(*args: object, **kwargs: object) -> None:
        raise MlflowException("connection refused (simulated outage)")

    with monkeypatch.context() as outage:
        outage.setattr(tracking, "_log_metrics", down)
        outcome = run_sweep(_config(tmp_path, uri), client=client)
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
    assert "MLFLOW_TRACKING_URI" not in __import__("os").environ
