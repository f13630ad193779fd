"""Answers for input lines the stdio transport could not read as a JSON-RPC message.

The SDK's stdio reader hands a line it cannot validate to the session as an exception,
which the session only logs: the client, whose request it was, waits forever. Here such a
line gets the JSON-RPC answer instead: -32700 "Parse error" for text that is not JSON
(including JSON holding a lone surrogate, which no UTF-8 text can carry) and -32600
"Invalid Request" for JSON that is not a JSON-RPC message. When the line still shows an
`id` (Python's own JSON reader accepts lone surrogates), the answer carries it, so the
client's pending call ends; otherwise the id is null, as JSON-RPC prescribes.
"""

from __future__ import annotations

import json
from types import TracebackType
from typing import Any, Final, Self, final

import anyio
import mcp_types as types
import pydantic
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage

__all__ = ["PARSE_ERROR", "INVALID_REQUEST", "AnsweringReader", "answer_for"]

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600


def _line_of(error: Exception) -> Any:
    """The input the validation error was about (the line, or the JSON value it held)."""
    if isinstance(error, pydantic.ValidationError):
        for detail in error.errors():
            if "input" in detail:
                return detail["input"]
    return None


def _id_of(value: Any) -> int | str | None:
    if isinstance(value, dict):
        found = value.get("id")
        if isinstance(found, str):
            try:
                found.encode("utf-8")
            except UnicodeEncodeError:
                return None  # an id with a lone surrogate cannot be sent back
            return found
        if isinstance(found, int) and not isinstance(found, bool):
            return found
    return None


def answer_for(error: Exception) -> types.JSONRPCError:
    """The JSON-RPC error answering a line that failed to validate with `error`."""
    given = _line_of(error)
    json_invalid = isinstance(error, pydantic.ValidationError) and any(
        detail["type"] == "json_invalid" for detail in error.errors()
    )
    if isinstance(given, str | bytes) or json_invalid:
        try:
            value = json.loads(given) if isinstance(given, str | bytes) else None
        except ValueError:
            value = None
        code = PARSE_ERROR
        message = "Parse error: the line is not JSON text (or holds a lone surrogate)"
    else:
        value = given
        code = INVALID_REQUEST
        message = "Invalid Request: the line is JSON but not a JSON-RPC 2.0 message"
    return types.JSONRPCError(
        jsonrpc="2.0", id=_id_of(value), error=types.ErrorData(code=code, message=message)
    )


@final
class AnsweringReader:
    """A read stream that answers unreadable lines itself and passes the rest on."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        replies: WriteStream[SessionMessage],
    ) -> None:
        self._inner = inner
        self._replies = replies

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            await self._replies.send(SessionMessage(answer_for(item)))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None
