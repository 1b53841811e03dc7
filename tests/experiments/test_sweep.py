"""Sweeps on a real 2-process LocalCluster: MLflow runs, the results store's one row per key, re-runs that
run nothing, resumed sweeps that run only the missing keys, and configs that fail before any work."""

from __future__ import annotations

import gzip
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from distributed import Client, LocalCluster
from mlflow.tracking import MlflowClient

from experiments.commands.plans import load_config, parse_args, plan_sweep, sweep_plan
from experiments.commands.sweep import report_main
from experiments.execution.sweep import run_sweep
from experiments.plan.model import SweepConfigError
from experiments.reporting.leaderboard import cell_metrics, leaderboard, sections
from experiments.reporting.tracking import git_commit, leaderboard_from_runs
from experiments.results.store import DatasetMismatch, ResultsStore
from tests.cluster.slow_planner import BROKEN_TASK

REPO = Path(__file__).resolve().parents[2]
GRID = ["planner=oracle,noop", "split=handwritten", "seed=0,1", "unit_size=8", "name=test-sweep"]
N_TASKS = 34  # 31 hand-written tasks; the 3 skill tasks run under SOR and MTSR (condition both)
N_KEYS = 2 * 2 * N_TASKS


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster,
        Client(cluster) as dask,
    ):
        yield dask


def _config(tmp: Path, *extra: str):
    return load_config(
        *parse_args(
            [
                *GRID,
                f"store={tmp / 'results.db'}",
                f"report_dir={tmp / 'report'}",
                f"tracking.uri=sqlite:///{tmp / 'mlflow.db'}",
                *extra,
            ]
        )
    )


