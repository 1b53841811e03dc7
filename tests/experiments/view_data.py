"""Episodes for the viewer's tests: a results store filled as a sweep fills it, by reference planners and by
``ScriptedModel``, a model planner whose replies go through the OpenAI-compatible planner's own reading of
a chat completion (``ChatPlanner.action``), so its steps record what a real model's do: the raw reply, its
reasoning, the finish reason, tokens and format errors."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from experiments.episodes.loop import run_many
from experiments.results.store import ResultsStore, episode_record, file_sha256
from planners import Planner, PlannerAction
from planners.openai_compat import ChatPlanner, Completion, EndpointConfig
from sandbox.episode import Observation
from sandbox.suite import TASK_DIR, load_split
from sandbox.tasks import Task

SPLIT = "handwritten"
TASKS = {t.task_id: t for t in load_split(f"{SPLIT}.jsonl")}
RAMBLE = "I think I should look this up first. Let me consider the contacts. " * 3
CUT = '<tool_call>{"name": "search_contacts", "arguments": {"query": "Ana'
REASONING = "The user wants this done; the next gold step is the right call."


class ScriptedModel(ChatPlanner):
    """Step 1: a plain-text reply with no tool call (``no_tool_call``); step 2: a reply cut off at
    max_tokens (``truncated_reply``); then the task's gold actions as tool calls, with reasoning text.
    ``ramble_tasks``: tasks where it rambles until the step budget instead (so they fail)."""

    def __init__(self, ramble_tasks: Iterable[str] = ()) -> None:
        super().__init__(EndpointConfig(name="scripted-model", model="scripted"))
        self.ramble_tasks = frozenset(ramble_tasks)

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        return self.action(self.reply(task, observation), self._tools(observation.tools).names)

    def reply(self, task: Task, observation: Observation) -> Completion:
        done = sum("action" in m for m in observation.history)  # the calls made so far
        step = observation.step + 1
        if step == 1 or task.task_id in self.ramble_tasks:
            return _completion({"role": "assistant", "content": RAMBLE}, "stop", step)
        if step == 2:
            return _completion({"role": "assistant", "content": CUT}, "length", step)
        action = task.gold[min(done, len(task.gold) - 1)]
        call = {
            "id": f"call{step:05d}",
            "type": "function",
            "function": {"name": action.name, "arguments": json.dumps(action.arguments)},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call], "reasoning_content": REASONING}
        return _completion(message, "tool_calls", step)


def _completion(message: Mapping[str, Any], finish_reason: str, step: int) -> Completion:
    usage = {"prompt_tokens": 1000 + 100 * step, "completion_tokens": 20 + step}
    data = {"choices": [{"index": 0, "message": dict(message), "finish_reason": finish_reason}], "usage": usage}
    return Completion(data, latency_s=0.01, retries=0)


def fill_store(
    path: Path, planners: Mapping[str, Planner], task_ids: Iterable[str], seeds: Iterable[int] = (0,)
) -> Path:
    """Run ``planners`` (store name -> planner) over those tasks of the hand-written split (condition both)
    into a results store at ``path``."""
    store = ResultsStore(path)
    sha256 = file_sha256(TASK_DIR / f"{SPLIT}.jsonl")
    store.check_dataset(SPLIT, f"{SPLIT}.jsonl", sha256)
    tasks = [TASKS[t] for t in task_ids]

    async def episodes(name: str, planner: Planner, seed: int) -> list[dict[str, Any]]:
        return [
            episode_record(r, planner=name, split=SPLIT, condition="both", seed=seed, dataset_hash=sha256)
            async for r in run_many(tasks, planner, condition="both")
        ]

    try:
        for seed in seeds:
            for name, planner in planners.items():
                store.upsert(asyncio.run(episodes(name, planner, seed)))
    finally:
        store.close()
    return path
