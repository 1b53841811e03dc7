"""The executor: validate in the fixed order, run in one transaction, log one row, return the envelope.

Pipeline (docs/architecture.md §3): action space -> required -> unknown -> types ->
values/formats -> network -> services -> permissions -> session -> the tool body (entity
resolution, state, duplicates, limits, confirmation) -> commit and log. A failed call is rolled
back and changes nothing but its log row.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    CursorResult,
    Integer,
    Select,
    Table,
    Text,
    bindparam,
    cast,
    func,
    insert,
    or_,
    select,
)

from sandbox.db import Prepared, transaction
from sandbox.errors import ErrorType, ToolError
from sandbox.schema import (
    app_permissions,
    apps,
    device_settings,
    id_sequences,
    meta,
    operation_logs,
    user_interactions,
)
from sandbox.tooling import FRAMEWORK, INTERNAL, REGISTRY, ToolSpec, validate_arguments
from sandbox.user import UserAnswer, choose

Envelope = dict[str, Any]

PLANNER = "planner"
SUBAGENT_ACTORS = ("gui_agent", "monitor_agent", "screen_reader_agent", "voice_agent")


def envelope(status: str, error_type: ErrorType | None, payload: dict[str, Any]) -> Envelope:
    return {"Status": status, "ErrorType": error_type.value if error_type else None, "Payload": payload}


_LOG_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
# The C encoder behind _LOG_JSON, made once: ``JSONEncoder.encode`` builds it again for every value, which
# cost more than encoding a typical payload. No circular-reference markers: a cycle recurses until
# RecursionError, which _dumps reports as it reports the ValueError the markers would raise.
_LOG_ENCODE = (
    c_make_encoder(None, str, encode_basestring, None, ":", ",", True, False, True) if c_make_encoder else None
)


def _dumps(value: Any) -> str:
    """JSON for the log; whatever a model sends (cycles aside, JSON cannot hold them) becomes a string."""
    try:
        return _storable("".join(_LOG_ENCODE(value, 0)) if _LOG_ENCODE else _LOG_JSON.encode(value))
    except (RecursionError, ValueError):
        return json.dumps(f"<{type(value).__name__} nested too deeply to log>")


def _storable(text: str) -> str:
    """Text SQLite can store: lone surrogates (JSON may carry ``\\ud800``) become ``\\ud800`` escapes,
    which keeps logged JSON valid JSON."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


@dataclass
class Ctx:
    """What a tool body sees: the episode's connection, the frozen clock and the step."""

    conn: Connection
    executor: Executor
    step: int
    actor: str
    job_id: str | None = None
    body_ran: bool = False  # whether the tool body started (before it, a call has written nothing)

    @property
    def now(self) -> dt.datetime:
        return self.executor.now

    def ts(self) -> str:
        """Deterministic timestamp: the frozen clock plus one second per step."""
        return self.executor.timestamp(self.step)

    def new_id(self, table: Table) -> str:
        """``<prefix>_NNN`` for the table: one above any id ever issued (never reused after a delete)."""
        prefix = id_prefix(table)
        last = _SEQ_GET.run(self.conn, prefix_1=prefix).fetchone()
        n = (last[0] if last else highest_id(self.conn, table)) + 1
        _SEQ_SET.run(self.conn, prefix=prefix, last=n)
        return f"{prefix}_{n:03d}"

    def setting(self, key: str) -> str | None:
        return self.conn.execute(_SETTING, {"key": key}).scalar()

    def call(self, name: str, arguments: dict[str, Any]) -> Envelope:
        """Run another tool as this context's actor (sub-agent flows apply effects this way)."""
        return self.executor.call(name, arguments, actor=self.actor, parent_job_id=self.job_id)


def id_prefix(table: Table) -> str:
    pk = next(iter(table.primary_key.columns))
    return str(table.info.get("id_prefix") or pk.name.removesuffix("_id"))


def highest_id(conn: Connection, table: Table) -> int:
    """The largest NNN among the table's ``<prefix>_NNN`` ids (0 when none)."""
    pk = next(iter(table.primary_key.columns))
    prefix = id_prefix(table)
    return int(
        conn.execute(
            select(func.max(cast(func.substr(pk, len(prefix) + 2), Integer))).where(
                pk.like(f"{prefix}\\_%", escape="\\")
            )
        ).scalar()
        or 0
    )


