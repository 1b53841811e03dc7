"""The commands' bodies, where a config becomes a plan: ``config`` (the Hydra configs, composed and checked,
their mistakes one line), ``plans`` (a sweep's or a run's config read once into a ``Plan``),
``hydra_secrets`` (keys kept out of Hydra's own files), and the commands ``run``, ``sweep`` (with
``report``), ``compare``, ``tasks``, ``view`` (a package), ``play`` and ``rescore``. ``experiments.cli``
imports one only to run it."""
