"""What a sweep runs: its cells (planner, split, condition, seed), their action-space variants, each
cell's settings and the sweep's identity."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from experiments.plan.selection import KEYS as SELECTION_KEYS
from sandbox.conditions import KNOWN, Variant, condition_label, split_label

if TYPE_CHECKING:
    from cluster.services import ServiceSpec  # not at run time: it imports Dask


CONDITIONS = KNOWN  # default, sor, mtsr: how skill tasks' initial action space is built (sandbox.conditions);


@dataclass(frozen=True)
class Cell:
    """One (planner, split, condition, seed) of the grid, with everything a worker needs to run it."""

    planner: str
    split: str
    condition: str
    seed: int
    planner_config: Mapping[str, Any]
    split_file: str
    categories: tuple[str, ...] | None
    subset: str | None
    dataset_hash: str
    concurrency: int
    t_max: int
    retrieval_model: str | None = None  # a dense retrieval variant's local model folder

    @property
    def label(self) -> str:
        return f"{self.planner}/{self.split}/{self.condition}/seed{self.seed}"


GRID_KEYS = {"planner": "planners", "split": "splits", "seed": "seeds", "condition": "conditions"}


AXIS_KEYS = {
    "retrieval.method": "method",
    "retrieval.top_n": "top_n",
    "retrieval.repair": "repair",
    "ablation": "ablations",
}
"""The action-space axes (issue 19's retrieval studies and ablations): lists in ``conf/sweep.yaml`` under
``retrieval`` (and ``ablations``), crossed with every condition; a cell's condition is then refined
(``both.bm25-n10``, ``both.memory_off``)."""


AXIS_DEFAULTS: dict[str, list[Any]] = {"method": ["stored"], "top_n": [15], "repair": [True], "ablations": ["none"]}


def axis_lists(config: dict[str, Any]) -> dict[str, list[Any]]:
    """The action-space axes' lists (``AXIS_DEFAULTS`` where the config has none)."""
    retrieval: dict[str, Any] = config.get("retrieval") or {}
    return {
        axis: list((config if axis == "ablations" else retrieval).get(axis) or default)
        for axis, default in AXIS_DEFAULTS.items()
    }


def axes_text(config: dict[str, Any]) -> str:
    """The action-space axes a grid sets beyond their defaults, as the grid line adds them
    (" × retrieval.top_n 5,10")."""
    lists = axis_lists(config)
    return "".join(
        f" × {'' if axis == 'ablations' else 'retrieval.'}{axis} {','.join(map(str, lists[axis]))}"
        for axis, default in AXIS_DEFAULTS.items()
        if lists[axis] != default
    )


def refined_conditions(config: dict[str, Any]) -> list[str]:
    """The condition labels of a (recorded) sweep's cells: each condition under each action-space variant
    (a dense variant whose model folder is gone since is still named by its label)."""
    try:
        found = variants(config)
    except SweepConfigError:
        lists = axis_lists(config)
        found = [
            Variant(str(m), int(n), bool(r), str(a))
            for m in lists["method"]
            for n in lists["top_n"]
            for r in lists["repair"]
            for a in lists["ablations"]
        ]
    return [condition_label(str(c), v) for c in config["conditions"] for v in found]


def variants(config: dict[str, Any]) -> list[Variant]:
    """Every action-space variant of the grid, checked (one line naming the key), each once."""
    retrieval = config.get("retrieval") or {}
    for axis, key in (
        ("method", "retrieval.method"),
        ("top_n", "retrieval.top_n"),
        ("repair", "retrieval.repair"),
        ("ablations", "ablations"),
    ):
        value = (config if axis == "ablations" else retrieval).get(axis)
        if (value is not None and not isinstance(value, list)) or value == []:
            raise SweepConfigError(f"{key}: a non-empty list is required, got {value!r}")
    lists = axis_lists(config)
    found: list[Variant] = []
    for method in lists["method"]:
        for top_n in lists["top_n"]:
            for repair in lists["repair"]:
                for ablation in lists["ablations"]:
                    try:
                        variant = Variant.from_config(
                            {
                                "method": method,
                                "top_n": top_n,
                                "repair": repair,
                                "model_path": retrieval.get("model_path"),
                            },
                            ablation,
                        )
                    except ValueError as exc:
                        raise SweepConfigError(str(exc)) from None
                    if variant not in found:
                        found.append(variant)
    return found


class SweepConfigError(ValueError):
    """The sweep cannot start; the message names the offending key."""


OPERATIONAL_KEYS = frozenset(
    {"base_url", "api_key", "api_key_env", "concurrency", "timeouts", "retries", "price", "rate_limits"}
)
"""Planner keys that say how its endpoint is reached (or what its tokens cost), not what an episode's result
is: pointing a planner at another server, retrying it differently or pricing it keeps its stored results."""


LATER_KEYS = frozenset({"reasoning_effort", "drop_params"})


LATER_SAMPLING_KEYS = frozenset({"max_completion_tokens"})
"""Planner keys added after stores were first written: left out of a cell's settings while null (not sent),
so cells stored before them keep matching."""


OPERATIONAL_VLLM_KEYS = frozenset(
    {"gpus", "python", "module", "env", "log_dir", "startup_timeout_s", "stop_timeout_s", "poll_interval_s"}
)


@dataclass
class Plan:
    """The validated grid: its cells, each cell's task ids, and each split's dataset hash."""

    cells: list[Cell]
    task_ids: dict[tuple[str, str], list[str]]  # (split, condition) -> episode keys
    datasets: dict[str, tuple[str, str]]  # split -> (file, sha256)
    config: dict[str, Any]
    services: list[ServiceSpec] = field(default_factory=list)  # vLLM servers to start (planners with base_url null)

    def settings(self, cell: Cell) -> dict[str, Any]:
        """What decides a cell's results beyond its key: T_max, the condition (how a skill task's action
        space is retrieved), the planner factory and the planner's config (model, sampling, limits, the
        server's parser and arguments...), without the keys that only say how its endpoint is reached
        (``OPERATIONAL_KEYS``). The store keeps them per cell and refuses to mix results of others."""
        planner = {k: v for k, v in cell.planner_config.items() if k not in OPERATIONAL_KEYS}
        planner = {k: v for k, v in planner.items() if not (k in LATER_KEYS and v is None)}
        if isinstance(planner.get("sampling"), dict):
            planner["sampling"] = {
                k: v for k, v in planner["sampling"].items() if not (k in LATER_SAMPLING_KEYS and v is None)
            }
        if isinstance(planner.get("vllm"), dict):
            planner["vllm"] = {k: v for k, v in planner["vllm"].items() if k not in OPERATIONAL_VLLM_KEYS}
        settings = {
            "t_max": cell.t_max,
            "condition": cell.condition,
            "planner_factory": str(self.config["planner_factory"]),
            "planner": planner,
        }
        variant = split_label(cell.condition, cell.retrieval_model)[1]
        if variant.label:  # a retrieval variant or an ablation (absent for the stored A0: older stores match)
            settings["action_space"] = variant.settings()
        return settings

    @property
    def sweep_key(self) -> str:
        """Identity of the sweep (name, grid, data and each cell's settings), so a re-run logs into the
        same MLflow runs and a sweep with other settings into its own."""
        grid = {k: self.config[k] for k in ("name", *GRID_KEYS.values())}
        grid.update({k: self.config[k] for k in SELECTION_KEYS if self.config.get(k) is not None})  # a quick run's own
        grid.update({k: v for k, v in axis_lists(self.config).items() if v != AXIS_DEFAULTS[k]})  # the study's axes
        blob = json.dumps([grid, self.datasets, [self.settings(c) for c in self.cells]], sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]
