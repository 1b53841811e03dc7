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


class ToolError(Exception):
    """Raised inside a tool to fail the call in-band: rolled back, logged, returned as an envelope."""

    def __init__(self, error_type: ErrorType, message: str, **details: Any) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.details = details

    def payload(self) -> dict[str, Any]:
        return {"message": self.message, **self.details}
