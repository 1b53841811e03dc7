"""D8 Food & Dining: restaurants and table bookings, food delivery, recipes, groceries and meal plans.

A restaurant is a ``world_places`` row of category "restaurant" plus a booking and delivery profile. A
table booking takes seats from one of the restaurant's seatings (``world_table_slots``); restaurants
without online booking take reservations by phone only, through the voice agent. Delivery charges a
payment method (``common.charge``) and ships to one of the user's saved addresses in the restaurant's city.

Its modules register in this order: ``schema``, ``tools``, ``seed``."""

# isort: skip_file

from sandbox.domains.food import schema  # noqa: F401
from sandbox.domains.food import tools  # noqa: F401
from sandbox.domains.food import seed  # noqa: F401
