"""``mobilepa play KEY``: a person (or an agent in bash) plays one episode as the planner.

The player sees what the OpenAI-compatible planner sends the model (the system message with the
phone's context, H0, the query, each step's envelope, the tools offered now) and nothing a model
does not see: never the task's gold, check, required memory ids or user script before the verdict.
The episode runs through the project's own loop (``run_episode``) with the player as the planner,
and each typed call is read by the model planner's own parser (``parse_reply``), so a call a model
would get a format error for costs the player a step too; only text that is no action at all
(malformed JSON) is refused for free.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import re
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from rich.console import Console

from experiments.commands.config import CONF_DIR
from experiments.episodes.loop import EpisodeResult, run_episode
from planners.base import PlannerAction
from planners.messages import dumps, parse_reply, system_message
from planners.openai_compat import OpenAICompatPlanner, OpenAIConfig
from sandbox.conditions import BOTH, KNOWN
from sandbox.episode import T_MAX, Observation
from sandbox.suite import load_split
from sandbox.tasks import Task

CONDITIONS = tuple(c for c in KNOWN if c != BOTH)  # one episode runs under one condition
PLAY_DIR = Path("outputs") / "play"
REQUEST_PLACEHOLDER_URL = "http://localhost:8000/v1"  # the URL is not part of the body
_NAME_ONLY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

EPILOG = """\
actions: one per line, as JSON {"name": "<tool>", "arguments": {...}}; a tool without arguments may be
given by its name alone (finish needs an answer). Blank lines and lines starting with # are skipped. A
line that is not an action (malformed JSON) is reported and costs no step; a call the model would get
a format error for (a tool not offered now, arguments that are not an object) costs one, as it would
cost the model.

turn by turn from bash (stdin not a terminal: actions are read from stdin until EOF; at EOF before
finish the current state is printed and play exits 0 without a verdict):
  mobilepa play basic-1.1-01 --actions run.jsonl < /dev/null    # creates run.jsonl; shows the start
  echo '{"name": "search_calendar_events", "arguments": {"query": "Quarterly planning"}}' >> run.jsonl
  mobilepa play basic-1.1-01 --actions run.jsonl < /dev/null    # replays run.jsonl; shows the new envelope
  ... one line appended per turn (each run ends with the command to rerun), until a finish line:
  echo '{"name": "finish", "arguments": {"answer": "..."}}' >> run.jsonl
  mobilepa play basic-1.1-01 --actions run.jsonl < /dev/null    # replays all, prints the verdict
Replayed envelopes are printed on one line, as the model reads them; the newest one pretty-printed.
The same actions file always gives the same envelopes and verdict. At a terminal, play prompts for
one action per step; Ctrl-D stops without a verdict (the actions played are saved).
"""


class EndOfActions(Exception):
    """The player's actions ran out before the episode ended: play stops without a verdict."""


class PlayError(ValueError):
    """A command line that names no playable episode; the message says what to give instead."""


def split_tasks(split: str) -> list[Task]:
    """The tasks of a split named as in ``conf/split`` (what ``mobilepa run split=NAME`` loads)."""
    path = Path(CONF_DIR) / "split" / f"{split}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in path.parent.glob("*.yaml")))
        raise PlayError(f"--split: unknown split {split!r}; known: {known}")
    cfg = OmegaConf.load(path)
    return load_split(cfg.file, cfg.get("categories"), cfg.get("subset"))  # type: ignore[arg-type]  # a DictConfig


def find_task(key: str, split: str, condition: str | None) -> tuple[Task, str]:
    """The task and condition a key names: a task id, or an episode key ``<task_id>@<condition>``."""
    task_id, _, keyed = key.partition("@")
    if keyed and condition and keyed != condition:
        raise PlayError(f"{key!r} names condition {keyed!r} but --condition is {condition!r}")
    chosen = keyed or condition or "default"
    if chosen not in CONDITIONS:
        raise PlayError(f"condition: unknown {chosen!r}; one of {', '.join(CONDITIONS)}")
    tasks = {t.task_id: t for t in split_tasks(split)}
    if task_id not in tasks:
        near = difflib.get_close_matches(task_id, list(tasks), n=3)
        suggestion = f"; did you mean {', '.join(near)}?" if near else ""
        raise PlayError(f"no task {task_id!r} in split {split!r}{suggestion}")
    return tasks[task_id], chosen


