"""``mobilepa rescore``: stored trajectories judged again by the current verifier, no planner called:
verdicts that changed and unchanged ones, scores before and after, the verifier version per row, the
MLflow runs updated, and tasks that changed beyond their checks refused or dropped."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client
from mlflow.tracking import MlflowClient

from experiments.commands import rescore
from experiments.commands.plans import load_config, parse_args, plan_sweep
from experiments.commands.sweep import report_main
from experiments.execution.sweep import run_sweep
from experiments.results.store import ResultsStore, file_sha256
from sandbox.suite import TASK_DIR
from sandbox.tasks import dump_task, load_tasks
from verification import VERIFIER_VERSION

TAMPERED = "hw_basic_002"


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=":0") as dask:
        yield dask


def _sweep(tmp: Path, client: Client, *extra: str) -> None:
    run_sweep(
        plan_sweep(
            load_config(
                *parse_args(
                    [
                        "planner=oracle,noop",
                        "split=handwritten",
                        "seed=0",
                        "condition=default",
                        "unit_size=16",
                        "name=rescore-test",
                        f"store={tmp / 'results.db'}",
                        f"report_dir={tmp / 'report'}",
                        f"tracking.uri=sqlite:///{tmp / 'mlflow.db'}",
                        "tracking.trace_sample=0",
                        *extra,
                    ]
                )
            )
        ),
        client=client,
    )


def _rows(tmp: Path) -> list[dict]:
    store = ResultsStore(tmp / "results.db")
    try:
        return store.rows()
    finally:
        store.close()


def _oracle_overall(tmp: Path) -> float:
    mlflow = MlflowClient(tracking_uri=f"sqlite:///{tmp / 'mlflow.db'}")
    experiment = mlflow.get_experiment_by_name("rescore-test")
    [child] = mlflow.search_runs(
        [experiment.experiment_id], filter_string="tags.mobilepa_cell = 'oracle/handwritten/default/seed0'"
    )
    return float(child.data.metrics["overall"])


def test_rescore_reports_changed_and_unchanged_verdicts_and_updates_mlflow(
    tmp_path: Path, client: Client, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    _sweep(tmp_path, client)
    assert {r["verifier_version"] for r in _rows(tmp_path)} == {VERIFIER_VERSION}
    with sqlite3.connect(tmp_path / "results.db") as conn:  # as an older verifier had judged them
        conn.execute("update episodes set verifier_version = null")
        conn.execute(
            "update episodes set verdict = 'fail', passed = 0, checker_passed = 0, "
            "reasons = '[\"an older verifier said no\"]' where planner = 'oracle' and task_id = ?",
            (TAMPERED,),
        )
        conn.execute("update sweeps set logged = 0")
    assert report_main(["--sync", "--store", str(tmp_path / "results.db")]) == 0  # MLflow shows the old verdicts
    assert _oracle_overall(tmp_path) < 100.0
    capsys.readouterr()

    assert rescore.main(["--store", str(tmp_path / "results.db")]) == 0
    out = capsys.readouterr().out
    assert (
        f"rescored 62 stored episode(s) of {tmp_path / 'results.db'} with verifier {VERIFIER_VERSION}: "
        "1 verdict(s) changed" in out
    )
    assert f"changed oracle/handwritten/default/0/{TAMPERED}: fail → pass" in out
    [oracle] = [line for line in out.splitlines() if line.startswith("oracle/handwritten/default/seed0")]
    before, after, changed = oracle.split()[-3:]
    assert float(before) < 100.0 and after == "100.00" and changed == "1"
    [noop] = [line for line in out.splitlines() if line.startswith("noop/handwritten/default/seed0")]
    assert noop.split()[-1] == "0" and noop.split()[-3] == noop.split()[-2]  # unchanged: the same Overall
    assert "MLflow runs updated" in out and _oracle_overall(tmp_path) == 100.0
    rows = _rows(tmp_path)
    assert {r["verifier_version"] for r in rows} == {VERIFIER_VERSION}
    [fixed] = [r for r in rows if r["planner"] == "oracle" and r["task_id"] == TAMPERED]
    assert fixed["passed"] and fixed["verdict"] == "pass" and json.loads(fixed["reasons"]) == []

    assert rescore.main(["--store", str(tmp_path / "results.db")]) == 0  # nothing left to change
    out = capsys.readouterr().out
    assert "0 verdict(s) changed" in out and "MLflow" not in out


def test_rescore_judges_by_changed_checks_and_refuses_tasks_changed_beyond_them(
    tmp_path: Path, client: Client, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _sweep(tmp_path, client, "planner=oracle", "tracking=none")
    tasks = {t.task_id: t for t in load_tasks(TASK_DIR / "handwritten.jsonl")}
    gated, moved = tasks["hw_basic_003"], tasks["hw_basic_004"]
    tasks[gated.task_id] = gated.model_copy(update={"required_memory_ids": ["mem_that_was_never_retrieved"]})
    tasks[moved.task_id] = moved.model_copy(update={"query": moved.query + " Please hurry."})
    changed = tmp_path / "tasks"
    changed.mkdir()
    (changed / "handwritten.jsonl").write_text("".join(dump_task(t) + "\n" for t in tasks.values()), encoding="utf-8")
    monkeypatch.setattr(rescore, "TASK_DIR", changed)
    shutil.copy(tmp_path / "results.db", tmp_path / "before.db")

    assert rescore.main(["--store", str(tmp_path / "results.db"), "--no-mlflow"]) == 2
    err = capsys.readouterr().err
    assert "1 stored episode(s) ran tasks that changed since beyond their checks" in err
    assert "hw_basic_004" in err and "--drop-changed" in err
    assert (tmp_path / "results.db").read_bytes() == (tmp_path / "before.db").read_bytes()  # nothing written

    assert rescore.main(["--store", str(tmp_path / "results.db"), "--drop-changed", "--no-mlflow"]) == 0
    out = capsys.readouterr().out
    assert "changed oracle/handwritten/default/0/hw_basic_003: pass → fail (memory gate" in out
    assert "dropped oracle/handwritten/default/0/hw_basic_004" in out
    store = ResultsStore(tmp_path / "results.db")
    try:
        assert {r["task_id"] for r in store.rows()} == set(tasks) - {"hw_basic_004"}
        assert store.datasets()["handwritten"][1] == file_sha256(changed / "handwritten.jsonl")
        assert {r["dataset_hash"] for r in store.rows()} == {file_sha256(changed / "handwritten.jsonl")}
    finally:
        store.close()


def test_a_store_judged_by_an_older_verifier_is_told_to_rescore() -> None:
    """`mobilepa report` names the episodes an older verifier judged (or none recorded) and the command
    that judges them again; a store judged by this verifier gets no such line."""
    rows = [{"verifier_version": VERIFIER_VERSION}, {"verifier_version": "2"}, {"verifier_version": None}]
    line = rescore.stale_verdicts(rows, "outputs/results.db")
    assert line is not None and line.startswith("2 episode(s) were judged by verifier 2, unrecorded")
    assert "`mobilepa rescore --store outputs/results.db`" in line
    assert rescore.stale_verdicts(rows[:1], "outputs/results.db") is None
