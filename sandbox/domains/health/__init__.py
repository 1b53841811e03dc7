"""D9 Health & Fitness: workouts, daily activity and sleep, food and water, medications, doctors, body metrics.

Everything lives in the "health" app. Sensor data (steps, sleep) is seeded and only read; workouts,
food, water, doses and body metrics are logged by tools. Medications create reminder tasks in the
task app's "Medications" list; doctor appointments take a slot of the doctor's calendar
(``world_doctor_slots``) and must not clash with the user's own calendar.

Its modules register in this order: ``schema``, ``tools``, ``seed``."""

# isort: skip_file

from sandbox.domains.health import schema  # noqa: F401
from sandbox.domains.health import tools  # noqa: F401
from sandbox.domains.health import seed  # noqa: F401