def request_planner(name: str, seed: int) -> OpenAICompatPlanner:
    """The OpenAI-compatible planner of ``conf/planner/NAME.yaml``, composed as a run composes it, so
    ``--request`` prints the body its own ``request_body`` builds (a null base URL gets a placeholder:
    the URL is not in the body)."""
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        cfg = compose("config", overrides=[f"planner={name}", f"seed={seed}"])
    config = OmegaConf.to_container(cfg.planner, resolve=True)
    assert isinstance(config, dict)
    if config.get("kind") != "openai":
        raise PlayError(f"--planner: {name!r} is of kind {config.get('kind')!r}; --request needs a model (kind openai)")
    config["base_url"] = config.get("base_url") or REQUEST_PLACEHOLDER_URL
    return OpenAICompatPlanner(OpenAIConfig.from_mapping(config))  # type: ignore[arg-type]


def read_action(line: str) -> dict[str, Any]:
    """One action line as ``{"name", "arguments"}``; ValueError (no step spent) when it is not one."""
    text = line.strip()
    if _NAME_ONLY.fullmatch(text):
        return {"name": text, "arguments": {}}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"not JSON ({exc.msg} at column {exc.colno}); "
            'an action is {"name": "<tool>", "arguments": {...}} or a tool name alone'
        ) from None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        raise ValueError('an action is a JSON object with a "name" string: {"name": "<tool>", "arguments": {...}}')
    extra = sorted(set(value) - {"name", "arguments"})
    if extra:
        raise ValueError(f"unknown key(s) {', '.join(map(repr, extra))}; an action has only name and arguments")
    return {"name": value["name"], "arguments": value.get("arguments", {})}


def as_model_reply(action: dict[str, Any]) -> dict[str, Any]:
    """The action as a model's chat reply with one tool call (its arguments as a JSON string)."""
    arguments = action["arguments"]
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "play",
                "type": "function",
                "function": {
                    "name": action["name"],
                    "arguments": arguments if isinstance(arguments, str) else dumps(arguments),
                },
            }
        ],
    }


def tool_line(tool: dict[str, Any]) -> str:
    """``name(required, optional?) description``: enough to call most tools without the schema."""
    function = tool["function"]
    parameters = function.get("parameters") or {}
    required = set(parameters.get("required") or ())
    names = [p if p in required else f"{p}?" for p in parameters.get("properties") or {}]
    return f"{function['name']}({', '.join(names)})  {' '.join(function.get('description', '').split())}"


@dataclass
class Actions:
    """Where actions come from (the replayed file first, then stdin) and where played ones are saved."""

    replay: list[tuple[str, dict[str, Any]]]  # (file:line, action), malformed lines already dropped
    live: TextIO
    save: TextIO
    interactive: bool
    save_replayed: bool  # False when the save file is the replayed file itself: new actions are appended

    def next_replayed(self) -> tuple[str, dict[str, Any]] | None:
        return self.replay.pop(0) if self.replay else None

    def next_live(self, prompt: str) -> str | None:
        """The next line the player gives; None at EOF."""
        while True:
            try:
                line = input(prompt) if self.interactive else self.live.readline()
            except EOFError:
                print()  # off the prompt's line
                return None
            if not self.interactive and not line:
                return None
            if line.strip() and not line.lstrip().startswith("#"):
                return line

    def record(self, action: dict[str, Any], *, replayed: bool) -> None:
        if replayed and not self.save_replayed:
            return
        self.save.write(json.dumps(action, ensure_ascii=False) + "\n")
        self.save.flush()


