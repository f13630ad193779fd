"""The tracer: one JSON line per runtime event, to a bounded sink.

Off by default (the runtime holds `None` and skips one `is None` test per
event). When on, every send, receive, reply, error, crash and restart is
written as one msgspec-encoded JSON object per line.

JSON-lines schema (one `TraceRecord` per line; absent keys mean null):

=================  =======  ====================================================
key                type     meaning
=================  =======  ====================================================
``mono``           float    `time.monotonic()` seconds (orders and times events)
``wall``           float    `time.time()` seconds since the epoch
``event``          string   one of `TRACE_EVENTS` (below)
``actor``          string   the actor the event happened at (the receiver of a
                            send, the crashed actor, the supervisor that
                            escalated)
``sender``         string   send/timeout: the actor sending (null from outside
                            the actors); crash/restart/spawn/stop: the
                            supervisor
``kind``           string   "call" or "cast" (send, receive, reply, error,
                            expired, timeout)
``msg_type``       string   the message's class name
``correlation_id`` string   the request chain this event belongs to
``duration_ms``    float    receive: time queued; reply/error: time handling;
                            timeout: time waited; restart: downtime
``outcome``        string   reply: "ok"; error/crash: the exception class name
``detail``         string   error/crash/escalate: the exception text
=================  =======  ====================================================

Events: ``send`` (a caller queued a message), ``receive`` (the actor took it),
``reply`` (handled, reply sent), ``error`` (handler raised an expected
`NereidError`, sent back), ``crash`` (unexpected exception or injected
fault), ``restart`` (the actor is running again), ``escalate`` (restart
intensity exceeded), ``expired`` (the caller gave up before the actor took
the message, so it was skipped), ``timeout`` (a caller's deadline passed),
``spawn`` and ``stop``.
"""

from __future__ import annotations

import os
import time
from collections import deque
from pathlib import Path
from typing import Literal, Protocol

import msgspec

__all__ = [
    "TRACE_EVENTS",
    "FileSink",
    "RingSink",
    "TraceEventName",
    "TraceRecord",
    "TraceSink",
    "Tracer",
    "decode_trace_line",
]

TraceEventName = Literal[
    "send",
    "receive",
    "reply",
    "error",
    "crash",
    "restart",
    "escalate",
    "expired",
    "timeout",
    "spawn",
    "stop",
]
TRACE_EVENTS: tuple[str, ...] = TraceEventName.__args__  # type: ignore[attr-defined]


class TraceRecord(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One line of the trace log (schema in the module docstring)."""

    mono: float
    wall: float
    event: TraceEventName
    actor: str
    sender: str | None = None
    kind: Literal["call", "cast"] | None = None
    msg_type: str | None = None
    correlation_id: str | None = None
    duration_ms: float | None = None
    outcome: str | None = None
    detail: str | None = None


_decoder = msgspec.json.Decoder(TraceRecord)


def decode_trace_line(line: bytes | str) -> TraceRecord:
    """Parse one trace line; raises `msgspec.ValidationError`/`DecodeError` if malformed."""
    return _decoder.decode(line)


class TraceSink(Protocol):
    """Where encoded lines go. `write` must not block the event loop for long."""

    def write(self, line: bytes) -> None: ...

    def close(self) -> None: ...


class RingSink:
    """Keeps the last `capacity` lines in memory (tests, `nereid trace` of a live run)."""

    def __init__(self, capacity: int = 10_000) -> None:
        if capacity < 1:
            raise ValueError(f"RingSink capacity must be >= 1, got {capacity}")
        self._lines: deque[bytes] = deque(maxlen=capacity)

    def write(self, line: bytes) -> None:
        self._lines.append(line)

    def close(self) -> None:
        """Nothing to release; the lines stay readable."""

    def lines(self) -> list[bytes]:
        """The kept lines, oldest first, each ending in a newline."""
        return list(self._lines)

    def records(self) -> list[TraceRecord]:
        """The kept lines, decoded."""
        return [_decoder.decode(line) for line in self._lines]


class FileSink:
    """Appends lines to `path`; rotates to `path.1` ... `path.<backups>` past `max_bytes`.

    Writes are buffered and flushed at most every `flush_interval` seconds
    (and on close), so tracing costs no system call per event; a reader
    following the file sees lines with at most that delay. Total disk use is
    bounded by about `max_bytes * (backups + 1)`.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_bytes: int = 10_000_000,
        backups: int = 3,
        flush_interval: float = 0.2,
    ) -> None:
        if max_bytes < 1 or backups < 0:
            raise ValueError(
                f"FileSink needs max_bytes >= 1 and backups >= 0, got {max_bytes}, {backups}"
            )
        self._path = Path(path)
        self._max_bytes = max_bytes
        self._backups = backups
        self._flush_interval = flush_interval
        self._rotates = self._path.is_file() or not self._path.exists()
        self._file = open(self._path, "ab")  # noqa: SIM115 - owned until close()
        self._size = self._file.tell() if self._rotates else 0
        self._last_flush = time.monotonic()

    def write(self, line: bytes) -> None:
        if self._rotates and self._size + len(line) > self._max_bytes and self._size > 0:
            self._rotate()
        self._file.write(line)
        self._size += len(line)
        now = time.monotonic()
        if now - self._last_flush >= self._flush_interval:
            self._file.flush()
            self._last_flush = now

    def _rotate(self) -> None:
        self._file.close()
        if self._backups == 0:
            self._path.unlink(missing_ok=True)
        else:
            for index in range(self._backups - 1, 0, -1):
                older = self._path.with_name(f"{self._path.name}.{index}")
                if older.exists():
                    older.replace(self._path.with_name(f"{self._path.name}.{index + 1}"))
            self._path.replace(self._path.with_name(f"{self._path.name}.1"))
        self._file = open(self._path, "ab")  # noqa: SIM115 - owned until close()
        self._size = 0

    def close(self) -> None:
        self._file.close()


class Tracer:
    """Encodes `TraceRecord`s and hands them to a sink. Cheap: no I/O of its own."""

    __slots__ = ("_encoder", "messages", "sink")

    def __init__(self, sink: TraceSink, *, messages: bool = True) -> None:
        self.sink = sink
        #: Whether messages' events (send ... timeout) are traced; False: only the actors'
        #: lives (spawn, crash, restart, escalate, stop), and the runtime's paths that
        #: skip the mailbox (reads, notes, inline requests) stay on, as with no tracer.
        self.messages = messages
        self._encoder = msgspec.json.Encoder()

    def record(
        self,
        event: TraceEventName,
        actor: str,
        *,
        sender: str | None = None,
        kind: Literal["call", "cast"] | None = None,
        msg_type: str | None = None,
        correlation_id: str | None = None,
        duration_ms: float | None = None,
        outcome: str | None = None,
        detail: str | None = None,
    ) -> None:
        """Write one record stamped with the current monotonic and wall time."""
        line = self._encoder.encode(
            TraceRecord(
                mono=time.monotonic(),
                wall=time.time(),
                event=event,
                actor=actor,
                sender=sender,
                kind=kind,
                msg_type=msg_type,
                correlation_id=correlation_id,
                duration_ms=duration_ms,
                outcome=outcome,
                detail=detail,
            )
        )
        self.sink.write(line + b"\n")

    def close(self) -> None:
        """Close the sink (flushes a file sink)."""
        self.sink.close()
