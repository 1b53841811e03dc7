"""The disk cache of world images: same bytes as a fresh build, keyed by the code, never half-written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import world
from sandbox.world import CACHE_ENV, build_world, code_key, world_image


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    world_image.cache_clear()
    yield tmp_path
    world_image.cache_clear()


def test_a_cached_image_is_the_built_image(fresh: Path) -> None:
    image = world_image("yuki_sato")
    path = fresh / f"{code_key()}-yuki_sato.db"
    assert path.read_bytes() == image == build_world("yuki_sato")
    assert list(fresh.glob("*.tmp")) == []
    world_image.cache_clear()
    assert world_image("yuki_sato") == image  # read back, not rebuilt


def test_a_damaged_cache_file_is_rebuilt(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = fresh / f"{code_key()}-yuki_sato.db"
    path.write_bytes(b"garbage")
    assert world_image("yuki_sato") == build_world("yuki_sato") == path.read_bytes()


def test_off_builds_without_writing(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, "off")
    assert world.cache_dir() is None
    assert world_image("yuki_sato") == build_world("yuki_sato")
    assert list(fresh.iterdir()) == []


def test_the_key_follows_the_sandbox_sources() -> None:
    assert len(code_key()) == 20 and code_key() == code_key()
