"""The ``mobilepa`` command line: generated help for every command, one-line config mistakes, and
``mobilepa run`` exiting non-zero (naming the first one) when an episode ended in infra_error."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from experiments import cli
from experiments.bench.scripted_server import ScriptedServer
from experiments.commands.config import CONF_DIR, RunConfigError
from experiments.commands.run import run_plan
from experiments.execution import run
from experiments.execution.run import infra_message, run_job
from sandbox.suite import load_split
from tests.cluster import slow_planner
from tests.experiments.servers import ServerThread

REPO = Path(__file__).resolve().parents[2]


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_bare_mobilepa_prints_the_generated_help_and_exits_2(capsys) -> None:
    code, out, err = _cli(capsys)
    assert code == 2 and out == ""
    for name, command in cli.COMMANDS.items():
        assert re.search(rf"^\s+{name}\s+{re.escape(command.arguments)}$", err, re.MULTILINE), name
    code, out, _ = _cli(capsys, "--help")
    assert code == 0 and out == err


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_every_command_answers_help(name: str, capsys) -> None:
    code, out, _ = _cli(capsys, name, "--help")
    assert code == 0 and out.startswith(f"usage: mobilepa {name}")


@pytest.mark.parametrize(("name", "pattern"), [("tasks", r"\{([\w,]+)\} \.\.\."), ("bench", r"\[\{([\w,]+)\}\]")])
def test_the_top_level_help_names_every_subcommand(name: str, pattern: str, capsys) -> None:
    """A command's own parser is the truth; the registry's argument line must not drift from it."""
    _, out, _ = _cli(capsys, name, "--help")
    declared = set(re.findall(r"\w+", cli.COMMANDS[name].arguments))
    assert set(re.search(pattern, out).group(1).split(",")) == declared  # type: ignore[union-attr]


def test_hydra_commands_show_their_config_keys(capsys) -> None:
    _, out, _ = _cli(capsys, "run", "--help")
    assert re.search(r"^  planner\s+.*\boracle\*", out, re.MULTILINE)
    assert all(f"  {key}=" in out for key in ("seed", "t_max", "concurrency"))
    _, out, _ = _cli(capsys, "sweep", "planner=oracle", "--help")
    assert re.search(r"^  cluster\s+address, kubernetes, local\*", out, re.MULTILINE)
    assert re.search(r"^  seed\s+0\*$", out, re.MULTILINE) and "  unit_size=128  # " in out


EXAMPLE = {"N": "1", "[a,b]": "[hw_basic_001]", "PATH": "{tmp}/results.db", "value": None}
"""What a placeholder of the help stands for when the test runs its key (value: the key's own example)."""


DEFAULT_OPTION = re.compile(r"(\w+)\*")


def _help_keys(out: str) -> list[str]:
    """Every ``key=value`` the help names, groups (at their default) and keys, as the command line takes them."""
    groups, keys = out.split("\nkeys (")
    named = []
    for group, options in re.findall(r"^  (\w+) +(.*\*.*)$", groups, re.M):
        named.append(f"{group}={DEFAULT_OPTION.search(options).group(1)}")  # type: ignore[union-attr]
    return named + re.findall(r"^  (\S+=\S+)", keys.split("\n\nexamples")[0], re.M)


def _runnable(item: str, tmp: Path) -> str:
    key, _, value = item.partition("=")
    if "<" in key:  # planner.<name>.<key>=value: one key of the oracle's config
        return "planner.oracle.name=oracle" if key.count(".") == 2 else "planner.name=oracle"
    return f"{key}={EXAMPLE.get(value, value).format(tmp=tmp)}"  # type: ignore[union-attr]


def test_every_key_the_sweep_help_names_is_one_the_sweep_takes(capsys, tmp_path: Path) -> None:
    """Every key of ``mobilepa sweep --help``, given as shown, passes a dry run (``ablations=`` once did not;
    a key that fails names itself in the one line)."""
    _, out, _ = _cli(capsys, "sweep", "--help")
    items = _help_keys(out)
    assert "ablation=none" in items and not any(i.startswith("ablations=") for i in items)
    args = [_runnable(item, tmp_path) for item in items]
    code, _, err = _cli(capsys, "sweep", "--dry-run", *args, "planner=oracle", "split=handwritten")
    assert code == 0, err


def test_every_key_the_run_help_names_is_one_the_run_takes(capsys, tmp_path: Path) -> None:
    """Each key of ``mobilepa run --help``, given as shown, composes and passes the run's checks."""
    from experiments.commands.config import run_override
    from experiments.commands.run import compose_checked
    from experiments.plan.selection import as_override

    _, out, _ = _cli(capsys, "run", "--help")
    items = _help_keys(out)
    assert {"retrieval.top_n=15", 'ablation="none"'} <= set(items)
    for item in items:
        compose_checked([run_override(as_override(_runnable(item, tmp_path)))])


def test_an_unknown_command_or_option_is_one_line(capsys) -> None:
    code, out, err = _cli(capsys, "swep")
    assert code == 2 and out == "" and err.count("\n") == 1 and "did you mean sweep?" in err
    code, _, err = _cli(capsys, "--verbose")
    assert code == 2 and err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sed=0"], "sed: no such key; known keys: planner, split, condition, seed, t_max, concurrency"),
        (["seed=abc"], "seed: an integer is required, got 'abc'"),
        (["t_max=0"], "t_max: at least 1, got 0"),
        (["planner=nope"], "planner: unknown planner 'nope'; known: gpt_oss_20b,"),
        (
            ["planner=qwen3_8b", "planner.timeouts.conect=5"],
            "planner.timeouts.conect: no such key; known keys of planner.timeouts: connect, read, total",
        ),
        # a key nothing reads is refused, never recorded and ignored
        (["+foo.bar=1"], "foo.bar: no such key; known keys: planner, split, condition, seed"),
        (["++t_maxx=3"], "t_maxx: no such key; known keys: planner"),
        (["+planner.api_key=sk-test"], "planner.api_key: no such key; known keys of planner: name, kind"),
    ],
)
def test_run_config_mistakes_are_one_line_before_any_work(
    args: list[str], message: str, tmp_path: Path, capsys
) -> None:
    code, out, err = _cli(capsys, "run", *args, f"hydra.run.dir={tmp_path}")
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith(f"mobilepa run: {message}")
    assert not any(tmp_path.iterdir())


