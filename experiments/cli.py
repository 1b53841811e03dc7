"""``mobilepa``: the command-line face. Every command is declared once, in ``COMMANDS``; the top-level
help is generated from it, and each command answers ``--help`` itself (the Hydra ones, ``run`` and
``sweep``, with their usage and the keys of their config). A command's module is imported only when it
runs, so ``mobilepa --help`` stays instant."""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from experiments.reporting import console  # the standard library only: `mobilepa --help` stays instant


@dataclass(frozen=True)
class Command:
    arguments: str  # the shape of its arguments, shown after the name (its --help has the rest)
    summary: str
    handler: Callable[[list[str]], int]


def _wants_help(args: list[str]) -> bool:
    return "-h" in args or "--help" in args


def _run(args: list[str]) -> int:
    if _wants_help(args):
        print(_run_help())
        return 0
    from experiments.commands import config, run

    try:
        args = config_dir_args(args)
    except ValueError as exc:
        print(f"mobilepa run: {exc}", file=sys.stderr)
        return 2
    from experiments.commands.config import run_override
    from experiments.plan.selection import as_override

    args = [run_override(as_override(a)) for a in args]  # limit=, task_ids=, store=, tracking=: added to the config
    if not any(a.startswith("-") for a in args):  # Hydra's own flags (--cfg job, -m, ...) go to Hydra as they are
        composing = [a for a in args if not a.lstrip("+~").startswith("hydra")] + config.searchpath_overrides(args)
        try:
            cfg = run.compose_checked(composing)
        except config.RunConfigError as exc:
            print(f"mobilepa run: {exc}", file=sys.stderr)
            return 2
        if (problem := config.run_dir_problem(args)) is not None:
            print(f"mobilepa run: {problem}", file=sys.stderr)
            return 2
        args += config.naming_overrides(cfg, composing)  # results named after the model and the task file
    sys.argv = ["mobilepa run", *args]
    full_error = os.environ.get("HYDRA_FULL_ERROR")
    os.environ["HYDRA_FULL_ERROR"] = "1"  # the job's errors reach main's one line, not Hydra's traceback print
    try:
        run.main()  # run.main's exit codes are SystemExits
    finally:
        if full_error is None:
            os.environ.pop("HYDRA_FULL_ERROR")
        else:
            os.environ["HYDRA_FULL_ERROR"] = full_error
    return 0


def _sweep(args: list[str]) -> int:
    if _wants_help(args):
        print(_sweep_help())
        return 0
    try:
        args = config_dir_args(args)
    except ValueError as exc:
        print(f"mobilepa sweep: {exc}", file=sys.stderr)
        return 2
    from experiments.commands.sweep import sweep_main

    return sweep_main(args)


def config_dir_args(args: list[str]) -> list[str]:
    """``--config-dir DIR`` (also ``--config-dir=DIR``, ``-cd DIR``, given more than once) as Hydra's
    ``hydra.searchpath=[file:///DIR, ...]``, after the folders of any ``hydra.searchpath`` given too: a
    user's own ``planner/<name>.yaml`` or ``split/<name>.yaml`` then joins the shipped configs for
    ``run`` and ``sweep`` alike (a name the toolkit ships stays the toolkit's)."""
    rest: list[str] = []
    folders: list[str] = []
    given = iter(args)
    for arg in given:
        flag, eq, value = arg.partition("=")
        if flag not in ("--config-dir", "-cd"):
            rest.append(arg)
            continue
        value = value if eq else next(given, "")
        if not value:
            raise ValueError(f"{flag}: a folder is required")
        folder = Path(value).expanduser().resolve()
        if not folder.is_dir():
            raise ValueError(f"{flag}: no folder {value!r}")
        folders.append(f"file://{folder}")
    if not folders:
        return rest
    from hydra.core.override_parser.overrides_parser import OverridesParser

    searchpath = [a for a in rest if a.lstrip("+~").partition("=")[0] == "hydra.searchpath"]
    earlier = (
        [str(f) for f in OverridesParser.create().parse_overrides(searchpath[-1:])[0].value()]  # type: ignore[union-attr]
        if searchpath
        else []
    )
    listed = ",".join(json.dumps(f) for f in [*earlier, *folders])
    return [*(a for a in rest if a not in searchpath), f"hydra.searchpath=[{listed}]"]


def _report(args: list[str]) -> int:
    from experiments.commands.sweep import report_main

    return report_main(args)