@pytest.fixture(scope="module")
def swept(client: Client, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    tmp = tmp_path_factory.mktemp("sweep")
    return tmp, run_sweep(plan_sweep(_config(tmp)), client=client)


def _keys(store: ResultsStore) -> list[tuple]:
    return [(r["planner"], r["split"], r["condition"], r["seed"], r["task_id"]) for r in store.rows()]


def test_sweep_runs_every_key_once_into_the_store(swept) -> None:
    tmp, outcome = swept
    assert outcome.ran == N_KEYS and outcome.skipped == 0 and outcome.failures == [] and outcome.infra_errors == []
    store = ResultsStore(tmp / "results.db")
    try:
        keys = _keys(store)
        assert len(keys) == len(set(keys)) == N_KEYS
        rows = store.rows()
    finally:
        store.close()
    assert all(r["passed"] for r in rows if r["planner"] == "oracle")
    assert {r["dataset_hash"] for r in rows} == {outcome.plan.datasets["handwritten"][1]}


def test_sweep_is_tracked_in_mlflow(swept) -> None:
    tmp, outcome = swept
    mlflow = MlflowClient(tracking_uri=f"sqlite:///{tmp / 'mlflow.db'}")
    experiment = mlflow.get_experiment_by_name("test-sweep")
    runs = mlflow.search_runs([experiment.experiment_id])
    [parent] = [r for r in runs if r.data.tags.get("mobilepa_role") == "parent"]
    assert parent.info.run_id == outcome.parent_run_id and parent.info.status == "FINISHED"
    assert parent.data.params["dataset/handwritten"].endswith(outcome.plan.datasets["handwritten"][1])
    assert {"git_commit", "planners", "seeds"} <= set(parent.data.params)
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id]
    assert sorted((c.data.params["planner"], c.data.params["seed"]) for c in children) == [
        ("noop", "0"),
        ("noop", "1"),
        ("oracle", "0"),
        ("oracle", "1"),
    ]
    store = ResultsStore(tmp / "results.db")
    try:
        for child in children:
            p, m = child.data.params, child.data.metrics
            assert p["split"] == "handwritten" and p["condition"] == "both"
            expected = {
                "overall",
                "format_error_rate",
                "gate/memory",
                "gate/skill",
                *(f"category/{c}" for c in ("basic", "subagent", "memory", "skill")),
                *(f"bucket/{b}" for b in ("tool_call", "state_change", "agent_behavior")),
            }
            assert expected <= set(m), expected - set(m)
            cell_rows = store.rows(planner=p["planner"], seed=int(p["seed"]))
            over_seeds = {k: v for k, v in m.items() if k.startswith("pass_hat_k/")}
            assert m == pytest.approx({**cell_metrics(cell_rows), **over_seeds, "missing": 0})
            assert set(over_seeds) == {"pass_hat_k/1", "pass_hat_k/2"}  # two seeds: k = 1, 2 over base tasks
            assert {
                "overall/ci_low",
                "overall/ci_high",
                "category/memory/ci_high",
                "retrieval/sor",
                "retrieval/mtsr",
            } <= set(m)
            assert any(k.startswith("domain/D") for k in m)
            # timed by when the cell's episodes ran, not when it was logged
            started = min(datetime.fromisoformat(r["started_at"]) for r in cell_rows)
            ended = max(datetime.fromisoformat(r["ended_at"]) for r in cell_rows)
            assert child.info.start_time == round(started.timestamp() * 1000)
            assert child.info.end_time == round(ended.timestamp() * 1000)
            assert child.info.status == "FINISHED"
            if p["planner"] == "oracle":
                assert m["overall"] == 100.0 and m["gate/memory"] == m["gate/skill"] == 100.0
            else:
                assert m["overall"] < 10
            names = {a.path for a in mlflow.list_artifacts(child.info.run_id)}
            assert {"trajectories.jsonl.gz", "episodes.jsonl"} <= names
            local = mlflow.download_artifacts(child.info.run_id, "trajectories.jsonl.gz", str(tmp / child.info.run_id))
            with gzip.open(local, "rt") as fh:
                assert len([json.loads(line) for line in fh]) == N_TASKS
    finally:
        store.close()
    names = {a.path for a in mlflow.list_artifacts(parent.info.run_id)}
    assert {
        "category_scores.png",
        "domain_heatmap.png",
        "error_types.png",
        "leaderboard.html",
        "leaderboard.md",
        "stability.json",
        "config.json",
    } <= names
    traces = mlflow.search_traces(locations=[experiment.experiment_id], run_id=children[0].info.run_id)
    assert len(traces) == 3  # tracking.trace_sample episodes, one span per step under the episode's span
    assert {t.info.tags.get("mlflow.source.git.commit") for t in traces} == {git_commit()} != {None}
    assert all(len(t.data.spans) >= 2 and t.data.spans[0].span_type == "AGENT" for t in traces)
    metrics = parent.data.metrics
    assert metrics["stability/oracle/handwritten/both/overall/mean"] == 100.0
    assert metrics["stability/noop/handwritten/both/overall/std"] == 0.0
    assert metrics["stability/oracle/handwritten/both/pass_all"] == 100.0


def test_the_mlflow_experiment_rebuilds_the_leaderboard_through_search_runs(swept) -> None:
    """Two planners over two seeds: the child runs alone, as `mlflow.search_runs` returns them, give the
    leaderboard's scores table the report printed."""
    import mlflow as mlflow_module

    tmp, _ = swept
    mlflow = MlflowClient(tracking_uri=f"sqlite:///{tmp / 'mlflow.db'}")
    experiment = mlflow.get_experiment_by_name("test-sweep")
    mlflow_module.set_tracking_uri(f"sqlite:///{tmp / 'mlflow.db'}")
    runs = mlflow_module.search_runs(experiment_ids=[experiment.experiment_id])
    store = ResultsStore(tmp / "results.db")
    try:
        [(split, tables)] = sections(leaderboard(store.rows()))
    finally:
        store.close()
    assert leaderboard_from_runs(runs) == {split: tables[0][2]}
    assert [row[:4] for row in tables[0][2]] == [["oracle", "both", "0,1", "34"], ["noop", "both", "0,1", "34"]]


