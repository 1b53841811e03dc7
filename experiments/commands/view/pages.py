"""``mobilepa view --html``: static pages, each self-contained (inline CSS and JavaScript, nothing fetched,
no server), linked to each other by relative paths so they work wherever they are written or moved.

- ``index.html``: one row per episode; sort by any column, one search box over ids, reasons and the
  model's replies, a filter per column with the count of each value (the failure cause among them).
- ``episodes/<id>.html``: one episode, verdict first (gates, reasons with what was expected and what came
  closest, how it ended, tokens), then the offered tools, the conversation with the model's own words per
  step, long envelopes folded to a summary line, and the state diff as a table.
- ``tools.html``: the description and argument schema of every tool offered, linked from the episodes.
- ``pairs/<id>__vs__<id>.html``: two episodes of one task (two planners or two seeds) side by side,
  verdicts on top, steps aligned by index.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections import Counter
from collections.abc import Sequence
from itertools import zip_longest
from pathlib import Path
from typing import Any

from experiments.analysis.stats import CAUSES, TAXONOMY_RULES
from experiments.commands.view.episode import (
    DiffTable,
    EpisodeView,
    Prompt,
    StepView,
    cell,
    gate,
    gather,
    search_text,
)
from experiments.commands.view.sources import COLUMNS, NUMERIC, Source, row_cells, shared, tally, tokens

OPEN_CHARS = 400  # an envelope, message or schema longer than this is folded to its summary line
FACETS = ("planner", "split", "condition", "seed", "verdict", "cause", "category", "bucket", "termination")
NO_WRAP = frozenset({"planner", "split", "condition", "key", "verdict", "cause", "category", "bucket", "termination"})
REPORT = Path("outputs") / "report"  # where `mobilepa report` writes the leaderboard by default

CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;max-width:110em;color:#222}
h1{font-size:1.4em;word-break:break-all}h2{font-size:1.15em;margin-top:1.6em}h3{font-size:1em;margin:.2em 0}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
pre{background:#f6f6f6;padding:6px;margin:.3em 0;white-space:pre-wrap;overflow-wrap:anywhere}
code{background:#f3f3f3;padding:0 3px}.nowrap{white-space:nowrap}
.pass{color:#070}.fail,.unscorable{color:#b00}.warn{color:#a60}.dim{color:#777}
.badge{display:inline-block;font-weight:bold;font-size:1.3em;padding:2px 12px;border-radius:4px;color:#fff}
.badge.pass{background:#2a2}.badge.fail,.badge.unscorable{background:#c33}
.verdict-box{border:2px solid #ccc;border-radius:6px;padding:8px 12px;margin:.5em 0}
.verdict-box.v-pass{border-color:#2a2}.verdict-box.v-fail,.verdict-box.v-unscorable{border-color:#c33}
.facts th{background:#fafafa;font-weight:normal;color:#555}.reasons td{max-width:60em;overflow-wrap:anywhere}
.found{color:#a40;min-width:14em}.reasons{margin-top:.6em}
details>summary{cursor:pointer}details.fold>summary{font-family:monospace;color:#333}
.step{border-left:4px solid #9c9;padding:2px 10px;margin:.8em 0}.step.err{border-color:#e99}
.step.format{border-color:#eb6;background:#fffaf0}
.label{font-size:.85em;color:#555;margin-top:.3em}.said pre{background:#eef4ff}.told pre{background:#fff3e0}
.reasoning pre{background:#f4f0ff}
.tools{display:flex;flex-wrap:wrap;gap:4px;padding:0;list-style:none}
.tools li{border:1px solid #ddd;border-radius:3px;padding:1px 6px}:target{background:#fff6cc}
table.diff tr.added td:first-child{color:#070}table.diff tr.deleted td:first-child{color:#b00}
table.diff tr.changed td:first-child{color:#a60}del{color:#b00}ins{color:#070;text-decoration:none}
.controls{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:.6em 0}
#search{min-width:28em;padding:3px}
#episodes th button{all:unset;cursor:pointer;font-weight:bold}
#episodes th[aria-sort=ascending] button::after{content:" \\25B2"}
#episodes th[aria-sort=descending] button::after{content:" \\25BC"}
#episodes td.reason{min-width:20em}#episodes th{white-space:nowrap}#episodes td.num{text-align:right}
#episodes{font-size:.92em}#episodes tr.v-pass td.verdict{color:#070}
#episodes tr.v-fail td.verdict,#episodes tr.v-unscorable td.verdict{color:#b00}body.wide{max-width:none}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:12px}.pair>div{min-width:0}
table.aligned{table-layout:fixed;width:100%}table.aligned thead th:first-child{width:3em}
table.aligned td{overflow-wrap:anywhere}
table.aligned tr.differs>th{background:#ffe9a8}
"""

