"""Episode history -> chat messages, and a chat reply -> one action or a format error.

The request is built so that vLLM's automatic prefix caching can reuse it turn after turn: a fixed
system prompt and the tool schemas come first, every value is serialised with sorted keys, and the
messages for earlier steps are rendered from the history alone, so step *t*'s request is step
*t-1*'s request plus the messages of one step, byte for byte.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from sandbox.episode import FORMAT_ERROR_STEP, context_text

FORMAT_ERROR_KINDS = ("no_tool_call", "unknown_tool", "bad_arguments", "multiple_calls")
"""The kinds ``parse_reply`` finds in a reply's content; the endpoint adds truncated, oversized and
undecodable replies (every kind's message to the model: ``sandbox.episode.FORMAT_ERRORS``)."""

SYSTEM_PROMPT = (
    "You are the planner of a personal assistant running on the user's phone. Fulfil the user's "
    "latest request by calling the tools provided, exactly one tool call per reply. Each tool result "
    'is a JSON envelope {"Status": "success"|"error", "ErrorType": ..., "Payload": {...}}; when a '
    "call fails, read ErrorType and the message, then re-plan. Search the user's memory when the "
    "request depends on personal facts, load a skill when one is offered for the request, delegate "
    "to a sub-agent when the work needs an app without an API, and ask the user only for what you "
    "cannot find out. If a reply of yours is not a single valid tool call, the next user message is "
    "an error envelope saying why. When the request is done, or cannot or must not be done, call "
    "finish with your answer to the user."
)

MAX_NESTING = 32  # containers inside one another in a reply or its arguments (a tool's take a few)
CLIPPED_CHARS = 1024
"""Of a failed reply (a format error), the characters that go back into the conversation (about 300
tokens), and of an oversized one also what the trajectory keeps: fed back whole, replies that repeat
themselves up to ``max_tokens`` push a small model's conversation out of its context in a few steps."""

_TOOL_CALL_TAG = re.compile(r"<tool_call>(.*?)</tool_call>|<tool_call>(.*)", re.DOTALL)


_ENCODE = msgspec.json.Encoder(order="sorted", enc_hook=str).encode  # str subclasses (SQL column names) as text


def encode(value: Any) -> bytes:
    """The one serialisation of every value sent to the model, as UTF-8 JSON: compact, keys sorted, so
    the same value always gives the same bytes (the prefix cache) and no token is spent on spaces.
    Text with a lone surrogate (a model may send ``"\\ud800"``, and its arguments come back in the
    history) cannot be UTF-8: that value is written with ASCII escapes instead, still valid JSON."""
    try:
        return _ENCODE(value)
    except UnicodeEncodeError:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str).encode("ascii")


def dumps(value: Any) -> str:
    """``encode`` as text (tool results and call arguments are strings inside the chat)."""
    return encode(value).decode("utf-8")


def tool_call_id(step: int) -> str:
    """A deterministic id for the call of step ``step`` (1-based): 9 alphanumeric characters, because
    Mistral's chat template rejects any other shape, and OpenAI and vLLM accept it."""
    return f"call{step:05d}"


def h0_length(history: Sequence[Mapping[str, Any]]) -> int:
    """How many leading history entries are the task's dialogue H0.

    Steps start with an action entry, or with a format error's raw reply, which is the entry just
    before the first tool entry; the observation does not mark the boundary, so it is found here.
    """
    first = next((i for i, m in enumerate(history) if m.get("role") == "tool" or "action" in m), len(history))
    if first < len(history) and history[first].get("role") == "tool":
        return first - 1
    return first


def system_message(context: Mapping[str, Any] | None = None) -> str:
    """The fixed system prompt, then the phone's context (date, time, timezone, the user's profile).

    The context closes the system message: it is the same at every step of an episode, so a request
    is still the previous one plus one step's messages (one system message, since some chat templates
    accept no second)."""
    text = context_text(dict(context)) if context else ""
    return f"{SYSTEM_PROMPT}\n\n{text}" if text else SYSTEM_PROMPT


