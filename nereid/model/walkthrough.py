"""Walkthroughs: a narrative layer of titled steps over diagrams (model.md §8)."""

from __future__ import annotations

import msgspec

from nereid.model.refs import ObjectRef

__all__ = ["Walkthrough", "WalkthroughEdge", "WalkthroughNode"]


class WalkthroughNode(msgspec.Struct, frozen=True, kw_only=True):
    node_id: str
    title: str = ""
    body_md: str | None = None
    refs: tuple[ObjectRef, ...] = ()
    tags: tuple[str, ...] = ()
    status: str | None = None


class WalkthroughEdge(msgspec.Struct, frozen=True, kw_only=True):
    """An edge; its identity is `(from_node_id, to_node_id, kind)`."""

    from_node_id: str
    to_node_id: str
    kind: str
    label: str | None = None


class Walkthrough(msgspec.Struct, frozen=True, kw_only=True):
    walkthrough_id: str
    title: str
    rev: int = 0
    nodes: tuple[WalkthroughNode, ...] = ()
    edges: tuple[WalkthroughEdge, ...] = ()
    source: str | None = None
