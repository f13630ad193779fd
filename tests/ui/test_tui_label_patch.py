"""A label edit that keeps the label's width patches the shown drawing instead of laying it
out again, and the patched drawing is exactly what a full layout draws; one of another width
is patched provisionally (only its box and blank cells change) until the layout arrives."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.mermaid import parse_flowchart
from nereid.model.diagram import Diagram
from nereid.model.flowchart import FlowchartAst
from nereid.model.refs import FLOW_NODE, ObjectRef
from nereid.offload.packed_drawing import pack_drawing, unpack_drawing
from nereid.render import Rendered, RenderOptions, render_diagram
from nereid.render.text import text_width
from nereid.testing.big_diagrams import flowchart
from nereid.ui.drawings import Drawings
from nereid.ui.label_patch import LabelPatch, label_patch, patched_label_drawing

from .tui_helpers import big_flowchart_screen, changed

OPTIONS = RenderOptions(show_notes=True, flowchart_extra_col_gap=2)
SHAPES = ("[{}]", "({})", "{{{}}}", "(({}))", ">{}]", "[[{}]]", "[({})]", "{{{{{}}}}}")
# Plain characters, and some the patch must refuse: markdown, entities, breaks, wide, box.
ALPHABET = st.sampled_from(list("abcXYZ019 -_.:,é") + ["*", "#", ";", "`", "<br>", "漢", "─"])
PLAIN = st.sampled_from(list("abcXYZ019-_.:,é"))
LABEL = st.one_of(
    st.lists(PLAIN, min_size=1, max_size=14), st.lists(ALPHABET, min_size=1, max_size=14)
).map("".join)


def _diagram(text: str) -> Diagram:
    return Diagram(diagram_id="d", name="d", kind="flowchart", ast=parse_flowchart(text), rev=0)


def _relabelled(diagram: Diagram, node_id: str, label: str) -> Diagram:
    ast = diagram.ast
    assert isinstance(ast, FlowchartAst)
    nodes = {**ast.nodes, node_id: msgspec.structs.replace(ast.nodes[node_id], label=label)}
    return msgspec.structs.replace(
        diagram, rev=diagram.rev + 1, ast=msgspec.structs.replace(ast, nodes=nodes)
    )


@st.composite
def _edits(draw: st.DrawFn) -> tuple[Diagram, str, str, frozenset[tuple[str, str]]]:
    count = draw(st.integers(2, 9))
    labels = [draw(LABEL).replace("<br>", " ") for _ in range(count)]
    lines = ["flowchart TD"]
    for i, label in enumerate(labels):
        shape = draw(st.sampled_from(SHAPES))
        lines.append(f"  n{i}{shape.format(chr(34) + label + chr(34))}")
    for _ in range(draw(st.integers(1, count * 2))):
        a, b = draw(st.integers(0, count - 1)), draw(st.integers(0, count - 1))
        edge_label = draw(st.one_of(st.none(), LABEL.map(lambda t: t.replace("<br>", " "))))
        lines.append(f'  n{a} -->|"{edge_label}"| n{b}' if edge_label else f"  n{a} --> n{b}")
    diagram = _diagram("\n".join(lines) + "\n")
    assert isinstance(diagram.ast, FlowchartAst)
    node_id = draw(st.sampled_from(sorted(diagram.ast.nodes)))
    old = diagram.ast.nodes[node_id].label
    # Mostly the same length (the case the patch is for), sometimes not.
    size = draw(st.one_of(st.just(len(old)), st.integers(1, 16)))
    alphabet = draw(st.sampled_from((PLAIN, ALPHABET)))
    new = draw(st.lists(alphabet, min_size=size, max_size=size).map("".join))
    marked = draw(st.sets(st.sampled_from(sorted(diagram.ast.nodes))))
    markers = frozenset((n, draw(st.sampled_from(("▴", "▾", "▾▴")))) for n in marked)
    return diagram, node_id, new, markers


@settings(max_examples=60, deadline=None)
@given(_edits())
def test_a_patched_drawing_is_what_a_full_layout_draws(
    edit: tuple[Diagram, str, str, frozenset[tuple[str, str]]],
) -> None:
    diagram, node_id, label, markers = edit
    edited = _relabelled(diagram, node_id, label)
    drawings = Drawings()
    assert drawings.cells(diagram, show_notes=True, markers=markers) is not None
    shown = drawings.cells(edited, show_notes=True, markers=markers)
    fresh = Drawings().cells(edited, show_notes=True, markers=markers)
    assert shown is not None and fresh is not None
    assert shown.rendered == fresh.rendered


def test_a_same_width_rename_on_a_big_flowchart_is_patched_not_laid_out() -> None:
    diagram = _diagram(flowchart(300))
    drawn = render_diagram(diagram, OPTIONS)
    renamed = _relabelled(diagram, "n:n5", "Edit 5")  # "Node 5": same width
    patched = patched_label_drawing(drawn, diagram.ast, renamed.ast, "d", {})
    assert patched is not None
    assert patched == render_diagram(renamed, OPTIONS)
    assert "Edit 5" in patched.text and "Node 5\u0020" not in patched.text


def test_anything_but_one_same_width_label_is_laid_out() -> None:
    diagram = _diagram(flowchart(30))
    drawn = render_diagram(diagram, OPTIONS)
    wider = _relabelled(diagram, "n:n5", "Node five")
    assert patched_label_drawing(drawn, diagram.ast, wider.ast, "d", {}) is None
    two = _relabelled(_relabelled(diagram, "n:n5", "Edit 5"), "n:n6", "Edit 6")
    assert patched_label_drawing(drawn, diagram.ast, two.ast, "d", {}) is None
    bold = _relabelled(diagram, "n:n5", "**N**ode")
    assert patched_label_drawing(drawn, diagram.ast, bold.ast, "d", {}) is None
    ast = renamed = _relabelled(diagram, "n:n5", "Edit 5").ast
    assert isinstance(ast, FlowchartAst)
    reshaped = msgspec.structs.replace(
        ast,
        nodes={**ast.nodes, "n:n5": msgspec.structs.replace(ast.nodes["n:n5"], shape="round")},
    )
    assert patched_label_drawing(drawn, diagram.ast, reshaped, "d", {}) is None
    assert patched_label_drawing(drawn, diagram.ast, renamed, "d", {}) is not None


def _check_provisional(drawn: Rendered, patch: LabelPatch, node_id: str, label: str) -> None:
    """A provisional patch is a true drawing of the new label: every other object is where
    it was, drawn the same; the node's box is a rectangle on its rows that holds the old
    one, keeps its borders and shows the new label once; any other cell that changed was
    blank; the result keeps `Rendered`'s invariants."""
    new = patch.rendered
    assert new.text == "\n".join(new.lines) and new.height == drawn.height == len(new.lines)
    assert all(line == line.rstrip(" ") for line in new.lines)
    assert new.width == max((text_width(line) for line in new.lines), default=0)
    assert new.spans.keys() == drawn.spans.keys()
    ref = ObjectRef("d", FLOW_NODE, node_id)
    for owner, spans in drawn.spans.items():
        if owner == ref:
            continue
        assert new.spans[owner] == spans
        for span in spans:
            cells = slice(span.col_start, span.col_end + 1)
            assert new.lines[span.row][cells] == drawn.lines[span.row][cells]
    old_box, new_box = drawn.spans[ref], new.spans[ref]
    top = old_box[0].row
    assert [s.row for s in new_box] == [s.row for s in old_box]
    assert len({(s.col_start, s.col_end) for s in new_box}) == 1
    left, right = new_box[0].col_start, new_box[0].col_end
    old_left, old_right = old_box[0].col_start, old_box[0].col_end
    assert left <= old_left and old_right <= right
    boxes = [new.lines[s.row][left : right + 1] for s in new_box]
    inside = [ch for box in boxes for ch in box[1:-1] if not "\u2500" <= ch <= "\u257f"]
    assert "".join(inside).split() == label.split() or label in boxes[patch.rows[0] - top]
    for box, span in zip(boxes, old_box, strict=True):
        old = drawn.lines[span.row]
        assert (box[0], box[-1]) == (old[old_left], old[old_right])
    for row in range(drawn.height):
        before, after = drawn.lines[row], new.lines[row]
        if row not in patch.rows:
            assert before == after
            continue
        for col in range(max(len(before), len(after))):
            was = before[col] if col < len(before) else " "
            now = after[col] if col < len(after) else " "
            if was != now and not (old_left <= col <= old_right):
                assert was == " " and left <= col <= right, (row, col)


