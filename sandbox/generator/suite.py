"""The suite's allocation (how many tasks of which family) and its reproducible build.

The counts are the paper's (docs/architecture.md §1): Basic 1,040 split over the 13 domains by the scenario
shares (docs/architecture.md §2) and within a domain over its level-2 categories by tool count with a floor of
6; Sub-agent one task per level-2 category; Memory and Skill by the plans their family modules
declare (``PLAN``), whose sub-counts ``tests/sandbox/test_suite.py`` checks.

``python -m sandbox.generator`` rewrites ``sandbox/data/tasks/{full,train}.jsonl``; a test checks
the committed files are exactly what this produces.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sandbox.generator import families as families_pkg
from sandbox.generator.core import FAMILIES, BuildError, Family, Gen, build_task, seed_for
from sandbox.personas import PERSONAS
from sandbox.suite import TASK_DIR
from sandbox.tasks import Task, dump_task
from sandbox.taxonomy import DOMAINS, L2, domain_of
from sandbox.tooling import domain_tools

SUITE_SEED = 20250613
TRAIN_SEED = 7919
TOTALS = {"basic": 1040, "subagent": 89, "memory": 376, "skill": 200}
# Basic Tool Use tasks per domain: 1,040 split by the scenario shares (docs/architecture.md §2).
BASIC_BY_DOMAIN = {
    "D1": 134,
    "D2": 127,
    "D3": 108,
    "D4": 94,
    "D5": 91,
    "D6": 73,
    "D7": 67,
    "D8": 52,
    "D9": 62,
    "D10": 50,
    "D11": 84,
    "D12": 58,
    "D13": 40,
}
BASIC_FLOOR = 6
ATTEMPTS = 24
MINI_EVERY = 10


def load_families() -> dict[str, Family]:
    """Import every family module (each registers its families on import)."""
    for info in pkgutil.iter_modules(families_pkg.__path__):
        importlib.import_module(f"{families_pkg.__name__}.{info.name}")
    return FAMILIES


def largest_remainder(total: int, weights: dict[str, float], floor: int = 0) -> dict[str, int]:
    """Integer shares of ``total`` proportional to ``weights``, each at least ``floor``; ties break by key."""
    keys = sorted(weights, key=lambda k: [int(p) if p.isdigit() else p for p in k.replace("D", "").split(".")])
    counts = {k: floor for k in keys}
    rest = total - floor * len(keys)
    if rest < 0:
        raise ValueError(f"{total} cannot give {len(keys)} groups {floor} each")
    weight = sum(weights.values())
    exact = {k: rest * weights[k] / weight for k in keys}
    for k in keys:
        counts[k] += int(exact[k])
    left = total - sum(counts.values())
    for k in sorted(keys, key=lambda k: (-(exact[k] - int(exact[k])), keys.index(k)))[:left]:
        counts[k] += 1
    return counts


def basic_per_l2() -> dict[str, int]:
    tools = Counter(t.l2 for t in domain_tools())
    out: dict[str, int] = {}
    for domain, total in BASIC_BY_DOMAIN.items():
        l2s = {code: float(tools[code]) for code in L2 if domain_of(code) == domain}
        out.update(largest_remainder(total, l2s, BASIC_FLOOR))
    return out


@dataclass(frozen=True)
class Slot:
    task_id: str
    family: str


def allocation(prefix: str = "") -> list[Slot]:
    """Every task of the suite as (task id, family), in file order."""
    fams = load_families()
    by = defaultdict(list)
    for f in sorted(fams.values(), key=lambda f: f.name):
        by[(f.category, f.l2)].append(f.name)
    slots: list[Slot] = []
    for l2, count in basic_per_l2().items():
        names = by.get(("basic", l2)) or _missing("basic", l2)
        slots += [Slot(f"{prefix}basic-{l2}-{i + 1:02d}", names[i % len(names)]) for i in range(count)]
    for l2 in L2:
        names = by.get(("subagent", l2)) or _missing("subagent", l2)
        slots.append(Slot(f"{prefix}subagent-{l2}", names[0]))
    for category in ("memory", "skill"):
        plan = _plan(category)
        n = 0
        for name, count in plan:
            if name not in fams or fams[name].category != category:
                raise BuildError(f"the {category} plan names {name!r}, which is not a {category} family")
            for _ in range(count):
                n += 1
                slots.append(Slot(f"{prefix}{category}-{n:03d}", name))
    counts = Counter(s.task_id.removeprefix(prefix).split("-")[0] for s in slots)
    if dict(counts) != TOTALS:
        raise BuildError(f"the allocation gives {dict(counts)}, the paper fixes {TOTALS}")
    return slots


def _missing(category: str, l2: str) -> list[str]:
    raise BuildError(f"no {category} family for level-2 {l2} ({L2[l2]})")


def _plan(category: str) -> list[tuple[str, int]]:
    plan: list[tuple[str, int]] = []
    for info in pkgutil.iter_modules(families_pkg.__path__):
        module = importlib.import_module(f"{families_pkg.__name__}.{info.name}")
        if getattr(module, "CATEGORY", None) == category:
            plan += list(module.PLAN)
    return plan


def siblings(name: str) -> list[str]:
    """The slot's family, then the families of its stratum: the same level-2 for Basic and Sub-agent
    (same tags first), the same tags (memory cell, write, rule) for Memory; none for Skill."""
    fam = FAMILIES[name]
    if fam.category == "skill":
        return [name]
    same = [
        f
        for f in FAMILIES.values()
        if f.name != name
        and f.category == fam.category
        and f.l2 == fam.l2
        and (fam.category != "memory" or f.tags == fam.tags)
    ]
    return [name, *(f.name for f in sorted(same, key=lambda f: (f.tags != fam.tags, f.name)))]


def build_slot(slot: Slot, seed: int, seen: set[tuple[str, str]]) -> Task:
    """Draft the slot's family on personas in a seeded order until a draft builds and is new.

    A family whose phrasings are used up (every draft repeats a query already in the suite, as happens
    when building ``train`` after ``full``) gives way to a family of the same stratum."""
    problems: list[str] = []
    for name in siblings(slot.family):
        try:
            return _build_with(FAMILIES[name], slot, seed, seen, problems)
        except BuildError:
            if not all("duplicate query" in p for p in problems[-ATTEMPTS:]):
                break
    raise BuildError(
        f"{slot.task_id} ({slot.family}): no usable draft in {ATTEMPTS} attempts; "
        + " | ".join(dict.fromkeys(problems[-6:]))
    )


def _build_with(fam: Family, slot: Slot, seed: int, seen: set[tuple[str, str]], problems: list[str]) -> Task:
    personas = sorted(PERSONAS)
    seed_for(seed, slot.task_id).shuffle(personas)
    for attempt in range(ATTEMPTS):
        persona = personas[attempt % len(personas)]
        try:
            draft = fam.build(Gen(persona, seed_for(seed, slot.task_id, attempt)))
            key = (draft.query, repr(draft.history))
            if key in seen:
                problems.append(f"{persona}: duplicate query {draft.query!r}")
                continue
            task = build_task(fam, draft, slot.task_id, persona)
        except BuildError as exc:
            problems.append(f"{persona}: {exc}")
            continue
        seen.add(key)
        return task
    raise BuildError(fam.name)


def build_suite(seed: int = SUITE_SEED, prefix: str = "", avoid: set[tuple[str, str]] | None = None) -> Iterator[Task]:
    """Every task, in allocation order. ``avoid`` holds (query, history) keys another split already uses."""
    seen = set(avoid or ())
    for slot in allocation(prefix):
        yield build_slot(slot, seed, seen)


def stratum(task: Task) -> str:
    """The group ``mini`` samples from: level-2 (Basic), memory cell (Memory), skill (Skill), all (Sub-agent)."""
    if task.category == "basic":
        return task.l2
    if task.category == "skill":
        return task.required_skill_id or ""
    if task.category == "memory":
        return "/".join(task.tags.get(k, "") for k in ("memory_type", "turn", "primary"))
    return ""


def mini_ids(tasks: list[Task]) -> set[str]:
    """A stratified ~10 % sample: every tenth task of each stratum, starting with the first, so every
    level-2 of Basic, every memory cell, every skill and a spread of Sub-agent tasks are present."""
    groups: dict[tuple[str, str], list[Task]] = defaultdict(list)
    for t in tasks:
        groups[(t.category, stratum(t))].append(t)
    return {t.task_id for members in groups.values() for t in members[::MINI_EVERY]}


def domains_without_tasks(tasks: list[Task]) -> list[str]:
    return sorted(set(DOMAINS) - {t.domain for t in tasks})


def with_subsets(tasks: list[Task]) -> list[Task]:
    """Tag the stratified ``mini`` sample (``tags.subset``)."""
    chosen = mini_ids(tasks)
    return [t.model_copy(update={"tags": {**t.tags, "subset": "mini"}}) if t.task_id in chosen else t for t in tasks]


def build_files(progress: Callable[[str], None] | None = None) -> dict[str, list[Task]]:
    """The full suite and the disjoint training split, in file order."""
    full: list[Task] = []
    for task in build_suite(SUITE_SEED):
        full.append(task)
        if progress:
            progress(task.task_id)
    taken = {(t.query, repr([m.model_dump() for m in t.history])) for t in full}
    train: list[Task] = []
    for task in build_suite(TRAIN_SEED, prefix="train-", avoid=taken):
        train.append(task)
        if progress:
            progress(task.task_id)
    return {"full.jsonl": with_subsets(full), "train.jsonl": train}


def write_suite(out_dir: Path = TASK_DIR, progress: Callable[[str], None] | None = None) -> dict[str, Path]:
    written = {}
    for name, tasks in build_files(progress).items():
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / name
        path.write_text("".join(dump_task(t) + "\n" for t in tasks), encoding="utf-8")
        written[name] = path
    return written
