"""A worker's split loader: tasks parsed once per process, and kept out of the collector's walks."""

from __future__ import annotations

import gc

from experiments.units import split_tasks


def test_split_tasks_are_parsed_once_and_frozen_out_of_full_collections() -> None:
    split_tasks.cache_clear()
    gc.unfreeze()
    tasks = split_tasks("handwritten.jsonl", None, None)
    assert tasks and gc.get_freeze_count() > len(tasks)  # each task is several tracked objects
    assert split_tasks("handwritten.jsonl", None, None) is tasks
