"""``mobilepa play``: replayed actions files reach the project's verdict, stdin drives it turn by turn,
and a player sees what the model sees and nothing of the task's answer."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from experiments import cli
from experiments.commands import play
from planners.messages import dumps
from sandbox.conditions import action_space_for
from sandbox.episode import Episode
from sandbox.suite import load_split

TASKS = {t.task_id: t for t in load_split("handwritten.jsonl")}


def write_actions(path: Path, actions: list[dict]) -> Path:
    path.write_text("".join(json.dumps(a) + "\n" for a in actions), encoding="utf-8")
    return path


def gold(task_id: str) -> list[dict]:
    return [a.model_dump() for a in TASKS[task_id].gold]


def run_play(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str], stdin: str = ""
) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))  # not a terminal: actions come from these lines
    code = cli.main(["play", *args])
    return code, capsys.readouterr().out


def test_gold_actions_file_replays_to_a_pass(tmp_path, monkeypatch, capsys):
    actions = write_actions(tmp_path / "gold.jsonl", gold("hw_basic_003"))
    before = actions.read_text()
    code, out = run_play(monkeypatch, capsys, ["hw_basic_003", "--split", "handwritten", "--actions", str(actions)])
    assert code == 0
    assert "verdict: PASS" in out and "finished after 5 step(s)" in out
    assert actions.read_text() == before  # replayed actions are not appended again


def test_full_skill_task_under_sor_grows_the_tools_and_passes(tmp_path, monkeypatch, capsys):
    task = next(t for t in load_split("full.jsonl") if t.task_id == "skill-001")
    actions = write_actions(tmp_path / "gold.jsonl", [a.model_dump() for a in task.gold])
    code, out = run_play(monkeypatch, capsys, ["skill-001@sor", "--actions", str(actions)])
    assert code == 0 and "verdict: PASS" in out
    assert "condition sor" in out and "tools now offered too" in out
    assert "skill gate: pass" in out


def test_wrong_actions_fail_with_reasons(tmp_path, monkeypatch, capsys):
    actions = write_actions(tmp_path / "wrong.jsonl", [{"name": "finish", "arguments": {"answer": "Done."}}])
    code, out = run_play(monkeypatch, capsys, ["hw_basic_003", "--split", "handwritten", "--actions", str(actions)])
    assert code == 0
    verdict = out[out.index("verdict: FAIL") :]
    assert "checker: fail" in verdict
    assert [line for line in verdict.splitlines() if line.startswith("- ")]  # the checker's reasons


def test_eof_before_finish_prints_the_state_without_a_verdict(tmp_path, monkeypatch, capsys):
    actions = write_actions(tmp_path / "run.jsonl", gold("hw_basic_003")[:2])
    code, out = run_play(monkeypatch, capsys, ["hw_basic_003", "--split", "handwritten", "--actions", str(actions)])
    assert code == 0
    assert "verdict:" not in out  # the heading of a verdict
    state = out[out.index("waiting for step 3 of 15") :]
    assert "tools offered now (25)" in state and "send_sms" in state
    assert f"--actions {actions} < /dev/null" in state
    assert '"ErrorType": "PermissionDenied"' in out  # the last envelope, pretty-printed
    # turn by turn: append one line, rerun; the new action is played and the file grows by nothing else
    with actions.open("a") as fh:
        fh.write(json.dumps(gold("hw_basic_003")[2]) + "\n")
    code, out = run_play(monkeypatch, capsys, ["hw_basic_003", "--split", "handwritten", "--actions", str(actions)])
    assert code == 0 and "waiting for step 4 of 15" in out and "verdict:" not in out
    assert len(actions.read_text().splitlines()) == 3


def test_malformed_json_is_reported_and_costs_no_step(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the default save file goes under ./outputs/play
    lines = ["{not json", *(json.dumps(a) for a in gold("hw_basic_003"))]
    code, out = run_play(monkeypatch, capsys, ["hw_basic_003", "--split", "handwritten"], "\n".join(lines) + "\n")
    assert code == 0
    assert "not an action, no step spent: not JSON" in out and "Traceback" not in out
    assert "verdict: PASS" in out and "finished after 5 step(s)" in out
    saved = list((tmp_path / "outputs" / "play").glob("hw_basic_003-*.jsonl"))
    assert len(saved) == 1 and str(Path("outputs") / "play" / saved[0].name) in out
    assert [json.loads(line) for line in saved[0].read_text().splitlines()] == gold("hw_basic_003")


def test_a_tool_name_alone_is_a_call_without_arguments(tmp_path, monkeypatch, capsys):
    code, out = run_play(
        monkeypatch, capsys, ["hw_basic_003", "--split", "handwritten", "--save", str(tmp_path / "s.jsonl")], "finish\n"
    )
    assert code == 0 and "> finish {}" in out and "missing required argument(s) answer" in out


def test_the_same_actions_give_the_same_output(tmp_path, monkeypatch, capsys):
    actions = write_actions(tmp_path / "gold.jsonl", gold("hw_memory_001"))
    args = ["hw_memory_001", "--split", "handwritten", "--actions", str(actions)]
    first = run_play(monkeypatch, capsys, args)
    assert first == run_play(monkeypatch, capsys, args)
    assert "verdict: PASS" in first[1]


@pytest.mark.parametrize("task_id", ["hw_basic_008", "hw_memory_001"])
def test_nothing_of_the_answer_is_shown_before_the_verdict(tmp_path, monkeypatch, capsys, task_id):
    task = TASKS[task_id]
    code, out = run_play(
        monkeypatch,
        capsys,
        [task_id, "--split", "handwritten", "--schemas", "--request", "--save", str(tmp_path / "s.jsonl")],
    )
    assert code == 0 and task.query in out
    for action in task.gold:
        if action.arguments:
            assert json.dumps(action.arguments) not in out and dumps(action.arguments) not in out
    assert dumps(task.check.model_dump()) not in out
    for secret in [*task.required_memory_ids, *(u.answer for u in task.user_script)]:
        assert secret not in out


def test_request_prints_the_planners_own_body(tmp_path, monkeypatch, capsys):
    first = gold("hw_skill_001")[0]
    actions = write_actions(tmp_path / "run.jsonl", [first])
    code, out = run_play(
        monkeypatch,
        capsys,
        ["hw_skill_001", "--split", "handwritten", "--condition", "mtsr", "--request", "--actions", str(actions)],
    )
    assert code == 0
    lines = out.splitlines()
    printed = lines[next(i for i, line in enumerate(lines) if "request body for step 2" in line) + 1]
    task = TASKS["hw_skill_001"]
    tools, skills = action_space_for(task, "mtsr")
    with Episode(task, candidate_tools=tools, candidate_skills=skills) as episode:
        episode.step(first["name"], first["arguments"])
        expected = play.request_planner("qwen3_8b", 0).request_body(episode.observation())
    assert printed == expected.decode("utf-8")
    assert json.loads(printed)["messages"][0]["role"] == "system"


def test_an_unknown_task_is_a_message_not_a_traceback(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert cli.main(["play", "hw_basic_03", "--split", "handwritten"]) == 2
    assert "did you mean" in capsys.readouterr().err
