"""Whatever the ops build can be exported and read back unchanged (spec decision 9).

Runs the random op machines of test_ops_stateful with one more invariant: export the AST,
parse the text, reconcile ids against the AST (as the store does on load), and compare.
Skipped while the Mermaid layer (written in parallel) cannot be imported.
"""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis.stateful import invariant

from nereid.mermaid.flowchart import export_flowchart, parse_flowchart
from nereid.mermaid.reconcile import FlowIdHints, reconcile_flowchart
from nereid.mermaid.reconcile_sequence import SeqIdHints, reconcile_sequence
from nereid.mermaid.sequence import export_sequence, parse_sequence
from nereid.model import FlowchartAst, SeqBlock, SequenceAst
from nereid.model.flowchart import effective_mermaid_id
from tests.ops.test_ops_stateful import SETTINGS, FlowchartMachine, SequenceMachine

replace = msgspec.structs.replace


def flow_view(ast: FlowchartAst) -> Any:
    """The AST minus what Mermaid text does not carry (inline notes live in the side-car)."""
    nodes = {
        i: replace(n, note=None, mermaid_id=effective_mermaid_id(i, n))
        for i, n in ast.nodes.items()
    }
    return replace(ast, nodes=nodes)


def block_view(blocks: tuple[SeqBlock, ...]) -> Any:
    """Blocks without their ids: block and section ids are positional in Mermaid text."""
    return [
        (b.kind, b.header, [(s.kind, s.header, s.message_ids) for s in b.sections],
         block_view(b.blocks))
        for b in blocks
    ]  # fmt: skip


def seq_view(ast: SequenceAst) -> Any:
    """Sequence AST minus side-car notes, with the timeline as ordered ids instead of keys."""
    participants = {i: replace(p, note=None) for i, p in ast.participants.items()}
    timeline = sorted(
        [(m.order_key, m.message_id, replace(m, order_key=0)) for m in ast.messages]
        + [(n.order_key, n.note_id, replace(n, order_key=0)) for n in ast.notes]
        + [(a.order_key, a.activation_id, replace(a, order_key=0)) for a in ast.activations],
        key=lambda item: (item[0], item[1]),
    )
    return (
        participants,
        [item[2] for item in timeline],
        block_view(ast.blocks),
        ast.autonumber,
        ast.title,
        ast.boxes,
        ast.autonumber_changes,
        ast.acc_title,
        ast.acc_descr,
    )


class FlowchartRoundTrip(FlowchartMachine):
    @invariant()
    def round_trip(self) -> None:
        ast = self.state.ast
        assert isinstance(ast, FlowchartAst)
        text = export_flowchart(ast)
        back = reconcile_flowchart(parse_flowchart(text), FlowIdHints.from_ast(ast))
        assert flow_view(back) == flow_view(ast), text
        assert export_flowchart(back) == text


class SequenceRoundTrip(SequenceMachine):
    @invariant()
    def round_trip(self) -> None:
        ast = self.state.ast
        assert isinstance(ast, SequenceAst)
        text = export_sequence(ast)
        back = reconcile_sequence(parse_sequence(text), SeqIdHints.from_ast(ast))
        assert seq_view(back) == seq_view(ast), text
        assert export_sequence(back) == text


TestFlowchartRoundTrip = FlowchartRoundTrip.TestCase
TestFlowchartRoundTrip.settings = SETTINGS
TestSequenceRoundTrip = SequenceRoundTrip.TestCase
TestSequenceRoundTrip.settings = SETTINGS
