"""``mobilepa tasks``: its arguments. The suite's generator and the phone are imported only once a
command runs (``experiments.commands.task_suite``), so ``--help`` answers at once."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from sandbox.generator import STRICT_ENV
from sandbox.suite import TASK_DIR, VALIDATION


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="mobilepa tasks")
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("try", help="build and self-check a few drafts of the families whose name starts with PREFIX")
    t.add_argument("prefix")
    t.add_argument("-n", "--variants", type=int, default=4)
    t.add_argument("--seed", type=int, default=1)
    b = sub.add_parser("build", help="regenerate sandbox/data/tasks/{full,train}.jsonl from the generator")
    b.add_argument("--out", type=Path, default=TASK_DIR)
    b.add_argument(
        "--strict-gates",
        action="store_true",
        help=f"refuse the build at the first gate violation (also {STRICT_ENV}=1)",
    )
    v = sub.add_parser(
        "validate", help="oracle passes, noop fails, perturbed golds fail; non-zero exit on any surprise"
    )
    v.add_argument("--split", default="full.jsonl", help="task file under sandbox/data/tasks")
    v.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    v.add_argument(
        "--record",
        type=Path,
        nargs="?",
        const=VALIDATION,
        metavar="PATH",
        help="write the counts the dataset card shows (default PATH: the suite's validation.json)",
    )
    st = sub.add_parser("stats", help="counts by category, domain, level-2, bucket, memory type, turn, friction, split")
    st.add_argument("--json", action="store_true")
    sub.add_parser(
        "card", help="write sandbox/data/tasks/CARD.md, its chart and task.schema.json from the committed suite"
    )
    gt = sub.add_parser("gates", help="every gate violation (unseen ids, schema examples, lint) grouped by family")
    gt.add_argument(
        "--family",
        metavar="PREFIX",
        help="build fresh drafts of the families starting with PREFIX instead of reading the task file",
    )
    gt.add_argument("--split", default="full.jsonl", help="task file under sandbox/data/tasks")
    gt.add_argument("-n", "--variants", type=int, default=4, help="drafts per family with --family")
    gt.add_argument("--seed", type=int, default=1)
    gt.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from experiments.commands.task_suite import build, card, run_gates, stats, try_families, validate

    if args.command == "gates":
        return run_gates(args.family, args.split, args.variants, args.seed, args.json)
    if args.command == "try":
        return try_families(args.prefix, args.variants, args.seed)
    if args.command == "build":
        return build(args.out, args.strict_gates)
    if args.command == "validate":
        return validate(args.split, args.jobs, args.record)
    if args.command == "card":
        return card()
    return stats(args.json)
