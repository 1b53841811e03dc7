"""What a sweep runs: its cells (planner, split, condition, seed), their action-space variants, each
cell's settings and the sweep's identity."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.plan.selection import KEYS as SELECTION_KEYS
from experiments.plan.selection import describe as describe_selection
from sandbox.conditions import KNOWN, Variant, condition_label, split_label

if TYPE_CHECKING:
    from cluster.services import ServiceSpec  # not at run time: it imports Dask


CONDITIONS = KNOWN  # default, sor, mtsr: how skill tasks' initial action space is built (sandbox.conditions);
# a cell's condition may be refined by a retrieval variant or an ablation (``both.bm25-n10``)


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
"""The action-space axes (the retrieval studies and ablations): lists in ``conf/sweep.yaml`` under
``retrieval`` (and ``ablations``), crossed with every condition; a cell's condition is then refined
(``both.bm25-n10``, ``both.memory_off``)."""


AXIS_DEFAULTS: dict[str, list[Any]] = {"method": ["stored"], "top_n": [15], "repair": [True], "ablations": ["none"]}


def axis_lists(config: Mapping[str, Any]) -> dict[str, list[Any]]:
    """The action-space axes' lists (``AXIS_DEFAULTS`` where the config has none)."""
    retrieval: dict[str, Any] = config.get("retrieval") or {}
    return {
        axis: list((config if axis == "ablations" else retrieval).get(axis) or default)
        for axis, default in AXIS_DEFAULTS.items()
    }


def axes_text(config: Mapping[str, Any]) -> str:
    """The action-space axes a grid sets beyond their defaults, as the grid line adds them
    (" × retrieval.top_n 5,10")."""
    lists = axis_lists(config)
    return "".join(
        f" × {'' if axis == 'ablations' else 'retrieval.'}{axis} {','.join(map(str, lists[axis]))}"
        for axis, default in AXIS_DEFAULTS.items()
        if lists[axis] != default
    )


def refined_conditions(config: Mapping[str, Any]) -> list[str]:
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


def variants(config: Mapping[str, Any]) -> list[Variant]:
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


DEFAULT_STORE = Path("outputs") / "results.db"


@dataclass(frozen=True)
class Grid:
    """The lists a sweep crosses: planners × splits × conditions (each under every action-space variant)
    × seeds."""

    planners: tuple[str, ...]
    splits: tuple[str, ...]
    seeds: tuple[int, ...]
    conditions: tuple[str, ...]  # the skill conditions as given (``both``, ``sor``…)
    variants: tuple[Variant, ...] = (Variant(),)  # the retrieval variants and ablations


@dataclass(frozen=True)
class Work:
    """How the cells' episodes run: the step budget, how many at once, how they are cut into units and
    retried, and which function turns a planner config into a planner."""

    t_max: int
    concurrency: int  # episodes in flight per unit unless the planner config sets its own
    planner_factory: str = "planners:build_planner"
    unit_size: int = 128
    max_in_flight: int | None = None  # units submitted at once; None: 2 × the cluster's worker threads
    unit_attempts: int = 3
    infra_retries: int = 2
    allow_prompt_overflow: bool = False  # run episodes whose first request exceeds the model's context


@dataclass(frozen=True)
class Tracking:
    """MLflow: whether the sweep logs there, where, under which experiment, and how many traces per cell."""

    enabled: bool = False
    uri: str | None = None
    experiment: str | None = None  # None: the sweep's name
    trace_sample: int = 0