class Player:
    """The planner the loop asks for each action: shows what the model would be shown, then reads one."""

    name = "player"

    def __init__(
        self,
        console: Console,
        actions: Actions,
        *,
        t_max: int,
        schemas: bool,
        request: OpenAICompatPlanner | None,
        hint: Callable[[], str],
    ) -> None:
        self.console = console
        self.actions = actions
        self.t_max = t_max
        self.schemas = schemas
        self.request = request
        self.hint = hint
        self.offered: list[str] = []
        self.first_offered: list[str] = []

    async def act(self, task: Task, observation: Observation) -> PlannerAction:
        step = observation.step + 1
        if observation.step == 0:
            self.show_start(observation)
        else:
            self.show_envelope(observation, compact=bool(self.actions.replay))
            self.show_new_tools(observation)
        replayed = self.actions.next_replayed()
        action = replayed[1] if replayed else self.live_action(observation)
        self.actions.record(action, replayed=replayed is not None)
        self.console.rule(f"step {step}/{self.t_max}" + (" (replayed)" if replayed else ""))
        self.console.print(f"> {action['name']} {dumps(action['arguments'])}", markup=False)
        parsed = parse_reply(as_model_reply(action), self.offered)
        if parsed.format_error:
            return PlannerAction(None, raw=parsed.raw, format_error=parsed.format_error)
        return PlannerAction(parsed.name, parsed.arguments, raw=parsed.raw)

    def live_action(self, observation: Observation) -> dict[str, Any]:
        """The player's next action; text that is none is reported and asked again, at no step's cost."""
        step = observation.step + 1
        if self.request is not None:
            self.console.rule(f"request body for step {step}")
            self.console.print(self.request.request_body(observation).decode("utf-8"), markup=False)
        while True:
            line = self.actions.next_live(f"step {step}/{self.t_max} action> ")
            if line is None:
                self.show_waiting(observation)
                raise EndOfActions
            try:
                return read_action(line)
            except ValueError as exc:
                self.console.print(f"not an action, no step spent: {exc}", style="red", markup=False)

    def show_start(self, observation: Observation) -> None:
        """The first request's content: system message, conversation, tools."""
        self.console.rule("system")
        self.console.print(system_message(observation.context), markup=False)
        self.console.rule("conversation")
        for message in observation.history:  # at step 0 the history is H0 alone
            self.console.print(f"{message['role']}: {message['content']}", markup=False)
        self.console.print(f"user: {observation.query}", markup=False)
        self.console.rule(f"tools offered ({len(observation.tools)})")
        self.show_tools(observation.tools)
        self.offered = self.first_offered = [t["function"]["name"] for t in observation.tools]

    def show_tools(self, tools: list[dict[str, Any]]) -> None:
        for tool in tools:
            self.console.print(dumps(tool) if self.schemas else tool_line(tool), markup=False)

    def show_envelope(self, observation: Observation, *, compact: bool) -> None:
        """The last step's envelope: one line (as the model reads it) while replaying, else pretty."""
        envelope = observation.history[-1]["content"]
        text = dumps(envelope) if compact else json.dumps(envelope, indent=2, sort_keys=True, ensure_ascii=False)
        self.console.print(text, markup=False)

    def show_new_tools(self, observation: Observation) -> None:
        names = [t["function"]["name"] for t in observation.tools]
        added = [t for t in observation.tools if t["function"]["name"] not in self.offered]
        if added:
            self.console.print(f"tools now offered too ({len(added)} new, {len(names)} in all):", markup=False)
            self.show_tools(added)
        self.offered = names

    def show_waiting(self, observation: Observation) -> None:
        """What a turn-by-turn player needs to give the next action (no verdict: the episode goes on)."""
        self.console.rule(f"waiting for step {observation.step + 1} of {self.t_max} (no verdict yet)")
        if observation.step:  # at step 0 they were just listed
            grown = "" if self.offered == self.first_offered else ", including tools a skill added"
            self.console.print(
                f"tools offered now ({len(self.offered)}{grown}): {', '.join(self.offered)}", markup=False
            )
        self.console.print(self.hint(), markup=False)


def show_verdict(console: Console, result: EpisodeResult) -> None:
    """The last envelope (the loop asks no more actions after the end) and the project's verdict."""
    steps = result.trajectory.steps
    if steps:
        console.print(json.dumps(steps[-1].envelope, indent=2, sort_keys=True, ensure_ascii=False), markup=False)
    v = result.verdict
    outcome = "PASS" if v.passed else ("UNSCORABLE" if not v.scorable else "FAIL")
    console.rule(f"verdict: {outcome}")
    gate = {None: "not required", True: "pass", False: "fail"}
    console.print(
        f"{outcome}  task {v.task_id} ({v.category}, bucket {v.bucket}), {v.termination} after {len(steps)} step(s)",
        style="bold green" if v.passed else "bold red",
        markup=False,
    )
    console.print(
        f"checker: {'pass' if v.checker_passed else 'fail'}; memory gate: {gate[v.memory_gate]}; "
        f"skill gate: {gate[v.skill_gate]}",
        markup=False,
    )
    for reason in v.reasons:
        console.print(f"- {reason}", markup=False)


