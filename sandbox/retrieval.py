"""The initial action space A0: top-N domain tools retrieved for (query, history), fixed at build time,
or computed again at run time for the retrieval studies (``runtime_tools``: BM25 or a local dense
retriever, any N, the repair on or off).

BM25 over each tool's name, description and argument names and descriptions, with scores rounded
and ties broken by name, so A0 regenerates identically on any machine. If retrieval misses a tool
the gold needs, the lowest-ranked non-gold candidate gives way to it, so every task is solvable;
recall before that repair is reported as a dataset statistic.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.memory import bm25_rank
from sandbox.skills import SKILLS
from sandbox.tasks import Task
from sandbox.tooling import REGISTRY, ToolSpec, domain_tools

TOP_N = 15  # the paper's N
METHODS = ("stored", "bm25", "dense")  # stored: the task's A0 (the build's BM25 top-15 with the repair)


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


def action_space(
    query: str,
    history: Sequence[str],
    gold_tools: Iterable[str],
    hidden: Iterable[str] = (),
    n: int = TOP_N,
    *,
    repair: bool = True,
    found: Sequence[str] | None = None,
) -> ActionSpace:
    """A0 for a task: retrieval, then the repair that makes the gold solvable (``repair=False``: the
    retrieved tools as they are, so a gold tool retrieval missed stays missing).

    ``hidden`` tools (those of the skills the task offers) are never in A0: they appear only after
    ``load_skill``. ``found``: another retriever's ranking (best first) instead of BM25's.
    """
    hide = set(hidden)
    needed = list(dict.fromkeys(t for t in gold_tools if t not in hide))
    found = retrieve(query, history, n, exclude=hide) if found is None else list(found)[:n]
    recall = sum(t in found for t in needed) / len(needed) if needed else 1.0
    chosen = list(found)
    if not repair:
        return ActionSpace(sorted(chosen), round(recall, 4))
    if len(needed) > n:
        raise ValueError(f"the gold needs {len(needed)} visible tools, more than A0's {n}")
    for tool in needed:
        if tool in chosen:
            continue
        if len(chosen) >= n:  # retrieval found fewer than n tools: the gold tool just joins
            chosen.remove(next(c for c in reversed(chosen) if c not in needed))
        chosen.append(tool)
    return ActionSpace(sorted(chosen), round(recall, 4))


# ---- run-time retrieval (the retrieval studies) -----------------------------------------------------


def hidden_tools(skills: Iterable[str]) -> set[str]:
    """The tools of ``skills``: never in A0, they appear only after ``load_skill``."""
    return {t for s in skills for t in SKILLS[s].tools}


def tools_called(name: str, arguments: Mapping[str, Any]) -> list[str]:
    """The domain tools one action needs in the action space: itself, and a monitor's condition tool and the steps
    of its plan (a planner can only watch with a tool it has been shown)."""
    monitor = name == "call_monitor_agent"
    plan = arguments.get("on_trigger") if monitor else None
    watched = arguments.get("condition") if monitor else None
    names = [
        name,
        *([watched["tool"]] if isinstance(watched, dict) and "tool" in watched else []),
        *(s["tool"] for s in plan or [] if isinstance(s, dict) and "tool" in s),
    ]
    return [n for n in names if n in REGISTRY and REGISTRY[n].is_domain_tool]


def gold_tools(task: Task) -> list[str]:
    """The domain tools the task's gold needs in the action space, as the build counts them."""
    return [n for action in task.gold for n in tools_called(action.name, action.arguments)]


def runtime_tools(
    task: Task, method: str, n: int = TOP_N, repair: bool = True, model_path: str | None = None
) -> list[str]:
    """A0 of ``task`` computed now instead of read from the task: the top ``n`` tools for its query and
    H0 by ``method`` (``bm25`` as the build does, or ``dense`` with the local model at ``model_path``),
    the offered skills' tools left out, then the gold-tool repair unless ``repair`` is off. BM25 with
    N = 15 and the repair gives the stored A0. With N below the gold's tool count the repair brings in
    the first N of them."""
    import sandbox.domains  # noqa: F401  (registers every tool)

    history = [m.content for m in task.history]
    hidden = hidden_tools(task.candidate_skills)
    needed = gold_tools(task)
    if method == "bm25":
        found = None
    elif method == "dense":
        if not model_path:
            raise ValueError("retrieval.model_path: the dense retriever needs a local model folder")
        found = dense_retrieve(" ".join([*history, task.query]), n, model_path, exclude=hidden)
    else:
        raise ValueError(f"retrieval.method: {method!r} computes no action space at run time; known: bm25, dense")
    if repair and len(set(needed) - hidden) > n:  # the gold cannot fit in A0: repair what fits
        needed = list(dict.fromkeys(t for t in needed if t not in hidden))[:n]
    return action_space(task.query, history, needed, hidden, n, repair=repair, found=found).tools


def check_dense_model(model_path: str | None) -> None:
    """A dense retriever is usable only with weights on this machine: ``model_path`` a folder holding a
    sentence-transformers model, and the package installed. The toolkit downloads no weights and ships
    none, so this names what is missing in one line."""
    if not model_path:
        raise ValueError(
            "retrieval.model_path: retrieval.method=dense needs a local sentence-transformers model "
            "folder (none ships with the toolkit and none is downloaded); give retrieval.model_path=DIR"
        )
    if not Path(model_path).is_dir():
        raise ValueError(f"retrieval.model_path: {model_path} is not a folder on this machine")
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        raise ValueError(
            "retrieval.method: dense needs the sentence-transformers package (pip install sentence-transformers)"
        ) from None


@functools.cache
def _dense_index(model_path: str) -> tuple[Any, Any, tuple[str, ...]]:
    """The model and every domain tool's embedding, once per process and model."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(model_path, device="cpu", local_files_only=True)
    names = tuple(d[0] for d in _documents())
    vectors = model.encode([d[1] for d in _documents()], normalize_embeddings=True)
    return model, vectors, names


def dense_retrieve(text: str, n: int, model_path: str, exclude: Iterable[str] = ()) -> list[str]:
    """The n tools whose embedding is closest (cosine) to ``text``'s, best first; ties broken by name."""
    model, vectors, names = _dense_index(model_path)
    query = model.encode([text], normalize_embeddings=True)[0]
    scores = vectors @ query
    skip = set(exclude)
    ranked = sorted((-round(float(score), 6), name) for name, score in zip(names, scores) if name not in skip)
    return [name for _, name in ranked[:n]]
