"""The pre-flight of a model endpoint, before any episode: is it there, does it serve the model, does it
take the key, and do the episodes' first requests fit the model's context.

A sweep or a run against an endpoint otherwise learns each of these one episode at a time: a missing
key as an ``infra_error`` per episode that never names the variable, a first prompt beyond the context
as a ``prompt_overflow`` the model never had a turn in. Every problem here is one line naming what to
change; nothing is retried.

The **prompt budget** counts each episode's first request (the system prompt, H0, the query and the
tool schemas offered, exactly as the planner will send them) in tokens: by vLLM's ``/tokenize`` where
the server has it (the model's own chat template and tokenizer, tools included), else estimated at
``BYTES_PER_TOKEN`` bytes of the request's JSON a token (a stated estimate: on SmolLM2's tokenizer
the JSON of these requests runs at 3.0-3.3 bytes a token, so the estimate reads low by about a
fifth). The context is what ``/v1/models`` reports (vLLM's ``max_model_len``), else the
``--max-model-len`` of the server a sweep will start, else unknown (then nothing is refused).
"""

from __future__ import annotations

import asyncio
import os
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import aiohttp
import msgspec

from planners.openai_compat import OpenAICompatPlanner, OpenAIConfig
from sandbox.conditions import action_space_for, expand, withheld_for
from sandbox.episode import Episode, Observation
from sandbox.tasks import Task

BYTES_PER_TOKEN = 4  # the estimate where no tokenizer answers (the rate limiter's estimate too)
TIMEOUT_S = 30.0  # one pre-flight request
TOKENIZE_IN_FLIGHT = 8  # /tokenize requests at once: a server busy starting other work stays answerable


class PreflightError(RuntimeError):
    """The endpoint cannot run the episodes; the message is one line saying what to change. ``infra``:
    the endpoint failed (not there, a server error), rather than the config (key, model, budget)."""

    def __init__(self, message: str, *, infra: bool = False) -> None:
        super().__init__(message)
        self.infra = infra


@dataclass(frozen=True)
class Served:
    """What an endpoint's ``/v1/models`` says: the model ids it serves and the context of ours (None: not said)."""

    models: tuple[str, ...]
    context: int | None


def _root(base_url: str) -> str:
    return base_url.rstrip("/").removesuffix("/v1")


def _key_hint(config: Mapping[str, Any], environ: Mapping[str, str]) -> str:
    """What the 401 means for this config's key: the variable unset, or its key refused."""
    variable = config.get("api_key_env")
    if config.get("api_key"):
        return "the key in planner.api_key was refused"
    if variable and not environ.get(str(variable)):
        return f"the key variable {variable} is not set (export {variable}=...; planner.api_key_env names it)"
    if variable:
        return f"the key in {variable} was refused"
    return "no key is configured (set planner.api_key_env to the variable that holds it)"


async def check_endpoint(
    config: OpenAIConfig, raw: Mapping[str, Any], environ: Mapping[str, str] = os.environ
) -> Served:
    """Reachable, the key taken, ``config.model`` among the served models; ``raw``: the planner's config
    mapping (which variable the key comes from)."""
    headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
    where = f"planner {config.name}: {config.base_url}"
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT_S), headers=headers) as session,
            session.get(f"{config.base_url}/models") as response,
        ):
            status, body = response.status, await response.read()
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise PreflightError(
            f"{where} is not reachable ({type(exc).__name__}: {exc or 'timed out'})", infra=True
        ) from None
    if status in (401, 403):
        raise PreflightError(f"{where} answered HTTP {status} to /models: {_key_hint(raw, environ)}")
    if status == 404:  # an endpoint without a model list: nothing to check it against
        return Served((), None)
    if status != 200:
        raise PreflightError(
            f"{where}/models answered HTTP {status}: {body[:200].decode(errors='replace')}", infra=True
        )
    try:
        data = msgspec.json.decode(body).get("data") or []
        served = {str(m["id"]): m for m in data if isinstance(m, dict) and "id" in m}
    except (msgspec.DecodeError, AttributeError, TypeError):
        raise PreflightError(f"{where}/models is not an OpenAI model list", infra=True) from None
    if config.model not in served:
        listed = ", ".join(sorted(served)) or "none"
        raise PreflightError(
            f"{where} does not serve the model {config.model!r} (planner.model / planner.served_model_name); "
            f"it serves: {listed}"
        )
    context = served[config.model].get("max_model_len")
    return Served(tuple(served), context if isinstance(context, int) and not isinstance(context, bool) else None)


