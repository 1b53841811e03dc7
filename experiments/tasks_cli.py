"""``mobilepa tasks``: build, validate, describe and try the task suite."""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from sandbox.generator.core import BuildError
from sandbox.generator.suite import Slot, build_slot, load_families
from verification.selfcheck import check_task


def try_families(prefix: str, variants: int, seed: int) -> int:
    """Build ``variants`` drafts of every family whose name starts with ``prefix`` and self-check them."""
    fams = sorted(n for n in load_families() if n.startswith(prefix))
    if not fams:
        print(f"no family starts with {prefix!r}", file=sys.stderr)
        return 2
    seen: set[tuple[str, str]] = set()
    bad = 0
    tally: Counter[str] = Counter()
    for name in fams:
        for i in range(variants):
            slot = Slot(f"try-{name}-{i}", name)
            try:
                task = build_slot(slot, seed, seen)
            except BuildError as exc:
                bad += 1
                print(f"BUILD  {name}[{i}]: {exc}")
                continue
            for o in check_task(task):
                tally[o.check] += 1
                if o.surprise:
                    bad += 1
                    print(f"SURPRISE {name}[{i}] {o.check}: {o.detail[:400]}  | query: {task.query}")
    print(f"{len(fams)} families x {variants} variants; checks: {dict(sorted(tally.items()))}; problems: {bad}")
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="mobilepa tasks")
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("try", help="build and self-check a few drafts of the families whose name starts with PREFIX")
    t.add_argument("prefix")
    t.add_argument("-n", "--variants", type=int, default=4)
    t.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.command == "try":
        return try_families(args.prefix, args.variants, args.seed)
    return 2