def test_the_sweep_writes_one_self_contained_report_folder(swept) -> None:
    """Two planners over two seeds: the folder holds the whole report and nothing else, the shareable files
    carry the intervals and the failure causes, and analysis.json says what each figure counts."""
    tmp, _ = swept
    report = tmp / "report"
    listed = json.loads((report / "report.json").read_text())
    assert {p.name for p in report.iterdir()} == {*listed["files"], "report.json"}
    assert {"leaderboard.md", "leaderboard.html", "leaderboard.txt", "analysis.json", "studies.json"} <= set(
        listed["files"]
    )
    assert listed["about"].startswith("sweep test-sweep (") and "[key " in listed["about"]
    for name in ("leaderboard.md", "leaderboard.html", "leaderboard.txt"):
        text = (report / name).read_text()
        assert "95 % intervals of the scores, split handwritten" in text and "100.0–100.0" in text, name
        assert "Failure causes, split handwritten" in text and "Across planners, split handwritten" in text, name
        assert "Memory by where its facts live" in text and "Memory by application domain" in text, name
    analysis = json.loads((report / "analysis.json").read_text())
    assert set(analysis["groups"]) == {"oracle/handwritten/both", "noop/handwritten/both"}
    assert len(analysis["cells"]) == 4 and "base tasks" in analysis["units"]["pass_hat_k"]
    noop = analysis["groups"]["noop/handwritten/both"]
    assert noop["overall"]["value"] < 10 and sum(noop["taxonomy"]["noop"].values()) > 0


def test_rerun_runs_nothing_new_and_reuses_the_runs(swept, client: Client) -> None:
    tmp, first = swept
    again = run_sweep(plan_sweep(_config(tmp)), client=client)
    assert again.ran == 0 and again.skipped == N_KEYS
    assert again.parent_run_id == first.parent_run_id
    mlflow = MlflowClient(tracking_uri=f"sqlite:///{tmp / 'mlflow.db'}")
    experiment_id = mlflow.get_experiment_by_name("test-sweep").experiment_id
    assert len(mlflow.search_runs([experiment_id])) == 5
    assert len(mlflow.search_traces(locations=[experiment_id], max_results=100)) == 4 * 3  # not logged twice


@pytest.mark.faults
def test_resumed_sweep_runs_only_missing_and_infra_error_keys(client: Client, tmp_path: Path) -> None:
    cfg = _config(tmp_path, "tracking=none", "planner=oracle")
    run_sweep(plan_sweep(cfg), client=client)
    store = ResultsStore(tmp_path / "results.db")
    before = store.rows(with_trajectories=True)
    with store.engine.begin() as conn:  # an interrupted sweep: some keys missing, one an infra error
        conn.exec_driver_sql("delete from episodes where seed = 1 and task_id like 'hw_memory%'")
        missing = N_TASKS * 2 - conn.exec_driver_sql("select count(*) from episodes").scalar()
        conn.exec_driver_sql(
            "update episodes set termination = 'infra_error' where seed = 0 and task_id = "
            "(select min(task_id) from episodes)"
        )
    assert missing > 0
    resumed = run_sweep(plan_sweep(cfg), client=client)
    assert resumed.ran == missing + 1 and resumed.skipped == 2 * N_TASKS - missing - 1
    after = store.rows(with_trajectories=True)
    store.close()
    ran_again = ("wall_s", "planner_latency_s", "trajectory", "started_at", "ended_at", "provenance_id")

    def strip(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in r.items() if k not in ran_again} for r in rows]

    assert strip(after) == strip(before)


