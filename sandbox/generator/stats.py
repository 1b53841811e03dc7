"""The dataset card's numbers: counts by every axis the suite is stratified on, coverage, retrieval
recall, answer-check coverage, and the self-check and gate counts ``mobilepa tasks validate`` recorded.

The self-check replays every task many times (minutes), so the card does not rerun it: validate
writes its counts with a fingerprint of the tasks it checked (``VALIDATION``), and the card shows
them only for the very tasks it describes, else says the suite needs validating. No count is typed in.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sandbox.conditions import CONDITIONS
from sandbox.errors import ErrorType
from sandbox.generator.answers import is_information, missing_answer
from sandbox.skills import SKILLS
from sandbox.suite import TASK_DIR, VALIDATION
from sandbox.tasks import Task, dump_task
from sandbox.taxonomy import DOMAINS, L2
from sandbox.tooling import domain_tools

AXES = {
    "category": lambda t: t.category,
    "domain": lambda t: t.domain,
    "l2": lambda t: t.l2,
    "bucket": lambda t: t.bucket,
    "pattern": lambda t: t.tags.get("pattern"),
    "friction": lambda t: t.tags.get("friction"),
    "memory_type": lambda t: t.tags.get("memory_type"),
    "turn": lambda t: t.tags.get("turn") or ("multi" if t.history else "single"),
    "primary": lambda t: t.tags.get("primary"),
    "memory_write": lambda t: t.tags.get("write"),
    "conflict_rule": lambda t: t.tags.get("conflict_rule"),
    "agent": lambda t: t.tags.get("agent"),
    "skill": lambda t: t.required_skill_id,
    "composition": lambda t: t.tags.get("composition"),
}


AUDIT = TASK_DIR / "audit.json"  # the played audit: episodes, their classes, what was found and fixed
AUDIT_CLASSES = (
    "passed-and-right",
    "passed-but-wrong",
    "failed-own-mistake",
    "failed-although-reasonable",
    "task-flawed",
    "sandbox-wrong",
)


def fingerprint(tasks: Sequence[Task]) -> str:
    """The tasks' identity: the digest of their canonical lines (what the task file holds, byte for byte)."""
    digest = hashlib.sha256()
    for task in tasks:
        digest.update((dump_task(task) + "\n").encode())
    return digest.hexdigest()


def validation_record(
    tasks: Sequence[Task], table: Sequence[tuple[str, int, int]], gates: dict[str, int]
) -> dict[str, Any]:
    """What ``mobilepa tasks validate`` found: (check kind, runs, surprises) rows and violations per gate."""
    return {
        "fingerprint": fingerprint(tasks),
        "tasks": len(tasks),
        "checks": {kind: {"runs": runs, "surprises": bad} for kind, runs, bad in table},
        "gates": dict(gates),
    }


def write_validation(record: dict[str, Any], path: Path = VALIDATION) -> Path:
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def selfcheck_counts(tasks: Sequence[Task], path: Path = VALIDATION) -> dict[str, Any] | None:
    """The recorded self-check of exactly these tasks, totalled by promise; None when there is none.

    ``alternatives`` (legitimate other solutions: a surprise is one that failed) and ``wrong_endings``
    (a surprise is one that passed) are the two ways the self-check grows; ``perturbations``
    and ``oracle`` the older ones; ``gates`` the violations per gate (each must be 0).
    """
    if not path.exists():
        return None
    record = json.loads(path.read_text(encoding="utf-8"))
    if record.get("fingerprint") != fingerprint(tasks):
        return None
    checks = record["checks"]

    def total(*prefixes: str) -> dict[str, int]:
        rows = [v for k, v in checks.items() if k.startswith(prefixes)]
        return {"runs": sum(r["runs"] for r in rows), "surprises": sum(r["surprises"] for r in rows)}

    return {
        "oracle": total("oracle/"),
        "noop": total("noop"),
        "perturbations": total("perturb/"),
        "alternatives": total("alt/"),
        "wrong_endings": total("wrong/"),
        "by_check": checks,
        "gates": record["gates"],
    }


def answer_coverage(tasks: Sequence[Task]) -> dict[str, int]:
    """Information tasks (``sandbox.generator.answers``) and how many of them check the answer's facts."""
    info = [t for t in tasks if is_information(t.bucket, (a.name for a in t.gold), t.tags)]
    return {"information_tasks": len(info), "with_answer_check": sum(not missing_answer(t) for t in info)}


