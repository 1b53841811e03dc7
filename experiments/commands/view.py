"""``mobilepa view``: read the episodes of a run folder or a results store without unpacking gzip JSON.

Without a KEY it lists episodes (filtered by planner, split, condition, seed, verdict, category,
termination or a reason's text); with one it shows that episode as the model saw it: the system
message with the phone's context, the dialogue H0 and the query (rebuilt from the task file, since
trajectories keep only what changes), then each call with its arguments and envelope, the state
diff, and the verdict with its reasons, tokens and latency. A terminal gets rich, a pipe plain text
(the listing as tab-separated columns), and ``--html DIR`` linked pages: an index whose columns
filter the table, and one page per episode.
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import html
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from omegaconf import OmegaConf
from rich.console import Console
from rich.table import Table
from rich.text import Text

from experiments.commands.config import CONF_DIR
from experiments.results.store import ResultsStore, file_sha256, trajectory_json
from planners.messages import dumps, system_message
from sandbox.episode import FORMAT_ERROR_STEP, Episode
from sandbox.suite import TASK_DIR, load_split
from sandbox.tasks import Task

DEFAULT_STORE = Path("outputs") / "results.db"
DEFAULT_RUNS = Path("outputs") / "run"
VERDICTS = ("pass", "fail", "unscorable")
ID_PARTS = ("planner", "split", "condition", "seed", "key")  # an episode's id: oracle/mini/both/0/<key>
COLUMNS = (
    "planner",
    "split",
    "condition",
    "seed",
    "key",
    "verdict",
    "category",
    "bucket",
    "termination",
    "steps",
    "tokens",
    "latency_s",
    "reason",
)


class ViewError(ValueError):
    """The command names no readable source or no single episode; the message says what to give."""


def episode_id(row: dict[str, Any]) -> str:
    return "/".join(str(row[k]) for k in ID_PARTS)


def _usage(steps: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Token and latency totals of a trajectory's steps, as the store keeps them per row."""
    prompt = [s["planner"]["prompt_tokens"] for s in steps if s["planner"].get("prompt_tokens") is not None]
    completion = [s["planner"]["completion_tokens"] for s in steps if s["planner"].get("completion_tokens") is not None]
    return {
        "prompt_tokens": sum(prompt) if prompt else None,
        "completion_tokens": sum(completion) if completion else None,
        "planner_latency_s": round(sum(s["planner"].get("planner_latency_s", 0.0) for s in steps), 6),
        "format_errors": sum(s["name"] == FORMAT_ERROR_STEP for s in steps),
    }


class Source(Protocol):
    label: str

    def rows(self) -> list[dict[str, Any]]: ...

    def trajectory(self, row: dict[str, Any]) -> dict[str, Any]: ...

    def close(self) -> None: ...