def replay_lines(path: Path) -> list[tuple[str, str]]:
    """The action lines of a file, each with ``file:line`` for messages (a missing file starts empty)."""
    if not path.exists():
        return []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise PlayError(f"--actions {path}: not a text file of actions ({exc.reason} at byte {exc.start})") from None
    return [
        (f"{path}:{n}", line)
        for n, line in enumerate(lines, start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def replayed_actions(lines: list[tuple[str, str]], console: Console) -> list[tuple[str, dict[str, Any]]]:
    """The file's actions; a line that is none is reported and skipped, as typed text would be (no step)."""
    actions = []
    for where, line in lines:
        try:
            actions.append((where, read_action(line)))
        except ValueError as exc:
            console.print(f"{where}: not an action, skipped, no step spent: {exc}", style="red", markup=False)
    return actions


def default_save(key: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path, n = PLAY_DIR / f"{key}-{stamp}.jsonl", 1
    while path.exists():
        n += 1
        path = PLAY_DIR / f"{key}-{stamp}-{n}.jsonl"
    return path


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mobilepa play",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
        description="Play one episode as the planner: see what the model is sent, type one action per turn, "
        "get the verdict (pass/fail, bucket, gates, reasons) at finish or T_max.",
    )
    p.add_argument("key", metavar="KEY", help="a task id, or an episode key <task_id>@<condition> (skill tasks)")
    p.add_argument("--split", default="full", help="the split holding the task (conf/split; default full)")
    p.add_argument(
        "--condition",
        choices=CONDITIONS,
        default=None,
        help="skill condition: the initial action space of a skill task (default: default = the task's A0)",
    )
    p.add_argument("--t-max", type=int, default=T_MAX, help=f"step budget (default {T_MAX})")
    p.add_argument(
        "--actions",
        type=Path,
        help="replay this JSONL file of actions first (a missing one starts "
        "empty); new actions are appended to it unless --save names another file",
    )
    p.add_argument(
        "--save",
        type=Path,
        help=f"write every action played here (default: the --actions file, else {PLAY_DIR}/<key>-<time>.jsonl)",
    )
    p.add_argument("--schemas", action="store_true", help="print the tools' full JSON schemas as sent")
    p.add_argument(
        "--request",
        action="store_true",
        help="print the exact request body the OpenAI-compatible planner sends, before each live action",
    )
    p.add_argument("--planner", default="qwen3_8b", help="model config for --request (conf/planner; default qwen3_8b)")
    p.add_argument("--seed", type=int, default=0, help="the run seed --request's sampling uses (default 0)")
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    console = Console(highlight=False, soft_wrap=True)
    try:
        if args.t_max < 1:
            raise PlayError("--t-max: at least 1")
        task, condition = find_task(args.key, args.split, args.condition)
        request = request_planner(args.planner, args.seed) if args.request else None
        replay = replay_lines(args.actions) if args.actions else []
    except (PlayError, ValueError, FileNotFoundError) as exc:
        print(f"mobilepa play: {exc}", file=sys.stderr)
        return 2
    key = task.task_id if condition == "default" else f"{task.task_id}@{condition}"
    save_path = args.save or args.actions or default_save(key)
    appending = args.actions is not None and save_path.resolve() == args.actions.resolve()
    save_path.parent.mkdir(parents=True, exist_ok=True)

    def hint() -> str:
        options = [f"--split {shlex.quote(args.split)}"] if args.split != "full" else []
        options += [f"--t-max {args.t_max}"] if args.t_max != T_MAX else []
        command = shlex.join(["mobilepa", "play", key]) + "".join(f" {o}" for o in options)
        return (
            f"next: append one action line to {save_path}, then rerun:\n"
            f"  {command} --actions {shlex.quote(str(save_path))} < /dev/null"
        )

    with save_path.open("a" if appending else "w", encoding="utf-8") as save:
        console.print(
            f"mobilepa play {key} (split {args.split}, condition {condition}, {task.category}, "
            f"T_max {args.t_max}); {len(replay)} action line(s) to replay; actions saved to {save_path}",
            markup=False,
        )
        actions = Actions(
            replayed_actions(replay, console),
            sys.stdin,
            save,
            interactive=sys.stdin.isatty(),
            save_replayed=not appending,
        )
        player = Player(console, actions, t_max=args.t_max, schemas=args.schemas, request=request, hint=hint)
        try:
            result = asyncio.run(run_episode(task, player, t_max=args.t_max, condition=condition, key=key))
        except EndOfActions:
            return 0
        except KeyboardInterrupt:
            console.print(f"\ninterrupted; the actions so far are in {save_path}", markup=False)
            return 130
    show_verdict(console, result)
    if actions.replay:
        console.print(
            f"note: {len(actions.replay)} action line(s) after the end were not played (first: {actions.replay[0][0]})",
            markup=False,
        )
    return 0
