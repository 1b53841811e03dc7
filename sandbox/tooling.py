"""Tool declaration: each tool is one decorated function; its schema, validation and docs derive from it.

A tool is ``fn(ctx, **arguments) -> payload``. The decorator reads the signature (type hints with
pydantic constraints) and the docstring (first line = description, ``Args:`` = argument docs) and
builds the strict argument model that validates calls and the OpenAI ``tools`` schema the planner
sees. Nothing about a tool is written twice.
"""

from __future__ import annotations

import datetime as dt
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, get_type_hints

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.json_schema import GenerateJsonSchema

from sandbox.errors import ErrorType
from sandbox.taxonomy import L2, domain_of

FRAMEWORK = "framework"  # domain of framework actions (memory, skills, sub-agents, ask_user, finish)
INTERNAL = "internal"  # domain of app-internal actions only sub-agent simulators may run

PERMISSIONS = (
    "LOCATION",
    "CONTACTS",
    "CALENDAR",
    "CAMERA",
    "MICROPHONE",
    "PHOTOS",
    "SMS",
    "PHONE",
    "NOTIFICATIONS",
    "ACTIVITY",
    "HEALTH",
    "NEARBY_DEVICES",
    "STORAGE",
)
SERVICES = ("location_service", "bluetooth", "nfc")
NETWORKS = (None, "internet", "cellular")  # what connectivity a tool needs (pipeline step 6)


def _real_date(value: str) -> str:
    dt.date.fromisoformat(value)  # the pattern fixed the shape; this rejects 2025-02-31
    return value


def _real_datetime(value: str) -> str:
    dt.datetime.strptime(value, "%Y-%m-%dT%H:%M")
    return value


def _real_time(value: str) -> str:
    dt.datetime.strptime(value, "%H:%M")
    return value


PHONE_PATTERN = r"^\+?[0-9][0-9 \-]{6,17}$"
EMAIL_PATTERN = r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$"

Text = Annotated[str, Field(min_length=1, max_length=2000)]
Phone = Annotated[str, Field(pattern=PHONE_PATTERN, json_schema_extra={"format": "phone"})]
Email = Annotated[str, Field(pattern=EMAIL_PATTERN, json_schema_extra={"format": "email"})]
# Dates and times have exactly one spelling, so stored values compare as text.
Date = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$"), AfterValidator(_real_date)]
DateTime = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$"), AfterValidator(_real_datetime)]
Time = Annotated[str, Field(pattern=r"^\d{2}:\d{2}$"), AfterValidator(_real_time)]


@dataclass(frozen=True)
class WrongType:
    """A check's finding that an argument's JSON type does not fit the other arguments (a number sent as
    text where only one spelling takes text): refused as InvalidArgumentType naming the field, as the
    schema refuses a plain type error."""

    field: str
    message: str


Check = Callable[[dict[str, Any]], "str | WrongType | None"]


