"""Every tool, table and seeder, registered by importing its module, in this one fixed order.

A domain's module comes after every module it imports (it reads their tables) and before the modules of
its app screens (they read its own): this list is the order tools, tables and seeders register in, which
fixes the tool reference, the schema's layout and every world's bytes."""

# The order below is the registration order: isort must keep it.
# isort: skip_file

from sandbox import framework, memory, subagents  # noqa: F401
from sandbox.domains import common  # noqa: F401
from sandbox.domains import communication  # noqa: F401
from sandbox.domains import productivity  # noqa: F401
from sandbox.domains import entertainment  # noqa: F401
from sandbox.domains import media_screens  # noqa: F401
from sandbox.domains import settings  # noqa: F401
from sandbox.domains import apps_security  # noqa: F401
from sandbox.domains import work  # noqa: F401
from sandbox.domains import social  # noqa: F401
from sandbox.domains import information  # noqa: F401
from sandbox.domains import travel  # noqa: F401
from sandbox.domains import shopping  # noqa: F401
from sandbox.domains import finance  # noqa: F401
from sandbox.domains import food  # noqa: F401
from sandbox.domains import health  # noqa: F401
from sandbox.domains import gui_food_health  # noqa: F401
from sandbox.domains import home  # noqa: F401
from sandbox.domains import lifestyle  # noqa: F401

from sandbox.domains.apps_security.seed import seed_apps_security
from sandbox.personas import SEEDERS  # after every domain registered its seeders

# The app store lists every app the phone knows, so its seeder runs after every seeder that adds apps
# (venue apps, …), whatever order the imports above registered the seeders in (a stable sort keeps
# the rest as they are).
SEEDERS.sort(key=lambda entry: entry[1] is seed_apps_security)
