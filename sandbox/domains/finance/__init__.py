"""D7 Finance & Payments: balances and transactions, transfers and requests, bills, budgets, cards, stocks, FX.

Money lives in one place. Every bank account is a row of the shared ``payment_methods`` table
(kind ``bank`` or ``wallet``) and ``bank_accounts`` adds what only the bank knows (account number,
type, transfer limits); so a shop's ``charge()`` to the wallet and a transfer out of it move the
same balance, and every movement is one row of the shared ``transactions`` table (negative = out).
Transfers and bill payments at or above the account's confirmation threshold, and every stock
order, need ``confirm=true``.

Its modules register in this order: ``schema``, ``tools``, ``seed``, ``screens``."""

# isort: skip_file

from sandbox.domains.finance import schema  # noqa: F401
from sandbox.domains.finance import tools  # noqa: F401
from sandbox.domains.finance import seed  # noqa: F401
from sandbox.domains.finance import screens  # noqa: F401
