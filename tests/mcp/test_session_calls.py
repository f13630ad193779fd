"""How a tool row reads its result from actor replies (`nereid.mcp.session_calls.read_from`).

Refs become their text at any depth, Structs without refs are taken as they are (a tagged
union such as the AST view converts only that way), and a mapping part offers its keys,
never its methods.
"""

from __future__ import annotations

import msgspec

from nereid.mcp.session_calls import read_from
from nereid.mcp.tools_walkthroughs import NodeOut, WalkthroughOut
from nereid.mermaid import parse_mermaid
from nereid.model import Walkthrough, WalkthroughEdge, WalkthroughNode, parse_ref
from nereid.query.ast_view import AstView, ast_view


def test_refs_are_read_as_text_inside_nested_structs() -> None:
    refs = (parse_ref("d:auth/flow/node/n:a"), parse_ref("d:seq/seq/message/m:1"))
    node = WalkthroughNode(node_id="wn:1", title="A", refs=refs, tags=("x",))
    edge = WalkthroughEdge(from_node_id="wn:1", to_node_id="wn:1", kind="next")
    walk = Walkthrough(walkthrough_id="wt", title="T", rev=3, nodes=(node,), edges=(edge,))
    out = msgspec.convert(read_from(walk), WalkthroughOut, from_attributes=True)
    assert out.nodes == [
        NodeOut(
            node_id="wn:1",
            title="A",
            body_md=None,
            refs=["d:auth/flow/node/n:a", "d:seq/seq/message/m:1"],
            tags=["x"],
            status=None,
        )
    ]
    assert out.edges == [edge]


class _Shaped(msgspec.Struct, frozen=True, kw_only=True):
    ast: AstView
    items: list[str] = []


def test_structs_without_refs_are_taken_whole_and_mappings_offer_only_keys() -> None:
    view = ast_view(parse_mermaid("flowchart TD\n  a --> b\n"))
    out = msgspec.convert(read_from({"ast": view}), _Shaped, from_attributes=True)
    assert out.ast is view
    assert out.items == []
