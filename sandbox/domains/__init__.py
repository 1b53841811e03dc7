"""Every tool and seeder, registered by importing its module (explicitly, in a fixed order)."""

from sandbox import framework, memory, subagents  # noqa: F401
from sandbox.domains import common  # noqa: F401  (shared tables first: others import them)
from sandbox.domains import communication  # noqa: F401
from sandbox.domains import productivity  # noqa: F401
from sandbox.domains import settings  # noqa: F401
