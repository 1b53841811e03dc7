"""``mobilepa compare`` and the report's per-cell analysis on a results store filled by two reference
planners (oracle and noisy_oracle, handwritten split, seeds 0 and 1), in a temporary directory."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from experiments.analysis.compare import CompareError, compare, sweep_analysis
from experiments.analysis.stats import sign_flip_p
from experiments.cli import main as cli_main
from experiments.episodes.loop import run_many
from experiments.results.store import ResultsStore, episode_record, file_sha256
from planners import build_planner
from sandbox.suite import TASK_DIR, load_split

NOISY = {
    "name": "noisy_oracle",
    "kind": "noisy_oracle",
    "p_skip_memory": 0.3,
    "p_corrupt_argument": 0.2,
    "p_skip_skill": 0.3,
    "p_drop_handoff_field": 0.3,
    "p_stop_early": 0.2,
}


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("compare") / "results.db"
    tasks = load_split("handwritten.jsonl")
    sha = file_sha256(TASK_DIR / "handwritten.jsonl")
    store = ResultsStore(path)
    store.check_dataset("handwritten", "handwritten.jsonl", sha)

    async def fill(name: str, config: dict, seed: int) -> list[dict]:
        planner = build_planner({**config, "seed": seed} if config["kind"] == "noisy_oracle" else config)
        return [
            episode_record(r, planner=name, split="handwritten", condition="both", seed=seed, dataset_hash=sha)
            async for r in run_many(tasks, planner, condition="both")
        ]

    for seed in (0, 1):
        store.upsert(asyncio.run(fill("oracle", {"name": "oracle", "kind": "oracle"}, seed)))
        store.upsert(asyncio.run(fill("noisy_oracle", NOISY, seed)))
    store.close()
    return path


def test_compare_pairs_the_episodes_and_finds_the_flips(store_path: Path) -> None:
    store = ResultsStore(store_path)
    try:
        result = compare(store, "oracle", "noisy_oracle", resamples=300)
        rows = store.rows(planner="noisy_oracle")
    finally:
        store.close()
    assert (result["split"], result["condition"], result["seeds"]) == ("handwritten", "both", [0, 1])
    assert result["episodes"] == len(rows) == 68  # 34 episodes per seed (3 skill tasks twice)
    failed: dict[str, int] = {}  # base task -> the noisy oracle's failed episodes (seeds and SOR/MTSR)
    for r in rows:
        if not r["passed"]:
            task = r["task_id"].partition("@")[0]
            failed[task] = failed.get(task, 0) + 1
    assert result["flips"]["a_better"] == sorted(failed) and result["flips"]["b_better"] == []
    overall = result["rows"]["overall"]
    assert overall["a"] == 100.0 and overall["a_better"] == len(failed) and overall["b_better"] == 0
    assert overall["tasks"] == result["tasks"] == 31  # 28 tasks once, 3 skill tasks twice: 34 episodes per seed
    assert overall["p"] == sign_flip_p(list(failed.values()))
    assert 0 < overall["ci"][0] <= overall["difference"] <= overall["ci"][1]
    assert set(result["rows"]) == {"basic", "subagent", "memory", "skill", "overall"}


def test_compare_refuses_what_the_store_cannot_answer(store_path: Path) -> None:
    store = ResultsStore(store_path)
    try:
        with pytest.raises(CompareError, match="no episodes of planner 'gpt'"):
            compare(store, "oracle", "gpt")
        with pytest.raises(CompareError, match="--split full: both planners have episodes only in handwritten"):
            compare(store, "oracle", "noisy_oracle", split="full")
    finally:
        store.close()


def test_compare_command_writes_table_flips_and_plot(
    store_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cmp"
    assert (
        cli_main(
            [
                "compare",
                "oracle",
                "noisy_oracle",
                "--store",
                str(store_path),
                "--split",
                "handwritten",
                "--out",
                str(out),
                "--resamples",
                "200",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "p (tasks)" in printed and "tasks oracle passed more often" in printed
    assert (out / "compare.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "## Tasks oracle passed more often" in (out / "compare.md").read_text()
    assert json.loads((out / "compare.json").read_text())["rows"]["overall"]["a"] == 100.0
    assert cli_main(["compare", "oracle", "noisy_oracle", "--store", str(tmp_path / "none.db")]) == 2


def test_compare_html_links_every_flipping_episode_to_its_side_by_side_page(
    store_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cmp"
    args = ["compare", "oracle", "noisy_oracle", "--store", str(store_path), "--out", str(out), "--resamples", "50"]
    assert cli_main([*args, "--html"]) == 0
    assert str((out / "compare.html").resolve()) in capsys.readouterr().out
    flips = json.loads((out / "compare.json").read_text())["episode_flips"]
    page = (out / "compare.html").read_text()
    links = re.findall(r"<a href='(pairs/[^']+)'>([^<]+)</a>", page)
    assert sorted(flip for _, flip in links) == sorted(flips["a_only"] + flips["b_only"]) != []
    for link, flip in links:
        pair = (out / link).read_text()
        key, _, seed = flip.rpartition("#")
        assert f"oracle/handwritten/both/{seed}/{key}" in pair and f"noisy_oracle/handwritten/both/{seed}/{key}" in pair
        assert pair.count("class='verdict-box") == 2 and "href='../compare.html'" in pair
        assert all(
            (out / "pairs" / href).resolve().is_file() for href in re.findall(r"href='(\.\./episodes/[^']+)'", pair)
        )
    assert (out / "index.html").is_file() and "src='data:image/png;base64," in page


def test_report_analysis_per_cell_with_taxonomy_of_the_noisy_planner(store_path: Path, tmp_path: Path) -> None:
    store = ResultsStore(store_path)
    try:
        doc = sweep_analysis(store)
    finally:
        store.close()
    assert sorted(doc["cells"]) == [f"{p}/handwritten/both/seed{s}" for p in ("noisy_oracle", "oracle") for s in (0, 1)]
    oracle = doc["cells"]["oracle/handwritten/both/seed0"]
    assert oracle["overall"]["value"] == 100.0 and oracle["taxonomy"] == {}
    noisy = doc["groups"]["noisy_oracle/handwritten/both"]
    assert set(noisy["pass_hat_k"]) == {"1", "2"}
    # the noisy oracle's perturbations each land on their own cause: skipped memory or skill fails a gate,
    # a corrupted argument is rejected (wrong argument), a dropped handoff field is a handoff, a cut gold a missing call
    causes = set(noisy["taxonomy"]["noisy_oracle"])
    assert causes and causes <= {"memory_gate", "skill_gate", "wrong_argument", "handoff", "missing_call"}
    assert "friction" in doc["cells"]["noisy_oracle/handwritten/both/seed0"]["breakdowns"]


def test_provenance_names_code_data_and_redacted_config(tmp_path: Path) -> None:
    from experiments.results.provenance import now, provenance
    from verification import VERIFIER_VERSION

    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("{}\n")
    record = provenance(
        task_file=tasks, planner_config={"kind": "openai", "api_key": "sk-x", "model": "m"}, started=now(), ended=now()
    )
    assert record["planner_config"] == {"kind": "openai", "api_key": "***", "model": "m"}
    assert record["task_file_sha256"] == file_sha256(tasks) and record["verifier_version"] == VERIFIER_VERSION
    assert record["versions"]["python"] and record["package_version"] == record["versions"]["mobilepa-bench"]
    assert set(record["git"]) == {"commit", "dirty"} and record["started"] <= record["ended"]


def test_mlflow_metrics_carry_real_timestamps_and_the_git_commit(tmp_path: Path) -> None:
    import time

    from mlflow.tracking import MlflowClient

    from experiments.reporting.tracking import _log_metrics, _tag_commit, git_commit

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    run = client.create_run(client.create_experiment("t", artifact_location=(tmp_path / "a").as_uri()))
    before = int(time.time() * 1000)
    _log_metrics(client, run.info.run_id, {"overall": 50.0})
    _tag_commit(client, run.info.run_id)
    [metric] = client.get_metric_history(run.info.run_id, "overall")
    assert before <= metric.timestamp <= int(time.time() * 1000)
    assert client.get_run(run.info.run_id).data.tags.get("mlflow.source.git.commit") == git_commit()