PAGE_ROWS = 500  # rows of the index laid out at once (the rest are a click away): a browser lays out more slowly
INDEX_JS = """
const table = document.getElementById('episodes'), head = table.tHead.rows[0], body = table.tBodies[0];
const rows = [...body.rows];
let limit = PAGE_ROWS;
const texts = JSON.parse(document.getElementById('search-text').textContent);
const search = document.getElementById('search');
const facets = [...document.querySelectorAll('select[data-facet]')];
const columnOf = name => [...head.cells].findIndex(th => th.dataset.col === name);
const valueOf = (tr, i) => tr.cells[i].dataset.v ?? tr.cells[i].textContent;
const facetValues = rows.map(tr => facets.map(s => valueOf(tr, columnOf(s.dataset.facet))));
function apply() {
  const terms = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
  const wanted = facets.map(s => s.value);
  const found = texts.map(t => terms.every(w => t.includes(w)));
  const keeps = (r, skip) => found[r] && wanted.every((w, f) => f === skip || !w || facetValues[r][f] === w);
  let matching = 0;
  for (const tr of body.rows) {  // in the order shown; beyond the page's rows, hidden (laying out thousands is slow)
    const r = +tr.dataset.r, keep = keeps(r, -1);
    matching += keep;
    tr.hidden = !keep || matching > limit;
  }
  facets.forEach((select, f) => {
    const counts = new Map();
    let all = 0;
    rows.forEach((tr, r) => {
      if (!keeps(r, f)) return;
      all += 1;
      counts.set(facetValues[r][f], (counts.get(facetValues[r][f]) || 0) + 1);
    });
    for (const o of select.options) o.textContent = `${o.dataset.label} (${o.value ? counts.get(o.value) || 0 : all})`;
  });
  document.getElementById('shown').textContent = matching;
  document.getElementById('more').hidden = matching <= limit;
  document.getElementById('more').textContent = `show all ${matching} (the first ${limit} are shown)`;
}
function sortBy(th) {
  const i = th.cellIndex, numeric = th.dataset.type === 'number';
  const dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
  for (const other of head.cells) other.setAttribute('aria-sort', 'none');
  th.setAttribute('aria-sort', dir === 1 ? 'ascending' : 'descending');
  const key = tr => numeric ? parseFloat(valueOf(tr, i)) : valueOf(tr, i).toLowerCase();
  const order = rows.map((tr, r) => [key(tr), r]);
  order.sort((a, b) => (a[0] < b[0] ? -dir : a[0] > b[0] ? dir : a[1] - b[1]));
  body.append(...order.map(([, r]) => rows[r]));
  apply();
}
document.getElementById('more').addEventListener('click', () => { limit = Infinity; apply(); });
search.addEventListener('input', apply);
facets.forEach(s => s.addEventListener('change', apply));
for (const th of head.cells) th.querySelector('button').addEventListener('click', () => sortBy(th));
apply();
"""

esc = html.escape


def page_name(row: dict[str, Any]) -> str:
    return _file_safe(row["id"]) + ".html"


def pair_name(left: dict[str, Any], right: dict[str, Any]) -> str:
    return f"{_file_safe(left['id'])}__vs__{_file_safe(right['id'])}.html"


def _file_safe(episode: str) -> str:
    return re.sub(r"[^A-Za-z0-9._@-]", "_", episode.replace("/", "__"))


def page(title: str, body: str, script: str = "", wide: bool = False) -> str:
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<style>{CSS}</style></head><body{' class=wide' if wide else ''}>{body}"
        f"{f'<script>{script}</script>' if script else ''}</body></html>\n"
    )


def _fold(summary: str, text: str, css: str = "fold") -> str:
    """``text`` in a <details>: open when short, folded to its summary line when long."""
    opened = " open" if len(text) <= OPEN_CHARS else ""
    return f"<details class='{css}'{opened}><summary>{esc(summary)}</summary><pre>{esc(text)}</pre></details>"


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)


