"""Every command through the failures a user causes or meets: a corrupt store (or file), a missing
file, a read-only folder and a full disk. Each ends with one line naming the command and the problem,
exit 2 for what the user gave and 1 for the machine, never a traceback on the console; a traceback
goes to mobilepa.log.

The read-only folder and the full disk are real where this process may mount (root): a tmpfs mounted
read-only, and a tmpfs filled to its last byte (ENOSPC), so SQLite and Python meet the same errors as on
a user's disk. Elsewhere the folder is made read-only by its mode and a full disk is the file-size limit
(``ulimit -f`` 0: EFBIG, "database or disk is full" for SQLite), set around the command."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import shutil
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

import pytest

from experiments import cli
from experiments.episodes.loop import run_many
from experiments.results.store import ResultsStore, episode_record, file_sha256
from planners import NoopPlanner, OraclePlanner
from sandbox.suite import TASK_DIR, load_split
from sandbox.tasks import dump_task

pytestmark = pytest.mark.faults

TASKS = load_split("handwritten.jsonl")
PLAYED = "hw_basic_003"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The oracle and noop on the hand-written split, stored as a sweep stores them."""
    path = tmp_path_factory.mktemp("store") / "results.db"
    results = ResultsStore(path)
    sha256 = file_sha256(TASK_DIR / "handwritten.jsonl")
    results.check_dataset("handwritten", "handwritten.jsonl", sha256)
    for name, planner in (("oracle", OraclePlanner()), ("noop", NoopPlanner())):

        async def episodes(planner: OraclePlanner | NoopPlanner = planner) -> list:
            return [r async for r in run_many(TASKS, planner, condition="both")]

        results.upsert(
            [
                episode_record(r, planner=name, split="handwritten", condition="both", seed=0, dataset_hash=sha256)
                for r in asyncio.run(episodes())
            ]
        )
    results.close()
    return path


