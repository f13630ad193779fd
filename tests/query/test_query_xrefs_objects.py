"""xref.list / xref.neighbors (queries.md §14–§15, §16 D1) and object.read (mcp-tools §10.1)."""

from __future__ import annotations

import msgspec
import pytest

from nereid.errors import NereidError
from nereid.mermaid import parse_mermaid
from nereid.mermaid.flowchart import parse_flowchart
from nereid.model import Diagram, FlowSubgraph, SeqBlock, SeqNote, SeqSection
from nereid.model.refs import ref_enc_hook
from nereid.query import object_read, xref_list, xref_neighbors
from tests.query.query_builders import flowchart, message, scope, sequence, xref

CHECK = "d:auth/flow/node/n:check"
DENY = "d:auth/flow/node/n:deny"
M2 = "d:login/seq/message/m:0002"
M99 = "d:login/seq/message/m:0099"

AUTH = flowchart(
    "auth", [("n:start", "n:check"), ("n:check", "n:deny")], labels={"n:check": "Check token"}
)
LOGIN = sequence(
    "login",
    [message("m:0001", "p:client", "p:api", 1000), message("m:0002", "p:api", "p:db", 2000)],
    blocks=(
        SeqBlock(
            block_id="b:0000",
            kind="alt",
            header="user exists",
            sections=(
                SeqSection(
                    section_id="sec:0000:00", kind="main", header="yes", message_ids=("m:0002",)
                ),
                SeqSection(section_id="sec:0000:01", kind="else", header="no"),
            ),
        ),
    ),
)
SESSION = scope(
    AUTH,
    LOGIN,
    xrefs={
        "x:2": xref(DENY, M99, kind="todo"),
        "x:1": xref(CHECK, M2, kind="implements", label="lookup"),
        "x:3": xref("d:gone/flow/node/a", "d:gone/flow/node/b", kind="todo", label="both"),
        "x:4": xref("d:gone/flow/node/a", CHECK, kind="Implements"),
    },
)


def _ids(**filters) -> list[str]:
    return [summary.xref_id for summary in xref_list(SESSION, **filters).xrefs]


def test_xref_list_statuses_and_shape() -> None:
    result = xref_list(SESSION, dangling_only=True, limit=1)
    assert msgspec.json.encode(result, enc_hook=ref_enc_hook) == (  # refs are their text
        b'{"xrefs":[{"xref_id":"x:2","from":"d:auth/flow/node/n:deny",'
        b'"to":"d:login/seq/message/m:0099","kind":"todo","label":null,"status":"dangling_to"}]}'
    )
    statuses = {s.xref_id: s.status for s in xref_list(SESSION).xrefs}
    assert statuses == {
        "x:1": "ok",
        "x:2": "dangling_to",
        "x:3": "dangling_both",
        "x:4": "dangling_from",
    }


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({}, ["x:1", "x:2", "x:3", "x:4"]),
        ({"status": ""}, ["x:1", "x:2", "x:3", "x:4"]),
        ({"status": "dangling_*"}, ["x:2", "x:3", "x:4"]),
        ({"status": "ok"}, ["x:1"]),
        ({"status": "dangling_from"}, ["x:4"]),
        ({"kind": "implements"}, ["x:1"]),
        ({"kind": ""}, ["x:1", "x:2", "x:3", "x:4"]),
        ({"from_ref": DENY}, ["x:2"]),
        ({"to_ref": CHECK}, ["x:4"]),
        ({"involves_ref": CHECK}, ["x:1", "x:4"]),
        ({"label_contains": "o"}, ["x:1", "x:3"]),
        ({"label_contains": "Look"}, []),
        ({"dangling_only": True, "kind": "todo", "limit": 5}, ["x:2", "x:3"]),
        ({"limit": 0}, []),
    ],
)
def test_xref_list_filters(filters: dict, expected: list[str]) -> None:
    assert _ids(**filters) == expected


def test_xref_list_errors() -> None:
    with pytest.raises(NereidError) as info:
        xref_list(SESSION, status="broken", from_ref="bad")
    assert (info.value.message, info.value.data) == (
        "invalid status (expected ok|dangling_from|dangling_to|dangling_both|dangling_*)",
        {"status": "broken"},
    )
    with pytest.raises(NereidError) as info:
        xref_list(SESSION, involves_ref="d:x")
    assert (info.value.message, info.value.data) == (
        "invalid involves_ref: object ref is missing category path",
        {"involves_ref": "d:x"},
    )


