"""What a sweep runs: ``model.Plan`` (its ``Cell``s, each cell's task ids and settings, the datasets, the
sweep's identity), the grid's action-space variants, and ``selection`` (``limit=``, ``task_ids=``)."""
