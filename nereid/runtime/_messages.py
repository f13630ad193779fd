"""Base classes for what actors exchange: requests, casts and change events.

Every message is a frozen, keyword-only msgspec Struct, so it can be shared
between tasks without copying and encoded for the trace log or the wire.
A request names its reply type (`Request[ReplyT]`) so `Address.call` is typed
end to end; a message that is only ever cast derives from `Message`.

Subclasses restate ``frozen=True``: msgspec inherits it anyway, but mypy's
dataclass-transform check refuses a non-frozen subclass of a frozen base.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import msgspec

__all__ = ["Event", "Message", "ReplyT", "Request"]

ReplyT = TypeVar("ReplyT", covariant=True)


class Message(msgspec.Struct, frozen=True, kw_only=True):
    """Base of every message sent to an actor (`cast` accepts any of these)."""


class Request(Message, Generic[ReplyT], frozen=True, kw_only=True):
    """A message answered with a `ReplyT`; `await address.call(req)` returns it.

    Subclass with the reply type filled in::

        class GetDigest(Request[DigestReply], frozen=True):
            diagram_id: str
    """


class Event(msgspec.Struct, frozen=True, kw_only=True):
    """Base of change events published on the `EventBus` (names are past tense)."""