def sync_id_sequences(conn: Connection, tables: Iterable[Table]) -> None:
    """Record each table's highest id (0 for an empty table), so allocation is one lookup (a world's
    build calls this for every table)."""
    for t in tables:
        if len(t.primary_key.columns) == 1 and isinstance(next(iter(t.primary_key.columns)).type, Text):
            _SEQ_SET.run(conn, prefix=id_prefix(t), last=max(highest_id(conn, t), _current(conn, id_prefix(t))))


def note_inserted_ids(conn: Connection, table: Table, rows: Iterable[dict[str, Any]]) -> None:
    """Raise the table's sequence past ``<prefix>_NNN`` ids inserted with explicit values (a task's
    patches); the world's own ids are already recorded, so no scan of the table is needed."""
    if len(table.primary_key.columns) != 1:
        return
    key, head = next(iter(table.primary_key.columns)).name, id_prefix(table) + "_"
    numbers = [
        int(v[len(head) :])
        for r in rows
        if isinstance(v := r.get(key), str) and v.startswith(head) and v[len(head) :].isdigit()
    ]
    if numbers:
        prefix = id_prefix(table)
        _SEQ_SET.run(conn, prefix=prefix, last=max(*numbers, _current(conn, prefix)))


def _current(conn: Connection, prefix: str) -> int:
    row = _SEQ_GET.run(conn, prefix_1=prefix).fetchone()
    return int(row[0]) if row else 0


_SETTING = select(device_settings.c.value).where(device_settings.c.key == bindparam("key"))
_NOW = Prepared(select(meta.c.value).where(meta.c.key == bindparam("key")))
_SEQ_GET = Prepared(select(id_sequences.c.last).where(id_sequences.c.prefix == bindparam("prefix_1")))
_SEQ_SET = Prepared(id_sequences.insert().prefix_with("OR REPLACE"))
_LOG = Prepared(insert(operation_logs))
_LOG_COLUMNS = (
    "log_id",
    "step",
    "ts",
    "actor",
    "tool_name",
    "args_json",
    "status",
    "error_type",
    "payload_json",
    "parent_job_id",
)
if _LOG.order != _LOG_COLUMNS:  # _write_log passes its values in this order
    raise RuntimeError(f"operation_logs columns changed: {_LOG.order}")
_SETTINGS = Prepared(select(device_settings.c.key, device_settings.c.value))
_GIVEN = Prepared(select(user_interactions.c.answer))
_PERMISSIONS = Prepared(
    select(app_permissions.c.permission, app_permissions.c.state).where(app_permissions.c.app_id == bindparam("app_id"))
)
_APP_STATE = Prepared(select(apps.c.installed, apps.c.logged_in).where(apps.c.app_id == bindparam("app_id")))


_FRAMEWORK_NAMES: tuple[int, list[str]] = (-1, [])


def _framework_names() -> list[str]:
    """Framework action names, sorted (recomputed only when a tool is registered)."""
    global _FRAMEWORK_NAMES
    if _FRAMEWORK_NAMES[0] != len(REGISTRY):
        _FRAMEWORK_NAMES = (len(REGISTRY), sorted(n for n, s in REGISTRY.items() if s.domain == FRAMEWORK))
    return _FRAMEWORK_NAMES[1]


