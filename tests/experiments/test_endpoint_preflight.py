"""A run or sweep against a model endpoint: the pre-flight stops it before any episode with one line (the key
variable named, a model not served, a prompt budget the context cannot hold), prints the budget (also in a
dry run), and the results are named after what was evaluated (the model, the task file)."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from distributed import Client, LocalCluster

from experiments import cli
from experiments.bench.scripted_server import ScriptedServer
from experiments.commands.plans import sweep_plan
from experiments.commands.sweep import sweep_main
from experiments.execution.sweep import run_sweep
from experiments.plan.model import SweepConfigError
from experiments.results.store import ResultsStore
from sandbox.suite import TASK_DIR, load_split
from tests.experiments.servers import ServerThread
from tests.planners.test_litellm_planner import fake_litellm

TASKS = load_split("handwritten.jsonl")
KEY = "sk-preflight-cli-3b9e"


@pytest.fixture
def server() -> Iterator[ServerThread]:
    with ServerThread(ScriptedServer(TASKS, api_key=KEY)) as thread:
        yield thread


def mobilepa_run(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> tuple[int, str, str]:
    try:
        code = cli.main(["run", *args, f"hydra.run.dir={tmp_path / 'run'}"])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def hosted(server: ServerThread, *extra: str) -> list[str]:
    return ["planner=hosted_openai", f"planner.base_url={server.base_url}", "split=handwritten", *extra]


def test_a_hosted_preset_with_its_key_variable_unset_stops_before_any_episode(
    server: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HOSTED_API_KEY", raising=False)
    code, _, err = mobilepa_run(capsys, tmp_path, *hosted(server, "planner.model=scripted"))
    assert code == 2 and server.server.stats.requests == 0, err
    [line] = err.splitlines()
    assert line.startswith(
        f"mobilepa run: planner hosted_openai:scripted: {server.base_url} answered HTTP 401 to /models"
    )
    assert "the key variable HOSTED_API_KEY is not set" in line


def test_a_model_the_endpoint_does_not_serve_is_one_line(
    server: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOSTED_API_KEY", KEY)
    code, _, err = mobilepa_run(capsys, tmp_path, *hosted(server, "planner.model=gpt-x"))
    assert code == 2 and len(err.splitlines()) == 1 and "does not serve the model 'gpt-x'" in err
    assert "it serves: scripted" in err and server.server.stats.requests == 0


def test_a_run_is_named_after_its_model_and_its_task_file(
    server: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOSTED_API_KEY", KEY)
    own = tmp_path / "my_tasks.jsonl"
    shutil.copy(TASK_DIR / "handwritten.jsonl", own)
    unlimited = "planner.rate_limits.requests_per_minute=null"  # the preset's 60 a minute would wait a minute here
    code, out, err = mobilepa_run(
        capsys, tmp_path, *hosted(server, "planner.model=scripted", f"split.file={own}", unlimited)
    )
    assert code == 0, err
    assert "prompt budget of hosted_openai:scripted: 34 first requests" in out
    assert "counted by the server's /tokenize" in out and "the model's context is unknown" in out
    doc = json.loads((tmp_path / "run" / "results.json").read_text())
    assert doc["planner"] == "hosted_openai:scripted" and doc["split"] == "my_tasks"
    assert doc["overall"] == 100.0  # the scripted server replays the gold


def test_a_run_whose_first_requests_cannot_fit_is_refused_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ServerThread(ScriptedServer(TASKS, max_model_len=3000)) as thread:
        args = [
            "planner=qwen3_8b",
            f"planner.base_url={thread.base_url}",
            "planner.model=scripted",
            "split=handwritten",
        ]
        code, out, err = mobilepa_run(capsys, tmp_path, *args)
        assert code == 2 and thread.server.stats.requests == 0
        assert "against a context of 3,000" in out and "cannot fit" in out
        [line] = err.splitlines()
        assert "first request does not fit the context of 3,000 tokens" in line and "retrieval.top_n" in line
        code, out, err = mobilepa_run(capsys, tmp_path, *args, "allow_prompt_overflow=true")
        assert code == 0 and thread.server.stats.requests > 0, err


def sweep_args(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "split=handwritten",
        "tracking=none",
        f"store={tmp_path / 'results.db'}",
        f"report_dir={tmp_path / 'report'}",
        *extra,
    ]


def test_a_sweep_names_the_model_in_its_rows_and_refuses_what_cannot_fit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOSTED_API_KEY", KEY)
    with (
        ServerThread(ScriptedServer(TASKS, api_key=KEY, max_model_len=3000)) as thread,
        LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0") as cluster,
        Client(cluster) as client,
    ):
        p = "planner.hosted_openai"
        grid = ["planner=hosted_openai", f"{p}.base_url={thread.base_url}", f"{p}.model=scripted", "limit=4"]
        with pytest.raises(SweepConfigError, match=r"^planner hosted_openai:scripted: \d+ of 4 episodes' first"):
            run_sweep(sweep_plan(sweep_args(tmp_path, *grid)), client=client)
        assert thread.server.stats.requests == 0
        outcome = run_sweep(
            sweep_plan(sweep_args(tmp_path, *grid, "allow_prompt_overflow=true", "name=s2")), client=client
        )
    assert outcome.complete
    store = ResultsStore(tmp_path / "results.db")
    try:
        rows: list[dict[str, Any]] = store.rows()
    finally:
        store.close()
    assert {r["planner"] for r in rows} == {"hosted_openai:scripted"} and len(rows) == 4
    assert outcome.report is not None and "hosted_openai:scripted" in (outcome.report[1] / "leaderboard.md").read_text()


def test_a_dry_run_prints_the_estimated_prompt_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = sweep_main(["--dry-run", "planner=qwen3_8b", "cluster.resources={GPU:1}", *sweep_args(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "prompt budget of qwen3_8b: 34 first requests, median " in out
    assert "(estimated at 4 bytes a token) against a context of 32,768; every one fits" in out


def test_a_litellm_planner_with_its_key_variable_unset_ends_before_any_episode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    module, calls = fake_litellm("http://127.0.0.1:9/v1")
    monkeypatch.setitem(sys.modules, "litellm", module)
    monkeypatch.delenv("MOBILEPA_LITELLM_KEY", raising=False)
    p = "planner.hosted_litellm"
    grid = ["planner=hosted_litellm", f"{p}.model=anthropic/some-model", f"{p}.api_key_env=MOBILEPA_LITELLM_KEY"]
    code = sweep_main([*grid, "cluster.n_workers=1", "cluster.processes=false", *sweep_args(tmp_path)])
    [line] = capsys.readouterr().err.splitlines()
    assert code == 2 and calls == [], line
    assert line == (
        "mobilepa sweep: planner hosted_litellm:some-model: the key variable MOBILEPA_LITELLM_KEY is not set "
        "(export MOBILEPA_LITELLM_KEY=...; planner.api_key_env names it)"
    )
    run = ["planner.model=anthropic/some-model", "planner.api_key_env=MOBILEPA_LITELLM_KEY", "split=handwritten"]
    code, _, err = mobilepa_run(capsys, tmp_path, "planner=hosted_litellm", *run)
    assert code == 2 and calls == [] and err.startswith("mobilepa run: planner hosted_litellm:some-model: the key")
