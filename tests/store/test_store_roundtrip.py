"""A diagram saved to a folder and loaded back equals the one in memory, exactly.

"Acknowledged work is never lost" covers content: after a restart every id, order key,
note, subgraph id and style must be what the actors held. Runs the random op machines of
tests/ops (test_ops_stateful) with one more invariant: save the diagram through the store
(`save_session` over `MemoryFiles`), load it back (`load_session`) and compare the whole
`Diagram` with `==`.
"""

from __future__ import annotations

import msgspec
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule

from nereid.model import Diagram, Session
from nereid.model.refs import ref_enc_hook
from nereid.ops import DiagramState
from nereid.store import MemoryFiles, load_session, save_session
from tests.ops.test_ops_stateful import (
    EDGES,
    MESSAGES,
    NODES,
    PARTICIPANTS,
    SETTINGS,
    SUBGRAPHS,
    FlowchartMachine,
    SequenceMachine,
    WalkthroughMachine,
    flow_op,
    maybe,
    op_dict,
    seq_op,
)


def reloaded(state: DiagramState, kind: str) -> tuple[Diagram, Diagram]:
    """(the diagram in memory, the same diagram after a save and a load)."""
    diagram = Diagram(
        diagram_id="d",
        name="d",
        kind=kind,
        ast=state.ast,
        rev=state.rev,  # type: ignore[arg-type]
    )
    files = MemoryFiles()
    save_session(files, Session(session_id="s:rt", diagrams={"d": diagram}))
    result = load_session(files)
    assert not result.issues
    return diagram, result.session.diagrams["d"]


def differences(memory: object, back: object, path: str = "") -> list[str]:
    """Where two builtins trees differ (paths), to make a failure readable."""
    if isinstance(memory, dict) and isinstance(back, dict):
        if list(memory) != list(back):
            return [f"{path}: keys {list(memory)} != {list(back)}"]
        return [d for k in memory for d in differences(memory[k], back[k], f"{path}.{k}")]
    if (
        isinstance(memory, list | tuple)
        and isinstance(back, list | tuple)
        and len(memory) == len(back)
    ):
        return [
            d
            for i, (a, b) in enumerate(zip(memory, back, strict=True))
            for d in differences(a, b, f"{path}[{i}]")
        ]
    return [] if memory == back else [f"{path}: {memory!r} != {back!r}"]


def assert_same(memory: Diagram, back: Diagram) -> None:
    found = differences(msgspec.to_builtins(memory), msgspec.to_builtins(back))
    assert back == memory, found


style = st.sampled_from(["fill:#f9f", "stroke:#333,stroke-width:2px", "color:red"])
note_text = st.sampled_from(["a note", "two\nlines", "x"])
node = st.sampled_from(NODES)
edge = st.sampled_from(EDGES)

# What the machines of tests/ops leave out: notes, styles, class defs, titles, autonumber...
more_flow_ops = st.one_of(
    st.builds(lambda n, t: op_dict("flow_set_node_note", node_id=n, note=t), node, maybe(note_text)),
    st.builds(lambda n, s: op_dict("flow_set_node_style", node_id=n, style=s), node, maybe(style)),
    st.builds(lambda c, s: op_dict("flow_set_class_def", name=c, style=s),
              st.sampled_from(["hot", "cold"]), style),
    st.builds(lambda c: op_dict("flow_remove_class_def", name=c), st.sampled_from(["hot", "cold"])),
    st.builds(lambda s: op_dict("flow_set_default_edge_style", style=s), maybe(style)),
    st.builds(lambda e, s, c: op_dict("flow_update_edge", edge_id=e, style=s, connector=c),
              edge, maybe(style), maybe(st.sampled_from(["-->", "==>", "-.->", "~~~", "x--x"]))),
    st.builds(lambda e, a, b, s: op_dict("flow_add_edge", edge_id=e, from_node_id=a,
                                         to_node_id=b, style=s),
              edge, node, node, maybe(style)),
    st.builds(lambda g, t, d: op_dict("flow_update_subgraph", subgraph_id=g, title=t, direction=d),
              st.sampled_from(SUBGRAPHS), maybe(st.sampled_from(["T", "Two words"])),
              maybe(st.sampled_from(["LR", "TB"]))),
    st.builds(lambda n, sh: op_dict("flow_update_node", node_id=n, shape=sh),
              node, st.sampled_from(["rect", "round", "cyl", "diamond", "stadium"])),
)  # fmt: skip