@dataclass(frozen=True)
class Plan:
    """A sweep (or a run, as a one-cell sweep) read once from its config and checked: every cell with its
    planner config composed, each cell's episode keys, each split's dataset hash, how the work runs, the
    cluster, MLflow, the store and the report folder. ``record`` is the resolved config as given, which
    the store keeps with the sweep so ``mobilepa report`` names it and ``report --sync`` reads it again."""

    name: str
    grid: Grid
    cells: tuple[Cell, ...]
    task_ids: Mapping[tuple[str, str], tuple[str, ...]]  # (split, condition) -> episode keys
    datasets: Mapping[str, tuple[str, str]]  # split -> (file, sha256)
    work: Work
    tracking: Tracking
    store: Path | None  # the results store; None: a run kept in its own folder only
    report_dir: Path
    cluster: Mapping[str, Any] = field(default_factory=dict)  # the cluster section, as ``cluster.dask_runner`` reads it
    services: tuple[ServiceSpec, ...] = ()  # vLLM servers to start (planners with base_url null)
    record: Mapping[str, Any] = field(default_factory=dict)

    @property
    def about(self) -> str:
        """One line saying which sweep this is: its name and grid (and a quick run's selection)."""
        return sweep_about(self.record)

    def served_by(self, urls: Mapping[str, str]) -> Plan:
        """The plan with the started servers' base URLs filled into the cells of the planners they serve."""
        return dataclasses.replace(
            self,
            cells=tuple(
                dataclasses.replace(c, planner_config={**c.planner_config, "base_url": urls[c.planner]})
                if c.planner in urls and c.planner_config.get("base_url") is None
                else c
                for c in self.cells
            ),
        )

    def with_record(self, **extra: Any) -> Plan:
        """The plan with ``extra`` in its record: when it was recorded, the servers it started, what they
        used (the store keeps the record, secrets masked, and MLflow logs it)."""
        return dataclasses.replace(self, record={**self.record, **extra})

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
            "planner_factory": self.work.planner_factory,
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
        grid = {k: self.record[k] for k in ("name", *GRID_KEYS.values())}
        grid.update({k: self.record[k] for k in SELECTION_KEYS if self.record.get(k) is not None})  # a quick run's own
        grid.update({k: v for k, v in axis_lists(self.record).items() if v != AXIS_DEFAULTS[k]})  # the study's axes
        blob = json.dumps([grid, self.datasets, [self.settings(c) for c in self.cells]], sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def default_name(config: Mapping[str, Any]) -> str:
    """A sweep's name when ``name=`` is not given: what it ran and a short hash of its whole grid,
    ``sweep-<planners>-<splits>-<hash>``, so two different sweeps of the same planners and splits (other
    seeds, conditions, axes or a quick run's selection) never share a name, an MLflow experiment or a
    report folder, and the same grid run again finds its own."""
    grid = {key: config.get(key) for key in (*GRID_KEYS.values(), *SELECTION_KEYS)}
    grid.update(axis_lists(config))
    digest = hashlib.sha256(json.dumps(grid, sort_keys=True, default=str).encode()).hexdigest()[:6]
    return "-".join(["sweep", "+".join(map(str, config["planners"])), "+".join(map(str, config["splits"])), digest])


def default_report_dir(store: str | Path, name: str) -> Path:
    """A report's folder when none is given: its own, by name, beside the results store it reads."""
    return Path(store).parent / "reports" / name.replace("/", "_")


def recorded_now() -> str:
    """When a sweep is recorded: UTC to the microsecond, so two sweeps recorded in one second, or on
    either side of a clock change, still order by when they ran (``latest_recorded``)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def recorded_time(config: Mapping[str, Any]) -> datetime:
    """A recorded sweep's ``recorded_at`` as a time to compare (older stores wrote local time to the
    second with its offset); unrecorded: the earliest time."""
    try:
        when = datetime.fromisoformat(str(config["recorded_at"]))
    except (KeyError, ValueError):
        return datetime.min.replace(tzinfo=UTC)
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def sweep_about(config: Mapping[str, Any]) -> str:
    """One line saying which sweep a report is about: its name and grid (and a quick run's selection)."""
    grid = " × ".join(f"{key} {','.join(map(str, config[key]))}" for key in GRID_KEYS.values()) + axes_text(config)
    chosen = describe_selection(config)
    when = f", {config['recorded_at']}" if config.get("recorded_at") else ""
    return f"sweep {config['name']} ({grid}{' ' + chosen if chosen else ''}{when})"
