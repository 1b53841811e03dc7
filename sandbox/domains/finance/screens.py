"""The bank app's screens without an API: the GUI agent re-categorises transactions (signing back in is every
signed-out app's flow, ``apps_security.screens``).

Kept apart from ``finance`` so that module's tool list stays the public D7 API; ``finance`` imports this
module at its end.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, select, update

from sandbox.domains.common import transactions
from sandbox.domains.finance.tools import BUDGET_CATEGORIES, CATEGORY_ALIASES, BudgetCategory, Id
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx
from sandbox.subagents import GuiFlow, gui_flow
from sandbox.tooling import INTERNAL, tool

# ---- Bank app screens (no API): the GUI agent re-categorises ----------------------------------

_TRANSACTION = select(transactions).where(transactions.c.txn_id == bindparam("txn_id"))
_SET_TRANSACTION = update(transactions).where(transactions.c.txn_id == bindparam("match_txn_id"))


@tool(domain=INTERNAL, app="bank", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND,))
def bank_recategorize_transaction(ctx: Ctx, txn_id: Id, category: BudgetCategory) -> dict[str, Any]:
    """Move a transaction to another spending category on the bank app's transaction screen (screen action).

    Args:
        txn_id: The transaction, e.g. txn_942.
        category: The budget category it belongs to.
    """
    row = ctx.conn.execute(_TRANSACTION, {"txn_id": txn_id}).first()
    if row is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no transaction {txn_id!r}", field="txn_id")
    ctx.conn.execute(_SET_TRANSACTION, {"match_txn_id": txn_id, "category": category, "updated_at": ctx.ts()})
    return {"txn_id": txn_id, "category": category, "previous": row.category}


def _recategorize(ctx: Ctx, app_id: str, inputs: dict[str, Any]) -> dict[str, Any]:
    category = str(inputs["category"]).strip().lower()
    category = category if category in BUDGET_CATEGORIES else CATEGORY_ALIASES.get(category, category)
    result = ctx.call("bank_recategorize_transaction", {"txn_id": str(inputs["txn_id"]), "category": category})
    if result["Status"] != "success":
        raise ToolError(
            ErrorType.SUB_AGENT_FAILED, f"the change failed: {result['Payload']['message']}", reason=result["ErrorType"]
        )
    return {"txn_id": result["Payload"]["txn_id"], "category": category, "previous": result["Payload"]["previous"]}


gui_flow(GuiFlow("bank", "recategorize_transaction", ("categor*",), ("txn_id", "category"), _recategorize))
