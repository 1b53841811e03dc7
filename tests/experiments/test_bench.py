"""The bench's process plumbing and its verdicts (its figures are measured by the command, not here)."""

from __future__ import annotations

import multiprocessing
import sys

import pytest

from experiments.bench import TARGETS, _next_from, short_of_target

SPAWN = multiprocessing.get_context("spawn")


def test_a_crashed_bench_process_is_named_at_once_not_after_the_timeout() -> None:
    source = SPAWN.Queue()
    crashed = SPAWN.Process(target=sys.exit, args=(3,))
    crashed.start()
    crashed.join(30)
    with pytest.raises(RuntimeError, match=r"LLM client 1 \(exit code 3\) exited while the bench waited for pass 0"):
        _next_from(source, {"LLM client 1": crashed}, 20, "pass 0")  # a TimeoutError: it waited the time out


def test_a_process_that_finished_cleanly_still_delivers_what_it_put() -> None:
    source = SPAWN.Queue()
    done = SPAWN.Process(target=source.put, args=({"episodes": 7},))
    done.start()
    done.join(30)
    assert done.exitcode == 0
    assert _next_from(source, {"LLM client 0": done}, 30, "pass 0") == {"episodes": 7}


def test_a_live_process_that_sends_nothing_times_out_with_what_was_awaited() -> None:
    source = SPAWN.Queue()
    with pytest.raises(TimeoutError, match="waited 0 s for the server.s port"):
        _next_from(source, {}, 0.2, "the server's port")


def test_short_of_target_names_each_missed_figure_with_its_bound() -> None:
    met = {key: bound for key, (_, bound) in TARGETS.items()}
    assert short_of_target(met) == []  # a figure exactly at its bound meets it
    missed = {**met, "llm_bound_efficiency": 0.85, "sweep_wall_s": 31.0}
    assert short_of_target(missed) == ["sweep_wall_s 31.0 (target <= 30)", "llm_bound_efficiency 0.85 (target >= 0.9)"]
    assert short_of_target({"reset_us": 12}) == []  # figures not measured (bench sandbox) are not misses