class RunSource:
    """The run folders (``results.json``, ``episodes.jsonl``, ``trajectories.jsonl.gz``) at or below a
    folder. Where two runs hold the same episode id, the newer ``results.json`` wins, as a re-run
    replaces a row in the store."""

    def __init__(self, root: Path) -> None:
        self.label = str(root)
        folders = sorted(
            {p.parent for p in root.rglob("episodes.jsonl")} if root.is_dir() else set(),
            key=lambda d: (d / "results.json").stat().st_mtime if (d / "results.json").exists() else 0,
        )
        if not folders:
            raise ViewError(f"no run folder (episodes.jsonl) at or below {root}")
        self._rows: dict[str, dict[str, Any]] = {}
        self._trajectories: dict[str, dict[str, Any]] = {}
        for folder in folders:
            for row, trajectory in self._read(folder):
                self._rows[row["id"]] = row
                self._trajectories[row["id"]] = trajectory

    @staticmethod
    def _read(folder: Path) -> Iterable[tuple[dict[str, Any], dict[str, Any]]]:
        """Rows shaped like the store's; run_job writes both files in key order, so line i of one is line i
        of the other."""
        results = folder / "results.json"
        if not results.is_file():
            raise ViewError(f"{folder}: no results.json (the run did not finish)")
        doc = json.loads(results.read_text(encoding="utf-8"))
        episodes = [json.loads(line) for line in (folder / "episodes.jsonl").read_text(encoding="utf-8").splitlines()]
        with gzip.open(folder / "trajectories.jsonl.gz", "rt", encoding="utf-8") as fh:
            trajectories = [json.loads(line) for line in fh]
        if len(episodes) != len(trajectories):
            raise ViewError(f"{folder}: {len(episodes)} episodes but {len(trajectories)} trajectories")
        dataset = (doc.get("provenance") or {}).get("task_file_sha256")
        for episode, trajectory in zip(episodes, trajectories, strict=True):
            if episode["task_id"].partition("@")[0] != trajectory["task_id"]:
                raise ViewError(
                    f"{folder}: episodes.jsonl and trajectories.jsonl.gz are out of step at {episode['task_id']}"
                )
            verdict = "unscorable" if not episode["scorable"] else "pass" if episode["passed"] else "fail"
            row = {
                **episode,
                "planner": doc["planner"],
                "split": doc["split"],
                "seed": doc["seed"],
                "condition": doc["condition"],
                "key": episode["task_id"],
                "task_id": trajectory["task_id"],
                "verdict": verdict,
                "dataset_hash": dataset,
                "run": str(folder),
                **_usage(trajectory["steps"]),
            }
            row["id"] = episode_id(row)
            yield row, trajectory

    def rows(self) -> list[dict[str, Any]]:
        return sorted(self._rows.values(), key=lambda r: tuple(r[k] for k in ID_PARTS))

    def trajectory(self, row: dict[str, Any]) -> dict[str, Any]:
        return self._trajectories[row["id"]]

    def close(self) -> None:
        """Nothing is held open: the folders were read whole."""


class StoreSource:
    """A results store; rows are read without trajectories, and one trajectory at a time when shown."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise ViewError(f"no results store at {path}")
        self.label = str(path)
        self.store = ResultsStore(path)

    def rows(self) -> list[dict[str, Any]]:
        rows = []
        for row in self.store.rows():
            # the store's task_id column holds the episode key (<task_id>@<condition> for a task run twice)
            row = {
                **row,
                "key": row["task_id"],
                "task_id": row["task_id"].partition("@")[0],
                "reasons": json.loads(row["reasons"]),
            }
            row["id"] = episode_id(row)
            rows.append(row)
        return rows

    def trajectory(self, row: dict[str, Any]) -> dict[str, Any]:
        [stored] = self.store.rows(
            with_trajectories=True,
            planner=row["planner"],
            split=row["split"],
            condition=row["condition"],
            seed=row["seed"],
            task_id=row["key"],
        )
        return json.loads(trajectory_json(stored))

    def close(self) -> None:
        self.store.close()


def open_source(run: Path | None, store: Path | None) -> Source:
    """The source named, else the default store, else the default runs folder."""
    if run is not None:
        return RunSource(run)
    if store is not None:
        return StoreSource(store)
    if DEFAULT_STORE.is_file():
        return StoreSource(DEFAULT_STORE)
    if DEFAULT_RUNS.is_dir():
        return RunSource(DEFAULT_RUNS)
    raise ViewError(f"no {DEFAULT_STORE} or {DEFAULT_RUNS}: give --run DIR or --store PATH")


@dataclass(frozen=True)
class Filters:
    planner: str | None = None
    split: str | None = None
    condition: str | None = None
    seed: int | None = None
    verdict: str | None = None
    category: str | None = None
    termination: str | None = None
    reason: str | None = None  # a substring of any reason, case-insensitive

    def match(self, row: dict[str, Any]) -> bool:
        for name in ("planner", "split", "condition", "seed", "verdict", "category", "termination"):
            wanted = getattr(self, name)
            if wanted is not None and row[name] != wanted:
                return False
        return self.reason is None or any(self.reason.lower() in r.lower() for r in row["reasons"])


def find_episode(rows: Sequence[dict[str, Any]], key: str) -> dict[str, Any]:
    """The one row a KEY names: a full id (planner/split/condition/seed/key), an episode key, or a task id
    (both conditions of a skill task then match, and the message lists them)."""
    matches = [r for r in rows if key in (r["id"], r["key"])] or [r for r in rows if r["task_id"] == key]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        near = difflib.get_close_matches(key, sorted({r["key"] for r in rows}), n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise ViewError(f"no episode {key!r} among {len(rows)} matching the filters{hint}")
    listed = ", ".join(r["id"] for r in matches[:8]) + (", …" if len(matches) > 8 else "")
    raise ViewError(
        f"{len(matches)} episodes match {key!r}: {listed}; give one id, or narrow with "
        "--planner, --split, --condition or --seed"
    )


# ---- the episode as the model saw it ------------------------------------------------------------


@cache
def _split_tasks(split: str) -> tuple[dict[str, Task], str] | None:
    """The split's tasks by id and its task file's sha256 (None: the split is not configured here)."""
    path = Path(CONF_DIR) / "split" / f"{split}.yaml"
    if not path.is_file():
        return None
    file = str(OmegaConf.load(path).file)
    return {t.task_id: t for t in load_split(file)}, file_sha256(TASK_DIR / file)


@cache
def _context(split: str, task_id: str) -> dict[str, Any]:
    """The phone's context (clock, owner) the planner's system message states, read from the task's world."""
    split_tasks = _split_tasks(split)
    assert split_tasks is not None
    with Episode(split_tasks[0][task_id]) as episode:
        return episode.context


