"""``mobilepa view`` on a terminal (rich) or a pipe (plain text): the listing, one episode verdict first,
and two episodes side by side."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from itertools import zip_longest
from typing import Any, Protocol

from rich.console import Console
from rich.table import Table
from rich.text import Text

from experiments.commands.view.episode import EpisodeView, StepView, cell, gate
from experiments.commands.view.sources import COLUMNS, NUMERIC, row_cells, shared, tally, tokens


class Out(Protocol):
    """Where an episode is written: a rich console or plain text; ``style`` is one of STYLES."""

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


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)


def verdict_line(row: dict[str, Any]) -> str:
    return (
        f"{row['verdict'].upper()}  bucket {row['bucket']}; checker {'pass' if row['checker_passed'] else 'fail'}, "
        f"memory gate {gate(row['memory_gate'])}, skill gate {gate(row['skill_gate'])}"
        + (f"; cause {row['cause']}" if row["cause"] else "")
    )


def spent_line(row: dict[str, Any]) -> str:
    cached = f" ({row['cached_prompt_tokens']} cached)" if row.get("cached_prompt_tokens") else ""
    return (
        f"tokens (prompt+completion) {tokens(row)}{cached}; format errors {row['format_errors']}; "
        f"planner latency {row['planner_latency_s']:.3f} s; wall {row['wall_s']:.3f} s"
    )


def write_episode(out: Out, view: EpisodeView) -> None:
    """The verdict first (its gates, reasons, how the episode ended, what it cost), then the episode in
    the order it happened, then the state diff."""
    row = view.row
    style = "pass" if row["verdict"] == "pass" else "fail"
    out.line(f"{row['id']}: {row['category']} {row['domain']} {row['l2']}", "role")
    out.heading(f"verdict: {row['verdict'].upper()}")
    out.line(verdict_line(row), style)
    out.line(f"ended: {view.ending}", "" if row["termination"] == "finished" else "warn")
    out.line(spent_line(row), "dim")
    for expected, found in view.reasons:
        out.line(f"- {expected}")
        if found:
            out.line(f"    found: {found}", "warn")
    for error in view.internal_errors:
        out.line(f"sandbox internal error (makes the episode unscorable): {error}", "warn")
    shown = view.prompt
    for note in shown.notes:
        out.line(f"note: {note}", "warn")
    if shown.tools:
        names = [t["function"]["name"] for t in shown.tools]
        out.line(f"offered tools ({len(names)}): {', '.join(names)}", "dim")
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
    for step in view.steps:
        _write_step(out, step)
    if view.jobs:
        out.heading(f"sub-agent jobs ({len(view.jobs)})")
        for job in view.jobs:
            out.block(_pretty(job))
    out.heading("state diff (D_T - D_0)")
    _write_diff(out, view)


def _write_step(out: Out, step: StepView) -> None:
    out.heading(f"step {step.index}: {step.name}" + (f" ({step.spent})" if step.spent else ""))
    if step.reasoning:
        out.line("the model reasoned:", "dim")
        out.block(step.reasoning, "dim")
    if step.format_error:
        out.line(f"the reply was no usable tool call ({step.format_error}); it said:", "warn")
        out.block(step.said or "(nothing)")
        for raw in step.raw_calls:
            out.block(f"tool call as sent: {raw}")
        out.line("the model was told:", "role")
        out.block(step.told or _pretty(step.envelope), "warn")
        return
    if step.said:
        out.line("the model wrote:" + (" (the call was read from this text)" if step.recovered else ""), "dim")
        out.block(step.said, "dim")
    for raw in step.raw_calls:
        out.line(f"tool call as sent: {raw}", "dim")
    out.line("call:", "role")
    out.block(step.call or "")
    out.line("envelope:", "role")
    out.block(_pretty(step.envelope), "" if step.ok else "fail")


def _write_diff(out: Out, view: EpisodeView) -> None:
    if not view.diff:
        out.line("no change", "dim")
    mark = {"added": ("+", "pass"), "changed": ("~", "warn"), "deleted": ("-", "fail")}
    for table in view.diff:
        for row in table.rows:
            sign, style = mark[row.change]
            if row.change == "changed":
                text = ", ".join(
                    f"{k}: {cell(row.before[k])} -> {cell(v)}" if k in row.before else f"{k} {cell(v)}"
                    for k, v in row.values.items()
                )
            else:
                text = json.dumps(row.values, ensure_ascii=False, default=str)
            out.line(f"{sign} {table.table} {row.change}", style)
            out.block(text)


def write_pair(out: Out, left: EpisodeView, right: EpisodeView, console: Console | None) -> None:
    """Two episodes of one task: verdicts and reasons, then the steps aligned by index (``*`` where the
    two calls differ), in two columns on a terminal, one above the other in a pipe."""
    views = (left, right)
    if console is not None:
        table = Table(show_lines=True, expand=True)
        table.add_column("step", justify="right", no_wrap=True)
        for view in views:
            table.add_column(view.row["id"], ratio=1, overflow="fold")
        table.add_row("", *(_verdict_text(v) for v in views))
        for a, b in zip_longest(left.steps, right.steps):
            index = (a or b).index  # one of the two is there
            table.add_row(f"{index}{'*' if _differs(a, b) else ''}", *(_step_text(s) for s in (a, b)))
        console.print(table)
        return
    for side, view in zip("AB", views, strict=True):
        out.line(f"{side}: {view.row['id']}", "role")
        out.block(_verdict_text(view).plain)
    for a, b in zip_longest(left.steps, right.steps):
        index = (a or b).index
        out.heading(f"step {index}" + (" (the calls differ)" if _differs(a, b) else ""))
        for side, step in zip("AB", (a, b), strict=True):
            out.line(f"{side}: {_step_text(step).plain}")


def _differs(a: StepView | None, b: StepView | None) -> bool:
    return a is None or b is None or (a.call, a.format_error) != (b.call, b.format_error)


def _verdict_text(view: EpisodeView) -> Text:
    row = view.row
    text = Text(verdict_line(row) + "\n", style=STYLES["pass" if row["verdict"] == "pass" else "fail"])
    text.append(f"ended: {view.ending}\n{spent_line(row)}")
    for expected, found in view.reasons:
        text.append(f"\n- {expected}" + (f"\n    found: {found}" if found else ""))
    return text


def _step_text(step: StepView | None) -> Text:
    if step is None:
        return Text("(no step)", style="dim")
    if step.format_error:
        text = Text(f"format error {step.format_error}: ", style="yellow")
        text.append(step.said or "(nothing)")
        return text
    text = Text(step.call or "")
    text.append(f"\n-> {step.summary}", style="" if step.ok else "red")
    return text


def print_listing(rows: Sequence[dict[str, Any]], label: str, console: Console | None) -> None:
    """A rich table (columns every row shares go to the title), or tab-separated lines with a header."""
    if console is None:
        print("\t".join(COLUMNS))
        for row in rows:
            print("\t".join(v.replace("\t", " ").replace("\n", " ") for v in row_cells(row).values()))
        print(tally(rows), file=sys.stderr)
        return
    same = shared(rows)
    title = f"{label}: " + " ".join(f"{k} {v}" for k, v in same.items())
    table = Table(title=title, caption=tally(rows) + "; `mobilepa view KEY` shows one")
    columns = [c for c in COLUMNS if c not in same]
    cells = [row_cells(row) for row in rows]
    widths = {c: max(len(c), *(len(cell[c]) for cell in cells)) for c in columns if c != "reason"}
    for spare in ("latency_s", "tokens", "termination", "bucket", "steps", "cause"):  # dropped, in order, to fit
        if sum(widths.values()) + 3 * len(columns) + 1 + 20 <= console.width:
            break
        if spare in widths:
            del widths[spare]
            columns.remove(spare)
    widths["reason"] = max(len("reason"), console.width - sum(widths.values()) - 3 * len(columns) - 1)
    for column in columns:  # every column keeps its width; only the reason is cut to fit the terminal
        table.add_column(
            column,
            justify="right" if column in NUMERIC else "left",
            no_wrap=True,
            overflow="ellipsis",
            min_width=widths[column],
            max_width=widths[column],
        )
    for row, cell_text in zip(rows, cells, strict=True):
        style = {"pass": "green", "fail": "red", "unscorable": "yellow"}[row["verdict"]]
        table.add_row(*[Text(cell_text[c], style=style) if c == "verdict" else cell_text[c] for c in columns])
    console.print(table)
