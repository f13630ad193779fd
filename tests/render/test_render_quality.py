"""Render quality on a set of realistic diagrams, checked mechanically (issue 17).

Each case is a diagram of the kind people draw (CI pipelines with retries, microservice maps
with subgraphs, state machines with back edges, wide fan-outs and fan-ins, long and CJK/emoji
labels, a 40-node graph, sequences with nested blocks and notes) with bounds on what a reader
can count: edge crossings and width. Every case also checks that every label line is visible
and that no edge line runs through a box. The drawings are goldens
(tests/render/golden/qual-*.txt): regenerate with `NEREID_UPDATE_GOLDEN=1` and look at each.
"""

from __future__ import annotations

import os
import random
import textwrap
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nereid.mermaid import parse_mermaid
from nereid.model.flowchart import FlowchartAst
from nereid.model.sequence import SequenceAst
from nereid.render import RenderOptions, render_flowchart, render_sequence
from nereid.render.display import display_text
from nereid.render.flowchart.bands import route
from nereid.render.flowchart.items import build_items, rank
from nereid.render.flowchart.layout import layout_flowchart, order, place
from nereid.render.flowchart.prepare import prepare
from nereid.render.flowchart.quality import drawn_crossings, edge_cells, frame_crossings, u_turns
from nereid.render.flowchart.stages import TitleFit
from nereid.render.flowchart.unturn import _monotones
from nereid.render.sequence_layout import layout_sequence
from nereid.render.text import wrap_text
from tests.render.quality_checks import frames_off_boxes, labels_apart

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("NEREID_UPDATE_GOLDEN") == "1"


def _graph_40() -> str:
    """A 40-node layered service graph with a few back edges (deterministic)."""
    rnd = random.Random(17)
    lines = ["flowchart TD"]
    for i in range(40):
        for j in rnd.sample(range(i + 1, min(i + 8, 40)), k=min(2, max(0, 39 - i))):
            lines.append(f"  s{i}[svc {i}] --> s{j}[svc {j}]")
    lines += ["  s30 -.->|retry| s12", "  s39 -.-> s0"]
    return "\n".join(lines)


