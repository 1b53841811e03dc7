"""Where ``mobilepa view`` reads episodes: run folders or a results store, as rows shaped alike (the
store's columns, the episode's id, its failure cause), each row's trajectory read only when shown;
the filters of the listing and the lookup of the episode a KEY names."""

from __future__ import annotations

import difflib
import gzip
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from experiments.analysis.stats import primary_cause
from experiments.results.store import ResultsStore, trajectory_json
from sandbox.episode import FORMAT_ERROR_STEP

DEFAULT_STORE = Path("outputs") / "results.db"
DEFAULT_RUNS = Path("outputs") / "run"
VERDICTS = ("pass", "fail", "unscorable")
ID_PARTS = ("planner", "split", "condition", "seed", "key")  # an episode's id: oracle/mini/both/0/<key>
COLUMNS = (
    "planner",
    "split",
    "condition",
    "seed",
    "key",
    "verdict",
    "cause",
    "category",
    "bucket",
    "termination",
    "steps",
    "tokens",
    "latency_s",
    "reason",
)
"""The listing's columns, in the terminal and in the HTML index; ``cause``: the failure cause of the taxonomy."""
NUMERIC = frozenset({"seed", "steps", "tokens", "latency_s"})


class ViewError(ValueError):
    """The command names no readable source or no single episode; the message says what to give."""


def episode_id(row: dict[str, Any]) -> str:
    return "/".join(str(row[k]) for k in ID_PARTS)


def _finished(row: dict[str, Any]) -> dict[str, Any]:
    """The row with its id and its failure cause (``experiments.analysis.stats.primary_cause``; None for a
    pass), which needs only what the row holds: the ErrorTypes met, the format errors, the reasons."""
    row["id"] = episode_id(row)
    row["cause"] = primary_cause({**row, "errors": list(row["error_kinds"])})
    return row


def _usage(steps: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Token, latency and error totals of a trajectory's steps, as the store keeps them per row."""
    prompt = [s["planner"]["prompt_tokens"] for s in steps if s["planner"].get("prompt_tokens") is not None]
    completion = [s["planner"]["completion_tokens"] for s in steps if s["planner"].get("completion_tokens") is not None]
    cached = [
        s["planner"]["cached_prompt_tokens"] for s in steps if s["planner"].get("cached_prompt_tokens") is not None
    ]
    return {
        "prompt_tokens": sum(prompt) if prompt else None,
        "completion_tokens": sum(completion) if completion else None,
        "planner_latency_s": round(sum(s["planner"].get("planner_latency_s", 0.0) for s in steps), 6),
        "cached_prompt_tokens": sum(cached) if cached else None,
        "format_errors": sum(s["name"] == FORMAT_ERROR_STEP for s in steps),
        "error_kinds": dict(Counter(s["envelope"]["ErrorType"] for s in steps if s["envelope"].get("ErrorType"))),
    }


def tokens(row: dict[str, Any]) -> str:
    """prompt+completion tokens of an episode ('-' when the planner reported none)."""
    if row.get("prompt_tokens") is None and row.get("completion_tokens") is None:
        return "-"
    return f"{row.get('prompt_tokens') or 0}+{row.get('completion_tokens') or 0}"


def row_cells(row: dict[str, Any]) -> dict[str, str]:
    """A row's value in each of ``COLUMNS``, as text (the reason: its first)."""
    return {
        "planner": row["planner"],
        "split": row["split"],
        "condition": row["condition"],
        "seed": str(row["seed"]),
        "key": row["key"],
        "verdict": row["verdict"],
        "cause": row["cause"] or "",
        "category": row["category"],
        "bucket": row["bucket"],
        "termination": row["termination"],
        "steps": str(row["steps"]),
        "tokens": tokens(row),
        "latency_s": f"{row['planner_latency_s']:.3f}",
        "reason": row["reasons"][0] if row["reasons"] else "",
    }


def shared(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The run's key columns that every row has the same value in (said once, above a listing)."""
    return {k: rows[0][k] for k in ("planner", "split", "condition", "seed") if len({r[k] for r in rows}) == 1}


def tally(rows: Sequence[dict[str, Any]]) -> str:
    counts = Counter(r["verdict"] for r in rows)
    return f"{len(rows)} episode(s): " + ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])


class Source(Protocol):
    label: str

    def rows(self) -> list[dict[str, Any]]: ...

    def trajectory(self, row: dict[str, Any]) -> dict[str, Any]: ...

    def close(self) -> None: ...


