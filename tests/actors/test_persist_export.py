"""Big diagrams are exported for saving in a worker process: same texts as in-process,
export errors come back as that item's problem, small diagrams stay here."""

from __future__ import annotations

import msgspec
import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.actors import persist_export
from nereid.actors.persist_export import (
    BIG_PAYLOAD,
    PIECE_ITEMS,
    Pieces,
    encode_in_pieces,
    export_big_in_worker,
)
from nereid.mermaid import parse_flowchart
from nereid.model import Diagram, FlowchartAst, FlowNode
from nereid.model.sequence import SeqMessage, SeqParticipant, SequenceAst
from nereid.offload.jobs import from_pieces
from nereid.store.diagram_files import encode_diagram


def _flowchart(diagram_id: str, nodes: int) -> Diagram:
    text = "flowchart TD\n" + "".join(f"  n{i}[Node {i}] --> n{i + 1}\n" for i in range(nodes))
    return Diagram(
        diagram_id=diagram_id, name=diagram_id, kind="flowchart", ast=parse_flowchart(text), rev=3
    )


async def test_big_diagrams_are_exported_in_a_worker_and_small_ones_left_here() -> None:
    big, small = _flowchart("big", 1500), _flowchart("small", 5)
    assert len(msgspec.msgpack.encode(big.ast)) >= BIG_PAYLOAD
    bad_ast = msgspec.structs.replace(
        big.ast, nodes={**big.ast.nodes, "n:x": FlowNode(label="x", shape="no-such-shape")}
    )
    bad = msgspec.structs.replace(big, diagram_id="bad", ast=bad_ast)
    done = await export_big_in_worker([big, small, bad])
    assert set(done) == {"big", "bad"}
    assert done["big"] == encode_diagram(big)
    problem = done["bad"]
    assert isinstance(problem, Exception) and "no-such-shape" in str(problem)


async def test_workers_run_at_a_lower_priority_than_the_event_loop() -> None:
    """A worker takes its CPU from other background work, not from the loop's process."""
    import os

    import trio_parallel

    from nereid.offload import WORKER_NICENESS
    from nereid.offload.jobs import call_encoded

    mine = os.getpriority(os.PRIO_PROCESS, 0)
    payload = msgspec.msgpack.encode(os.PRIO_PROCESS)
    theirs = await trio_parallel.run_sync(call_encoded, os.getpriority, int, payload, 0)
    assert theirs == min(19, mine + WORKER_NICENESS)


# -- the encoding in pieces -----------------------------------------------------------------

_LABELS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)


@settings(max_examples=25, deadline=None)
@given(
    labels=st.lists(_LABELS, max_size=14),
    texts=st.lists(_LABELS, max_size=14),
    piece=st.integers(1, 4),
)
async def test_an_ast_in_pieces_reads_back_equal(
    labels: list[str], texts: list[str], piece: int
) -> None:
    """Whatever the sizes around the piece size, the pieces rebuild the same AST (dict
    fields in their order, tuple fields in theirs)."""
    flow = FlowchartAst(
        direction="LR",
        nodes={f"n:{i}": FlowNode(label=label) for i, label in enumerate(labels)},
        class_defs={f"c{i}": "fill:#f00" for i in range(len(texts))},
    )
    sequence = SequenceAst(
        participants={name: SeqParticipant(mermaid_name=name) for name in ("a", "b")},
        messages=tuple(
            SeqMessage(
                message_id=f"m:{i}",
                from_participant_id="a",
                to_participant_id="b",
                kind="sync",
                text=text,
                order_key=i,
            )
            for i, text in enumerate(texts)
        ),
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(persist_export, "PIECE_ITEMS", piece)
        for ast in (flow, sequence):
            skeleton, pieces = await encode_in_pieces(ast)
            again = from_pieces(type(ast), skeleton, pieces)
            assert again == ast
            assert list(msgspec.structs.asdict(again)) == list(msgspec.structs.asdict(ast))
            for name, parts in pieces:
                assert all(len(msgspec.msgpack.decode(p)) <= piece for p in parts), name


async def test_a_big_ast_is_encoded_in_steps_that_let_others_run() -> None:
    """Encoding a 20-piece AST for the worker yields to the event loop between pieces."""
    big = _flowchart("big", 20 * PIECE_ITEMS).ast
    turns = 0
    done = False

    async def other() -> None:
        nonlocal turns
        while not done:
            turns += 1
            await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(other)
        await trio.lowlevel.checkpoint()
        before = turns
        skeleton, pieces = await encode_in_pieces(big)
        done = True
    assert turns - before >= 20
    assert from_pieces(FlowchartAst, skeleton, pieces) == big


_EDITS = st.lists(
    st.tuples(st.sampled_from(["add", "update", "remove"]), st.integers(0, 40)),
    min_size=1,
    max_size=6,
)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4), st.lists(_EDITS, min_size=1, max_size=5))
async def test_kept_pieces_give_the_bytes_a_fresh_encoding_gives(
    piece: int, saves: list[list[tuple[str, int]]]
) -> None:
    """Saves one after another, each after a few edits: the pieces sent are byte for byte
    those of an encoding from scratch, and rebuild the AST (adds, updates and removes move
    items across piece borders)."""
    ast = _flowchart("d", 12).ast
    held: dict[str, list[tuple[tuple[object, ...], tuple[object, ...], bytes]]] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(persist_export, "PIECE_ITEMS", piece)
        for edits in saves:
            nodes = dict(ast.nodes)
            for kind, number in edits:
                node_id = f"n:n{number}"
                if kind == "add":
                    nodes[node_id] = FlowNode(label=f"new {number}")
                elif kind == "update" and node_id in nodes:
                    nodes[node_id] = msgspec.structs.replace(nodes[node_id], label="changed")
                else:
                    nodes.pop(node_id, None)
            ast = msgspec.structs.replace(ast, nodes=nodes)
            kept = await encode_in_pieces(ast, held)
            assert kept == await encode_in_pieces(ast)
            assert from_pieces(FlowchartAst, *kept) == ast


async def test_an_add_to_a_big_flowchart_encodes_one_piece_again() -> None:
    ast = _flowchart("big", 5 * PIECE_ITEMS).ast
    held: dict[str, list[tuple[tuple[object, ...], tuple[object, ...], bytes]]] = {}
    _, first = await encode_in_pieces(ast, held)
    grown = msgspec.structs.replace(ast, nodes={**ast.nodes, "n:new": FlowNode(label="new")})
    _, second = await encode_in_pieces(grown, held)
    (name, before), (again, after) = first[0], second[0]
    assert name == again == "nodes"
    reused = [a is b for a, b in zip(before, after, strict=False)]
    assert reused[:-1] == [True] * (len(before) - 1) and not reused[-1]


async def test_pieces_are_kept_only_for_diagrams_big_enough_to_be_exported_here() -> None:
    """A diagram that is (or became) too small for the worker keeps no pieces, so the
    persister holds about the encoded size of the big diagrams, not of the whole folder."""
    pieces = Pieces()
    big, small = _flowchart("big", 1500), _flowchart("small", 5)
    await export_big_in_worker([big, small], pieces)
    assert "big" in pieces and "small" not in pieces
    shrunk = msgspec.structs.replace(big, ast=_flowchart("big", 5).ast)
    await export_big_in_worker([shrunk], pieces)
    assert "big" not in pieces
    pieces.of("gone")
    pieces.forget("gone")
    assert "gone" not in pieces
