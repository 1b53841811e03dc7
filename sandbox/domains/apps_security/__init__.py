"""D4 Apps, Data & Security: the app store, app permissions and notifications, files and folders,
cloud backup, passwords and accounts, Find My Device, storage and cleanup.

Apps live in the core ``apps`` / ``app_permissions`` tables (one row per app a tool declares, plus
the store apps the user installed); this module adds what the store sells (``world_store_apps``) and
what each app occupies on the phone (``app_installs``). File paths are virtual: they only ever name
rows of ``folders`` and ``files``. Every path argument is normalised with ``posixpath`` before a tool
runs, and a path that climbs above the storage root or names a system directory is refused with
InvalidArgumentValue, so hostile input such as ``../../etc/passwd`` never reaches a tool body.

Its modules register in this order: ``schema``, ``tools``, ``seed``, ``screens``."""

# isort: skip_file

from sandbox.domains.apps_security import schema  # noqa: F401
from sandbox.domains.apps_security import tools  # noqa: F401
from sandbox.domains.apps_security import seed  # noqa: F401
from sandbox.domains.apps_security import screens  # noqa: F401
