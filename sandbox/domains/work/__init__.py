"""D1 Work, Study & Productivity, 1.5-1.8: email, documents and sharing, courses, focus sessions.

Documents are stored in ``documents`` (ids ``document_NNN``) with their grants in ``file_shares``;
the Files app's own ``files`` table is a separate catalogue.

Its modules register in this order: ``schema``, ``tools``, ``seed``."""

# isort: skip_file

from sandbox.domains.work import schema  # noqa: F401
from sandbox.domains.work import tools  # noqa: F401
from sandbox.domains.work import seed  # noqa: F401
