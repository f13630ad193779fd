"""Who is still there: each agent's presence, from its requests and its open streams.

An MCP session can end without a word (the Inspector closed, a `kill -9`): an HTTP
session without a DELETE lives until the transport's idle timeout (30 minutes), and its
spotlight with it. `PresenceTracker` tells the session layer sooner:

- `idle` after `IDLE_AFTER` seconds without a request: the TUI greys the agent's spotlight;
- `active` again on the agent's next request;
- `gone` when its last open stream (the HTTP GET event stream) closed and nothing came back
  within `GONE_GRACE` seconds (a dead client), or after `EXPIRE_AFTER` seconds without a
  request: the spotlight is removed. The session itself stays usable: a later call just
  makes the agent `active` again (and it may set a new spotlight).

A session that ends (HTTP DELETE, idle timeout, stdio EOF) ends its agent as before. The
tracker is protocol bookkeeping of the MCP layer (like `AgentDirectory`), driven by the
endpoint; it holds no Nereid state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, final

__all__ = ["EXPIRE_AFTER", "GONE_GRACE", "IDLE_AFTER", "Presence", "PresenceTracker"]

Presence = Literal["active", "idle", "gone"]

IDLE_AFTER: Final = 120.0
"""Seconds without a request after which an agent's spotlight is shown idle (greyed)."""
EXPIRE_AFTER: Final = 600.0
"""Seconds without a request after which an agent's spotlight is removed."""
GONE_GRACE: Final = 10.0
"""Seconds a closed event stream may take to come back (a reconnect) before the agent is gone."""


@dataclass
class _Seen:
    last_request: float
    streams: int = 0
    closed_at: float | None = None
    reported: Presence = "active"


@final
class PresenceTracker:
    """Per agent: when it last asked something, and its open streams. Sync, never blocks."""

    def __init__(
        self,
        *,
        idle_after: float = IDLE_AFTER,
        expire_after: float = EXPIRE_AFTER,
        gone_grace: float = GONE_GRACE,
    ) -> None:
        if not 0 < idle_after <= expire_after or gone_grace < 0:
            raise ValueError("presence times must satisfy 0 < idle_after <= expire_after")
        self.idle_after = idle_after
        self.expire_after = expire_after
        self.gone_grace = gone_grace
        self._agents: dict[str, _Seen] = {}

    def seen(self, agent_id: str, now: float) -> Presence | None:
        """A request from `agent_id`; returns `active` if that is news (it was idle or gone)."""
        state = self._agents.setdefault(agent_id, _Seen(last_request=now))
        state.last_request = now
        state.closed_at = None
        if state.reported != "active":
            state.reported = "active"
            return "active"
        return None

    def stream_opened(self, agent_id: str, now: float) -> Presence | None:
        state = self._agents.get(agent_id)
        if state is None:
            return None
        state.streams += 1
        return self.seen(agent_id, now)

    def stream_closed(self, agent_id: str, now: float) -> None:
        state = self._agents.get(agent_id)
        if state is None or state.streams == 0:
            return
        state.streams -= 1
        if state.streams == 0:
            state.closed_at = now

    def forget(self, agent_id: str) -> None:
        self._agents.pop(agent_id, None)

    def presence(self, agent_id: str, now: float) -> Presence | None:
        """What `agent_id`'s presence is at `now` (None for an unknown agent)."""
        state = self._agents.get(agent_id)
        if state is None:
            return None
        quiet = now - state.last_request
        if quiet >= self.expire_after:
            return "gone"
        if state.closed_at is not None and now - state.closed_at >= self.gone_grace:
            return "gone"
        return "idle" if quiet >= self.idle_after else "active"

    def changes(self, now: float) -> list[tuple[str, Presence]]:
        """Every agent whose presence changed since last reported, now marked reported."""
        changed: list[tuple[str, Presence]] = []
        for agent_id, state in self._agents.items():
            current = self.presence(agent_id, now)
            if current is not None and current != state.reported:
                if state.reported == "gone" and current == "idle":
                    continue  # gone stays gone until the agent asks something again
                state.reported = current
                changed.append((agent_id, current))
        return changed

    def next_deadline(self, now: float) -> float | None:
        """When the next presence change can happen without a request (None: never)."""
        deadlines: list[float] = []
        for state in self._agents.values():
            if state.reported == "gone":
                continue
            if state.reported == "active":
                deadlines.append(state.last_request + self.idle_after)
            deadlines.append(state.last_request + self.expire_after)
            if state.closed_at is not None:
                deadlines.append(state.closed_at + self.gone_grace)
        return min(deadlines, default=None)
