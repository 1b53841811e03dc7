"""Whole episodes driven by generated action sequences.

Each example picks a hand-written task and runs up to ``T_MAX + 3`` actions through
``sandbox.episode.Episode``: the task's gold actions, tools in its action space with arguments
generated from their JSON schemas, domain and app-internal tools outside it, framework actions,
the tools of offered skills before ``load_skill``, unknown names and names that are not strings,
with hostile values mixed in (wrong types, a 1 MB string, 5,000-deep nesting, control characters,
lone surrogates, huge integers, NaN, SQL fragments, paths out of the sandbox).

After every example: each step returned a well-formed envelope (never an InternalError) and wrote
one log row; steps past the budget or after ``finish`` raise and change nothing; the database passes
``PRAGMA integrity_check`` and ``foreign_key_check``; without a successful mutating call, nothing
outside the bookkeeping tables changed; no file appeared in the working directory or the temp
directory; and a second episode of the same task, open the whole time, still holds exactly what a
fresh episode holds. The default 30 examples are derandomised (the same every run, well under 20 s);
``MOBILEPA_FUZZ_EXAMPLES=500`` runs that many fresh random ones instead.
"""

from __future__ import annotations

import functools
import json
import math
import os
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

import sandbox.domains  # noqa: F401
from sandbox.changes import read_diff
from sandbox.db import integrity_problems, transaction
from sandbox.episode import T_MAX, Episode
from sandbox.errors import ErrorType
from sandbox.schema import SYSTEM, metadata, operation_logs
from sandbox.skills import SKILLS
from sandbox.suite import load_split
from sandbox.tasks import Task
from sandbox.tooling import FRAMEWORK, INTERNAL, REGISTRY
from tests.sandbox.test_all_tools import from_schema

pytestmark = pytest.mark.faults

TASKS = load_split("handwritten.jsonl")
EXAMPLES = int(os.environ.get("MOBILEPA_FUZZ_EXAMPLES", "30"))
DERANDOMIZE = "MOBILEPA_FUZZ_EXAMPLES" not in os.environ
ERROR_TYPES = {e.value for e in ErrorType}
FRAMEWORK_TOOLS = sorted(n for n, s in REGISTRY.items() if s.domain == FRAMEWORK)
INTERNAL_TOOLS = sorted(n for n, s in REGISTRY.items() if s.domain == INTERNAL)
DOMAIN_TOOLS = sorted(n for n, s in REGISTRY.items() if s.is_domain_tool)


class _Short:
    """A short repr, so hypothesis can print a failing example holding a huge or very deep value."""

    label = ""

    def __repr__(self) -> str:
        return self.label

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(self.label)


class DeepDict(_Short, dict):  # type: ignore[type-arg]
    pass


class DeepList(_Short, list):  # type: ignore[type-arg]
    pass


class BigStr(_Short, str):
    pass


def _nested(depth: int, kind: type) -> Any:
    """``{"a": {"a": …}}`` or ``[[…]]``, ``depth`` levels; the outer level prints short."""
    root: Any = DeepDict() if kind is dict else DeepList()
    root.label = f"<{kind.__name__} nested {depth} deep>"
    node = root
    for _ in range(depth):
        child: Any = {} if kind is dict else []
        if kind is dict:
            node["a"] = child
        else:
            node.append(child)
        node = child
    return root


