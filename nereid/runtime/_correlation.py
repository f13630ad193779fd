"""Correlation ids: one id follows a request through every message it causes.

The runtime keeps the current id in a context variable. It sets it around
each message an actor handles (to the id the message carried), and `call` /
`cast` stamp outgoing messages with it, so actor-to-actor calls inherit the
id of the request being handled. Entry points (an MCP request, a TUI key)
start a fresh chain with `correlation_scope()`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from random import getrandbits

__all__ = ["correlation_scope", "current_correlation_id", "new_correlation_id"]


class _Origin:
    """Who is sending from the current task: the request chain and the actor, if any."""

    __slots__ = ("actor", "correlation_id")

    def __init__(self, correlation_id: str | None, actor: str | None) -> None:
        self.correlation_id = correlation_id
        self.actor = actor


_NO_ORIGIN = _Origin(None, None)
_origin: ContextVar[_Origin] = ContextVar("nereid_actor_origin", default=_NO_ORIGIN)


def new_correlation_id() -> str:
    """A fresh random id (16 hex digits); unique enough for one process's logs.

    Not cryptographic: it only names a request chain in the trace log.
    """
    return f"{getrandbits(64):016x}"


def current_correlation_id() -> str | None:
    """The id of the request chain the current task is working for, if any."""
    return _origin.get().correlation_id


@contextmanager
def correlation_scope(
    correlation_id: str | None = None, *, origin: str | None = None
) -> Iterator[str]:
    """Run the block as part of the request chain `correlation_id` (new if None).

    Yields the id in force, e.g. to return it to the client. Nestable; the
    previous id is restored on exit. Messages sent inside carry the id, and
    name `origin` (e.g. ``mcp``) as their sender in the trace when given.
    """
    chosen = correlation_id if correlation_id is not None else new_correlation_id()
    sender = origin if origin is not None else _origin.get().actor
    token = _origin.set(_Origin(chosen, sender))
    try:
        yield chosen
    finally:
        _origin.reset(token)
