"""The shipped demo session: loads cleanly, shows off the model, leaves nothing behind."""

from __future__ import annotations

import pytest

from nereid.model import (
    FlowchartAst,
    SequenceAst,
    StateAst,
    iter_blocks,
    ref_exists,
    xref_status_in,
)
from nereid.store.demo import (
    demo_files,
    demo_folder,
    fallback_demo_session,
    load_demo_result,
    load_demo_session,
)
from nereid.store.files import FolderFiles
from nereid.store.session_io import load_session, save_session


def test_demo_loads_without_issues_or_writes() -> None:
    files = demo_files()
    result = load_session(files)
    assert result.issues == ()
    assert files.log == []
    assert load_demo_session() == result.session
    assert load_demo_result().session.session_id == "s:nereid-shop"


def _has_cycle(ast: FlowchartAst) -> bool:
    graph: dict[str, list[str]] = {}
    for edge in ast.edges.values():
        graph.setdefault(edge.from_node_id, []).append(edge.to_node_id)
    state: dict[str, int] = {}

    def visit(node: str) -> bool:
        state[node] = 1
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1 or (nxt not in state and visit(nxt)):
                return True
        state[node] = 2
        return False

    return any(node not in state and visit(node) for node in list(graph))


def test_demo_is_a_showcase() -> None:
    session = load_demo_session()
    flows = {k: d.ast for k, d in session.diagrams.items() if isinstance(d.ast, FlowchartAst)}
    seqs = {k: d.ast for k, d in session.diagrams.items() if isinstance(d.ast, SequenceAst)}
    assert len(flows) >= 4 and len(seqs) >= 3
    states = [d.ast for d in session.diagrams.values() if isinstance(d.ast, StateAst)]
    assert len(states) == 1 and any(s.composite for s in states[0].states.values())
    state_links = [
        x
        for x in session.xrefs.values()
        if "order-states" in (x.from_ref.diagram_id, x.to_ref.diagram_id)
    ]
    linked = {x.to_ref.diagram_id for x in state_links}
    assert {"order-flow", "checkout-seq"} <= linked
    assert sum(_has_cycle(ast) for ast in flows.values()) >= 2
    assert any(ast.subgraphs and ast.class_defs for ast in flows.values())
    assert any(node.style for ast in flows.values() for node in ast.nodes.values())
    assert any(edge.style for ast in flows.values() for edge in ast.edges.values())
    assert all(ast.notes for ast in seqs.values())
    assert any(p.alias for ast in seqs.values() for p in ast.participants.values())
    assert any(p.role == "actor" for ast in seqs.values() for p in ast.participants.values())
    assert any(ast.activations for ast in seqs.values())
    assert any(m.activation for ast in seqs.values() for m in ast.messages)
    kinds = {b.kind for ast in seqs.values() for b in iter_blocks(ast.blocks)}
    assert {"alt", "opt", "loop", "par", "critical", "break", "rect"} <= kinds
    # The index links (nav xrefs) to every other diagram.
    nav_targets = {
        x.to_ref.diagram_id for x in session.xrefs.values() if x.from_ref.diagram_id == "index"
    }
    assert nav_targets == set(session.diagrams) - {"index"}
    statuses = {k: xref_status_in(session.diagrams, x) for k, x in session.xrefs.items()}
    assert [k for k, s in statuses.items() if s != "ok"] == ["x:giftwrap"]
    (walkthrough,) = session.walkthroughs.values()
    assert len(walkthrough.nodes) >= 5
    for node in walkthrough.nodes:
        assert node.refs and all(ref_exists(session.diagrams, ref) for ref in node.refs)


def test_demo_survives_a_save_and_reload() -> None:
    session = load_demo_session()
    files = demo_files()
    save_session(files, session)
    assert load_session(files).session == session


def test_demo_folder_is_removed_on_exit() -> None:
    with demo_folder() as folder:
        assert folder.name.startswith("nereid-demo-session-")
        assert load_session(FolderFiles(folder)).session == load_demo_session()
    assert not folder.exists()
    with pytest.raises(RuntimeError), demo_folder() as failing:
        (failing / "extra.txt").write_text("made during the demo")
        raise RuntimeError("the demo crashed")
    assert not failing.exists()


def test_fallback_session_is_consistent() -> None:
    session = fallback_demo_session()
    statuses = {k: xref_status_in(session.diagrams, x) for k, x in session.xrefs.items()}
    assert statuses == {"x:1": "ok", "x:2": "dangling_to"}
    files = demo_files()
    files.files.clear()
    save_session(files, session)
    assert load_session(files).session == session