@dataclass(frozen=True)
class Prompt:
    """What the model read before its first call; ``note`` says why something is missing or may differ."""

    system: str | None
    history: list[dict[str, Any]]
    query: str | None
    note: str | None


def prompt(row: dict[str, Any]) -> Prompt:
    split = _split_tasks(row["split"])
    if split is None:
        return Prompt(None, [], None, f"split {row['split']!r} is not configured here: no system message or query")
    tasks, sha256 = split
    task = tasks.get(row["task_id"])
    if task is None:
        return Prompt(None, [], None, f"task {row['task_id']} is no longer in split {row['split']!r}")
    note = None
    if row.get("dataset_hash") and row["dataset_hash"] != sha256:
        note = "the task file changed since this episode ran: the system message and query are today's"
    return Prompt(
        system_message(_context(row["split"], task.task_id)), [m.model_dump() for m in task.history], task.query, note
    )


class Out(Protocol):
    """Where an episode is written: a rich console, plain text, or HTML; ``style`` is one of STYLES."""

    def heading(self, text: str) -> None: ...

    def line(self, text: str, style: str = "") -> None: ...

    def block(self, text: str, style: str = "") -> None: ...


STYLES = {"": "", "pass": "bold green", "fail": "bold red", "warn": "yellow", "dim": "dim", "role": "bold cyan"}


class RichOut:
    def __init__(self, console: Console) -> None:
        self.console = console

    def heading(self, text: str) -> None:
        self.console.rule(Text(text, style="bold"))

    def line(self, text: str, style: str = "") -> None:
        self.console.print(Text(text, style=STYLES[style]))

    def block(self, text: str, style: str = "") -> None:
        self.console.print(Text(text, style=STYLES[style]) if style else text, markup=False, highlight=True)


class PlainOut:
    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def heading(self, text: str) -> None:
        print(f"\n== {text} ==", file=self.stream)

    def line(self, text: str, style: str = "") -> None:
        print(text, file=self.stream)

    def block(self, text: str, style: str = "") -> None:
        print("\n".join(f"  {line}" for line in text.splitlines()), file=self.stream)