def _first_line(text: str, limit: int = 120) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit and "\n" not in text.strip() else line[:limit] + "…"


# ---- one episode ------------------------------------------------------------------------------------------


def verdict_html(view: EpisodeView, title: str = "") -> str:
    """The verdict box: badge, bucket, gates, cause, ending, tokens, and the reasons as a table of what was
    expected and what was found instead."""
    row = view.row
    verdict = row["verdict"]
    checker = "pass" if row["checker_passed"] else "fail"
    facts = [
        ("bucket", row["bucket"], ""),
        ("checker", checker, checker),
        ("memory gate", gate(row["memory_gate"]), gate(row["memory_gate"])),
        ("skill gate", gate(row["skill_gate"]), gate(row["skill_gate"])),
        ("cause", row["cause"] or "-", "fail" if row["cause"] else ""),
        ("ended", view.ending, "" if row["termination"] == "finished" else "warn"),
        (
            "tokens",
            tokens(row) + (f" ({row['cached_prompt_tokens']} cached)" if row.get("cached_prompt_tokens") else ""),
            "",
        ),
        ("format errors", str(row["format_errors"]), "warn" if row["format_errors"] else ""),
        ("latency", f"planner {row['planner_latency_s']:.3f} s, wall {row['wall_s']:.3f} s", ""),
    ]
    cells = "".join(
        f"<tr><th>{esc(name)}</th><td class='{css} {'nowrap' if name != 'ended' else ''}'>{esc(value)}</td></tr>"
        for name, value, css in facts
    )
    reasons = "".join(
        f"<tr><td>{esc(expected)}</td><td class='found'>{esc(found)}</td></tr>" for expected, found in view.reasons
    )
    reasons_table = (
        f"<table class='reasons'><thead><tr><th>expected</th><th>found (the closest, or nothing)</th></tr></thead>"
        f"<tbody>{reasons}</tbody></table>"
        if view.reasons
        else ""
    )
    internal = "".join(f"<p class='warn'>sandbox internal error: {esc(e)}</p>" for e in view.internal_errors)
    return (
        f"<section class='verdict-box v-{verdict}' id='verdict'>{title}"
        f"<p><span class='badge {verdict}'>{verdict.upper()}"
        f"</span></p><table class='facts'>{cells}</table>{reasons_table}{internal}</section>"
    )


TOOLS_JS = """
function openTarget() {
  const target = location.hash && document.getElementById(location.hash.slice(1));
  if (target && target.tagName === 'DETAILS') { target.open = true; target.scrollIntoView(); }
}
window.addEventListener('hashchange', openTarget);
openTarget();
"""


def tools_html(tools: Sequence[dict[str, Any]]) -> str:
    """The tools offered at the first step, by name, each linked to its description and argument schema on
    ``tools.html`` beside the index (kept there once: inline, the schemas were most of every page); the
    description of ``load_skill``, which names the skills this episode offered, in full."""
    links = "".join(
        f"<li><a href='../tools.html#tool-{esc(t['function']['name'])}' "
        f"title='{esc(_first_line(t['function']['description']))}'><code>{esc(t['function']['name'])}</code></a></li>"
        for t in tools
    )
    skills = "".join(
        f"<p class='dim'>load_skill: {esc(t['function']['description'])}</p>"
        for t in tools
        if t["function"]["name"] == "load_skill"
    )
    return f"<h2>Offered tools ({len(tools)})</h2><ul class='tools'>{links}</ul>{skills}"


def write_tools_page(tools: dict[str, dict[str, Any]], out_dir: Path) -> Path:
    """``tools.html``: every tool offered in the episodes written, its description and argument schema (the
    target of a link opens)."""
    entries = "".join(
        f"<details id='tool-{esc(name)}'><summary><code>{esc(name)}</code> "
        f"<span class='dim'>{esc(_first_line(function['description']))}</span></summary>"
        f"<p>{esc(function['description'])}</p><pre>{esc(_pretty(function.get('parameters', {})))}</pre></details>"
        for name, function in sorted(tools.items())
    )
    body = (
        f"{_links([('index.html', 'all episodes')])}<h1>Tools offered ({len(tools)})</h1><p class='dim'>"
        "Each opens to its description and argument schema, as the planner received them (load_skill's list of "
        f"offered skills differs per episode: each episode page states its own).</p>{entries}"
    )
    path = out_dir / "tools.html"
    path.write_text(page("Tools offered", body, TOOLS_JS), encoding="utf-8")
    return path


