"""D13 Lifestyle & Local Services: event tickets, parcels and courier pickups, local services, membership cards.

Some venues sell tickets only in their own app (``api_bookable=0`` with a ``booking_app_id``) and
some providers take bookings only by phone: those calls fail with ``UnsupportedOperation`` whose
hint names the sub-agent that can do it (the paper's museum-ticket example).

Its modules register in this order: ``schema``, ``tools``, ``seed``, ``screens``."""

# isort: skip_file

from sandbox.domains.lifestyle import schema  # noqa: F401
from sandbox.domains.lifestyle import tools  # noqa: F401
from sandbox.domains.lifestyle import seed  # noqa: F401
from sandbox.domains.lifestyle import screens  # noqa: F401