def _count(tasks: list[Task], key: Any) -> dict[str, int]:
    return dict(sorted(Counter(str(v) for t in tasks if (v := key(t)) is not None).items()))


def audit_summary(path: Path = AUDIT) -> list[dict[str, Any]] | None:
    """The played audits (``AUDIT``), oldest first: each one's classes as first played and after the fixes
    (an episode re-played after its finding was fixed takes its new class), its findings with their
    causes and fixes, and the rule classes it counted before and after (``rules``)."""
    if not path.is_file():
        return None
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [_one_audit(path, audit) for audit in doc["audits"]]


def _one_audit(path: Path, audit: dict[str, Any]) -> dict[str, Any]:
    episodes = audit["episodes"]
    for e in episodes:
        for key in ("class", "final_class"):
            if e.get(key, e["class"]) not in AUDIT_CLASSES:
                raise ValueError(f"{path}: episode {e['key']}: unknown class {e.get(key)!r}")

    def tally(key: str) -> dict[str, int]:
        counts = Counter(e.get(key, e["class"]) for e in episodes)
        return {c: counts[c] for c in AUDIT_CLASSES if counts[c]}

    return {
        "title": audit["title"],
        "method": audit["method"],
        "episodes": len(episodes),
        "by_category": dict(sorted(Counter(e["category"] for e in episodes).items())),
        "played": tally("class"),
        "final": tally("final_class"),
        "rules": audit.get("rules", []),
        "findings": [e for e in episodes if e.get("finding")],
        "keys": [e["key"] for e in episodes],
        "probes": [_one_probe(path, probe) for probe in audit.get("probes", [])],
    }


def _one_probe(path: Path, probe: dict[str, Any]) -> dict[str, Any]:
    """An answer probe: a player's own actions ending in a known-right or known-wrong answer, with the
    verdict the checks gave it when the audit was played (``before``) and now (``after``; a test replays
    every probe against the suite and holds it to this record)."""
    for key in ("before", "after"):
        if probe.get(key) not in ("passed", "failed"):
            raise ValueError(f"{path}: probe of {probe.get('key')}: {key} must be passed or failed")
    answer = probe["actions"][-1]["arguments"].get("answer", "")
    return {k: probe[k] for k in ("key", "what", "right", "before", "after")} | {"answer": answer}


def suite_stats(splits: dict[str, list[Task]], validation: Path = VALIDATION, audit: Path = AUDIT) -> dict[str, Any]:
    """Counts per split, and for ``full`` every axis, the memory cells, coverage, recall@15, answer-check
    coverage, the recorded self-check (``validation``: where validate wrote it) and the played audit."""
    full = splits["full"]
    memory = [t for t in full if t.category == "memory"]
    skill = [t for t in full if t.category == "skill"]
    gold_tools = {a.name for t in full for a in t.gold}
    recovered = Counter(e for t in full for e in t.tags.get("recovers", "").split(",") if e)
    recall = [float(t.tags["recall_at_15"]) for t in full if "recall_at_15" in t.tags]
    return {
        "tasks": len(full),
        "trajectories": len(full) + len(skill) * (len(CONDITIONS) - 1),
        "skill_trajectories": len(skill) * len(CONDITIONS),
        "splits": {name: len(tasks) for name, tasks in splits.items()},
        "by": {axis: _count(full, key) for axis, key in AXES.items()},
        "memory_cells": _count(
            memory, lambda t: "/".join(t.tags.get(k, "?") for k in ("memory_type", "turn", "primary"))
        ),
        "coverage": {
            "domains": f"{len({t.domain for t in full})}/{len(DOMAINS)}",
            "l2": f"{len({t.l2 for t in full})}/{len(L2)}",
            "tools_in_gold": f"{sum(s.name in gold_tools for s in domain_tools())}/{len(domain_tools())}",
            "tools_never_in_gold": sorted(s.name for s in domain_tools() if s.name not in gold_tools),
            "skills": f"{len({t.required_skill_id for t in skill})}/{len(SKILLS)}",
            "error_types_recovered": dict(sorted(recovered.items())),
            "error_types_never_recovered": sorted(
                e.value for e in ErrorType if e.value not in recovered and e is not ErrorType.INTERNAL_ERROR
            ),
        },
        "retrieval": {
            "bm25": {
                "recall_at_15_mean": round(statistics.fmean(recall), 4) if recall else None,
                "tasks_with_full_recall": sum(r == 1.0 for r in recall),
            }
        },
        "answers": answer_coverage(full),
        "audit": audit_summary(audit),
        "selfcheck": selfcheck_counts(full, validation),
        "steps": {
            "gold_mean": round(statistics.fmean(len(t.gold) for t in full), 2) if full else 0,
            "gold_max": max((len(t.gold) for t in full), default=0),
        },
    }