participant = st.sampled_from(PARTICIPANTS)
message = st.sampled_from(MESSAGES)
more_seq_ops = st.one_of(
    st.builds(lambda p, n, a, r: op_dict("seq_add_participant", participant_id=p,
                                         mermaid_name=n, alias=a, role=r),
              st.sampled_from(["p:d", "p:e"]), st.sampled_from(["D", "E"]),
              maybe(st.sampled_from(["Dee", "E e"])), maybe(st.sampled_from(["actor", "database"]))),
    st.builds(lambda p, t: op_dict("seq_set_participant_note", participant_id=p, note=t),
              participant, maybe(note_text)),
    st.builds(lambda p, r: op_dict("seq_update_participant", participant_id=p, role=r),
              participant, maybe(st.sampled_from(["actor", "queue"]))),
    st.builds(lambda i, t, pl: op_dict("seq_update_note", note_id=i, text=t, placement=pl),
              st.sampled_from(["note:1", "note:2"]), maybe(st.just("changed")),
              maybe(st.sampled_from(["left_of", "right_of"]))),
    st.builds(lambda i: op_dict("seq_remove_note", note_id=i), st.sampled_from(["note:1", "note:2"])),
    st.builds(lambda i: op_dict("seq_remove_activation", activation_id=i),
              st.sampled_from(["act:1", "act:2"])),
    st.builds(lambda i, p, o: op_dict("seq_add_activation", activation_id=i, participant_id=p,
                                      active=False, order_key=o),
              st.sampled_from(["act:3"]), participant, st.integers(0, 6)),
    st.builds(lambda e, a, b: op_dict("seq_set_autonumber", enabled=e, start=a, step=b),
              st.booleans(), st.integers(0, 3), st.integers(1, 3)),
    st.builds(lambda t: op_dict("seq_set_title", title=t), maybe(st.sampled_from(["T", "A title"]))),
    st.builds(lambda b, h: op_dict("seq_update_block", block_id=b, header=h),
              st.sampled_from(["b:1", "b:2"]), maybe(st.sampled_from(["when", "x > 1"]))),
    st.builds(lambda m, t, ar: op_dict("seq_update_message", message_id=m, text=t, arrow=ar),
              message, maybe(st.sampled_from(["new", "a: b"])),
              maybe(st.sampled_from(["->", "-->", "--x", "--)"]))),
)  # fmt: skip


class FlowchartReload(FlowchartMachine):
    @rule(ops=st.lists(st.one_of(more_flow_ops, flow_op), max_size=4))
    def more(self, ops: list[dict[str, object]]) -> None:
        self.run_batch(ops)

    @invariant()
    def reload_is_exact(self) -> None:
        memory, back = reloaded(self.state, "flowchart")
        assert_same(memory, back)


class SequenceReload(SequenceMachine):
    @rule(ops=st.lists(st.one_of(more_seq_ops, seq_op), max_size=4))
    def more(self, ops: list[dict[str, object]]) -> None:
        self.run_batch(ops)

    @invariant()
    def reload_is_exact(self) -> None:
        memory, back = reloaded(self.state, "sequence")
        assert_same(memory, back)


TestFlowchartReload = FlowchartReload.TestCase
TestFlowchartReload.settings = SETTINGS
TestSequenceReload = SequenceReload.TestCase
TestSequenceReload.settings = SETTINGS


class WalkthroughReload(WalkthroughMachine):
    @invariant()
    def reload_is_exact(self) -> None:
        walkthrough = self.state.walkthrough
        files = MemoryFiles()
        session = Session(session_id="s:rt", walkthroughs={walkthrough.walkthrough_id: walkthrough})
        save_session(files, session)
        result = load_session(files)
        assert not result.issues
        back = result.session.walkthroughs[walkthrough.walkthrough_id]
        found = differences(
            msgspec.to_builtins(walkthrough, enc_hook=ref_enc_hook),
            msgspec.to_builtins(back, enc_hook=ref_enc_hook),
        )
        assert back == walkthrough, found


TestWalkthroughReload = WalkthroughReload.TestCase
TestWalkthroughReload.settings = SETTINGS
