"""What a cell cost: tokens per episode always, money where the planner's config carries a price,
GPU-seconds where the sweep started the model's server.

A price is the planner config's ``price`` section (``conf/planner/_openai_base.yaml``), US dollars per
million tokens: ``prompt``, ``cached_prompt`` (prompt tokens the server reports as served from its
cache, a part of ``prompt_tokens`` as in the OpenAI API) and ``completion``. ``prompt`` and
``completion`` both set make a price; either missing (the shipped configs: null) and only tokens are
shown, never a guessed price. ``cached_prompt`` null bills cached tokens at the prompt price (a provider
without a cache discount). An episode whose tokens were not reported (a reference planner) has no cost.

A served model (``base_url: null``: the sweep started a vLLM server on a worker offering GPU) costs
server-seconds on the device it ran on (``server_device``: ``cuda``, or ``cpu`` for vLLM's CPU build, as the
server's log says; kept in the provenance record): the GPUs the server held (``vllm.gpus``) times how long
it was up, from the sweep asking for it until it was stopped (start-up included), shared among the cells
that used it in that sweep by their summed model latency (by episodes when no latency was recorded).
The column keeps its historical name ``gpu_s``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

PRICE_KEYS = ("prompt", "cached_prompt", "completion")  # US dollars per 1M tokens
TOKEN_KINDS = ("prompt_tokens", "cached_prompt_tokens", "completion_tokens")
PER = 1_000_000


class PriceError(ValueError):
    """A price that is not a price; the message names the key."""


def price_of(planner_config: Mapping[str, Any] | None, where: str = "planner") -> dict[str, float | None] | None:
    """The planner's price per 1M tokens, or None when ``prompt`` or ``completion`` is not set (tokens only).
    A negative or non-numeric value, or an unknown key, raises ``PriceError`` naming it."""
    section = (planner_config or {}).get("price")
    if not section:
        return None
    if not isinstance(section, Mapping):
        raise PriceError(f"{where}.price: a mapping of {', '.join(PRICE_KEYS)} (USD per 1M tokens), got {section!r}")
    unknown = sorted(set(section) - set(PRICE_KEYS))
    if unknown:
        raise PriceError(f"{where}.price.{unknown[0]}: unknown key; known: {', '.join(PRICE_KEYS)}")
    price: dict[str, float | None] = {}
    for key in PRICE_KEYS:
        value = section.get(key)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0
        ):
            raise PriceError(f"{where}.price.{key}: a non-negative number of USD per 1M tokens, got {value!r}")
        price[key] = None if value is None else float(value)
    if price["prompt"] is None or price["completion"] is None:
        return None
    return price


def episode_cost(
    prompt: int | None, cached: int | None, completion: int | None, price: Mapping[str, float | None] | None
) -> float | None:
    """US dollars for one episode's tokens; None without a price or without reported tokens."""
    if price is None or (prompt is None and completion is None):
        return None
    per_prompt, per_completion = float(price["prompt"] or 0.0), float(price["completion"] or 0.0)
    cached = min(cached or 0, prompt or 0)
    per_cached = per_prompt if price.get("cached_prompt") is None else float(price["cached_prompt"] or 0.0)
    return (((prompt or 0) - cached) * per_prompt + cached * per_cached + (completion or 0) * per_completion) / PER


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def cell_cost(
    rows: Sequence[Mapping[str, Any]], price: Mapping[str, float | None] | None = None, gpu_s: float | None = None
) -> dict[str, Any]:
    """One cell's tokens (totals and per episode; a kind never reported stays None), its cost in USD when
    priced (None otherwise) and its GPU-seconds when served (None otherwise)."""
    out: dict[str, Any] = {"episodes": len(rows)}
    for kind in TOKEN_KINDS:
        values = [r[kind] for r in rows if r.get(kind) is not None]
        out[kind] = sum(values) if values else None
        out[f"{kind}_per_episode"] = _mean(values)
    costs = [
        c
        for r in rows
        if (c := episode_cost(r.get("prompt_tokens"), r.get("cached_prompt_tokens"), r.get("completion_tokens"), price))
        is not None
    ]
    out["price"] = dict(price) if price is not None else None
    out["cost_usd"] = sum(costs) if costs else None
    out["cost_usd_per_episode"] = _mean(costs)
    out["gpu_s"] = gpu_s
    out["gpu_s_per_episode"] = gpu_s / len(rows) if gpu_s is not None and rows else None
    return out


def cost_metrics(cost: Mapping[str, Any]) -> dict[str, float]:
    """MLflow metrics of a cell's cost (``cost/...``); absent values are left out, never logged as 0."""
    keys = [
        *(f"{k}{s}" for k in TOKEN_KINDS for s in ("", "_per_episode")),
        "cost_usd",
        "cost_usd_per_episode",
        "gpu_s",
        "gpu_s_per_episode",
    ]
    return {f"cost/{k}": float(cost[k]) for k in keys if cost.get(k) is not None}