@dataclass(frozen=True)
class ToolSpec:
    """Everything the executor, the planner schema and the docs need to know about one tool."""

    name: str
    domain: str
    l2: str | None
    app: str
    description: str
    mutating: bool
    permissions: tuple[str, ...]
    services: tuple[str, ...]
    network: str | None
    needs_login: bool
    errors: tuple[ErrorType, ...]
    fn: Callable[..., dict[str, Any]]
    args_model: type[BaseModel]
    check: Check | None = None
    parameters: dict[str, Any] = field(default_factory=dict)
    rule: str = ""  # the check's rule as its docstring states it; the planner reads it with the description

    @property
    def is_domain_tool(self) -> bool:
        return self.domain not in (FRAMEWORK, INTERNAL)

    @property
    def stated_description(self) -> str:
        """The description with the rules the tool's check enforces (what the planner and the docs show)."""
        return f"{self.description} {self.rule}" if self.rule else self.description

    def openai_schema(self) -> dict[str, Any]:
        """The tool in the OpenAI ``tools`` format."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.stated_description, "parameters": self.parameters},
        }


class _PlannerSchema(GenerateJsonSchema):
    """JSON schema for planners: optional arguments are plain (not ``anyOf null``), no titles."""

    def nullable_schema(self, schema: Any) -> dict[str, Any]:
        return self.generate_inner(schema["schema"])

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace ``$ref`` with the referenced definition (many tool-call parsers ignore ``$defs``) and
    drop model titles; ``properties`` maps are walked as names, so an argument called title stays."""
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, list):
            return [resolve(v) for v in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            target = defs[node["$ref"].rsplit("/", 1)[-1]]
            return resolve({**target, **{k: v for k, v in node.items() if k != "$ref"}})
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "title":
                continue
            out[key] = {n: resolve(v) for n, v in value.items()} if key == "properties" else resolve(value)
        return out

    return resolve(schema)


_ARGS_SECTION = re.compile(r"^\s*Args:\s*$", re.M)
_ARG_LINE = re.compile(r"^\s{4}(\w+):\s*(.+)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its description and per-argument docs."""
    doc = inspect.cleandoc(doc)
    parts = _ARGS_SECTION.split(doc, maxsplit=1)
    description = " ".join(parts[0].split())
    arg_docs: dict[str, str] = {}
    if len(parts) == 2:
        current = None
        for line in parts[1].splitlines():
            m = _ARG_LINE.match(line)
            if m:
                current = m.group(1)
                arg_docs[current] = m.group(2).strip()
            elif current and line.strip():
                arg_docs[current] += " " + line.strip()
    return description, arg_docs


REGISTRY: dict[str, ToolSpec] = {}


def tool(
    *,
    l2: str | None = None,
    app: str,
    mutating: bool,
    permissions: tuple[str, ...] = (),
    services: tuple[str, ...] = (),
    network: str | None = None,
    needs_login: bool = False,
    errors: tuple[ErrorType, ...] = (),
    check: Check | None = None,
    domain: str | None = None,
) -> Callable[[Callable[..., dict[str, Any]]], Callable[..., dict[str, Any]]]:
    """Declare a tool. ``l2`` places a domain tool in the taxonomy; ``domain`` marks framework/internal.

    ``network`` is ``"internet"`` (Wi-Fi or mobile data) or ``"cellular"`` (SMS and calls: no
    airplane mode). ``check`` holds cross-field rules (step 5 of the pipeline): it returns a message when the
    arguments are well-typed but inconsistent (a ``WrongType`` when a value's type depends on another
    argument), and its docstring states the rules, which the planner's
    schema description carries (so the rule a call is refused by is always one the model could read).
    ``errors`` lists the tool-specific ErrorTypes the
    body may raise after the declared gates.
    """

    def register(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        name = fn.__name__
        if name in REGISTRY:
            raise ValueError(f"tool {name!r} declared twice")
        if (l2 is None) == (domain is None):
            raise ValueError(f"tool {name!r}: give exactly one of l2= (domain tools) or domain=")
        if l2 is not None and l2 not in L2:
            raise ValueError(f"tool {name!r}: unknown level-2 category {l2!r}")
        for p in permissions:
            if p not in PERMISSIONS:
                raise ValueError(f"tool {name!r}: unknown permission {p!r}")
        if network not in NETWORKS:
            raise ValueError(f"tool {name!r}: network must be one of {NETWORKS}")
        for s in services:
            if s not in SERVICES:
                raise ValueError(f"tool {name!r}: unknown service {s!r}")
        description, arg_docs = _parse_docstring(fn.__doc__ or "")
        if not description:
            raise ValueError(f"tool {name!r} has no docstring")
        rule = _stated_rule(name, check)
        model = _args_model(fn, arg_docs)
        parameters = _inline_refs(model.model_json_schema(schema_generator=_PlannerSchema))
        parameters.setdefault("required", [])
        REGISTRY[name] = ToolSpec(
            name=name,
            domain=domain or domain_of(l2 or ""),
            l2=l2,
            app=app,
            description=description,
            mutating=mutating,
            permissions=permissions,
            services=services,
            network=network,
            needs_login=needs_login,
            errors=errors,
            fn=fn,
            args_model=model,
            check=check,
            parameters=parameters,
            rule=rule,
        )
        return fn

    return register


def _stated_rule(name: str, check: Callable[..., Any] | None) -> str:
    """The rule a check enforces, from its docstring; a check that states none is refused."""
    if check is None:
        return ""
    doc = " ".join((inspect.getdoc(check) or "").split())
    if not doc:
        raise ValueError(
            f"tool {name!r}: its check states no rule; give the check a docstring saying what it "
            "requires (the planner reads it in the tool's description)"
        )
    return doc if doc.endswith(".") else doc + "."


# The confirmation rule (docs/task-format.md), stated once on every guarded tool's ``confirm`` argument.
CONFIRM_RULE = "The request itself is never the confirmation: ask the user (ask_user) first and act on their yes."


def _args_model(fn: Callable[..., Any], arg_docs: dict[str, str]) -> type[BaseModel]:
    hints = get_type_hints(fn, include_extras=True)
    fields: dict[str, Any] = {}
    for pname, param in list(inspect.signature(fn).parameters.items())[1:]:  # skip ctx
        if pname not in arg_docs:
            raise ValueError(f"tool {fn.__name__!r}: argument {pname!r} is not documented under Args:")
        annotation = hints[pname]
        default = ... if param.default is inspect.Parameter.empty else param.default
        doc = f"{arg_docs[pname]} {CONFIRM_RULE}" if pname == "confirm" else arg_docs[pname]
        fields[pname] = (annotation, Field(default, description=doc))
    return create_model(f"{fn.__name__}_args", __config__=ConfigDict(strict=True, extra="forbid"), **fields)


# Pydantic error kinds -> pipeline steps 2-5, in the order the executor reports them.
_ORDER = (
    ErrorType.MISSING_REQUIRED_ARGUMENT,
    ErrorType.UNKNOWN_ARGUMENT,
    ErrorType.INVALID_ARGUMENT_TYPE,
    ErrorType.INVALID_ARGUMENT_VALUE,
)


def _classify(kind: str) -> ErrorType:
    if kind == "missing":
        return ErrorType.MISSING_REQUIRED_ARGUMENT
    if kind == "extra_forbidden":
        return ErrorType.UNKNOWN_ARGUMENT
    if kind.endswith("_type") or kind in ("is_instance_of", "int_from_float", "model_attributes_type"):
        return ErrorType.INVALID_ARGUMENT_TYPE
    return ErrorType.INVALID_ARGUMENT_VALUE


def _field_path(loc: tuple[Any, ...]) -> str:
    path = str(loc[0]) if loc else ""
    for part in loc[1:]:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def validate_arguments(
    spec: ToolSpec, arguments: Any
) -> tuple[dict[str, Any] | None, tuple[ErrorType, dict[str, Any]] | None]:
    """Steps 2-5 of the pipeline: return the clean arguments, or the first failing step's error.

    All fields failing that step are named at once (the paper's ``add_contact`` lists every
    missing field).
    """
    if not isinstance(arguments, dict):
        return None, (ErrorType.INVALID_ARGUMENT_TYPE, {"message": "arguments must be a JSON object", "fields": []})
    too_deep, bad_text = _screen(arguments)
    if too_deep:
        return None, (
            ErrorType.INVALID_ARGUMENT_VALUE,
            {"message": f"{spec.name}: arguments are nested more than {MAX_DEPTH} levels deep", "fields": []},
        )
    try:
        parsed = spec.args_model.model_validate(arguments)
    except ValidationError as exc:
        by_kind: dict[ErrorType, list[tuple[str, str]]] = {}
        for err in exc.errors(include_url=False, include_input=False):
            by_kind.setdefault(_classify(err["type"]), []).append((_field_path(err["loc"]), err["msg"]))
        first = next(k for k in _ORDER if k in by_kind)
        problems = by_kind[first]
        fields = sorted({f for f, _ in problems})
        label = {
            ErrorType.MISSING_REQUIRED_ARGUMENT: "missing required argument(s)",
            ErrorType.UNKNOWN_ARGUMENT: "unknown argument(s)",
            ErrorType.INVALID_ARGUMENT_TYPE: "wrong type for",
            ErrorType.INVALID_ARGUMENT_VALUE: "invalid value for",
        }[first]
        detail = "; ".join(f"{f}: {m}" for f, m in problems) if first in _ORDER[2:] else ", ".join(fields)
        return None, (first, {"message": f"{spec.name}: {label} {detail}", "fields": fields})
    if bad_text is not None:  # e.g. "\\ud800" in the model's JSON: no tool body or database can take it
        return None, (
            ErrorType.INVALID_ARGUMENT_VALUE,
            {
                "message": f"{spec.name}: invalid value for {bad_text}: text is not valid Unicode (a lone surrogate)",
                "fields": [bad_text],
            },
        )
    # An explicit null means "not given": the tool's own default applies. Nested models stay models.
    values = parsed.__dict__
    clean = {k: values[k] for k in parsed.model_fields_set if values[k] is not None}
    if spec.check is not None:
        problem = spec.check(clean)
        if isinstance(problem, WrongType):
            message = f"{spec.name}: wrong type for {problem.field}: {problem.message}"
            return None, (ErrorType.INVALID_ARGUMENT_TYPE, {"message": message, "fields": [problem.field]})
        if problem:
            return None, (ErrorType.INVALID_ARGUMENT_VALUE, {"message": f"{spec.name}: {problem}", "fields": []})
    return clean, None


MAX_DEPTH = 32  # no tool's arguments nest deeper; deeper input is hostile or broken


_SURROGATE = re.compile("[\ud800-\udfff]")


def _screen(arguments: dict[Any, Any]) -> tuple[bool, str | None]:
    """Two checks on what a model sent, in one walk (every call pays it): whether the arguments nest more
    than ``MAX_DEPTH`` levels (counting dict values and list items, as JSON nests), and the first top-level
    argument holding a lone surrogate anywhere inside it, in a value or a key (None when none does).

    The walk is iterative (hostile input can be very deep) and stops as soon as a level is too deep.
    Dict keys and tuple items are searched for surrogates but do not count as levels (level 0 below).
    """
    bad = None
    for name, value in arguments.items():
        stack: list[tuple[Any, int]] = [(name, 0), (value, 2)]
        holds = False
        while stack:
            item, level = stack.pop()
            if level > MAX_DEPTH:
                return True, None
            if isinstance(item, str):
                holds = holds or (not item.isascii() and _SURROGATE.search(item) is not None)
            elif isinstance(item, dict):
                below = level + 1 if level else 0
                stack.extend((key, 0) for key in item)
                stack.extend((child, below) for child in item.values())
            elif isinstance(item, list):
                below = level + 1 if level else 0
                stack.extend((child, below) for child in item)
            elif isinstance(item, tuple):
                stack.extend((child, 0) for child in item)
        if holds and bad is None:
            bad = str(name) if not _SURROGATE.search(str(name)) else "argument name"
    return False, bad


def domain_tools() -> list[ToolSpec]:
    """The counted domain tools (framework and internal actions excluded), sorted by name."""
    return sorted((s for s in REGISTRY.values() if s.is_domain_tool), key=lambda s: s.name)


__all__ = [
    "FRAMEWORK",
    "INTERNAL",
    "REGISTRY",
    "Date",
    "DateTime",
    "Email",
    "Literal",
    "Phone",
    "Text",
    "Time",
    "ToolSpec",
    "domain_tools",
    "tool",
    "validate_arguments",
]
