"""D6 Shopping & E-commerce: product search, the cart and checkout, orders, returns, coupons, wishlist and alerts.

One shop app sells the products of several stores. Prices live in ``world_products`` (scenario
events may change them); a cart line remembers the price it was added at, so a checkout after a
price change is a ``StaleReference`` until the line is refreshed with ``update_cart_item``.
Variant products keep per-variant stock in ``variants_json``; the product's ``stock`` is the
total, and a variant can never sell more than either.

Its modules register in this order: ``schema``, ``tools``, ``seed``, ``screens``."""

# isort: skip_file

from sandbox.domains.shopping import schema  # noqa: F401
from sandbox.domains.shopping import tools  # noqa: F401
from sandbox.domains.shopping import seed  # noqa: F401
from sandbox.domains.shopping import screens  # noqa: F401
