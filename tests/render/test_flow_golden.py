"""Golden renders of hand-picked flowcharts (tests/render/golden/flow-*.txt).

Regenerate after a deliberate change with `NEREID_UPDATE_GOLDEN=1 uv run pytest
tests/render/test_flow_golden.py`, then read the diffs: they must still look right to a person.
"""

from __future__ import annotations

import os
import random
import textwrap
from pathlib import Path

import pytest

from nereid.model.flowchart import FlowchartAst, FlowEdge, FlowNode
from nereid.render import RenderOptions, render_flowchart

parse_flowchart = pytest.importorskip("nereid.mermaid.flowchart").parse_flowchart

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("NEREID_UPDATE_GOLDEN") == "1"

CASES: dict[str, tuple[str | FlowchartAst, RenderOptions]] = {
    "chain-lr": ("flowchart LR\n A --> B --> C", RenderOptions()),
    "chain-td": ("flowchart TD\n A --> B --> C", RenderOptions()),
    "demo-dag": (
        """
        flowchart TD
            a[A] -->|alpha| b[B]
            a -->|beta| c(C)
            b --> d{D}
            c --> d
        """,
        RenderOptions(),
    ),
    "demo-dag-lr": (
        """
        flowchart LR
            a[A] -->|alpha| b[B]
            a -->|beta| c(C)
            b --> d{D}
            c --> d
        """,
        RenderOptions(),
    ),
    "fan-out": ("flowchart TD\n S --> A & B & C\n A & B & C --> T", RenderOptions()),
    "cycle": ("flowchart TD\n A --> B --> C --> A\n C --> D", RenderOptions()),
    "self-loop": ("flowchart TD\n A --> A\n A --> B\n B -->|again| B", RenderOptions()),
    "self-loop-lr": ("flowchart LR\n A --> A\n A --> B", RenderOptions()),
    "bt-rl": ("flowchart BT\n A --> B\n A --> C", RenderOptions()),
    "rl": ("flowchart RL\n A -->|go| B --> C", RenderOptions()),
    "line-styles": (
        """
        flowchart LR
            A --> B
            A -.-> C
            A ==> D
            A --- E
            A ~~~ F
            B <--> C
            D --o E
            D --x F
        """,
        RenderOptions(),
    ),
    "shapes": (
        """
        flowchart TD
            a[rect] --> b(round) --> c([stadium]) --> d[[subroutine]]
            d --> e[(database)] --> f((circle)) --> g{decision}
            g --> h{{hexagon}} --> i>asymmetric] --> j[/lean right/]
            j --> k[\\lean left\\] --> l[/trapezoid\\] --> m[\\trapezoid alt/]
            m --> n(((double)))
        """,
        RenderOptions(),
    ),
    "v11-icons": (
        """
        flowchart LR
            u@{ icon: "fa:user", form: "square", label: "User", pos: "t", h: 60 }
            p@{ img: "https://example.org/a.png", label: "Photo", h: 40 }
            u e1@--> p
            p e2@-.->|shows| s[Screen]
            e1@{ animate: true }
            e2@{ curve: linear }
        """,
        RenderOptions(),
    ),
    "v11-icons-ascii": (
        """
        flowchart TD
            u@{ icon: "fa:user", label: "User" } e1@--> p@{ img: "a.png" }
        """,
        RenderOptions(ascii=True),
    ),
    "subgraphs": (
        """
        flowchart TD
            subgraph outer [Outer group]
                a --> b
                subgraph inner [Inner]
                    c --> d
                end
            end
            start --> a
            b --> c
            d --> finish
        """,
        RenderOptions(),
    ),
    "subgraphs-lr": (
        """
        flowchart LR
            subgraph one [First]
                a --> b
            end
            subgraph two [Second]
                c --> d
            end
            b --> c
        """,
        RenderOptions(),
    ),
    "subgraphs-cycle-bt": (
        """
        flowchart BT
            subgraph outer [Outer group]
                a --> b
                subgraph inner [Inner]
                    c --> d
                end
            end
            start --> a
            b -->|next| c
            d --> finish
            finish -.-> start
        """,
        RenderOptions(),
    ),
    "subgraphs-cycle-rl": (
        """
        flowchart RL
            subgraph outer [Outer group]
                a --> b
                subgraph inner [Inner]
                    c --> d
                end
            end
            start --> a
            b -->|next| c
            d --> finish
            finish -.-> start
        """,
        RenderOptions(),
    ),
    "corpus-30": ("", RenderOptions()),
    "long-labels": (
        """
        flowchart TD
            A[This is a rather long node label that has to wrap onto several lines] -->|an edge label that is also quite long indeed| B[short]
            B --> C[日本語のラベル]
        """,
        RenderOptions(),
    ),
    "ascii": (
        """
        flowchart TD
            a[A] -->|yes| b(B)
            a -.-> c{C}
            b ==> c
        """,
        RenderOptions(ascii=True),
    ),
    "subgraph-ends-td": (
        """
        flowchart TD
            subgraph core [Core]
                api --> svc
            end
            subgraph data
                db
            end
            gw -->|calls| core
            core --> data
            data -.-> audit
        """,
        RenderOptions(),
    ),
    "subgraph-ends-lr": (
        """
        flowchart LR
            subgraph TOP
                direction TB
                subgraph B1
                    i1 --> f1
                end
                subgraph B2
                    i2 --> f2
                end
            end
            A --> TOP --> B
            B1 --> B2
        """,
        RenderOptions(),
    ),
    "subgraph-ends-forms": (
        """
        flowchart LR
            client & admin --> api
            api -.->|events| bus ==> workers
            subgraph api [API]
                direction TB
                rest[REST] --> rpc[RPC]
            end
            subgraph bus [Event bus]
            end
            subgraph workers
                w1[Worker 1]
                w2[Worker 2]
            end
            workers <--> store[(Store)]
            api o--o audit[Audit]
            bus x--x dlq[Dead letters]
        """,
        RenderOptions(),
    ),
    "notes": (
        FlowchartAst(
            direction="LR",
            nodes={
                "n:A": FlowNode(label="Load", note="reads the session folder"),
                "n:B": FlowNode(label="Render"),
            },
            edges={"e:0001": FlowEdge(from_node_id="n:A", to_node_id="n:B", label="ast")},
        ),
        RenderOptions(show_notes=True),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_flow_golden(name: str) -> None:
    source, options = CASES[name]
    if name == "corpus-30":
        source = _corpus_flow(30)
    if isinstance(source, FlowchartAst):
        ast = source
    else:
        ast = parse_flowchart(textwrap.dedent(source).strip() + "\n")
    text = render_flowchart(ast, "d-flow", options).text + "\n"
    path = GOLDEN / f"flow-{name}.txt"
    if UPDATE or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def _corpus_flow(n: int, seed: int = 7) -> str:
    """`flow(n)` of shared/bench/gen_corpus.py: a cycle-rich graph with labelled edges."""
    rnd = random.Random(seed)
    lines = ["flowchart TD"]
    for i in range(n):
        lines.append(f"  n{i}[Node {i}] --> n{(i * 7 + 1) % n}")
        if i % 3 == 0:
            lines.append(f"  n{i} -->|label {i}| n{rnd.randrange(n)}")
    return "\n".join(lines)