@settings(max_examples=60, deadline=None)
@given(_edits())
def test_a_provisional_patch_changes_only_the_nodes_box_and_blank_cells(
    edit: tuple[Diagram, str, str, frozenset[tuple[str, str]]],
) -> None:
    diagram, node_id, label, _ = edit
    edited = _relabelled(diagram, node_id, label)
    drawn = render_diagram(diagram, OPTIONS)
    patch = label_patch(drawn, diagram.ast, edited.ast, "d", {})
    # The drawing as the render worker sends it (kept packed) is patched alike.
    packed = unpack_drawing(pack_drawing(drawn))
    assert label_patch(packed, diagram.ast, edited.ast, "d", {}) == patch
    if patch is None:
        return
    if patch.exact:
        assert patch.rendered == render_diagram(edited, OPTIONS)
    else:
        _check_provisional(drawn, patch, node_id, label)


def test_a_wider_label_grows_its_box_into_free_cells_and_a_narrower_one_is_centred() -> None:
    diagram = _diagram(
        "flowchart TD\n  a[Node a] --> b(round b) & c{diamond c}\n  a --> h[/para/]\n  b --> c\n"
    )
    drawn = render_diagram(diagram, OPTIONS)
    for node_id, label in (
        ("n:h", "parallelogram"),
        ("n:c", "a much wider diamond"),
        ("n:b", "round b and"),  # no room beside it: wrapped onto the note row
    ):
        patch = label_patch(drawn, diagram.ast, _relabelled(diagram, node_id, label).ast, "d", {})
        assert patch is not None and not patch.exact
        assert len(patch.rows) == (2 if node_id == "n:b" else 4)
        _check_provisional(drawn, patch, node_id, label)
    narrower = _relabelled(diagram, "n:a", "A")
    patch = label_patch(drawn, diagram.ast, narrower.ast, "d", {})
    assert patch is not None and not patch.exact and patch.rendered.spans == drawn.spans
    _check_provisional(drawn, patch, "n:a", "A")
    # No room beside the box (an edge runs there) nor under the label: laid out instead.
    squeezed = _relabelled(diagram, "n:b", "round b, and then some more")
    assert label_patch(drawn, diagram.ast, squeezed.ast, "d", {}) is None


def test_a_provisional_drawing_shows_until_the_layout_replaces_it() -> None:
    big, screen = big_flowchart_screen()  # laid out by the test, as by the app's worker
    vm = screen.vm
    first = vm.cells()
    assert first is not None
    ast = big.ast
    assert isinstance(ast, FlowchartAst)

    def patchable(node_id: str) -> bool:
        relabelled = _relabelled(big, node_id, "Renamed, wider").ast
        return label_patch(first.rendered, ast, relabelled, "big", {}) is not None

    node_id = next(n for n in ast.nodes if patchable(n))
    edited = _relabelled(big, node_id, "Renamed, wider")
    vm.apply(changed(edited))
    shown = vm.cells()
    assert shown is not None and vm.layout_provisional() and vm.layout_behind() is None
    assert shown.rendered.text.count("Renamed, wider") == 1
    assert "updating (label patched, laying out)" in screen.text()
    job = vm.take_layout()
    assert job is not None and job.key[1] == edited.rev
    full = render_diagram(job.diagram, job.options)
    assert full != shown.rendered
    assert vm.layout_done(job.key, full, job.ast)
    cells = vm.cells()
    assert cells is not None and cells.rendered == full and not vm.layout_provisional()
    assert "updating" not in screen.text()