def _compare(args: list[str]) -> int:
    from experiments.commands import compare

    return compare.main(args)


def _rescore(args: list[str]) -> int:
    from experiments.commands import rescore

    return rescore.main(args)


def _catalog(args: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="mobilepa catalog", description=COMMANDS["catalog"].summary)
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="every tool with its domain, level-2 and declarations")
    form.add_argument("--markdown", action="store_true", help="the tool reference (TOOLS.md)")
    ns = parser.parse_args(args)
    from sandbox import catalog

    if ns.json:
        print(json.dumps(catalog.catalog_json(), indent=2, sort_keys=True))
    elif ns.markdown:
        print(catalog.reference_markdown(), end="")
    else:
        print(catalog.counts_table())
    return 0


def _tasks(args: list[str]) -> int:
    from experiments.commands import tasks as tasks_cli

    return tasks_cli.main(args)


def _play(args: list[str]) -> int:
    from experiments.commands import play

    return play.main(args)


def _bench(args: list[str]) -> int:
    from experiments.bench import figures as bench

    return bench.main(args)


def _view(args: list[str]) -> int:
    from experiments.commands.view import command

    return command.main(args)


COMMANDS: dict[str, Command] = {
    "run": Command(
        "[key=value ...]",
        "run one planner over one split (Hydra): scores, results.json, "
        "trajectories; exits 1 if an episode ended in infra_error",
        _run,
    ),
    "sweep": Command(
        "[key=value ...]",
        "the planner x split x condition x seed grid on Dask into the results "
        "store, tracked in MLflow, then the leaderboard",
        _sweep,
    ),
    "report": Command(
        "[--store PATH] [--out DIR]",
        "leaderboard from the results store: table, markdown, HTML, per-cell analysis",
        _report,
    ),
    "compare": Command("A B", "two planners on the same stored episodes: paired differences, McNemar, flips", _compare),
    "rescore": Command(
        "[--store PATH] [--split NAME]",
        "judge the stored trajectories again with the current "
        "verifier, no planner called: verdicts that changed, scores before and after, MLflow updated",
        _rescore,
    ),
    "view": Command(
        "[KEY] [--run DIR|--store PATH]",
        "list a run's or a store's episodes, or show one: conversation, calls, envelopes, diff, verdict; --html pages",
        _view,
    ),
    "play": Command("KEY", "play one episode yourself as the planner, verdict at finish", _play),
    "catalog": Command("[--json|--markdown]", "the declared phone: tools per domain and level-2", _catalog),
    "tasks": Command(
        "{try,build,validate,stats,card,gates}",
        "the task suite: draft, build, self-validate, count, dataset card, gate violations",
        _tasks,
    ),
    "bench": Command("[all|sandbox|llm|cli]", "the performance figures side by side", _bench),
}