def test_xref_neighbors_directions_and_order() -> None:
    assert xref_neighbors(SESSION, object_ref=M2).neighbors == [CHECK]
    assert xref_neighbors(SESSION, object_ref=CHECK, direction="out").neighbors == [M2]
    assert xref_neighbors(SESSION, object_ref=CHECK).neighbors == [
        "d:gone/flow/node/a",
        "d:login/seq/message/m:0002",
    ]
    assert xref_neighbors(SESSION, object_ref="d:none/x/y").neighbors == []
    # §16 D1: structural ref order — `demo` before `demo-x`, unlike string order.
    linked = scope(
        xrefs={
            "a": xref("d:hub/flow/node/h", "d:demo-x/flow/node/n"),
            "b": xref("d:hub/flow/node/h", "d:demo/flow/node/n"),
            "c": xref("d:demo/flow/node/n", "d:hub/flow/node/h"),
        }
    )
    assert xref_neighbors(linked, object_ref="d:hub/flow/node/h").neighbors == [
        "d:demo/flow/node/n",
        "d:demo-x/flow/node/n",
    ]
    with pytest.raises(NereidError) as info:
        xref_neighbors(SESSION, object_ref=CHECK, direction="")
    assert (info.value.message, info.value.data) == (
        "invalid direction (expected out|in|both)",
        {"direction": ""},
    )


def test_object_read_reference_types() -> None:
    result = object_read(
        SESSION,
        object_refs=[
            "d:login/seq/message/m:0002",
            "d:login/seq/block/b:0000",
            CHECK,
            "d:auth/flow/edge/e:0001",
            CHECK,
        ],
    )
    decoded = msgspec.json.decode(msgspec.json.encode(result))
    assert [entry["object_ref"] for entry in decoded["objects"]][-1] == CHECK
    assert decoded["objects"][0]["object"] == {
        "type": "seq_message",
        "from_participant_id": "p:api",
        "to_participant_id": "p:db",
        "kind": "sync",
        "arrow": None,
        "text": "m:0002",
        "order_key": 2000,
        "display": "m:0002",
        "from_central": False,
        "to_central": False,
        "wrap": None,
    }
    assert decoded["objects"][1]["object"] == {
        "type": "seq_block",
        "kind": "alt",
        "header": "user exists",
        "section_ids": ["sec:0000:00", "sec:0000:01"],
        "child_block_ids": [],
    }
    assert decoded["objects"][2]["object"] == {
        "type": "flow_node",
        "label": "Check token",
        "shape": "rect",
        "mermaid_id": None,
        "display": "Check token",
    }
    assert decoded["objects"][3]["object"] == {
        "type": "flow_edge",
        "from_node_id": "n:start",
        "to_node_id": "n:check",
        "label": None,
        "connector": None,
        "style": None,
        "mermaid_id": None,
        "attrs": None,
        "classes": [],
        "display": None,
    }
    section = object_read(SESSION, object_ref="d:login/seq/section/sec:0000:00").objects[0]
    assert msgspec.json.decode(msgspec.json.encode(section.object)) == {
        "type": "seq_section",
        "kind": "main",
        "header": "yes",
        "message_ids": ["m:0002"],
        "note_ids": [],
    }


def test_object_read_added_categories() -> None:
    flow = flowchart(
        "f",
        [("a", "b")],
        subgraphs={"sg:x": FlowSubgraph(mermaid_id="x", title="X", node_ids=("a",))},
    )
    note = SeqNote(
        note_id="note:1", placement="left_of", participant_ids=("p:a",), text="hi", order_key=5
    )
    seq = sequence("s", [message("m:1", "p:a", "p:b", 1000)], notes=(note,))
    session = scope(flow, seq)
    objects = object_read(
        session, object_refs=["d:f/flow/subgraph/sg:x", "d:s/seq/note/note:1"]
    ).objects
    assert msgspec.json.decode(msgspec.json.encode(objects[0].object)) == {
        "type": "flow_subgraph",
        "mermaid_id": "x",
        "title": "X",
        "direction": None,
        "node_ids": ["a"],
        "subgraph_ids": [],
        "classes": [],
        "style": None,
        "display": "X",
    }
    assert msgspec.json.decode(msgspec.json.encode(objects[1].object))["placement"] == "left_of"