def _table(title: str, counts: dict[str, int], names: dict[str, str] | None = None) -> str:
    rows = "\n".join(f"| {k}{' ' + names[k] if names and k in names else ''} | {v} |" for k, v in counts.items())
    return f"| {title} | tasks |\n|---|---|\n{rows}\n"


def card_markdown(stats: dict[str, Any]) -> str:
    """The dataset card: what the suite holds and how it was made (regenerated by ``mobilepa tasks card``)."""
    by, cov = stats["by"], stats["coverage"]
    parts = [
        "# MobilePA-Bench task suite: dataset card\n",
        "Generated by `mobilepa tasks card` from the committed files; do not edit by hand.\n",
        f"**{stats['tasks']} tasks, {stats['trajectories']} trajectories** "
        f"(each of the {by['category'].get('skill', 0)} "
        f"Skill tasks runs under SOR and MTSR: {stats['skill_trajectories']} skill trajectories). "
        "Every task's gold replays and passes on a fresh sandbox, doing nothing fails (except tasks whose right "
        "answer is to do nothing), and perturbed golds fail: `mobilepa tasks validate`.\n",
        "![tasks per domain and level-2](composition.png)\n",
        "## How it is made\n",
        "`sandbox/generator/` holds task *families*: code that drafts a task on one of 8 persona worlds (query from "
        "several paraphrase templates with entities drawn from the world, history, initial-state patches, gold, "
        "check, memory ids, skill, scripted user answers, scenario events). The build replays each draft's gold on "
        "a fresh episode, refuses any gold error the family did not declare as a friction it recovers from, fills "
        "ids created during the replay into the gold, and fixes A0 = the top-15 BM25 tools for (query, history) with "
        "the repair that swaps the lowest-ranked non-gold tool for a missed gold tool. The seed is fixed; "
        "`mobilepa tasks build` regenerates both files byte for byte (a test checks it).\n",
        "## Splits\n",
        _table("split", stats["splits"]),
        "`full` is the paper's suite; `basic`, `subagent`, `memory`, `skill` are its categories; `mini` is a "
        "stratified ~10 % sample (every tenth task of each level-2 / memory cell / skill, and of Sub-agent) for "
        "smoke runs; `train` is built from another seed with no query shared with `full`, for fine-tuning and RL.\n",
        "## Counts\n",
        _table("category", by["category"]),
        _table("domain", by["domain"], DOMAINS),
        _table("bucket", by["bucket"]),
        _table("memory cell (type/turn/primary)", stats["memory_cells"]),
        _table("memory write", by["memory_write"]),
        _table("conflict rule", by["conflict_rule"]),
        _table("Basic pattern", by["pattern"]),
        _table("friction kind", by["friction"]),
        _table("sub-agent", by["agent"]),
        _table("skill composition", by["composition"]),
        _table("turn mode", by["turn"]),
        _table("level-2", by["l2"], L2),
        "## Coverage\n",
        f"- domains {cov['domains']}, level-2 categories {cov['l2']}, skills {cov['skills']}\n"
        f"- domain tools in some gold trajectory: {cov['tools_in_gold']}"
        + (f" (never: {', '.join(cov['tools_never_in_gold'])})" if cov["tools_never_in_gold"] else "")
        + "\n"
        "- ErrorTypes recovered from in gold trajectories: "
        + ", ".join(f"{k} {v}" for k, v in cov["error_types_recovered"].items())
        + (f" (never: {', '.join(cov['error_types_never_recovered'])})" if cov["error_types_never_recovered"] else "")
        + "\n",
        *_checks_section(stats),
        *_audit_section(stats["audit"]),
        "## Retrieval\n",
        f"BM25 recall@15 of the gold's visible tools before the repair: mean "
        f"{stats['retrieval']['bm25']['recall_at_15_mean']}, full recall on "
        f"{stats['retrieval']['bm25']['tasks_with_full_recall']} of {stats['tasks']} tasks. A dense retriever is not "
        "used: its model cannot be fetched on the build machine, and the default suite must not need torch.\n",
        f"Gold length: mean {stats['steps']['gold_mean']} steps, at most {stats['steps']['gold_max']} "
        "(the budget is 15).\n",
    ]
    return "\n".join(parts)