#: name -> (Mermaid source, max crossings, max width)
FLOW_CASES: dict[str, tuple[str, int, int]] = {
    "ci-pipeline": (
        """
        flowchart LR
            push([git push]) --> lint[Lint] & unit[Unit tests]
            lint --> build[[Build image]]
            unit --> build
            build --> e2e{E2E pass?}
            e2e -->|yes| stage[(Staging DB migrate)]
            e2e -->|flaky| retry[Retry e2e] --> e2e
            e2e -->|no| notify>Notify author]
            stage --> deploy([Deploy])
        """,
        0,
        120,
    ),
    "microservices": (
        """
        flowchart TD
            client([Browser]) --> gw[API gateway]
            subgraph core [Core services]
                gw --> orders[Orders] & users[Users] & billing[Billing]
                orders --> billing
            end
            subgraph data [Data]
                odb[(orders db)]
                udb[(users db)]
                q[[event queue]]
            end
            orders --> odb
            users --> udb
            billing --> q
            q --> mail[Mailer]
        """,
        0,
        64,
    ),
    "state-machine": (
        """
        flowchart LR
            idle((Idle)) -->|start| running{{Running}}
            running -->|pause| paused([Paused])
            paused -->|resume| running
            running -->|fail| error[/Error/]
            error -->|reset| idle
            running -->|finish| done(((Done)))
        """,
        1,
        64,
    ),
    "fan-out-td": (
        "flowchart TD\n A[Source] --> " + " & ".join(f"n{i}[n{i}]" for i in range(12)),
        0,
        106,
    ),
    "fan-in-td": (
        "flowchart TD\n " + " & ".join(f"n{i}[n{i}]" for i in range(12)) + " --> T[Target]",
        0,
        106,
    ),
    "fan-out-lr": (
        "flowchart LR\n A[Source] --> " + " & ".join(f"n{i}[n{i}]" for i in range(8)),
        0,
        25,
    ),
    "fan-out-in": (
        """
        flowchart TD
            S[split] --> a & b & c & d & e
            a & b & c & d & e --> J[join]
        """,
        0,
        33,
    ),
    "lr-shapes": (
        """
        flowchart LR
            app[App] --> db[(Orders DB)] --> rep[Report]
            app --> ok{Valid?} --> rep
            app --> c((circle)) --> h{{hexagon}} --> s([stadium]) --> rep
        """,
        0,
        66,
    ),
    "long-labels": (
        """
        flowchart TD
            a[InvoiceGeneratorService.handle_request] --> b[https://example.org/api/v2/invoices/render]
            b -->|calls billing_gateway_adapter_factory| c["`The **billing** _adapter_ #quot;v2#quot;`"]
            c --> d[請求書を作成して送信する長いラベル]
            d --> e[🚀 deploy 🚀 to production 🎉]
            e --> f["fa:fa-check done #9829;"]
        """,
        0,
        36,
    ),
    "subgraph-long-titles": (
        """
        flowchart TD
            subgraph pay [Payment processing and settlement services for the European region]
                a[Charge] --> b[Settle]
                subgraph inner [A nested group whose title is also far too long for one line]
                    c[Refund]
                end
            end
            start --> a
            b --> c
        """,
        0,
        52,
    ),
    "graph-40": (_graph_40(), 84, 90),
    "service-groups": (
        """
        flowchart LR
            subgraph edge [Edge]
                lb[Load balancer]
                waf[WAF]
            end
            subgraph apps [Applications]
                web[Web app]
                api[Public API]
                admin[Admin]
            end
            subgraph jobs [Workers]
                mail[Mailer]
                report[Reports]
            end
            subgraph store [Storage]
                pg[(Postgres)]
                s3[(Objects)]
            end
            waf --> lb
            lb --> web & api
            admin --> pg
            apps --> store
            report --> s3
            jobs --> pg
            api -.->|enqueue| jobs
        """,
        2,
        140,
    ),
    "groups-to-groups-td": (
        """
        flowchart TD
            user([User]) --> front
            subgraph front [Frontend]
                ui[UI] --> state[State]
            end
            subgraph back [Backend]
                direction LR
                auth[Auth] --> svc[Service]
            end
            subgraph empty [Not built yet]
            end
            front -->|REST| back
            back --> db[(DB)]
            back -.-> empty
        """,
        0,
        60,
    ),
}

#: Routes that turn back on themselves, where some remain (detours the layer order forces
#: through dense layers, which the unturn pass cannot undo locally); 0 elsewhere.
U_TURNS: dict[str, int] = {
    "graph-40": 7,
    "service-groups": 2,
}

SEQ_CASES: dict[str, tuple[str, int]] = {
    "seq-nested-notes": (
        """
        sequenceDiagram
            participant U as User
            participant W as Web
            participant A as Auth
            participant D as DB
            Note over U: before everything
            U->>W: login
            loop every retry
                Note over W: first in loop
                W->>A: check
                alt valid
                    A->>D: lookup
                    Note right of D: last of valid
                else expired
                    Note over A: opens else
                    A-->>W: expired
                end
                Note over W,A: last in loop
            end
            rect rgb(200, 150, 255)
                W-->>U: done
            end
            Note over U,D: after everything
        """,
        140,
    ),
    "seq-long-titles": (
        """
        sequenceDiagram
            participant A
            participant B
            participant C
            participant D
            participant E
            participant F
            A->>B: start
            opt A very long optional block title that goes on and on and on and on forever and ever
                B->>C: step
                C->>D: step
            end
            critical Establish a connection to the database cluster before anything else
                D->>E: connect
            option Network timeout after thirty seconds of waiting for the primary
                E->>F: log
            end
        """,
        110,
    ),
    "seq-text": (
        """
        sequenceDiagram
            participant A as Alice<br>Smith
            participant B
            A->>B: I #9829; you #infin; times
            B->>A: wrap:a message with a wrap switch in front
            Note over A,B: `**bold** note`
        """,
        80,
    ),
}


def _labels(ast: FlowchartAst) -> list[str]:
    texts = [node.label for node in ast.nodes.values()]
    texts += [edge.label for edge in ast.edges.values() if edge.label]
    texts += [s.title or s.mermaid_id for s in ast.subgraphs.values()]
    return texts