class _CommandsFormatter(argparse.RawDescriptionHelpFormatter):
    """Command help as given: the arguments on the name's line, the summary below them."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        split = super()._split_lines
        return [line for part in text.splitlines() for line in split(part, width)]


def parser() -> argparse.ArgumentParser:
    """The top-level parser, generated from COMMANDS (used for --help; each command parses its own arguments)."""
    p = argparse.ArgumentParser(
        prog="mobilepa",
        formatter_class=_CommandsFormatter,
        description="MobilePA-Bench: run LLM planners on a sandboxed phone and score them.",
        epilog="`mobilepa <command> --help` shows a command's options.\nquickstart:\n"
        "  mobilepa run planner=oracle split=mini\n"
        "  mobilepa sweep planner=oracle,noop split=mini seed=0,1,2 && mobilepa report\n"
        "  mobilepa view --store outputs/results.db --verdict fail",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = p.add_subparsers(title="commands", metavar="<command>")
    for name, command in COMMANDS.items():
        commands.add_parser(name, help=f"{command.arguments}\n{command.summary}", add_help=False)
    return p


def _version() -> str:
    try:
        return version("mobilepa-bench")
    except PackageNotFoundError:
        return "(not installed)"


def main(argv: list[str] | None = None) -> int:
    """The exit status of the command (argparse's exits included): 0 done, 2 a usage or config mistake or
    an unusable file or folder given, 1 the machine or the toolkit failed, 130 interrupted. An error no
    command caught is one line naming the command, its traceback in mobilepa.log."""
    args = sys.argv[1:] if argv is None else list(argv)
    console.forget_log()  # a log file chosen by an earlier command of this process is not this one's
    try:
        return _finished(_dispatch(args), program=argv is None)
    except SystemExit as exc:
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    except KeyboardInterrupt:
        print(f"mobilepa {args[0]}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        return console.report_failure(args[0], exc)


def _finished(code: int, *, program: bool) -> int:
    """The command is done; as the program, only the interpreter's exit is left (MLflow flushes its trace
    queue then), which a Ctrl-C would break with a traceback: it is ignored from here on."""
    if program:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return code


def _dispatch(args: list[str]) -> int:
    if not args:
        parser().print_help(sys.stderr)
        return 2
    if args[0] in ("-h", "--help", "--version"):
        parser().parse_args(args[:1])  # prints and exits 0
    if args[0].startswith("-"):
        print(f"mobilepa: unknown option {args[0]!r}; `mobilepa --help` lists the commands", file=sys.stderr)
        return 2
    command = COMMANDS.get(args[0])
    if command is None:
        near = difflib.get_close_matches(args[0], list(COMMANDS), n=1)
        hint = f"did you mean {near[0]}? " if near else ""
        print(f"mobilepa: unknown command {args[0]!r}; {hint}commands: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    return command.handler(args[1:])


# ---- help for the Hydra commands: usage, config groups and keys from the config itself ------------

RUN_DESCRIPTION = """\
Run one planner over one split: print pass rates per category and bucket, the gate rates and the
weighted Overall; write results.json, episodes.jsonl and trajectories.jsonl.gz to
outputs/run/<planner>/<split>/<time>/ (hydra.run.dir=DIR elsewhere). Exits 2 on a config mistake, 1 when
an episode ended in infra_error (its endpoint and error named)."""
RUN_EXAMPLES = """\
  mobilepa run planner=oracle split=mini
  mobilepa run planner=oracle split=mini task_ids=[basic-1.1-01] store=outputs/results.db tracking=mlflow
  mobilepa run planner=qwen3_8b planner.base_url=http://localhost:8000/v1 split=mini seed=1
  mobilepa run planner=oracle --cfg job          # print the composed config (Hydra's flags pass through)
  mobilepa run --config-dir ~/my_conf planner=my_model   # ~/my_conf/planner/my_model.yaml beside the shipped ones
  mobilepa run planner=oracle split.file=/data/my_tasks.jsonl   # a task file anywhere"""
SWEEP_DESCRIPTION = """\
Run the planner x split x condition x seed grid on one Dask cluster into the results store, track it in
MLflow, then print the leaderboard. planner=, split=, seed= and condition= take comma-separated lists, and
so do ablation= and retrieval.method=, retrieval.top_n=, retrieval.repair=; planner.<name>.<key>=value
sets one planner's key; any other key=value overrides conf/sweep.yaml."""
SWEEP_EXAMPLES = """\
  mobilepa sweep planner=oracle,noop split=mini seed=0,1,2
  mobilepa sweep --dry-run planner=oracle,qwen3_8b split=full seed=0,1,2   # what it would run, and where
  mobilepa sweep planner=oracle split=mini limit=5                          # a quick run
  mobilepa sweep planner=qwen3_8b planner.qwen3_8b.base_url=http://gpu-host:8000/v1 split=mini
  mobilepa sweep planner=qwen3_8b split=mini cluster=slurm_gpu cluster.jobs=1 tracking=none
  mobilepa sweep --config-dir ~/my_conf planner=oracle,my_model split=mini   # a user's own planner and split configs"""
_COMMENTED = re.compile(r"^( *)([A-Za-z_]\w*):\s*(.*?)\s*(?:#\s*(.*))?$")


def _comments(source: Path) -> dict[str, str]:
    """Dotted key -> the comment on its line in a config file (``retrieval.top_n``: two-space nesting)."""
    comments: dict[str, str] = {}
    parents: list[str] = []
    for line in source.read_text(encoding="utf-8").splitlines():
        if match := _COMMENTED.match(line):
            depth = len(match.group(1)) // 2
            parents = [*parents[:depth], match.group(2)]
            comments[".".join(parents)] = match.group(4) or ""
    return comments