class HtmlOut:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def heading(self, text: str) -> None:
        self.parts.append(f"<h2>{html.escape(text)}</h2>")

    def line(self, text: str, style: str = "") -> None:
        self.parts.append(f"<p class='{style}'>{html.escape(text)}</p>")

    def block(self, text: str, style: str = "") -> None:
        self.parts.append(f"<pre class='{style}'>{html.escape(text)}</pre>")


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)


def _gate(value: bool | None) -> str:
    return {None: "not required", True: "pass", False: "fail"}[value]


def _tokens(row: dict[str, Any]) -> str:
    if row.get("prompt_tokens") is None and row.get("completion_tokens") is None:
        return "-"
    return f"{row.get('prompt_tokens') or 0}+{row.get('completion_tokens') or 0}"


def write_episode(out: Out, row: dict[str, Any], trajectory: dict[str, Any]) -> None:
    """One episode, top to bottom in the order it happened, then what verification made of it."""
    verdict = row["verdict"]
    out.line(f"{row['id']}: {row['category']} {row['domain']} {row['l2']}, bucket {row['bucket']}", "role")
    out.line(
        f"{verdict.upper()}  {row['termination']} after {row['steps']} step(s); tokens (prompt+completion) "
        f"{_tokens(row)}; planner latency {row['planner_latency_s']:.3f} s; wall {row['wall_s']:.3f} s",
        "pass" if verdict == "pass" else "fail",
    )
    shown = prompt(row)
    if shown.note:
        out.line(f"note: {shown.note}", "warn")
    if shown.system is not None:
        out.heading("system")
        out.block(shown.system)
    out.heading("conversation")
    for message in shown.history:
        out.line(f"{message['role']}:", "role")
        out.block(message["content"])
    if shown.query is not None:
        out.line("user (the query):", "role")
        out.block(shown.query)
    for step in trajectory["steps"]:
        _write_step(out, step)
    for kind in ("infra_error", "context_overflow"):
        if trajectory.get(kind):
            out.line(f"the episode ended in {kind}: {trajectory[kind]}", "warn")
    if trajectory.get("subagent_jobs"):
        out.heading(f"sub-agent jobs ({len(trajectory['subagent_jobs'])})")
        for job in trajectory["subagent_jobs"]:
            out.block(dumps(job))
    out.heading("state diff (D_T - D_0)")
    _write_diff(out, trajectory["diff"])
    out.heading(f"verdict: {verdict.upper()}")
    out.line(
        f"checker: {'pass' if row['checker_passed'] else 'fail'}; memory gate: {_gate(row['memory_gate'])}; "
        f"skill gate: {_gate(row['skill_gate'])}",
        "pass" if verdict == "pass" else "fail",
    )
    for reason in row["reasons"]:
        out.line(f"- {reason}")
    for error in trajectory.get("internal_errors") or ():
        out.line(f"sandbox internal error (makes the episode unscorable): {error}", "warn")


def _write_step(out: Out, step: dict[str, Any]) -> None:
    usage = step["planner"]
    spent = [
        f"{usage[k]} {k.split('_')[0]}" for k in ("prompt_tokens", "completion_tokens") if usage.get(k) is not None
    ]
    if usage.get("planner_latency_s") is not None:
        spent.append(f"{usage['planner_latency_s']:.3f} s")
    out.heading(f"step {step['index']}: {step['name']}" + (f" ({', '.join(spent)})" if spent else ""))
    said = (usage.get("raw_reply") or {}).get("content")
    if step["name"] == FORMAT_ERROR_STEP:
        out.line(f"the reply was no usable tool call ({usage.get('format_error')}); it said:", "warn")
        out.block(str(step["arguments"]))
        out.line("the model was told:", "role")
    else:
        if isinstance(said, str) and said.strip():
            out.line("the model also wrote:", "dim")
            out.block(said, "dim")
        out.line("call:", "role")
        out.block(f"{step['name']}({dumps(step['arguments'])})")
        out.line("envelope:", "role")
    out.block(_pretty(step["envelope"]), "fail" if step["envelope"].get("Status") == "error" else "")


