"""D5 Travel & Transportation: maps and navigation, ride hailing, flights, hotels, trains, trips, parking.

A location argument (``loc``) is a place id, a saved label ("Home", "Work", a favourite), a city, a
place's name or address (optionally followed by ", City"), or "current" where the tool's app may read
the device location. Searches for flights, hotels and trains return offers that the booking tools
consume; an offer that expired or whose price changed since the search is a StaleReference.
Offers and ride quotes are a search cache (system tables): searching changes nothing the user owns.

Its modules register in this order: ``schema``, ``tools``, ``seed``, ``screens``."""

# isort: skip_file

from sandbox.domains.travel import schema  # noqa: F401
from sandbox.domains.travel import tools  # noqa: F401
from sandbox.domains.travel import seed  # noqa: F401
from sandbox.domains.travel import screens  # noqa: F401