def _leaves(cfg: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted key, value) of every leaf under ``cfg``: the keys a user sets as ``retrieval.top_n=10``."""
    from omegaconf import DictConfig

    leaves = []
    for key in cfg:
        value = cfg[key]
        name = f"{prefix}{key}"
        leaves += _leaves(value, f"{name}.") if isinstance(value, DictConfig) else [(name, value)]
    return leaves


def _config_help(
    config_name: str, grid: dict[str, str] | None = None, lists: dict[str, str] | None = None
) -> tuple[list[str], list[str]]:
    """Lines for a config's groups (options, the default starred) and keys, each as the command line
    takes it (value and comment); ``grid`` names the keys a sweep sets from a group (planner ->
    planners), ``lists`` the config keys of the list axes the command line names otherwise (ablations ->
    ablation), shown comma-separated as they are given."""
    from hydra import compose, initialize_config_module
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import ListConfig, OmegaConf

    from experiments.commands.config import CONF_DIR, CONF_MODULE

    with initialize_config_module(config_module=CONF_MODULE, version_base="1.3"):
        cfg = compose(config_name, return_hydra_config=True)
        loader = GlobalHydra.instance().config_loader()
        chosen = cfg.hydra.runtime.choices
        known = loader.list_groups("")
        groups = {
            g: [o for o in loader.get_group_options(g) if not o.startswith("_")] if g in known else []
            for g in [*(grid or {}), *(g for g in known if g in cfg and g != "hydra")]
        }
    defaults = {g: [str(chosen.get(g))] for g in groups}
    for group, key in (grid or {}).items():
        defaults[group] = [str(v) for v in cfg[key]]
    width = max(map(len, groups), default=0)
    group_lines = [
        f"  {g:<{width}}  " + ", ".join(f"{o}*" if o in defaults[g] else o for o in options or defaults[g])
        for g, options in groups.items()
    ]
    comments = _comments(Path(CONF_DIR) / f"{config_name}.yaml")
    skipped = {"hydra", *groups, *(grid or {}).values()}
    key_lines = []
    kept = [str(k) for k in cfg if k not in skipped]
    for key, value in _leaves(OmegaConf.masked_copy(cfg, kept)):
        if key in (lists or {}):
            shown = ",".join(v if isinstance(v, str) else json.dumps(v) for v in value)
        else:
            shown = json.dumps(OmegaConf.to_container(value) if isinstance(value, ListConfig) else value)
        note = f"  # {comments[key]}" if comments.get(key) else ""
        key_lines.append(f"  {(lists or {}).get(key, key)}={shown}{note}")
    return group_lines, key_lines


def _run_help() -> str:
    groups, keys = _config_help("config")
    return (
        f"usage: mobilepa run [--config-dir DIR] [key=value ...] [Hydra flags]\n\n{RUN_DESCRIPTION}\n\n"
        "config groups (key=option; * the default):\n"
        + "\n".join(groups)
        + "\n\nkeys (conf/config.yaml):\n"
        + "\n".join(keys)
        + "\n  planner.<key>=value  any key of the chosen planner config (e.g. planner.base_url, "
        "planner.sampling.temperature)"
        "\n  limit=N  only the first N tasks of the split (a quick run)"
        "\n  task_ids=[a,b]  only these tasks"
        "\n  store=PATH  also record the episodes into a results store, as a one-cell sweep (off by default)"
        "\n  tracking=mlflow  also log them to MLflow like a sweep (the store: store=, else outputs/results.db)"
        "\n\nexamples:\n" + RUN_EXAMPLES
    )


def _sweep_help() -> str:
    from experiments.plan.model import AXIS_KEYS, GRID_KEYS

    axes = {("retrieval." if key.startswith("retrieval.") else "") + leaf: key for key, leaf in AXIS_KEYS.items()}
    groups, keys = _config_help("sweep", GRID_KEYS, axes)
    return (
        f"usage: mobilepa sweep [--dry-run] [--config-dir DIR] [key=value ...]\n\n{SWEEP_DESCRIPTION}\n\n"
        "options:\n  --dry-run  print the grid, the cells, their episodes and the endpoints, then exit: nothing "
        "is run, stored or logged\n\n"
        "grid and config groups (key=option[,option...]; * the default):\n"
        + "\n".join(groups)
        + "\n\nkeys (conf/sweep.yaml):\n"
        + "\n".join(keys)
        + "\n  planner.<name>.<key>=value  a key of one planner's config, e.g. planner.qwen3_8b.base_url"
        "\n  limit=N  only the first N tasks of each split (a quick run)"
        "\n  task_ids=[a,b]  only these tasks (their SOR and MTSR episodes under condition both)"
        "\n\nexamples:\n" + SWEEP_EXAMPLES
    )


if __name__ == "__main__":
    raise SystemExit(main())
