"""Basic Tool Use families for Travel & Transportation (D5).

No tool lists the user's bookings, trips or rides, so families that act on one hand its id over in an
earlier turn (``history``), as a travel app's summary would.

The families are split by what the user is doing: ``routes`` (getting around), ``flights`` and ``trips``
(hotels, trains, itineraries), on what they share in ``helpers``; every one is named
``basic_travel.<function>`` (``core.family_group``)."""

# importing the modules registers their families
from sandbox.generator.families.basic_travel import flights, routes, trips  # noqa: F401
