"""The ``mobilepa`` toolkit's top floor, in layers; each imports only the layers below it (a test keeps
it so, ``tests/test_imports.py``; the picture is in ``docs/architecture.md`` §8):

- ``episodes``  one task, one planner: the episode loop and the gym-shaped environment
- ``plan``      what a sweep runs, typed: grid, cells, work, tracking, store, report; quick runs
- ``results``   the results store, provenance, secrets kept out of records, results.json
- ``analysis``  statistics over stored episodes: intervals, pairs, stability, studies, cost
- ``reporting`` the leaderboard, plots, MLflow, progress and what reaches the console
- ``execution`` a plan run: the run job, the sweep's units on Dask, the store filled
- ``commands``  Hydra configs read once into plans, and the bodies of ``run``/``sweep``/``report``/
                ``tasks``/``view``/``play``/``rescore``
- ``bench``     the benchmark command and its scripted server, apart from the rest
- ``cli``       ``mobilepa`` itself: argument parsing and dispatch, importing a command only to run it
"""
