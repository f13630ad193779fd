"""Drawings are not laid out again for what was drawn before (a reverted edit, notes
toggled back), big ones wait for the app's worker, and a diagram made again after a delete
is drawn."""

from __future__ import annotations

import msgspec

from nereid.actors import protocol as p
from nereid.model.diagram import Diagram
from nereid.model.flowchart import FlowchartAst
from nereid.render import render_diagram
from nereid.ui.drawings import RECENT_DRAWINGS

from .tui_helpers import Screen, big_flowchart_screen, changed


def _relabelled(diagram: Diagram, label: str) -> Diagram:
    ast = diagram.ast
    assert isinstance(ast, FlowchartAst)
    node_id = min(ast.nodes)
    nodes = {**ast.nodes, node_id: msgspec.structs.replace(ast.nodes[node_id], label=label)}
    return msgspec.structs.replace(
        diagram, rev=diagram.rev + 1, ast=msgspec.structs.replace(ast, nodes=nodes)
    )


def test_a_reverted_edit_and_notes_toggled_back_reuse_the_earlier_drawing() -> None:
    screen = Screen()
    vm = screen.vm
    original = vm.session.diagrams["index"]
    first = vm.cells()
    assert first is not None
    edited = _relabelled(original, "Edited label")
    vm.apply(changed(edited))
    screen.render()
    second = vm.cells()
    assert second is not None and second is not first
    assert "Edited label" in second.rendered.text
    # The agent reverts: a new revision drawn from the first one's content.
    reverted = msgspec.structs.replace(original, rev=edited.rev + 1)
    vm.apply(changed(reverted))
    assert "Diagram [3/8] index" in screen.text() and f"r{reverted.rev}" in screen.text()
    assert vm.cells() is first
    screen.press("n")  # notes off: another drawing; on again: the first one
    assert vm.cells() is not first
    screen.press("n")
    assert vm.cells() is first


def test_only_the_last_few_drawings_are_kept() -> None:
    screen = Screen()
    vm = screen.vm
    original = diagram = vm.session.diagrams["index"]
    first = vm.cells()
    for n in range(RECENT_DRAWINGS):
        diagram = _relabelled(diagram, f"Label {n}")
        vm.apply(changed(diagram))
        screen.render()
    vm.apply(changed(msgspec.structs.replace(original, rev=diagram.rev + 1)))
    again = vm.cells()
    assert again is not None and again is not first  # drawn again: it was evicted
    assert again.rendered.text == first.rendered.text if first else False


def test_a_big_diagram_reverted_shows_at_once_without_a_worker_job() -> None:
    big, screen = big_flowchart_screen()  # laid out by the test, as by the app's worker
    vm = screen.vm
    edited = _relabelled(big, "Edited, wider")  # a new width: laid out again
    vm.apply(changed(edited))
    assert vm.cells() is not None  # the in-process drawing made before listening
    job = vm.take_layout()
    assert job is not None and job.key[1] == edited.rev
    # The worker gets the AST as the content digest encoded it (no second encode).
    assert job.encoded == msgspec.msgpack.encode(job.diagram.ast)
    assert vm.layout_done(job.key, render_diagram(job.diagram, job.options), job.ast)
    reverted = msgspec.structs.replace(big, rev=edited.rev + 1)
    vm.apply(changed(reverted))
    cells = vm.cells()
    assert cells is not None and "Edited" not in cells.rendered.text
    assert vm.take_layout() is None and vm.layout_behind() is None


def test_a_diagram_made_again_after_its_delete_is_drawn() -> None:
    screen = Screen()
    vm = screen.vm
    diagram = vm.session.diagrams["index"]
    vm.apply(changed(msgspec.structs.replace(diagram, rev=diagram.rev + 3)))
    screen.render()
    vm.apply(p.DiagramDeleted(diagram_id="index"))
    vm.apply(p.DiagramCreated(diagram=msgspec.structs.replace(diagram, rev=0)))
    vm.switch_diagram("index")
    assert vm.cells() is not None and vm.render_error() is None
    assert "Diagram render error" not in screen.text()
