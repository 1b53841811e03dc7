"""The bench's process plumbing and its verdicts (its figures are measured by the command, not here)."""

from __future__ import annotations

import json
import multiprocessing
import sys

import pytest

from experiments.bench.figures import TARGETS, _next_from, machine, main, report, short_of_target

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
    with pytest.raises(TimeoutError, match=r"waited 0 s for the server.s port"):
        _next_from(source, {}, 0.2, "the server's port")


def test_short_of_target_names_each_missed_figure_with_its_bound() -> None:
    met = {key: bound for key, (_, bound) in TARGETS.items()}
    assert short_of_target(met) == []  # a figure exactly at its bound meets it
    missed = {**met, "llm_bound_efficiency": 0.85, "sweep_wall_s": 31.0}
    assert short_of_target(missed) == ["sweep_wall_s 31.0 (target <= 30)", "llm_bound_efficiency 0.85 (target >= 0.9)"]
    assert short_of_target({"reset_us": 12}) == []  # figures not measured (bench sandbox) are not misses


def test_bench_sandbox_ends_with_its_figures_as_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sandbox", "--split", "handwritten.jsonl", "--repeats", "1", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert figures["world_bytes"] >= 1_000_000 and figures["reset_us"] > 0 and figures["tool_calls"] > figures["tasks"]
    assert figures["overhead_vs_raw"] == pytest.approx(
        figures["raw_sqlite_calls_per_s"] / figures["tool_calls_per_s"], rel=0.01
    )
    assert "oracle_episodes_per_s" not in figures and "llm_bound_efficiency" not in figures
    assert isinstance(figures["short_of_target"], list)


def test_the_whole_bench_refuses_a_split_without_a_sweep_config_before_any_work() -> None:
    with pytest.raises(SystemExit) as refused:
        main(["--split", "mine.jsonl"])
    assert refused.value.code == 2


def test_the_report_prints_only_the_stages_that_ran(capsys: pytest.CaptureFixture[str]) -> None:
    """``mobilepa bench llm`` has no sandbox or sweep figures to print."""
    report(
        {
            "machine": machine(),
            "split": "full.jsonl",
            "tasks": 1705,
            "episodes": 1905,
            "llm_bound_efficiency": 0.897,
            "llm_bound_efficiency_passes": [0.905, 0.897, 0.889],
            "llm_bound_efficiency_cold": 0.8,
            "llm_episodes_per_s": 333.7,
            "llm_ideal_episodes_per_s": 372.0,
            "llm_client_cpu_ms_per_episode": 3.62,
            "llm_server_cpu_ms_per_episode": 0.7,
            "llm_cpu_ceiling_episodes_per_s": 461.9,
            "short_of_target": ["llm_bound_efficiency 0.897 (target >= 0.9)"],
        }
    )
    out = capsys.readouterr().out
    assert "the median of 3 passes: 0.905, 0.897, 0.889" in out and "short of target: llm_bound_efficiency" in out
    assert "episode reset" not in out and "sweep" not in out