def configured_context(raw: Mapping[str, Any]) -> int | None:
    """The context the config states: ``context_tokens`` (a hosted model, whose ``/v1/models`` says none),
    else the ``--max-model-len`` of the server a sweep will start for it, if given."""
    stated = raw.get("context_tokens")
    if isinstance(stated, int) and not isinstance(stated, bool):
        return stated
    args = [str(a) for a in ((raw.get("vllm") or {}).get("serve_args") or [])]
    for i, arg in enumerate(args):
        value = args[i + 1] if arg == "--max-model-len" and i + 1 < len(args) else arg.partition("=")[2]
        if arg.startswith("--max-model-len") and value.isdigit():
            return int(value)
    return None


def first_observations(
    tasks: Iterable[Task], condition: str, keys: Iterable[str] | None = None, retrieval_model: str | None = None
) -> list[tuple[str, Observation]]:
    """(episode key, the observation its first request is built from) for the episodes ``condition``
    runs (``keys``: only those), in the action space each runs under."""
    wanted = set(keys) if keys is not None else None
    found = []
    for key, task, runs_under in expand(tasks, condition):
        if wanted is not None and key not in wanted:
            continue
        tools, skills = action_space_for(task, runs_under, retrieval_model)
        with Episode(task, candidate_tools=tools, candidate_skills=skills, withheld=withheld_for(runs_under)) as ep:
            found.append((key, ep.observation()))
    return found


@dataclass(frozen=True)
class PromptBudget:
    """The first requests' tokens of one planner's episodes against its model's context."""

    planner: str
    tokens: Mapping[str, int]  # episode key -> tokens of its first request
    counted_by: str  # how: the server's /tokenize, or the stated estimate
    context: int | None  # the model's context in tokens (None: unknown)
    max_tokens: int | None  # what each reply may take

    def too_long(self) -> list[str]:
        """Episodes whose first request leaves no room for a reply (a server refuses a prompt that
        fills the context)."""
        if self.context is None:
            return []
        return sorted(k for k, n in self.tokens.items() if n >= self.context)

    def tight(self) -> list[str]:
        """Episodes whose first request fits, but leaves less room than ``max_tokens`` for the reply."""
        if self.context is None or self.max_tokens is None:
            return []
        return sorted(k for k, n in self.tokens.items() if self.context - self.max_tokens < n < self.context)

    def summary(self) -> str:
        """One line: median, p90 and max against the context, and what cannot fit."""
        values = sorted(self.tokens.values())
        if not values:
            return f"prompt budget of {self.planner}: no episodes"
        p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
        line = (
            f"prompt budget of {self.planner}: {len(values)} first requests, median {statistics.median(values):,.0f}, "
            f"p90 {p90:,}, max {values[-1]:,} tokens ({self.counted_by})"
        )
        if self.context is None:
            return line + "; the model's context is unknown (planner.context_tokens states it)"
        line += f" against a context of {self.context:,}"
        too_long, tight = self.too_long(), self.tight()
        if too_long:
            line += f"; {len(too_long)} cannot fit"
        if tight:
            line += f"; {len(tight)} leave less than max_tokens {self.max_tokens} for the reply"
        return line if too_long or tight else line + "; every one fits"

    def refusal(self) -> str | None:
        """One line refusing the run when some episodes cannot fit, saying how to fix it; None when all fit."""
        too_long = self.too_long()
        if not too_long:
            return None
        named = ", ".join(too_long[:5]) + (f" and {len(too_long) - 5} more" if len(too_long) > 5 else "")
        return (
            f"planner {self.planner}: {len(too_long)} of {len(self.tokens)} episodes' first request does not fit "
            f"the context of {self.context:,} tokens (largest {max(self.tokens.values()):,}: {named}); raise the "
            "server's --max-model-len, offer fewer tools (retrieval.method=bm25 retrieval.top_n=5), or run them "
            "anyway as prompt_overflow with allow_prompt_overflow=true"
        )


