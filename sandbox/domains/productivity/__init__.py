"""D1 Work, Study & Productivity: calendar and meetings, tasks and reminders, alarms, notes, the daily agenda.

Its modules register in this order: ``schema``, ``tools``, ``seed``."""

# isort: skip_file

from sandbox.domains.productivity import schema  # noqa: F401
from sandbox.domains.productivity import tools  # noqa: F401
from sandbox.domains.productivity import seed  # noqa: F401
