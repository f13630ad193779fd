"""Nereid's generic actor runtime on Trio: the only import point for actors and their clients.

- `open_runtime()` runs the tree; `Runtime.root` is the root `Supervisor`.
- `Supervisor.spawn(name, factory, initial=...)` starts an `Actor` and
  returns its `Address`; `stop(name)` retires it; `kill(name)` crashes it
  (fault injection). Children restart one-for-one from their last
  `commit`, within a `RestartIntensity`, else `RestartIntensityExceeded`.
- `Address.call(request, timeout=...)` / `Address.cast(message)`;
  `Address.send_request(request)` sends now and `await pending.reply()` answers later,
  so several actors work at once (Erlang's ``send_request``); messages
  are frozen msgspec Structs deriving from `Request[ReplyT]` / `Message`. An actor
  declares one handler per message with ``@on(Request)`` / ``@on_cast(Message)``; mypy
  checks each returns its request's `ReplyT`. `Actor.state` is the committed snapshot.
  A sync ``@on_read(Request)`` only reads the state: while the actor idles, callers get
  it answered at once in their own task (no pass of the scheduler); a sync
  ``@on_note(Message)`` cast handler is likewise run by the sender's `cast`, and a request
  handler declared ``@on(Request, inline=True)`` by the caller's `call`, the actor held
  meanwhile (no mailbox round trip).
- `Registry` finds addresses by name; `EventBus` fans out `Event`s, with
  `ResyncNeeded` for slow subscribers.
- `Runtime.send_after(delay, dest, message)` / `Actor.send_after(delay, message)`:
  runtime-owned timers (Erlang's ``send_after``); the returned `Timer` can be cancelled.
- `Tracer` writes `TraceRecord` JSON lines to a `RingSink` or `FileSink`;
  `correlation_scope()` starts a request chain.

Errors are in `nereid.errors`.
"""

from ._actor import Actor as Actor
from ._actor import InjectedCrash as InjectedCrash
from ._bus import DEFAULT_SUBSCRIBER_BUFFER as DEFAULT_SUBSCRIBER_BUFFER
from ._bus import EventBus as EventBus
from ._bus import ResyncNeeded as ResyncNeeded
from ._bus import Subscription as Subscription
from ._cell import DEFAULT_CALL_TIMEOUT as DEFAULT_CALL_TIMEOUT
from ._cell import ActorStatus as ActorStatus
from ._cell import Address as Address
from ._correlation import correlation_scope as correlation_scope
from ._correlation import current_correlation_id as current_correlation_id
from ._correlation import new_correlation_id as new_correlation_id
from ._handlers import on as on
from ._handlers import on_cast as on_cast
from ._handlers import on_note as on_note
from ._handlers import on_read as on_read
from ._messages import Event as Event
from ._messages import Message as Message
from ._messages import Request as Request
from ._registry import Registry as Registry
from ._reply import PendingReply as PendingReply
from ._runtime import Runtime as Runtime
from ._runtime import open_runtime as open_runtime
from ._supervisor import DEFAULT_MAILBOX_SIZE as DEFAULT_MAILBOX_SIZE
from ._supervisor import RestartIntensity as RestartIntensity
from ._supervisor import RestartIntensityExceeded as RestartIntensityExceeded
from ._supervisor import Supervisor as Supervisor
from ._timers import Timer as Timer
from ._trace import TRACE_EVENTS as TRACE_EVENTS
from ._trace import FileSink as FileSink
from ._trace import RingSink as RingSink
from ._trace import Tracer as Tracer
from ._trace import TraceRecord as TraceRecord
from ._trace import TraceSink as TraceSink
from ._trace import decode_trace_line as decode_trace_line

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "DEFAULT_MAILBOX_SIZE",
    "DEFAULT_SUBSCRIBER_BUFFER",
    "TRACE_EVENTS",
    "Actor",
    "ActorStatus",
    "Address",
    "Event",
    "EventBus",
    "FileSink",
    "InjectedCrash",
    "Message",
    "PendingReply",
    "Registry",
    "Request",
    "RestartIntensity",
    "RestartIntensityExceeded",
    "ResyncNeeded",
    "RingSink",
    "Runtime",
    "Subscription",
    "Supervisor",
    "Timer",
    "TraceRecord",
    "TraceSink",
    "Tracer",
    "correlation_scope",
    "current_correlation_id",
    "decode_trace_line",
    "new_correlation_id",
    "on",
    "on_cast",
    "on_note",
    "on_read",
    "open_runtime",
]
