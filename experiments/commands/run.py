"""``mobilepa run``: the Hydra job. It reads the composed config into a one-cell plan (a mistake: one line,
exit 2), runs it (``experiments.execution.run``) and prints where results.json is (exit 1 when an episode
ended in ``infra_error``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from experiments.commands.config import CONF_PATH, RunConfigError
from experiments.commands.plans import run_plan
from experiments.execution.run import infra_message, run_job


@hydra.main(config_path=CONF_PATH, config_name="config", version_base="1.3")
def main(cfg: DictConfig) -> None:
    """The job; exits 2 on a config mistake, 1 when an episode ended in infra_error (the path still printed)."""
    try:
        plan = run_plan(cfg)
    except RunConfigError as exc:
        print(f"mobilepa run: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    path = run_job(plan, Path(HydraConfig.get().runtime.output_dir))
    message = infra_message(json.loads(path.read_text(encoding="utf-8")))
    if message:
        print(f"mobilepa run: {message}", file=sys.stderr, flush=True)
    print(path.resolve())
    if message:
        raise SystemExit(1)
