"""Sweep, console and report: ``sweep --dry-run``, ``limit=``/``task_ids=``, the default sweep
name, plain progress lines, library logs kept off the console, the leaderboard's columns and width, a
report about one sweep, plots' order and labels, traces sampled across verdicts, ``mobilepa run`` recorded
into a store. No cluster is started: everything here runs in-process, in temporary folders."""

from __future__ import annotations

import io
import json
import logging
import random
import re
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize_config_module
from rich.console import Console

from experiments import cli
from experiments.analysis.groups import domain_order
from experiments.commands.config import CONF_MODULE, RunConfigError
from experiments.commands.plans import load_config, parse_args, plan_sweep
from experiments.commands.run import check_config, run_plan
from experiments.commands.sweep import report_main, report_scope, sweep_main
from experiments.execution.run import run_job
from experiments.plan.model import SweepConfigError, recorded_now
from experiments.reporting.console import library_logs
from experiments.reporting.leaderboard import leaderboard, print_leaderboard, write_report
from experiments.reporting.plots import _label
from experiments.reporting.progress import episode_progress, progress_line
from experiments.reporting.tracking import trace_sample
from experiments.results.store import ResultsStore

HW_TASKS = 31  # hand-written tasks; 3 are skill tasks, run under SOR and MTSR with condition both


def _plan(tmp: Path, *args: str):
    return plan_sweep(load_config(*parse_args([*args, f"store={tmp / 'results.db'}", f"report_dir={tmp / 'r'}"])))


# ---- sweep --dry-run, limit=, task_ids= ----------------------------------------------------------------


