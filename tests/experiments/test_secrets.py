"""The planner's API key appears in no output of a sweep.

``mobilepa sweep`` runs an OpenAI-compatible planner (``conf/planner/qwen3_8b.yaml``) against the
scripted server, which demands the key; the key comes from an environment variable
(``api_key_env``), as in production. One task's backend is down, and the server echoes the
request's Authorization header in those error bodies (a careless proxy), so the key even reaches
the client in a message that ends up in an ``infra_error`` verdict. Then every output is searched:
the results store (every value, gzip-compressed trajectories unpacked), the report files, the MLflow
database (every value, traces included) and its artifacts (``.gz`` unpacked), anything written to the
working directory, the captured stdout and stderr, and every log record at DEBUG level.
"""

from __future__ import annotations

import gzip
import logging
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from experiments.commands.sweep import sweep_main
from experiments.results.store import ResultsStore
from sandbox.suite import load_split
from tests.experiments.servers import FaultyServer, ServerThread

pytestmark = pytest.mark.faults

REPO = Path(__file__).resolve().parents[2]
TASKS = load_split("handwritten.jsonl")
KEY = "sk-mobilepa-7f3a9c1e5b2d4e60-DO-NOT-LOG"
KEY_ENV = "MOBILEPA_SECRETS_TEST_KEY"
DOWN_TASK = "hw_basic_001"
SQLITE = b"SQLite format 3\x00"
GZIP = b"\x1f\x8b"


