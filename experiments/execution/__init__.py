"""Running work: ``config`` (the Hydra configs, composed and checked), ``run`` (``mobilepa run``'s job),
``record_run`` (a run stored like a one-cell sweep), ``sweep`` (the grid on one Dask client) and
``units`` (the work a Dask worker runs)."""
