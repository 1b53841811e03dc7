"""Skill conditions (docs/architecture.md §6): configuration that decides a skill task's initial action space.

- ``sor`` (skill-oracle retrieval): the loaders of the skills the task needs (``tags.sor_skills``) and,
  of the domain tools, only the lookups the job makes outside those skills (the list or search a real
  phone offers anyway, e.g. the contacts search before a skill's ``send_sms``); everything else must
  come from loading the skills.
- ``mtsr`` (mixed tool and skill retrieval): the retrieved top-N tools plus every offered loader,
  distractor skills included, so atomic tools compete with the skills.
- ``default``: the task's stored A0 and loaders (identical to ``mtsr``).
- ``both``: the paper's protocol: every skill task runs twice, under ``sor`` and under ``mtsr`` (episode
  keys ``<task_id>@sor`` and ``<task_id>@mtsr``), every other task once: 1,905 episodes for 1,705 tasks.
Non-skill tasks are the same under every condition.

Retrieval studies and ablations refine a condition: a ``Variant`` computes the action space at
run time (``retrieval.method`` bm25 or dense, ``retrieval.top_n``, the gold-tool ``retrieval.repair``) and
may withhold the memory tools (``ablation=memory_off``) or the skill loaders (``ablation=skills_off``).
A refined condition is written ``<condition>.<variant label>`` (``both.bm25-n10``, ``sor.bm25-n5-norepair``,
``mtsr.memory_off``, ``both.bm25-n10.skills_off``; characters MLflow accepts in a metric name): that label
is what a results-store row's condition says, so every variant has its own episode keys, and every function
here takes it. SOR and MTSR keep their meaning under a variant: SOR keeps, of the computed A0, the lookups
its gold makes; MTSR offers the computed A0 and every loader.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from sandbox.retrieval import METHODS, TOP_N, check_dense_model, runtime_tools
from sandbox.tasks import Task

CONDITIONS = ("sor", "mtsr")
BOTH = "both"
KNOWN = ("default", *CONDITIONS, BOTH)
ABLATIONS = ("none", "memory_off", "skills_off")
MEMORY_TOOLS = frozenset({"search_memory", "add_memory", "replace_memory", "delete_memory"})  # withheld by memory_off


@dataclass(frozen=True)
class Variant:
    """How an episode's action space is made beyond its skill condition: where A0 comes from, and what
    is withheld. The default (the task's stored A0, nothing withheld) has the empty label."""

    method: str = "stored"  # stored | bm25 | dense
    top_n: int = TOP_N
    repair: bool = True
    ablation: str = "none"  # none | memory_off | skills_off
    model_path: str | None = None  # dense only: a local model folder (not part of the label)

    @property
    def label(self) -> str:
        parts = []
        if self.method != "stored":
            parts.append(f"{self.method}-n{self.top_n}" + ("" if self.repair else "-norepair"))
        if self.ablation != "none":
            parts.append(self.ablation)
        return ".".join(parts)

    @property
    def retrieval_label(self) -> str:
        """The label of the same variant without its ablation (the ablation's baseline)."""
        return Variant(self.method, self.top_n, self.repair).label

    def settings(self) -> dict[str, Any]:
        """What a results store fingerprints a cell by."""
        return {k: v for k, v in asdict(self).items() if k != "model_path" or self.method == "dense"}

    @classmethod
    def from_config(cls, retrieval: Mapping[str, Any] | None, ablation: Any = "none") -> Variant:
        """Checked ``retrieval.*`` keys and ``ablation``; a mistake is a ValueError naming the key."""
        retrieval = dict(retrieval or {})
        unknown = sorted(set(retrieval) - {"method", "top_n", "repair", "model_path"})
        if unknown:
            raise ValueError(f"retrieval.{unknown[0]}: unknown key; known: method, model_path, repair, top_n")
        method = retrieval.get("method", "stored")
        if method not in METHODS:
            raise ValueError(f"retrieval.method: unknown method {method!r}; known: {', '.join(METHODS)}")
        top_n = retrieval.get("top_n", TOP_N)
        if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1:
            raise ValueError(f"retrieval.top_n: a whole number of at least 1 is required, got {top_n!r}")
        repair = retrieval.get("repair", True)
        if not isinstance(repair, bool):
            raise ValueError(f"retrieval.repair: true or false, got {repair!r}")
        model_path = retrieval.get("model_path")
        if method == "stored" and (top_n != TOP_N or not repair):
            key, value = ("retrieval.top_n", top_n) if top_n != TOP_N else ("retrieval.repair", repair)
            raise ValueError(
                f"{key}: {value} needs retrieval at run time (retrieval.method=bm25, or dense with a "
                f"local model); retrieval.method=stored is the task's A0, the build's top {TOP_N} "
                f"with the repair"
            )
        if method == "dense":
            check_dense_model(model_path)
        if ablation in (None, False, "off"):
            ablation = "none"
        if ablation not in ABLATIONS:
            raise ValueError(f"ablation: unknown ablation {ablation!r}; known: {', '.join(ABLATIONS)}")
        return cls(str(method), int(top_n), repair, str(ablation), str(model_path) if method == "dense" else None)

    @classmethod
    def parse(cls, label: str, model_path: str | None = None) -> Variant:
        """The variant a label names (``bm25-n10-norepair.memory_off``); ``model_path`` for a dense one."""
        method, top_n, repair, ablation = "stored", TOP_N, True, "none"
        for part in filter(None, label.split(".")):
            if part in ABLATIONS:
                ablation = part
                continue
            name, _, rest = part.partition("-n")
            number, _, flag = rest.partition("-")
            if name not in METHODS[1:] or not number.isdigit() or flag not in ("", "norepair"):
                raise ValueError(f"condition: {part!r} is not a retrieval variant or an ablation")
            method, top_n, repair = name, int(number), flag != "norepair"
        return cls(method, top_n, repair, ablation, model_path if method == "dense" else None)


def condition_label(condition: str, variant: Variant) -> str:
    """The label a store keys a refined condition by: the condition itself when the variant is the default."""
    return f"{condition}.{variant.label}" if variant.label else condition


def split_label(label: str, model_path: str | None = None) -> tuple[str, Variant]:
    """(skill condition, variant) of a condition label."""
    condition, _, rest = label.partition(".")
    return condition, Variant.parse(rest, model_path)


def expand(tasks: Iterable[Task], condition: str) -> list[tuple[str, Task, str]]:
    """(episode key, task, the condition it runs under) for every episode ``condition`` asks for
    (a refined condition's episodes run under their own condition refined the same way)."""
    base, plus, rest = condition.partition(".")
    if base not in KNOWN:
        raise ValueError(f"condition: unknown skill condition {base!r}; known: {', '.join(KNOWN)}")
    Variant.parse(rest)
    if base != BOTH:
        return [(t.task_id, t, condition) for t in tasks]
    return [
        (f"{t.task_id}@{c}", t, c + plus + rest) if t.category == "skill" else (t.task_id, t, "default" + plus + rest)
        for t in tasks
        for c in (CONDITIONS if t.category == "skill" else ("default",))
    ]


def action_space_for(task: Task, condition: str, model_path: str | None = None) -> tuple[list[str], list[str]]:
    """(candidate tools, offered skills) of ``task`` under ``condition`` (refined by a variant, whose
    retrieval runs now; ``model_path``: a dense variant's local model)."""
    import sandbox.domains  # noqa: F401  (registers every tool: which are domain tools is read from them)

    base, variant = split_label(condition, model_path)
    if base not in KNOWN or base == BOTH:
        raise ValueError(
            f"condition: {condition!r} is not a condition one episode runs under; "
            f"known: {', '.join(k for k in KNOWN if k != BOTH)}"
        )
    tools = (
        list(task.candidate_tools)
        if variant.method == "stored"
        else runtime_tools(task, variant.method, variant.top_n, variant.repair, variant.model_path)
    )
    if base == "sor" and task.category == "skill":
        lookups = {a.name for a in task.gold}
        skills = [s for s in task.tags.get("sor_skills", task.required_skill_id or "").split(",") if s]
        tools = [t for t in tools if t in lookups]
    else:
        skills = list(task.candidate_skills)
    return tools, [] if variant.ablation == "skills_off" else skills


def withheld_for(condition: str) -> frozenset[str]:
    """The framework actions ``condition``'s ablation withholds (memory_off: the memory tools)."""
    return MEMORY_TOOLS if split_label(condition)[1].ablation == "memory_off" else frozenset()