def share_gpu_seconds(gpu_s: float, latencies: Mapping[str, Iterable[float]]) -> dict[str, float]:
    """A server's GPU-seconds shared among the cells that used it: by summed model latency, or equally per
    episode when none was recorded. ``latencies``: cell -> its episodes' latencies in that sweep."""
    sums = {cell: (sum(values), len(values)) for cell, values in ((c, list(v)) for c, v in latencies.items())}
    total_latency = sum(s for s, _ in sums.values())
    total_episodes = sum(n for _, n in sums.values())
    if total_latency > 0:
        return {cell: gpu_s * s / total_latency for cell, (s, _) in sums.items()}
    if total_episodes > 0:
        return {cell: gpu_s * n / total_episodes for cell, (_, n) in sums.items()}
    return {cell: 0.0 for cell in sums}


def money(value: float | None) -> str:
    """USD for a table: cents for large sums, more digits for small ones; "–" when unknown."""
    if value is None:
        return "–"
    return f"${value:.2f}" if value >= 1 else f"${value:.4f}"


def tokens_short(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value / 1000:.1f}k" if value >= 10_000 else f"{value:.0f}"


def with_costs(rows: Sequence[Mapping[str, Any]], records: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Store rows with ``cost_usd`` (their tokens at the price in the planner config of the provenance record
    they name; None when unpriced or unknown) and ``gpu_s`` (their share of their provenance record's
    GPU-seconds, by model latency among ``rows`` naming it; None when no server was started for it).
    ``records``: ``ResultsStore.provenance()``."""
    prices: dict[str, Any] = {}
    for key, record in records.items():
        try:
            prices[key] = price_of(record.get("planner_config"))
        except PriceError:  # a record written before prices were checked: no price rather than a wrong one
            prices[key] = None
    latencies: dict[str, list[float]] = {}
    for r in rows:
        if r.get("provenance_id") in records:
            latencies.setdefault(r["provenance_id"], []).append(float(r.get("planner_latency_s") or 0.0))
    totals = {key: (sum(v), len(v)) for key, v in latencies.items()}
    out = []
    for r in rows:
        pid = r.get("provenance_id")
        found = records.get(pid) if pid else None
        gpu = found.get("gpu_s") if found else None
        share = None
        if gpu is not None:
            latency, n = totals[str(pid)]
            share = gpu * (float(r.get("planner_latency_s") or 0.0) / latency if latency > 0 else 1 / n)
        out.append(
            {
                **r,
                "cost_usd": episode_cost(
                    r.get("prompt_tokens"),
                    r.get("cached_prompt_tokens"),
                    r.get("completion_tokens"),
                    prices.get(pid) if pid else None,
                ),
                "gpu_s": share,
                "server_device": ((found or {}).get("server") or {}).get("device") if share is not None else None,
            }
        )
    return out


def device_label(device: str | None) -> str:
    """How server-seconds are labelled: ``CPU`` for vLLM's CPU build, else ``GPU`` (the device unknown:
    a server started before the device was recorded was a GPU one)."""
    return "CPU" if device == "cpu" else "GPU"


def rows_cost(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A cell's cost from rows that went through ``with_costs`` (tokens only from rows that did not)."""
    out = cell_cost(rows)
    costs = [r["cost_usd"] for r in rows if r.get("cost_usd") is not None]
    gpu = [r["gpu_s"] for r in rows if r.get("gpu_s") is not None]
    out.update(
        cost_usd=sum(costs) if costs else None,
        cost_usd_per_episode=_mean(costs),
        gpu_s=sum(gpu) if gpu else None,
        gpu_s_per_episode=sum(gpu) / len(rows) if gpu and rows else None,
        server_device=next((r["server_device"] for r in rows if r.get("server_device")), None),
    )
    del out["price"]
    return out


def cost_line(cost: Mapping[str, Any]) -> str | None:
    """One line for a run's summary: tokens per episode, and the cost or GPU-seconds when known."""
    if cost.get("prompt_tokens") is None and cost.get("completion_tokens") is None:
        return None
    parts = [
        f"tokens per episode: prompt {tokens_short(cost.get('prompt_tokens_per_episode'))}"
        + (
            f" (cached {tokens_short(cost['cached_prompt_tokens_per_episode'])})"
            if cost.get("cached_prompt_tokens_per_episode") is not None
            else ""
        )
        + f", completion {tokens_short(cost.get('completion_tokens_per_episode'))}"
    ]
    if cost.get("cost_usd") is not None:
        parts.append(f"cost {money(cost['cost_usd'])} ({money(cost['cost_usd_per_episode'])} per episode)")
    else:
        parts.append("no price in the planner config (price.prompt, price.completion): tokens only")
    if cost.get("gpu_s") is not None:
        parts.append(f"{cost['gpu_s']:.0f} {device_label(cost.get('server_device'))} server-s")
    return "; ".join(parts)
