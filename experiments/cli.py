"""``mobilepa``: the command-line face. ``run`` is a Hydra job; the other commands are plain."""

from __future__ import annotations

import json
import sys

USAGE = """usage: mobilepa <command> [args]

commands:
  run [hydra overrides]        run a planner over a split, e.g. `mobilepa run planner=oracle split=handwritten`
  sweep [key=value ...]        the planner x split x condition x seed grid on Dask, e.g.
                               `mobilepa sweep planner=oracle,noop split=handwritten seed=0,1,2`
                               (conf/sweep.yaml; cluster=local|address|slurm|kubernetes; tracking=mlflow|none)
  report [--store PATH] [--out DIR]
                               leaderboard (mean ± std over seeds) from the results store: table, markdown, HTML;
                               per cell: Overall with its 95 % interval, failure causes, behaviour (analysis.json)
  compare A B [--store PATH] [--split S] [--condition C] [--out DIR]
                               two planners on the same stored episodes: per-category differences with
                               paired-bootstrap intervals and McNemar p, the flipping tasks, a plot
  catalog [--json|--markdown]  the declared phone: counts per domain and level-2, or JSON, or the tool reference
  tasks build|validate|stats [--json]|try PREFIX
                               regenerate the suite; self-validate it (oracle, noop, perturbations);
                               the dataset card's counts; try drafts of task families
  play KEY [--split S] [--condition C] [--actions FILE] [--schemas] [--request]
                               play one episode as the planner (JSON actions, verdict at finish);
                               `mobilepa play --help` shows the turn-by-turn workflow for scripts
  bench [sandbox] [--json]     every performance figure side by side (reset, tool calls vs raw sqlite3,
                               oracle episodes/s, sweep wall time, scaling, LLM-bound efficiency, RSS);
                               `sandbox`: only reset and tool calls
"""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    command, rest = args[0], args[1:]
    if command == "run":
        from experiments import run

        sys.argv = ["mobilepa run", *rest]
        run.main()
        return 0
    if command == "sweep":
        from experiments.sweep_cli import sweep_main

        return sweep_main(rest)
    if command == "report":
        from experiments.sweep_cli import report_main

        return report_main(rest)
    if command == "compare":
        from experiments import compare

        return compare.main(rest)
    if command == "catalog":
        from sandbox import catalog

        if rest == ["--json"]:
            print(json.dumps(catalog.catalog_json(), indent=2, sort_keys=True))
        elif rest == ["--markdown"]:
            print(catalog.reference_markdown(), end="")
        elif not rest:
            print(catalog.counts_table())
        else:
            print(f"mobilepa catalog: unknown arguments {rest}; use --json or --markdown", file=sys.stderr)
            return 2
        return 0
    if command == "tasks":
        from experiments import tasks_cli

        return tasks_cli.main(rest)
    if command == "play":
        from experiments import play

        return play.main(rest)
    if command == "bench":
        from experiments import bench

        return bench.main(rest)
    print(f"mobilepa: unknown command {command!r}\n\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