MEGABYTE = BigStr("x" * 1_000_000)
MEGABYTE.label = "<1 MB string>"
SQL = [
    "'; DROP TABLE contacts; --",
    "1 OR 1=1",
    "%",
    "_%\\",
    '" OR ""="',
    "Robert'); DELETE FROM Operation_logs;--",
    "contact_001' --",
    "x'); ATTACH DATABASE 'pwn.db' AS pwn; --",
]
PATHS = [
    "../../etc/passwd",
    "/etc/passwd",
    "..\\..\\windows\\system32",
    "file:///etc/passwd",
    "~/.ssh/id_rsa",
    "/../../../tmp/mobilepa-fuzz",
    "./pwn.db",
]
CONTROL = ["\x00", "\x00\x07\x1b[2J\u202e", "line\r\nbreak\ttab", "\ud800", "\udfff lone", "\U0001f600" * 50, " ", ""]
WRONG = [
    0,
    -1,
    2**63,
    -(2**63) - 1,
    10**100,
    1.5,
    math.nan,
    math.inf,
    -math.inf,
    True,
    False,
    None,
    [],
    {},
    [1, 2],
    {"$ne": 1},
    [None],
    {"": ""},
]
HOSTILE_VALUES: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from([*SQL, *PATHS, *CONTROL]),
    st.sampled_from(WRONG),
    st.just(MEGABYTE),
    st.just(_nested(5000, dict)),
    st.just(_nested(5000, list)),
    st.just(_nested(40, dict)),
    st.text(max_size=40),
    st.integers(),
    st.floats(),
)
HOSTILE_ARGUMENTS: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from([None, [], "{}", 42, [{"name": "x"}], {"": None}]),
    st.just(_nested(5000, dict)),
    st.just({"a": MEGABYTE}),
    st.dictionaries(st.text(max_size=12), HOSTILE_VALUES, max_size=4),
)
UNKNOWN_NAMES: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from(
        [
            "",
            "teleport_user",
            "FINISH",
            "finish ",
            "search_contacts\x00",
            "../finish",
            MEGABYTE,
            "'; DROP TABLE Operation_logs; --",
            "\ud800",
        ]
    ),
    st.text(max_size=30),
    st.sampled_from([None, 7, 1.5, ["finish"], {"name": "finish"}, b"finish", True]),
)


@functools.cache
def schema_arguments(name: str) -> st.SearchStrategy[Any]:
    return from_schema("", REGISTRY[name].parameters)


def spoil(arguments: Any) -> st.SearchStrategy[Any]:
    """Schema-valid arguments with hostile values put in, or an extra hostile field, or as they are."""
    if not isinstance(arguments, dict) or not arguments:
        return st.one_of(st.just(arguments), HOSTILE_ARGUMENTS)
    keys = sorted(arguments)
    return st.one_of(
        st.just(arguments),
        st.builds(lambda k, v: {**arguments, k: v}, st.sampled_from(keys), HOSTILE_VALUES),
        st.builds(
            lambda vs: {k: vs.get(k, arguments[k]) for k in keys},
            st.dictionaries(st.sampled_from(keys), HOSTILE_VALUES, max_size=len(keys)),
        ),
        st.builds(lambda v: {**arguments, "bogus'; --": v}, HOSTILE_VALUES),
    )


def arguments_for(name: str) -> st.SearchStrategy[Any]:
    return st.one_of(schema_arguments(name), schema_arguments(name).flatmap(spoil), HOSTILE_ARGUMENTS)


def actions_for(task: Task) -> st.SearchStrategy[tuple[Any, Any]]:
    visible = sorted(task.candidate_tools)
    hidden = sorted(set(DOMAIN_TOOLS) - set(visible))
    skill_tools = sorted({t for s in task.candidate_skills for t in SKILLS[s].tools} - set(visible))

    def named(names: list[str]) -> st.SearchStrategy[tuple[str, Any]]:
        return st.sampled_from(names).flatmap(lambda n: st.tuples(st.just(n), arguments_for(n)))

    choices = [
        st.sampled_from(
            [(a.name, a.arguments) for a in task.gold if a.name != "finish"]  # real writes happen too
            or [("search_memory", {"query": task.query[:200]})]
        ),
        named(visible),
        named(visible),
        named(FRAMEWORK_TOOLS),
        named(hidden),
        named(INTERNAL_TOOLS),
        st.tuples(UNKNOWN_NAMES, HOSTILE_ARGUMENTS),
        st.sampled_from(task.candidate_skills).map(lambda s: ("load_skill", {"skill_id": s}))
        if task.candidate_skills
        else st.just(("load_skill", {"skill_id": "trip_booking"})),
    ]
    if skill_tools:
        choices.append(named(skill_tools))
    return st.one_of(choices)


LENGTHS = st.one_of(st.integers(1, T_MAX), st.integers(T_MAX + 1, T_MAX + 3))  # half the sequences outrun T_max
EPISODES = st.tuples(st.sampled_from(TASKS), LENGTHS).flatmap(
    lambda drawn: st.tuples(st.just(drawn[0]), st.lists(actions_for(drawn[0]), min_size=drawn[1], max_size=drawn[1]))
)


