"""`diagram.get_ast`'s view shows the Mermaid v11 fields as extra keys beside the contract's.

Key order is not part of it: tool results are sent with keys sorted at every level.
"""

from __future__ import annotations

from typing import Any

import msgspec

from nereid.mermaid.flowchart import parse_flowchart
from nereid.mermaid.sequence import parse_sequence
from nereid.query.ast_view import ast_view

FLOW_CONTRACT_NODE = ["node_id", "label", "shape", "mermaid_id", "note"]
FLOW_CONTRACT_EDGE = ["edge_id", "from_node_id", "to_node_id", "label", "connector", "style"]


def as_json(value: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(value))


def test_flowchart_view_shows_edge_ids_attributes_classes_and_node_attributes() -> None:
    ast = parse_flowchart(
        'flowchart LR\n  u@{ icon: "fa:user", label: "User", h: 60 }\n  u e1@-.-> b\n'
        "  b --> u\n  e1@{ animate: true }\n  class e1 hot\n"
    )
    view = as_json(ast_view(ast))
    user, plain_node = view["nodes"]
    assert set(FLOW_CONTRACT_NODE) <= set(user)  # the contract keys, unchanged
    assert (user["shape"], user["label"]) == ("icon", "User")
    assert user["attrs"] == {"icon": '"fa:user"', "h": "60"}
    assert plain_node["attrs"] is None
    named, plain_edge = view["edges"]
    assert set(FLOW_CONTRACT_EDGE) <= set(named)
    assert (named["edge_id"], named["connector"]) == ("e:e1", "-.->")
    assert (named["mermaid_id"], named["attrs"], named["classes"]) == (
        "e1",
        {"animate": "true"},
        ["hot"],
    )
    assert (plain_edge["mermaid_id"], plain_edge["attrs"], plain_edge["classes"]) == (
        None,
        None,
        [],
    )


def test_sequence_view_shows_boxes() -> None:
    ast = parse_sequence(
        "sequenceDiagram\n  box Aqua Front\n    participant a\n    participant b\n  end\n"
        "  box Back\n    participant c\n  end\n  a->>c: hi\n"
    )
    view = as_json(ast_view(ast))
    assert view["boxes"] == [
        {"participant_ids": ["p:a", "p:b"], "color": "Aqua", "label": "Front"},
        {"participant_ids": ["p:c"], "color": None, "label": "Back"},
    ]
    assert [p["participant_id"] for p in view["participants"]] == ["p:a", "p:b", "p:c"]
    assert as_json(ast_view(parse_sequence("sequenceDiagram\n  a->>b: hi\n")))["boxes"] == []