def _assert_visible(texts: list[str], lines: list[str]) -> None:
    for text in texts:
        for line in wrap_text(display_text(text), 30):
            for word in line.split():
                assert any(word in row for row in lines), f"{word!r} of {text!r} not drawn"


def _check_golden(name: str, text: str) -> None:
    path = GOLDEN / f"qual-{name}.txt"
    if UPDATE or not path.exists():
        path.write_text(text + "\n", encoding="utf-8")
    assert text + "\n" == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(FLOW_CASES))
def test_flowchart_quality(name: str) -> None:
    source, max_crossings, max_width = FLOW_CASES[name]
    ast = parse_mermaid(textwrap.dedent(source).strip() + "\n")
    assert isinstance(ast, FlowchartAst)
    options = RenderOptions()
    geometry = layout_flowchart(ast, options)
    rendered = render_flowchart(ast, "d-q", options)
    crossings = drawn_crossings(geometry)
    assert crossings <= max_crossings, f"{crossings} crossings\n{rendered.text}"
    passes = frame_crossings(ast, geometry)
    assert passes == 0, f"{passes} needless frame passes\n{rendered.text}"
    turns = u_turns(ast, geometry)
    assert turns <= U_TURNS.get(name, 0), f"{turns} routes turn back\n{rendered.text}"
    labels_apart(geometry)
    frames_off_boxes(geometry)
    assert rendered.width <= max_width
    _assert_visible(_labels(ast), rendered.lines)
    lines = edge_cells(geometry)
    for node in geometry.nodes:
        top, left, bottom, right = node.rect
        inside = {(r, c) for r in range(top + 1, bottom) for c in range(left + 1, right)}
        assert not lines & inside, f"an edge runs through {node.node_id}\n{rendered.text}"
    _check_golden(name, rendered.text)


def test_fan_out_and_fan_in_draw_no_crossings() -> None:
    for size in (2, 3, 6, 12):
        for direction in ("TD", "LR", "BT", "RL"):
            targets = " & ".join(f"n{i}" for i in range(size))
            for body in (f"S --> {targets}", f"{targets} --> T"):
                ast = parse_mermaid(f"flowchart {direction}\n {body}\n")
                assert isinstance(ast, FlowchartAst)
                assert drawn_crossings(layout_flowchart(ast, RenderOptions())) == 0, body


@settings(max_examples=30, deadline=None)
@given(
    direction=st.sampled_from(["TD", "TB", "BT", "LR", "RL"]),
    extra=st.integers(min_value=0, max_value=5),
    label=st.one_of(st.none(), st.text(alphabet="ab xyz-", min_size=1, max_size=24)),
    sides=st.integers(min_value=0, max_value=3),
)
def test_a_long_edge_with_nothing_in_between_never_turns_back(
    direction: str, extra: int, label: str | None, sides: int
) -> None:
    """A long edge (`A ---->` spans layers) between two nodes with nothing between them,
    beside unrelated chains, runs without a U-turn and crosses nothing."""
    text = label.strip() if label else ""
    arrow = "-" * (2 + extra) + ">" + (f"|{text}|" if text else "")
    lines = [f"flowchart {direction}", f"  a[Start here] {arrow} b[End]"]
    _assert_straight_and_uncrossed(lines, sides)


@settings(max_examples=30, deadline=None)
@given(
    direction=st.sampled_from(["TD", "TB", "BT", "LR", "RL"]),
    steps=st.integers(min_value=2, max_value=5),
    extra=st.integers(min_value=0, max_value=2),
    sides=st.integers(min_value=0, max_value=2),
    names=st.lists(st.text(alphabet="abcxyz ", min_size=1, max_size=12), min_size=6, max_size=6),
)
def test_a_shortcut_beside_its_chain_never_turns_back(
    direction: str, steps: int, extra: int, sides: int, names: list[str]
) -> None:
    """`n0 --> n1 --> ... --> nk` and the shortcut `n0 --> nk` beside it: the shortcut has
    nothing in between, so it leaves n0 and enters nk without a jog aside and back (the
    port under its waypoints, not one column off), whatever the boxes' widths. Unrelated
    chains sit beside it in TD/BT; in LR/RL a chain packed right under n0 can leave no row
    for the port (ports keep to label rows, and the pass never makes a drawing taller)."""
    if direction in ("LR", "RL"):
        sides = 0
    labels = [name.strip() or "n" for name in names]
    chain = " --> ".join(f"n{k}[{labels[k]}]" for k in range(steps + 1))
    arrow = "-" * (2 + extra) + ">"
    lines = [f"flowchart {direction}", f"  {chain}", f"  n0 {arrow} n{steps}"]
    _assert_straight_and_uncrossed(lines, sides)


