"""The task-suite generator: families draft tasks on persona worlds, the build proves each gold runs."""
