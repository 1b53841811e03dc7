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

from experiments.commands.config import CONF_DIR
from experiments.commands.run import run_plan
from experiments.commands.view import command, pages, sources, terminal
from experiments.commands.view.episode import gather, reason_parts
from experiments.episodes.loop import EpisodeResult, run_many
from experiments.execution.run import run_job
from experiments.results.store import ResultsStore, episode_record, file_sha256
from planners import NoopPlanner, OraclePlanner, Planner
from planners.messages import SYSTEM_PROMPT
from sandbox.episode import FORMAT_ERROR_STEP, FORMAT_ERRORS
from sandbox.suite import TASK_DIR, load_split
from tests.experiments.view_data import CUT, RAMBLE, REASONING, ScriptedModel, fill_store

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


MODEL_TASKS = ("hw_basic_001", "hw_basic_003", "hw_memory_001", "hw_skill_001")
RAMBLING = "hw_basic_003"  # the scripted model rambles here until the step budget


@pytest.fixture(scope="module")
def model_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The oracle and a scripted model planner (format errors, raw replies, reasoning) over a few tasks."""
    planners = {"oracle": OraclePlanner(), "model": ScriptedModel([RAMBLING])}
    return fill_store(tmp_path_factory.mktemp("model") / "results.db", planners, MODEL_TASKS)


def _view(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = command.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _listed(out: str) -> list[dict[str, str]]:
    header, *lines = out.splitlines()
    assert header.split("\t") == list(sources.COLUMNS)
    return [dict(zip(sources.COLUMNS, line.split("\t"), strict=True)) for line in lines]


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
def test_one_episode_shows_the_verdict_then_the_conversation_calls_envelopes_and_diff(
    kind: str, runs: Path, store: Path, capsys
) -> None:
    source = ["--run", runs] if kind == "run" else ["--store", store]
    code, out, _ = _view(capsys, "hw_basic_001", "--planner", "oracle", *source)
    task = TASKS["hw_basic_001"]
    assert code == 0
    assert out.index("== verdict: PASS ==") < out.index("== system ==") < out.index("== step 1:")
    assert "PASS  bucket state_change; checker pass, memory gate not required" in out
    assert "ended: finished after 2 step(s)" in out
    assert SYSTEM_PROMPT[:60] in out and "Now: " in out  # the system message with the phone's context
    assert task.query in out
    assert re.search(r"offered tools \(\d+\): .*add_contact", out)
    for i, action in enumerate(task.gold, start=1):
        assert f"== step {i}: {action.name}" in out
    assert out.count("envelope:") == len(task.gold) and '"Status": "success"' in out
    assert "== state diff (D_T - D_0) ==\n+ contacts added" in out


def test_a_failing_episode_lists_its_reasons_with_what_came_closest(store: Path, capsys) -> None:
    failed = next(r for r in _stored(store, planner="noop") if not r["passed"])
    code, out, _ = _view(capsys, store, f"noop/handwritten/both/0/{failed['task_id']}")
    assert code == 0 and "== verdict: FAIL ==" in out
    verdict = out[: out.index("== system ==")]  # the reasons come before the conversation
    for reason in json.loads(failed["reasons"]):
        expected, found = reason_parts(reason)
        assert f"- {expected}" in verdict and (not found or f"    found: {found}" in verdict)


def test_reasons_split_into_what_was_expected_and_what_was_found() -> None:
    assert reason_parts("contacts: expected a row inserted like {'name': 'A'}; no row was inserted") == (
        "contacts: expected a row inserted like {'name': 'A'}",
        "no row was inserted",
    )
    assert reason_parts(
        "contacts: expected a row inserted like {'name': 'A'}; closest inserted row {'contact_id': 'c1'}: "
        "name: expected 'A', got 'B'"
    ) == (
        "contacts: expected a row inserted like {'name': 'A'}",
        "closest inserted row {'contact_id': 'c1'}: name: expected 'A', got 'B'",
    )
    assert reason_parts("expected call #1 send_sms({'to': 'c1'}): wrong arguments at step 2: to: expected") == (
        "expected call #1 send_sms({'to': 'c1'})",
        "wrong arguments at step 2: to: expected",
    )
    assert reason_parts("skill gate: contact_hygiene was never loaded with load_skill") == (
        "skill gate: contact_hygiene was never loaded with load_skill",
        "",
    )


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


def test_html_index_and_pages_link_each_other_wherever_they_are_written(store: Path, tmp_path: Path, capsys) -> None:
    (tmp_path / "leaderboard.html").write_text("<html></html>")  # a sweep's report folder
    out_dir = tmp_path / "view"
    code, out, _ = _view(capsys, "--store", store, "--planner", "noop", "--html", out_dir)
    assert code == 0 and str((out_dir / "index.html").resolve()) in out
    index = (out_dir / "index.html").read_text()
    links = re.findall(r"href='(episodes/[^']+)'", index)
    assert len(links) == N_EPISODES and all((out_dir / link).is_file() for link in links)
    assert "href='../leaderboard.html'" in index
    assert "<select data-facet='cause'" in index and "<select data-facet='planner'" not in index  # one planner
    assert not re.search(r"(src|href)=['\"]?(https?:)?//", index)  # nothing fetched: self-contained
    tools = (out_dir / "tools.html").read_text()
    for link in links[:3]:
        offered = re.findall(r"href='\.\./tools\.html#(tool-[^']+)'", (out_dir / link).read_text())
        assert offered and all(f"id='{target}'" in tools for target in offered)
    failed = next(r for r in _stored(store, planner="noop") if not r["passed"])
    page = (out_dir / "episodes" / pages.page_name({"id": f"noop/handwritten/both/0/{failed['task_id']}"})).read_text()
    assert "<span class='badge fail'>FAIL</span>" in page and "href='../index.html'" in page
    assert page.index("id='verdict'") < page.index("<h2>Conversation</h2>")
    for reason in json.loads(failed["reasons"]):
        assert html.escape(reason_parts(reason)[0]) in page
    elsewhere = tmp_path / "a" / "b"
    code, _, _ = _view(capsys, "--store", store, "--planner", "noop", "--html", elsewhere)
    assert code == 0 and "leaderboard" not in (elsewhere / "index.html").read_text()  # no link to nothing


def test_a_terminal_gets_rich_tables_and_rules(store: Path) -> None:
    source = sources.StoreSource(store)
    rows = [r for r in source.rows() if r["planner"] == "oracle"]
    console = Console(record=True, force_terminal=True, width=150)
    terminal.print_listing(rows, source.label, console)
    row = next(r for r in rows if r["key"] == "hw_basic_001")
    terminal.write_episode(terminal.RichOut(console), gather(row, source.trajectory(row)))
    source.close()
    text = console.export_text()
    assert "planner oracle" in text and "hw_basic_001" in text and "verdict: PASS" in text
    assert "add_contact(" in text and "─" in text  # rules between sections


def test_format_errors_infra_errors_and_a_changed_task_file_are_said(store: Path) -> None:
    source = sources.StoreSource(store)
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
                "envelope": {
                    "Status": "error",
                    "ErrorType": None,
                    "Payload": {"format_error": "no_tool_call", "message": "answer with exactly one tool call"},
                },
                "planner": {"format_error": "no_tool_call", "prompt_tokens": 900, "completion_tokens": 12},
            }
        ],
    }
    source.close()
    stream = io.StringIO()
    terminal.write_episode(terminal.PlainOut(stream), gather(row, trajectory))
    text = stream.getvalue()
    assert "the task file changed since this episode ran" in text
    assert "no usable tool call (no_tool_call); it said:\n  I think I should add a contact" in text
    assert "the model was told:\n  answer with exactly one tool call" in text
    assert "(900 prompt, 12 completion)" in text
    assert "ended: infra_error after 1 step(s): http://gpu:8000/v1: HTTP 503" in text
    assert "UNSCORABLE" in text


def test_a_model_episode_shows_its_own_words_its_format_errors_and_what_it_was_told(model_store: Path, capsys) -> None:
    code, out, _ = _view(capsys, model_store, "model/handwritten/both/0/hw_basic_001")
    assert code == 0 and out.index("== verdict: PASS ==") < out.index("== step 1:")
    assert "format errors 2" in out and "tokens (prompt+completion) 5000+90" in out
    assert f"no usable tool call (no_tool_call); it said:\n  {RAMBLE.strip()}" in out
    assert f"no usable tool call (truncated_reply); it said:\n  {CUT}" in out
    assert f"the model was told:\n  {FORMAT_ERRORS['truncated_reply']}" in out
    assert "finish_reason length" in out and f"the model reasoned:\n  {REASONING}" in out
    assert 'tool call as sent: add_contact({"name": "Mike Ross"' in out  # the arguments string as received


def test_every_model_page_shows_the_verdict_and_reasons_before_the_first_step_and_the_replies_behind_its_errors(
    model_store: Path, tmp_path: Path, capsys
) -> None:
    code, _, _ = _view(capsys, model_store, "--html", tmp_path)
    rows = _stored(model_store)
    assert code == 0 and len(list((tmp_path / "episodes").iterdir())) == len(rows)
    for row in rows:
        page = tmp_path / "episodes" / pages.page_name({"id": f"{row['planner']}/handwritten/both/0/{row['task_id']}"})
        text = page.read_text()
        first_step = text.index("id='step-1'")
        assert text.index("id='verdict'") < first_step
        for reason in json.loads(row["reasons"]):
            assert text.index(html.escape(reason_parts(reason)[0])) < first_step
        if row["planner"] == "model":
            assert text.count("format error: <b>") == row["format_errors"] > 0
            assert html.escape(RAMBLE) in text and html.escape(FORMAT_ERRORS["no_tool_call"]) in text
    rambled = (tmp_path / "episodes" / pages.page_name({"id": f"model/handwritten/both/0/{RAMBLING}"})).read_text()
    assert ">format_errors<" in rambled and "truncated after 15 step(s)" in rambled


def test_two_keys_show_two_episodes_side_by_side_aligned_by_step(model_store: Path, tmp_path: Path, capsys) -> None:
    left, right = "oracle/handwritten/both/0/hw_basic_001", "model/handwritten/both/0/hw_basic_001"
    code, out, _ = _view(capsys, model_store, left, right)
    assert code == 0 and f"A: {left}" in out and f"B: {right}" in out
    assert "== step 1 (the calls differ) ==" in out and "B: format error no_tool_call" in out
    assert "== step 4 (the calls differ) ==\nA: (no step)" in out  # the oracle needed 2 steps, the model 4
    code, out, _ = _view(capsys, model_store, left, right, "--html", tmp_path)
    pair = Path(out.split("side by side: ")[1].strip())
    assert code == 0 and pair.parent == (tmp_path / "pairs").resolve()
    text = pair.read_text()
    assert text.count("class='verdict-box") == 2 and text.index("id='verdicts'") < text.index("class='aligned'")
    assert text.count("<tr class='differs'>") == 4 and "href='../episodes/" in text
    code, _, err = _view(capsys, model_store, left, left)
    assert code == 2 and "give two episodes" in err


def test_no_source_is_one_line(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = _view(capsys)
    assert code == 2 and err.count("\n") == 1 and "give --run DIR or --store PATH" in err
    code, _, err = _view(capsys, "--run", tmp_path)
    assert code == 2 and "no run folder" in err
