"""D12 Information & Utilities: weather, news, web search, translation and dictionary, calculator and
unit conversion, world time and public holidays.

Everything here reads small deterministic world tables (forecasts, articles, web pages, phrase
translations, dictionary entries, time zones, holidays); the calculator and the unit converter are
pure functions. Asking for the weather at ``"current"`` uses the user's position, so it needs the
location service and the weather app's LOCATION permission.

Its modules register in this order: ``schema``, ``tools``, ``seed``."""

# isort: skip_file

from sandbox.domains.information import schema  # noqa: F401
from sandbox.domains.information import tools  # noqa: F401
from sandbox.domains.information import seed  # noqa: F401
