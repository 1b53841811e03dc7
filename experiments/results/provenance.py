"""Which code, data and configuration made a result: recorded in every ``results.json`` and store row,
so two numbers are only compared when they come from comparable runs."""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib.metadata
import json
import platform
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from verification import VERIFIER_VERSION

REPO = Path(__file__).resolve().parent.parent
LIBRARIES = (
    "mobilepa-bench",
    "numpy",
    "sqlalchemy",
    "pydantic",
    "hydra-core",
    "dask",
    "distributed",
    "mlflow",
    "aiohttp",
    "msgspec",
    "matplotlib",
    "vllm",
)


def now() -> str:
    """An aware UTC timestamp, ISO 8601."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def git_state(root: Path = REPO) -> dict[str, Any]:
    """Commit and whether tracked files differ from it; None for each when git or the checkout is absent
    (an installed package, a cluster node without git)."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {"commit": commit.strip() if commit else None, "dirty": None if status is None else bool(status.strip())}


def versions() -> dict[str, str]:
    """Python and the installed versions of the libraries a result depends on (absent ones left out)."""
    found = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


def provenance(
    *,
    task_file: Path,
    planner_config: Mapping[str, Any],
    started: str,
    ended: str | None,
    git: Mapping[str, Any] | None = None,
    task_sha256: str | None = None,
    found: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The provenance record; ``git``, ``task_sha256`` and ``found`` (``versions()``) may be given when the
    caller already has them (a sweep asks git and the installed versions once and hashes each task file
    once); ``ended`` None while the run is still going."""
    from experiments.results.secrets import redacted
    from experiments.results.store import file_sha256  # not at the top: the store imports run, which imports this

    found = dict(found if found is not None else versions())
    return {
        "git": dict(git if git is not None else git_state()),
        "package_version": found.get("mobilepa-bench"),
        "task_file": task_file.name,
        "task_file_sha256": task_sha256 or file_sha256(task_file),
        "verifier_version": VERIFIER_VERSION,
        "planner_config": redacted(dict(planner_config)),
        "versions": found,
        "started": started,
        "ended": ended,
    }


def provenance_id(record: Mapping[str, Any]) -> str:
    """A short content hash naming a record in the results store's ``provenance`` table (its rows refer to it)."""
    blob = json.dumps(record, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


BATCH_FLAGS = ("--max-num-seqs", "--max-num-batched-tokens")


def server_provenance(service: Any, planner_config: Mapping[str, Any]) -> dict[str, Any]:
    """What served a model, as far as it decides the replies: the vLLM version and the device its log
    names (``cluster.services.Service``), and how requests were batched: the server's batch flags (vLLM's
    defaults where not given) and the requests in flight the sweep allowed. A served model's replies at
    temperature 0 still vary with the batch they were computed in (docs/real-models.md)."""
    args = [str(a) for a in ((planner_config.get("vllm") or {}).get("serve_args") or [])]
    batch: dict[str, Any] = {}
    for flag in BATCH_FLAGS:
        given = [args[i + 1] for i, a in enumerate(args[:-1]) if a == flag]
        given += [a.partition("=")[2] for a in args if a.startswith(f"{flag}=")]
        batch[flag.lstrip("-").replace("-", "_")] = given[-1] if given else "vLLM's default"
    batch["requests_in_flight"] = planner_config.get("concurrency")
    return {"vllm_version": service.vllm_version, "device": service.device, "batch": batch}


def cell_provenance(
    cells: Sequence[Any],
    *,
    task_files: Mapping[str, tuple[Path, str]],
    started: str,
    sweep_key: str,
    servers: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, tuple[str, dict[str, Any]]]:
    """cell label -> (provenance id, record) for the cells of one sweep run (git and versions asked once);
    ``task_files``: split -> (task file path, sha256); ``servers``: planner -> ``server_provenance`` of the
    vLLM server the sweep started for it."""
    state, found = git_state(), versions()
    out = {}
    for cell in cells:
        path, sha = task_files[cell.split]
        record = {
            **provenance(
                task_file=path,
                planner_config=cell.planner_config,
                started=started,
                ended=None,
                git=state,
                task_sha256=sha,
                found=found,
            ),
            "sweep_key": sweep_key,
            "cell": cell.label,
            **({"server": dict(servers[cell.planner])} if servers and cell.planner in servers else {}),
        }
        out[cell.label] = (provenance_id(record), record)
    return out