@functools.cache
def fresh_state(task_id: str) -> bytes:
    with Episode(next(t for t in TASKS if t.task_id == task_id)) as episode:
        return episode.state_bytes()


def user_state(state: bytes) -> dict[str, bytes]:
    """Canonical content of the tables outside bookkeeping (``db.state_bytes``: one ``["name",rows]`` line each)."""
    kinds = {t.name: t.info["kind"] for t in metadata.sorted_tables}
    lines = {line[2 : line.index(b'"', 2)].decode(): line for line in state.split(b"\n")}
    assert set(lines) == set(kinds)
    return {name: line for name, line in lines.items() if kinds[name] != SYSTEM}


@functools.cache
def fresh_user_state(task_id: str) -> dict[str, bytes]:
    return user_state(fresh_state(task_id))


def planner_log_rows(episode: Episode) -> int:
    with transaction(episode.conn):
        return int(
            episode.conn.execute(
                select(func.count()).select_from(operation_logs).where(operation_logs.c.actor == "planner")
            ).scalar()
            or 0
        )


def listing(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


STATS: Counter[str] = Counter()


@pytest.fixture
def watched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A fresh working directory and a fresh temp directory, both to stay empty."""
    work, temp = tmp_path / "cwd", tmp_path / "tmp"
    work.mkdir()
    temp.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    return work, temp


def test_generated_action_sequences_leave_the_sandbox_sound(
    watched: tuple[Path, Path], figures: Callable[[str], None]
) -> None:
    work, temp = watched
    STATS.clear()

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=DERANDOMIZE,
        database=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
    )
    @given(EPISODES)
    def run(example: tuple[Task, list[tuple[Any, Any]]]) -> None:
        task, actions = example
        with Episode(task) as episode, Episode(task) as bystander:
            mutated = refused = False
            for name, arguments in actions:
                if episode.done:  # past T_max or after finish: refused, nothing recorded
                    STATS["reached_t_max"] += not episode.finished and not refused
                    before = planner_log_rows(episode)
                    with pytest.raises(RuntimeError, match="is over"):
                        episode.step(name, arguments)
                    assert planner_log_rows(episode) == before
                    STATS["refused_after_end"] += 1
                    refused = True
                    continue
                env = episode.step(name, arguments)
                assert isinstance(env, dict) and set(env) == {"Status", "ErrorType", "Payload"}, env
                assert env["Status"] in ("success", "error") and isinstance(env["Payload"], dict)
                assert (env["ErrorType"] is None) == (env["Status"] == "success"), env
                assert env["ErrorType"] is None or env["ErrorType"] in ERROR_TYPES
                assert env["ErrorType"] != "InternalError", episode.executor.internal_errors
                json.dumps(env, allow_nan=False)  # the planner gets it as JSON
                spec = REGISTRY.get(name) if isinstance(name, str) else None
                mutated |= env["Status"] == "success" and spec is not None and spec.mutating
                STATS["steps"] += 1
                STATS[f"status_{env['ErrorType'] or 'success'}"] += 1
            assert episode.executor.internal_errors == []
            assert planner_log_rows(episode) == len(episode.steps)  # one log row per step
            with transaction(episode.conn):
                assert integrity_problems(episode.conn) == []
                diff = read_diff(episode.conn)
            if not mutated:
                assert diff == {}, f"no mutating call succeeded, yet {sorted(diff)} changed"
                assert user_state(episode.state_bytes()) == fresh_user_state(task.task_id)
            STATS["mutated_episodes" if mutated else "read_only_episodes"] += 1
            assert bystander.state_bytes() == fresh_state(task.task_id)
        assert listing(work) == set() and listing(temp) == set(), "a file appeared"
        STATS["episodes"] += 1

    run()
    errors = sum(n for k, n in STATS.items() if k.startswith("status_") and k != "status_success")
    figures(
        f"FUZZ {STATS['episodes']} episodes, {STATS['steps']} steps ({STATS['status_success']} succeeded, "
        f"{errors} error envelopes, 0 InternalError), {STATS['reached_t_max']} ran into T_max, "
        f"{STATS['refused_after_end']} steps refused past the end, "
        f"{STATS['mutated_episodes']} with writes; integrity, diff, file and bystander checks: all clean"
    )
    assert STATS["mutated_episodes"] and STATS["read_only_episodes"] and STATS["reached_t_max"]