@pytest.mark.faults
def test_killed_driver_then_rerun_finishes_only_the_missing_keys(client: Client, tmp_path: Path, figures) -> None:
    """SIGKILL the whole driver (and its cluster) mid-sweep; the same command then runs only what is missing."""
    args = [
        "planner=oracle",
        "split=handwritten",
        "seed=0,1",
        "tracking=none",
        "unit_size=2",
        "max_in_flight=2",
        f"store={tmp_path / 'results.db'}",
        f"report_dir={tmp_path / 'report'}",
    ]
    slow = ["planner_factory=tests.cluster.slow_planner:build", "cluster.dashboard_address=:0"]
    driver = subprocess.Popen(
        [sys.executable, "-m", "experiments.cli", "sweep", *args, *slow],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    stored = 0
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and driver.poll() is None and stored < 6:
            time.sleep(0.05)
            try:
                with sqlite3.connect(tmp_path / "results.db") as conn:
                    stored = conn.execute("select count(*) from episodes").fetchone()[0]
            except sqlite3.OperationalError:
                stored = 0
    finally:
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait()
    store = ResultsStore(tmp_path / "results.db")
    done = store.count()
    store.close()
    assert 6 <= done < 2 * N_TASKS, "the driver must die mid-sweep"
    resumed = run_sweep(sweep_plan([*args, *slow]), client=client)  # the same command
    assert resumed.skipped == done and resumed.ran == 2 * N_TASKS - done
    store = ResultsStore(tmp_path / "results.db")
    keys = _keys(store)
    store.close()
    assert len(keys) == len(set(keys)) == 2 * N_TASKS
    figures(
        f"FAULTS driver SIGKILL: {2 * N_TASKS} keys, {done} stored before the kill, re-run ran {resumed.ran} "
        f"and skipped {resumed.skipped}; lost {2 * N_TASKS - len(set(keys))}, "
        f"counted twice {len(keys) - len(set(keys))}"
    )


@pytest.mark.faults
def test_infra_errors_are_retried_a_bounded_number_of_times_and_never_finished(
    client: Client, tmp_path: Path, figures
) -> None:
    cfg = _config(
        tmp_path,
        "tracking=none",
        "planner=oracle",
        "seed=0",
        "infra_retries=2",
        "planner_factory=tests.cluster.slow_planner:build_broken",
    )
    outcome = run_sweep(plan_sweep(cfg), client=client)
    assert outcome.ran == N_TASKS + 2  # the broken episode ran 1 + infra_retries times
    assert outcome.infra_errors == [f"oracle/handwritten/both/0/{BROKEN_TASK}"]
    store = ResultsStore(tmp_path / "results.db")
    [broken] = store.rows(task_id=BROKEN_TASK)
    assert broken["termination"] == "infra_error" and not broken["scorable"] and store.count() == N_TASKS
    store.close()
    again = run_sweep(plan_sweep(cfg), client=client)  # an infra error is not finished: the next sweep tries again
    assert again.skipped == N_TASKS - 1 and again.ran == 3
    figures(
        f"FAULTS backend down for one task: {outcome.ran} runs for {N_TASKS} keys (1 + {outcome.infra_retried} "
        f"retries for it), {len(outcome.infra_errors)} infra_error key, unscorable; the next sweep re-ran only it"
    )


@pytest.mark.faults
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["planner=oracle,gpt5"], "planners: unknown planner 'gpt5'"),
        (["split=nope"], "splits: unknown split 'nope'"),
        (["condition=oracle_skills"], "conditions: unknown condition 'oracle_skills'"),
        (["seed=a"], "seeds"),
        (["cluster=address"], "cluster.address"),
        (["planner=replay"], "planner.path"),
        (["planner=qwen3_8b", "planner.qwen3_8b.vllm.tool_call_parser=null"], "planner.qwen3_8b.vllm.tool_call_parser"),
        (["planner=oracle", "planner.noop.x=1"], "planner.noop"),
        (["planner_factory=nowhere"], "planner_factory"),
        (["planner_factory=nowhere.at_all:build"], "planner_factory"),
        (["unit_size=0"], "unit_size"),
        # a key nothing reads is refused, never recorded and ignored
        (["+foo.bar=1"], "foo.bar: no such key; known keys: cluster, tracking, name"),
        (["++cluster.n_workerz=2"], "cluster.n_workerz: no such key; known keys of cluster: kind, n_workers"),
        (["+planner.api_key=sk-test"], "planner.api_key: a sweep sets one planner's key: planner.<name>.api_key"),
        (["planner=oracle", "+planner.oracle.api_key=sk-test"], "planner.oracle.api_key: unknown key for kind oracle"),
    ],
)
def test_bad_configs_fail_before_any_work_naming_the_key(tmp_path: Path, args: list[str], message: str) -> None:
    with pytest.raises(SweepConfigError, match=message):
        plan_sweep(load_config(*parse_args([*args, f"store={tmp_path / 'results.db'}"])))
    with pytest.raises(SweepConfigError, match=message):
        run_sweep(sweep_plan([*args, f"store={tmp_path / 'results.db'}"]))
    assert not (tmp_path / "results.db").exists()


