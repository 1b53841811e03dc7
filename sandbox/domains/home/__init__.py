"""D10 Smart Home & Vehicle: lights and scenes, climate, locks and the alarm, cameras, appliances,
automations, and the connected car.

Every home device is one ``home_devices`` row whose ``state_json`` holds its type's state. Commands
follow the phone conventions of the sandbox: an offline device is ``ResourceUnavailable``, asking for
the state a device already has is ``StateConflict``, and opening the house or the car (unlocking,
guest codes, disarming, starting the engine, opening the trunk) needs ``confirm=true``.

Its modules register in this order: ``schema``, ``tools``, ``seed``, ``screens``."""

# isort: skip_file

from sandbox.domains.home import schema  # noqa: F401
from sandbox.domains.home import tools  # noqa: F401
from sandbox.domains.home import seed  # noqa: F401
from sandbox.domains.home import screens  # noqa: F401