async def count_tokens(
    planner: OpenAICompatPlanner, observations: Sequence[tuple[str, Observation]]
) -> tuple[dict[str, int], str]:
    """Each first request's tokens, by the server's ``/tokenize`` (vLLM), else by the stated estimate."""
    bodies = {key: planner.request_body(observation) for key, observation in observations}
    config = planner.config
    headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
    url = f"{_root(config.base_url)}/tokenize"
    gate = asyncio.Semaphore(TOKENIZE_IN_FLIGHT)

    async def tokenize(session: aiohttp.ClientSession, body: bytes) -> int | None:
        request = msgspec.json.decode(body)
        ask = {k: request[k] for k in ("model", "messages", "tools") if k in request}
        async with gate, session.post(url, json={**ask, "add_generation_prompt": True}) as response:
            if response.status != 200:
                return None
            count = (await response.json(content_type=None)).get("count")
            return count if isinstance(count, int) else None

    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT_S), headers=headers) as session:
            first = await tokenize(session, next(iter(bodies.values()))) if bodies else None
            if first is not None:
                counts = await asyncio.gather(*(tokenize(session, b) for b in bodies.values()))
                if all(c is not None for c in counts):
                    return dict(zip(bodies, counts, strict=True)), "counted by the server's /tokenize"  # type: ignore[arg-type]
    except (aiohttp.ClientError, TimeoutError, ValueError):
        pass  # no tokenizer to ask: the estimate
    return estimated(bodies), ESTIMATED


ESTIMATED = f"estimated at {BYTES_PER_TOKEN} bytes a token"


def estimated(bodies: Mapping[str, bytes]) -> dict[str, int]:
    return {key: len(body) // BYTES_PER_TOKEN for key, body in bodies.items()}


def reply_tokens(config: OpenAIConfig) -> int | None:
    asked = config.sampling.get("max_completion_tokens") or config.sampling.get("max_tokens")
    return int(asked) if asked is not None else None


async def preflight(
    raw: Mapping[str, Any],
    observations: Sequence[tuple[str, Observation]],
    *,
    environ: Mapping[str, str] = os.environ,
) -> PromptBudget:
    """The endpoint checked (``check_endpoint``) and the first requests counted against its context, for
    the ``kind: openai`` planner config ``raw`` whose base URL is known; raises ``PreflightError``."""
    config = OpenAIConfig.from_mapping(raw, environ)
    served = await check_endpoint(config, raw, environ)
    async with OpenAICompatPlanner(config) as planner:
        tokens, how = await count_tokens(planner, observations)
    return PromptBudget(config.name, tokens, how, served.context or configured_context(raw), reply_tokens(config))


def planned_budget(raw: Mapping[str, Any], observations: Sequence[tuple[str, Observation]]) -> PromptBudget:
    """The budget without asking any server (``sweep --dry-run``, or a server not started yet): the
    estimate against the ``--max-model-len`` the config gives its server."""
    config = OpenAIConfig.from_mapping({**raw, "base_url": raw.get("base_url") or "http://pending/v1"}, {})
    planner = OpenAICompatPlanner(config)
    bodies = {key: planner.request_body(observation) for key, observation in observations}
    return PromptBudget(config.name, estimated(bodies), ESTIMATED, configured_context(raw), reply_tokens(config))
