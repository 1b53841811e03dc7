"""The task-suite generator: families draft tasks on persona worlds, the build proves each gold runs."""

STRICT_ENV = "MOBILEPA_STRICT_GATES"  # 1: the build refuses the suite at its first gate violation
