"""Configs as a user has them: the shipped ones found through the package ``conf`` (``pkg://conf``), a
user's own folder added with ``--config-dir`` or ``hydra.searchpath`` for ``run`` and ``sweep``, and a
task file anywhere (``split.file``). The installed wheel itself is checked by ``make test-wheel``."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

import conf
from experiments import cli
from experiments.commands.config import CONF_DIR, group_options
from experiments.commands.plans import load_config, parse_args, plan_sweep
from experiments.plan.model import SweepConfigError
from sandbox.suite import TASK_DIR, task_path

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def user_conf(tmp_path: Path) -> Path:
    """A user's folder: ``planner/my_oracle.yaml`` (the oracle under another name) and
    ``split/mine.yaml`` over three tasks in a task file of the user's."""
    folder = tmp_path / "my_conf"
    (folder / "planner").mkdir(parents=True)
    (folder / "split").mkdir()
    oracle = (Path(CONF_DIR) / "planner" / "oracle.yaml").read_text(encoding="utf-8")
    (folder / "planner" / "my_oracle.yaml").write_text(oracle.replace("name: oracle", "name: my_oracle"))
    lines = (TASK_DIR / "handwritten.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    (tmp_path / "three.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "split" / "mine.yaml").write_text(
        f"name: mine\nfile: {tmp_path / 'three.jsonl'}\ncategories: null\nsubset: null\n"
    )
    return folder


def test_the_configs_are_the_package_conf_and_ship_in_the_distribution() -> None:
    assert Path(CONF_DIR) == Path(conf.__file__).resolve().parent == REPO / "conf"
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "conf*" in data["packages"]["find"]["include"]
    patterns = data["package-data"]["conf"]
    shipped = {p.relative_to(CONF_DIR) for pattern in patterns for p in Path(CONF_DIR).glob(pattern)}
    assert shipped == {p.relative_to(CONF_DIR) for p in Path(CONF_DIR).rglob("*.yaml")}


def test_config_dir_becomes_hydra_searchpath(user_conf: Path) -> None:
    assert cli.config_dir_args(["planner=oracle"]) == ["planner=oracle"]
    args = cli.config_dir_args(["--config-dir", str(user_conf), "planner=my_oracle"])
    assert args == ["planner=my_oracle", f'hydra.searchpath=["file://{user_conf}"]']
    merged = cli.config_dir_args(["hydra.searchpath=[file:///elsewhere]", f"--config-dir={user_conf}", "seed=1"])
    assert merged == ["seed=1", f'hydra.searchpath=["file:///elsewhere","file://{user_conf}"]']
    with pytest.raises(ValueError, match="no folder"):
        cli.config_dir_args(["--config-dir", str(user_conf / "nope")])


def test_planners_are_listed_from_hydras_config_repository(user_conf: Path) -> None:
    shipped = group_options("planner")
    assert "oracle" in shipped and "my_oracle" not in shipped and not any(o.startswith("_") for o in shipped)
    assert group_options("planner", [f"hydra.searchpath=[file://{user_conf}]"]) == sorted([*shipped, "my_oracle"])


def test_run_takes_a_users_planner_and_split_from_their_folder(user_conf: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    code = cli.main(["run", "--config-dir", str(user_conf), "planner=my_oracle", "split=mine", f"hydra.run.dir={out}"])
    assert code == 0, capsys.readouterr().err
    doc = json.loads((out / "results.json").read_text())
    assert (doc["planner"], doc["split"], doc["episodes"], doc["overall"]) == ("my_oracle", "mine", 3, 100.0)
    code = cli.main(["run", "--config-dir", str(user_conf), "planner=nope", f"hydra.run.dir={out}"])
    assert code == 2 and "my_oracle" in capsys.readouterr().err  # the user's planner among the known ones


def test_run_takes_a_task_file_anywhere(user_conf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # split.file relative to the working directory
    assert task_path("three.jsonl") == tmp_path / "three.jsonl" and task_path("full.jsonl") == TASK_DIR / "full.jsonl"
    code = cli.main(["run", "planner=oracle", "split.file=three.jsonl", "hydra.run.dir=out"])
    assert code == 0 and json.loads((tmp_path / "out" / "results.json").read_text())["episodes"] == 3


def test_sweep_plans_a_users_planner_and_split_from_their_folder(
    user_conf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = cli.config_dir_args(
        [
            "--config-dir",
            str(user_conf),
            "planner=oracle,my_oracle",
            "split=mine",
            "tracking=none",
            f"store={tmp_path / 'results.db'}",
        ]
    )
    plan = plan_sweep(load_config(*parse_args(args)))
    assert sorted({c.planner for c in plan.cells}) == ["my_oracle", "oracle"]
    assert {c.split_file for c in plan.cells} == {str(tmp_path / "three.jsonl")}
    assert {k: len(v) for k, v in plan.task_ids.items()} == {("mine", "both"): 3}
    assert plan.record["searchpath"] == [f"file://{user_conf}"]
    with pytest.raises(SweepConfigError, match=r"unknown planner 'my_oracle'; known: .*oracle"):
        plan_sweep(load_config(*parse_args(["planner=my_oracle", "split=mini"])))
