"""What a chaos agent can do to a session, over actor messages or over MCP.

A `Workspace` is the small slice of Nereid a chaos agent uses: create flowcharts and
walkthroughs, read them (rev and object ids), add a node at a `base_rev`, add an xref,
move its spotlight. Two implementations answer it: `ActorWorkspace` sends the session
actors their messages directly (in-process runs), `McpWorkspace` calls the MCP tools as a
real client. Both sort every failure into the same four kinds, so the agent loop and the
ledger do not care which one ran:

- `Retryable`: the runtime could not deliver (actor restarted, timed out); the outcome of
  a write is unknown, resending is safe;
- `Stale`: `base_rev` was not current (the conflict error, with `current_rev`);
- `Refused`: a precise refusal of the input (-32602 / -32600 / -32002);
- `Broken`: anything else, an internal error (-32603 that is not retryable) or a
  malformed reply. A chaos run must see none.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from nereid.actors.protocol import (
    AddXref,
    ApplyDiagramOps,
    ApplyWalkthroughOps,
    CreateDiagramFromMermaid,
    CreateWalkthrough,
    GetDiagram,
    GetWalkthrough,
    SetSpotlight,
)
from nereid.errors import ActorError, Conflict, NereidError
from nereid.model import FlowchartAst, parse_ref
from nereid.ops import FlowAddNode, WalkthroughAddNode
from nereid.runtime import Registry

__all__ = [
    "ActorWorkspace",
    "Broken",
    "ChaosFailure",
    "Refused",
    "Retryable",
    "Snapshot",
    "Stale",
    "Workspace",
    "classify_rpc_error",
]


class ChaosFailure(Exception):
    """Base of the four failure kinds; `code` is the JSON-RPC code (0 if none)."""

    def __init__(self, message: str, *, code: int = 0, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.data = data


class Retryable(ChaosFailure):
    """The call was not delivered or its actor restarted: outcome unknown, resend is safe."""


class Stale(ChaosFailure):
    """`base_rev` was stale; `current_rev` is the rev to rebase on."""

    def __init__(self, message: str, *, current_rev: int, code: int = 0) -> None:
        super().__init__(message, code=code)
        self.current_rev = current_rev


class Refused(ChaosFailure):
    """A precise refusal of the input (invalid params, invalid request, not found)."""


class Broken(ChaosFailure):
    """An internal error or a reply that does not make sense: a bug."""


class Snapshot(msgspec.Struct, frozen=True, kw_only=True):
    """A diagram or walkthrough as an agent sees it: rev and the ids of its nodes."""

    rev: int
    node_ids: frozenset[str]


class Workspace(Protocol):
    """The operations of a chaos agent. Every method may raise a `ChaosFailure`."""

    async def create_flowchart(self, diagram_id: str, mermaid: str) -> int:
        """Create a flowchart with this id; returns its rev (0)."""
        ...

    async def create_walkthrough(self, walkthrough_id: str, title: str) -> int:
        """Create an empty walkthrough; returns its rev (0)."""
        ...

    async def read_diagram(self, diagram_id: str) -> Snapshot: ...

    async def read_walkthrough(self, walkthrough_id: str) -> Snapshot: ...

    async def add_diagram_node(self, diagram_id: str, base_rev: int, node_id: str) -> int:
        """`flow_add_node` at `base_rev`; returns the acknowledged new rev."""
        ...

    async def add_walkthrough_node(self, walkthrough_id: str, base_rev: int, node_id: str) -> int:
        """Walkthrough `add_node` at `base_rev`; returns the acknowledged new rev."""
        ...

    async def add_xref(self, xref_id: str, from_ref: str, to_ref: str) -> None: ...

    async def set_spotlight(self, object_ref: str) -> None: ...


def _from_nereid_error(error: NereidError) -> ChaosFailure:
    if isinstance(error, ActorError):
        if error.retryable:
            return Retryable(str(error), code=error.code, data=error.data)
        return Broken(f"{type(error).__name__}: {error}", code=error.code, data=error.data)
    if isinstance(error, Conflict):
        return Stale(error.message, current_rev=int(error.current_rev), code=error.code)
    return classify_rpc_error(error.code, error.message, error.data)


def classify_rpc_error(code: int, message: str, data: Any) -> ChaosFailure:
    """Sort a JSON-RPC error into a failure kind (MCP side; also used for actor errors)."""
    if isinstance(data, dict) and data.get("retryable") is True:
        return Retryable(message, code=code, data=data)
    if message.startswith("conflict") and isinstance(data, dict) and "current_rev" in data:
        return Stale(message, current_rev=int(data["current_rev"]), code=code)
    if code in (-32602, -32600, -32002):
        return Refused(message, code=code, data=data)
    return Broken(message, code=code, data=data)


class ActorWorkspace:
    """A `Workspace` over direct messages to a session's actors (found in `registry`)."""

    def __init__(self, registry: Registry, agent_id: str) -> None:
        self.registry = registry
        self.agent_id = agent_id

    async def _call(self, name: str, request: Any) -> Any:
        try:
            return await self.registry.lookup(name).call(request)
        except NereidError as error:
            raise _from_nereid_error(error) from error

    async def create_flowchart(self, diagram_id: str, mermaid: str) -> int:
        reply = await self._call(
            "session",
            CreateDiagramFromMermaid(mermaid=mermaid, diagram_id=diagram_id, make_active=False),
        )
        return int(reply.diagram.rev)

    async def create_walkthrough(self, walkthrough_id: str, title: str) -> int:
        reply = await self._call(
            "session", CreateWalkthrough(title=title, walkthrough_id=walkthrough_id)
        )
        return int(reply.walkthrough.rev)

    async def read_diagram(self, diagram_id: str) -> Snapshot:
        diagram = await self._call(f"diagram:{diagram_id}", GetDiagram())
        if not isinstance(diagram.ast, FlowchartAst):
            raise Broken(f"diagram {diagram_id} is not a flowchart")
        return Snapshot(rev=diagram.rev, node_ids=frozenset(diagram.ast.nodes))

    async def read_walkthrough(self, walkthrough_id: str) -> Snapshot:
        walkthrough = await self._call(
            f"walkthrough:{walkthrough_id}", GetWalkthrough(walkthrough_id=walkthrough_id)
        )
        return Snapshot(
            rev=walkthrough.rev, node_ids=frozenset(n.node_id for n in walkthrough.nodes)
        )

    async def add_diagram_node(self, diagram_id: str, base_rev: int, node_id: str) -> int:
        op = FlowAddNode(node_id=node_id, label=f"by {self.agent_id}")
        reply = await self._call(
            f"diagram:{diagram_id}", ApplyDiagramOps(base_rev=base_rev, ops=(op,))
        )
        return int(reply.new_rev)

    async def add_walkthrough_node(self, walkthrough_id: str, base_rev: int, node_id: str) -> int:
        op = WalkthroughAddNode(node_id=node_id, title=f"step by {self.agent_id}")
        reply = await self._call(
            f"walkthrough:{walkthrough_id}", ApplyWalkthroughOps(base_rev=base_rev, ops=(op,))
        )
        return int(reply.new_rev)

    async def add_xref(self, xref_id: str, from_ref: str, to_ref: str) -> None:
        await self._call(
            "xref", AddXref(xref_id=xref_id, from_ref=from_ref, to_ref=to_ref, kind="chaos")
        )

    async def set_spotlight(self, object_ref: str) -> None:
        await self._call(
            "attention", SetSpotlight(agent_id=self.agent_id, object_ref=parse_ref(object_ref))
        )
