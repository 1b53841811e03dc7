"""D11 Device & System Settings: the switches the executor's gates read, Bluetooth pairing, focus modes.

Every setting lives in ``device_settings`` as a string ("1"/"0" for switches). Setting a value it
already has is a ``StateConflict`` (ToolSandbox convention), so a planner cannot mistake a no-op
for progress. Side effects follow catalog section 10: airplane mode drops the radios, low-power
mode drops location and caps brightness. (App permissions, 4.2, live with the other D4 app tools
in ``sandbox.domains.apps_security``.)

Its modules register in this order: ``schema``, ``tools``, ``seed``."""

# isort: skip_file

from sandbox.domains.settings import schema  # noqa: F401
from sandbox.domains.settings import tools  # noqa: F401
from sandbox.domains.settings import seed  # noqa: F401
