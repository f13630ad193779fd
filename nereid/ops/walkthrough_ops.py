"""Walkthrough op structs (mcp-tools.md §16, ops.md §12).

Spec decision 8: in `update_*` ops an explicit `null` clears a field and an absent key leaves
it (fields whose value cannot be empty, such as `title`, keep on `null`).
"""

from __future__ import annotations

from nereid.ops.base import UNSET, Maybe, WalkthroughOpBase

__all__ = [
    "WalkthroughAddEdge",
    "WalkthroughAddNode",
    "WalkthroughRemoveEdge",
    "WalkthroughRemoveNode",
    "WalkthroughSetTitle",
    "WalkthroughUpdateEdge",
    "WalkthroughUpdateNode",
]


class WalkthroughSetTitle(WalkthroughOpBase, tag="set_title", frozen=True):
    title: str


class WalkthroughAddNode(WalkthroughOpBase, tag="add_node", frozen=True):
    """Append a node; absent or null optional fields mean "none" / empty lists."""

    node_id: str
    title: str
    body_md: str | None = None
    refs: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    status: str | None = None


class WalkthroughUpdateNode(WalkthroughOpBase, tag="update_node", frozen=True):
    """Replace the given fields. Null clears `body_md` / `status`, empties `refs` / `tags`,
    and keeps `title`."""

    node_id: str
    title: Maybe[str] = UNSET
    body_md: Maybe[str] = UNSET
    refs: Maybe[tuple[str, ...]] = UNSET
    tags: Maybe[tuple[str, ...]] = UNSET
    status: Maybe[str] = UNSET


class WalkthroughRemoveNode(WalkthroughOpBase, tag="remove_node", frozen=True):
    """Remove a node and every edge with it as an endpoint."""

    node_id: str


class WalkthroughAddEdge(WalkthroughOpBase, tag="add_edge", frozen=True):
    from_node_id: str
    to_node_id: str
    kind: str
    label: str | None = None


class WalkthroughUpdateEdge(WalkthroughOpBase, tag="update_edge", frozen=True):
    """A string sets the label, null clears it, absent leaves it."""

    from_node_id: str
    to_node_id: str
    kind: str
    label: Maybe[str] = UNSET


class WalkthroughRemoveEdge(WalkthroughOpBase, tag="remove_edge", frozen=True):
    from_node_id: str
    to_node_id: str
    kind: str