def prompt_html(shown: Prompt) -> str:
    parts = [f"<p class='warn'>note: {esc(n)}</p>" for n in shown.notes]
    if shown.tools:
        parts.append(tools_html(shown.tools))
    parts.append("<h2>Conversation</h2>")
    if shown.system is not None:
        parts.append(_fold(f"system: {_first_line(shown.system)}", shown.system))
    for message in shown.history:
        parts.append(f"<div class='label'>{esc(message['role'])} (H0)</div><pre>{esc(message['content'])}</pre>")
    if shown.query is not None:
        parts.append(f"<div class='label'>user (the query)</div><pre>{esc(shown.query)}</pre>")
    return "".join(parts)


def step_html(step: StepView) -> str:
    """One step: the model's own words (reasoning, the reply as received), its format error and what it was
    told, or the call as executed with its envelope folded to a summary line when long."""
    css = "format" if step.format_error else "ok" if step.ok else "err"
    parts = [
        f"<section class='step {css}' id='step-{step.index}'><h3>step {step.index} · <code>{esc(step.name)}</code>"
        + (f" <span class='dim'>{esc(step.spent)}</span>" if step.spent else "")
        + "</h3>"
    ]
    if step.reasoning:
        summary = f"reasoning ({len(step.reasoning)} chars): {_first_line(step.reasoning)}"
        parts.append(f"<div class='reasoning'>{_fold(summary, step.reasoning)}</div>")
    if step.said is not None or step.raw_calls:
        said = f"<pre>{esc(step.said)}</pre>" if step.said is not None else ""
        calls = "".join(f"<pre>tool call as sent: {esc(c)}</pre>" for c in step.raw_calls)
        how = " (clipped)" if step.clipped else " (the call was read from this text)" if step.recovered else ""
        parts.append(f"<div class='said'><div class='label'>the model replied{how}</div>{said}{calls}</div>")
    if step.format_error:
        parts.append(
            f"<p class='warn'>format error: <b>{esc(step.format_error)}</b></p><div class='told'><div class='label'>"
            f"the model was told</div><pre>{esc(step.told or _pretty(step.envelope))}</pre></div>"
        )
    else:
        parts.append(f"<pre class='call'>{esc(step.call or '')}</pre>")
        parts.append(_fold(("✓ " if step.ok else "✗ ") + step.summary, _pretty(step.envelope)))
    parts.append("</section>")
    return "".join(parts)


def diff_html(tables: Sequence[DiffTable]) -> str:
    if not tables:
        return "<p class='dim'>no change</p>"
    parts = []
    for table in tables:
        head = "".join(f"<th>{esc(c)}</th>" for c in table.columns)
        body = []
        for row in table.rows:
            tds = []
            for column in table.columns:
                if column not in row.values:
                    tds.append("<td></td>")
                elif column in row.before:
                    tds.append(
                        f"<td><del>{esc(cell(row.before[column]))}</del> → "
                        f"<ins>{esc(cell(row.values[column]))}</ins></td>"
                    )
                else:
                    tds.append(f"<td>{esc(cell(row.values[column]))}</td>")
            body.append(f"<tr class='{row.change}'><td>{row.change}</td>{''.join(tds)}</tr>")
        parts.append(
            f"<h3>{esc(table.table)}</h3><table class='diff'><thead><tr><th>change</th>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>"
        )
    return "".join(parts)


def episode_html(view: EpisodeView, nav: str) -> str:
    row = view.row
    jobs = "".join(
        _fold(f"job {i}: {_first_line(json.dumps(job, default=str))}", _pretty(job))
        for i, job in enumerate(view.jobs, 1)
    )
    body = (
        f"{nav}<h1>{esc(row['id'])}</h1><p class='dim'>{esc(row['category'])} · {esc(row['domain'])} · "
        f"{esc(row['l2'])}</p>{verdict_html(view)}{prompt_html(view.prompt)}"
        f"{''.join(step_html(s) for s in view.steps)}"
        + (f"<h2>Sub-agent jobs ({len(view.jobs)})</h2>{jobs}" if view.jobs else "")
        + f"<h2>State diff (D_T − D_0)</h2>{diff_html(view.diff)}{nav}"
    )
    return page(row["id"], body)


