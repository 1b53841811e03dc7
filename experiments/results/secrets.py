"""Secrets (an API key under ``planner.api_key``) kept out of everything the toolkit writes down: which
keys hold one, and a value with every secret masked. The store masks what it records of a sweep, MLflow
what it logs; the planner masks the key's value in replies (``planners.openai_compat``); Hydra's own
files are kept clean by ``experiments.commands.hydra_secrets``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

SECRET_WORDS = ("api_key", "token", "secret", "password")
MASK = "***"


def is_secret(key: str) -> bool:
    """A key holding a secret itself (``api_key``), not naming where one is (``api_key_env``)."""
    key = key.lower()
    return any(w in key for w in SECRET_WORDS) and not key.endswith("_env")


def mask(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each secret's value replaced by ``MASK``."""
    for secret in secrets:
        text = text.replace(secret, MASK)
    return text


def redacted(value: Any) -> Any:
    """``value`` with every secret masked: keys naming a key, token, secret or password, and
    ``key=value`` override strings for such keys (a key given literally on the command line)."""
    if isinstance(value, dict):
        return {k: "***" if is_secret(str(k)) and v else redacted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redacted(v) for v in value]
    if isinstance(value, str) and "=" in value:
        key, _, rest = value.partition("=")
        if is_secret(key) and rest:
            return f"{key}=***"
    return value