@dataclass
class Executor:
    """Runs calls against one episode database.

    ``visible`` is the task's initial action space A0 of domain tools; framework actions are
    always available; tools of loaded skills join from the step after loading.
    """

    conn: Connection
    visible: frozenset[str]
    skills_offered: tuple[str, ...] = ()
    user_script: tuple[UserAnswer, ...] = ()
    user_reachable: bool = True
    withheld: frozenset[str] = frozenset()  # framework actions an ablation withholds (memory_off: the memory tools)
    step: int = 0
    loaded_skill_tools: set[str] = field(default_factory=set)
    internal_errors: list[str] = field(default_factory=list)
    now: dt.datetime = field(init=False)
    _stamps: dict[int, str] = field(init=False, default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        row = _NOW.run(self.conn, key="now").fetchone()  # a read: no savepoint of its own
        raw_now = row[0] if row else None
        if raw_now is None:
            raise ValueError("world has no meta.now: the frozen clock is missing")
        self.now = dt.datetime.fromisoformat(raw_now)

    def timestamp(self, step: int) -> str:
        """The frozen clock plus ``step`` seconds (formatted once per step: every write stamps rows with it)."""
        stamp = self._stamps.get(step)
        if stamp is None:
            stamp = self._stamps[step] = (self.now + dt.timedelta(seconds=step)).isoformat(timespec="seconds")
        return stamp

    def answer(
        self, question: str, slot: str | None = None, kind: str | None = None, options: Sequence[str] | None = None
    ) -> str | None:
        """The simulated user's answer to what is asked (``sandbox.user``); None when the task declares the
        user unreachable. Answers already given this episode are read back from ``user_interactions``."""
        if not self.user_reachable:
            return None
        given = {a for (a,) in _GIVEN.run(self.conn)} if self.user_script else set()
        return choose(self.user_script, question, slot=slot, kind=kind, options=options, given=given)

    # ---- action space -------------------------------------------------------------------
    def available(self) -> list[str]:
        """Names the planner may call now, in a stable order (A0 order, then skill tools)."""
        framework = [n for n in _framework_names() if self._framework_offered(n)]
        extra = sorted(self.loaded_skill_tools - self.visible)
        return sorted(self.visible) + extra + framework

    def offers(self, name: str) -> bool:
        """Whether the planner could call ``name`` now (monitor plans may only use such tools)."""
        spec = REGISTRY.get(name)
        return spec is not None and self._in_action_space(spec)

    def _framework_offered(self, name: str) -> bool:
        return name not in self.withheld and (name != "load_skill" or bool(self.skills_offered))

    def _in_action_space(self, spec: ToolSpec) -> bool:
        if spec.domain == FRAMEWORK:
            return self._framework_offered(spec.name)
        if spec.domain == INTERNAL:
            return False
        return spec.name in self.visible or spec.name in self.loaded_skill_tools

    # ---- the pipeline -------------------------------------------------------------------
    def call(
        self,
        name: Any,
        arguments: Any,
        *,
        actor: str = PLANNER,
        parent_job_id: str | None = None,
    ) -> Envelope:
        """Execute one call and return its envelope; never raises for anything a caller sends.

        The whole call is one transaction (a savepoint inside the episode's, or inside the sub-agent
        job running it). A call
        refused before its tool body ran (action space, arguments, gates) has written nothing, so its
        log row joins that transaction instead of following a rollback in a second one.
        """
        ctx = Ctx(self.conn, self, self.step, actor, parent_job_id)
        tx = transaction(self.conn)
        try:
            result = envelope("success", None, self._run(ctx, name, arguments))
        except ToolError as err:
            result = envelope("error", err.error_type, err.payload())
        except Exception as exc:  # a sandbox bug: reported, counted, never silent
            self.internal_errors.append(f"{name}: {type(exc).__name__}: {exc}")
            result = envelope("error", ErrorType.INTERNAL_ERROR, {"message": f"internal sandbox error in {name}"})
        if result["Status"] == "success" or not ctx.body_ran:
            self._write_log(ctx, name, arguments, result)
            tx.commit()
        else:
            tx.rollback()
            with transaction(self.conn):
                self._write_log(ctx, name, arguments, result)
        return result

    def _run(self, ctx: Ctx, name: Any, arguments: Any) -> dict[str, Any]:
        spec = REGISTRY.get(name) if isinstance(name, str) else None
        self._precheck(spec, name, ctx.actor)
        assert spec is not None
        clean, arg_error = validate_arguments(spec, arguments)
        if arg_error is not None:
            raise ToolError(arg_error[0], **arg_error[1])
        assert clean is not None
        self._gate(spec)
        ctx.body_ran = True
        return spec.fn(ctx, **clean)

    def _precheck(self, spec: ToolSpec | None, name: Any, actor: str) -> None:
        """Step 1: the tool exists and is in the action space (sub-agents act inside apps directly)."""
        if spec is None:
            raise ToolError(ErrorType.TOOL_NOT_AVAILABLE, f"no tool named {str(name)[:80]!r}")
        if actor == PLANNER and not self._in_action_space(spec):
            hint = "load_skill" if spec.is_domain_tool and self.skills_offered else None
            raise ToolError(
                ErrorType.TOOL_NOT_AVAILABLE,
                f"{spec.name} is not in the current action space",
                **({"hint": hint} if hint else {}),
            )

    def _gate(self, spec: ToolSpec) -> None:
        """Steps 6-9: network, OS services, the app's runtime permissions, the app installed and signed in."""
        settings = dict(_SETTINGS.run(self.conn).fetchall()) if spec.services or spec.network else {}
        if spec.network == "cellular" and settings.get("airplane_mode") == "1":
            raise ToolError(
                ErrorType.NETWORK_UNAVAILABLE, f"{spec.name} needs the cellular network", hint="turn off airplane mode"
            )
        if spec.network == "internet" and not (
            settings.get("wifi") == "1" or (settings.get("mobile_data") == "1" and settings.get("airplane_mode") != "1")
        ):
            raise ToolError(
                ErrorType.NETWORK_UNAVAILABLE,
                f"{spec.name} needs an internet connection",
                hint="turn on Wi-Fi or mobile data",
            )
        for service in spec.services:
            if settings.get(service) != "1":
                raise ToolError(ErrorType.SERVICE_DISABLED, f"{service} is turned off", service=service)
        if spec.permissions:
            states = dict(_PERMISSIONS.run(self.conn, app_id=spec.app).fetchall())
            for permission in spec.permissions:
                state = states.get(permission, "not_requested")
                if state != "granted":
                    reason = "policy" if state == "policy_blocked" else "app_permission"
                    raise ToolError(
                        ErrorType.PERMISSION_DENIED,
                        f"app {spec.app!r} lacks the {permission} permission",
                        app_id=spec.app,
                        permission=permission,
                        reason=reason,
                    )
        installed, logged_in = _APP_STATE.run(self.conn, app_id=spec.app).fetchone() or (1, 1)
        if installed != 1:
            raise ToolError(
                ErrorType.UNSUPPORTED_OPERATION,
                f"app {spec.app!r} is not installed",
                app_id=spec.app,
                hint="install_app",
            )
        if spec.needs_login and logged_in != 1:
            raise ToolError(ErrorType.AUTHENTICATION_REQUIRED, f"app {spec.app!r} is signed out", app_id=spec.app)

    def _write_log(self, ctx: Ctx, name: Any, arguments: Any, result: Envelope) -> None:
        _LOG.run_values(
            self.conn,
            [  # in _LOG_COLUMNS' order
                None,
                ctx.step,
                ctx.ts(),
                ctx.actor,
                _clip(_storable(str(name))),
                _clip(_dumps(arguments)),
                result["Status"],
                result["ErrorType"],
                _dumps(result["Payload"]),
                ctx.job_id,
            ],
        )


_CLIP = 4096


def _clip(text: str) -> str:
    """Logged names and arguments are capped so hostile input cannot bloat the database."""
    return text if len(text) <= _CLIP else text[:_CLIP] + f"...[{len(text) - _CLIP} more chars]"


@functools.cache
def row_by_key(table: Table) -> Select[Any]:
    """SELECT of the row of ``table`` whose single-column primary key is the bound ``key`` (built once per
    table: the lookup every domain's ``_get`` runs)."""
    return select(table).where(next(iter(table.primary_key.columns)) == bindparam("key"))


LIKE_ESCAPE = "/"


def like_escaped(text: str) -> str:
    """``text`` as ``contains(text, autoescape=True)`` binds it: for a statement built once with
    ``contains(bindparam(name), escape=LIKE_ESCAPE)`` instead of per call (building and cache-keying a
    search's statement cost several times the SQLite work)."""
    return text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2).replace("%", LIKE_ESCAPE + "%").replace("_", LIKE_ESCAPE + "_")


