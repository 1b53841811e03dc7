"""The model planners' configs as pydantic models: every key, its type and range declared once.

``parse`` validates a ``conf/planner`` mapping against one of them (unknown keys refused, numbers
strict: ``true`` is no integer and ``2.5`` no count) and turns the first problem into one line naming
the dotted key, as every config error of the toolkit does: ``planner.timeouts.conect: unknown key;
known: connect, read, total`` or ``planner.retries.max: must be an integer >= 0, got -1``. What the
models cannot say alone (a base URL required only once no server is started, keys that clash
between sections) the planners check after parsing (``planners.openai_compat``).
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.fields import FieldInfo

Positive = Annotated[float, Field(gt=0)]
NonNegative = Annotated[float, Field(ge=0)]
Count = Annotated[int, Field(ge=1)]

TOOL_CHOICES = ("auto", "required", "none")
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")


class Section(BaseModel):
    """A config mapping: unknown keys refused, values strictly typed, a section given as null taken
    as all its defaults (``timeouts: null`` is ``timeouts: {}``)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _null_sections(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            return {
                k: ({} if v is None and _section_model(cls.model_fields.get(k)) is not None else v)
                for k, v in data.items()
            }
        return data


class Timeouts(Section):
    connect: Positive = 10.0
    read: Positive = 300.0  # between two bytes of a reply
    total: Positive = 900.0  # one step's request from its first attempt, retries and backoff included


class Retries(Section):
    max: Annotated[int, Field(ge=0)] = 4
    backoff_s: NonNegative = 1.0
    max_backoff_s: NonNegative = 30.0


class Limits(Section):
    reply_chars: Count = 65_536  # a reply's text and call arguments; beyond: oversized_reply, clipped
    response_bytes: Count = 2_097_152  # the HTTP body read at most; beyond: oversized_reply, never read


class RateLimits(Section):
    """Client-side limits of a hosted service's plan (null: none), per planner instance; a sweep
    divides them among the units of the planner in flight at once, as it does ``concurrency``."""

    requests_per_minute: Count | None = None
    tokens_per_minute: Count | None = None


class Price(Section):
    """US dollars per 1M tokens of a hosted model, read by the cost analysis only (``experiments.analysis.cost``);
    null: tokens only."""

    prompt: NonNegative | None = None
    cached_prompt: NonNegative | None = None  # prompt tokens served from the provider's cache
    completion: NonNegative | None = None


class Sampling(Section):
    """Sent as given; null: not sent (the server's default)."""

    temperature: NonNegative | None = None
    top_p: Annotated[float, Field(gt=0, le=1)] | None = None
    seed: int | None = None
    max_tokens: Count | None = None
    max_completion_tokens: Count | None = None  # OpenAI's newer name; when set, sent instead of max_tokens
    presence_penalty: Annotated[float, Field(ge=-2, le=2)] | None = None
    frequency_penalty: Annotated[float, Field(ge=-2, le=2)] | None = None
    stop: str | list[str] | None = Field(default=None, description="a string or a list of strings")


class Vllm(Section):
    """The server a sweep starts for ``base_url: null`` (``cluster.services``; whether a server can be
    built from it is that module's question)."""

    gpus: Count | None = None
    tool_call_parser: str | None = None
    chat_template: str | None = None
    serve_args: list[str | int | float] | None = Field(default=None, description="a list of arguments")
    python: str | None = None
    module: str | None = None
    env: dict[str, Any] | None = Field(default=None, description="a mapping of environment variables")
    log_dir: str | None = None
    startup_timeout_s: Positive | None = None
    stop_timeout_s: Positive | None = None
    poll_interval_s: Positive | None = None


class ModelPlanner(Section):
    """The keys every model planner has: which model, its key, and how its endpoint is used."""

    name: str | None = None
    model: str | None = None
    api_key: str | None = None  # prefer api_key_env; masked in every saved config and output
    api_key_env: str | None = Field(default=None, description="the name of an environment variable")
    concurrency: Count = 32
    timeouts: Timeouts = Timeouts()
    retries: Retries = Retries()
    rate_limits: RateLimits = RateLimits()
    sampling: Sampling = Sampling()
    extra_body: dict[str, Any] = Field(default_factory=dict, description="a mapping")
    tool_choice: Literal["auto", "required", "none"] = "auto"
    reasoning_effort: Literal["none", "minimal", "low", "medium", "high", "xhigh"] | None = None
    price: Price = Price()


class OpenAIPlanner(ModelPlanner):
    """``kind: openai``: an OpenAI-compatible chat-completions endpoint (vLLM, a hosted service)."""

    kind: Literal["openai"] = "openai"
    served_model_name: str | None = None
    base_url: str | None = None
    context_tokens: Count | None = None  # the model's context where /v1/models does not say it (hosted APIs)
    limits: Limits = Limits()
    vllm: Vllm = Vllm()


class LiteLLMLimits(Section):
    reply_chars: Count = 65_536


class LiteLLMPlanner(ModelPlanner):
    """``kind: litellm``: a provider whose API is not OpenAI-compatible, through LiteLLM."""

    kind: Literal["litellm"] = "litellm"
    base_url: str | None = None  # LiteLLM's api_base; null: the provider's own
    limits: LiteLLMLimits = LiteLLMLimits()
    drop_params: bool = False  # LiteLLM drops parameters the provider does not take instead of refusing


def evaluated_name(config_name: str, model: str | None, config_model: str | None) -> str:
    """The name a planner's results carry (store row, leaderboard, MLflow, report): its config's name, or,
    when the model evaluated is not the one the config names (``planner.model=<name>`` on the command
    line, a hosted preset), ``<config>:<model>`` with the model's last path part (``hosted_openai:gpt-4o-mini``,
    ``qwen3_8b:Qwen3-8B-AWQ``), so two models run from one config are never one row."""
    if not model or model == config_model:
        return config_name
    return f"{config_name}:{model.rstrip('/').rpartition('/')[2]}"


M = TypeVar("M", bound=BaseModel)


def parse(model: type[M], value: Any, prefix: str = "planner", kind: str | None = None) -> M:
    """``value`` as ``model``, or ValueError with one line naming the first problem's dotted key
    (``prefix.<key>...``); an unknown key is reported before any other problem (a misspelt key
    explains the rest). ``kind`` names the planner kind in the message of an unknown top-level key."""
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
        raise ValueError(describe(model, errors[0], prefix, kind)) from None


def describe(model: type[BaseModel], error: Any, prefix: str, kind: str | None = None) -> str:
    """One line for one pydantic error: the dotted key, what it must be, what it was."""
    owner: type[BaseModel] | None = model
    keys: list[str] = []
    field: FieldInfo | None = None
    for part in error["loc"]:
        if owner is None or not isinstance(part, str):
            break
        if part not in owner.model_fields:
            if error["type"] == "extra_forbidden":
                keys.append(part)
                where = f" for kind {kind}" if kind and len(keys) == 1 else ""
                return f"{_dotted(prefix, keys)}: unknown key{where}; known: {', '.join(sorted(owner.model_fields))}"
            break
        keys.append(part)
        field = owner.model_fields[part]
        owner = _section_model(field)
    if field is None:
        return f"{prefix}: must be a mapping, got {error['input']!r}"
    what = _expected(field)
    verb = "" if what.startswith("one of") else "must be "
    return f"{_dotted(prefix, keys)}: {verb}{what}, got {error['input']!r}"


def _dotted(prefix: str, keys: list[str]) -> str:
    return ".".join([prefix, *keys])


def _expected(field: FieldInfo) -> str:
    """What a field takes, in words: its description, or its type with its bounds."""
    if field.description:
        return field.description
    annotation = _strip_none(field.annotation)
    if get_origin(annotation) is Literal:
        return f"one of {', '.join(map(str, get_args(annotation)))}"
    bounds = []
    for meta in (*field.metadata, *_annotated_metadata(annotation)):
        for name, symbol in (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<=")):
            if isinstance(meta, getattr(annotated_types, name.capitalize())):
                bounds.append(f"{symbol} {getattr(meta, name):g}")
    base = _strip_annotated(annotation)
    words = {
        int: "an integer",
        float: "a number",
        str: "a string",
        bool: "true or false",
        dict: "a mapping",
        list: "a list",
    }.get(get_origin(base) or base)
    if isinstance(base, type) and issubclass(base, BaseModel):
        words = "a mapping"
    return " ".join([words or str(base), " and ".join(bounds)]).strip()


def _strip_none(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        rest = [a for a in get_args(annotation) if a is not type(None)]
        return rest[0] if len(rest) == 1 else annotation
    return annotation


def _strip_annotated(annotation: Any) -> Any:
    return get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation


def _annotated_metadata(annotation: Any) -> tuple[Any, ...]:
    if get_origin(annotation) is not Annotated:
        return ()
    out: list[Any] = []
    for meta in get_args(annotation)[1:]:
        out.extend(meta.metadata if isinstance(meta, FieldInfo) else [meta])
    return tuple(out)


def _section_model(field: FieldInfo | None) -> type[BaseModel] | None:
    annotation = _strip_none(field.annotation) if field is not None else None
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
