"""Every tool and seeder, registered by importing its module (explicitly, in a fixed order)."""

# The order below is the registration order: isort must keep it.
# isort: skip_file

from sandbox import framework, memory, subagents  # noqa: F401
from sandbox.domains import common  # noqa: F401  (shared tables first: others import them)
from sandbox.domains import communication  # noqa: F401
from sandbox.domains import productivity  # noqa: F401
from sandbox.domains import work  # noqa: F401
from sandbox.domains import social  # noqa: F401
from sandbox.domains import settings  # noqa: F401
from sandbox.domains import entertainment  # noqa: F401
from sandbox.domains import travel  # noqa: F401
from sandbox.domains import shopping  # noqa: F401
from sandbox.domains import finance  # noqa: F401
from sandbox.domains import food  # noqa: F401
from sandbox.domains import health  # noqa: F401
from sandbox.domains import home  # noqa: F401
from sandbox.domains import information  # noqa: F401
from sandbox.domains import lifestyle  # noqa: F401
from sandbox.domains import apps_security

from sandbox.personas import SEEDERS  # after every domain registered its seeders

# The app store lists every app the phone knows, so its seeder runs after every seeder that adds apps
# (venue apps, …), whatever order cross-module imports registered the seeders in (a stable sort keeps
# the rest as they are).
SEEDERS.sort(key=lambda entry: entry[1] is apps_security.seed_apps_security)
