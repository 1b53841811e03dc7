"""Running a checked plan: ``run`` (``mobilepa run``'s one cell, in this process), ``record_run`` (that run
stored like a one-cell sweep), ``sweep`` (``run_sweep``: the grid on one Dask client, the store filled,
the report and MLflow at the end) and ``units`` (the work a Dask worker runs). Nothing here reads a
Hydra config: it takes an ``experiments.plan.model.Plan``."""