def _links(links: Sequence[tuple[str, str]]) -> str:
    return "<p class='nav'>" + " · ".join(f"<a href='{esc(href)}'>{esc(label)}</a>" for href, label in links) + "</p>"


# ---- the index -------------------------------------------------------------------------------------------


def leaderboard_link(out_dir: Path) -> str | None:
    """A relative link to the leaderboard beside the pages, above them, or in the default report folder."""
    for candidate in (out_dir / "leaderboard.html", out_dir.parent / "leaderboard.html", REPORT / "leaderboard.html"):
        if candidate.is_file():
            return Path(os.path.relpath(candidate.resolve(), out_dir.resolve())).as_posix()
    return None


def index_html(label: str, rows: Sequence[dict[str, Any]], texts: Sequence[str], out_dir: Path) -> str:
    """The table of episodes (a column every row shares is said once above it), the search box and a filter
    per column; ``texts``: what the search reads of each row."""
    same = shared(rows)
    columns = [c for c in COLUMNS if c not in same]
    head = "".join(
        f"<th data-col='{c}' data-type='{'number' if c in NUMERIC else 'text'}' aria-sort='none'>"
        f"<button type='button'>{esc(c)}</button></th>"
        for c in columns
    )
    body_rows: list[str] = []
    for row in rows:
        cells = row_cells(row)
        sort_values = {
            "tokens": str((row.get("prompt_tokens") or 0) + (row.get("completion_tokens") or 0)),
            "latency_s": str(row["planner_latency_s"]),
        }
        tds = []
        for c in columns:
            css = " ".join([c, *(["nowrap"] if c in NO_WRAP else []), *(["num"] if c in NUMERIC else [])])
            value = f" data-v='{esc(sort_values[c])}'" if c in sort_values else ""
            text = esc(cells[c])
            if c == "key":
                text = f"<a href='episodes/{esc(page_name(row))}'>{text}</a>"
            tds.append(f"<td class='{css}'{value}>{text}</td>")
        hidden = " hidden" if len(body_rows) >= PAGE_ROWS else ""
        body_rows.append(f"<tr class='v-{row['verdict']}' data-r='{len(body_rows)}'{hidden}>{''.join(tds)}</tr>")
    selects = []
    for facet in (f for f in FACETS if f not in same):
        counts = Counter(row_cells(r)[facet] for r in rows)
        order = CAUSES if facet == "cause" else sorted(counts, key=lambda v: (len(v), v) if facet == "seed" else v)
        options = [f"<option value='' data-label='{facet}: all'>{facet}: all ({len(rows)})</option>"]
        for value in order:
            if counts[value] and value:
                about = f" title='{esc(TAXONOMY_RULES[value])}'" if facet == "cause" else ""
                options.append(
                    f"<option value='{esc(value)}' data-label='{esc(value)}'{about}>"
                    f"{esc(value)} ({counts[value]})</option>"
                )
        selects.append(f"<select data-facet='{facet}' aria-label='{facet}'>{''.join(options)}</select>")
    board = leaderboard_link(out_dir)
    board_link = f" · <a href='{esc(board)}'>leaderboard</a>" if board else ""
    texts_json = json.dumps(list(texts), ensure_ascii=False).replace("</", "<\\/")
    body = (
        f"<h1>Episodes</h1><p>{esc(label)}{esc(''.join(f', {k} {v}' for k, v in same.items()))}: "
        f"<span id='shown'>{len(rows)}</span> of {len(rows)} match; "
        f"{esc(tally(rows))}{board_link}</p>"
        "<div class='controls'><input id='search' type='search' placeholder='search ids, reasons and replies' "
        f"aria-label='search'>{''.join(selects)}</div>"
        f"<table id='episodes'><thead><tr>{head}</tr></thead><tbody>{''.join(body_rows)}</tbody></table>"
        f"<p><button type='button' id='more'{'' if len(rows) > PAGE_ROWS else ' hidden'}>show all {len(rows)} "
        f"(the first {PAGE_ROWS} are shown)</button></p>"
        f"<script type='application/json' id='search-text'>{texts_json}</script>"
    )
    return page("MobilePA-Bench episodes", body, INDEX_JS.replace("PAGE_ROWS", str(PAGE_ROWS)), wide=True)


