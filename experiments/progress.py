"""Progress on long work: episodes done, passed, unscorable, elapsed and ETA."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


@contextmanager
def episode_progress(total: int, label: str) -> Iterator[Callable[[bool, bool], None]]:
    """Yield ``advance(passed, unscorable)``; renders a live bar on a terminal, nothing in CI logs."""
    counts = {"passed": 0, "errors": 0}
    progress = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("passed {task.fields[passed]} · errors {task.fields[errors]}"),
        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), transient=False,
    )
    with progress:
        bar = progress.add_task(label, total=total, passed=0, errors=0)

        def advance(passed: bool, unscorable: bool) -> None:
            counts["passed"] += passed
            counts["errors"] += unscorable
            progress.update(bar, advance=1, **counts)

        yield advance
