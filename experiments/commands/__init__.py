"""The bodies of the commands that are more than a call into one layer: ``sweep`` (``mobilepa sweep`` and
``report``), ``tasks``, ``view``, ``play`` and ``rescore``; ``experiments.cli`` imports one only to run it."""