def _checks_section(stats: dict[str, Any]) -> list[str]:
    """How the suite checks itself: answer checks, and the self-check and gates validate recorded."""
    answers, check = stats["answers"], stats["selfcheck"]
    lines = [
        "## Checks\n",
        f"- answer checks: {answers['with_answer_check']} of {answers['information_tasks']} information tasks "
        "(the user asked for facts: the `finish` answer must state them)\n",
    ]
    if check is None:
        lines.append(
            "- self-check and gates: not recorded for these tasks; run `mobilepa tasks validate --record` "
            f"(it writes `{VALIDATION.name}`), then `mobilepa tasks card`\n"
        )
        return lines
    alt, wrong, perturb = check["alternatives"], check["wrong_endings"], check["perturbations"]
    lines += [
        f"- oracle trajectories that must pass: {check['oracle']['runs']}, failed: {check['oracle']['surprises']}; "
        f"doing nothing must fail: {check['noop']['runs']}, passed: {check['noop']['surprises']}\n",
        f"- legitimate alternatives that must pass (reordered independent reads, an extra read, equivalent "
        f"arguments, a clarifying question, a search's origin by its street line, a confirmation asked in other "
        "words or before trying, a callee's own words relayed, a set's members alone, the answer then a runner-up, "
        "another time of a day the task leaves free, a share without its optional notification): "
        f"{alt['runs']}, failed: {alt['surprises']}\n",
        f"- wrong endings that must fail (another entity's facts, an invented number, a delegated answer denied, "
        f"placeholder text, a skipped "
        f"or unconfirmed confirmation, a search near the other saved address, a set with non-members, another "
        f"candidate named first, the day after a free time's day): "
        f"{wrong['runs']}, passed: {wrong['surprises']}\n",
        f"- perturbed golds that must fail: {perturb['runs']}, passed: {perturb['surprises']}\n",
        "- gate violations (each must be 0): " + ", ".join(f"{g} {n}" for g, n in check["gates"].items()) + "\n",
        "\n| self-check | runs | surprises |\n|---|---|---|\n"
        + "\n".join(f"| {k} | {v['runs']} | {v['surprises']} |" for k, v in sorted(check["by_check"].items()))
        + "\n",
    ]
    return lines


def _audit_section(audits: list[dict[str, Any]] | None) -> list[str]:
    """The played audits, each with its sample, the classes as played and after the fixes, the rule
    classes it counted before and after, and each finding."""
    if not audits:
        return []
    lines = ["## Played audits\n"]
    for audit in audits:
        lines += [
            f"### {audit['title']}\n",
            audit["method"] + "\n",
            f"{audit['episodes']} episodes (" + ", ".join(f"{c} {n}" for c, n in audit["by_category"].items()) + "):\n",
            "| class | as first played | after the fixes |\n|---|---|---|\n"
            + "\n".join(f"| {c} | {audit['played'].get(c, 0)} | {audit['final'].get(c, 0)} |" for c in AUDIT_CLASSES)
            + "\n",
        ]
        if audit["rules"]:
            lines.append(
                "| counted over the suite | before | after |\n|---|---|---|\n"
                + "\n".join(f"| {r['what']} | {r['before']} | {r['after']} |" for r in audit["rules"])
                + "\n"
            )
        if audit["findings"]:
            lines.append(
                "| episode | class as played | after | finding | fixed at the source |\n|---|---|---|---|---|\n"
                + "\n".join(
                    f"| {e['key']} | {e['class']} | {e.get('final_class', e['class'])} | "
                    f"{e['finding']} | {e.get('fix', '')} |"
                    for e in audit["findings"]
                )
                + "\n"
            )
        if audit["probes"]:
            lines.append(_probes_table(audit["probes"]))
        lines.append("Sample: " + ", ".join(audit["keys"]) + "\n")
    return lines


def _probes_table(probes: list[dict[str, Any]]) -> str:
    """The answer probes: how many the checks judged wrongly when played and now, then each one."""

    def judged_wrongly(when: str) -> int:
        return sum((p[when] == "passed") != p["right"] for p in probes)

    rows = "\n".join(
        f"| {p['key']} | {'right' if p['right'] else 'wrong'} | {p['what']} | {p['before']} | {p['after']} |"
        for p in probes
    )
    return (
        f"Answer probes (a player's actions, the final answer replaced by a known-right or known-wrong one): "
        f"{len(probes)}, judged wrongly when played {judged_wrongly('before')}, now {judged_wrongly('after')}.\n\n"
        "| episode | answer | what it tests | verdict when played | now |\n|---|---|---|---|---|\n" + rows + "\n"
    )
