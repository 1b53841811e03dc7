"""``mobilepa``: the command-line face. ``run`` is a Hydra job; the other commands are plain."""

from __future__ import annotations

import sys

USAGE = """usage: mobilepa <command> [args]

commands:
  run [hydra overrides]   run a planner over a split, e.g. `mobilepa run planner=oracle split=handwritten`
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
    print(f"mobilepa: unknown command {command!r}\n\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