def _write_diff(out: Out, diff: dict[str, Any]) -> None:
    if not diff:
        out.line("no change", "dim")
    for table, change in diff.items():
        for row in change["inserted"]:
            out.line(f"+ {table}", "pass")
            out.block(dumps(row))
        for update in change["updated"]:
            before, after = update["before"], update["after"]
            changed = {
                k: [before.get(k), after.get(k)]
                for k in sorted(before.keys() | after.keys())
                if before.get(k) != after.get(k)
            }
            out.line(f"~ {table} (column: [before, after])", "warn")
            out.block(dumps(changed))
        for row in change["deleted"]:
            out.line(f"- {table}", "fail")
            out.block(dumps(row))


# ---- listings ------------------------------------------------------------------------------------


def _cells(row: dict[str, Any]) -> dict[str, str]:
    return {
        "planner": row["planner"],
        "split": row["split"],
        "condition": row["condition"],
        "seed": str(row["seed"]),
        "key": row["key"],
        "verdict": row["verdict"],
        "category": row["category"],
        "bucket": row["bucket"],
        "termination": row["termination"],
        "steps": str(row["steps"]),
        "tokens": _tokens(row),
        "latency_s": f"{row['planner_latency_s']:.3f}",
        "reason": row["reasons"][0] if row["reasons"] else "",
    }


def _tally(rows: Sequence[dict[str, Any]]) -> str:
    counts = Counter(r["verdict"] for r in rows)
    return f"{len(rows)} episode(s): " + ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])


def print_listing(rows: Sequence[dict[str, Any]], label: str, console: Console | None) -> None:
    """A rich table (columns every row shares go to the title), or tab-separated lines with a header."""
    if console is None:
        print("\t".join(COLUMNS))
        for row in rows:
            print("\t".join(v.replace("\t", " ").replace("\n", " ") for v in _cells(row).values()))
        print(_tally(rows), file=sys.stderr)
        return
    shared = {k: rows[0][k] for k in ("planner", "split", "condition", "seed") if len({r[k] for r in rows}) == 1}
    title = f"{label}: " + " ".join(f"{k} {v}" for k, v in shared.items())
    table = Table(title=title, caption=_tally(rows) + "; `mobilepa view KEY` shows one")
    columns = [c for c in COLUMNS if c not in shared]
    cells = [_cells(row) for row in rows]
    widths = {c: max(len(c), *(len(cell[c]) for cell in cells)) for c in columns if c != "reason"}
    for spare in ("latency_s", "tokens", "termination", "bucket", "steps"):  # dropped, in this order, to fit
        if sum(widths.values()) + 3 * len(columns) + 1 + 20 <= console.width:
            break
        if spare in widths:
            del widths[spare]
            columns.remove(spare)
    widths["reason"] = max(len("reason"), console.width - sum(widths.values()) - 3 * len(columns) - 1)
    for column in columns:  # every column keeps its width; only the reason is cut to fit the terminal
        table.add_column(
            column,
            justify="right" if column in ("seed", "steps", "tokens", "latency_s") else "left",
            no_wrap=True,
            overflow="ellipsis",
            min_width=widths[column],
            max_width=widths[column],
        )
    for row, cell in zip(rows, cells, strict=True):
        style = {"pass": "green", "fail": "red", "unscorable": "yellow"}[row["verdict"]]
        table.add_row(*[Text(cell[c], style=style) if c == "verdict" else cell[c] for c in columns])
    console.print(table)


# ---- HTML ----------------------------------------------------------------------------------------

