"""One trace-log line as the reader sees it, decoded from the documented JSON-lines schema.

The schema is written by the actor runtime's tracer (`docs/trace.md`). This package may not
import the runtime, so it decodes the schema with its own Struct: tolerant of keys it does not
know and of event names added later (shown as they are), strict about the types of the keys it
does know, so a corrupted line is reported instead of shown wrong.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

__all__ = ["PROBLEM_EVENTS", "TraceEntry", "decode_entry"]

#: Events that `--errors` keeps: failures, and the restarts that follow crashes.
PROBLEM_EVENTS: Final = frozenset({"error", "crash", "restart", "escalate", "expired", "timeout"})


class TraceEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One event of the log; `line` is its 1-based line number in the file it came from."""

    mono: float
    wall: float
    event: str
    actor: str
    sender: str | None = None
    kind: Literal["call", "cast"] | None = None
    msg_type: str | None = None
    correlation_id: str | None = None
    duration_ms: float | None = None
    outcome: str | None = None
    detail: str | None = None
    #: Set by the reader, never read from the log (the odd key name keeps it out of the way).
    line: int = msgspec.field(default=0, name="$line")

    @property
    def is_problem(self) -> bool:
        """True for errors, crashes, restarts, escalations, timeouts and expired calls."""
        return self.event in PROBLEM_EVENTS


_decoder: Final = msgspec.json.Decoder(TraceEntry)


def decode_entry(data: bytes, line: int) -> TraceEntry:
    """Decode one line (without its newline) and stamp its line number.

    Raises `msgspec.DecodeError` (not JSON, truncated) or `msgspec.ValidationError` (a known key
    of the wrong type, a required key missing).
    """
    entry = _decoder.decode(data)
    return msgspec.structs.replace(entry, line=line)
