"""What the docs state that code declares stays in step with the code: the task record's exported
JSON Schema and the matcher operators."""

from __future__ import annotations

import io
import json
import re
import shlex
from pathlib import Path

import pytest

from experiments import cli
from experiments.commands.task_suite import TASK_SCHEMA, task_json_schema
from verification.matchers import _CHECKS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_committed_task_schema_is_the_task_model_s() -> None:
    assert TASK_SCHEMA.read_text(encoding="utf-8") == task_json_schema(), "run `mobilepa tasks card`"
    assert "check" in json.loads(TASK_SCHEMA.read_text(encoding="utf-8"))["properties"]


def test_every_matcher_operator_is_documented() -> None:
    text = (DOCS / "task-format.md").read_text(encoding="utf-8")
    assert [op for op in _CHECKS if f"`{op}`" not in text] == []


# ---- every command, code block, link and figure the docs show ----------------------------------------

REPO = DOCS.parent
PAGES = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)\s]+)\)")
NEEDS = re.compile(r"<!-- docs: needs (a GPU|a key|a cluster|your files|minutes) -->\s*$")
"""A block a test cannot run as shown (it needs a GPU, an API key, a cluster, the reader's own files, or
minutes that another test spends already) is marked with this comment on the line before it: its
commands' configs are then composed and checked, not run."""


def blocks() -> list[tuple[str, str, str, str | None]]:
    """(page:line, language, code, what it needs) of every fenced block of README and docs/."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            before = text[: match.start()].rstrip("\n").rpartition("\n")[2]
            needs = NEEDS.search(before)
            code = "\n".join(raw.removeprefix(match.group(1)) for raw in match.group(3).splitlines())
            where = f"{page.name}:{text[: match.start()].count(chr(10)) + 1}"
            found.append((where, match.group(2), code, needs.group(1) if needs else None))
    return found


def shell_lines(code: str) -> list[tuple[str, list[str]]]:
    """A bash block's commands: (the line, its words as the shell splits them), continuations joined,
    comments dropped, ``.venv/bin/`` dropped from the program."""
    lines = []
    for line in code.replace("\\\n", " ").splitlines():
        if words := shlex.split(line, comments=True):
            if "<" in words:  # ``< /dev/null``: the tests' stdin is empty anyway
                words = words[: words.index("<")]
            lines.append((line, [words[0].removeprefix(".venv/bin/"), *words[1:]]))
    return lines


def shown(*, runnable: bool) -> list[tuple[str, list[str]]]:
    """Every ``mobilepa`` command of the docs' bash blocks that this machine can run (or cannot)."""
    return [
        (where, words[1:])
        for where, language, code, needs in blocks()
        if language == "bash" and (needs is None) == runnable
        for _, words in shell_lines(code)
        if words[0] == "mobilepa"
    ]


def test_every_relative_link_resolves() -> None:
    broken = [
        f"{page.name}: {target}"
        for page in PAGES
        for target in LINK.findall(page.read_text(encoding="utf-8"))
        if not re.match(r"[a-z]+:|#", target) and not (page.parent / target.partition("#")[0]).exists()
    ]
    assert broken == []


def test_every_shell_command_is_a_make_target_or_a_mobilepa_command() -> None:
    targets = set(re.findall(r"^([\w-]+):", (REPO / "Makefile").read_text(encoding="utf-8"), re.MULTILINE))
    wrong = []
    for where, language, code, _ in blocks():
        for _, words in shell_lines(code) if language == "bash" else []:
            if words[0] == "make":
                wrong += [f"{where}: make {t}" for t in words[1:] if t not in targets]
            elif words[0] == "mobilepa" and words[1] not in cli.COMMANDS:
                wrong.append(f"{where}: mobilepa {words[1]}")
            elif words[0] not in ("make", "mobilepa", "export", "echo"):
                wrong.append(f"{where}: {words[0]}")
    assert wrong == []


def _id(value: object) -> str:
    return " ".join(value)[:50] if isinstance(value, list) else str(value)


def _mobilepa(args: list[str]) -> int:
    try:
        return cli.main(args)
    except SystemExit as exc:  # Hydra's job and argparse end with SystemExit
        return int(exc.code or 0)


@pytest.mark.parametrize(("where", "args"), shown(runnable=False), ids=_id)
def test_a_command_the_docs_cannot_run_here_has_a_config_that_composes(where: str, args: list[str]) -> None:
    """Its keys, planners, splits and clusters are known: the config composes as given."""
    from experiments.commands.plans import load_config, parse_args
    from experiments.commands.run import compose_checked

    command, rest = args[0], [a for a in args[1:] if a != "--dry-run"]
    if rest[:1] == ["--config-dir"]:
        rest = rest[2:]  # the reader's folder: composed without it, on the shipped configs
        rest = [a for a in rest if not a.startswith("planner=my_")] + ["planner=oracle"] * any(
            a.startswith("planner=my_") for a in rest
        )
    if command == "sweep":
        load_config(*parse_args([a.replace("my_model", "noop").replace("my_tasks", "mini") for a in rest]))
    elif command == "run":
        compose_checked([a for a in rest if not a.startswith("split.file")])
    else:
        assert _mobilepa([command, "--help"]) == 0


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty folder holding what a reader has after the README's first runs and sweep: oracle,
    noisy_oracle (seeds 0 and 1) and noop on the smoke split, in the default results store."""
    folder = tmp_path_factory.mktemp("reader")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        for planner, seed in (("oracle", 0), ("noisy_oracle", 0), ("noisy_oracle", 1), ("noop", 0)):
            assert (
                _mobilepa(["run", f"planner={planner}", "split=mini", f"seed={seed}", "store=outputs/results.db"]) == 0
            )
    return folder


@pytest.mark.parametrize(("where", "args"), shown(runnable=True), ids=_id)
def test_every_command_the_docs_show_runs(
    where: str, args: list[str], workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As shown, in the reader's folder; a sweep as its ``--dry-run`` (every cell composed, its planner
    built, its tasks chosen: the sweeps themselves run in test_sweep.py), stdin empty."""
    monkeypatch.chdir(workdir)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    if args[0] == "sweep" and "--dry-run" not in args:
        args = ["sweep", "--dry-run", *args[1:]]
    assert _mobilepa(args) == 0, f"{where}: mobilepa {' '.join(args)}"


def test_every_python_block_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code = [(where, code) for where, language, code, _ in blocks() if language == "python"]
    assert code, "the docs show no Python: drop this test or the docs lost their example"
    for where, source in code:
        exec(compile(source, where, "exec"), {})
    assert "1.0 True" in capsys.readouterr().out


def test_the_figures_the_docs_state_are_those_the_code_prints() -> None:
    from experiments.commands.task_suite import committed_splits
    from sandbox.generator.stats import suite_stats

    bm25 = suite_stats(committed_splits())["retrieval"]["bm25"]
    text = (DOCS / "task-format.md").read_text(encoding="utf-8")
    assert f"recall@15 before that repair is {bm25['recall_at_15_mean']} on average" in text
    assert f"full recall on {bm25['tasks_with_full_recall']:,} of the 1,705 tasks" in text
