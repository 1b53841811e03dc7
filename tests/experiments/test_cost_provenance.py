"""Issue 19, cost and provenance: a price table turning tokens into money (and nothing without a price),
GPU-seconds shared by latency, provenance on every store row (old stores migrated), and the MLflow child
run's task-file input dataset and verdict assessments on its traces."""

from __future__ import annotations

import gzip
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from experiments.analysis.cost import PriceError, cell_cost, episode_cost, price_of, share_gpu_seconds, with_costs
from experiments.commands.plans import load_config, parse_args, plan_sweep, sweep_plan
from experiments.execution.sweep import run_sweep
from experiments.reporting.leaderboard import cell_metrics, leaderboard, sections
from experiments.results.store import ADDED_COLUMNS, ResultsStore
from planners.openai_compat import OpenAIConfig

PRICE = {"price": {"prompt": 2.5, "cached_prompt": 1.25, "completion": 10.0}}


def _row(
    task: str,
    prompt: int | None,
    completion: int | None,
    cached: int | None = None,
    *,
    seed: int = 0,
    pid: str | None = "p1",
    latency: float = 1.0,
) -> dict:
    return {
        "planner": "hosted",
        "split": "s",
        "condition": "default",
        "seed": seed,
        "task_id": task,
        "category": "basic",
        "domain": "D1",
        "l2": "x",
        "bucket": "tool_call",
        "verdict": "pass",
        "passed": True,
        "checker_passed": True,
        "memory_gate": None,
        "skill_gate": None,
        "scorable": True,
        "reasons": "[]",
        "termination": "finished",
        "steps": 3,
        "format_errors": 0,
        "error_kinds": "{}",
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cached_prompt_tokens": cached,
        "planner_latency_s": latency,
        "wall_s": 1.0,
        "provenance_id": pid,
    }


def test_a_price_turns_known_token_counts_into_the_expected_cost() -> None:
    price = price_of(PRICE)
    # 1M prompt tokens of which 400k cached, 100k completion: 0.6·2.5 + 0.4·1.25 + 0.1·10 = 3.0 USD
    assert episode_cost(1_000_000, 400_000, 100_000, price) == pytest.approx(3.0)
    # no cached price: cached tokens billed as prompt tokens
    plain = price_of({"price": {"prompt": 2.5, "cached_prompt": None, "completion": 10.0}})
    assert episode_cost(1_000_000, 400_000, 100_000, plain) == pytest.approx(3.5)
    cost = cell_cost([_row("a", 2000, 100, 1000), _row("b", 4000, 300)], price)
    expected = ((1000 * 2.5 + 1000 * 1.25 + 100 * 10) + (4000 * 2.5 + 300 * 10)) / 1e6
    assert cost["cost_usd"] == pytest.approx(expected)
    assert cost["cost_usd_per_episode"] == pytest.approx(expected / 2)
    assert cost["prompt_tokens_per_episode"] == 3000 and cost["cached_prompt_tokens"] == 1000
    # from the store: the price in the planner config of the provenance record the rows name
    rows = with_costs(
        [_row("a", 2000, 100, 1000), _row("b", 4000, 300)], {"p1": {"planner_config": PRICE, "gpu_s": None}}
    )
    metrics = cell_metrics(rows)
    assert metrics["cost/cost_usd"] == pytest.approx(expected)
    assert "cost/gpu_s" not in metrics
    ((_, tables),) = sections(leaderboard(rows))
    title, header, body = tables[-1]
    assert title.startswith("Cost") and header[6] == "USD/cell"
    assert body[0][6] == f"${expected:.4f}" and body[0][3] == "3000"


