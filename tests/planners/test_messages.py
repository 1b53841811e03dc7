"""History -> chat messages (prefix-stable, append-only) and reply parsing (one call or a format error)."""

from __future__ import annotations

import json
import re

import pytest

import sandbox.domains  # noqa: F401  (an Episode runs the registered tools)
from planners.messages import (
    FORMAT_ERROR_KINDS,
    SYSTEM_PROMPT,
    chat_messages,
    dumps,
    encode,
    h0_length,
    parse_reply,
    tool_call_id,
)
from sandbox.episode import Episode
from sandbox.personas import PERSONAS
from sandbox.suite import load_split

OFFERED = {"add_contact", "finish"}
TASKS = {t.task_id: t for t in load_split("handwritten.jsonl")}


def _call(name: str, arguments: str) -> dict:
    return {"id": "x", "type": "function", "function": {"name": name, "arguments": arguments}}


def test_one_tool_call_is_an_action() -> None:
    parsed = parse_reply({"content": None, "tool_calls": [_call("add_contact", '{"name": "Mo"}')]}, OFFERED)
    assert (parsed.name, parsed.arguments, parsed.format_error) == ("add_contact", {"name": "Mo"}, None)
    assert not parsed.recovered_from_content


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ({"content": "I will add the contact."}, "no_tool_call"),
        ({"content": None, "tool_calls": []}, "no_tool_call"),
        ({"content": "<tool_call>{not json</tool_call>"}, "no_tool_call"),
        ({"tool_calls": [_call("teleport", "{}")]}, "unknown_tool"),
        ({"tool_calls": [_call("add_contact", '{"name": "Mo')]}, "bad_arguments"),
        ({"tool_calls": [_call("add_contact", '["Mo"]')]}, "bad_arguments"),
        ({"tool_calls": [_call("add_contact", "{}"), _call("finish", "{}")]}, "multiple_calls"),
        (
            {
                "content": '<tool_call>{"name": "finish", "arguments": {}}</tool_call><tool_call>{"name": "finish", '
                '"arguments": {}}</tool_call>'
            },
            "multiple_calls",
        ),
        ({"content": '<tool_call>{"name": "teleport", "arguments": {}}</tool_call>'}, "unknown_tool"),
        ({"content": '<tool_call>{"name": "finish", "arguments": "done"}</tool_call>'}, "bad_arguments"),
    ],
)
def test_format_errors_are_classified(message: dict, kind: str) -> None:
    parsed = parse_reply(message, OFFERED)
    assert parsed.name is None and parsed.format_error == kind and kind in FORMAT_ERROR_KINDS


def test_arguments_breaking_the_schema_are_left_to_the_executor() -> None:
    parsed = parse_reply({"tool_calls": [_call("add_contact", '{"nmae": 3}')]}, OFFERED)
    assert parsed.format_error is None and parsed.arguments == {"nmae": 3}


def test_missing_or_empty_arguments_are_an_empty_object() -> None:
    assert parse_reply({"tool_calls": [_call("finish", "")]}, OFFERED).arguments == {}


def test_hermes_call_left_in_content_is_recovered() -> None:
    text = 'Sure.\n<tool_call>\n{"name": "add_contact", "arguments": {"name": "Mo"}}\n</tool_call>'
    parsed = parse_reply({"content": text, "tool_calls": []}, OFFERED)
    assert (parsed.name, parsed.arguments, parsed.recovered_from_content) == ("add_contact", {"name": "Mo"}, True)
    unclosed = parse_reply({"content": '<tool_call>{"name": "finish", "arguments": {"answer": "ok"}}'}, OFFERED)
    assert unclosed.name == "finish" and unclosed.recovered_from_content


def test_raw_of_a_tool_call_reply_is_stable_json() -> None:
    message = {"content": "", "tool_calls": [_call("a", "{}"), _call("b", "{}")]}
    raw = parse_reply(message, OFFERED).raw
    assert json.loads(raw) == {
        "content": None,
        "tool_calls": [{"name": "a", "arguments": "{}"}, {"name": "b", "arguments": "{}"}],
    }


def test_tool_call_ids_are_deterministic_and_fit_mistral() -> None:
    assert tool_call_id(1) == "call00001" and tool_call_id(15) == "call00015"
    assert all(re.fullmatch(r"[A-Za-z0-9]{9}", tool_call_id(n)) for n in range(1, 16))


def test_history_becomes_an_append_only_chat() -> None:
    task = TASKS["hw_memory_004"]  # has a two-message H0
    with Episode(task) as episode:
        chats = [chat_messages(task.query, episode.observation().history)]
        episode.record_format_error("thinking out loud", "no_tool_call", {})
        chats.append(chat_messages(task.query, episode.observation().history))
        episode.step(task.gold[0].name, task.gold[0].arguments)
        chats.append(chat_messages(task.query, episode.observation().history))
    first, second, third = chats
    assert first[0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert first[1:] == [{"role": m.role, "content": m.content} for m in task.history] + [
        {"role": "user", "content": task.query}
    ]
    assert second[: len(first)] == first and third[: len(second)] == second
    raw, feedback = second[len(first) :]
    assert raw == {"role": "assistant", "content": "thinking out loud"}
    assert feedback["role"] == "user" and json.loads(feedback["content"])["Payload"]["format_error"] == "no_tool_call"
    call, result = third[len(second) :]
    assert call["tool_calls"][0]["id"] == result["tool_call_id"] == tool_call_id(2)
    assert json.loads(call["tool_calls"][0]["function"]["arguments"]) == task.gold[0].arguments
    assert json.loads(result["content"])["Status"] == "success"


def test_every_request_states_the_date_and_the_user() -> None:
    """The first request carries the world's frozen clock and the owner's name, and keeps them at every
    step (a model cannot resolve "tomorrow" or sign with the user's name otherwise)."""
    task = TASKS["hw_memory_004"]
    with Episode(task) as episode:
        first = chat_messages(task.query, episode.observation().history, episode.observation().context)
        episode.step(task.gold[0].name, task.gold[0].arguments)
        later = chat_messages(task.query, episode.observation().history, episode.observation().context)
        now = episode.executor.now
    system = first[0]["content"]
    assert system.startswith(SYSTEM_PROMPT)
    assert now.strftime("%Y-%m-%d") in system and now.strftime("%A") in system and now.strftime("%H:%M") in system
    assert PERSONAS[task.initial_state.world].name in system and PERSONAS[task.initial_state.world].timezone in system
    assert later[: len(first)] == first


def test_h0_boundary_is_found_before_a_leading_format_error() -> None:
    h0 = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    error = [{"role": "assistant", "content": "raw"}, {"role": "tool", "name": "<format_error>", "content": {}}]
    assert h0_length(h0) == 2 and h0_length(h0 + error) == 2 and h0_length(error) == 0


def test_values_encode_compact_sorted_and_text_with_a_lone_surrogate_still_encodes() -> None:
    assert encode({"b": [1, "é"], "a": None}) == '{"a":null,"b":[1,"é"]}'.encode()
    hostile = {"name": "Mo\ud800", "n": 1}
    assert encode(hostile) == b'{"n":1,"name":"Mo\\ud800"}' and json.loads(encode(hostile)) == hostile
    assert json.loads(dumps({"x": "\udfff"})) == {"x": "\udfff"}
