"""Copy on write in `FlowDraft`: the same ASTs, deltas and errors as copying every map.

The draft copies a map only when the batch first changes it, and hands the maps it did not
change to the new AST as they are. The oracle is the draft as it was, copying all four maps
up front: every batch of hostile ops must give an equal AST, an equal delta, or the same
refusal (type, message and data), and must never change the AST it started from.
"""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.errors import NereidError
from nereid.mermaid.flowchart import parse_flowchart
from nereid.model import FlowchartAst
from nereid.ops import convert_diagram_ops
from nereid.ops.apply_flow import FlowDraft
from nereid.ops.delta import net_delta
from tests.ops.test_ops_stateful import FLOW_SEED_TEXT, flow_op


class EagerDraft(FlowDraft):
    """The draft before copy on write: every map copied when the batch starts."""

    def __init__(self, ast: FlowchartAst) -> None:
        super().__init__(ast)
        self._write_nodes()
        self._write_edges()
        self._write_subgraphs()
        self._write_class_defs()


def _run(draft_type: type[FlowDraft], ast: FlowchartAst, ops: list[Any]) -> object:
    draft = draft_type(ast)
    try:
        for op in ops:
            draft.apply(op)
        new = draft.finish()
    except NereidError as err:
        return (type(err), err.message, err.data)
    return new, net_delta("d", ast, new, draft.touched)


def _frozen(ast: FlowchartAst) -> bytes:
    return msgspec.msgpack.encode(ast)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.lists(flow_op, min_size=1, max_size=5), min_size=1, max_size=6))
def test_copy_on_write_gives_what_copying_everything_gave(batches: list[list[Any]]) -> None:
    ast = parse_flowchart(FLOW_SEED_TEXT)
    for batch in batches:
        try:
            ops = convert_diagram_ops(batch)
        except NereidError:
            continue
        before = _frozen(ast)
        lazy = _run(FlowDraft, ast, ops)
        assert _frozen(ast) == before  # the base AST is never written through
        eager = _run(EagerDraft, ast, ops)
        assert lazy == eager
        if isinstance(lazy, tuple) and isinstance(lazy[0], FlowchartAst):
            ast = lazy[0]


def test_a_label_edit_copies_the_nodes_only_and_shares_the_rest() -> None:
    ast = parse_flowchart("flowchart TD\n  a[A] --> b[B]\n  subgraph g\n    b\n  end\n")
    ops = convert_diagram_ops([{"type": "flow_update_node", "node_id": "n:a", "label": "x"}])
    new, _ = _run(FlowDraft, ast, ops)  # type: ignore[misc]
    assert new.nodes is not ast.nodes and new.nodes["n:a"].label == "x"
    assert ast.nodes["n:a"].label == "A"
    assert new.edges is ast.edges
    assert new.subgraphs is ast.subgraphs
    assert new.class_defs is ast.class_defs
