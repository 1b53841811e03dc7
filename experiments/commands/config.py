"""The Hydra configs: composed from the shipped ``conf`` package (and a user's folders on the search
path), checked before any work, their mistakes said in one line naming the key."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

from hydra import compose, initialize_config_module
from hydra.core.global_hydra import GlobalHydra
from hydra.errors import HydraException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

import conf
from planners import MODEL_KINDS
from planners.config import evaluated_name

CONF_MODULE = "conf"  # the configs ship as the package ``conf``: found from the checkout and from a wheel


CONF_PATH = f"pkg://{CONF_MODULE}"


CONF_DIR = str(Path(conf.__file__).resolve().parent)  # where they lie on disk (their comments are read for --help)


SEARCHPATH = "hydra.searchpath"


class RunConfigError(ValueError):
    """A config mistake, said in one line naming the key (instead of Hydra's text or a traceback)."""


def check_added_keys(overrides: Sequence[str], config_name: str = "config", allowed: Sequence[str] = ()) -> None:
    """Refuse a key that ``+key=value`` or ``++key=value`` would add to the config: nothing reads it, so it
    would be recorded and ignored (``+foo.bar=1``, ``+planner.api_key=...`` for a planner without that key).
    ``allowed``: keys the toolkit adds itself (``limit``, ``store``...); Hydra's own (``hydra.*``) pass."""
    added = {
        o: key
        for o in overrides
        if o.startswith("+")
        and (key := o.lstrip("+").partition("=")[0]) not in allowed
        and not key.startswith("hydra.")
        and key != SEARCHPATH
    }
    if not added:
        return
    base = _compose([o for o in overrides if o not in added], config_name)
    missing = object()
    for key in added.values():
        if OmegaConf.select(base, key, default=missing) is missing:
            raise RunConfigError(unknown_key(key, base))


def unknown_key(key: str, config: DictConfig) -> str:
    """One line for a key ``config`` does not have: the keys of its nearest existing parent."""
    parts = key.split(".")
    for depth in range(len(parts) - 1, -1, -1):
        parent = ".".join(parts[:depth])
        node = OmegaConf.select(config, parent) if parent else config
        if isinstance(node, DictConfig):
            keys = ", ".join(str(k) for k in node if k != "hydra")
            return f"{key}: no such key; known keys{f' of {parent}' if parent else ''}: {keys}"
        if node is not None:
            return f"{key}: {parent} is a value, not a group of keys"
    return f"{key}: no such key"


def _compose(overrides: Sequence[str], config_name: str = "config") -> DictConfig:
    return compose_config(config_name, overrides)


def compose_config(config_name: str, overrides: Sequence[str] = ()) -> DictConfig:
    """``config_name`` composed from the shipped configs and any folder a ``hydra.searchpath=[...]``
    override adds (a user's own ``planner/<name>.yaml`` or ``split/<name>.yaml``)."""
    with initialize_config_module(config_module=CONF_MODULE, version_base="1.3"):
        return compose(config_name, overrides=list(overrides))


RUN_DIR = "outputs/run"  # where conf/config.yaml's hydra.run.dir lies unless one is given


def run_dir_problem(overrides: Sequence[str]) -> str | None:
    """Why the run's output folder (``hydra.run.dir=``, else under ``outputs/run``) cannot be made or
    written, in one line; None when it can (Hydra would otherwise fail with a traceback)."""
    given = [o.partition("=")[2] for o in overrides if o.lstrip("+~").partition("=")[0] == "hydra.run.dir"]
    folder = Path(given[-1] if given else RUN_DIR).expanduser()
    existing = next((p for p in (folder, *folder.parents) if p.exists()), Path("."))
    key = "hydra.run.dir" if given else "the output folder"
    if not existing.is_dir():
        return f"{key} {folder}: {existing} is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{key} {folder}: {existing} is not writable (read-only)"
    return None


def searchpath_overrides(overrides: Sequence[str]) -> list[str]:
    """The ``hydra.searchpath=[...]`` overrides among ``overrides`` (they decide which configs exist)."""
    return [o for o in overrides if o.lstrip("+~").partition("=")[0] == SEARCHPATH]


def group_options(group: str, overrides: Sequence[str] = (), config_name: str = "config") -> list[str]:
    """The options of a config group in Hydra's config repository: the shipped ones and those of the
    folders on the search path, without the shared bases (``_*.yaml``)."""
    with initialize_config_module(config_module=CONF_MODULE, version_base="1.3"):
        loader = GlobalHydra.instance().config_loader()
        options = loader.get_group_options(group, config_name=config_name, overrides=searchpath_overrides(overrides))
    return sorted(o for o in options if not o.startswith("_"))


def override_error(exc: Exception, overrides: Sequence[str], config_name: str = "config") -> str:
    """Hydra's multi-line composition error as one line: the key, and the keys or options it could be
    (``config_name``: the primary config the overrides were for, e.g. ``sweep``)."""
    text = str(exc)
    if missing := re.search(r"Could not find '([^'/]+)/([^']+)'", text):
        group, option = missing.groups()
        listed = text.partition("Available options in")[2].partition("Config search path")[0].splitlines()[1:]
        known = [name.strip() for name in listed if name.strip() and not name.strip().startswith("_")]
        return f"{group}: unknown {group} {option!r}; known: {', '.join(known)}"
    if present := re.search(r"Could not append to config. An item is already at '([^']+)'", text):
        key = present.group(1)
        return f"{key}: already a key of the config; set it without '+': {key}=..."
    if unknown := re.match(r"Could not override '([^']+)'", text):
        key = unknown.group(1).lstrip("+~")
        parent = key.rpartition(".")[0]
        try:  # the config the other overrides select (planner=..., split=...), to list what the key could be
            base = _compose(
                [o for o in overrides if "." not in o.partition("=")[0] and o.partition("=")[0] != key]
                + searchpath_overrides(overrides),
                config_name,
            )
        except (HydraException, OmegaConfBaseException):
            return text.splitlines()[0]
        node = OmegaConf.select(base, parent) if parent else base
        if not isinstance(node, DictConfig):
            return f"{key}: {parent} has no keys"
        if key.rpartition(".")[2] in node:  # a known key given a value of the wrong shape
            return f"{key}: {str(getattr(exc.__cause__, 'msg', text)).splitlines()[0]}"
        return f"{key}: no such key; known keys{f' of {parent}' if parent else ''}: {', '.join(map(str, node))}"
    return ": ".join(text.splitlines()[:2])


def run_override(arg: str) -> str:
    """``store=PATH`` -> ``++store=PATH``; ``tracking=mlflow`` -> ``+tracking=mlflow`` (the group the sweep
    uses, added to the run's config); anything else unchanged."""
    key, sep, value = arg.partition("=")
    if not sep or key != key.lstrip("+~"):
        return arg
    if key == "store":
        return f"++store={value}"
    if key == "tracking":
        return f"+tracking={value}"
    return arg


def naming_overrides(cfg: DictConfig, overrides: Sequence[str]) -> list[str]:
    """Overrides naming the run after what it evaluates: ``planner.name`` after the model when the command
    line chose another than the config's (``planners.config.evaluated_name``), ``split.name`` after the
    task file when ``split.file`` was given (``split.file=./my_tasks.jsonl`` is ``my_tasks``, not the
    split it replaced). Every result (results.json, the store, MLflow, the run folder) carries them.
    ``cfg``: ``overrides`` composed (outside a Hydra job: the config the command line replaced is composed here)."""
    dotted = ("planner.", "split.", "+planner.", "+split.", "++planner.", "++split.")
    try:
        base = _compose([o for o in overrides if not o.startswith(dotted)])
    except (HydraException, OmegaConfBaseException):
        return []
    named = []
    if cfg.planner.get("kind") in MODEL_KINDS and cfg.planner.get("name"):
        model = cfg.planner.get("served_model_name") or cfg.planner.get("model")
        own = OmegaConf.select(base, "planner.served_model_name", default=None) or OmegaConf.select(
            base, "planner.model", default=None, throw_on_missing=False
        )
        if (label := evaluated_name(str(cfg.planner.name), model, own)) != cfg.planner.name:
            named.append(f"planner.name={json.dumps(label)}")
    if cfg.split.get("file") != OmegaConf.select(base, "split.file", default=None):
        named.append(f"split.name={json.dumps(Path(str(cfg.split.file)).name.split('.')[0])}")
    return named