def write_html(source: Source, rows: Sequence[dict[str, Any]], out_dir: Path) -> Path:
    """``index.html``, ``episodes/<id>.html`` per episode, each linking back and to its neighbours, and
    ``tools.html`` (the offered tools' schemas)."""
    pages = out_dir / "episodes"
    pages.mkdir(parents=True, exist_ok=True)
    texts = []
    offered: dict[str, dict[str, Any]] = {}
    for i, row in enumerate(rows):
        view = gather(row, source.trajectory(row))
        links = [("../index.html", "all episodes")]
        if i:
            links.append((page_name(rows[i - 1]), "previous"))
        if i + 1 < len(rows):
            links.append((page_name(rows[i + 1]), "next"))
        (pages / page_name(row)).write_text(episode_html(view, _links(links)), encoding="utf-8")
        texts.append(" ".join([row["id"], row["cause"] or "", *row["reasons"], search_text(view)]).lower())
        offered.update((t["function"]["name"], t["function"]) for t in view.prompt.tools)
    write_tools_page(offered, out_dir)
    index = out_dir / "index.html"
    index.write_text(index_html(source.label, rows, texts, out_dir), encoding="utf-8")
    return index


# ---- side by side ------------------------------------------------------------------------------------------


def _differs(a: StepView | None, b: StepView | None) -> bool:
    return a is None or b is None or (a.call, a.format_error) != (b.call, b.format_error)


def pair_html(left: EpisodeView, right: EpisodeView, back: tuple[str, str]) -> str:
    """Two episodes of one task in two columns: verdicts on top, the query once, then the steps aligned by
    index (the step number marked where the two differ), then each state diff."""
    views = (left, right)
    titles = [
        f"<h2><a class='nowrap' href='../episodes/{esc(page_name(v.row))}'>{esc(v.row['id'])}</a></h2>" for v in views
    ]
    rows = []
    for a, b in zip_longest(left.steps, right.steps):
        index = (a or b).index  # one of the two is there
        differs = _differs(a, b)
        tds = "".join(f"<td>{step_html(s) if s else '<p class=dim>(no step)</p>'}</td>" for s in (a, b))
        rows.append(
            f"<tr class='{'differs' if differs else 'same'}'>"
            f"<th title='{'the steps differ' if differs else 'the same step'}'>{index}</th>{tds}</tr>"
        )
    query = left.prompt.query if left.prompt.query is not None else right.prompt.query
    differing = sum(_differs(a, b) for a, b in zip_longest(left.steps, right.steps))
    verdicts = "".join(f"<div>{verdict_html(v, t)}</div>" for v, t in zip(views, titles, strict=True))
    columns = "".join(f"<th>{esc(v.row['planner'])} · seed {v.row['seed']}</th>" for v in views)
    diffs = "".join(f"<div>{diff_html(v.diff)}</div>" for v in views)
    body = (
        f"{_links([back])}<h1>{esc(left.row['task_id'])}: {esc(left.row['id'])} vs {esc(right.row['id'])}</h1>"
        f"<div class='pair' id='verdicts'>{verdicts}</div>"
        + (f"<div class='label'>user (the query)</div><pre>{esc(query)}</pre>" if query is not None else "")
        + f"<h2>Steps ({differing} of {max(len(left.steps), len(right.steps))} differ)</h2>"
        f"<table class='aligned'><thead><tr><th>step</th>{columns}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        f"<h2>State diff (D_T − D_0)</h2><div class='pair'>{diffs}</div>"
    )
    return page(f"{left.row['id']} vs {right.row['id']}", body, wide=True)


def write_pair(
    source: Source, left: dict[str, Any], right: dict[str, Any], out_dir: Path, back: tuple[str, str]
) -> Path:
    """``pairs/<left>__vs__<right>.html``; its column headings link to the episodes' own pages under
    ``episodes/`` (written by ``write_html`` into the same folder)."""
    pairs = out_dir / "pairs"
    pairs.mkdir(parents=True, exist_ok=True)
    path = pairs / pair_name(left, right)
    views = gather(left, source.trajectory(left)), gather(right, source.trajectory(right))
    path.write_text(pair_html(*views, back), encoding="utf-8")
    return path
