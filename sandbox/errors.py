"""The structured error taxonomy every tool call reports through its envelope."""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorType(StrEnum):
    """Why a call failed; the planner reads this to re-plan (the 21 ErrorTypes, docs/architecture.md §3)."""

    TOOL_NOT_AVAILABLE = "ToolNotAvailable"
    MISSING_REQUIRED_ARGUMENT = "MissingRequiredArgument"
    UNKNOWN_ARGUMENT = "UnknownArgument"
    INVALID_ARGUMENT_TYPE = "InvalidArgumentType"
    INVALID_ARGUMENT_VALUE = "InvalidArgumentValue"
    NETWORK_UNAVAILABLE = "NetworkUnavailable"
    SERVICE_DISABLED = "ServiceDisabled"
    PERMISSION_DENIED = "PermissionDenied"
    AUTHENTICATION_REQUIRED = "AuthenticationRequired"
    ENTITY_NOT_FOUND = "EntityNotFound"
    AMBIGUOUS_ENTITY = "AmbiguousEntity"
    STATE_CONFLICT = "StateConflict"
    STALE_REFERENCE = "StaleReference"
    TIME_CONFLICT = "TimeConflict"
    RESOURCE_UNAVAILABLE = "ResourceUnavailable"
    UNSUPPORTED_OPERATION = "UnsupportedOperation"
    DUPLICATE_ENTITY = "DuplicateEntity"
    LIMIT_EXCEEDED = "LimitExceeded"
    CONFIRMATION_REQUIRED = "ConfirmationRequired"
    SUB_AGENT_FAILED = "SubAgentFailed"
    INTERNAL_ERROR = "InternalError"


def gui_agent_hint(app_id: str) -> str:
    """The hint of an error only the app's GUI can get past: it names the app the GUI agent opens."""
    return f"call_gui_agent(app_id={app_id!r})"


def sign_in_hint(app_id: str) -> str:
    """How a planner recovers from a signed-out app: the app tools cannot sign in, its GUI can."""
    return (
        f"sign in through {gui_agent_hint(app_id)}; the app may send a verification code,"
        " ask the user for it (ask_user) and pass it in inputs"
    )


class ToolError(Exception):
    """Raised inside a tool to fail the call in-band: rolled back, logged, returned as an envelope.

    An AuthenticationRequired error naming its ``app_id`` carries the sign-in hint unless the raiser
    gives its own, so every signed-out envelope says how to recover."""

    def __init__(self, error_type: ErrorType, message: str, **details: Any) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        if error_type is ErrorType.AUTHENTICATION_REQUIRED and "app_id" in details:
            details.setdefault("hint", sign_in_hint(details["app_id"]))
        self.details = details

    def payload(self) -> dict[str, Any]:
        return {"message": self.message, **self.details}
