"""Per-actor figures for `--stats`: messages handled, handling-time percentiles, failures.

Handling time is the `duration_ms` of `reply` and `error` events (time inside the handler);
queueing time (on `receive`) is not included. Percentiles use the nearest-rank method, so
they are always a time that was actually measured.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .records import TraceEntry
from .text import format_duration

__all__ = ["ActorStats", "collect_stats", "format_stats", "percentile"]


def percentile(values: Sequence[float], pct: float) -> float | None:
    """Nearest-rank percentile of `values` (None when empty); `pct` in (0, 100]."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass
class ActorStats:
    """What one actor did in the log."""

    actor: str
    messages: int = 0
    errors: int = 0
    crashes: int = 0
    restarts: int = 0
    handling_ms: list[float] = field(default_factory=list)

    @property
    def p50_ms(self) -> float | None:
        return percentile(self.handling_ms, 50)

    @property
    def p99_ms(self) -> float | None:
        return percentile(self.handling_ms, 99)


def collect_stats(entries: Iterable[TraceEntry]) -> list[ActorStats]:
    """Figures per actor, sorted by actor name (actors with no counted event are left out)."""
    by_actor: dict[str, ActorStats] = {}

    def stats_of(name: str) -> ActorStats:
        found = by_actor.get(name)
        if found is None:
            found = by_actor[name] = ActorStats(name)
        return found

    for entry in entries:
        match entry.event:
            case "receive":
                stats_of(entry.actor).messages += 1
            case "reply" | "error":
                stats = stats_of(entry.actor)
                if entry.duration_ms is not None:
                    stats.handling_ms.append(entry.duration_ms)
                if entry.event == "error":
                    stats.errors += 1
            case "crash":
                stats_of(entry.actor).crashes += 1
            case "restart":
                stats_of(entry.actor).restarts += 1
            case _:
                pass
    return [by_actor[name] for name in sorted(by_actor)]


def format_stats(rows: Sequence[ActorStats]) -> str:
    """A fixed-width table with a header, one row per actor, ending in a newline."""
    width = max([len("actor"), *(len(row.actor) for row in rows)])
    header = f"{'actor':<{width}}  messages  p50       p99       errors  crashes  restarts"
    lines = [header]
    for row in rows:
        lines.append(
            f"{row.actor:<{width}}  {row.messages:>8}  "
            f"{format_duration(row.p50_ms) or '-':<8}  {format_duration(row.p99_ms) or '-':<8}  "
            f"{row.errors:>6}  {row.crashes:>7}  {row.restarts:>8}"
        )
    return "\n".join(lines) + "\n"
