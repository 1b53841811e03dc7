"""The results store: one SQLite row per episode key, so a re-run or a resumed sweep never counts twice.

Only the sweep driver writes here (workers return records); the key is
(planner, split, condition, seed, task_id). An ``infra_error`` row is kept for diagnosis but is not
*finished*: the next sweep over the same keys runs it again. What else decides a cell's results (its
settings: T_max, the condition, the planner's config) is recorded per cell, and a sweep with other
settings for a stored cell is refused, as is one over another version of a task file. Any failure of
the store itself (not a database, damaged, a full disk) is one ``StoreError`` line naming its path.
"""

from __future__ import annotations

import datetime as dt
import functools
import gzip
import hashlib
import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    event,
    func,
    select,
)
from sqlalchemy.dialects.sqlite import insert
from sqlalchemy.exc import SQLAlchemyError

from experiments.episodes.loop import EpisodeResult
from experiments.results.secrets import redacted
from sandbox.episode import FORMAT_ERROR_STEP
from sandbox.tasks import Task
from verification import VERIFIER_VERSION
from verification.verify import Verdict

KEY_COLUMNS = ("planner", "split", "condition", "seed", "task_id")
metadata = MetaData()
episodes = Table(
    "episodes",
    metadata,
    Column("planner", String, primary_key=True),
    Column("split", String, primary_key=True),
    Column("condition", String, primary_key=True),
    Column("seed", Integer, primary_key=True),
    Column("task_id", String, primary_key=True),
    Column("category", String, nullable=False),
    Column("domain", String, nullable=False),
    Column("l2", String, nullable=False),
    Column("bucket", String, nullable=False),
    Column("verdict", String, nullable=False),  # pass | fail | unscorable
    Column("passed", Boolean, nullable=False),
    Column("checker_passed", Boolean, nullable=False),
    Column("memory_gate", Boolean),
    Column("skill_gate", Boolean),
    Column("scorable", Boolean, nullable=False),
    Column("reasons", Text, nullable=False),
    Column("termination", String, nullable=False),
    Column("steps", Integer, nullable=False),
    Column("format_errors", Integer, nullable=False),
    Column("error_kinds", Text, nullable=False),
    Column("prompt_tokens", Integer),
    Column("completion_tokens", Integer),
    Column("planner_latency_s", Float, nullable=False),
    Column("wall_s", Float, nullable=False),
    Column("dataset_hash", String, nullable=False),
    Column("trajectory", LargeBinary, nullable=False),
    # Added later (null in rows stored before): the verifier that judged the row, and what of its task the
    # episode ran on, so ``mobilepa rescore`` knows whether the trajectory can be judged by the task's checks now.
    Column("verifier_version", String),
    Column("task_hash", String),
    # Prompt tokens the server served from its cache, when and by what the row was made
    # (``provenance_id`` names a record of the ``provenance`` table, one per cell and sweep run).
    Column("cached_prompt_tokens", Integer),
    Column("started_at", String),
    Column("ended_at", String),
    Column("provenance_id", String),
)
ADDED_COLUMNS = {
    "verifier_version": "VARCHAR",
    "task_hash": "VARCHAR",
    "cached_prompt_tokens": "INTEGER",
    "started_at": "VARCHAR",
    "ended_at": "VARCHAR",
    "provenance_id": "VARCHAR",
}
datasets = Table(
    "datasets",
    metadata,
    Column("split", String, primary_key=True),
    Column("file", String, nullable=False),
    Column("sha256", String, nullable=False),
)

# What made the rows that name it (``episodes.provenance_id``): git commit and dirty flag, package, verifier
# and library versions, the task file's sha256, the planner config (redacted), the sweep's start and end,
# stored once per cell and sweep run rather than in every row; ``gpu_s``: the GPU-seconds of the vLLM server
# the sweep started, this cell's share (null: no server started for it).
provenance = Table(
    "provenance",
    metadata,
    Column("provenance_id", String, primary_key=True),
    Column("record", Text, nullable=False),
    Column("gpu_s", Float),
)

