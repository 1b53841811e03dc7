"""Quick runs: ``limit=N`` (the first N tasks of each split, in file order) and ``task_ids=[a,b]`` (only
those tasks), for ``mobilepa run`` and ``mobilepa sweep`` alike.

Both are plain ``key=value`` arguments; they are passed to Hydra as ``++key=value`` (set or add), so
they need no entry in the shipped configs. A skill task run under both conditions still runs as its
two episodes (``<id>@sor``, ``<id>@mtsr``); ``task_ids`` names tasks, not episodes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

KEYS = ("limit", "task_ids")


class SelectionError(ValueError):
    """``limit`` or ``task_ids`` is malformed, or names a task no split has; one line naming the key."""


def as_override(arg: str) -> str:
    """``limit=5`` -> ``++limit=5`` (Hydra adds the key); any other argument unchanged."""
    key, sep, value = arg.partition("=")
    if sep and key.lstrip("+~") in KEYS:
        return f"++{key.lstrip('+~')}={value}"
    return arg


@dataclass(frozen=True)
class Selection:
    limit: int | None = None
    task_ids: tuple[str, ...] | None = None

    @property
    def active(self) -> bool:
        return self.limit is not None or self.task_ids is not None

    def describe(self) -> str:
        parts = []
        if self.task_ids is not None:
            parts.append(f"task_ids={','.join(self.task_ids)}")
        if self.limit is not None:
            parts.append(f"limit={self.limit}")
        return " ".join(parts)

    def apply(self, tasks: Sequence[Any]) -> list[Any]:
        """The chosen tasks, in the split's order: those named by ``task_ids``, then the first ``limit``."""
        chosen = list(tasks)
        if self.task_ids is not None:
            wanted = set(self.task_ids)
            chosen = [t for t in chosen if t.task_id in wanted]
        return chosen if self.limit is None else chosen[: self.limit]

    def check_known(self, known: Iterable[str], where: str) -> None:
        """Every id of ``task_ids`` is a task of ``known`` (the union of the splits run), else one line."""
        if self.task_ids is None:
            return
        have = set(known)
        unknown = [i for i in self.task_ids if i not in have]
        if unknown:
            raise SelectionError(f"task_ids: unknown task(s) {', '.join(map(repr, unknown))} in {where}")


def selection(config: Any) -> Selection:
    """The validated selection of a run or sweep config (a mapping or a DictConfig); absent keys: none."""
    limit = config.get("limit")
    ids = config.get("task_ids")
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise SelectionError(f"limit: an integer is required, got {limit!r}")
        if limit < 1:
            raise SelectionError(f"limit: at least 1, got {limit}")
    if ids is None:
        return Selection(limit, None)
    if isinstance(ids, str | int):
        ids = [ids]
    try:
        ids = [str(i) for i in ids]
    except TypeError:
        raise SelectionError(f"task_ids: a list of task ids is required, got {ids!r}") from None
    if not ids or not all(ids):
        raise SelectionError("task_ids: a non-empty list of task ids is required, e.g. task_ids=[hw_basic_001]")
    if bad := [i for i in ids if "@" in i]:
        raise SelectionError(
            f"task_ids: {bad[0]!r} is an episode key; give the task id "
            f"({bad[0].split('@')[0]!r}), whose episodes run under the sweep's condition"
        )
    return Selection(limit, tuple(dict.fromkeys(ids)))


def describe(config: Any) -> str:
    """``limit=3 task_ids=a,b`` for the selection keys a config sets ("" when none)."""
    parts = []
    for key in KEYS:
        value = config.get(key)
        if value is not None:
            parts.append(f"{key}={','.join(map(str, value)) if isinstance(value, list | tuple) else value}")
    return " ".join(parts)
