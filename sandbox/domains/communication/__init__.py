"""D3 Communication & Social: contacts, SMS and chat, phone and video calls, blocking, group chats.
Social networks (3.7, 3.8) live in ``sandbox.domains.social``.

Its modules register in this order: ``schema``, ``tools``, ``seed``."""

# isort: skip_file

from sandbox.domains.communication import schema  # noqa: F401
from sandbox.domains.communication import tools  # noqa: F401
from sandbox.domains.communication import seed  # noqa: F401