CSS = (
    "body{font-family:sans-serif;margin:2em;max-width:100em}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}"
    "th input{width:100%;box-sizing:border-box}pre{background:#f6f6f6;padding:6px;white-space:pre-wrap}"
    ".pass{color:#070}.fail{color:#b00}.warn{color:#a60}.dim{color:#777}.role{font-weight:bold;margin-bottom:0}"
    "tr.pass td.verdict{color:#070}tr.fail td.verdict,tr.unscorable td.verdict{color:#b00}"
)
FILTER_JS = """
const inputs = [...document.querySelectorAll('thead input')];
function apply() {
  const wanted = inputs.map(i => i.value.trim().toLowerCase());
  let shown = 0;
  for (const tr of document.querySelectorAll('tbody tr')) {
    tr.hidden = !wanted.every((w, i) => !w || tr.cells[i].textContent.toLowerCase().includes(w));
    shown += !tr.hidden;
  }
  document.getElementById('shown').textContent = shown;
}
inputs.forEach(i => i.addEventListener('input', apply));
"""


def page_name(row: dict[str, Any]) -> str:
    return re.sub(r"[^A-Za-z0-9._@-]", "_", row["id"].replace("/", "__")) + ".html"


def _page(title: str, body: str, script: str = "") -> str:
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{CSS}</style></head><body>{body}{f'<script>{script}</script>' if script else ''}</body></html>\n"
    )


def write_html(source: Source, rows: Sequence[dict[str, Any]], out_dir: Path) -> Path:
    """``index.html`` (one row per episode, a filter box per column) and ``episodes/<id>.html`` per episode,
    each linking back and to its neighbours; the index links a ``leaderboard.html`` beside it or above it
    (``--html outputs/report/view`` puts the pages under the sweep's report)."""
    pages = out_dir / "episodes"
    pages.mkdir(parents=True, exist_ok=True)
    for i, row in enumerate(rows):
        out = HtmlOut()
        write_episode(out, row, source.trajectory(row))
        links = ["<a href='../index.html'>all episodes</a>"]
        if i:
            links.append(f"<a href='{page_name(rows[i - 1])}'>previous</a>")
        if i + 1 < len(rows):
            links.append(f"<a href='{page_name(rows[i + 1])}'>next</a>")
        nav = f"<p>{' · '.join(links)}</p>"
        body = f"{nav}<h1>{html.escape(row['id'])}</h1>{''.join(out.parts)}{nav}"
        (pages / page_name(row)).write_text(_page(row["id"], body), encoding="utf-8")
    head = "".join(f"<th>{html.escape(c)}</th>" for c in COLUMNS)
    boxes = "".join(f"<th><input placeholder='filter' aria-label='filter {c}'></th>" for c in COLUMNS)
    body_rows = []
    for row in rows:
        cells = _cells(row)
        tds = "".join(
            f"<td class='{c}'><a href='episodes/{page_name(row)}'>{html.escape(cells[c])}</a></td>"
            if c == "key"
            else f"<td class='{c}'>{html.escape(cells[c])}</td>"
            for c in COLUMNS
        )
        body_rows.append(f"<tr class='{row['verdict']}'>{tds}</tr>")
    board = next(
        (
            f" · <a href='{link}'>leaderboard</a>"
            for link in ("leaderboard.html", "../leaderboard.html")
            if (out_dir / link).exists()
        ),
        "",
    )
    body = (
        f"<h1>Episodes</h1><p>{html.escape(source.label)}: <span id='shown'>{len(rows)}</span> of {len(rows)} "
        f"shown; {html.escape(_tally(rows))}{board}</p><table><thead><tr>{head}</tr><tr>{boxes}</tr></thead>"
        f"<tbody>{''.join(body_rows)}</tbody></table>"
    )
    index = out_dir / "index.html"
    index.write_text(_page("MobilePA-Bench episodes", body, FILTER_JS), encoding="utf-8")
    return index


