"""Retrieval and ablation studies as sweep axes: the grid, the store's keys and settings, the
report's curve over N and ablation deltas."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from experiments.analysis.studies import studies
from experiments.commands.config import RunConfigError
from experiments.commands.plans import load_config, parse_args, plan_sweep
from experiments.commands.run import compose_checked, run_condition
from experiments.execution.sweep import run_sweep
from experiments.plan.model import SweepConfigError
from experiments.results.store import ResultsStore, SettingsMismatch

GRID = [
    "planner=oracle",
    "split=handwritten",
    "seed=0",
    "unit_size=16",
    "name=test-studies",
    "tracking=none",
    "retrieval.method=bm25",
    "retrieval.top_n=5,15",
    "ablation=none,memory_off",
]
CELLS = ["both.bm25-n5", "both.bm25-n5.memory_off", "both.bm25-n15", "both.bm25-n15.memory_off"]


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster,
        Client(cluster) as dask,
    ):
        yield dask


def _config(tmp: Path, *args: str):
    return load_config(*parse_args([*args, f"store={tmp / 'results.db'}", f"report_dir={tmp / 'report'}"]))


@pytest.fixture(scope="module")
def swept(client: Client, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    tmp = tmp_path_factory.mktemp("studies")
    return tmp, run_sweep(plan_sweep(_config(tmp, *GRID)), client=client)


def test_the_axes_cross_every_condition_as_refined_cells(tmp_path: Path) -> None:
    plan = plan_sweep(_config(tmp_path, *GRID))
    assert [c.condition for c in plan.cells] == CELLS
    assert "retrieval.method bm25 × retrieval.top_n 5,15 × ablations none,memory_off" in plan.about
    settings = plan.settings(plan.cells[1])
    assert settings["action_space"] == {"method": "bm25", "top_n": 5, "repair": True, "ablation": "memory_off"}
    plain = plan_sweep(_config(tmp_path, "planner=oracle", "split=handwritten"))
    assert [c.condition for c in plain.cells] == ["both"]
    assert "action_space" not in plain.settings(plain.cells[0])  # stores filled before the axes still match


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["retrieval.top_n=5,15"], r"^retrieval.top_n: 5 needs retrieval at run time"),
        (["retrieval.method=bm25", "retrieval.top_n=0"], r"^retrieval.top_n: "),
        (["retrieval.method=tfidf"], r"^retrieval.method: unknown method 'tfidf'"),
        (["retrieval.method=dense"], r"^retrieval.model_path: "),
        (["ablation=memory"], r"^ablation: unknown ablation 'memory'"),
        (["retrieval.repair=false"], r"^retrieval.repair: "),
    ],
)
def test_bad_axes_fail_before_any_work_naming_the_key(tmp_path: Path, args: list[str], message: str) -> None:
    with pytest.raises(SweepConfigError, match=message):
        run_sweep(plan_sweep(_config(tmp_path, "planner=oracle", "split=handwritten", "tracking=none", *args)))
    assert not (tmp_path / "results.db").exists()


def test_run_takes_the_same_keys() -> None:
    assert (
        run_condition(compose_checked(["retrieval.method=bm25", "retrieval.top_n=10", "ablation=skills_off"]))
        == "both.bm25-n10.skills_off"
    )
    assert run_condition(compose_checked([])) == "both"
    with pytest.raises(RunConfigError, match=r"^retrieval.top_n: "):
        compose_checked(["retrieval.top_n=5"])
    with pytest.raises(RunConfigError, match=r"^ablation: "):
        compose_checked(["ablation=all"])


def test_the_sweep_stores_each_variant_under_its_own_cells(swept) -> None:
    tmp, outcome = swept
    assert outcome.complete
    store = ResultsStore(tmp / "results.db")
    try:
        rows = store.rows()
        assert sorted({r["condition"] for r in rows}) == sorted(CELLS)
        per_cell = {c: [r for r in rows if r["condition"] == c] for c in CELLS}
        assert all(len(v) == 34 for v in per_cell.values())  # 31 tasks, 3 skill tasks twice
        assert all(r["passed"] for c in ("both.bm25-n5", "both.bm25-n15") for r in per_cell[c])
        memory = [r for r in per_cell["both.bm25-n15.memory_off"] if r["category"] == "memory"]
        assert memory and not any(r["passed"] for r in memory)
        assert store.cell_settings()[("oracle", "handwritten", "both.bm25-n5", 0)]["action_space"]["top_n"] == 5
    finally:
        store.close()


def test_the_report_shows_the_curve_over_n_and_the_ablation_deltas(swept) -> None:
    tmp, _ = swept
    study = json.loads((tmp / "report" / "studies.json").read_text())
    (curve,) = study["curves"]
    assert [p["top_n"] for p in curve["points"]] == [5, 15]
    assert all(p["overall"] == 100.0 and p["ci"] == [100.0, 100.0] for p in curve["points"])
    assert {a["condition"] for a in study["ablations"]} == {"both.bm25-n5.memory_off", "both.bm25-n15.memory_off"}
    for a in study["ablations"]:
        overall = a["rows"]["overall"]
        assert overall["difference"] < 0 and overall["ci"][1] < 0 and overall["b"] == 100.0
        assert a["rows"]["memory"]["a"] == 0.0 and a["lost"] > 0
    md = (tmp / "report" / "leaderboard.md").read_text()
    assert "Retrieval curve" in md and "Ablations" in md and "retrieval_curve.png" in md
    assert (tmp / "report" / "retrieval_curve.png").read_bytes()[:4] == b"\x89PNG"


def test_a_store_refuses_to_mix_settings_of_a_variant(swept, client: Client) -> None:
    tmp, _ = swept
    store = ResultsStore(tmp / "results.db")
    try:
        plan = plan_sweep(_config(tmp, *GRID))
        cell = plan.cells[0]
        other = json.loads(json.dumps(plan.settings(cell)))
        other["action_space"]["top_n"] = 7  # e.g. a retriever changed under the same label
        with pytest.raises(SettingsMismatch, match=r"action_space.top_n: stored 5, now 7"):
            store.check_settings({(cell.planner, cell.split, cell.condition, cell.seed): other})
    finally:
        store.close()
    again = run_sweep(plan_sweep(_config(tmp, *GRID)), client=client)  # the same settings: nothing to run again
    assert again.ran == 0 and again.skipped == 4 * 34


def test_studies_pair_each_ablation_with_its_own_baseline() -> None:
    def row(condition: str, task: str, category: str, passed: bool) -> dict:
        return {
            "planner": "p",
            "split": "s",
            "condition": condition,
            "seed": 0,
            "task_id": task,
            "passed": passed,
            "scorable": True,
            "termination": "finished",
            "reasons": "[]",
            "category": category,
            "bucket": "tool_call",
            "domain": "D1",
            "l2": "1.1",
        }

    tasks = [(f"t{i}", "basic" if i < 6 else "memory") for i in range(10)]
    rows = [row("both.bm25-n10", t, c, True) for t, c in tasks]
    rows += [row("both.bm25-n10.memory_off", t, c, c == "basic") for t, c in tasks]
    rows += [row("both.bm25-n5", t, c, i % 2 == 0) for i, (t, c) in enumerate(tasks)]
    study = studies(rows, resamples=200)
    (curve,) = study["curves"]
    assert [(p["top_n"], p["overall"]) for p in curve["points"]] == [(5, 50.0), (10, 100.0)]
    (ablation,) = study["ablations"]
    assert ablation["baseline"] == "both.bm25-n10" and ablation["episodes"] == 10
    assert ablation["rows"]["memory"]["difference"] == -100.0 and ablation["rows"]["basic"]["difference"] == 0.0
    assert ablation["rows"]["memory"]["b_better"] == 4


def test_mobilepa_report_finds_the_variant_cells_of_the_latest_sweep(swept, capsys) -> None:
    from experiments.commands.sweep import report_main, report_scope

    tmp, _ = swept
    store = ResultsStore(tmp / "results.db")
    try:
        scope = report_scope(store)
        rows, about = scope.rows, scope.about
    finally:
        store.close()
    assert sorted({r["condition"] for r in rows}) == sorted(CELLS) and len(rows) == 4 * 34
    assert "retrieval.top_n 5,15" in about
    assert report_main(["--store", str(tmp / "results.db"), "--out", str(tmp / "again")]) == 0
    out = capsys.readouterr().out
    assert "retrieval curve oracle/handwritten/both (bm25): N=5 100.0" in out
    assert "ablation memory_off on oracle/handwritten/both.bm25-n15" in out
