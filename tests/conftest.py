"""Suite-wide settings that make the verdict depend on the code alone, and the ``figures`` fixture.

- Hypothesis runs the ``ci`` profile unless ``HYPOTHESIS_PROFILE`` names another: derandomised (the
  same examples on every machine and run) with no examples database. ``make test-random`` runs the
  ``random`` profile: fresh examples, remembered in its database. Hypothesis's folder (caches, that
  database) lies in the system's temp folder, never in the checkout.
- The run fails when it leaves the checkout different from how it found it (``git status``, ignored
  files included, caches aside): tests write into ``tmp_path``, never into tracked files or ``outputs/``.
- ``figures``: the reliability fault tests (``-m faults``) report what they measured; the lines are
  printed at once (visible with ``-s``) and again in a "reliability figures" section at the end.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir

# Hypothesis's own caches and the random profile's examples database: outside the checkout.
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "mobilepa-hypothesis")
# No deadline and no too-slow health check in either profile: run and generation times follow the
# machine's load, and a verdict must not.
untimed = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", untimed, derandomize=True, database=None, print_blob=True)
settings.register_profile("random", untimed, derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
# Written by the tools that run the suite, not by the tests.
CACHES = ("__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".venv", ".coverage")
_CHECKOUT_BEFORE: set[str] | None = None
_WROTE = pytest.StashKey[list[str]]()

_FIGURES: list[str] = []


@pytest.fixture
def figures(request: pytest.FixtureRequest) -> Callable[[str], None]:
    def record(line: str) -> None:
        print(f"\n{line}")
        _FIGURES.append(f"{request.node.nodeid}: {line}")

    return record


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    wrote = terminalreporter.config.stash.get(_WROTE, [])
    if wrote:
        terminalreporter.section("the tests changed the checkout", red=True)
        for line in wrote[:50]:
            terminalreporter.write_line(line)
    if _FIGURES:
        terminalreporter.section("reliability figures")
        for line in _FIGURES:
            terminalreporter.write_line(line)


def _checkout_state() -> set[str] | None:
    """``git status`` of the checkout with ignored files, caches left out; None outside a git checkout."""
    try:
        listed = subprocess.run(
            ["git", "status", "--porcelain", "--ignored", "--untracked-files=all"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return {line for line in listed.splitlines() if not any(part in CACHES for part in Path(line[3:]).parts)}


def pytest_sessionstart(session: pytest.Session) -> None:
    global _CHECKOUT_BEFORE
    _CHECKOUT_BEFORE = _checkout_state()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    after = _checkout_state()
    if _CHECKOUT_BEFORE is None or after is None or after == _CHECKOUT_BEFORE:
        return
    changed = sorted(after ^ _CHECKOUT_BEFORE)
    session.config.stash[_WROTE] = changed
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