def test_a_labelled_shortcut_runs_straight() -> None:
    """The shortcut with a label: the label box sits beside the chain's boxes, and the
    shortcut's ports (or its end boxes) follow it instead of jogging out to it and back. (A
    label needs two cells from a box, so around boxes too narrow for a port under it the
    jog stays: not claimed for every width.)"""
    for direction in ("TD", "BT", "LR", "RL"):
        for label in ("", "|a label|"):
            source = f"flowchart {direction}\n n0 --> n1 --> n2 --> n3\n n0 -->{label} n3\n"
            ast = parse_mermaid(source)
            assert isinstance(ast, FlowchartAst)
            geometry = layout_flowchart(ast, RenderOptions())
            text = render_flowchart(ast, "d-q", RenderOptions()).text
            assert u_turns(ast, geometry) == 0, text
            assert drawn_crossings(geometry) == 0, text


def test_lr_edges_with_two_heads_keep_a_shaft() -> None:
    """A one-cell LR/RL edge with heads at both ends shows a line between them (`◀─▶`,
    `○─○`), not two heads touching."""
    for direction in ("LR", "RL"):
        for arrow in ("<-->", "o--o", "x--x"):
            ast = parse_mermaid(f"flowchart {direction}\n a {arrow} b\n")
            assert isinstance(ast, FlowchartAst)
            text = render_flowchart(ast, "d-q", RenderOptions()).text
            assert "─" in next(line for line in text.splitlines() if " a " in line), text


def test_lr_ports_sit_on_label_rows() -> None:
    """In LR an edge never attaches to a lid, corner or top/bottom border row."""
    ast = parse_mermaid(textwrap.dedent(FLOW_CASES["lr-shapes"][0]).strip() + "\n")
    assert isinstance(ast, FlowchartAst)
    geometry = layout_flowchart(ast, RenderOptions())
    for node in geometry.nodes:
        top, left, bottom, right = node.rect
        lowest = top + (2 if node.style.lid else 1)
        for edge in geometry.edges:
            for row, col in edge.anchors:
                if col in (left, right) and top <= row <= bottom:
                    assert lowest <= row <= bottom - 1, (node.node_id, edge.edge_id, row)


@pytest.mark.parametrize("name", sorted(SEQ_CASES))
def test_sequence_quality(name: str) -> None:
    source, max_width = SEQ_CASES[name]
    ast = parse_mermaid(textwrap.dedent(source).strip() + "\n")
    assert isinstance(ast, SequenceAst)
    rendered = render_sequence(ast, "d-q", RenderOptions())
    assert rendered.width <= max_width, rendered.text
    texts = [m.text for m in ast.messages] + [n.text for n in ast.notes]
    texts += [p.alias or p.mermaid_name for p in ast.participants.values()]
    _assert_visible(texts, rendered.lines)
    for raw in ("#9829;", "<br>", "wrap:", "**", "rgb("):
        assert raw not in rendered.text
    _check_golden(name, rendered.text)


def test_block_frames_never_land_on_a_participant_box_side() -> None:
    source = """
    sequenceDiagram
        participant P0
        box xxxxxxxxxxxx
        participant P1
        end
        loop yyyyyyyyy
            P1->>P1: mmmmmm
            P0->>P0: mmmmmmmmmmm
        end
    """
    ast = parse_mermaid(textwrap.dedent(source).strip() + "\n")
    assert isinstance(ast, SequenceAst)
    layout = layout_sequence(ast, RenderOptions())
    sides = {box.left for box in layout.boxes} | {box.right for box in layout.boxes}
    assert sides
    for frame in layout.frames:
        assert all(abs(frame.left - side) >= 2 and abs(frame.right - side) >= 2 for side in sides)