# Every sweep that wrote here, with its resolved config, and whether MLflow has its results yet.
sweeps = Table(
    "sweeps",
    metadata,
    Column("sweep_key", String, primary_key=True),
    Column("config", Text, nullable=False),
    Column("logged", Boolean, nullable=False),
)

# What decided each cell's results beyond its key (T_max, the condition, the planner's config...): a
# sweep whose settings differ for a cell already stored is refused, so results are never mixed.
cells = Table(
    "cells",
    metadata,
    Column("planner", String, primary_key=True),
    Column("split", String, primary_key=True),
    Column("condition", String, primary_key=True),
    Column("seed", Integer, primary_key=True),
    Column("fingerprint", String, nullable=False),
    Column("settings", Text, nullable=False),
)

Key = tuple[str, str, str, int, str]
CellKey = tuple[str, str, str, int]
T = TypeVar("T")


def _upsert() -> Any:
    """INSERT ... ON CONFLICT (key) DO UPDATE every other column: built once (building it cost the
    sweep driver more than running it, for every unit that came back)."""
    stmt = insert(episodes)
    return stmt.on_conflict_do_update(
        index_elements=[episodes.c[k] for k in KEY_COLUMNS],
        set_={c.name: stmt.excluded[c.name] for c in episodes.columns if c.name not in KEY_COLUMNS},
    )


_UPSERT = _upsert()


class DatasetMismatch(RuntimeError):
    """The store was filled from another version of a task file: mixing them would compare unlike runs."""

    exit_code = 2  # the store or task file given


class SettingsMismatch(RuntimeError):
    """The store holds a cell run with other settings (``t_max``, the planner's sampling...): mixing
    them under one key would score unlike runs together."""

    exit_code = 2  # the store or settings given


class StoreError(RuntimeError):
    """The results store cannot be opened, read or written (not a database, damaged, a full disk, an
    unwritable or missing folder); the message is one line naming the path. ``exit_code``: 1 when the
    machine failed (a full disk), 2 when the store or folder given cannot be used."""

    def __init__(self, message: str, *, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def _store_error(path: Path, exc: BaseException) -> StoreError:
    """One line for what went wrong with the store at ``path``, with what to do where there is something."""
    orig = getattr(exc, "orig", None) or exc
    why = str(orig).splitlines()[0] if str(orig) else type(orig).__name__
    if isinstance(orig, OSError) and orig.strerror:
        why = orig.strerror
    hint, code = "", 2
    if any(w in why for w in ("not a database", "malformed", "corrupt")):
        hint = "; it is not a sound results store: move it aside (or use store=<another path>) and run again"
    elif any(w in why for w in ("disk is full", "too large", "No space", "disk I/O")):
        code = 1
        hint = (
            " (a full disk, a file-size limit or a failing disk); what was stored before is kept: "
            "free space and run again to finish the missing keys"
        )
    elif "readonly" in why or "Permission" in why or "unable to open" in why:
        hint = "; check that its folder exists and is writable"
    return StoreError(f"results store {path}: {why}{hint}", exit_code=code)


def prepare_store_folder(path: Path) -> None:
    """Make the store's folder, or say in one line why it cannot be (the sweep's log file lives there too,
    so this runs before anything is written)."""
    if path.exists() and not path.is_file():
        raise StoreError(f"results store {path}: not a file")
    if (blocker := file_in_the_way(path)) is not None:
        raise StoreError(f"results store {path}: {blocker} is a file, not a folder")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"results store {path}: cannot create its folder {path.parent} ({exc.strerror or exc})"
        ) from None


def file_in_the_way(path: Path) -> Path | None:
    """The nearest existing ancestor of ``path`` when it is a file, not a folder (then ``path`` cannot be made)."""
    existing = next((p for p in path.parents if p.exists()), None)
    return existing if existing is not None and not existing.is_dir() else None


def _fingerprint(settings_json: str) -> str:
    return hashlib.sha256(settings_json.encode()).hexdigest()


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in _flat(item, f"{prefix}{key}.").items()}
    return {prefix.rstrip("."): value}


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


