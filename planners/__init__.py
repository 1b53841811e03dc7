"""Planners: the policy that picks the next action."""

from collections.abc import Mapping
from typing import Any

from planners.base import InfraError, Planner, PlannerAction
from planners.reference import NoopPlanner, OraclePlanner

REFERENCE_PLANNERS: dict[str, type[Planner]] = {"oracle": OraclePlanner, "noop": NoopPlanner}


def build_planner(config: Mapping[str, Any]) -> Planner:
    """A planner from its config (``conf/planner/*.yaml``); a bad config fails naming the key."""
    kind = config.get("kind")
    if kind in REFERENCE_PLANNERS:
        return REFERENCE_PLANNERS[kind]()
    raise ValueError(f"planner.kind: unknown planner kind {kind!r}; known: {', '.join(REFERENCE_PLANNERS)}")

__all__ = ["InfraError", "NoopPlanner", "OraclePlanner", "Planner", "PlannerAction", "REFERENCE_PLANNERS", "build_planner"]
