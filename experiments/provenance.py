"""Which code, data and configuration made a result: recorded in every ``results.json`` and store row,
so two numbers are only compared when they come from comparable runs (issue 19)."""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib.metadata
import platform
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from verification import VERIFIER_VERSION

REPO = Path(__file__).resolve().parent.parent
LIBRARIES = ("mobilepa-bench", "numpy", "sqlalchemy", "pydantic", "hydra-core", "dask", "distributed", "mlflow",
             "aiohttp", "msgspec", "matplotlib", "vllm")


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


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def provenance(*, task_file: Path, planner_config: Mapping[str, Any], started: str, ended: str,
               git: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The provenance record; ``git`` may be given when the caller already asked (a sweep asks once)."""
    from experiments.sweep import redacted

    return {
        "git": dict(git if git is not None else git_state()), "package_version": versions().get("mobilepa-bench"),
        "task_file": task_file.name, "task_file_sha256": sha256_of(task_file), "verifier_version": VERIFIER_VERSION,
        "planner_config": redacted(dict(planner_config)), "versions": versions(), "started": started, "ended": ended,
    }
