"""Planners: the policy that picks the next action."""

from collections.abc import Callable, Mapping
from typing import Any

from planners.base import ContextOverflow, InfraError, Planner, PlannerAction
from planners.litellm_planner import LiteLLMPlanner
from planners.noisy import NoisyOraclePlanner
from planners.openai_compat import OpenAICompatPlanner, OpenAIConfig
from planners.reference import NoopPlanner, OraclePlanner
from planners.replay import ReplayPlanner

REFERENCE_PLANNERS: dict[str, type[Planner]] = {"oracle": OraclePlanner, "noop": NoopPlanner}


def _reference(cls: type[Planner]) -> Callable[[Mapping[str, Any]], Planner]:
    """A reference planner's factory: it takes no config, and refuses a key it would ignore."""

    def build(config: Mapping[str, Any]) -> Planner:
        known = {"name", "kind", "concurrency"}  # concurrency: episodes in flight, read by the sweep
        if unknown := sorted(set(config) - known):
            raise ValueError(
                f"planner.{unknown[0]}: unknown key for kind {config.get('kind')}; known: {', '.join(sorted(known))}"
            )
        return cls()

    return build


PLANNER_KINDS: dict[str, Callable[[Mapping[str, Any]], Planner]] = {
    **{kind: _reference(cls) for kind, cls in REFERENCE_PLANNERS.items()},
    "openai": OpenAICompatPlanner.from_config,
    "litellm": LiteLLMPlanner.from_config,  # imports litellm (an optional extra) only when built
    "noisy_oracle": NoisyOraclePlanner.from_config,
    "replay": ReplayPlanner.from_config,
}
MODEL_KINDS = ("openai", "litellm")
"""Kinds that call a model endpoint: their ``concurrency`` and ``rate_limits`` hold across a sweep's cluster."""


def build_planner(config: Mapping[str, Any]) -> Planner:
    """A planner from its config (``conf/planner/*.yaml``); a bad config fails naming the key,
    before any episode runs."""
    kind = config.get("kind")
    if kind not in PLANNER_KINDS:
        raise ValueError(f"planner.kind: unknown planner kind {kind!r}; known: {', '.join(PLANNER_KINDS)}")
    return PLANNER_KINDS[kind](config)


__all__ = [
    "MODEL_KINDS",
    "PLANNER_KINDS",
    "REFERENCE_PLANNERS",
    "ContextOverflow",
    "InfraError",
    "LiteLLMPlanner",
    "NoisyOraclePlanner",
    "NoopPlanner",
    "OpenAICompatPlanner",
    "OpenAIConfig",
    "OraclePlanner",
    "Planner",
    "PlannerAction",
    "ReplayPlanner",
    "build_planner",
]
