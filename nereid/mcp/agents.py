"""Agents: every MCP session is one agent with its own id (spec decision 13).

An HTTP session (one `Mcp-Session-Id`) or the single stdio client is an agent
`agent:<n>`, numbered from 1 in the order sessions start and never reused in one
process. The id is stable for the session's life. `SessionHooks` lets the session
layer react when an agent appears or goes away (e.g. the AttentionActor drops the
agent's spotlight when its session ends).
"""

from __future__ import annotations

import itertools
import logging
from typing import Literal, Protocol, final

import msgspec

from .presence import Presence

__all__ = ["Agent", "AgentDirectory", "SessionHooks", "Transport"]

log = logging.getLogger(__name__)

Transport = Literal["stdio", "http"]
"""`stdio`: one client on a stream pair (stdio, or in-process streams); `http`: a session."""


class Agent(msgspec.Struct, frozen=True, kw_only=True):
    """Who is calling: one MCP session.

    `client_name` is the `clientInfo.name` the client sent in `initialize`, if any;
    `session_id` the transport's session id (HTTP only).
    """

    agent_id: str
    transport: Transport
    client_name: str | None = None
    session_id: str | None = None

    @property
    def label(self) -> str:
        """A short human label, e.g. `agent:2 (claude-code)`."""
        return (
            self.agent_id if self.client_name is None else f"{self.agent_id} ({self.client_name})"
        )


class SessionHooks(Protocol):
    """Called when an agent's session starts and when it ends.

    Both run in the MCP server's task; they should be quick (send a message to an
    actor, do not wait on the client). An exception is logged and otherwise
    ignored: a failing hook never takes a session down.
    """

    async def session_started(self, agent: Agent) -> None: ...

    async def session_ended(self, agent: Agent) -> None: ...

    async def session_presence(self, agent: Agent, presence: Presence) -> None:
        """The agent went `idle`, came back (`active`) or is `gone` (`nereid.mcp.presence`)."""
        ...


@final
class AgentDirectory:
    """Allocates agent ids and knows the live agents. Sync, never blocks."""

    def __init__(self) -> None:
        self._numbers = itertools.count(1)
        self._live: dict[str, Agent] = {}

    def open(
        self, transport: Transport, *, client_name: str | None, session_id: str | None
    ) -> Agent:
        """A new agent with the next id, registered as live."""
        agent = Agent(
            agent_id=f"agent:{next(self._numbers)}",
            transport=transport,
            client_name=client_name,
            session_id=session_id,
        )
        self._live[agent.agent_id] = agent
        return agent

    def by_session(self, session_id: str) -> Agent | None:
        """The live agent of an HTTP session id, if any."""
        for agent in self._live.values():
            if agent.session_id == session_id:
                return agent
        return None

    def close(self, agent: Agent) -> None:
        """Forget `agent` (its session ended). Idempotent."""
        self._live.pop(agent.agent_id, None)

    def get(self, agent_id: str) -> Agent | None:
        """The live agent `agent_id`, if its session is open."""
        return self._live.get(agent_id)

    def live(self) -> list[Agent]:
        """The agents whose sessions are open, in id order."""
        return sorted(self._live.values(), key=lambda a: int(a.agent_id.partition(":")[2]))
