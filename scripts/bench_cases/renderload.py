"""Other agents' read latency while one agent renders a 1000-node flowchart.

A real server (its own process, a fresh session folder with its persister: the `mcp`
bench case's timed server) and MCP agents over Streamable HTTP (this process).
`--readers` agents call `diagram.stat` on a small diagram at `--rate` calls per second
each (paced, as agents call; back to back with `--rate 0`). Three phases of `--seconds`
each, in one run: readers alone, readers while one more agent calls
`diagram.render_text` on a 1000-node flowchart back to back (the drawing is made in a
worker process, then found too big for one MCP message and refused: the work is the
point), readers alone again.

Two latencies per read, as in `scripts/bench mcp`:
- **server**: the time the server spends on the read's HTTP request (ASGI entry to
  response sent) - what one agent's render can take from the others, and what the target
  is judged on;
- **round trip**: what the reading agent waits for, including its own SDK client's work
  in this process (on a 2-core machine that is most of it, render or not).

Target (architecture §8): the readers' server p99 while the renderer runs <= 20 ms, shown
next to the same figure with no renderer (both quiet phases, measured in the same run).
Exit status 1 if the target is missed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, NamedTuple

import trio

DESCRIPTION = "Readers' p99 while one agent renders a 1000-node flowchart, vs no renderer"

TARGET_P99_MS = 20.0


def _p(samples: list[float], q: int) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[q - 1]


async def _render(renderer: Any, outcome: list[str], render_ms: list[float]) -> None:
    """One `diagram.render_text` of the big diagram: its outcome and duration."""
    from mcp.shared.exceptions import MCPError

    started = time.perf_counter()
    try:
        await renderer.client.call_tool("diagram.render_text", {"diagram_id": "big"})
        outcome.append("text")
    except MCPError as error:
        outcome.append(error.error.message.split(":")[0])
    render_ms.append((time.perf_counter() - started) * 1000)


async def _render_loop(
    renderer: Any, outcome: list[str], ms: list[float], stop: trio.Event
) -> None:
    while not stop.is_set():
        await _render(renderer, outcome, ms)


async def _read_loop(
    reader: Any, samples: list[float], stop: trio.Event, interval: float, phase: float
) -> None:
    """Paced reads (one per `interval` s; a late call is not made up): latency, not saturation.

    Reader k starts `phase` = k/readers of an interval late, as agents' calls are not locked
    in step (in step, every reader would queue behind the others on every tick).
    """
    due = trio.current_time() + phase
    while not stop.is_set():
        await trio.sleep_until(due)
        started = time.perf_counter()
        await reader.call("diagram.stat", {"diagram_id": "small"})
        samples.append((time.perf_counter() - started) * 1000)
        due = max(due + interval, trio.current_time()) if interval > 0 else trio.current_time()


async def _phases(
    server: subprocess.Popen[str],
    url: str,
    readers: int,
    seconds: float,
    nodes: int,
    interval: float,
) -> Result:
    from nereid.testing.big_diagrams import flowchart
    from nereid.testing.mcp_workspace import connect

    async with AsyncExitStack() as stack:
        renderer = await stack.enter_async_context(connect(url, "renderer"))
        await renderer.call(
            "diagram.create_from_mermaid",
            {"mermaid": flowchart(nodes), "diagram_id": "big", "make_active": False},
        )
        await renderer.call(
            "diagram.create_from_mermaid",
            {"mermaid": "flowchart LR\n  a[A] --> b[B]\n", "diagram_id": "small"},
        )
        workspaces = [
            await stack.enter_async_context(connect(url, f"reader-{k + 1}")) for k in range(readers)
        ]
        outcome: list[str] = []
        render_ms: list[float] = []
        # Warm-up (untimed): the first big render starts a worker process.
        await _render(renderer, [], [])
        for reader in workspaces:
            for _ in range(20):
                await reader.call("diagram.stat", {"diagram_id": "small"})
        phases: list[Phase] = []
        for name, with_renderer in PHASES:
            samples: list[float] = []
            stop = trio.Event()
            if (await trio.to_thread.run_sync(_ask, server, "reset")).strip() != "ok":
                raise RuntimeError("the server did not reset its clock")
            async with trio.open_nursery() as phase:
                if with_renderer:
                    phase.start_soon(_render_loop, renderer, outcome, render_ms, stop)
                for k, reader in enumerate(workspaces):
                    offset = interval * k / len(workspaces)
                    phase.start_soon(_read_loop, reader, samples, stop, interval, offset)
                await trio.sleep(seconds)
                stop.set()
            report = json.loads(await trio.to_thread.run_sync(_ask, server, "dump"))
            phases.append(Phase(name, samples, report["by_tool"].get("diagram.stat", [])))
    return Result(phases, render_ms, outcome)


PHASES = (("no renderer", False), ("1 renderer", True), ("no renderer (again)", False))


class Phase(NamedTuple):
    name: str
    round_trip_ms: list[float]
    server_ms: list[float]


class Result(NamedTuple):
    phases: list[Phase]
    render_ms: list[float]
    outcome: list[str]


def _ask(server: subprocess.Popen[str], command: str) -> str:
    """A command to the timed server (`reset`, `dump`) and its one-line answer."""
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(command + "\n")
    server.stdin.flush()
    return server.stdout.readline()


def _start_server(folder: Path) -> subprocess.Popen[str]:
    """The `mcp` bench case's timed server on a fresh session folder."""
    return subprocess.Popen(
        [sys.executable, sys.argv[0], "mcp", "--serve", "--folder", str(folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _stop_server(server: subprocess.Popen[str]) -> None:
    if server.stdin is not None:
        server.stdin.close()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


async def _measure(
    server: subprocess.Popen[str], readers: int, seconds: float, nodes: int, rate: float
) -> int:
    assert server.stdout is not None
    url = (await trio.to_thread.run_sync(server.stdout.readline)).strip()
    if not url.startswith("http"):
        raise RuntimeError(f"the server did not start (said {url!r})")
    result = await _phases(server, url, readers, seconds, nodes, 1.0 / rate if rate > 0 else 0.0)
    print(
        f"Readers' diagram.stat (ms) over HTTP, {readers} readers "
        + (f"at {rate:g} calls/s each, " if rate > 0 else "back to back, ")
        + f"{seconds:g} s per phase; renderer: diagram.render_text of a {nodes}-node flowchart"
    )
    print(
        f"  {'phase':<20} {'reads':>6} {'srv p50':>8} {'srv p99':>8} {'srv max':>8}"
        f" {'rt p50':>8} {'rt p99':>8}"
    )
    for phase in result.phases:
        srv, rt = phase.server_ms, phase.round_trip_ms
        print(
            f"  {phase.name:<20} {len(srv):>6} {statistics.median(srv):>8.2f} "
            f"{_p(srv, 99):>8.2f} {max(srv):>8.2f} {statistics.median(rt):>8.2f} "
            f"{_p(rt, 99):>8.2f}"
        )
    quiet_p99 = max(_p(p.server_ms, 99) for p in result.phases if not p.name.startswith("1 "))
    loaded_p99 = _p(result.phases[1].server_ms, 99)
    print(
        f"  renders: {len(result.render_ms)} calls, median "
        f"{statistics.median(result.render_ms):.0f} ms each "
        f"(outcome: {', '.join(sorted(set(result.outcome)))})"
    )
    met = loaded_p99 <= TARGET_P99_MS
    print(
        f"  server p99 with renderer / without: {loaded_p99:.2f} / {quiet_p99:.2f} ms = "
        f"{loaded_p99 / quiet_p99:.2f}x; target p99 <= {TARGET_P99_MS:g} ms: "
        + ("met" if met else "MISSED")
    )
    return 0 if met else 1


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench renderload", description=__doc__)
    parser.add_argument("--readers", type=int, default=3, help="reading agents (default 3)")
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds per phase")
    parser.add_argument("--nodes", type=int, default=1000, help="nodes of the rendered flowchart")
    parser.add_argument(
        "--rate",
        type=float,
        default=10.0,
        help="calls per second per reader (default 10, an agent's pace; 0: back to back, "
        "which measures saturation of the machine rather than latency)",
    )
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="nereid-renderload-")) / "session"
    folder.mkdir()
    server = _start_server(folder)
    try:
        return trio.run(_measure, server, args.readers, args.seconds, args.nodes, args.rate)
    finally:
        _stop_server(server)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
