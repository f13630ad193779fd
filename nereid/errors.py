"""Errors a caller can expect, each mapped to one JSON-RPC error code.

An actor raises one of these from a handler to refuse a request; the runtime
sends it back to the caller as a typed error and the actor keeps running.
Anything else raised by a handler is a bug: it crashes the actor and the
supervisor restarts it. The MCP layer turns any of these into a JSON-RPC
error with `to_jsonrpc()`.

Hierarchy (JSON-RPC code in brackets)::

    NereidError                  [-32603 internal_error]
    ├── InvalidParams            [-32602 invalid_params]   malformed input
    ├── InvalidRequest           [-32600 invalid_request]  well-formed but refused
    │   └── Conflict             [-32600]  stale base_rev; carries current_rev, digest
    ├── ResourceNotFound         [-32002 resource_not_found] unknown diagram/object
    ├── PersistFailed            [-32603]  retryable: the change is not on disk (disk full,
    │                                      read-only folder, I/O error); with
    │                                      --durable-writes it was not applied either
    └── ActorError               [-32603]  the actor runtime could not deliver
        ├── ActorRestarted       retryable: the actor crashed while handling the call
        ├── ActorDown            the actor failed and will not come back
        ├── MailboxClosed        the actor was stopped on purpose (stop, shutdown)
        ├── CallTimeout          the call's deadline passed; outcome unknown
        └── ActorNotFound        [-32002] no actor registered under that name

`retryable` says whether the same request may simply be sent again. Runtime
errors also say which actor (`actor`) and which request chain
(`correlation_id`) they belong to; the runtime fills these in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "RESOURCE_NOT_FOUND",
    "ActorDown",
    "ActorError",
    "ActorNotFound",
    "ActorRestarted",
    "CallTimeout",
    "Conflict",
    "InvalidParams",
    "InvalidRequest",
    "MailboxClosed",
    "NereidError",
    "PersistFailed",
    "ResourceNotFound",
]

INVALID_PARAMS = -32602
INVALID_REQUEST = -32600
RESOURCE_NOT_FOUND = -32002
INTERNAL_ERROR = -32603


class NereidError(Exception):
    """Base of every expected error; `code` is its JSON-RPC error code.

    `message` is the short interface string clients match on (the spec gives
    them verbatim); `data` is the optional JSON object sent alongside.
    """

    code: ClassVar[int] = INTERNAL_ERROR
    retryable: ClassVar[bool] = False

    def __init__(self, message: str, *, data: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.data: dict[str, Any] | None = dict(data) if data is not None else None
        self.actor: str | None = None
        self.correlation_id: str | None = None

    def to_jsonrpc(self) -> dict[str, Any]:
        """The JSON-RPC `error` object: `{"code", "message"}` plus `data` when present."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    def __str__(self) -> str:
        origin = f" [actor {self.actor}]" if self.actor is not None else ""
        return f"{self.message}{origin}"


class InvalidParams(NereidError):
    """The request is malformed: bad id, bad op, wrong type (-32602)."""

    code = INVALID_PARAMS


class InvalidRequest(NereidError):
    """The request is well-formed but cannot be carried out now (-32600)."""

    code = INVALID_REQUEST


class Conflict(InvalidRequest):
    """`base_rev` is stale: the client must rebase onto `current_rev` and retry.

    `digest` (what `*.stat` returns now) and `snapshot_tool` are the hints
    `apply_ops` adds; `propose_ops` sends only the two revisions.
    """

    def __init__(
        self,
        *,
        base_rev: int,
        current_rev: int,
        digest: Mapping[str, Any] | None = None,
        snapshot_tool: str | None = None,
    ) -> None:
        data: dict[str, Any] = {"base_rev": base_rev, "current_rev": current_rev}
        if snapshot_tool is not None:
            data["snapshot_tool"] = snapshot_tool
        if digest is not None:
            data["digest"] = dict(digest)
        super().__init__("conflict: stale base_rev", data=data)
        self.base_rev = base_rev
        self.current_rev = current_rev
        self.digest = digest


class ResourceNotFound(NereidError):
    """An unknown diagram, walkthrough or object was named (-32002)."""

    code = RESOURCE_NOT_FOUND


class PersistFailed(NereidError):
    """The session folder could not be written (data: `save_error`, `retryable`).

    From a write tool with `--durable-writes`: the change was not applied (memory is back
    at what is on disk) and the same request may be sent again once the folder is
    writable. The persister keeps retrying what is pending on its own.
    """

    retryable = True

    def __init__(self, message: str, *, data: Mapping[str, Any] | None = None) -> None:
        merged: dict[str, Any] = {"retryable": True}
        if data is not None:
            merged.update(data)
        super().__init__(message, data=merged)


class ActorError(NereidError):
    """The runtime could not get a reply from the actor (-32603)."""

    def __init__(self, message: str, *, actor: str, data: Mapping[str, Any] | None = None) -> None:
        merged: dict[str, Any] = {"actor": actor, "retryable": self.retryable}
        if data is not None:
            merged.update(data)
        super().__init__(message, data=merged)
        self.actor = actor


class ActorRestarted(ActorError):
    """The actor crashed while this request was in flight and has been restarted.

    Its state is back at its last committed snapshot: whatever it replied to
    before still holds, this request may or may not have been committed.
    Sending it again is safe for reads and for writes guarded by `base_rev`.
    """

    retryable = True


class ActorDown(ActorError):
    """The actor failed and will not be restarted (its supervisor gave up)."""


class MailboxClosed(ActorError):
    """The actor was stopped on purpose (stopped at runtime or shut down)."""


class CallTimeout(ActorError):
    """No reply before the call's deadline; the request may or may not have run."""


class ActorNotFound(ActorError):
    """No actor is registered under this name (-32002)."""

    code = RESOURCE_NOT_FOUND
