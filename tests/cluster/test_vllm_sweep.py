"""``make test-vllm-sweep``: the open-model sweep path end to end, with a real vLLM on the CPU.

``mobilepa sweep`` as a user runs it, in its own process: a model config whose ``base_url`` is null
(``qwen2_5_7b``, pointed at the tiny random-weight model), every key set without ``+``, a local
cluster whose one worker declares ``GPU``. The sweep must start the vLLM service (saying so, with
its log), run the split, score every episode (the tiny model's noise as format errors, conversations
that outgrow its small context as ``context_overflow``, first prompts beyond it, which the pre-flight
counts and is told to allow, as ``prompt_overflow``; no infra error), log to MLflow, print the
leaderboard, stop the service, and leave no vLLM process behind. Needs VLLM_PYTHON (the .venv-vllm
python) and TINY_MODEL (``python -m experiments.bench.tiny_model``), as ``make test-vllm-sweep`` sets them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from experiments.results.store import ResultsStore

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[2]
PLANNER = "qwen2_5_7b"
EPISODES = 34  # the hand-written split under the default conditions (both): skill tasks twice
MAX_MODEL_LEN = 12288  # the tiny model's context (its tokenizer is near character level: first prompts 7k-15k tokens)


def vllm_processes(python: str) -> list[str]:
    """Live processes started from the vLLM venv's interpreter (the server and its engine workers)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if argv and argv[0].decode(errors="replace") == python and state != "Z":
            found.append(f"{proc.name}: {b' '.join(argv).decode(errors='replace')[:200]}")
    return found


def sweep_on_one_gpu_worker(tmp_path: Path, args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """``mobilepa sweep`` in its own process as a user runs it, on a local cluster of one worker declaring
    ``GPU``, its store, report and MLflow under ``tmp_path`` (``env``: more environment variables)."""
    where = [
        "cluster.resources={GPU:1}",
        "cluster.n_workers=1",
        f"store={tmp_path / 'results.db'}",
        f"report_dir={tmp_path / 'report'}",
        f"tracking.uri=sqlite:///{tmp_path / 'mlflow.db'}",
    ]
    own = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    return subprocess.run(
        [sys.executable, "-m", "experiments.cli", "sweep", *args, *where],
        cwd=tmp_path,
        env={**own, "PYTHONPATH": str(REPO), **env},
        capture_output=True,
        text=True,
        timeout=1700,
    )


def test_the_sweep_starts_vllm_scores_every_episode_and_stops_it(tmp_path: Path) -> None:
    python, model = os.environ.get("VLLM_PYTHON", ""), os.environ.get("TINY_MODEL", "")
    if not python or not model:
        pytest.skip("set VLLM_PYTHON and TINY_MODEL (make test-vllm-sweep does)")
    assert vllm_processes(python) == [], "a vLLM process is running already"
    p = f"planner.{PLANNER}"
    label = f"{PLANNER}:{Path(model).name}"  # results are named after the model the command line chose
    args = [
        f"planner={PLANNER}",
        "split=handwritten",
        "seed=0",
        "t_max=6",
        "name=test-vllm-sweep",
        f"{p}.model={model}",
        f"{p}.vllm.python={python}",
        f"{p}.vllm.serve_args=[--enforce-eager,--max-model-len,'{MAX_MODEL_LEN}']",
        f"{p}.vllm.env={{VLLM_CPU_KVCACHE_SPACE:'1'}}",
        f"{p}.vllm.startup_timeout_s=600",
        f"{p}.concurrency=8",
        f"{p}.sampling.max_tokens=48",
        f"{p}.timeouts.total=300",
        "allow_prompt_overflow=true",  # the tiny tokenizer's first prompts pass its context: run them as such
    ]
    done = sweep_on_one_gpu_worker(tmp_path, args)
    out = done.stdout
    assert done.returncode == 0, f"{done.stderr[-4000:]}\n{out[-4000:]}"

    # the service: said when it started (model, worker, log) and when it was ready, its log kept
    started = re.search(
        rf"vLLM for {re.escape(label)}: starting {re.escape(model)} on worker (\S+) \(GPU 0\); log (\S+)", out
    )
    assert started is not None, out
    ready = re.search(
        rf"vLLM for {re.escape(label)}: ready in (\d+\.\d) s at (http://127\.0\.0\.1:\d+/v1) \(log (\S+)\)", out
    )
    assert ready is not None and ready.group(3) == started.group(2) and out.index(started.group(0)) < ready.start()
    log = Path(ready.group(3))
    assert log.parent == tmp_path / "vllm" and "Application startup complete" in log.read_text(errors="replace")

    # every episode scored: noise as format errors, outgrown conversations as context_overflow
    store = ResultsStore(tmp_path / "results.db")
    try:
        rows = store.rows()
    finally:
        store.close()
    assert len(rows) == EPISODES and all(r["scorable"] for r in rows)
    terminations = {r["termination"] for r in rows}
    assert "infra_error" not in terminations
    assert terminations <= {"finished", "truncated", "context_overflow", "prompt_overflow"}
    assert sum(r["format_errors"] for r in rows) > 0, "the tiny model's replies are noise"
    overflowed = [r for r in rows if r["termination"] in ("context_overflow", "prompt_overflow")]
    assert overflowed and all(not r["passed"] and "overflow: " in r["reasons"] for r in overflowed)
    budget = re.search(
        rf"prompt budget of {re.escape(label)}: {EPISODES} first requests, .* (\d+) cannot fit(?:; (\d+) leave less)?",
        out,
    )
    assert budget is not None, out
    cannot, tight = int(budget.group(1)), int(budget.group(2) or 0)  # tight: a first reply the context may cut
    assert cannot <= sum(r["termination"] == "prompt_overflow" for r in rows) <= cannot + tight

    # MLflow and the leaderboard
    mlflow = MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    experiment = mlflow.get_experiment_by_name("test-vllm-sweep")
    [child] = [r for r in mlflow.search_runs([experiment.experiment_id]) if r.data.tags.get("mobilepa_cell")]
    assert child.data.params["base_url"] == ready.group(2) and child.data.metrics["episodes"] == EPISODES
    metrics = child.data.metrics
    assert metrics.get("termination/context_overflow", 0) + metrics.get("termination/prompt_overflow", 0) == len(
        overflowed
    )
    assert "Leaderboard" in out and PLANNER in out and (tmp_path / "report" / "leaderboard.html").is_file()
    assert f"vLLM server for {label}: {ready.group(2)}" in out and "stopped" in out
    assert {r["planner"] for r in rows} == {label}

    # no vLLM process outlives the sweep
    assert vllm_processes(python) == []
    print(
        f"\nVLLM SWEEP {len(rows)} episodes: "
        f"{sorted((t, sum(r['termination'] == t for r in rows)) for t in terminations)}, "
        f"{sum(r['format_errors'] for r in rows)} format errors, ready in {ready.group(1)} s"
    )
