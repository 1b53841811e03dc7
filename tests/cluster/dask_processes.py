"""A Dask scheduler as a process of its own, for the tests that kill processes of a cluster."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO

DASK = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "dask"


def start_scheduler(folder: Path, env: Mapping[str, str], log: IO[str]) -> tuple[subprocess.Popen[bytes], str]:
    """``dask scheduler`` on a port it binds itself (a port picked beforehand could be taken by another
    process before the scheduler, seconds later, binds it); its process and its address once it listens,
    read from the scheduler file it writes then (a hang guard of 120 s)."""
    info = folder / "scheduler.json"
    scheduler = subprocess.Popen(
        [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(info)],
        env=env,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while scheduler.poll() is None and time.monotonic() < deadline:
        try:
            return scheduler, str(json.loads(info.read_text())["address"])
        except (FileNotFoundError, ValueError, KeyError):  # not written yet, or half written
            time.sleep(0.05)
    scheduler.kill()
    scheduler.wait()
    raise AssertionError(f"the Dask scheduler did not start (exit code {scheduler.returncode}); its log: {log.name}")