def test_object_read_edge_v11_fields() -> None:
    ast = parse_flowchart(
        "flowchart\n  a e1@==> b\n  b --> a\n  e1@{ animate: true, curve: linear }\n"
        "  class e1 hot,cold\n"
    )
    diagram = Diagram(diagram_id="f", name="f", kind="flowchart", ast=ast)
    objects = object_read(
        scope(diagram), object_refs=["d:f/flow/edge/e:e1", "d:f/flow/edge/e:0002"]
    )
    named, plain = (msgspec.json.decode(msgspec.json.encode(o.object)) for o in objects.objects)
    assert named == {
        "type": "flow_edge",
        "from_node_id": "n:a",
        "to_node_id": "n:b",
        "label": None,
        "connector": "==>",
        "style": None,
        "mermaid_id": "e1",
        "attrs": {"animate": "true", "curve": "linear"},
        "classes": ["hot", "cold"],
        "display": None,
    }
    assert (plain["mermaid_id"], plain["attrs"], plain["classes"]) == (None, None, [])


@pytest.mark.parametrize(
    ("kwargs", "code", "message", "data"),
    [
        (
            {"object_ref": CHECK, "object_refs": [CHECK]},
            "invalid_params",
            "provide either object_ref or object_refs, not both",
            None,
        ),
        ({}, "invalid_params", "object_ref or object_refs is required", None),
        ({"object_refs": []}, "invalid_params", "object_refs must not be empty", None),
        (
            {"object_refs": [CHECK, "bad"]},
            "invalid_params",
            "invalid object_ref: object ref must start with 'd:'",
            {"object_ref": "bad"},
        ),
        (
            {"object_ref": "d:nope/flow/node/a"},
            "not_found",
            "diagram not found",
            {"diagram_id": "nope", "object_ref": "d:nope/flow/node/a"},
        ),
        (
            {"object_ref": "d:auth/seq/message/m:1"},
            "invalid_params",
            "unsupported category for diagram kind",
            {
                "object_ref": "d:auth/seq/message/m:1",
                "diagram_kind": "Flowchart",
                "category": ["seq", "message"],
            },
        ),
        (
            {"object_ref": "d:auth/flow/note/n:check"},
            "invalid_params",
            "unsupported category for diagram kind",
            {
                "object_ref": "d:auth/flow/note/n:check",
                "diagram_kind": "Flowchart",
                "category": ["flow", "note"],
            },
        ),
        (
            {"object_ref": "d:login/seq/block/b:9"},
            "not_found",
            "seq block not found",
            {"object_ref": "d:login/seq/block/b:9"},
        ),
        (
            {"object_ref": "d:auth/flow/edge/e:9"},
            "not_found",
            "flow edge not found",
            {"object_ref": "d:auth/flow/edge/e:9"},
        ),
    ],
)
def test_object_read_errors(kwargs: dict, code: str, message: str, data: dict | None) -> None:
    with pytest.raises(NereidError) as info:
        object_read(SESSION, **kwargs)
    assert (info.value.category, info.value.message, info.value.data) == (code, message, data)


def test_object_read_shows_text_as_the_drawing_does() -> None:
    """`display` is the stored text as a reader sees it (issue 17): marks, entities, breaks."""
    flow = parse_mermaid(
        'flowchart TD\n  a["`**Pay** #quot;now#quot;`"] -->|"fa:fa-check ok<br/>done"| b\n'
        '  subgraph g ["`_Group_`"]\n    b\n  end\n'
    )
    seq = parse_mermaid(
        "sequenceDiagram\n  participant P as Pay #9829;\n  P->>P: `**go**`\n  Note over P: a<br>b\n"
    )
    session = scope(
        Diagram(diagram_id="f", name="f", kind="flowchart", ast=flow),
        Diagram(diagram_id="s", name="s", kind="sequence", ast=seq),
    )
    refs = ["d:f/flow/node/n:a", "d:f/flow/edge/e:0001", "d:f/flow/subgraph/sg:g"]
    refs += ["d:s/seq/participant/p:P", "d:s/seq/message/m:0001", "d:s/seq/note/note:0001"]
    found = object_read(session, object_refs=refs).objects
    shown = [msgspec.json.decode(msgspec.json.encode(o.object))["display"] for o in found]
    assert shown == ['Pay "now"', ":check: ok\ndone", "Group", "Pay ♥", "go", "a\nb"]
    assert msgspec.json.decode(msgspec.json.encode(found[0].object))["label"] == (
        "`**Pay** #quot;now#quot;`"
    )
