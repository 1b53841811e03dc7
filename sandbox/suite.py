"""Task files shipped with the package and the splits drawn from them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sandbox.tasks import CATEGORIES, Task, load_tasks

TASK_DIR = Path(__file__).parent / "data" / "tasks"
VALIDATION = TASK_DIR / "validation.json"  # the self-check's counts the dataset card shows


SUBSETS = ("mini",)


def task_path(file: str | Path) -> Path:
    """Where a split's ``file`` is: a task file shipped in ``sandbox/data/tasks`` by its name, or any
    other task file by its path (absolute, ``~``, or relative to the working directory)."""
    shipped = TASK_DIR / file
    if shipped.is_file():
        return shipped
    own = Path(file).expanduser()
    return own.resolve() if own.is_file() else shipped


def load_split(file: str, categories: Sequence[str] | None = None, subset: str | None = None) -> list[Task]:
    """The tasks of a split: a task file under ``sandbox/data/tasks`` or anywhere else (``task_path``),
    optionally one or more categories, optionally a tagged subset (``mini``: the stratified ~10 %
    smoke-test sample)."""
    path = task_path(file)
    if not path.is_file():
        known = ", ".join(sorted(p.name for p in TASK_DIR.glob("*.jsonl")))
        raise FileNotFoundError(
            f"split file {file!r} not found: neither a file nor one of {TASK_DIR}'s (known: {known})"
        )
    for c in categories or ():
        if c not in CATEGORIES:
            raise ValueError(f"split.categories: unknown category {c!r}; known: {', '.join(CATEGORIES)}")
    if subset is not None and subset not in SUBSETS:
        raise ValueError(f"split.subset: unknown subset {subset!r}; known: {', '.join(SUBSETS)}")
    tasks = load_tasks(path)
    return [
        t
        for t in tasks
        if (not categories or t.category in categories) and (subset is None or t.tags.get("subset") == subset)
    ]
