"""Generated Mermaid texts of a chosen size, for the render-budget tests and benchmarks.

`flowchart(n)` is a connected flowchart of `n` nodes in the shape of the benchmark
corpus (each node linked forward, every third one with an extra labelled edge): the size
agents really draw. `dense_flowchart(nodes, edges)` is a seeded random multigraph, which
with many edges per node is the shape that exhausted time and memory before the budget.
"""

from __future__ import annotations

import random

__all__ = ["dense_flowchart", "flowchart", "long_sequence"]


def flowchart(n: int, seed: int = 7) -> str:
    """A flowchart of `n` nodes and about 1.33 n edges."""
    rnd = random.Random(seed)
    lines = ["flowchart TD"]
    for i in range(n):
        lines.append(f"  n{i}[Node {i}] --> n{(i * 7 + 1) % n}")
        if i % 3 == 0:
            lines.append(f"  n{i} -->|label {i}| n{rnd.randrange(n)}")
    return "\n".join(lines) + "\n"


def dense_flowchart(nodes: int, edges: int, seed: int = 1) -> str:
    """`nodes` nodes and `edges` edges between random pairs."""
    rnd = random.Random(seed)
    lines = ["flowchart TD", *(f"  n{i}[Node {i}]" for i in range(nodes))]
    lines.extend(f"  n{rnd.randrange(nodes)} --> n{rnd.randrange(nodes)}" for _ in range(edges))
    return "\n".join(lines) + "\n"


def long_sequence(participants: int, messages: int, seed: int = 1) -> str:
    """A sequence diagram of random messages between `participants` participants."""
    rnd = random.Random(seed)
    lines = ["sequenceDiagram", *(f"  participant P{i}" for i in range(participants))]
    lines.extend(
        f"  P{rnd.randrange(participants)}->>P{rnd.randrange(participants)}: message {k}"
        for k in range(messages)
    )
    return "\n".join(lines) + "\n"
