"""Stable ids across flowchart re-imports (mermaid.md §6.3, R03, R05, editing scenarios)."""

from __future__ import annotations

import msgspec

from nereid.mermaid.flowchart import export_flowchart, parse_flowchart
from nereid.mermaid.reconcile import FlowEdgeHint, FlowIdHints, reconcile_flowchart
from nereid.model.flowchart import FlowchartAst


def reimport(previous: FlowchartAst, text: str) -> FlowchartAst:
    return reconcile_flowchart(parse_flowchart(text), FlowIdHints.from_ast(previous))


def test_r03_text_link_style_wins_over_a_null_sidecar_style() -> None:
    hints = FlowIdHints(edges=[FlowEdgeHint("e:ab", "n:a", "n:b", "x", None)])
    ast = reconcile_flowchart(
        parse_flowchart("flowchart\na -->|x| b\nlinkStyle 0 stroke:red"), hints
    )
    assert list(ast.edges) == ["e:ab"]
    assert ast.edges["e:ab"].style == "stroke:red"


def test_r05_node_keeps_its_stable_id_and_mermaid_id() -> None:
    hints = FlowIdHints(by_mermaid_id={"authz": "n:authorize"})
    ast = reconcile_flowchart(parse_flowchart("flowchart\nauthz[Authorize] --> done"), hints)
    assert list(ast.nodes) == ["n:authorize", "n:done"]
    assert ast.nodes["n:authorize"].mermaid_id == "authz"
    edge = ast.edges["e:0001"]
    assert (edge.from_node_id, edge.to_node_id) == ("n:authorize", "n:done")
    assert export_flowchart(ast).splitlines()[1] == "authz[Authorize]"


def test_inserting_a_line_before_others_keeps_every_edge_id() -> None:
    first = parse_flowchart("flowchart\na --> b\nb -->|go| c\nc --> a")
    second = reimport(first, "flowchart\nz --> a\na --> b\nb -->|go| c\nc --> a")
    for edge_id, edge in first.edges.items():
        assert second.edges[edge_id] == edge
    # The new edge gets a fresh id above every known and parsed one (e:0004 was parsed).
    assert [k for k in second.edges if k not in first.edges] == ["e:0005"]


def test_moving_and_deleting_lines_keeps_the_remaining_ids() -> None:
    first = parse_flowchart("flowchart\na --> b\nb --> c\nc --> d")
    second = reimport(first, "flowchart\nc --> d\na --> b")
    assert {k: (e.from_node_id, e.to_node_id) for k, e in second.edges.items()} == {
        "e:0003": ("n:c", "n:d"),
        "e:0001": ("n:a", "n:b"),
    }
    # A later new edge does not take the deleted e:0002 either.
    third = reimport(second, "flowchart\nc --> d\na --> b\nd --> a")
    assert "e:0002" not in third.edges
    assert list(third.edges)[-1] == "e:0004"


def test_duplicate_edges_match_in_order_and_changed_edges_miss() -> None:
    first = parse_flowchart("flowchart\na --> b\na --> b\nb -->|x| c")
    hints = FlowIdHints.from_ast(first)
    renamed = msgspec.structs.replace(
        hints,
        edges=[msgspec.structs.replace(h, edge_id=f"e:{h.edge_id[2:]}x") for h in hints.edges],
    )
    ast = reconcile_flowchart(parse_flowchart("flowchart\na --> b\nb -->|y| c\na --> b"), renamed)
    # b→c changed its label: no match, and its parsed id e:0002 is free, so it keeps it.
    assert list(ast.edges) == ["e:0001x", "e:0002", "e:0002x"]


def test_notes_and_node_ids_follow_the_mermaid_id() -> None:
    first = reconcile_flowchart(
        parse_flowchart("flowchart\nauthz --> done"),
        FlowIdHints(by_mermaid_id={"authz": "n:auth"}, notes={"n:auth": "checks tokens"}),
    )
    assert first.nodes["n:auth"].note == "checks tokens"
    again = reimport(first, "flowchart\nstart --> authz\nauthz --> done")
    assert again.nodes["n:auth"].note == "checks tokens"
    # The old edge auth→done keeps e:0001 though it is now written second.
    assert (again.edges["e:0001"].from_node_id, again.edges["e:0001"].to_node_id) == (
        "n:auth",
        "n:done",
    )


def test_hint_clash_falls_back_to_parsed_or_reconcile_suffix() -> None:
    hints = FlowIdHints(by_mermaid_id={"a": "n:b", "b": "n:b"})
    ast = reconcile_flowchart(parse_flowchart("flowchart\na --> b"), hints)
    # `a` takes n:b; `b`'s candidate is taken and its parsed id too → suffix.
    assert list(ast.nodes) == ["n:b", "n:b:reconcile:0001"]
    assert ast.nodes["n:b:reconcile:0001"].mermaid_id == "b"


def test_subgraph_ids_survive() -> None:
    first = parse_flowchart("flowchart\nsubgraph api [API]\na\nend")
    first = msgspec.structs.replace(first, subgraphs={"sg:backend": first.subgraphs["sg:api"]})
    again = reimport(first, "flowchart\nb\nsubgraph api [API]\na\nend")
    assert list(again.subgraphs) == ["sg:backend"]


def test_reimport_of_own_export_is_identity() -> None:
    text = "flowchart LR\na[A] -->|x| b\nb --> c\nc --> a\nlinkStyle 1 stroke:red"
    first = reconcile_flowchart(parse_flowchart(text), FlowIdHints(by_mermaid_id={"a": "n:alpha"}))
    assert reimport(first, export_flowchart(first)) == first


def test_edges_to_a_renamed_subgraph_follow_its_stable_id() -> None:
    first = parse_flowchart("flowchart\nsubgraph api [API]\na\nend\nx --> api")
    first = msgspec.structs.replace(first, subgraphs={"sg:backend": first.subgraphs["sg:api"]})
    again = reimport(first, "flowchart\nsubgraph api [API v2]\na\nend\nx --> api\napi --> x")
    assert [(e.from_node_id, e.to_node_id) for e in again.edges.values()] == [
        ("n:x", "sg:backend"),
        ("sg:backend", "n:x"),
    ]
