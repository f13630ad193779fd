"""The flowchart AST (model.md §5, extended as spec decision 3 asks).

Maps keep document order (decision 10): nodes in order of first mention, edges in text order.
An edge's link is stored structurally (line kind, a head at each end, length); `connector` is
the Mermaid token derived from it, kept for the MCP contract's JSON shape.

The item Structs are `gc=False`: the collector never walks them nor the maps that hold them,
which cannot be part of a cycle (tests/model/test_untracked_items.py proves it from the types).
"""

from __future__ import annotations

import re
from typing import Final, Literal

import msgspec

__all__ = [
    "DIRECTIONS",
    "FlowEdge",
    "FlowNode",
    "FlowSubgraph",
    "FlowchartAst",
    "Head",
    "LineKind",
    "LinkSpec",
    "derived_mermaid_id",
    "effective_mermaid_id",
    "format_connector",
    "parse_connector",
]

LineKind = Literal["solid", "dotted", "thick", "invisible"]
Head = Literal["none", "arrow", "circle", "cross"]

#: Directions Mermaid accepts; `TD` and `TB` are the same layout but are kept as written.
DIRECTIONS: Final = ("TD", "TB", "BT", "LR", "RL")


class FlowNode(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One node. `mermaid_id` None means "derive from the node id minus `n:`"."""

    label: str
    shape: str = "rect"
    mermaid_id: str | None = None
    classes: tuple[str, ...] = ()
    style: str | None = None
    click: str | None = None
    note: str | None = None
    #: Extra v11 attributes of the `icon` / `image` shapes (`icon: "fa:user"`, `h: 60`, ...),
    #: key → value as written (quotes kept); None for every other shape.
    attrs: dict[str, str] | None = None


def derived_mermaid_id(node_id: str) -> str | None:
    """The Mermaid id a node id gives by default: the id minus `n:` (model.md §5.2), else None.

    `n:` alone gives None, not "": an empty name is no Mermaid id. Ops store it explicitly
    (a node added as `n:a` has `mermaid_id="a"`), as the parser does for the same node.
    """
    return node_id[2:] if node_id.startswith("n:") and len(node_id) > 2 else None


def effective_mermaid_id(node_id: str, node: FlowNode) -> str | None:
    """The name a node has in Mermaid text: its `mermaid_id`, else the derived one, else None.

    The one rule the exporter, the ops' uniqueness checks, the side-car's stable-id map and
    the import's id matching all use, so they always agree on which node a name means.
    """
    return node.mermaid_id if node.mermaid_id is not None else derived_mermaid_id(node_id)


class FlowEdge(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One directed edge from `from_node_id` to `to_node_id` (object ids, not Mermaid ids).

    An end is a node id or a subgraph id (spec decision 23: Mermaid draws such an edge to the
    frame); node and subgraph ids never coincide, so `end_category` tells which.
    """

    from_node_id: str
    to_node_id: str
    label: str | None = None
    line: LineKind = "solid"
    head_start: Head = "none"
    head_end: Head = "arrow"
    length: int = 1
    style: str | None = None
    #: The Mermaid v11 edge id (`A e1@--> B`); the importer then makes the object id `e:<id>`.
    mermaid_id: str | None = None
    #: v11 edge attributes from `e1@{ animate: true, curve: linear }`, key → value as written.
    attrs: dict[str, str] | None = None
    #: Classes given with `class e1 name` (needs a `mermaid_id`).
    classes: tuple[str, ...] = ()

    @property
    def connector(self) -> str | None:
        """The Mermaid link token, or None for the default `-->` (the MCP contract's field)."""
        token = format_connector(self.link)
        return None if token == "-->" else token

    @property
    def link(self) -> LinkSpec:
        return LinkSpec(self.line, self.head_start, self.head_end, self.length)


class FlowSubgraph(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A subgraph: a titled frame around nodes and nested subgraphs, in document order."""

    mermaid_id: str
    title: str | None = None
    direction: str | None = None
    node_ids: tuple[str, ...] = ()
    subgraph_ids: tuple[str, ...] = ()
    #: `class sg name` / `sg:::name`, in order.
    classes: tuple[str, ...] = ()
    #: `style sg css` text, None if absent.
    style: str | None = None


class FlowchartAst(msgspec.Struct, frozen=True, kw_only=True):
    """A whole flowchart. `subgraphs` holds every subgraph; roots are those no other one lists."""

    direction: str | None = None
    nodes: dict[str, FlowNode] = msgspec.field(default_factory=dict)
    edges: dict[str, FlowEdge] = msgspec.field(default_factory=dict)
    subgraphs: dict[str, FlowSubgraph] = msgspec.field(default_factory=dict)
    class_defs: dict[str, str] = msgspec.field(default_factory=dict)
    default_edge_style: str | None = None
    #: YAML front matter (`---` ... `---` before the header) kept verbatim, None if absent.
    front_matter: str | None = None
    #: `accTitle` / `accDescr` (may hold line breaks: `accDescr { ... }`), None if absent.
    acc_title: str | None = None
    acc_descr: str | None = None
    #: `%%{init: ...}%%` directives, verbatim (one string each, possibly over several lines),
    #: in text order; written back before the header.
    directives: tuple[str, ...] = ()

    def end_kind(self, object_id: str) -> Literal["node", "subgraph"] | None:
        """What an edge end names: a node, a subgraph, or nothing in this AST."""
        if object_id in self.nodes:
            return "node"
        if object_id in self.subgraphs:
            return "subgraph"
        return None


class LinkSpec(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """The structural form of a Mermaid link token."""

    line: LineKind = "solid"
    head_start: Head = "none"
    head_end: Head = "arrow"
    length: int = 1


_START_HEADS: Final[dict[str, Head]] = {"<": "arrow", "o": "circle", "x": "cross"}
_END_HEADS: Final[dict[str, Head]] = {">": "arrow", "o": "circle", "x": "cross"}
_START_GLYPH: Final[dict[Head, str]] = {"none": "", "arrow": "<", "circle": "o", "cross": "x"}
_END_GLYPH: Final[dict[Head, str]] = {"none": "", "arrow": ">", "circle": "o", "cross": "x"}
_BODY = re.compile(r"(?P<solid>-{2,})|(?P<thick>={2,})|-(?P<dots>\.+)-|(?P<invisible>~{3,})")
_MAX_LENGTH: Final = 32


def parse_connector(token: str) -> LinkSpec:
    """Read a Mermaid link token (`-->`, `-.->`, `==>`, `<-->`, `o--o`, `---->`, `~~~`, ...).

    Raises ValueError naming what is wrong. A start head needs an end head (`<-->`); the
    parser turns a left-pointing link (`<--`) around before it gets here.
    """
    text = token
    head_start: Head = "none"
    head_end: Head = "none"
    if text[:1] in _START_HEADS and len(text) > 1 and text[1] in "-=.":
        head_start = _START_HEADS[text[0]]
        text = text[1:]
    if text[-1:] in _END_HEADS and len(text) > 1 and text[-2] in "-=.":
        head_end = _END_HEADS[text[-1]]
        text = text[:-1]
    body = _BODY.fullmatch(text)
    if body is None:
        raise ValueError(f"not a Mermaid link: {token!r}")
    if head_start != "none" and head_end == "none":
        raise ValueError(f"a link with a start head needs an end head: {token!r}")
    line: LineKind
    if body.group("invisible"):
        if head_start != "none" or head_end != "none":
            raise ValueError(f"an invisible link has no heads: {token!r}")
        return LinkSpec("invisible", "none", "none", len(text) - 2)
    if body.group("dots"):
        line, length = "dotted", len(body.group("dots"))
    else:
        strokes = len(text)
        line = "solid" if body.group("solid") else "thick"
        # `-->`/`==>` have two strokes at length 1; an open link `---`/`===` has three.
        length = strokes - 1 if head_end != "none" else strokes - 2
        if length < 1:
            raise ValueError(f"incomplete link: {token!r}")
    if length > _MAX_LENGTH:
        raise ValueError(f"link is longer than {_MAX_LENGTH}: {token!r}")
    return LinkSpec(line, head_start, head_end, length)


def format_connector(spec: LinkSpec) -> str:
    """The Mermaid token for a link; inverse of parse_connector."""
    if spec.line == "invisible":
        return "~" * (spec.length + 2)
    start, end = _START_GLYPH[spec.head_start], _END_GLYPH[spec.head_end]
    if spec.line == "dotted":
        return f"{start}-{'.' * spec.length}-{end}"
    stroke = "-" if spec.line == "solid" else "="
    count = spec.length + 1 if end else spec.length + 2
    return f"{start}{stroke * count}{end}"
