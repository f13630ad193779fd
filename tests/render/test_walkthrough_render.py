"""Walkthrough rendering: goldens (tests/render/golden/wt-*.txt) and properties.

Regenerate goldens with `NEREID_UPDATE_GOLDEN=1 uv run pytest tests/render/test_walkthrough_render.py`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.model.walkthrough import Walkthrough, WalkthroughEdge, WalkthroughNode
from nereid.render import RenderError, RenderOptions, render_walkthrough, slice_cells
from nereid.render.walkthrough import edge_ref, node_ref

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("NEREID_UPDATE_GOLDEN") == "1"

N = WalkthroughNode
E = WalkthroughEdge

STORY = Walkthrough(
    walkthrough_id="wt-story",
    title="How a request flows",
    nodes=(
        N(node_id="start", title="Client sends the request", status="done"),
        N(node_id="auth", title="Gateway checks the token"),
        N(
            node_id="work",
            title="Service does the work and writes the database row",
            status="draft",
        ),
        N(node_id="end", title="Reply"),
    ),
    edges=(
        E(from_node_id="start", to_node_id="auth", kind="next"),
        E(from_node_id="auth", to_node_id="work", kind="next", label="token ok"),
        E(from_node_id="work", to_node_id="end", kind="next"),
        E(from_node_id="auth", to_node_id="end", kind="error", label="401"),
        E(from_node_id="work", to_node_id="auth", kind="retry"),
        E(from_node_id="start", to_node_id="end", kind="see-also"),
    ),
)

CASES: dict[str, tuple[Walkthrough, RenderOptions]] = {
    "two-steps": (
        Walkthrough(
            walkthrough_id="wt-two",
            title="",
            nodes=(N(node_id="Start", title="Start"), N(node_id="End", title="End")),
            edges=(E(from_node_id="Start", to_node_id="End", kind="next"),),
        ),
        RenderOptions(),
    ),
    "story": (STORY, RenderOptions()),
    "story-ascii": (STORY, RenderOptions(ascii=True)),
    "loops-and-parallel-edges": (
        Walkthrough(
            walkthrough_id="wt-loops",
            title="Review loop",
            nodes=(
                N(node_id="draft", title="Write draft", status="todo"),
                N(node_id="review", title="Review"),
                N(node_id="ship", title=""),
            ),
            edges=(
                E(from_node_id="draft", to_node_id="review", kind="next"),
                E(from_node_id="draft", to_node_id="review", kind="cc", label="notify"),
                E(from_node_id="review", to_node_id="review", kind="again"),
                E(from_node_id="review", to_node_id="draft", kind="changes requested"),
                E(from_node_id="review", to_node_id="ship", kind="next", label="approved"),
            ),
        ),
        RenderOptions(),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str) -> None:
    walkthrough, options = CASES[name]
    actual = render_walkthrough(walkthrough, options).text + "\n"
    path = GOLDEN / f"wt-{name}.txt"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"missing golden {path}; run with NEREID_UPDATE_GOLDEN=1"
    assert actual == path.read_text(encoding="utf-8")


def test_empty_walkthrough_renders_nothing() -> None:
    rendered = render_walkthrough(Walkthrough(walkthrough_id="w", title="t"))
    assert rendered.text == "" and rendered.spans == {}


def test_edge_to_unknown_node_is_an_error() -> None:
    walkthrough = Walkthrough(
        walkthrough_id="w",
        title="",
        nodes=(N(node_id="a", title="A"),),
        edges=(E(from_node_id="a", to_node_id="ghost", kind="next"),),
    )
    with pytest.raises(RenderError, match="missing node ghost in walkthrough"):
        render_walkthrough(walkthrough)


@st.composite
def walkthroughs(draw: st.DrawFn) -> Walkthrough:
    count = draw(st.integers(1, 5))
    titles = ("Step", "A much longer step title that wraps", "", "終わり")
    nodes = tuple(
        N(
            node_id=f"n{i}",
            title=draw(st.sampled_from(titles)),
            status=draw(st.sampled_from((None, "done", "todo"))),
        )
        for i in range(count)
    )
    pairs = draw(
        st.lists(
            st.tuples(
                st.integers(0, count - 1),
                st.integers(0, count - 1),
                st.sampled_from(("next", "alt", "see")),
            ),
            max_size=8,
            unique=True,
        )
    )
    edges = tuple(
        E(
            from_node_id=f"n{a}",
            to_node_id=f"n{b}",
            kind=kind,
            label=draw(st.sampled_from((None, "why", "a longer label"))),
        )
        for a, b, kind in pairs
    )
    return Walkthrough(walkthrough_id="wt", title="T", nodes=nodes, edges=edges)


@settings(max_examples=100, deadline=None)
@given(walkthroughs(), st.booleans())
def test_every_edge_and_node_is_drawn(walkthrough: Walkthrough, ascii_only: bool) -> None:
    rendered = render_walkthrough(walkthrough, RenderOptions(ascii=ascii_only))
    heads = {"▼", "◀"} if not ascii_only else {"v", "<"}
    for node in walkthrough.nodes:
        spans = rendered.spans[node_ref("wt", node.node_id)]
        shown = "".join(
            slice_cells(rendered.lines[s.row], s.col_start, s.col_end).strip("│|├┤+ ")
            for s in spans
        )
        assert "".join((node.title or node.node_id).split()) in "".join(shown.split())
    for edge in walkthrough.edges:
        spans = rendered.spans[edge_ref("wt", edge)]
        shown = "".join(slice_cells(rendered.lines[s.row], s.col_start, s.col_end) for s in spans)
        assert heads & set(shown), f"{edge} has no arrowhead\n{rendered.text}"
        text = edge.kind + (f": {edge.label}" if edge.label else "")
        assert "".join(text.split()) in "".join(shown.split()).replace("│", "").replace("|", "")
    assert render_walkthrough(walkthrough).text == render_walkthrough(walkthrough).text
