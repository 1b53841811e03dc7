"""``mobilepa view`` on run folders and a results store made here by the oracle and noop planners on the
hand-written split: listing and filters, one episode as the model saw it, ambiguous keys, rich and HTML."""

from __future__ import annotations

import asyncio
import html
import io
import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from rich.console import Console

from experiments.commands import view
from experiments.commands.config import CONF_DIR
from experiments.commands.plans import run_plan
from experiments.episodes.loop import EpisodeResult, run_many
from experiments.execution.run import run_job
from experiments.results.store import ResultsStore, episode_record, file_sha256
from planners import NoopPlanner, OraclePlanner, Planner
from planners.messages import SYSTEM_PROMPT
from sandbox.episode import FORMAT_ERROR_STEP
from sandbox.suite import TASK_DIR, load_split

N_EPISODES = 34  # 31 hand-written tasks, the 3 skill tasks under SOR and MTSR (condition both)
TASKS = {t.task_id: t for t in load_split("handwritten.jsonl")}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    for planner in ("oracle", "noop"):
        with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
            cfg = compose(config_name="config", overrides=[f"planner={planner}", "split=handwritten"])
        run_job(run_plan(cfg), root / planner)
    return root


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store filled as a sweep fills it (episode_record per result), without a cluster."""
    path = tmp_path_factory.mktemp("store") / "results.db"
    results = ResultsStore(path)
    sha256 = file_sha256(TASK_DIR / "handwritten.jsonl")

    async def episodes(planner: Planner) -> list[EpisodeResult]:
        return [r async for r in run_many(TASKS.values(), planner, condition="both")]

    for name, planner in (("oracle", OraclePlanner()), ("noop", NoopPlanner())):
        results.upsert(
            [
                episode_record(r, planner=name, split="handwritten", condition="both", seed=0, dataset_hash=sha256)
                for r in asyncio.run(episodes(planner))
            ]
        )
    results.close()
    return path


def _view(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = view.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _listed(out: str) -> list[dict[str, str]]:
    header, *lines = out.splitlines()
    assert header.split("\t") == list(view.COLUMNS)
    return [dict(zip(view.COLUMNS, line.split("\t"), strict=True)) for line in lines]


def _stored(path: Path, **where: object) -> list[dict]:
    store = ResultsStore(path)
    try:
        return store.rows(**where)
    finally:
        store.close()


def test_a_pipe_gets_every_episode_of_the_runs_as_tab_separated_lines(runs: Path, capsys) -> None:
    code, out, err = _view(capsys, "--run", runs)
    rows = _listed(out)
    assert code == 0 and len(rows) == 2 * N_EPISODES
    assert {r["verdict"] for r in rows if r["planner"] == "oracle"} == {"pass"}
    written = [json.loads(line) for line in (runs / "noop" / "episodes.jsonl").read_text().splitlines()]
    assert sorted(r["key"] for r in rows if r["planner"] == "noop" and r["verdict"] == "pass") == sorted(
        e["task_id"] for e in written if e["passed"]
    )
    assert f"{2 * N_EPISODES} episode(s)" in err


def test_filters_narrow_the_listing(store: Path, capsys) -> None:
    stored = _stored(store, planner="noop")
    code, out, _ = _view(capsys, "--store", store, "--planner", "noop", "--verdict", "pass")
    assert code == 0 and sorted(r["key"] for r in _listed(out)) == sorted(r["task_id"] for r in stored if r["passed"])
    code, out, _ = _view(capsys, "--store", store, "--category", "memory", "--split", "handwritten", "--seed", "0")
    assert code == 0 and {r["category"] for r in _listed(out)} == {"memory"}
    reason = next(json.loads(r["reasons"])[0] for r in stored if not r["passed"])
    fragment = reason[5:25].upper()  # any part of a reason, any case
    code, out, _ = _view(capsys, "--store", store, "--reason", fragment)
    keys = {r["key"] for r in _listed(out)}
    assert code == 0 and keys == {r["task_id"] for r in stored if fragment.lower() in r["reasons"].lower()}
    code, out, err = _view(capsys, "--store", store, "--seed", "1")
    assert code == 1 and out == "" and "no episode matches the filters (68 in" in err
    code, out, err = _view(capsys, "--store", store, "--limit", "5")
    assert len(_listed(out)) == 5 and "listed 5 of 68" in err


@pytest.mark.parametrize("kind", ["run", "store"])
def test_one_episode_shows_the_conversation_calls_envelopes_diff_and_verdict(
    kind: str, runs: Path, store: Path, capsys
) -> None:
    source = ["--run", runs] if kind == "run" else ["--store", store]
    code, out, _ = _view(capsys, "hw_basic_001", "--planner", "oracle", *source)
    task = TASKS["hw_basic_001"]
    assert code == 0
    assert SYSTEM_PROMPT[:60] in out and "Now: " in out  # the system message with the phone's context
    assert task.query in out
    for i, action in enumerate(task.gold, start=1):
        assert f"== step {i}: {action.name}" in out
    assert out.count("envelope:") == len(task.gold) and '"Status": "success"' in out
    assert "== state diff (D_T - D_0) ==\n+ contacts" in out
    assert "== verdict: PASS ==" in out and "PASS  finished after 2 step(s)" in out


def test_a_failing_episode_lists_its_reasons(store: Path, capsys) -> None:
    failed = next(r for r in _stored(store, planner="noop") if not r["passed"])
    code, out, _ = _view(capsys, store, f"noop/handwritten/both/0/{failed['task_id']}")
    assert code == 0 and "== verdict: FAIL ==" in out
    for reason in json.loads(failed["reasons"]):
        assert f"- {reason}" in out


def test_a_key_names_one_episode_or_the_message_lists_the_candidates(store: Path, capsys) -> None:
    code, out, err = _view(capsys, "--store", store, "hw_basic_001")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "noop/handwritten/both/0/hw_basic_001, oracle/handwritten/both/0/hw_basic_001" in err
    code, _, err = _view(capsys, "--store", store, "hw_basic_0011", "--planner", "oracle")
    assert code == 2 and "did you mean " in err and "hw_basic_001" in err
    skill = next(key for key in (r["task_id"] for r in _stored(store, planner="oracle")) if key.endswith("@mtsr"))
    code, _, err = _view(capsys, "--store", store, "--planner", "oracle", skill.partition("@")[0])
    assert code == 2 and "2 episodes match" in err  # both conditions of a skill task
    code, out, _ = _view(capsys, "--store", store, "--planner", "oracle", skill)
    assert code == 0 and "load_skill" in out


def test_the_newest_run_of_a_cell_wins(runs: Path, tmp_path: Path, capsys) -> None:
    shutil.copytree(runs / "oracle", tmp_path / "old")
    shutil.copytree(runs / "oracle", tmp_path / "new")
    later = time.time() + 60
    os.utime(tmp_path / "new" / "results.json", (later, later))
    lines = (tmp_path / "new" / "episodes.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    lines[0] = json.dumps({**first, "passed": False, "reasons": ["re-run"]})
    (tmp_path / "new" / "episodes.jsonl").write_text("\n".join(lines) + "\n")
    code, out, _ = _view(capsys, tmp_path)
    rows = _listed(out)
    assert code == 0 and len(rows) == N_EPISODES
    assert next(r for r in rows if r["key"] == first["task_id"])["reason"] == "re-run"


def test_html_index_filters_by_column_and_links_a_page_per_episode(store: Path, tmp_path: Path, capsys) -> None:
    (tmp_path / "leaderboard.html").write_text("<html></html>")  # a sweep's report folder
    tmp_path = tmp_path / "view"
    code, out, _ = _view(capsys, "--store", store, "--planner", "noop", "--html", tmp_path)
    assert code == 0 and str((tmp_path / "index.html").resolve()) in out
    index = (tmp_path / "index.html").read_text()
    links = re.findall(r"href='(episodes/[^']+)'", index)
    assert len(links) == N_EPISODES and all((tmp_path / link).is_file() for link in links)
    assert index.count("<input placeholder='filter'") == len(view.COLUMNS) and "href='../leaderboard.html'" in index
    failed = next(r for r in _stored(store, planner="noop") if not r["passed"])
    page = (tmp_path / "episodes" / view.page_name({"id": f"noop/handwritten/both/0/{failed['task_id']}"})).read_text()
    assert "<h2>verdict: FAIL</h2>" in page and "href='../index.html'" in page
    for reason in json.loads(failed["reasons"]):
        assert html.escape(f"- {reason}") in page


def test_a_terminal_gets_rich_tables_and_rules(store: Path) -> None:
    source = view.StoreSource(store)
    rows = [r for r in source.rows() if r["planner"] == "oracle"]
    console = Console(record=True, force_terminal=True, width=150)
    view.print_listing(rows, source.label, console)
    row = next(r for r in rows if r["key"] == "hw_basic_001")
    view.write_episode(view.RichOut(console), row, source.trajectory(row))
    source.close()
    text = console.export_text()
    assert "planner oracle" in text and "hw_basic_001" in text and "verdict: PASS" in text
    assert "add_contact(" in text and "─" in text  # rules between sections


def test_format_errors_infra_errors_and_a_changed_task_file_are_said(store: Path) -> None:
    source = view.StoreSource(store)
    row = next(r for r in source.rows() if r["planner"] == "noop" and r["key"] == "hw_basic_001")
    row = {**row, "verdict": "unscorable", "termination": "infra_error", "dataset_hash": "0" * 64}
    trajectory = {
        **source.trajectory(row),
        "infra_error": "http://gpu:8000/v1: HTTP 503",
        "steps": [
            {
                "index": 1,
                "name": FORMAT_ERROR_STEP,
                "arguments": "I think I should add a contact",
                "latency_s": 0.0,
                "envelope": {"Status": "error", "ErrorType": None, "Payload": {"format_error": "no_tool_call"}},
                "planner": {"format_error": "no_tool_call", "prompt_tokens": 900, "completion_tokens": 12},
            }
        ],
    }
    source.close()
    stream = io.StringIO()
    view.write_episode(view.PlainOut(stream), row, trajectory)
    text = stream.getvalue()
    assert "the task file changed since this episode ran" in text
    assert "no usable tool call (no_tool_call); it said:\n  I think I should add a contact" in text
    assert "(900 prompt, 12 completion)" in text
    assert "the episode ended in infra_error: http://gpu:8000/v1: HTTP 503" in text
    assert "UNSCORABLE" in text


def test_no_source_is_one_line(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = _view(capsys)
    assert code == 2 and err.count("\n") == 1 and "give --run DIR or --store PATH" in err
    code, _, err = _view(capsys, "--run", tmp_path)
    assert code == 2 and "no run folder" in err
