"""What a task family decides about one task: its own module, below both the build (``core``) and the
answer derivation (``answers``) that read it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sandbox.errors import ErrorType


@dataclass
class Draft:
    """What a family decides; the build adds the id, domain, A0 and the replay's facts."""

    query: str
    gold: list[dict[str, Any]]
    bucket: str
    check: dict[str, Any]
    patches: dict[str, Any] = field(default_factory=dict)
    history: list[dict[str, str]] = field(default_factory=list)
    memory_ids: list[str] = field(default_factory=list)
    skill: str | None = None
    skills: Sequence[str] = ()  # loaders offered (the gold skill(s) and any distractors)
    script: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    recovers: Sequence[ErrorType] = ()  # the ErrorTypes gold steps are meant to hit and recover from
    tags: dict[str, str] = field(default_factory=dict)
    l2: str | None = None  # overrides the family's level-2 category (memory and skill families span several)
    answer: list[Any] | None = None  # the answer check's matchers; None: derived (sandbox/generator/answers.py)
