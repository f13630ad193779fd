"""State diagrams (spec decision 24): parse, export and render a generated 300-state machine.

The diagram (`state_text(n)`): n states in a main chain with back edges, every tenth a
`<<choice>>` with two ways out, every thirtieth state a composite holding four states with
its own `[*]` and two concurrency regions, notes (two on a state), floating notes linked to
states, styles and descriptions here and there. The peer
in the same run is the flowchart of the same graph (same ids, edges, subgraphs for the
composites), so `state/flow` says what the state kind costs over the flowchart machinery it
reuses (its import is a hand parser, its drawing the flowchart layout on a projection):
the flowchart's text is parsed and its AST rendered in the same run.

Targets (median, 300 states): parse <= 100 ms, export <= 40 ms, render <= 1500 ms, and
state/flow <= 1.5 for both parse and render (the new kind must cost about what the kind it
reuses does). Exit status 1 if one is missed.
"""

from __future__ import annotations

import argparse

from ._common import Timing, against_target, time_sync

DESCRIPTION = "State diagrams: parse / export / render a 300-state machine vs the same flowchart"

TARGET_MS = {"parse": 100.0, "export": 40.0, "render": 1500.0}
TARGET_RATIO = 1.5


def state_text(n: int) -> str:
    """A state machine of `n` top-level states (see the module docstring)."""
    lines = ["stateDiagram-v2", "[*] --> S0"]
    for i in range(n):
        name = f"S{i}"
        if i % 30 == 29:
            lines += [f"state {name} {{", f"  [*] --> {name}a", f"  {name}a --> {name}b : go"]
            lines += [f"  {name}b --> [*]", "  --", f"  [*] --> {name}c", f"  {name}c --> {name}d"]
            lines += ["}"]
        elif i % 10 == 9:
            lines.append(f"state {name} <<choice>>")
        elif i % 7 == 0:
            lines.append(f"{name} : step {i}")
        if i + 1 < n:
            lines.append(f"{name} --> S{i + 1}" + (" : yes" if i % 10 == 9 else ""))
        if i % 10 == 9 and i >= 10:
            lines.append(f"{name} --> S{i - 8} : no")
        if i % 25 == 0 and i:
            lines.append(f"note right of {name} : checkpoint {i}")
            lines.append(f"note left of {name} : second note {i}")
        if i % 50 == 10:
            lines += [f'note "memo {i}" as N{i}', f"N{i} --> {name}"]
        if i % 40 == 0:
            lines.append(f"style {name} fill:#f00,stroke:#333")
    lines.append(f"S{n - 1} --> [*]")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench state", description=DESCRIPTION)
    parser.add_argument("--states", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)

    from nereid.mermaid import export_flowchart, export_state, parse_flowchart, parse_state
    from nereid.model.state_flow import state_as_flowchart
    from nereid.render import render_flowchart, render_state

    text = state_text(args.states)
    ast = parse_state(text)
    flow = state_as_flowchart(ast)
    rows: list[tuple[str, Timing]] = [
        ("parse", time_sync(lambda: parse_state(text), runs=args.runs)),
        ("export", time_sync(lambda: export_state(ast), runs=args.runs)),
        ("render", time_sync(lambda: render_state(ast, "d"), runs=args.runs)),
    ]
    flow_text = export_flowchart(flow)
    peers = {
        "parse": time_sync(lambda: parse_flowchart(flow_text), runs=args.runs),
        "render": time_sync(lambda: render_flowchart(flow, "d"), runs=args.runs),
    }
    print(
        f"state diagram: {len(ast.states)} states (with [*] and nested), "
        f"{len(ast.transitions)} transitions, {len(text.splitlines())} lines"
    )
    print(f"{'step':<8} {'best ms':>9} {'median ms':>10}  target  flowchart ms  state/flow")
    missed = False
    for name, timing in rows:
        verdict, miss = against_target(timing, TARGET_MS.get(name))
        missed |= miss
        peer = peers.get(name)
        versus = ""
        if peer is not None:
            ratio = timing.median_ms / peer.median_ms
            ok = ratio <= TARGET_RATIO
            missed |= not ok
            versus = f"{peer.median_ms:>12.1f}  {ratio:.2f} ({'<=' if ok else '>'}{TARGET_RATIO})"
        print(f"{name:<8} {timing.best_ms:>9.1f} {timing.median_ms:>10.1f}  {verdict:<6}  {versus}")
    return 1 if missed else 0
