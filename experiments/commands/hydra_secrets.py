"""Secrets given on the command line kept out of what Hydra writes down.

Hydra saves the composed config, the command line's overrides and its own config (which repeats
them) in the run's ``.hydra`` folder before the job starts. ``RedactSecrets``, a Hydra callback
(``conf/config.yaml``), moves each secret given literally into an environment variable of this
process before that happens: the config then holds ``${oc.env:MOBILEPA_SECRET_…}`` in its place, which
the job resolves as before, and every other mention (override strings, ``override_dirname``) is
masked (which keys are secrets: ``experiments.results.secrets``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import Container, DictConfig, ListConfig, open_dict, read_write

from experiments.results.secrets import is_secret, mask

ENV_PREFIX = "MOBILEPA_SECRET_"


SAVED = ("config.yaml", "hydra.yaml", "overrides.yaml")


def _env_name(path: str) -> str:
    return ENV_PREFIX + re.sub(r"[^A-Za-z0-9]", "_", path).upper()


def _literal_secrets(node: Container, path: str) -> Iterator[tuple[Container, Any, str, str]]:
    """(parent, key, dotted path, value) of each secret given literally under ``node`` (not an interpolation)."""
    keys: Iterable[Any] = range(len(node)) if isinstance(node, ListConfig) else list(node.keys())  # type: ignore[attr-defined]  # a DictConfig
    for key in keys:
        child = node._get_node(key)
        where = f"{path}.{key}" if path else str(key)
        if isinstance(child, DictConfig | ListConfig):
            yield from _literal_secrets(child, where)
            continue
        raw = child._value() if child is not None else None  # type: ignore[union-attr]  # a value node
        if isinstance(key, str) and is_secret(key) and isinstance(raw, str) and raw and "${" not in raw:
            yield node, key, where, raw


def _job_secrets(config: DictConfig) -> Iterator[tuple[Container, Any, str, str]]:
    for key in [k for k in config if k != "hydra"]:
        child = config._get_node(key)
        if isinstance(child, DictConfig | ListConfig):
            yield from _literal_secrets(child, str(key))


def _secret_override(override: str) -> tuple[str, str] | None:
    """(key, value) of an override that gives a secret literally (``+planner.api_key=sk-…``), else None."""
    key, sep, value = override.partition("=")
    if sep and value and is_secret(key.lstrip("+~").rsplit(".", 1)[-1]) and "${" not in value:
        return key, value.strip("'\"")
    return None


def _mask_strings(node: Container, secrets: list[str]) -> None:
    """Every string under ``node`` with the secrets' values masked (interpolations left unresolved)."""
    keys: Iterable[Any] = range(len(node)) if isinstance(node, ListConfig) else list(node.keys())  # type: ignore[attr-defined]  # a DictConfig
    for key in keys:
        child = node._get_node(key)
        if isinstance(child, DictConfig | ListConfig):
            _mask_strings(child, secrets)
            continue
        raw = child._value() if child is not None else None  # type: ignore[union-attr]  # a value node
        if isinstance(raw, str) and mask(raw, secrets) != raw:
            node[key] = mask(raw, secrets)


def _redact(config: DictConfig) -> None:
    """Each secret in ``config`` (its overrides and the composed job config) moved into an environment
    variable that an interpolation reads in its place; every other mention in Hydra's config masked."""
    secrets: list[str] = []
    with read_write(config), open_dict(config):
        overrides = config.hydra.overrides.task
        for i, override in enumerate(list(overrides)):
            found = _secret_override(str(override))
            if found is not None:  # a job composed from this override reads the variable
                name = _env_name(found[0].lstrip("+~"))
                os.environ[name] = found[1]
                overrides[i] = f"{found[0]}=${{oc.env:{name}}}"
                secrets.append(found[1])
        for parent, key, where, value in list(_job_secrets(config)):
            os.environ[_env_name(where)] = value
            parent[key] = f"${{oc.env:{_env_name(where)}}}"
            secrets.append(value)
        if secrets:
            _mask_strings(config.hydra, secrets)


class RedactSecrets(Callback):
    """Hydra callback: no secret given in the config or on the command line reaches ``.hydra``."""

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        """Before Hydra saves anything: secrets into the environment, their mentions masked."""
        _redact(config)

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        """The same before ``multirun.yaml`` is saved; the jobs are composed from the rewritten overrides."""
        _redact(config)

    def on_job_start(self, config: DictConfig, **kwargs: Any) -> None:
        """A multirun job's files are saved before any hook can change its config: a secret its config
        files held literally is masked in them now, before the job runs (a run's never held one)."""
        secrets = [value for *_, value in _job_secrets(config)]
        if not secrets or not config.hydra.output_subdir:
            return
        saved = Path(config.hydra.runtime.output_dir) / str(config.hydra.output_subdir)
        for path in (saved / name for name in SAVED):
            if path.is_file():
                path.write_text(mask(path.read_text(encoding="utf-8"), secrets), encoding="utf-8")
