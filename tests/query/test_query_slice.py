"""diagram.get_slice (queries.md §13) including subgraph, note and activation centers."""

from __future__ import annotations

import pytest

from nereid.errors import NereidError
from nereid.model import FlowSubgraph, SeqActivation, SeqBlock, SeqNote, SeqSection
from nereid.query import SliceFilters, diagram_get_slice
from tests.query.query_builders import flowchart, message, scope, sequence

AUTH = scope(
    flowchart(
        "auth",
        [("n:start", "n:check"), ("n:check", "n:ok"), ("n:check", "n:deny")],
        edge_ids=["e:0001", "e:0002", "e:0003"],
    ),
    sequence(
        "login",
        [
            message("m:0001", "p:client", "p:api", 1000),
            message("m:0002", "p:api", "p:db", 2000),
        ],
    ),
)


def _node(name: str) -> str:
    return f"d:auth/flow/node/n:{name}"


def test_flowchart_examples() -> None:
    result = diagram_get_slice(AUTH, center_ref=_node("start"))
    assert (result.objects, result.edges) == (
        [_node("check"), _node("start")],
        ["d:auth/flow/edge/e:0001"],
    )
    nodes_only = diagram_get_slice(
        AUTH,
        center_ref=_node("check"),
        filters=SliceFilters(include_categories=[" flow/node ", ""]),
    )
    assert nodes_only.objects == [_node(n) for n in ("check", "deny", "ok", "start")]
    assert nodes_only.edges == []
    no_nodes = diagram_get_slice(
        AUTH, center_ref=_node("check"), filters=SliceFilters(exclude_categories=["flow/node"])
    )
    assert no_nodes.objects == [] and len(no_nodes.edges) == 3
    # depth wins over radius; radius 0 on an edge keeps both endpoints and the edge.
    assert diagram_get_slice(AUTH, center_ref=_node("start"), radius=0, depth=1) == result
    edge = diagram_get_slice(AUTH, center_ref="d:auth/flow/edge/e:0002", radius=0)
    assert (edge.objects, edge.edges) == (
        [_node("check"), _node("ok")],
        ["d:auth/flow/edge/e:0002"],
    )


def test_flowchart_radius_zero_keeps_self_loops_and_parallel_edges() -> None:
    diagram = scope(flowchart("g", [("a", "a"), ("a", "b"), ("b", "a")]))
    node = diagram_get_slice(diagram, center_ref="d:g/flow/node/a", radius=0)
    assert (node.objects, node.edges) == (["d:g/flow/node/a"], ["d:g/flow/edge/e:0001"])
    edge = diagram_get_slice(diagram, center_ref="d:g/flow/edge/e:0002", radius=0)
    assert edge.edges == [f"d:g/flow/edge/e:000{i}" for i in (1, 2, 3)]


def test_flowchart_subgraph_center() -> None:
    subgraphs = {
        "sg:outer": FlowSubgraph(mermaid_id="outer", node_ids=("a",), subgraph_ids=("sg:inner",)),
        "sg:inner": FlowSubgraph(mermaid_id="inner", node_ids=("b",)),
    }
    diagram = scope(flowchart("g", [("a", "b"), ("b", "c"), ("c", "d")], subgraphs=subgraphs))
    inner = diagram_get_slice(diagram, center_ref="d:g/flow/subgraph/sg:inner", radius=0)
    assert inner.objects == ["d:g/flow/node/b", "d:g/flow/subgraph/sg:inner"]
    outer = diagram_get_slice(diagram, center_ref="d:g/flow/subgraph/sg:outer")
    assert outer.objects == [f"d:g/flow/node/{n}" for n in "abc"] + ["d:g/flow/subgraph/sg:outer"]
    assert outer.edges == ["d:g/flow/edge/e:0001", "d:g/flow/edge/e:0002"]
    with pytest.raises(NereidError) as info:
        diagram_get_slice(diagram, center_ref="d:g/flow/subgraph/sg:none")
    assert (info.value.category, info.value.message) == ("not_found", "flow subgraph not found")


def test_sequence_examples() -> None:
    result = diagram_get_slice(AUTH, center_ref="d:login/seq/message/m:0002", radius=0)
    assert result.objects == ["d:login/seq/participant/p:api", "d:login/seq/participant/p:db"]
    assert result.edges == ["d:login/seq/message/m:0002"]
    wide = diagram_get_slice(AUTH, center_ref="d:login/seq/participant/p:db", radius=2)
    assert wide.objects == ["d:login/seq/participant/p:api", "d:login/seq/participant/p:db"]
    assert wide.edges == ["d:login/seq/message/m:0002"]