def chat_messages(
    query: str, history: Sequence[Mapping[str, Any]], context: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The chat for one request: system prompt with the phone's context, H0, the query, then one
    exchange per step.

    An action becomes an assistant message with one ``tool_calls`` entry followed by its tool
    result. A format error becomes the model's raw reply, clipped to ``CLIPPED_CHARS``, as assistant
    text followed by a *user* message holding the error envelope: a tool message must answer a tool call id, and the raw
    reply has none that the server would accept back.
    """
    h0 = h0_length(history)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system_message(context)}]
    messages += [{"role": m["role"], "content": m["content"]} for m in history[:h0]]
    messages.append({"role": "user", "content": query})
    steps = history[h0:]
    for step, (said, result) in enumerate(zip(steps[0::2], steps[1::2], strict=True), start=1):
        if result.get("name") == FORMAT_ERROR_STEP:  # clipped: a model repeating itself to max_tokens would
            messages.append({"role": "assistant", "content": clip(said.get("content") or "")})  # fill the context
            messages.append({"role": "user", "content": dumps(result["content"])})
            continue
        call_id = tool_call_id(step)
        action = said["action"]
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": action["name"], "arguments": dumps(action["arguments"])},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call_id, "content": dumps(result["content"])})
    return messages


@dataclass(frozen=True)
class ParsedReply:
    """One reply read as an action (``name``, ``arguments``) or as a format error (``format_error``).

    ``raw`` is the reply as the model will see it again if it is a format error: the text itself,
    or, when the reply carried tool calls, the content and calls as JSON.
    """

    name: str | None
    arguments: dict[str, Any] = field(default_factory=dict)
    format_error: str | None = None
    raw: str = ""
    recovered_from_content: bool = False


def parse_reply(message: Mapping[str, Any], offered: Collection[str], *, max_chars: int | None = None) -> ParsedReply:
    """Read exactly one tool call from a chat reply.

    Calls in ``tool_calls`` come first. When there are none, a Hermes-style ``<tool_call>{...}
    </tool_call>`` in ``content`` is recovered (a server whose tool parser does not match the model
    leaves the call there). Arguments are only required to be a JSON object: whether they fit the
    tool's schema is the executor's judgement (InvalidArgument*), so such a call is a normal step.

    A reply nested deeper than ``MAX_NESTING`` is ``undecodable_reply`` (kept, it would exhaust the
    stack of whatever serialises it next), and one whose content and arguments exceed ``max_chars``
    is ``oversized_reply``; both keep only clipped text in ``raw``, so the conversation stays bounded.
    """
    content = message.get("content") or ""
    calls = message.get("tool_calls") or []
    calls = calls if isinstance(calls, list) else [calls]
    if nests_deeper(message, MAX_NESTING):
        return ParsedReply(
            None, format_error="undecodable_reply", raw=clip(content) if isinstance(content, str) else ""
        )
    if not isinstance(content, str):  # a list of parts or another value: no text to read a call from
        content = dumps(content)
    if max_chars is not None and _reply_chars(content, calls) > max_chars:
        return ParsedReply(None, format_error="oversized_reply", raw=_clipped(content, calls))
    if calls:
        raw = dumps({"content": content or None, "tool_calls": [_call_view(c) for c in calls]})
        if len(calls) > 1:
            return ParsedReply(None, format_error="multiple_calls", raw=raw)
        function = calls[0].get("function") if isinstance(calls[0], Mapping) else None
        function = function if isinstance(function, Mapping) else {}
        return _checked(function.get("name"), _decode_arguments(function.get("arguments")), offered, raw)
    blocks = [m.group(1) if m.group(1) is not None else m.group(2) for m in _TOOL_CALL_TAG.finditer(content)]
    if len(blocks) > 1:
        return ParsedReply(None, format_error="multiple_calls", raw=content)
    call = _json_object(blocks[0]) if blocks else None
    if call is None or not isinstance(call.get("name"), str):
        return ParsedReply(None, format_error="no_tool_call", raw=content)
    arguments = call.get("arguments", call.get("parameters", {}))
    parsed = _checked(call["name"], arguments if isinstance(arguments, dict) else None, offered, content)
    return ParsedReply(parsed.name, parsed.arguments, parsed.format_error, parsed.raw, parsed.format_error is None)


def _checked(name: Any, arguments: dict[str, Any] | None, offered: Collection[str], raw: str) -> ParsedReply:
    if not isinstance(name, str) or name not in offered:
        return ParsedReply(None, format_error="unknown_tool", raw=raw)
    if arguments is None:
        return ParsedReply(None, format_error="bad_arguments", raw=raw)
    if nests_deeper(arguments, MAX_NESTING):  # arguments given as a string are only decoded here
        return ParsedReply(None, format_error="undecodable_reply", raw=clip(raw))
    return ParsedReply(name, arguments, raw=raw)


def nests_deeper(value: Any, limit: int) -> bool:
    """Whether containers nest more than ``limit`` deep in ``value`` (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def clip(text: str, keep: int = CLIPPED_CHARS) -> str:
    """``text`` cut to ``keep`` characters, saying how many were dropped."""
    return text if len(text) <= keep else f"{text[:keep]}… [{len(text) - keep} more characters clipped]"


def _reply_chars(content: str, calls: list[Any]) -> int:
    """The characters of a reply's text and calls (names and arguments as sent)."""
    total = len(content)
    for call in calls:
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping):
            total += len(dumps(call))
            continue
        for part in (function.get("name"), function.get("arguments")):
            total += len(part) if isinstance(part, str) else len(dumps(part)) if part is not None else 0
    return total


def _clipped(content: str, calls: list[Any]) -> str:
    """An oversized reply as the model sees it again: its text and each call's name and arguments clipped."""
    if not calls:
        return clip(content)
    views: list[Any] = []
    for view in map(_call_view, calls):
        if isinstance(view, dict):
            views.append({k: clip(v if isinstance(v, str) else dumps(v)) for k, v in view.items()})
        else:
            views.append(clip(dumps(view)))
    return dumps({"content": clip(content) or None, "tool_calls": views})


def _decode_arguments(arguments: Any) -> dict[str, Any] | None:
    """A call's arguments as an object; None when they are not one. An empty or missing value is
    ``{}``: some OpenAI-compatible servers send that for a call without arguments."""
    if isinstance(arguments, dict):
        return arguments
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return {}
    return _json_object(arguments) if isinstance(arguments, str) else None


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _call_view(call: Any) -> Any:
    """A tool call without its server-chosen id (which would make ``raw`` differ run to run)."""
    if isinstance(call, Mapping) and isinstance(call.get("function"), Mapping):
        return {"name": call["function"].get("name"), "arguments": call["function"].get("arguments")}
    return call