def _values(path: Path) -> Iterator[tuple[str, bytes]]:
    """Every value of every table of a SQLite file, as bytes (gzip blobs unpacked too)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        tables = [r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")]
        for table in tables:
            for row in conn.execute(f'select * from "{table}"'):
                for value in row:
                    data = value if isinstance(value, bytes) else str(value).encode("utf-8", "surrogatepass")
                    yield f"{path}:{table}", data
                    if data[:2] == GZIP:
                        yield f"{path}:{table}!gunzip", gzip.decompress(data)


def outputs(root: Path) -> Iterator[tuple[str, bytes]]:
    """Every file under ``root`` as bytes, plus unpacked gzip files and SQLite values."""
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        yield str(path), data
        if data[:2] == GZIP:
            yield f"{path}!gunzip", gzip.decompress(data)
        if data[:16] == SQLITE:
            yield from _values(path)


def test_the_api_key_appears_in_no_output(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    figures: Callable[[str], None],
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)  # anything written to the working directory is searched too
    caplog.set_level(logging.DEBUG)
    server = FaultyServer(TASKS, api_key=KEY, fail_tasks=frozenset({DOWN_TASK}), echo_auth=True)
    p = "planner.qwen3_8b"
    with ServerThread(server) as thread:
        code = sweep_main(
            [
                "planner=qwen3_8b",
                "split=handwritten",
                "seed=0",
                "condition=default",
                "unit_size=8",
                "name=secrets-test",
                "infra_retries=1",
                f"store={tmp_path / 'results.db'}",
                f"report_dir={tmp_path / 'report'}",
                f"tracking.uri=sqlite:///{tmp_path / 'mlflow.db'}",
                "cluster.processes=false",
                "cluster.n_workers=1",
                "cluster.threads_per_worker=2",
                f"{p}.base_url={thread.base_url}",
                f"{p}.api_key_env={KEY_ENV}",
                f"{p}.retries.max=1",
                f"{p}.retries.backoff_s=0.001",
                f"{p}.retries.max_backoff_s=0.01",
            ]
        )
    out, err = capfd.readouterr()

    # The key was really in play: sent on every request, and echoed back in the down task's errors.
    assert code == 1 and f"qwen3_8b/handwritten/default/0/{DOWN_TASK}" in out  # reported as infra_error
    assert set(server.stats.authorization) == {f"Bearer {KEY}"} and server.stats.requests > len(TASKS)
    assert server.faults["echoed"] >= 2
    store = ResultsStore(tmp_path / "results.db")
    try:
        [down] = store.rows(task_id=DOWN_TASK)
        assert down["termination"] == "infra_error" and "Bearer ***" in down["reasons"]  # redacted, not dropped
        assert store.count() == len(TASKS)
    finally:
        store.close()
    assert (tmp_path / "report" / "leaderboard.html").is_file() and (tmp_path / "mlflow.db").is_file()
    assert any((tmp_path / "mlartifacts").rglob("trajectories.jsonl.gz"))

    searched = {"files": 0, "values": 0, "bytes": 0}
    leaks = []
    for where, data in outputs(tmp_path):
        searched["values" if ":" in where.rsplit("/", 1)[-1] else "files"] += 1
        searched["bytes"] += len(data)
        if KEY.encode() in data:
            leaks.append(where)
    logs = caplog.text + "\n".join(f"{r.getMessage()} {r.args!r} {r.exc_text or ''}" for r in caplog.records)
    for where, text in (("stdout", out), ("stderr", err), ("logs", logs)):
        searched["bytes"] += len(text)
        if KEY in text:
            leaks.append(where)
    figures(
        f"SECRETS searched {searched['files']} files, {searched['values']} stored values, "
        f"{searched['bytes']:,} bytes, {len(caplog.records)} log records, stdout and stderr: "
        f"{len(leaks)} leaks; key sent on {server.stats.requests} requests, echoed back {server.faults['echoed']} times"
    )
    assert leaks == [], f"the API key leaked into {leaks}"
    assert searched["files"] >= 10 and searched["values"] > 1000


@pytest.mark.faults
def test_a_key_given_literally_is_masked_in_what_the_sweep_records() -> None:
    from experiments.results.secrets import redacted

    config = {
        "planner_overrides": {"qwen": ["planner.api_key=sk-literal-123", "planner.base_url=http://h/v1"]},
        "planner": {"api_key": "sk-literal-123", "api_key_env": "OPENAI_API_KEY", "token": None},
    }
    masked = redacted(config)
    assert "sk-literal-123" not in str(masked)
    assert masked["planner"] == {"api_key": "***", "api_key_env": "OPENAI_API_KEY", "token": None}
    assert masked["planner_overrides"]["qwen"] == ["planner.api_key=***", "planner.base_url=http://h/v1"]


def test_a_key_given_on_the_command_line_is_never_written_by_a_run(tmp_path: Path) -> None:
    """``mobilepa run … planner.api_key=<key>``: Hydra saves the config, the overrides and its own
    config before the job starts; none of them, nor anything the run writes, holds the key, which the
    job still sends (the server refuses a request without it). The down task's error bodies echo it."""
    server = FaultyServer(TASKS, api_key=KEY, fail_tasks=frozenset({DOWN_TASK}), echo_auth=True)
    run_dir = tmp_path / "run"
    with ServerThread(server) as thread:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "experiments.cli",
                "run",
                "planner=qwen3_8b",
                "split=handwritten",
                "condition=default",
                f"planner.base_url={thread.base_url}",
                f"planner.api_key={KEY}",
                "planner.retries.max=0",
                f"hydra.run.dir={run_dir}",
            ],
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            capture_output=True,
            text=True,
            timeout=240,
        )
    assert done.returncode == 1, done.stderr[-3000:]  # the down task's infra_error: the run exits 1 naming it
    assert f"first: {DOWN_TASK}" in done.stderr
    assert set(server.stats.authorization) == {f"Bearer {KEY}"} and server.faults["echoed"] >= 1

    saved = {p.name: p.read_text() for p in (run_dir / ".hydra").glob("*.yaml")}
    assert set(saved) == {"config.yaml", "hydra.yaml", "overrides.yaml"}
    interpolated = "planner.api_key=${oc.env:MOBILEPA_SECRET_PLANNER_API_KEY}"  # the job read the key from there
    assert interpolated in saved["overrides.yaml"] and interpolated in saved["hydra.yaml"]
    assert "override_dirname: condition=default,planner.api_key=***," in saved["hydra.yaml"]
    assert "api_key: ${oc.env:MOBILEPA_SECRET_PLANNER_API_KEY}" in saved["config.yaml"]
    leaks = [where for where, data in outputs(run_dir) if KEY.encode() in data]
    leaks += [name for name, text in (("stdout", done.stdout), ("stderr", done.stderr)) if KEY in text]
    assert leaks == [], f"the API key leaked into {leaks}"
    assert (run_dir / "results.json").is_file() and len(list(outputs(run_dir))) >= 6
