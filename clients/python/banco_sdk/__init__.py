"""Banco's Python client: `Banco` (sync) and `AsyncBanco` (asyncio), the API's models generated
from openapi.yaml (`banco_sdk.models`), typed errors (`banco_sdk.errors`) and reference
bots (`python -m banco_sdk.bot`)."""

from banco_sdk import models
from banco_sdk._core import (
    Call,
    FeedEvent,
    GameTable,
    Retries,
    StreamEvent,
    TableEvent,
    as_action,
)
from banco_sdk.aio import AsyncBanco
from banco_sdk.client import Banco
from banco_sdk.errors import (
    BadRequest,
    BancoError,
    Conflict,
    ConnectionFailed,
    Forbidden,
    NotFound,
    PreconditionFailed,
    PreconditionRequired,
    ServiceUnavailable,
    TooManyRequests,
    Unauthorized,
    UnprocessableContent,
)

__version__ = "1.0.0"  # the API's (`info.version` of openapi.yaml), as pyproject.toml's

__all__ = [
    "AsyncBanco", "BadRequest", "Banco", "BancoError", "Call", "Conflict", "ConnectionFailed",
    "FeedEvent", "Forbidden", "GameTable", "NotFound", "PreconditionFailed",
    "PreconditionRequired", "Retries", "ServiceUnavailable", "StreamEvent", "TableEvent",
    "TooManyRequests", "Unauthorized", "UnprocessableContent", "__version__", "as_action", "models",
]