@pytest.mark.parametrize(
    "config",
    [
        {},
        {"price": None},
        {"price": {"prompt": 2.5, "completion": None}},
        {"price": {"prompt": None, "cached_prompt": 1.0, "completion": 3.0}},
    ],
)
def test_unknown_prices_show_tokens_only(config: dict) -> None:
    assert price_of(config) is None
    rows = with_costs([_row("a", 2000, 100), _row("b", 4000, 300, seed=1)], {"p1": {"planner_config": config}})
    assert all(r["cost_usd"] is None and r["gpu_s"] is None for r in rows)
    cost = cell_cost(rows, price_of(config))
    assert cost["cost_usd"] is None and cost["prompt_tokens"] == 6000
    metrics = cell_metrics(rows)
    assert "cost/cost_usd" not in metrics and metrics["cost/completion_tokens"] == 400
    ((_, tables),) = sections(leaderboard(rows))
    _, header, body = tables[-1]
    assert body[0][header.index("USD/cell")] == "–" and body[0][header.index("prompt")] == "3000"


def test_no_tokens_and_no_price_adds_no_cost_table() -> None:
    rows = with_costs([_row("a", None, None, pid=None)], {})
    ((_, tables),) = sections(leaderboard(rows))
    assert not any(title.startswith("Cost") for title, _, _ in tables)


def test_bad_prices_are_refused_naming_the_key() -> None:
    with pytest.raises(PriceError, match=r"planner.price.prompt: a non-negative number"):
        price_of({"price": {"prompt": -1, "completion": 1}})
    with pytest.raises(PriceError, match=r"planner.price.input: unknown key"):
        price_of({"price": {"input": 1}})
    base = {"name": "m", "kind": "openai", "model": "m", "base_url": "http://h/v1"}
    OpenAIConfig.from_mapping({**base, **PRICE})
    with pytest.raises(ValueError, match=r"price.completion"):  # the planner's own check names the key
        OpenAIConfig.from_mapping({**base, "price": {"prompt": 1, "completion": "ten"}})


def test_gpu_seconds_are_shared_by_latency_and_reach_the_rows() -> None:
    assert share_gpu_seconds(100.0, {"a": [3.0, 1.0], "b": [4.0]}) == {"a": 50.0, "b": 50.0}
    assert share_gpu_seconds(90.0, {"a": [0.0, 0.0], "b": [0.0]}) == {"a": 60.0, "b": 30.0}
    rows = with_costs(
        [_row("a", 10, 1, latency=3.0), _row("b", 10, 1, latency=1.0)], {"p1": {"planner_config": {}, "gpu_s": 40.0}}
    )
    assert [r["gpu_s"] for r in rows] == [30.0, 10.0]
    assert cell_metrics(rows)["cost/gpu_s"] == 40.0
    ((_, tables),) = sections(leaderboard(rows))
    assert tables[-1][2][0][-1] == "40 GPU"  # no device recorded: a GPU server


# ---- a tiny sweep: provenance rows, MLflow dataset inputs and assessments --------------------------------


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with (
        LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0") as cluster,
        Client(cluster) as dask,
    ):
        yield dask