def test_a_key_given_for_a_model_planner_is_applied(tmp_path: Path) -> None:
    """``+planner.<name>.api_key`` reaches the planner's config: the requests carry it."""
    args = ["planner=qwen3_8b", "split=handwritten", "+planner.qwen3_8b.api_key=sk-test"]
    args += ["planner.qwen3_8b.base_url=http://127.0.0.1:9/v1", f"store={tmp_path / 'results.db'}"]
    plan = plan_sweep(load_config(*parse_args(args)))
    assert {c.planner_config["api_key"] for c in plan.cells} == {"sk-test"}


@pytest.mark.faults
def test_a_store_from_another_dataset_version_is_refused(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "results.db")
    store.check_dataset("handwritten", "handwritten.jsonl", "0" * 64)
    store.close()
    with pytest.raises(DatasetMismatch, match=r"split 'handwritten' .* sha256 000000000000"):
        run_sweep(plan_sweep(_config(tmp_path, "tracking=none")))


def test_report_writes_the_leaderboard_as_markdown_and_self_contained_html(swept, capsys) -> None:
    tmp, _ = swept
    store = ResultsStore(tmp / "results.db")
    board = leaderboard(store.rows())
    store.close()
    assert [e["planner"] for e in board] == ["oracle", "noop"]
    assert board[0]["stability"].overall.mean == 100.0 and board[0]["seeds"] == [0, 1]
    assert report_main(["--store", str(tmp / "results.db"), "--out", str(tmp / "board")]) == 0
    assert "Leaderboard" in capsys.readouterr().out
    md = (tmp / "board" / "leaderboard.md").read_text()
    assert "## Split handwritten" in md and "| oracle | both | 0,1 | 34 | 100.0±0.0 |" in md
    html = (tmp / "board" / "leaderboard.html").read_text()
    assert html.count("data:image/png;base64,") == 3 and "<td>oracle</td>" in html
    assert report_main(["--store", str(tmp / "missing.db")]) == 2


def test_child_params_tell_two_models_behind_one_config_apart() -> None:
    """The model, the name it is served under and the sampling are params; a key is masked."""
    from experiments.reporting.tracking import planner_params

    config = {
        "kind": "openai",
        "name": "hosted_openai",
        "model": "Qwen/Qwen3-8B",
        "served_model_name": "qwen3",
        "api_key": "sk-secret",
        "sampling": {"temperature": 0.0, "top_p": None},
        "limits": {},
        "vllm": {"serve_args": ["--max-model-len", "16384"]},
    }
    params = planner_params(config)
    assert params["model"] == "Qwen/Qwen3-8B" and params["served_model"] == "qwen3"
    assert params["planner.sampling.temperature"] == 0.0 and params["planner.sampling.top_p"] is None
    assert params["planner.api_key"] == "***" and params["planner.vllm.serve_args"] == '["--max-model-len", "16384"]'
    assert params["planner.limits"] == "{}" and "sk-secret" not in json.dumps(params)
    other = planner_params({**config, "model": "meta-llama/Llama-3.1-8B", "served_model_name": None})
    assert other["served_model"] == "meta-llama/Llama-3.1-8B" != params["served_model"]
