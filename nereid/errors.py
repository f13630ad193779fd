"""The one error tree of Nereid: every refusal, from the pure layers to the runtime.

The pure layers (`ops`, `query`, `mermaid`) raise these directly, with the data a client
needs (what, where, why) on the exception; an actor lets them through (the runtime sends
them back to the caller as typed errors and the actor keeps running); the MCP layer sends
`to_jsonrpc()`. Anything else raised by a handler is a bug: it crashes the actor and the
supervisor restarts it.

Hierarchy (category, then JSON-RPC code from `JSONRPC_CODES`, the one table)::

    NereidError                  internal_error   [-32603]
    ├── InvalidParams            invalid_params   [-32602]  malformed input
    │   └── (MermaidError)       nereid.mermaid: a text that does not parse (line, column)
    ├── InvalidRequest           invalid_request  [-32600]  well-formed but refused now
    │   └── Conflict             conflict         [-32600]  stale base_rev (current_rev, digest)
    ├── ResourceNotFound         not_found        [-32002]  unknown diagram/object
    ├── PersistFailed            internal_error   [-32603]  retryable: the change is not on
    │                                                       disk (disk full, read-only
    │                                                       folder, I/O error); with
    │                                                       --durable-writes not applied either
    ├── SessionUnavailable       internal_error   [-32603]  the session could not be opened (why)
    │   └── SessionLoading       internal_error   [-32603]  retryable: still loading (the call
    │                                                       waited its bound)
    └── ActorError               internal_error   [-32603]  the runtime could not deliver
        ├── ActorRestarted       retryable: the actor crashed while handling the call
        ├── ActorDown            the actor failed and will not come back
        ├── MailboxClosed        the actor was stopped on purpose (stop, shutdown)
        ├── CallTimeout          the call's deadline passed; outcome unknown
        └── ActorNotFound        not_found        [-32002] no actor under that name

`category` is the spec's error category (what the pure layers and their tests speak);
`code` is its JSON-RPC number. `retryable` says whether the same request may simply be
sent again. Runtime errors also say which actor (`actor`) and which request chain
(`correlation_id`) they belong to; the runtime fills these in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Final, Literal

__all__ = [
    "INTERNAL_ERROR",
    "JSONRPC_CODES",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "RESOURCE_NOT_FOUND",
    "ActorDown",
    "Category",
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
    "SessionLoading",
    "SessionUnavailable",
    "invalid_param",
]

INVALID_PARAMS = -32602
INVALID_REQUEST = -32600
RESOURCE_NOT_FOUND = -32002
INTERNAL_ERROR = -32603

Category = Literal["invalid_params", "invalid_request", "conflict", "not_found", "internal_error"]
"""The error categories of the spec (mcp-tools.md §2.4)."""

JSONRPC_CODES: Final[Mapping[Category, int]] = {
    "invalid_params": INVALID_PARAMS,
    "invalid_request": INVALID_REQUEST,
    "conflict": INVALID_REQUEST,
    "not_found": RESOURCE_NOT_FOUND,
    "internal_error": INTERNAL_ERROR,
}
"""The one table from error category to JSON-RPC error code."""


class NereidError(Exception):
    """Base of every expected error; `code` is its JSON-RPC error code (from `category`).

    `message` is the short interface string clients match on (the spec gives
    them verbatim); `data` is the optional JSON object sent alongside.
    """

    category: ClassVar[Category] = "internal_error"
    code: ClassVar[int] = INTERNAL_ERROR
    retryable: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.code = JSONRPC_CODES[cls.category]

    def __init__(self, message: str, data: Mapping[str, Any] | None = None) -> None:
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

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, data={self.data!r})"


class InvalidParams(NereidError):
    """The request is malformed: bad id, bad op, wrong type (-32602)."""

    category = "invalid_params"


def invalid_param(name: str, reason: str, value: object) -> InvalidParams:
    """The refusal of parameter `name`, whose `value` breaks a rule (mcp-tools.md §3.6):
    `invalid <name>: <reason>`, data `{name: value}`."""
    return InvalidParams(f"invalid {name}: {reason}", {name: value})


class InvalidRequest(NereidError):
    """The request is well-formed but cannot be carried out now (-32600)."""

    category: ClassVar[Category] = "invalid_request"


class Conflict(InvalidRequest):
    """`base_rev` is stale: the client must rebase onto `current_rev` and retry.

    Data: `{base_rev, current_rev, snapshot_tool, digest, ast_digest}` as the ops layer
    writes it (`nereid.ops.state.conflict`); `snapshot_tool` and `digest` are the rebase
    hints (what `*.stat` returns now).
    """

    category = "conflict"

    @property
    def base_rev(self) -> int:
        return int((self.data or {}).get("base_rev", -1))

    @property
    def current_rev(self) -> int:
        return int((self.data or {}).get("current_rev", -1))


class ResourceNotFound(NereidError):
    """An unknown diagram, walkthrough or object was named (-32002)."""

    category = "not_found"


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


class SessionUnavailable(NereidError):
    """A call that needs the session, which could not be opened (the message says why)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, data={"retryable": self.retryable})


class SessionLoading(SessionUnavailable):
    """A call that needs the session came before it loaded and waited its bound."""

    retryable = True


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

    category = "not_found"