def _assert_straight_and_uncrossed(lines: list[str], sides: int) -> None:
    """`lines` plus `sides` unrelated chains beside them draw with no U-turn and no
    crossing (the drawing is the failure message)."""
    lines = [*lines, *(f"  s{j} --> t{j}[side {j}] --> u{j}" for j in range(sides))]
    ast = parse_mermaid("\n".join(lines) + "\n")
    assert isinstance(ast, FlowchartAst)
    geometry = layout_flowchart(ast, RenderOptions())
    assert u_turns(ast, geometry) == 0, render_flowchart(ast, "d-q", RenderOptions()).text
    assert drawn_crossings(geometry) == 0


def _dense_flowchart(seed: int) -> str:
    """A layered flowchart with long edges, fans and a subgraph (deterministic per seed):
    its top channels hold 20-50 segments, where the unturn pass works within a budget."""
    rnd = random.Random(seed)
    size = rnd.randint(25, 70)
    lines = [f"flowchart {('TD', 'LR', 'BT', 'RL')[seed % 4]}"]
    for i in range(size):
        for j in rnd.sample(range(i + 1, min(i + 9, size) + 1), k=min(3, size - i)):
            if j < size:
                lines.append(f"  n{i}[node {i}] --> n{j}[node {j}]")
    lines.append(f"  n0 --> {' & '.join(f'n{k}' for k in rnd.sample(range(1, size), k=6))}")
    members = rnd.sample(range(size), k=4)
    lines += ["  subgraph grp [A group]", *(f"    n{m}" for m in members), "  end"]
    return "\n".join(lines) + "\n"


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10_000))
def test_the_router_reuses_exactly_what_it_would_pack(seed: int) -> None:
    """The router takes the unturn pass's channel packings instead of packing those
    channels again: the routes are the same as when it packs every channel itself."""
    ast = parse_mermaid(_dense_flowchart(seed))
    assert isinstance(ast, FlowchartAst)
    ordered = order(build_items(rank(prepare(ast, RenderOptions(), {}))))
    count = len(ordered.items.ranked.graph.cluster_ids)
    placed = place(ordered, TitleFit((0,) * count, (RenderOptions().max_label_width,) * count))
    assume(placed.packed)  # (nearly every such flowchart has routes that turn back)
    assert route(placed)[1:] == route(placed._replace(packed={}))[1:]


def _plain_monotone(
    cols: list[int], lows: list[int], highs: list[int], rising: bool, forward: bool
) -> list[int] | None:
    """The rising route's greedy sweep, spelled out (a falling one: the mirrored columns)."""
    if not rising:
        mirrored = _plain_monotone(
            [-c for c in cols], [-h for h in highs], [-low for low in lows], True, forward
        )
        return None if mirrored is None else [-c for c in mirrored]
    count = len(cols)
    floor = [max(lows[: k + 1]) for k in range(count)]
    ceiling = [min(highs[k:]) for k in range(count)]
    if any(f > c for f, c in zip(floor, ceiling, strict=True)):
        return None
    target = cols[:]
    steps = range(count) if forward else range(count - 1, -1, -1)
    for k in steps:
        low, high = floor[k], ceiling[k]
        if forward and k:
            low = max(low, target[k - 1])
        if not forward and k + 1 < count:
            high = min(high, target[k + 1])
        target[k] = min(max(cols[k], low), high)
    return target


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 20), st.integers(-25, 25), st.integers(-3, 15), st.booleans()),
        min_size=2,
        max_size=10,
    )
)
def test_monotone_routes_are_the_plain_greedy_sweeps(
    columns: list[tuple[int, int, int, bool]],
) -> None:
    cols = [c for c, _, _, _ in columns]
    lows = [c if pinned else low for c, low, _, pinned in columns]
    highs = [c if pinned else low + span for c, low, span, pinned in columns]
    expected = [
        route
        for rising in (True, False)
        for forward in (True, False)
        if (route := _plain_monotone(cols, lows, highs, rising, forward)) is not None
    ]
    assert _monotones(cols, lows, highs) == expected