# ---- command line --------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mobilepa view",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="List the episodes of a run folder or a results store, or show one: the conversation as the "
        "model saw it, each call with its envelope, the state diff, the verdict with its reasons.",
        epilog="examples:\n"
        "  mobilepa view --run outputs/run --planner noop --verdict fail    # list\n"
        "  mobilepa view hw_basic_001 --store outputs/results.db --planner oracle --seed 0\n"
        "  mobilepa view oracle/mini/both/0/basic-1.1-01                      # an id from the listing\n"
        "  mobilepa view --store outputs/results.db --split mini --html outputs/view",
    )
    p.add_argument(
        "targets",
        nargs="*",
        metavar="[SOURCE] KEY",
        help="KEY: the episode to show: its id (planner/split/condition/seed/key), episode key or task "
        "id; SOURCE: a run folder or a store file, as --run or --store",
    )
    source = p.add_mutually_exclusive_group()
    source.add_argument("--run", type=Path, help="a run folder, or a folder holding run folders (outputs/run)")
    source.add_argument("--store", type=Path, help=f"a results store (default {DEFAULT_STORE}, else {DEFAULT_RUNS})")
    p.add_argument("--planner")
    p.add_argument("--split")
    p.add_argument("--condition", help="the run's condition (both, sor, mtsr, default)")
    p.add_argument("--seed", type=int)
    p.add_argument("--verdict", choices=VERDICTS)
    p.add_argument("--category", help="basic, subagent, memory or skill")
    p.add_argument("--termination", help="finished, truncated, context_overflow or infra_error")
    p.add_argument("--reason", metavar="SUBSTRING", help="only episodes with a reason containing this (any case)")
    p.add_argument("--limit", type=int, default=200, help="most rows listed (default 200; 0: all)")
    p.add_argument(
        "--html",
        type=Path,
        metavar="DIR",
        help="write DIR/index.html and one page per matching episode instead of printing",
    )
    return p


def main(argv: list[str]) -> int:
    p = parser()
    args = p.parse_args(argv)
    targets = list(args.targets)
    if len(targets) > 2 or (len(targets) == 2 and not Path(targets[0]).exists()):
        p.error(f"expected [SOURCE] KEY, got {' '.join(targets)} (SOURCE: an existing folder or store file)")
    if targets and Path(targets[0]).exists():
        if args.run is not None or args.store is not None:
            p.error(f"{targets[0]}: a source is given twice (with --run or --store)")
        path = Path(targets.pop(0))
        args.run, args.store = (path, None) if path.is_dir() else (None, path)
    key = targets[0] if targets else None
    filters = Filters(
        args.planner, args.split, args.condition, args.seed, args.verdict, args.category, args.termination, args.reason
    )
    console = Console(highlight=False) if sys.stdout.isatty() else None
    try:
        source = open_source(args.run, args.store)
    except ViewError as exc:
        print(f"mobilepa view: {exc}", file=sys.stderr)
        return 2
    try:
        return _show(source, filters, key, args.html, args.limit, console)
    except ViewError as exc:
        print(f"mobilepa view: {exc}", file=sys.stderr)
        return 2
    finally:
        source.close()


def _show(
    source: Source, filters: Filters, key: str | None, html_dir: Path | None, limit: int, console: Console | None
) -> int:
    every = source.rows()
    rows = [r for r in every if filters.match(r)]
    if key:
        row = find_episode(rows, key)
        out: Out = RichOut(console) if console is not None else PlainOut(sys.stdout)
        write_episode(out, row, source.trajectory(row))
        return 0
    if not rows:
        print(f"mobilepa view: no episode matches the filters ({len(every)} in {source.label})", file=sys.stderr)
        return 1
    if html_dir:
        print(f"episodes: {write_html(source, rows, html_dir).resolve()} ({len(rows)} pages)")
        return 0
    shown = rows if limit <= 0 else rows[:limit]
    print_listing(shown, source.label, console)
    if len(shown) < len(rows):
        print(f"listed {len(shown)} of {len(rows)}; --limit 0 lists all, filters narrow", file=sys.stderr)
    return 0