EPISODE_FIELDS = frozenset(
    {
        "query",
        "history",
        "initial_state",
        "candidate_tools",
        "candidate_skills",
        "user_script",
        "events",
        "required_skill_id",
    }
)
"""What of a task an episode runs on; the rest (its check, bucket, gates, tags) only judges it, so a stored
trajectory may be judged again by the task's current checks while these are unchanged."""
GOLD_PLANNERS = frozenset({"oracle", "noisy_oracle"})  # planner kinds whose episodes replay the task's gold


def episode_fingerprint(task: Task, *, with_gold: bool) -> str:
    """A hash of what of ``task`` an episode runs on (the gold too for planners that replay it)."""
    fields = task.model_dump(mode="json", include=set(EPISODE_FIELDS | ({"gold"} if with_gold else set())))
    fields["sor_skills"] = task.tags.get("sor_skills")  # decides a skill task's action space under sor
    return hashlib.sha256(json.dumps(fields, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def episode_record(
    result: EpisodeResult,
    *,
    planner: str,
    split: str,
    condition: str,
    seed: int,
    dataset_hash: str,
    task_hash: str | None = None,
    provenance_id: str | None = None,
    ended: dt.datetime | None = None,
) -> dict[str, Any]:
    """A store row from one episode; built on the worker as the episode ends, so only this small record
    travels back (``ended``: when it ended, if the record is built later)."""
    row = episode_row(result)
    steps = result.trajectory.steps
    kinds = Counter(s.envelope.get("ErrorType") for s in steps if s.envelope.get("ErrorType"))
    prompt = [s.planner.get("prompt_tokens") for s in steps if s.planner.get("prompt_tokens") is not None]
    completion = [s.planner.get("completion_tokens") for s in steps if s.planner.get("completion_tokens") is not None]
    cached = [s.planner.get("cached_prompt_tokens") for s in steps if s.planner.get("cached_prompt_tokens") is not None]
    ended = ended or dt.datetime.now(dt.UTC)  # the worker's clock
    trajectory = json.dumps(result.trajectory.to_json(), ensure_ascii=False, sort_keys=True, default=str)
    verdict = "unscorable" if not row["scorable"] else "pass" if row["passed"] else "fail"
    return {
        **{
            k: row[k]
            for k in (
                "task_id",
                "category",
                "domain",
                "l2",
                "bucket",
                "passed",
                "checker_passed",
                "memory_gate",
                "skill_gate",
                "scorable",
                "termination",
                "steps",
                "wall_s",
            )
        },
        "planner": planner,
        "split": split,
        "condition": condition,
        "seed": seed,
        "verdict": verdict,
        "reasons": json.dumps(row["reasons"]),
        "error_kinds": json.dumps(dict(sorted(kinds.items()))),
        "format_errors": sum(s.name == FORMAT_ERROR_STEP for s in steps),
        "prompt_tokens": sum(prompt) if prompt else None,
        "completion_tokens": sum(completion) if completion else None,
        "planner_latency_s": round(sum(s.planner.get("planner_latency_s", 0.0) for s in steps), 6),
        "dataset_hash": dataset_hash,
        "trajectory": gzip.compress(trajectory.encode("utf-8")),
        "verifier_version": VERIFIER_VERSION,
        "task_hash": task_hash,
        "cached_prompt_tokens": sum(cached) if cached else None,
        "started_at": (ended - dt.timedelta(seconds=result.wall_s)).isoformat(timespec="milliseconds"),
        "ended_at": ended.isoformat(timespec="milliseconds"),
        "provenance_id": provenance_id,
    }


def record_key(row: dict[str, Any]) -> Key:
    return tuple(row[k] for k in KEY_COLUMNS)


def record_verdict(row: dict[str, Any]) -> Verdict:
    """The Verdict a stored row came from, so scoring reuses ``verification.scoring.summarise``."""
    return Verdict(
        row["task_id"],
        row["category"],
        row["bucket"],
        row["passed"],
        row["checker_passed"],
        row["memory_gate"],
        row["skill_gate"],
        tuple(json.loads(row["reasons"])),
        row["termination"],
        scorable=row["scorable"],
    )


def trajectory_json(row: dict[str, Any]) -> str:
    return gzip.decompress(row["trajectory"]).decode("utf-8")


def _guarded(method: Callable[..., T]) -> Callable[..., T]:
    """Any database or file-system failure of a store method becomes one ``StoreError`` line naming the path."""

    @functools.wraps(method)
    def guarded(self: ResultsStore, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except (SQLAlchemyError, sqlite3.Error, OSError) as exc:
            raise _store_error(self.path, exc) from None

    return guarded


@dataclass
class ResultsStore:
    """SQLite via SQLAlchemy Core; one writer (the driver). Opening it reads its schema and counts its
    rows, so a file that is not a sound store is refused before any work."""

    path: Path

    def __post_init__(self) -> None:
        prepare_store_folder(self.path)
        self.engine = create_engine(f"sqlite:///{self.path}")
        event.listen(self.engine, "connect", lambda conn, _: conn.execute("PRAGMA busy_timeout = 30000"))
        self._open()

    @_guarded
    def _open(self) -> None:
        metadata.create_all(self.engine)
        with self.engine.begin() as conn:
            have = {row[1] for row in conn.exec_driver_sql("PRAGMA table_info(episodes)")}
            for name, kind in ADDED_COLUMNS.items():  # a store from before they were added
                if name not in have:
                    conn.exec_driver_sql(f"ALTER TABLE episodes ADD COLUMN {name} {kind}")
            conn.execute(select(func.count()).select_from(episodes)).scalar_one()

    @_guarded
    def check_dataset(self, split: str, file: str, sha256: str) -> None:
        """Record the split's task-file hash, or refuse when the store holds another version of it."""
        with self.engine.begin() as conn:
            known = conn.execute(select(datasets).where(datasets.c.split == split)).mappings().first()
            if known is None:
                conn.execute(datasets.insert().values(split=split, file=file, sha256=sha256))
            elif known["sha256"] != sha256:
                raise DatasetMismatch(
                    f"results store {self.path} holds split {split!r} from {known['file']} with sha256 "
                    f"{known['sha256'][:12]}…, but the task file now hashes to {sha256[:12]}…; "
                    f"use another store (store=<path>) or delete {self.path}"
                )

    @_guarded
    def check_settings(self, wanted: Mapping[CellKey, dict[str, Any]]) -> None:
        """Record each cell's settings, or refuse (before recording any) when the store holds a cell run
        with other settings, naming the cell and what differs. Cells stored before settings were
        recorded take these as theirs; so does a cell with other settings but no episode stored yet."""
        blobs = {key: json.dumps(value, sort_keys=True, default=str) for key, value in wanted.items()}
        with self.engine.begin() as conn:
            known = {
                tuple(r[:4]): (r[4], r[5])
                for r in conn.execute(
                    select(*(cells.c[k] for k in ("planner", "split", "condition", "seed", "fingerprint", "settings")))
                )
            }
            stored = {tuple(r) for r in conn.execute(select(*(episodes.c[k] for k in KEY_COLUMNS[:4])).distinct())}
            for key in [k for k in known if k not in stored]:  # settings of a sweep that stored nothing: not binding
                conn.execute(cells.delete().where(*(cells.c[c] == v for c, v in zip(KEY_COLUMNS[:4], key))))
                del known[key]
            for key, blob in blobs.items():
                if key in known and known[key][0] != _fingerprint(blob):
                    before, now = _flat(json.loads(known[key][1])), _flat(json.loads(blob))
                    diffs = [
                        f"{k}: stored {before.get(k, '(unset)')!r}, now {now.get(k, '(unset)')!r}"
                        for k in sorted(set(before) | set(now))
                        if before.get(k) != now.get(k)
                    ]
                    planner, split, condition, seed = key
                    raise SettingsMismatch(
                        f"results store {self.path} holds {planner}/{split}/{condition}/seed{seed} run with other "
                        f"settings ({'; '.join(diffs[:3])}{'; …' if len(diffs) > 3 else ''}); results of different "
                        "settings are never mixed: run with the stored settings, or use another store (store=<path>)"
                    )
            new = [
                {
                    "planner": k[0],
                    "split": k[1],
                    "condition": k[2],
                    "seed": k[3],
                    "fingerprint": _fingerprint(b),
                    "settings": b,
                }
                for k, b in blobs.items()
                if k not in known
            ]
            if new:
                conn.execute(cells.insert(), new)

    @_guarded
    def datasets(self) -> dict[str, tuple[str, str]]:
        """split -> (task file, sha256) the store's rows were run on."""
        with self.engine.connect() as conn:
            return {split: (file, sha) for split, file, sha in conn.execute(select(datasets))}

    @_guarded
    def cell_settings(self) -> dict[CellKey, dict[str, Any]]:
        with self.engine.connect() as conn:
            return {
                tuple(r[:4]): json.loads(r[4])
                for r in conn.execute(
                    select(
                        *(
                            cells.c[k]
                            for k in (
                                "planner",
                                "split",
                                "condition",
                                "seed",
                                "settings",
                            )
                        )
                    )
                )
            }

    @_guarded
    def rejudge(
        self, split: str, file: str, sha256: str, verdicts: Sequence[dict[str, Any]], drop: Sequence[Key] = ()
    ) -> None:
        """In one transaction: rows' verdict columns (and dataset hash) replaced by key, the ``drop`` keys
        deleted, and the split recorded as run on ``file`` at ``sha256`` (what its rows now agree with)."""
        judged = (
            "verdict",
            "passed",
            "checker_passed",
            "memory_gate",
            "skill_gate",
            "scorable",
            "reasons",
            "verifier_version",
            "dataset_hash",
        )
        where = [episodes.c[k] == bindparam(f"k_{k}") for k in KEY_COLUMNS]
        with self.engine.begin() as conn:
            if verdicts:
                conn.execute(
                    episodes.update().where(*where).values({k: bindparam(f"v_{k}") for k in judged}),
                    [{**{f"k_{k}": v[k] for k in KEY_COLUMNS}, **{f"v_{k}": v[k] for k in judged}} for v in verdicts],
                )
            for key in drop:
                conn.execute(episodes.delete().where(*(episodes.c[k] == v for k, v in zip(KEY_COLUMNS, key))))
            conn.execute(datasets.update().where(datasets.c.split == split).values(file=file, sha256=sha256))

    @_guarded
    def record_provenance(self, records: Mapping[str, dict[str, Any]]) -> None:
        """Store provenance records by id (``provenance_id``); an id already stored is kept as it is."""
        if not records:
            return
        stmt = insert(provenance).on_conflict_do_nothing(index_elements=[provenance.c.provenance_id])
        with self.engine.begin() as conn:
            conn.execute(
                stmt,
                [
                    {"provenance_id": k, "record": json.dumps(v, sort_keys=True, default=str)}
                    for k, v in records.items()
                ],
            )

    @_guarded
    def finish_provenance(self, ended: str, ids: Sequence[str], gpu_s: Mapping[str, float] | None = None) -> None:
        """Set the end time of the sweep run behind ``ids`` and, per id, the GPU-seconds it used."""
        with self.engine.begin() as conn:
            for pid in ids:
                found = conn.execute(select(provenance.c.record).where(provenance.c.provenance_id == pid)).first()
                if found is None:
                    continue
                record = {**json.loads(found[0]), "ended": ended}
                values: dict[str, Any] = {"record": json.dumps(record, sort_keys=True, default=str)}
                if gpu_s is not None and pid in gpu_s:
                    values["gpu_s"] = gpu_s[pid]
                conn.execute(provenance.update().where(provenance.c.provenance_id == pid).values(values))

    @_guarded
    def provenance(self, ids: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
        """provenance_id -> its record, with ``gpu_s`` (None when no server was started for it)."""
        query = select(provenance)
        if ids is not None:
            query = query.where(provenance.c.provenance_id.in_(sorted(set(ids))))
        with self.engine.connect() as conn:
            return {pid: {**json.loads(record), "gpu_s": gpu} for pid, record, gpu in conn.execute(query)}

    @_guarded
    def recorded_sweeps(self) -> list[tuple[str, dict[str, Any]]]:
        """Every sweep that wrote here, with its config."""
        with self.engine.connect() as conn:
            return [
                (key, json.loads(config))
                for key, config in conn.execute(
                    select(sweeps.c.sweep_key, sweeps.c.config).order_by(sweeps.c.sweep_key)
                )
            ]

    @_guarded
    def record_sweep(self, sweep_key: str, config: dict[str, Any], *, tracked: bool = True) -> None:
        """Remember the sweep, so ``mobilepa report`` finds its episodes and, when ``tracked``, ``mobilepa
        report --sync`` can log it to MLflow later (not yet logged); an untracked sweep waits for no logging
        (a sweep already waiting keeps waiting). Its secrets are masked here, so none reaches the file."""
        stmt = insert(sweeps).values(
            sweep_key=sweep_key, config=json.dumps(redacted(config), sort_keys=True, default=str), logged=not tracked
        )
        update = {"config": stmt.excluded.config, **({"logged": False} if tracked else {})}
        with self.engine.begin() as conn:
            conn.execute(stmt.on_conflict_do_update(index_elements=[sweeps.c.sweep_key], set_=update))

    @_guarded
    def mark_logged(self, sweep_key: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(sweeps.update().where(sweeps.c.sweep_key == sweep_key).values(logged=True))

    @_guarded
    def unlogged_sweeps(self) -> list[tuple[str, dict[str, Any]]]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(sweeps.c.sweep_key, sweeps.c.config)
                .where(sweeps.c.logged.is_(False))
                .order_by(sweeps.c.sweep_key)
            )
            return [(key, json.loads(config)) for key, config in rows]

    @_guarded
    def finished_keys(self) -> set[Key]:
        """Keys that need no further run: every row except infrastructure errors."""
        cols = [episodes.c[k] for k in KEY_COLUMNS]
        with self.engine.connect() as conn:
            rows = conn.execute(select(*cols).where(episodes.c.termination != "infra_error"))
            return {tuple(r) for r in rows}

    @_guarded
    def upsert(self, rows: Sequence[dict[str, Any]]) -> None:
        """Write rows by key; a row for an existing key replaces it (a retried infra error), never adds."""
        if not rows:
            return
        with self.engine.begin() as conn:
            conn.execute(_UPSERT, list(rows))

    @_guarded
    def rows(self, *, with_trajectories: bool = False, **where: Any) -> list[dict[str, Any]]:
        """Rows ordered by key, filtered by equality on key columns (e.g. ``planner="oracle"``)."""
        cols = [c for c in episodes.columns if with_trajectories or c.name != "trajectory"]
        query = select(*cols).order_by(*[episodes.c[k] for k in KEY_COLUMNS])
        for name, value in where.items():
            query = query.where(episodes.c[name] == value)
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(query).mappings()]

    @_guarded
    def count(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(episodes)).scalar_one())

    def close(self) -> None:
        self.engine.dispose()


def episode_row(r: EpisodeResult) -> dict[str, Any]:
    v = r.verdict
    return {
        "task_id": r.key or r.task.task_id,
        "condition": r.condition,
        "category": r.task.category,
        "domain": r.task.domain,
        "l2": r.task.l2,
        "bucket": r.task.bucket,
        "passed": v.passed,
        "checker_passed": v.checker_passed,
        "memory_gate": v.memory_gate,
        "skill_gate": v.skill_gate,
        "scorable": v.scorable,
        "reasons": list(v.reasons),
        "termination": r.trajectory.termination,
        "steps": len(r.trajectory.steps),
        "wall_s": round(r.wall_s, 6),
    }


_FINGERPRINTS: dict[tuple[int, bool], tuple[Task, str]] = {}  # the task is kept, so its id is never reused


def task_fingerprint(task: Task, with_gold: bool) -> str:
    """``episode_fingerprint`` once per task object and process, not once per episode."""
    key = (id(task), with_gold)
    if key not in _FINGERPRINTS:
        _FINGERPRINTS[key] = (task, episode_fingerprint(task, with_gold=with_gold))
    return _FINGERPRINTS[key][1]