def _mount(folder: Path, options: str) -> bool:
    """A tmpfs on ``folder``; False where this process may not mount."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True)
    return done.returncode == 0


def _unmount(folder: Path) -> None:
    subprocess.run(["umount", "-l", str(folder)], capture_output=True)


@contextmanager
def read_only(folder: Path, holding: list[Path]) -> Iterator[Path]:
    """``folder`` holding copies of ``holding``, then read-only."""
    folder.mkdir()
    mounted = _mount(folder, "size=8m")
    for path in holding:
        shutil.copy(path, folder / path.name)
    if mounted:
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
    else:
        folder.chmod(0o555)
    try:
        yield folder
    finally:
        if mounted:
            _unmount(folder)
        else:
            folder.chmod(0o755)


@contextmanager
def full_disk(folder: Path, holding: list[Path]) -> Iterator[Callable[[], AbstractContextManager[None]]]:
    """``folder`` holding copies of ``holding`` on a disk with no byte left; yields the context to run
    the command in (the file-size limit, where no tmpfs could be mounted)."""
    folder.mkdir()
    size = sum(p.stat().st_size for p in holding) + 64 * 1024
    mounted = _mount(folder, f"size={size}")
    for path in holding:
        shutil.copy(path, folder / path.name)
    if not mounted:
        yield _file_size_limit
        return
    try:
        with (folder / ".filler").open("wb", buffering=0) as filler:  # every byte left
            try:
                while filler.write(b"\0" * 512):
                    pass
            except OSError:
                pass
        yield nullcontext
    finally:
        _unmount(folder)


@contextmanager
def _file_size_limit() -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def _command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str], expected: int
) -> str:
    """Run ``mobilepa <args>``; assert the exit code and one line on stderr naming the command, no
    traceback anywhere on the console; the line."""
    monkeypatch.setattr("sys.argv", ["mobilepa"])
    monkeypatch.setattr("sys.stdin", open(os.devnull))  # noqa: SIM115  # play reads its actions from a file
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "Error executing job" not in err, out + err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == expected and len(lines) == 1 and lines[0].startswith(f"mobilepa {args[0]}: "), (code, out, err)
    if "traceback in " in lines[0]:
        log = Path(lines[0].rpartition("traceback in ")[2].rstrip(")"))
        assert "Traceback (most recent call last)" in (log if log.is_absolute() else Path.cwd() / log).read_text()
    return lines[0]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory of the test's own (the default log folder, outputs/, lies there)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _sweep(store: Path, report: Path) -> list[str]:
    return ["sweep", "planner=oracle", "split=handwritten", "tracking=none", f"store={store}", f"report_dir={report}"]


def _run(*extra: object) -> list[str]:
    return ["run", "planner=oracle", "limit=2", *map(str, extra)]


def _play(actions: Path, *extra: object) -> list[str]:
    return ["play", PLAYED, "--split", "handwritten", "--actions", str(actions), *map(str, extra)]


def _gold(path: Path) -> Path:
    (task,) = [t for t in TASKS if t.task_id == PLAYED]
    path.write_text("".join(json.dumps(a.model_dump()) + "\n" for a in task.gold), encoding="utf-8")
    return path


def test_a_corrupt_store_or_file_is_one_line_exit_2(
    here: Path, store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    garbage = here / "garbage.db"
    garbage.write_bytes(os.urandom(8192))
    at_sign = here / "at.jsonl"  # a task id an episode key cannot hold
    at_sign.write_text(dump_task(TASKS[0].model_copy(update={"task_id": "hw@basic"})) + "\n", encoding="utf-8")
    binary = here / "actions.jsonl"
    binary.write_bytes(b"\xff\xfe" + os.urandom(500))
    cases = [
        (["view", "--store", garbage], "not a database"),
        (["compare", "oracle", "noop", "--store", garbage], "not a database"),
        (["rescore", "--store", garbage], "not a database"),
        (["report", "--store", garbage, "--out", here / "r"], "not a database"),
        (_sweep(garbage, here / "r"), "not a database"),
        (_run(f"store={garbage}", f"hydra.run.dir={here / 'run1'}"), "not a database"),
        (_run(f"split.file={at_sign}", f"hydra.run.dir={here / 'run2'}"), "task hw@basic: field task_id"),
        (_play(binary), "not a text file of actions"),
    ]
    for args, needle in cases:
        assert needle in _command(monkeypatch, capsys, args, 2), args
    assert not (here / "run1" / "episodes.jsonl").exists()  # refused before any episode ran


def test_a_missing_file_is_one_line_exit_2(
    here: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = here / "missing.db"
    cases = [
        (["view", "--store", missing], f"no results store at {missing}"),
        (["view", "--run", here / "no-runs"], "no-runs"),
        (["compare", "oracle", "noop", "--store", missing], f"no results store at {missing}"),
        (["rescore", "--store", missing], f"no results store at {missing}"),
        (["report", "--store", missing], f"no results store at {missing}"),
        (["sweep", "--config-dir", here / "no-conf", "planner=oracle"], "no folder"),
        (_run(f"split.file={here / 'no.jsonl'}", f"hydra.run.dir={here / 'run'}"), "no.jsonl' not found"),
        (["play", PLAYED, "--split", "no_such_split"], "unknown split 'no_such_split'"),
    ]
    for args, needle in cases:
        assert needle in _command(monkeypatch, capsys, args, 2), args
    assert not missing.exists()


def test_a_read_only_folder_is_one_line_exit_2(
    here: Path, store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = _gold(here / "gold.jsonl")
    with read_only(here / "locked", [store]) as locked:
        cases = [
            (["view", "--store", store, "--html", locked / "pages"], str(locked / "pages")),
            (["compare", "oracle", "noop", "--store", store, "--out", locked / "compare"], str(locked / "compare")),
            (["rescore", "--store", locked / store.name], str(locked / store.name)),
            (["report", "--store", store, "--out", locked / "report"], str(locked / "report")),
            (_sweep(locked / "new.db", here / "report"), str(locked / "new.db")),
            (_run(f"hydra.run.dir={locked / 'run'}"), f"hydra.run.dir {locked / 'run'}"),
            (_play(gold, "--save", locked / "played.jsonl"), str(locked / "played.jsonl")),
        ]
        for args, needle in cases:
            assert needle in _command(monkeypatch, capsys, args, 2), args


def test_a_full_disk_is_one_line_exit_1(
    here: Path, store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = _gold(here / "gold.jsonl")
    stale = here / store.name  # one verdict the verifier now judges otherwise: rescore has a row to write
    shutil.copy(store, stale)
    with sqlite3.connect(stale) as db:
        db.execute("UPDATE episodes SET verdict = 'fail' WHERE planner = 'oracle' AND task_id = ?", [PLAYED])
    with full_disk(here / "full", [stale]) as context:
        full = here / "full"
        cases = [
            ["view", "--store", store, "--html", full / "pages"],
            ["compare", "oracle", "noop", "--store", store, "--out", full / "compare"],
            ["rescore", "--store", full / store.name],
            ["report", "--store", store, "--out", full / "report"],
            _sweep(full / "new.db", full / "report"),
            _run(f"hydra.run.dir={full / 'run'}"),
            _play(gold, "--save", full / "played.jsonl"),
        ]
        for args in cases:
            with context():
                line = _command(monkeypatch, capsys, args, 1)
            assert any(w in line for w in ("No space left", "too large", "disk is full", "disk I/O")), line
