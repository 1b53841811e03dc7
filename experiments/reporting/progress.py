"""Progress on long work: episodes done, passed, unscorable, rate and ETA.

On a terminal a live bar; otherwise (a log file, CI, a pipe) one plain line every ``interval_s``
seconds (``MOBILEPA_PROGRESS_S``, default 30) and one at the end, so a long sweep's log shows it moving
and nothing is ever cut to the width of a terminal that is not there."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

DEFAULT_INTERVAL_S = 30.0


def interval_s() -> float:
    """Seconds between plain progress lines: ``MOBILEPA_PROGRESS_S`` or 30."""
    try:
        return max(0.1, float(os.environ.get("MOBILEPA_PROGRESS_S", DEFAULT_INTERVAL_S)))
    except ValueError:
        return DEFAULT_INTERVAL_S


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def speed(done: int, elapsed_s: float) -> str:
    """Episodes a second, or below one a second, a minute (``0.75 episodes/min``, never ``0.0 episodes/s``)."""
    rate = done / elapsed_s if elapsed_s > 0 else 0.0
    return f"{rate:.1f} episodes/s" if rate >= 1 or done == 0 else f"{60 * rate:.2f} episodes/min"


def progress_line(label: str, done: int, total: int, passed: int, errors: int, elapsed_s: float) -> str:
    """``label: 120/1905 episodes (6%), passed 118, errors 0, 4.0 episodes/s, elapsed 30 s, ETA 7 min 26 s``
    (below one episode a second, per minute: a slow model's ``0.75 episodes/min``, never ``0.0 episodes/s``)."""
    share = f" ({100 * done / total:.0f}%)" if total else ""
    rate = done / elapsed_s if elapsed_s > 0 else 0.0
    eta = _duration((total - done) / rate) if rate > 0 and done < total else ("–" if done < total else "0 s")
    return (
        f"{label}: {done}/{total} episodes{share}, passed {passed}, errors {errors}, {speed(done, elapsed_s)}, "
        f"elapsed {_duration(elapsed_s)}, ETA {eta}"
    )


@contextmanager
def episode_progress(
    total: int,
    label: str,
    *,
    interactive: bool | None = None,
    every_s: float | None = None,
    stream: TextIO | None = None,
) -> Iterator[Callable[[bool, bool], None]]:
    """Yield ``advance(passed, unscorable)``: a live bar on a terminal (``interactive``, default: stdout is
    one), else a plain line every ``every_s`` seconds while work goes on, and a last one when it ends."""
    interactive = sys.stdout.isatty() if interactive is None else interactive
    counts = {"passed": 0, "errors": 0}
    if interactive:
        progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("passed {task.fields[passed]} · errors {task.fields[errors]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            transient=False,
        )
        with progress:
            bar = progress.add_task(label, total=total, passed=0, errors=0)

            def advance_bar(passed: bool, unscorable: bool) -> None:
                counts["passed"] += passed
                counts["errors"] += unscorable
                progress.update(bar, advance=1, **counts)  # type: ignore[arg-type]  # task fields (rich's **fields)

            yield advance_bar
        return
    out = stream or sys.stdout
    state = {"done": 0}
    started = time.perf_counter()
    stop = threading.Event()
    lock = threading.Lock()

    def say() -> None:
        with lock:
            line = progress_line(
                label, state["done"], total, counts["passed"], counts["errors"], time.perf_counter() - started
            )
        print(line, file=out, flush=True)

    def tick() -> None:
        while not stop.wait(every_s if every_s is not None else interval_s()):
            say()

    def advance(passed: bool, unscorable: bool) -> None:
        with lock:
            state["done"] += 1
            counts["passed"] += passed
            counts["errors"] += unscorable

    ticker = threading.Thread(target=tick, name="progress-lines", daemon=True)
    ticker.start()
    try:
        yield advance
    finally:
        stop.set()
        ticker.join()
        say()
