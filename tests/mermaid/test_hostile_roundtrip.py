"""Accepted means saveable (spec decision 18), checked on hostile input (hypothesis).

Random Mermaid texts and random op batches, with every string field drawn from a hostile
matrix (`nereid.testing.hostile`): each is refused with -32602, or it saves, reloads equal
and exports to a fixed point. Bounded here; `scripts/hostile_roundtrip` runs it for longer.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings

from nereid.errors import NereidError
from nereid.mermaid import export_flowchart
from nereid.model import Ast, FlowchartAst, FlowNode, FlowSubgraph
from nereid.model.writable import MAX_SUBGRAPH_DEPTH
from nereid.ops import apply_ops, convert_diagram_ops
from nereid.testing.hostile import (
    FLOW_SEED,
    SEQ_SEED,
    STATE_SEED,
    check_batch,
    check_text,
    flow_batches,
    mermaid_texts,
    nested_subgraphs,
    seed_ast,
    seq_batches,
    state_batches,
)

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
OP_SETTINGS = settings(SETTINGS, max_examples=150)
FLOW: Ast = seed_ast(FLOW_SEED)
SEQ: Ast = seed_ast(SEQ_SEED)
STATE: Ast = seed_ast(STATE_SEED)


@SETTINGS
@given(mermaid_texts())
def test_hostile_text_is_refused_or_saved_equal(text: str) -> None:
    event(check_text(text))


@OP_SETTINGS
@given(flow_batches())
def test_hostile_flowchart_batch_is_refused_or_saved_equal(ops: list[dict[str, Any]]) -> None:
    event(check_batch(FLOW, ops))


@OP_SETTINGS
@given(seq_batches())
def test_hostile_sequence_batch_is_refused_or_saved_equal(ops: list[dict[str, Any]]) -> None:
    event(check_batch(SEQ, ops))


@OP_SETTINGS
@given(state_batches())
def test_hostile_state_batch_is_refused_or_saved_equal(ops: list[dict[str, Any]]) -> None:
    event(check_batch(STATE, ops))


@pytest.mark.parametrize(
    ("text", "outcome"),
    [
        ("sequenceDiagram\nA->>B: a\x01b\n", "refused"),
        ("sequenceDiagram\nA->>B: a\u2028b\n", "refused"),
        ("sequenceDiagram\nparticipant A as x\x85y\n", "refused"),
        ('flowchart\nA\nclick A href "https://x" "two\nlines"\n', "saved"),  # as Mermaid
        ('flowchart\nA\nclick A href "https://x" "two \n lines"\n', "saved"),  # read trimmed
        ('flowchart\nA\nclick A href "https://x"\n"tip"\n', "refused"),
        ("flowchart\nA\nstyle A fill:#f00#59;x\n", "saved"),  # two statements, as in Mermaid
        ('flowchart\nA["  padded  "]\n', "saved"),
        (nested_subgraphs(MAX_SUBGRAPH_DEPTH), "saved"),
        (nested_subgraphs(MAX_SUBGRAPH_DEPTH + 1), "refused"),
        (nested_subgraphs(20_000), "refused"),
    ],
)
def test_known_cases(text: str, outcome: str) -> None:
    assert check_text(text) == outcome


@pytest.mark.parametrize(
    "op",
    [
        {"type": "seq_update_message", "message_id": "m:0001", "text": "a\x01b"},
        {"type": "seq_set_title", "title": "t\u2029x"},
        {"type": "seq_update_participant", "participant_id": "p:A", "alias": "x\x7f"},
    ],
)
def test_known_sequence_refusals(op: dict[str, Any]) -> None:
    assert check_batch(SEQ, [op]) == "refused"


@pytest.mark.parametrize(
    "op",
    [
        {"type": "flow_set_node_style", "node_id": "n:a", "style": "fill:red;x"},
        {"type": "flow_set_node_style", "node_id": "n:a", "style": "fill:red#59;x"},
        {"type": "flow_set_node_style", "node_id": "n:a", "style": 'font:"x'},
        {"type": "flow_update_edge", "edge_id": "e:0001", "style": 'stroke:"red'},
        {"type": "flow_set_class_def", "name": "hot", "style": 'fill:"red'},
        {"type": "flow_set_default_edge_style", "style": 'stroke:"red'},
    ],
)
def test_known_flowchart_refusals(op: dict[str, Any]) -> None:
    assert check_batch(FLOW, [op]) == "refused"


def test_export_does_not_recurse_per_nesting_level() -> None:
    """Deeper than import allows (built directly): the exporter still walks it."""
    depth = 5000
    subgraphs = {
        f"sg:s{i}": FlowSubgraph(
            mermaid_id=f"s{i}",
            node_ids=("n:A",) if i == depth - 1 else (),
            subgraph_ids=(f"sg:s{i + 1}",) if i < depth - 1 else (),
        )
        for i in range(depth)
    }
    ast = FlowchartAst(nodes={"n:A": FlowNode(label="A", mermaid_id="A")}, subgraphs=subgraphs)
    assert export_flowchart(ast) == nested_subgraphs(depth).replace(
        "flowchart\n", "flowchart\nA\n", 1
    )


def test_ops_cannot_nest_deeper_than_the_cap() -> None:
    ops: list[dict[str, Any]] = [
        {"type": "flow_add_subgraph", "subgraph_id": f"sg:d{i}", "mermaid_id": f"d{i}",
         **({"parent_subgraph_id": f"sg:d{i - 1}"} if i else {})}
        for i in range(MAX_SUBGRAPH_DEPTH + 1)
    ]  # fmt: skip
    assert check_batch(FLOW, ops[:-1]) == "saved"
    with pytest.raises(NereidError, match="nest deeper than"):
        apply_ops(FLOW, convert_diagram_ops(ops), diagram_id="d")