@pytest.fixture(scope="module")
def swept(client: Client, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    tmp = tmp_path_factory.mktemp("cost-sweep")
    cfg = load_config(
        *parse_args(
            [
                "planner=oracle,noop",
                "split=handwritten",
                "seed=0",
                "limit=3",
                "name=prov-sweep",
                f"store={tmp / 'results.db'}",
                f"report_dir={tmp / 'report'}",
                f"tracking.uri=sqlite:///{tmp / 'mlflow.db'}",
                "tracking.trace_sample=2",
            ]
        )
    )
    return tmp, run_sweep(plan_sweep(cfg), client=client)


def test_store_rows_carry_their_provenance(swept) -> None:
    tmp, outcome = swept
    store = ResultsStore(tmp / "results.db")
    try:
        rows = store.rows()
        records = store.provenance()
    finally:
        store.close()
    assert len(rows) == 6 and all(r["provenance_id"] in records for r in rows)
    assert all(r["started_at"] and r["ended_at"] and r["started_at"] <= r["ended_at"] for r in rows)
    assert len({r["provenance_id"] for r in rows}) == 2  # one record per cell, not per row
    record = records[rows[0]["provenance_id"]]
    assert set(record) >= {
        "git",
        "package_version",
        "task_file",
        "task_file_sha256",
        "verifier_version",
        "planner_config",
        "versions",
        "started",
        "ended",
        "sweep_key",
        "cell",
    }
    assert record["task_file_sha256"] == rows[0]["dataset_hash"]
    assert record["verifier_version"] == rows[0]["verifier_version"]
    assert record["started"] <= record["ended"] and record["sweep_key"] == outcome.plan.sweep_key
    assert record["planner_config"]["kind"] in ("oracle", "noop") and "python" in record["versions"]
    assert set(record["git"]) == {"commit", "dirty"}


def test_an_old_store_gets_the_new_columns_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:  # the episodes table as stores had it before the added columns
        conn.execute(
            "CREATE TABLE episodes (planner VARCHAR, split VARCHAR, condition VARCHAR, seed INTEGER, "
            "task_id VARCHAR, category VARCHAR, domain VARCHAR, l2 VARCHAR, bucket VARCHAR, verdict VARCHAR, "
            "passed BOOLEAN, checker_passed BOOLEAN, memory_gate BOOLEAN, skill_gate BOOLEAN, scorable "
            "BOOLEAN, reasons TEXT, termination VARCHAR, steps INTEGER, format_errors INTEGER, error_kinds "
            "TEXT, prompt_tokens INTEGER, completion_tokens INTEGER, planner_latency_s FLOAT, wall_s FLOAT, "
            "dataset_hash VARCHAR, trajectory BLOB, PRIMARY KEY (planner, split, condition, seed, task_id))"
        )
        conn.execute(
            "INSERT INTO episodes VALUES ('p','s','default',0,'t','basic','D1','x','tool_call','pass',1,1,"
            "NULL,NULL,1,'[]','finished',1,0,'{}',10,2,0.1,0.2,'h',?)",
            (gzip.compress(b"{}"),),
        )
    store = ResultsStore(path)
    try:
        (row,) = store.rows()
        assert {k: row[k] for k in ADDED_COLUMNS} == dict.fromkeys(ADDED_COLUMNS)
        store.upsert([{**row, "trajectory": gzip.compress(b"{}"), "cached_prompt_tokens": 7, "provenance_id": "x"}])
        (row,) = store.rows()
        assert row["cached_prompt_tokens"] == 7  # an integer column, not text
    finally:
        store.close()
    with sqlite3.connect(path) as conn:
        kinds = {name: kind for _, name, kind, *_ in conn.execute("PRAGMA table_info(episodes)")}
        assert kinds["cached_prompt_tokens"] == "INTEGER" and kinds["provenance_id"] == "VARCHAR"
        assert conn.execute("SELECT count(*) FROM provenance").fetchone() == (0,)


def test_the_child_run_has_the_task_file_as_input_and_verdicts_on_its_traces(swept) -> None:
    from mlflow.tracking import MlflowClient

    from experiments.reporting.tracking import git_commit

    tmp, outcome = swept
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("prov-sweep")
    children = client.search_runs([experiment.experiment_id], filter_string="tags.mobilepa_cell != ''")
    assert len(children) == 2
    sha = outcome.plan.datasets["handwritten"][1]
    store = ResultsStore(tmp / "results.db")
    try:
        verdicts = {(r["planner"], r["task_id"]): r["verdict"] for r in store.rows()}
    finally:
        store.close()
    for run in children:
        (given,) = run.inputs.dataset_inputs
        assert given.dataset.digest == sha[:32] and given.dataset.name.startswith("handwritten:")
        assert json.loads(given.dataset.source)["uri"].endswith(".jsonl")
        if git_commit():  # a checkout (an exported tree has no commit to name)
            assert run.data.tags["mlflow.source.git.commit"] == git_commit()
        assert run.info.start_time > 1_600_000_000_000  # real timestamps, not 1970
        traces = client.search_traces(locations=[experiment.experiment_id], run_id=run.info.run_id)
        assert len(traces) == 2
        for trace in traces:
            (assessment,) = [a for a in trace.info.assessments if a.name == "verdict"]
            planner = run.data.params["planner"]
            assert assessment.value == verdicts[(planner, trace.info.tags["task_id"])]
            assert assessment.source.source_type == "CODE"
    metrics = children[0].data.metrics
    assert "cost/episodes" not in metrics  # oracle reports no tokens: no cost metric at all
    assert all(h.timestamp > 1_600_000_000_000 for h in client.get_metric_history(children[0].info.run_id, "overall"))


def test_logging_again_adds_no_second_input_or_assessment(swept, client: Client) -> None:
    from mlflow.tracking import MlflowClient

    tmp, outcome = swept
    cfg = load_config(
        *parse_args(
            [
                "planner=oracle,noop",
                "split=handwritten",
                "seed=0",
                "limit=3",
                "name=prov-sweep",
                f"store={tmp / 'results.db'}",
                f"report_dir={tmp / 'report'}",
                f"tracking.uri=sqlite:///{tmp / 'mlflow.db'}",
                "tracking.trace_sample=2",
            ]
        )
    )
    assert plan_sweep(cfg).sweep_key == outcome.plan.sweep_key
    again = run_sweep(plan_sweep(cfg), client=client)
    assert again.ran == 0
    mlflow = MlflowClient(tracking_uri=f"sqlite:///{tmp / 'mlflow.db'}")
    experiment = mlflow.get_experiment_by_name("prov-sweep")
    for run in mlflow.search_runs([experiment.experiment_id], filter_string="tags.mobilepa_cell != ''"):
        assert len(run.inputs.dataset_inputs) == 1
        for trace in mlflow.search_traces(locations=[experiment.experiment_id], run_id=run.info.run_id):
            assert len([a for a in trace.info.assessments if a.name == "verdict"]) == 1


def test_a_served_priced_model_gets_tokens_money_and_gpu_seconds(tmp_path: Path) -> None:
    """The sweep starts a (scripted) vLLM server on a GPU worker: its replies report tokens, the price in the
    planner config turns them into USD, and the server's up time × GPUs reaches the rows as GPU-seconds."""
    from tests.cluster.test_vllm_services import PLANNER, _args

    args = [
        *_args(tmp_path, "tracking=none", "limit=4"),
        f"planner.{PLANNER}.price.prompt=1.0",
        f"planner.{PLANNER}.price.completion=4.0",
    ]
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0", resources={"GPU": 1}
        ) as cluster,
        Client(cluster) as dask,
    ):
        outcome = run_sweep(sweep_plan(args), client=dask)
    assert outcome.ran == 4 and not outcome.gaps
    usage = outcome.plan.record["services_usage"][PLANNER]
    assert usage["gpus"] == 1 and usage["gpu_s"] == pytest.approx(usage["up_s"]) and usage["up_s"] > 0
    store = ResultsStore(tmp_path / "results.db")
    try:
        rows = store.rows()
        records = store.provenance()
    finally:
        store.close()
    (pid,) = {r["provenance_id"] for r in rows}
    assert records[pid]["gpu_s"] == pytest.approx(usage["gpu_s"])  # one cell: the whole server's time
    assert records[pid]["planner_config"]["base_url"].startswith("http://127.0.0.1:")  # the started server
    assert all(r["prompt_tokens"] and r["completion_tokens"] for r in rows)
    costed = with_costs(rows, records)
    expected = sum(r["prompt_tokens"] * 1.0 + r["completion_tokens"] * 4.0 for r in rows) / 1e6
    assert sum(r["cost_usd"] for r in costed) == pytest.approx(expected)
    assert sum(r["gpu_s"] for r in costed) == pytest.approx(usage["gpu_s"])
    ((_, tables),) = sections(leaderboard(costed))
    title, header, (line,) = tables[-1]
    assert title.startswith("Cost") and line[header.index("USD/cell")] != "–"
    assert line[header.index("server-s/cell")] == f"{usage['gpu_s']:.0f} CPU"  # the device its log names
    assert usage["device"] == "cpu" and records[pid]["server"]["device"] == "cpu"
    assert records[pid]["server"]["vllm_version"] == "0.0.0+scripted"
    assert records[pid]["server"]["batch"] == {
        "max_num_seqs": "vLLM's default",
        "max_num_batched_tokens": "vLLM's default",
        "requests_in_flight": records[pid]["planner_config"]["concurrency"],
    }