def test_sequence_blocks_notes_and_activations() -> None:
    alt = SeqBlock(
        block_id="b",
        kind="alt",
        sections=(
            SeqSection(section_id="s0", kind="main", message_ids=("m1",)),
            SeqSection(section_id="s1", kind="else", message_ids=("m2",)),
        ),
        blocks=(
            SeqBlock(
                block_id="b2",
                kind="critical",
                sections=(SeqSection(section_id="s2", kind="main", message_ids=("m2",)),),
            ),
        ),
    )
    note = SeqNote(
        note_id="note:1", placement="over", participant_ids=("p:a", "p:c"), text="t", order_key=1
    )
    act = SeqActivation(activation_id="act:1", participant_id="p:c", active=True, order_key=2)
    diagram = scope(
        sequence(
            "s",
            [message("m1", "p:a", "p:b", 1000), message("m2", "p:b", "p:a", 2000)],
            participants=["p:c"],
            blocks=(alt,),
            notes=(note,),
            activations=(act,),
        )
    )
    depth2 = diagram_get_slice(diagram, center_ref="d:s/seq/block/b", depth=2)
    assert depth2.objects == [
        "d:s/seq/block/b",
        "d:s/seq/block/b2",
        "d:s/seq/section/s0",
        "d:s/seq/section/s1",
        "d:s/seq/section/s2",
    ]
    assert depth2.edges == ["d:s/seq/message/m1", "d:s/seq/message/m2"]
    depth3 = diagram_get_slice(diagram, center_ref="d:s/seq/block/b", depth=3)
    assert "d:s/seq/participant/p:a" in depth3.objects
    around_note = diagram_get_slice(diagram, center_ref="d:s/seq/note/note:1", radius=2)
    assert around_note.objects == [
        "d:s/seq/activation/act:1",
        "d:s/seq/note/note:1",
        "d:s/seq/participant/p:a",
        "d:s/seq/participant/p:c",
    ]
    assert around_note.edges == ["d:s/seq/message/m1", "d:s/seq/message/m2"]
    activation = diagram_get_slice(diagram, center_ref="d:s/seq/activation/act:1", radius=0)
    assert activation.objects == ["d:s/seq/activation/act:1"]


@pytest.mark.parametrize(
    ("kwargs", "code", "message", "data"),
    [
        (
            {"center_ref": "d:auth/flow/node/n:start", "diagram_id": ""},
            "invalid_params",
            "invalid diagram_id: id must not be empty",
            {"diagram_id": ""},
        ),
        (
            {"center_ref": "auth/flow/node/x"},
            "invalid_params",
            "invalid center_ref: object ref must start with 'd:'",
            {"center_ref": "auth/flow/node/x"},
        ),
        (
            {"center_ref": "d:auth/flow/node/n:start", "diagram_id": "login"},
            "invalid_params",
            "center_ref diagram_id does not match diagram_id",
            {"diagram_id": "login", "center_ref_diagram_id": "auth"},
        ),
        (
            {"center_ref": "d:nope/flow/node/x"},
            "not_found",
            "diagram not found",
            {"diagram_id": "nope"},
        ),
        (
            {"center_ref": "d:auth/flow/node/n:x"},
            "not_found",
            "flow node not found",
            {"diagram_id": "auth", "node_id": "n:x"},
        ),
        (
            {"center_ref": "d:auth/flow/edge/e:9"},
            "not_found",
            "flow edge not found",
            {"diagram_id": "auth", "edge_id": "e:9"},
        ),
        (
            {"center_ref": "d:auth/seq/message/m:0001"},
            "invalid_params",
            "center_ref is not a flowchart object",
            {"center_ref": "d:auth/seq/message/m:0001"},
        ),
        (
            {"center_ref": "d:login/flow/node/n:a"},
            "invalid_params",
            "center_ref is not a sequence diagram object",
            {"center_ref": "d:login/flow/node/n:a"},
        ),
        (
            {"center_ref": "d:login/seq/message/m:9"},
            "not_found",
            "seq message not found",
            {"diagram_id": "login", "message_id": "m:9"},
        ),
        (
            {"center_ref": "d:login/seq/section/x"},
            "not_found",
            "seq section not found",
            {"diagram_id": "login", "section_id": "x"},
        ),
    ],
)
def test_slice_errors(kwargs: dict, code: str, message: str, data: dict) -> None:
    with pytest.raises(NereidError) as info:
        diagram_get_slice(AUTH, **kwargs)
    assert (info.value.category, info.value.message, info.value.data) == (code, message, data)
