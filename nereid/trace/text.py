"""Entries as text lines: the timeline row shared by the plain output and the viewer.

A row reads `time event actor message duration correlation-id outcome`, times in UTC (the
correlation id comes before the outcome so that a clipped row still shows it):

    22:05:01.123 send     diagram:a          Add call from session                   c=req-42
    22:05:01.124 reply    diagram:a          Add call                         0.31ms c=req-42 ok
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Final

from .records import TraceEntry

__all__ = ["OUTSIDE", "clean_text", "format_clock", "format_duration", "format_entry"]

#: How the log's `sender: null` (a call from outside the actors) is shown.
OUTSIDE: Final = "(outside)"

_DETAIL_LIMIT: Final = 120


def format_clock(wall: float) -> str:
    """`HH:MM:SS.mmm` in UTC."""
    moment = datetime.fromtimestamp(wall, UTC)
    return moment.strftime("%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def format_duration(duration_ms: float | None) -> str:
    """`0.31ms`, `12.5ms`, `2.40s`, or empty when the event has no duration."""
    if duration_ms is None:
        return ""
    if duration_ms < 10:
        return f"{duration_ms:.2f}ms"
    if duration_ms < 1000:
        return f"{duration_ms:.1f}ms"
    return f"{duration_ms / 1000:.2f}s"


def clean_text(text: str, limit: int = _DETAIL_LIMIT) -> str:
    """One line of printable text: control characters become spaces, long text is cut."""
    flat = "".join(ch if ch.isprintable() else " " for ch in text)
    flat = " ".join(flat.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _message(entry: TraceEntry) -> str:
    parts = [entry.msg_type or "-"]
    if entry.kind is not None:
        parts.append(entry.kind)
    if entry.event in ("send", "timeout"):
        parts.append(f"from {entry.sender or OUTSIDE}")
    elif entry.event in ("crash", "restart", "spawn", "stop") and entry.sender is not None:
        parts.append(f"by {entry.sender}")
    return " ".join(parts)


def format_entry(entry: TraceEntry) -> str:
    """The timeline row of one entry (no trailing newline)."""
    outcome = entry.outcome or ""
    if entry.detail:
        outcome = f"{outcome}: {clean_text(entry.detail)}" if outcome else clean_text(entry.detail)
    correlation = (
        "" if entry.correlation_id is None else f"c={clean_text(entry.correlation_id, 60)}"
    )
    return (
        f"{format_clock(entry.wall)} {clean_text(entry.event, 8):<8} "
        f"{clean_text(entry.actor, 40):<18} {clean_text(_message(entry), 60):<30} "
        f"{format_duration(entry.duration_ms):>8} {correlation:<18} {outcome}"
    ).rstrip()
