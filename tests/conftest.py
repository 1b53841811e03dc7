"""Suite-wide: the ``figures`` fixture, with which the reliability fault tests (``-m faults``) report what
they measured; the lines are printed at once (visible with ``-s``) and again in a "reliability
figures" section at the end of the run (README "Reliability" quotes them)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

_FIGURES: list[str] = []


@pytest.fixture
def figures(request: pytest.FixtureRequest) -> Callable[[str], None]:
    def record(line: str) -> None:
        print(f"\n{line}")
        _FIGURES.append(f"{request.node.nodeid}: {line}")

    return record


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _FIGURES:
        terminalreporter.section("reliability figures")
        for line in _FIGURES:
            terminalreporter.write_line(line)