def contains_bound(expr: ColumnElement[Any], name: str) -> ColumnElement[bool]:
    """``expr`` contains the bound parameter ``name``, whose value ``like_escaped`` made."""
    return expr.contains(bindparam(name), escape=LIKE_ESCAPE)


def words_match(columns: Sequence[ColumnElement[Any]], count: int) -> list[ColumnElement[bool]]:
    """For each of ``count`` bound words (``word_0``, ``word_1``, ...; ``word_values`` binds them): it
    appears, case-insensitively, in one of ``columns``. A tool builds its statement once per word count."""
    return [or_(*(contains_bound(func.lower(c), f"word_{i}") for c in columns)) for i in range(count)]


def word_values(text: str) -> dict[str, str]:
    """The words of ``text`` (lower-cased, escaped) as ``words_match`` binds them."""
    return {f"word_{i}": like_escaped(w) for i, w in enumerate(text.lower().split())}


def normalise_phone(number: str) -> str:
    """Digits only (a leading + kept): ``+86 139-0000 1234`` -> ``+8613900001234``."""
    digits = re.sub(r"\D", "", number)
    return ("+" if number.strip().startswith("+") else "") + digits


def rows(result: CursorResult[Any]) -> list[dict[str, Any]]:
    """A result's rows as plain dicts (zipping with the keys once is several times faster than
    converting each row's mapping)."""
    keys = tuple(result.keys())
    return [dict(zip(keys, r, strict=True)) for r in result]
