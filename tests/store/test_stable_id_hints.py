"""The side-car's stable ids and a re-import's hints follow one rule (one home per rule).

A diagram's ids are matched onto a fresh parse from two sources: the side-car on load
(`flow_hints(sidecar_for(...))`) and the previous AST on an import (`FlowIdHints.from_ast`).
Both must name the same node for every Mermaid id, and list edges in the order the exported
text has them (fingerprint-equal edges are matched first come, first served).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.mermaid.flowchart import parse_flowchart
from nereid.mermaid.reconcile import FlowIdHints
from nereid.model import Diagram, FlowchartAst, FlowEdge, FlowNode, Session
from nereid.ops.apply import apply_ops
from nereid.ops.flow_ops import FlowAddEdge
from nereid.store import MemoryFiles, load_session, save_session
from nereid.store.diagram_files import flow_hints, sidecar_for


def reloaded(ast: FlowchartAst) -> Diagram:
    """`ast` saved to a folder and loaded back."""
    diagram = Diagram(diagram_id="d", name="d", kind="flowchart", ast=ast, rev=1)
    files = MemoryFiles()
    save_session(files, Session(session_id="s:ids", diagrams={"d": diagram}))
    result = load_session(files)
    assert not result.issues
    return result.session.diagrams["d"]


def test_edges_alike_but_for_their_link_keep_their_ids_through_the_folder() -> None:
    # e:9 (solid) is added before e:1 (dotted): the text has them in that order, and the
    # side-car must not hand e:1's id to the first `A --> B` line it reads back.
    ast, _ = apply_ops(
        parse_flowchart("flowchart TD\n  A --> B\n"),
        [
            FlowAddEdge(edge_id="e:9", from_node_id="n:A", to_node_id="n:B"),
            FlowAddEdge(edge_id="e:1", from_node_id="n:A", to_node_id="n:B", connector="-.->"),
        ],
        diagram_id="d",
    )
    assert isinstance(ast, FlowchartAst)
    back = reloaded(ast).ast
    assert isinstance(back, FlowchartAst)
    assert {i: e.line for i, e in back.edges.items()} == {i: e.line for i, e in ast.edges.items()}
    assert back == ast


_NODE_IDS = st.one_of(
    st.just("n:"),
    st.builds(lambda s: "n:" + s, st.text("abx_1", min_size=1, max_size=3)),
    st.text("abx_1:", min_size=1, max_size=4),
)
_NODES = st.dictionaries(
    _NODE_IDS,
    st.builds(
        lambda m: FlowNode(label="x", mermaid_id=m),
        st.none() | st.text("abx_1", min_size=1, max_size=3),
    ),
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(nodes=_NODES, data=st.data())
def test_side_car_and_import_hints_agree(nodes: dict[str, FlowNode], data: st.DataObject) -> None:
    node_ids = sorted(nodes)
    edges: dict[str, FlowEdge] = {}
    if node_ids:
        edge_ids = data.draw(st.lists(st.sampled_from(["e:1", "e:2", "e:9", "e:10"]), unique=True))
        for edge_id in edge_ids:
            ends = data.draw(st.tuples(st.sampled_from(node_ids), st.sampled_from(node_ids)))
            edges[edge_id] = FlowEdge(from_node_id=ends[0], to_node_id=ends[1])
    ast = FlowchartAst(nodes=nodes, edges=edges)
    diagram = Diagram(diagram_id="d", name="d", kind="flowchart", ast=ast, rev=1)
    assert flow_hints(sidecar_for(diagram, "")) == FlowIdHints.from_ast(ast)