def test_a_model_planner_without_a_base_url_is_one_config_error(tmp_path: Path) -> None:
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=["planner=qwen3_8b"])
    with pytest.raises(RunConfigError, match=r"^planner.base_url: required .*\(mobilepa run starts no vLLM server"):
        run_job(run_plan(cfg), tmp_path)


def test_a_run_with_infra_errors_names_the_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr(run, "build_planner", slow_planner.build_broken)  # the oracle, its backend down for one task
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        cfg = compose(config_name="config", overrides=["planner=oracle", "split=handwritten"])
    doc = json.loads(run_job(run_plan(cfg), tmp_path).read_text())
    out = capsys.readouterr().out
    assert doc["terminations"]["infra_error"] == 1 and "Overall" in out  # the other episodes are scored
    assert doc["infra_errors"] == {
        "episodes": 1,
        "first": slow_planner.BROKEN_TASK,
        "error": "backend unreachable (test)",
        "endpoint": "planner oracle",
    }
    assert infra_message(doc) == (
        f"1 of 34 episode(s) ended in infra_error and were not scored; first: "
        f"{slow_planner.BROKEN_TASK} at planner oracle: backend unreachable (test)"
    )


def test_a_run_against_an_endpoint_that_is_not_there_stops_at_its_pre_flight_and_exits_1(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on: every request is refused at once
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "experiments.cli",
            "run",
            "planner=qwen3_8b",
            f"planner.base_url={url}",
            "split=handwritten",
            f"hydra.run.dir={tmp_path}",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    [message] = done.stderr.splitlines()
    assert message.startswith(f"mobilepa run: planner qwen3_8b: {url} is not reachable (")
    assert not (tmp_path / "results.json").exists(), "no episode ran"


def test_a_run_whose_every_episode_is_infra_error_says_so_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ServerThread(ScriptedServer(load_split("handwritten.jsonl"), "status:503")) as server:
        url = server.base_url
        code = cli.main(
            [
                "run",
                "planner=qwen3_8b",
                f"planner.base_url={url}",
                "planner.model=scripted",
                "planner.retries.max=0",
                "split=handwritten",
                f"hydra.run.dir={tmp_path}",
            ]
        )
    out, err = capsys.readouterr()
    assert code == 1, err
    lines = out.splitlines()
    assert "all 34 episodes ended in infra_error: nothing was scored" in lines and "Overall" not in out
    assert lines[-1] == str(tmp_path / "results.json")
    [message] = [line for line in err.splitlines() if line.startswith("mobilepa run:")]
    assert message.startswith(
        "mobilepa run: 34 of 34 episode(s) ended in infra_error and were not scored; "
        f"first: hw_basic_001: {url}/chat/completions: gave up after 1 attempt(s)"
    )
