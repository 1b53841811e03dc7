"""D3 Communication & Social, 3.7 and 3.8: posting to social networks, reading feeds, comments, likes, follows.

The user has one account on each of three platforms (``social``, ``microblog``, ``photoshare``);
every other account is part of the world catalogue. Posts by anyone sit in one table, the user's
own marked ``is_own``.

Its modules register in this order: ``schema``, ``tools``, ``seed``."""

# isort: skip_file

from sandbox.domains.social import schema  # noqa: F401
from sandbox.domains.social import tools  # noqa: F401
from sandbox.domains.social import seed  # noqa: F401
