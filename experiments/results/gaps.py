"""The keys of a plan a results store lacks after a sweep, and the store rows that are the plan's own."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from experiments.plan.model import Plan
from experiments.results.store import record_key


@dataclass(frozen=True)
class Gap:
    """A cell's keys without a usable result after the sweep: how many, why, and the planner's endpoint."""

    cell: str  # planner/split/condition/seed<n>
    planned: int
    infra_errors: int  # stored as infra_error after every retry
    not_run: int  # no row at all: a unit reported after its attempts, or a lost cluster
    endpoint: str | None  # the OpenAI-kind planner's base URL
    error: str | None  # an infrastructure error recorded for it (the first, by key)

    @property
    def missing(self) -> int:
        return self.infra_errors + self.not_run

    def describe(self) -> str:
        what = ", ".join(
            f"{n} {why}" for n, why in ((self.infra_errors, "infra_error"), (self.not_run, "not run")) if n
        )
        line = f"{self.cell}: {self.missing} of {self.planned} keys missing ({what})"
        if self.endpoint:
            line += f"; endpoint {self.endpoint}"
        return line + (f"; {self.error}" if self.error else "")


def sweep_rows(plan: Plan, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of ``plan``'s own episodes: its cells, and of those only the tasks it chose (``limit=``,
    ``task_ids=``), so a quick run's report is about the quick run, not about all the cell holds."""
    wanted = {
        (c.planner, c.split, c.condition, c.seed, key)
        for c in plan.cells
        for key in plan.task_ids[(c.split, c.condition)]
    }
    return [r for r in rows if record_key(r) in wanted]


def find_gaps(plan: Plan, rows: list[dict[str, Any]]) -> list[Gap]:
    """The cells of ``plan`` whose keys are not all finished in ``rows`` (the store's rows of the grid)."""
    by_cell: dict[tuple[str, str, str, int], dict[str, dict[str, Any]]] = {}
    for r in rows:
        by_cell.setdefault(record_key(r)[:4], {})[r["task_id"]] = r
    gaps = []
    for cell in plan.cells:
        stored = by_cell.get((cell.planner, cell.split, cell.condition, cell.seed), {})
        planned = plan.task_ids[(cell.split, cell.condition)]
        infra = [stored[k] for k in planned if k in stored and stored[k]["termination"] == "infra_error"]
        not_run = sum(k not in stored for k in planned)
        if infra or not_run:
            error = json.loads(infra[0]["reasons"])[0] if infra and infra[0]["reasons"] else None
            endpoint = cell.planner_config.get("base_url") if cell.planner_config.get("kind") == "openai" else None
            gaps.append(Gap(cell.label, len(planned), len(infra), not_run, endpoint, error))
    return gaps