def test_dry_run_prints_grid_cells_episodes_and_endpoints_and_touches_nothing(tmp_path: Path, capsys) -> None:
    code = sweep_main(
        [
            "--dry-run",
            "planner=oracle,qwen3_8b",
            "split=handwritten",
            "seed=0,1",
            "planner.qwen3_8b.base_url=http://gpu-host:8000/v1",
            f"store={tmp_path / 'results.db'}",
            f"report_dir={tmp_path / 'report'}",
            f"tracking.uri=sqlite:///{tmp_path / 'mlflow.db'}",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "grid: planners oracle,qwen3_8b × splits handwritten × seeds 0,1 × conditions both = 4 cell(s)" in out
    assert re.search(r"^  qwen3_8b/handwritten/both/seed1\s+34$", out, re.MULTILINE)
    assert "episodes: 136 in all" in out
    assert "oracle: in process" in out and "qwen3_8b: http://gpu-host:8000/v1" in out
    assert re.search(r"experiment sweep-oracle\+qwen3_8b-handwritten-[0-9a-f]{6}\b", out)
    assert list(tmp_path.iterdir()) == []  # no store, no report folder, no MLflow database


def test_dry_run_names_the_vllm_server_a_gpu_worker_would_start(tmp_path: Path, capsys) -> None:
    code = sweep_main(
        [
            "--dry-run",
            "planner=qwen3_8b",
            "split=handwritten",
            "cluster.resources={GPU:1}",
            "cluster.n_workers=1",
            f"store={tmp_path / 'results.db'}",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "qwen3_8b: vLLM started on a GPU worker (GPU=1)" in out
    assert sweep_main(["--dry-run", "planner=qwen3_8b", "split=handwritten", f"store={tmp_path / 'x.db'}"]) == 2
    assert "no worker offers resources GPU=1" in capsys.readouterr().err  # as the sweep itself would stop
    assert list(tmp_path.iterdir()) == []


def test_sweep_help_shows_dry_run_limit_and_task_ids(capsys) -> None:
    assert cli.main(["sweep", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--dry-run" in out.splitlines()[0] and "  limit=N" in out and "  task_ids=[a,b]" in out
    assert cli.main(["run", "--help"]) == 0
    out = capsys.readouterr().out
    assert all(f"  {key}=" in out for key in ("limit", "task_ids", "store", "tracking"))


def test_limit_and_task_ids_choose_the_tasks_of_each_cell(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "planner=oracle", "split=handwritten", "limit=2")
    assert [len(v) for v in plan.task_ids.values()] == [2]
    plan = _plan(tmp_path, "planner=oracle", "split=handwritten", "task_ids=[hw_basic_001,hw_skill_001]")
    assert plan.task_ids[("handwritten", "both")] == ("hw_basic_001", "hw_skill_001@sor", "hw_skill_001@mtsr")
    assert plan.record["selected"] == {"handwritten/both": list(plan.task_ids[("handwritten", "both")])}
    full = _plan(tmp_path, "planner=oracle", "split=handwritten")
    assert len(full.task_ids[("handwritten", "both")]) == HW_TASKS + 3 and "selected" not in full.record
    assert plan.sweep_key != full.sweep_key  # a quick run logs into its own MLflow runs


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["limit=0"], "limit: at least 1, got 0"),
        (["limit=abc"], "limit: an integer is required"),
        (["task_ids=[nope]"], "task_ids: unknown task(s) 'nope' in split 'handwritten'"),
        (["task_ids=[hw_basic_001@sor]"], "task_ids: 'hw_basic_001@sor' is an episode key"),
    ],
)
def test_bad_selections_are_one_line_naming_the_key(tmp_path: Path, args: list[str], message: str) -> None:
    with pytest.raises(SweepConfigError, match=re.escape(message)):
        _plan(tmp_path, "planner=oracle", "split=handwritten", *args)


def test_run_checks_limit_and_task_ids_and_runs_only_them(tmp_path: Path) -> None:
    def cfg(*extra: str):
        with initialize_config_module(config_module=CONF_MODULE, version_base="1.3"):
            return compose("config", overrides=["planner=oracle", "split=handwritten", *extra])

    with pytest.raises(RunConfigError, match="limit: at least 1"):
        check_config(cfg("++limit=0"))
    with pytest.raises(RunConfigError, match="task_ids: unknown task"):
        run_job(run_plan(cfg("++task_ids=[nope]")), tmp_path / "bad")
    import json

    doc = json.loads(run_job(run_plan(cfg("++task_ids=[hw_basic_001,hw_skill_001]")), tmp_path / "ok").read_text())
    assert doc["episodes"] == 3
    assert cli.main(["run", "planner=oracle", "limit=x", f"hydra.run.dir={tmp_path / 'cli'}"]) == 2


def test_a_sweep_without_a_name_is_named_after_its_grid_and_reports_beside_its_store(tmp_path: Path) -> None:
    """Three different sweeps of oracle on mini once shared `sweep-oracle-mini`: the grid's hash tells them apart."""
    names = {
        load_config(*parse_args(["planner=oracle", "split=mini", *more])).name
        for more in ([], ["seed=0,1"], ["limit=5"], ["ablation=none,memory_off"])
    }
    assert len(names) == 4 and all(re.fullmatch(r"sweep-oracle-mini-[0-9a-f]{6}", n) for n in names)
    again = load_config(*parse_args(["planner=oracle", "split=mini"]))
    assert again.name in names and again.report_dir == f"outputs/reports/{again.name}"
    mine = load_config(*parse_args(["planner=oracle", "name=mine", f"store={tmp_path / 'r.db'}"]))
    assert mine.name == "mine" and mine.report_dir == str(tmp_path / "reports" / "mine")


# ---- console -------------------------------------------------------------------------------------------


def test_without_a_terminal_progress_is_plain_lines_every_interval() -> None:
    out = io.StringIO()
    with episode_progress(4, "sweep s", interactive=False, every_s=0.05, stream=out) as advance:
        advance(True, False)
        # A line comes while the work goes on, with no further episode; waited for, not slept for: on a
        # loaded machine the ticking thread can be late (a hang guard, not a figure).
        deadline = time.monotonic() + 60
        while "sweep s: 1/4 " not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
        advance(False, True)
        advance(True, False)
        advance(True, False)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 2 and all(line.startswith("sweep s: ") for line in lines), lines
    ticked = r"sweep s: 1/4 episodes \(25%\), passed 1, errors 0, [\d.]+ episodes/(s|min), elapsed [^,]+, ETA .+"
    assert any(re.fullmatch(ticked, line) for line in lines), lines
    assert lines[-1].startswith("sweep s: 4/4 episodes (100%), passed 3, errors 1,") and lines[-1].endswith("ETA 0 s")
    assert progress_line("x", 50, 100, 50, 0, 100.0).endswith("30.00 episodes/min, elapsed 1 min 40 s, ETA 1 min 40 s")
    slow = progress_line("x", 3, 10, 0, 0, 360.0)  # a small model on a CPU: per minute, never "0.0 episodes/s"
    assert slow.endswith("0.50 episodes/min, elapsed 6 min 00 s, ETA 14 min 00 s")


def test_library_logs_and_warnings_go_to_the_log_file_not_the_console(tmp_path: Path, capsys) -> None:
    log = tmp_path / "out" / "mobilepa.log"
    mlflow = logging.getLogger("mlflow")
    with library_logs(log, title="test", import_mlflow=True):
        logging.getLogger("mlflow.store.db.utils").info("Creating initial MLflow database tables...")
        logging.getLogger("distributed.node").warning("dashboard")
        warnings.warn("Port 8787 is already in use.", UserWarning, stacklevel=1)
    out, err = capsys.readouterr()
    assert out == "" and err == ""
    text = log.read_text()
    assert "Creating initial MLflow database tables" in text and "Port 8787 is already in use" in text
    assert all(getattr(h, "baseFilename", None) != str(log) for h in mlflow.handlers)  # its own handlers are back


# ---- leaderboard and report ----------------------------------------------------------------------------


def _rows(planners=("noisy_oracle", "oracle"), splits=("full", "mini"), seeds=(0, 1, 2)) -> list[dict[str, Any]]:
    rng = random.Random(0)
    out = []
    for planner in planners:
        for split in splits:
            for seed in seeds:
                for i in range(26):
                    category = ("basic", "subagent", "memory", "skill")[i % 4]
                    for condition in ("sor", "mtsr") if category == "skill" else (None,):
                        passed = (planner == "oracle" and condition != "mtsr") or rng.random() < 0.5
                        out.append(
                            {
                                "planner": planner,
                                "split": split,
                                "condition": "both",
                                "seed": seed,
                                "task_id": f"{split}_{i:03d}" + (f"@{condition}" if condition else ""),
                                "category": category,
                                "bucket": ("tool_call", "state_change", "agent_behavior")[i % 3],
                                "domain": f"D{1 + i % 13}",
                                "l2": f"{1 + i % 13}.1",
                                "passed": passed,
                                "checker_passed": passed,
                                "memory_gate": None,
                                "skill_gate": None,
                                "reasons": "[]",
                                "termination": "finished",
                                "scorable": True,
                                "verdict": "pass" if passed else "fail",
                                "error_kinds": "{}",
                                "wall_s": 0.1,
                                "steps": 3,
                                "format_errors": 0,
                                "prompt_tokens": None,
                                "completion_tokens": None,
                                "planner_latency_s": 0.0,
                            }
                        )
    return out


def test_the_leaderboard_has_buckets_sor_mtsr_and_counts_per_split_within_100_columns() -> None:
    console = Console(width=100, record=True)
    print_leaderboard(leaderboard(_rows()), console)
    text = console.export_text()
    assert all(len(line.rstrip()) <= 100 for line in text.splitlines())
    for split in ("full", "mini"):
        assert f"Leaderboard, split {split}" in text and f"Buckets and skill retrieval, split {split}" in text
    header = next(line for line in text.splitlines() if "Tool call" in line).split()
    assert header[-3:] == ["SOR", "MTSR", "unscorable"]
    lines = text.splitlines()
    buckets = lines.index("Buckets and skill retrieval, split full (percent)")
    oracle = next(line for line in lines[buckets:] if line.startswith("oracle")).split()
    assert oracle[5] == "100.0±0.0"  # SOR: every skill episode under SOR passed; MTSR is its own column
    scores = next(line for line in text.splitlines() if line.startswith("oracle") and "0,1,2" in line).split()
    assert scores[:4] == ["oracle", "both", "0,1,2", "32"]  # 26 tasks, the 6 skill ones twice: episodes per seed
    for line in text.splitlines():  # every row on one line: no line continues a cell of the row above
        assert not line.startswith(" ") or not line.strip()


def test_report_files_label_every_split_and_say_what_they_are_about(tmp_path: Path) -> None:
    _, folder = write_report(_rows(), tmp_path, about="sweep s (test)")
    md, html = folder / "leaderboard.md", folder / "leaderboard.html"
    text = md.read_text()
    assert "About: sweep s (test)." in text and "## Split full" in text and "## Split mini" in text
    assert "| oracle | both | 0,1,2 | 32 |" in text and "<h2>Split mini</h2>" in html.read_text()


def test_a_report_folder_holds_one_report_and_a_single_seed_says_so(tmp_path: Path) -> None:
    """The files of the report written there before that this one lacks go (an old retrieval curve); a file
    that was never a report's stays; a group run under one seed shows "one seed", not range 0.00 and pass^k 100."""
    (tmp_path / "retrieval_curve.png").write_bytes(b"old")
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "report.json").write_text(json.dumps({"files": ["retrieval_curve.png", "analysis.json"]}))
    (tmp_path / "analysis.json").write_text("{}")
    write_report(_rows(seeds=(4,)), tmp_path, about="sweep one (test)")
    md = tmp_path / "leaderboard.md"
    assert not (tmp_path / "retrieval_curve.png").exists() and not (tmp_path / "analysis.json").exists()
    assert (tmp_path / "notes.txt").read_text() == "mine"
    listed = json.loads((tmp_path / "report.json").read_text())
    assert listed["about"] == "sweep one (test)" and {p.name for p in tmp_path.iterdir()} == {
        *listed["files"],
        "report.json",
        "notes.txt",
    }
    text = (tmp_path / "leaderboard.txt").read_text()
    stability = next(line for line in text.splitlines() if line.startswith("oracle") and "one seed" in line)
    assert stability.split()[2:6] == ["one", "seed", "one", "seed"]
    assert "| oracle | both | one seed | one seed | one seed | one seed | 26 |" in md.read_text()


class _Store:
    """What report_scope reads of a results store."""

    path = Path("results.db")

    def __init__(self, rows: list[dict[str, Any]], sweeps: list[tuple[str, dict[str, Any]]]) -> None:
        self._rows, self._sweeps = rows, sweeps

    def rows(self, **where: Any) -> list[dict[str, Any]]:
        return [r for r in self._rows if all(r[k] == v for k, v in where.items())]

    def recorded_sweeps(self) -> list[tuple[str, dict[str, Any]]]:
        return self._sweeps


def _sweep(name: str, splits: list[str], at: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "planners": ["noisy_oracle", "oracle"],
        "splits": splits,
        "seeds": [0, 1, 2],
        "conditions": ["both"],
        "recorded_at": at,
        **extra,
    }


def test_a_report_is_about_the_latest_sweep_unless_told_otherwise() -> None:
    store = _Store(
        _rows(),
        [
            ("aaa", _sweep("on-full", ["full"], "2026-01-02T00:00:00")),
            ("bbb", _sweep("on-mini", ["mini"], "2026-01-01T00:00:00")),
            (
                "ccc",
                _sweep("quick", ["mini"], "2025-01-01T00:00:00", selected={"mini/both": ["mini_000", "mini_003@sor"]}),
            ),
        ],
    )
    scope = report_scope(store)  # type: ignore[arg-type]
    assert {r["split"] for r in scope.rows} == {"full"} and scope.about.startswith("sweep on-full (")
    assert "[key aaa]" in scope.about and scope.folder == Path("reports/on-full") and not scope.notes
    scope = report_scope(store, sweep="on-mini")  # type: ignore[arg-type]
    assert {r["split"] for r in scope.rows} == {"mini"} and len(scope.rows) == 2 * 3 * 32
    scope = report_scope(store, sweep="quick")  # type: ignore[arg-type]
    assert {r["task_id"] for r in scope.rows} == {"mini_000", "mini_003@sor"}
    scope = report_scope(store, everything=True)  # type: ignore[arg-type]
    assert len(scope.rows) == len(store.rows()) and "splits full, mini" in scope.about
    assert scope.folder == Path("reports/store")
    scope = report_scope(store, split="mini", planners=["oracle"])  # type: ignore[arg-type]
    assert {(r["split"], r["planner"]) for r in scope.rows} == {("mini", "oracle")}
    assert scope.folder == Path("reports/store-mini-oracle")
    with pytest.raises(ValueError, match="--sweep nope: no such sweep in the store; its sweeps: on-full, on-mini"):
        report_scope(store, sweep="nope")  # type: ignore[arg-type]
    store._sweeps.append(("ddd", _sweep("on-mini", ["mini"], "2026-01-03T00:00:00", report_dir="elsewhere")))
    scope = report_scope(store, sweep="on-mini")  # type: ignore[arg-type]
    assert "[key ddd]" in scope.about and scope.folder == Path("elsewhere")  # the latest of the name, and it says so
    assert scope.notes == ("--sweep on-mini: 2 sweeps match; reporting the latest, key ddd (the others: --sweep bbb)",)


def test_plots_sort_domains_by_number_and_name_the_split() -> None:
    assert sorted(["D10", "D2", "D1", "D13", "D3"], key=domain_order) == ["D1", "D2", "D3", "D10", "D13"]
    assert _label(("oracle", "full", "both")) != _label(("oracle", "mini", "both"))
    assert "mini" in _label(("oracle", "mini", "default"))


def test_traces_are_sampled_across_verdicts_and_categories() -> None:
    rows = [r for r in _rows(planners=("noisy_oracle",), splits=("full",), seeds=(0,))]
    sample = trace_sample(rows, 6)
    assert len(sample) == 6 and {r["verdict"] for r in sample} == {"pass", "fail"}
    assert len({r["category"] for r in sample}) >= 3
    assert trace_sample(rows, 6) == sample and trace_sample(rows[:2], 6) == sorted(rows[:2], key=lambda r: r["task_id"])


# ---- mobilepa run into a store and MLflow ----------------------------------------------------------------


def test_the_latest_sweep_is_by_time_not_by_text() -> None:
    """Two sweeps recorded in one second order by their microseconds; an older store's local time with
    its offset compares by the instant it names, not by its characters."""
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00", recorded_now())  # UTC, to the microsecond
    sweeps = [
        ("later", _sweep("s", ["mini"], "2026-01-01T00:00:00.750000+00:00")),
        ("earlier", _sweep("s", ["mini"], "2026-01-01T00:00:00.250000+00:00")),
    ]
    assert "[key later]" in report_scope(_Store(_rows(), sweeps)).about  # type: ignore[arg-type]
    old = [
        ("tokyo", _sweep("s", ["mini"], "2026-01-01T09:00:00+0900")),  # 00:00 UTC, sorts last as text
        ("utc", _sweep("s", ["mini"], "2026-01-01T01:00:00+0000")),  # 01:00 UTC: the latest
    ]
    assert "[key utc]" in report_scope(_Store(_rows(), old)).about  # type: ignore[arg-type]


def test_a_run_can_be_recorded_like_a_one_cell_sweep(tmp_path: Path, capsys) -> None:
    store = tmp_path / "results.db"
    code = cli.main(
        ["run", "planner=oracle", "split=handwritten", "limit=3", f"store={store}", f"hydra.run.dir={tmp_path / 'run'}"]
    )
    out = capsys.readouterr().out
    assert code == 0 and f"results store: {store} (3 episodes of oracle/handwritten/both/seed0)" in out
    opened = ResultsStore(store)
    try:
        assert len(opened.rows()) == 3 and opened.recorded_sweeps()[0][1]["name"] == "run-oracle-handwritten"
    finally:
        opened.close()
    assert report_main(["--store", str(store), "--out", str(tmp_path / "report")]) == 0
    assert "report about sweep run-oracle-handwritten" in capsys.readouterr().out
    assert not (tmp_path / "mlflow.db").exists()  # tracking stays off unless asked for
