"""Random op batches against the invariants of the ops engine (hypothesis state machines).

After every batch: no dangling references, the diagram is still exportable by the model's
rules, the delta names exactly the objects whose value changed, `rev` moves by one per
non-empty batch, and a refused batch changes nothing (not even its input). The diagram
machines start either from ops or from Mermaid text with v11 fields (edge ids, attributes and
classes, icon/image nodes, participant boxes) that only the importer can make.
"""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from nereid.errors import NereidError
from nereid.mermaid.flowchart import parse_flowchart
from nereid.mermaid.sequence import parse_sequence
from nereid.model import FlowchartAst, SequenceAst, Walkthrough
from nereid.model.flowchart import effective_mermaid_id
from nereid.model.shapes import ATTRIBUTE_SHAPES
from nereid.ops import (
    DiagramState,
    WalkthroughState,
    convert_diagram_ops,
    convert_walkthrough_ops,
    object_signatures,
)
from nereid.ops.rules import node_name_problem, subgraph_ident_problem
from nereid.ops.seq_blocks import check_blocks, thaw_blocks

SETTINGS = settings(
    max_examples=60,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

NODES = ["n:a", "n:b", "n:c", "n:d", "plain", "n:u"]
EDGES = ["e:1", "e:2", "e:3", "e:4", "e:e1", "e:e2"]
SUBGRAPHS = ["sg:1", "sg:2", "sg:3"]
LABELS = ["A", "B", "Two words", "x|y", "A", "C", "", 'q"']
MAYBE: Any = st.none()

#: A seed only the importer can make: edge ids with attributes and a class, icon/image nodes.
FLOW_SEED_TEXT = """flowchart LR
  a[N] e1@--> b[N]
  c[N] e2@-.-> u
  u@{ icon: "fa:user", form: "square", label: "User", h: 60 }
  d@{ img: "https://example.com/d.png", label: "N", w: 60 }
  e1@{ animate: true }
  class e2 hot
"""
#: Participants p:a..p:c in two boxes (the second one holds only p:c).
SEQ_SEED_TEXT = """sequenceDiagram
  box Aqua Front
    participant A
    participant B
  end
  box rgb(0,0,0) Back
    participant C
  end
"""


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A field value: absent (the key is left out), null or drawn from `strategy`."""
    return st.one_of(st.just(msgspec.UNSET), st.none(), strategy)


def op_dict(op_type: str, /, **fields: Any) -> dict[str, Any]:
    return {"type": op_type, **{k: v for k, v in fields.items() if v is not msgspec.UNSET}}


node = st.sampled_from(NODES)
edge = st.sampled_from(EDGES)
subgraph = st.sampled_from(SUBGRAPHS)
#: An edge end: a node or a subgraph (spec decision 23).
end = st.sampled_from(NODES + SUBGRAPHS)
label = st.sampled_from(LABELS)

flow_op = st.one_of(
    st.builds(lambda n, lab, sh: op_dict("flow_add_node", node_id=n, label=lab, shape=sh),
              node, label, maybe(st.sampled_from(["rect", "round", "cyl", "blob", "icon"]))),
    st.builds(lambda n, lab, sh: op_dict("flow_update_node", node_id=n, label=lab, shape=sh),
              node, maybe(label), maybe(st.sampled_from(["rect", "icon", "image", "hex"]))),
    st.builds(lambda n, m: op_dict("flow_set_node_mermaid_id", node_id=n, mermaid_id=m),
              node, maybe(st.sampled_from(["a", "b", "plain", "x y", "end", "e1", "g1"]))),
    st.builds(lambda n: op_dict("flow_remove_node", node_id=n), node),
    st.builds(lambda e, a, b, lab, c: op_dict("flow_add_edge", edge_id=e, from_node_id=a,
                                              to_node_id=b, label=lab, connector=c),
              edge, end, end, maybe(label),
              maybe(st.sampled_from(["-->", "-.->", "==>", "<--", "o--o", "<--o", "---"]))),
    st.builds(lambda e, a, lab: op_dict("flow_update_edge", edge_id=e, to_node_id=a, label=lab),
              edge, maybe(end), maybe(label)),
    st.builds(lambda e: op_dict("flow_remove_edge", edge_id=e), edge),
    st.builds(lambda s, m, p, ns: op_dict("flow_add_subgraph", subgraph_id=s, mermaid_id=m,
                                          parent_subgraph_id=p, node_ids=ns),
              subgraph, st.sampled_from(["g1", "g2", "a", "e2", "direction", "Ü-1.x"]),
              maybe(subgraph), st.lists(node, max_size=3)),
    st.builds(lambda s, m, cs, sty: op_dict("flow_update_subgraph", subgraph_id=s,
                                            mermaid_id=m, classes=cs, style=sty),
              subgraph, maybe(st.sampled_from(["g3", "g-4", "a"])),
              maybe(st.lists(st.sampled_from(["hot", "cold", "bad-name"]), max_size=2)),
              maybe(st.sampled_from(["fill:#f00", " ", "a\nb"]))),
    st.builds(lambda s, ns, ss: op_dict("flow_set_subgraph_members", subgraph_id=s,
                                        node_ids=ns, subgraph_ids=ss),
              subgraph, st.lists(node, max_size=3), maybe(st.lists(subgraph, max_size=2))),
    st.builds(lambda s: op_dict("flow_remove_subgraph", subgraph_id=s), subgraph),
    st.builds(lambda d: op_dict("flow_set_direction", direction=d),
              maybe(st.sampled_from(["LR", "TD", "up"]))),
    st.builds(lambda n, cs: op_dict("flow_set_node_classes", node_id=n, classes=cs),
              node, st.lists(st.sampled_from(["hot", "cold", "bad-name"]), max_size=2)),
)  # fmt: skip

PARTICIPANTS = ["p:a", "p:b", "p:c"]
MESSAGES = ["m:1", "m:2", "m:3", "m:4", "m:5"]
BLOCKS = ["b:1", "b:2"]
SECTIONS = ["s:1", "s:2", "s:3"]
participant = st.sampled_from(PARTICIPANTS)
message = st.sampled_from(MESSAGES)
text = st.sampled_from(["hi", "two words", "hi", "ok", "", "a;b"])
order_key = st.integers(min_value=0, max_value=6)
section_spec = st.builds(
    lambda s, ms: {"section_id": s, "message_ids": ms},
    st.sampled_from(SECTIONS), st.lists(message, min_size=1, max_size=3, unique=True),
)  # fmt: skip


@st.composite
def contiguous_sections(draw: st.DrawFn) -> list[dict[str, Any]]:
    """One or two back-to-back sections over a run of the seeded messages (m:1..m:3 are in
    message order until updates move them), so that many generated blocks are valid."""
    start = draw(st.integers(0, 2))
    end = draw(st.integers(start, 2))
    run = MESSAGES[start : end + 1]
    cut = draw(st.integers(1, len(run)))
    parts = [run[:cut], run[cut:]] if cut < len(run) and draw(st.booleans()) else [run]
    ids = draw(st.permutations(SECTIONS))
    return [{"section_id": ids[i], "message_ids": part} for i, part in enumerate(parts)]


block_op = st.builds(
    lambda b, k, ss, h: op_dict("seq_add_block", block_id=b, kind=k, sections=ss, header=h),
    st.sampled_from(BLOCKS), st.sampled_from(["alt", "par", "loop", "rect"]),
    contiguous_sections(), maybe(st.sampled_from(["cond", "rgb(0,0,0)"])),
)  # fmt: skip

seq_op = st.one_of(
    block_op,
    block_op,
    st.builds(lambda p, n: op_dict("seq_add_participant", participant_id=p, mermaid_name=n),
              participant, st.sampled_from(["A", "B", "C", "end", "x y"])),
    st.builds(lambda p, a: op_dict("seq_update_participant", participant_id=p, alias=a),
              participant, maybe(st.sampled_from(["Alice", ""]))),
    st.builds(lambda p: op_dict("seq_remove_participant", participant_id=p),
              st.sampled_from(["p:c", "p:c", "p:c", "p:a"])),
    st.builds(lambda m, a, b, k, t, o, ar: op_dict(
                  "seq_add_message", message_id=m, from_participant_id=a, to_participant_id=b,
                  kind=k, text=t, order_key=o, arrow=ar),
              message, participant, participant, st.sampled_from(["sync", "async", "return"]),
              text, order_key, maybe(st.sampled_from(["->>", "-)", "-->>+", "-x", "=>"]))),
    st.builds(lambda m, o, k: op_dict("seq_update_message", message_id=m, order_key=o, kind=k),
              message, maybe(order_key), maybe(st.sampled_from(["sync", "return"]))),
    st.builds(lambda m: op_dict("seq_remove_message", message_id=m),
              st.sampled_from(["m:1", "m:4", "m:5", "m:4", "m:5"])),
    st.builds(lambda i, ps, t, o: op_dict("seq_add_note", note_id=i, placement="over",
                                          participant_ids=ps, text=t, order_key=o),
              st.sampled_from(["note:1", "note:2"]),
              st.lists(participant, min_size=1, max_size=2, unique=True), text, order_key),
    st.builds(lambda i, p, o: op_dict("seq_add_activation", activation_id=i, participant_id=p,
                                      active=True, order_key=o),
              st.sampled_from(["act:1", "act:2"]), participant, order_key),
    st.builds(lambda b, k, ss, par: op_dict("seq_add_block", block_id=b, kind=k, sections=ss,
                                            parent_block_id=par),
              st.sampled_from(BLOCKS), st.sampled_from(["alt", "opt", "par"]),
              st.lists(section_spec, min_size=1, max_size=2), maybe(st.sampled_from(BLOCKS))),
    st.builds(lambda b: op_dict("seq_remove_block", block_id=b), st.sampled_from(BLOCKS)),
    st.builds(lambda s, ms: op_dict("seq_update_section", section_id=s, message_ids=ms),
              st.sampled_from(SECTIONS), maybe(st.lists(message, min_size=1, max_size=3))),
    st.builds(lambda s: op_dict("seq_remove_section", section_id=s), st.sampled_from(SECTIONS)),
    st.builds(lambda b, s, ms: op_dict("seq_add_section", block_id=b, section_id=s,
                                       message_ids=ms),
              st.sampled_from(BLOCKS), st.sampled_from(SECTIONS),
              st.lists(message, min_size=1, max_size=2, unique=True)),
)  # fmt: skip


def expected_delta(diagram_id: str, before: Any, after: Any) -> dict[str, list[str]]:
    """The delta computed from scratch: compare every object's value before and after."""
    old, new = object_signatures(before), object_signatures(after)

    def refs(keys: set) -> list[str]:
        ordered = sorted(keys, key=lambda k: (k[0], k[1]))
        return [f"d:{diagram_id}/{'/'.join(c)}/{i}" for c, i in ordered]

    return {
        "added": refs(set(new) - set(old)),
        "removed": refs(set(old) - set(new)),
        "updated": refs({k for k in set(old) & set(new) if old[k] != new[k]}),
    }


class _OpsMachine(RuleBasedStateMachine):
    state: DiagramState

    def run_batch(self, ops: list[dict[str, Any]]) -> None:
        before = self.state
        encoded = msgspec.json.encode(before.ast)
        try:
            after, outcome = before.apply(before.rev, convert_diagram_ops(ops))
        except NereidError as error:
            assert msgspec.json.encode(before.ast) == encoded  # the input was not mutated
            event(f"refused: {error.message[:40]}")
            return  # the machine keeps `before`: a refused batch changes nothing
        assert msgspec.json.encode(before.ast) == encoded
        if ops:
            assert after.rev == before.rev + 1 == outcome.new_rev
            assert after.history.entries[-1].from_rev == before.rev
        else:
            assert after is before and outcome.new_rev == before.rev
        assert outcome.delta.to_json() == expected_delta("d", before.ast, after.ast)
        self.state = after
        for op in ops:
            event(f"applied: {op['type']}")


class FlowchartMachine(_OpsMachine):
    def __init__(self) -> None:
        super().__init__()
        self.state = DiagramState(diagram_id="d", ast=FlowchartAst())

    @initialize(source=st.sampled_from(["ops", "mermaid"]))
    def seed(self, source: str) -> None:
        if source == "mermaid":
            self.state = DiagramState(diagram_id="d", ast=parse_flowchart(FLOW_SEED_TEXT))
            return
        self.run_batch([op_dict("flow_add_node", node_id=n, label="N") for n in NODES[:4]])
        self.run_batch([op_dict("flow_add_edge", edge_id="e:1", from_node_id="n:a",
                                to_node_id="n:b")])  # fmt: skip

    @rule(op=flow_op)
    def single(self, op: dict[str, Any]) -> None:
        self.run_batch([op])

    @rule(ops=st.lists(flow_op, max_size=4))
    def batch(self, ops: list[dict[str, Any]]) -> None:
        self.run_batch(ops)

    @invariant()
    def no_dangling_refs_and_exportable(self) -> None:
        ast = self.state.ast
        assert isinstance(ast, FlowchartAst)
        for e in ast.edges.values():
            assert ast.end_kind(e.from_node_id) and ast.end_kind(e.to_node_id)
            for sg_end in {e.from_node_id, e.to_node_id} & set(ast.subgraphs):
                assert node_name_problem(ast.subgraphs[sg_end].mermaid_id) is None
        owners: dict[str, str] = {}
        parents: dict[str, str] = {}
        for sid, sg in ast.subgraphs.items():
            for n in sg.node_ids:
                assert n in ast.nodes and n not in owners
                owners[n] = sid
            for child in sg.subgraph_ids:
                assert child in ast.subgraphs and child not in parents
                parents[child] = sid
        for sid in ast.subgraphs:  # nesting has no loop
            seen, current = set(), sid
            while current in parents:
                assert current not in seen
                seen.add(current)
                current = parents[current]
        names = [effective_mermaid_id(i, n) for i, n in ast.nodes.items()]
        assert all(n is not None and node_name_problem(n) is None for n in names)
        names += [sg.mermaid_id for sg in ast.subgraphs.values()]
        assert all(subgraph_ident_problem(sg.mermaid_id) is None for sg in ast.subgraphs.values())
        names += [e.mermaid_id for e in ast.edges.values() if e.mermaid_id is not None]
        assert len(set(names)) == len(names)  # nodes, subgraphs and edges share one namespace
        for e in ast.edges.values():
            assert e.mermaid_id is not None or (e.attrs is None and not e.classes)
        for flow_node in ast.nodes.values():
            text = flow_node.label
            assert text == text.strip() and text and '"' not in text
            assert (flow_node.attrs is not None) == (flow_node.shape in ATTRIBUTE_SHAPES)


class SequenceMachine(_OpsMachine):
    def __init__(self) -> None:
        super().__init__()
        self.state = DiagramState(diagram_id="d", ast=SequenceAst())

    @initialize(source=st.sampled_from(["ops", "mermaid"]))
    def seed(self, source: str) -> None:
        participants = [
            op_dict("seq_add_participant", participant_id=p, mermaid_name=p[2:].upper())
            for p in PARTICIPANTS
        ]
        if source == "mermaid":  # the importer names them p:A..p:C: map to the machine's ids
            parsed = parse_sequence(SEQ_SEED_TEXT)
            rename = {f"p:{p[2:].upper()}": p for p in PARTICIPANTS}
            boxes = tuple(
                msgspec.structs.replace(
                    b, participant_ids=tuple(rename[i] for i in b.participant_ids)
                )
                for b in parsed.boxes
            )
            seeded = msgspec.structs.replace(
                parsed,
                participants={rename[i]: p for i, p in parsed.participants.items()},
                boxes=boxes,
            )
            self.state = DiagramState(diagram_id="d", ast=seeded)
            participants = []
        self.run_batch(
            participants
            + [op_dict("seq_add_message", message_id=m, from_participant_id="p:a",
                       to_participant_id="p:b", kind="sync", text="t", order_key=i)
               for i, m in enumerate(MESSAGES[:3])]
        )  # fmt: skip

    @rule(op=seq_op)
    def single(self, op: dict[str, Any]) -> None:
        self.run_batch([op])

    @rule(ops=st.lists(seq_op, max_size=4))
    def batch(self, ops: list[dict[str, Any]]) -> None:
        self.run_batch(ops)

    @invariant()
    def no_dangling_refs_and_exportable(self) -> None:
        ast = self.state.ast
        assert isinstance(ast, SequenceAst)
        for m in ast.messages:
            assert m.from_participant_id in ast.participants
            assert m.to_participant_id in ast.participants
        assert list(ast.messages) == sorted(ast.messages, key=lambda m: (m.order_key, m.message_id))
        for note in ast.notes:
            assert note.participant_ids and set(note.participant_ids) <= set(ast.participants)
        for activation in ast.activations:
            assert activation.participant_id in ast.participants
        names = [p.mermaid_name for p in ast.participants.values()]
        assert len(set(names)) == len(names)
        order = list(ast.participants)
        boxed = [pid for box in ast.boxes for pid in box.participant_ids]
        assert len(set(boxed)) == len(boxed) and set(boxed) <= set(order)
        assert all(box.participant_ids for box in ast.boxes)
        assert boxed == sorted(boxed, key=order.index)  # boxes in participant order
        for box in ast.boxes:  # and each one a consecutive run
            first = order.index(box.participant_ids[0])
            assert list(box.participant_ids) == order[first : first + len(box.participant_ids)]
        timeline = sorted(
            [(m.order_key, m.message_id) for m in ast.messages]
            + [(n.order_key, n.note_id) for n in ast.notes]
        )
        notes = frozenset(n.note_id for n in ast.notes)
        tree = thaw_blocks(ast.blocks)
        check_blocks(tree, [item_id for _, item_id in timeline], notes=notes)
        assert tree == thaw_blocks(ast.blocks)  # already settled: nothing left to adopt


TestFlowchartOps = FlowchartMachine.TestCase
TestFlowchartOps.settings = SETTINGS
TestSequenceOps = SequenceMachine.TestCase
TestSequenceOps.settings = SETTINGS


WT_NODES = ["wn:1", "wn:2", "wn:3"]
wt_node = st.sampled_from(WT_NODES)
wt_kind = st.sampled_from(["next", "detail", "a/b"])
walkthrough_op = st.one_of(
    st.builds(lambda t: op_dict("set_title", title=t), st.sampled_from(["T", "U"])),
    st.builds(lambda n, t, r: op_dict("add_node", node_id=n, title=t, refs=r),
              wt_node, st.sampled_from(["a", "b"]),
              maybe(st.lists(st.sampled_from(["d:x/flow/node/n:a", "bad"]), max_size=2))),
    st.builds(lambda n, b, s: op_dict("update_node", node_id=n, body_md=b, status=s),
              wt_node, maybe(st.just("body")), maybe(st.just("done"))),
    st.builds(lambda n: op_dict("remove_node", node_id=n), wt_node),
    st.builds(lambda a, b, k, lab: op_dict("add_edge", from_node_id=a, to_node_id=b, kind=k,
                                           label=lab),
              wt_node, wt_node, wt_kind, maybe(st.just("then"))),
    st.builds(lambda a, b, k, lab: op_dict("update_edge", from_node_id=a, to_node_id=b, kind=k,
                                           label=lab),
              wt_node, wt_node, wt_kind, maybe(st.just("later"))),
    st.builds(lambda a, b, k: op_dict("remove_edge", from_node_id=a, to_node_id=b, kind=k),
              wt_node, wt_node, wt_kind),
)  # fmt: skip


def walkthrough_objects(walkthrough: Walkthrough) -> dict[str, Any]:
    """Every pseudo-ref of a walkthrough with its value."""
    wid = walkthrough.walkthrough_id
    objects: dict[str, Any] = {f"w:{wid}/meta": walkthrough.title}
    objects.update({f"w:{wid}/node/{n.node_id}": n for n in walkthrough.nodes})
    objects.update(
        {f"w:{wid}/edge/{e.from_node_id}/{e.to_node_id}/{e.kind}": e for e in walkthrough.edges}
    )
    return objects


class WalkthroughMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.state = WalkthroughState(walkthrough=Walkthrough(walkthrough_id="w", title="T"))

    @rule(ops=st.lists(walkthrough_op, max_size=4))
    def batch(self, ops: list[dict[str, Any]]) -> None:
        before = self.state
        try:
            after, outcome = before.apply(before.rev, convert_walkthrough_ops(ops))
        except NereidError as error:
            event(f"refused: {error.message[:40]}")
            return
        assert after.rev == (before.rev + 1 if ops else before.rev) == outcome.new_rev
        old, new = walkthrough_objects(before.walkthrough), walkthrough_objects(after.walkthrough)
        assert outcome.delta.to_json() == {
            "added": sorted(set(new) - set(old)),
            "removed": sorted(set(old) - set(new)),
            "updated": sorted(k for k in set(old) & set(new) if old[k] != new[k]),
        }
        self.state = after

    @invariant()
    def edges_join_existing_nodes(self) -> None:
        walkthrough = self.state.walkthrough
        node_ids = [n.node_id for n in walkthrough.nodes]
        assert len(set(node_ids)) == len(node_ids)
        keys = [(e.from_node_id, e.to_node_id, e.kind) for e in walkthrough.edges]
        assert len(set(keys)) == len(keys)
        for source, target, kind in keys:
            assert source in node_ids and target in node_ids and kind and "/" not in kind


TestWalkthroughOps = WalkthroughMachine.TestCase
TestWalkthroughOps.settings = SETTINGS
