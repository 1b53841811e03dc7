"""What people see: ``leaderboard`` (``mobilepa report``'s tables, markdown and HTML), ``plots``,
``tracking`` (MLflow, driver only), ``progress`` (bars and plain lines) and ``console`` (library logs
to the log file, not the terminal)."""
