"""What a sweep runs, typed and frozen: ``model.Plan`` (its ``Grid``, its ``Cell``s with their episode keys,
the datasets, ``Work``, ``Tracking``, the store and report folder, the cluster section, the record kept
with the sweep), each cell's settings and the sweep's identity; ``selection`` (``limit=``, ``task_ids=``)."""