class RunSource:
    """The run folders (``results.json``, ``episodes.jsonl``, ``trajectories.jsonl.gz``) at or below a
    folder. Where two runs hold the same episode id, the newer ``results.json`` wins, as a re-run
    replaces a row in the store."""

    def __init__(self, root: Path) -> None:
        self.label = str(root)
        folders = sorted(
            {p.parent for p in root.rglob("episodes.jsonl")} if root.is_dir() else set(),
            key=lambda d: (d / "results.json").stat().st_mtime if (d / "results.json").exists() else 0,
        )
        if not folders:
            raise ViewError(f"no run folder (episodes.jsonl) at or below {root}")
        self._rows: dict[str, dict[str, Any]] = {}
        self._trajectories: dict[str, dict[str, Any]] = {}
        for folder in folders:
            for row, trajectory in self._read(folder):
                self._rows[row["id"]] = row
                self._trajectories[row["id"]] = trajectory

    @staticmethod
    def _read(folder: Path) -> Iterable[tuple[dict[str, Any], dict[str, Any]]]:
        """Rows shaped like the store's; run_job writes both files in key order, so line i of one is line i
        of the other."""
        results = folder / "results.json"
        if not results.is_file():
            raise ViewError(f"{folder}: no results.json (the run did not finish)")
        doc = json.loads(results.read_text(encoding="utf-8"))
        episodes = [json.loads(line) for line in (folder / "episodes.jsonl").read_text(encoding="utf-8").splitlines()]
        with gzip.open(folder / "trajectories.jsonl.gz", "rt", encoding="utf-8") as fh:
            trajectories = [json.loads(line) for line in fh]
        if len(episodes) != len(trajectories):
            raise ViewError(f"{folder}: {len(episodes)} episodes but {len(trajectories)} trajectories")
        dataset = (doc.get("provenance") or {}).get("task_file_sha256")
        for episode, trajectory in zip(episodes, trajectories, strict=True):
            if episode["task_id"].partition("@")[0] != trajectory["task_id"]:
                raise ViewError(
                    f"{folder}: episodes.jsonl and trajectories.jsonl.gz are out of step at {episode['task_id']}"
                )
            verdict = "unscorable" if not episode["scorable"] else "pass" if episode["passed"] else "fail"
            row = {
                **episode,
                "planner": doc["planner"],
                "split": doc["split"],
                "seed": doc["seed"],
                "condition": doc["condition"],
                "key": episode["task_id"],
                "task_id": trajectory["task_id"],
                "verdict": verdict,
                "dataset_hash": dataset,
                "run": str(folder),
                **_usage(trajectory["steps"]),
            }
            yield _finished(row), trajectory

    def rows(self) -> list[dict[str, Any]]:
        return sorted(self._rows.values(), key=lambda r: tuple(r[k] for k in ID_PARTS))

    def trajectory(self, row: dict[str, Any]) -> dict[str, Any]:
        return self._trajectories[row["id"]]

    def close(self) -> None:
        """Nothing is held open: the folders were read whole."""


class StoreSource:
    """A results store; rows are read without trajectories, and one trajectory at a time when shown."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise ViewError(f"no results store at {path}")
        self.label = str(path)
        self.store = ResultsStore(path)

    def rows(self) -> list[dict[str, Any]]:
        # the store's task_id column holds the episode key (<task_id>@<condition> for a task run twice)
        return [
            _finished(
                {
                    **row,
                    "key": row["task_id"],
                    "task_id": row["task_id"].partition("@")[0],
                    "reasons": json.loads(row["reasons"]),
                    "error_kinds": json.loads(row["error_kinds"]),
                }
            )
            for row in self.store.rows()
        ]

    def trajectory(self, row: dict[str, Any]) -> dict[str, Any]:
        [stored] = self.store.rows(
            with_trajectories=True,
            planner=row["planner"],
            split=row["split"],
            condition=row["condition"],
            seed=row["seed"],
            task_id=row["key"],
        )
        return json.loads(trajectory_json(stored))

    def close(self) -> None:
        self.store.close()


def open_source(run: Path | None, store: Path | None) -> Source:
    """The source named, else the default store, else the default runs folder."""
    if run is not None:
        return RunSource(run)
    if store is not None:
        return StoreSource(store)
    if DEFAULT_STORE.is_file():
        return StoreSource(DEFAULT_STORE)
    if DEFAULT_RUNS.is_dir():
        return RunSource(DEFAULT_RUNS)
    raise ViewError(f"no {DEFAULT_STORE} or {DEFAULT_RUNS}: give --run DIR or --store PATH")


@dataclass(frozen=True)
class Filters:
    planner: str | None = None
    split: str | None = None
    condition: str | None = None
    seed: int | None = None
    verdict: str | None = None
    category: str | None = None
    termination: str | None = None
    cause: str | None = None  # the failure cause of the taxonomy
    reason: str | None = None  # a substring of any reason, case-insensitive

    def match(self, row: dict[str, Any]) -> bool:
        for name in ("planner", "split", "condition", "seed", "verdict", "category", "termination", "cause"):
            wanted = getattr(self, name)
            if wanted is not None and row[name] != wanted:
                return False
        return self.reason is None or any(self.reason.lower() in r.lower() for r in row["reasons"])


def find_episode(rows: Sequence[dict[str, Any]], key: str) -> dict[str, Any]:
    """The one row a KEY names: a full id (planner/split/condition/seed/key), an episode key, or a task id
    (both conditions of a skill task then match, and the message lists them)."""
    matches = [r for r in rows if key in (r["id"], r["key"])] or [r for r in rows if r["task_id"] == key]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        near = difflib.get_close_matches(key, sorted({r["key"] for r in rows}), n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise ViewError(f"no episode {key!r} among {len(rows)} matching the filters{hint}")
    listed = ", ".join(r["id"] for r in matches[:8]) + (", …" if len(matches) > 8 else "")
    raise ViewError(
        f"{len(matches)} episodes match {key!r}: {listed}; give one id (two ids: side by side), or narrow with "
        "--planner, --split, --condition or --seed"
    )
