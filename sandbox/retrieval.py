"""The initial action space A0: top-N domain tools retrieved for (query, history), fixed at build time.

BM25 over each tool's name, description and argument names and descriptions, with scores rounded
and ties broken by name, so A0 regenerates identically on any machine. If retrieval misses a tool
the gold needs, the lowest-ranked non-gold candidate gives way to it, so every task is solvable;
recall before that repair is reported as a dataset statistic.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sandbox.memory import bm25_rank
from sandbox.tooling import ToolSpec, domain_tools

TOP_N = 15  # the paper's N


def tool_text(spec: ToolSpec) -> str:
    """What the retriever indexes for a tool (the same text a planner sees in the schema)."""
    props = spec.parameters.get("properties", {})
    args = " ".join(f"{name.replace('_', ' ')} {p.get('description', '')}" for name, p in props.items())
    return f"{spec.name.replace('_', ' ')} {spec.description} {args}"


@functools.cache
def _documents() -> tuple[tuple[str, str, str], ...]:
    return tuple((spec.name, tool_text(spec), "") for spec in domain_tools())


@dataclass(frozen=True)
class ActionSpace:
    tools: list[str]  # A0, sorted by name
    recall: float  # share of the gold's (visible) tools retrieval found before the repair


def retrieve(query: str, history: Sequence[str] = (), n: int = TOP_N, exclude: Iterable[str] = ()) -> list[str]:
    """The n best tools for the query and the dialogue so far, best first."""
    skip = set(exclude)
    docs = [d for d in _documents() if d[0] not in skip]
    ranked = [name for name, _ in bm25_rank(" ".join([*history, query]), docs)]
    return ranked[:n]


def action_space(query: str, history: Sequence[str], gold_tools: Iterable[str], hidden: Iterable[str] = (),
                 n: int = TOP_N) -> ActionSpace:
    """A0 for a task: retrieval, then the repair that makes the gold solvable.

    ``hidden`` tools (those of the skills the task offers) are never in A0: they appear only after
    ``load_skill``.
    """
    hide = set(hidden)
    needed = list(dict.fromkeys(t for t in gold_tools if t not in hide))
    found = retrieve(query, history, n, exclude=hide)
    recall = sum(t in found for t in needed) / len(needed) if needed else 1.0
    chosen = list(found)
    if len(needed) > n:
        raise ValueError(f"the gold needs {len(needed)} visible tools, more than A0's {n}")
    for tool in needed:
        if tool in chosen:
            continue
        if len(chosen) >= n:  # retrieval found fewer than n tools: the gold tool just joins
            chosen.remove(next(c for c in reversed(chosen) if c not in needed))
        chosen.append(tool)
    return ActionSpace(sorted(chosen), round(recall, 4))
