"""Which trace entries to show: by actor, message type, correlation id, problems, time window.

The same `TraceFilter` serves the plain-text flags and the viewer's filter keys. Actor and
message-type patterns are shell-style globs (`diagram:*`), matched case-sensitively. An actor
pattern matches an entry at that actor or sent by it, so an actor's outgoing calls show too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from typing import Final

from .records import TraceEntry

__all__ = ["TimeParseError", "TraceFilter", "describe_filter", "parse_time"]

_RELATIVE: Final = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h|d)$")
_UNIT_SECONDS: Final = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


class TimeParseError(ValueError):
    """A `--since`/`--until` value that is neither a duration (`10s`, `5m`) nor an ISO time."""


def parse_time(text: str, now: float) -> float:
    """Wall time (epoch seconds) for `10s`/`5m`/`2h`/`1d`/`250ms` ago, or an ISO 8601 time.

    An ISO time without a zone is read as UTC, like the times the viewer prints.
    """
    value = text.strip()
    match = _RELATIVE.match(value)
    if match is not None:
        return now - float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise TimeParseError(
            f"invalid time {text!r}: expected a duration such as 10s, 5m, 2h, 1d, 250ms "
            "or an ISO time such as 2026-11-29T22:05:00"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


@dataclass(frozen=True)
class TraceFilter:
    """Conditions an entry must all meet; a None/empty condition accepts everything."""

    actor: str | None = None
    msg_type: str | None = None
    correlation_id: str | None = None
    problems_only: bool = False
    since: float | None = None
    until: float | None = None

    def matches(self, entry: TraceEntry) -> bool:
        if self.problems_only and not entry.is_problem:
            return False
        if self.correlation_id is not None and entry.correlation_id != self.correlation_id:
            return False
        if self.since is not None and entry.wall < self.since:
            return False
        if self.until is not None and entry.wall > self.until:
            return False
        if self.msg_type is not None and not fnmatchcase(entry.msg_type or "", self.msg_type):
            return False
        if self.actor is not None:
            at_actor = fnmatchcase(entry.actor, self.actor)
            from_actor = entry.sender is not None and fnmatchcase(entry.sender, self.actor)
            if not (at_actor or from_actor):
                return False
        return True

    @property
    def is_empty(self) -> bool:
        return self == TraceFilter()


def _clock(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).strftime("%H:%M:%S")


def describe_filter(selection: TraceFilter) -> str:
    """A short summary for a status line, e.g. `actor=diagram:* errors since 22:01:05`."""
    parts: list[str] = []
    if selection.actor is not None:
        parts.append(f"actor={selection.actor}")
    if selection.msg_type is not None:
        parts.append(f"type={selection.msg_type}")
    if selection.correlation_id is not None:
        parts.append(f"corr={selection.correlation_id}")
    if selection.problems_only:
        parts.append("errors")
    if selection.since is not None:
        parts.append(f"since {_clock(selection.since)}")
    if selection.until is not None:
        parts.append(f"until {_clock(selection.until)}")
    return " ".join(parts) if parts else "no filter"
