"""The planner protocol: observation in, next action out (async, so one process drives many episodes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from sandbox.episode import Observation
from sandbox.tasks import Task


@dataclass(frozen=True)
class PlannerAction:
    """The planner's next call, or a format error when its reply held no usable call.

    ``format_error`` names the kind (``sandbox.episode.FORMAT_ERRORS``: no_tool_call, unknown_tool,
    bad_arguments, multiple_calls, truncated_reply, oversized_reply, undecodable_reply);
    ``raw`` keeps the model's reply for diagnosis; ``usage`` carries tokens and latency.
    """

    name: str | None
    arguments: Any = None
    raw: str | None = None
    format_error: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)


class InfraError(RuntimeError):
    """The planner's backend stayed unreachable after retries: the episode is re-run, never scored."""


class ContextOverflow(RuntimeError):
    """The server refused the request because the conversation no longer fits the model's context.

    The model's own replies and the tool results it asked for grew the conversation, so this is the
    model's failure: the episode ends as ``context_overflow`` and is scored as failed, never retried
    (a re-run would overflow again). Raised for the first request, it ends the episode as
    ``prompt_overflow``: scored as failed too, but counted apart (the model never had its turn).
    A reply cut short by the room the context had left raises it as well."""


@runtime_checkable
class Planner(Protocol):
    """A policy. Reference planners may read the task (oracle); model planners see only the observation.

    A planner that holds connections (``OpenAICompatPlanner``) also has ``async aclose()``; call it
    once the run's episodes are done, inside the event loop that ran them.
    """

    name: str

    async def act(self, task: Task, observation: Observation) -> PlannerAction: ...
