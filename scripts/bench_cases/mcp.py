"""Latency of MCP tool calls over Streamable HTTP, with 1 and 8 concurrent agents.

The server runs in a child process (as for real agents), the agents in this one:
each agent is its own MCP session (`mcp.Client` over HTTP) calling one tool in a
loop; every call's round trip is timed. Reported per workload and agent count:
p50 / p99 / mean latency, total calls per second, and the server process's CPU
time per call (Linux `/proc`; the rest of a round trip is the client's CPU and
the wait between the two processes).

`nereid.ping` (no actor work) is the floor: the cost of HTTP + MCP + the tool
framework alone. Real tools join with one line in `WORKLOADS`; a workload whose
tool the server does not serve is reported as skipped. The server uses the
session from `nereid.commands.session.open_mcp_session(demo=True)` when that
exists, else an empty runtime with the diagnostic tools only.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

import trio

DESCRIPTION = "MCP over Streamable HTTP: p50/p99 tool-call latency, 1 and 8 agents"


@dataclass(frozen=True)
class Workload:
    """One tool called again and again by each agent.

    `arguments(agent, run)` gives an agent's first arguments; `setup(client, agent, run)`
    prepares what the agent works on (untimed); `follow(arguments, reply)` gives the next
    call's arguments from the last reply (e.g. the next `base_rev`). `run` numbers the
    measurement rounds so each round can use fresh objects.
    """

    tool: str
    arguments: Callable[[int, int], dict[str, Any]]
    setup: Callable[[Any, int, int], Awaitable[None]] | None = None
    follow: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None


def _bench_diagram(agent: int, run: int) -> str:
    return f"bench-{run}-{agent}"


async def _create_bench_diagram(client: Any, agent: int, run: int) -> None:
    """Each agent edits its own small flowchart (no base_rev conflicts in the timing)."""
    await client.call_tool(
        "diagram.create_from_mermaid",
        {
            "mermaid": "flowchart LR\n  x[Start] --> y[Done]\n",
            "diagram_id": _bench_diagram(agent, run),
            "make_active": False,
        },
    )


def _apply_arguments(agent: int, run: int) -> dict[str, Any]:
    return {
        "diagram_id": _bench_diagram(agent, run),
        "base_rev": 0,
        "ops": [{"type": "flow_update_node", "node_id": "n:x", "label": "label 0"}],
    }


def _next_apply(arguments: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
    rev = reply["new_rev"]
    ops = [{"type": "flow_update_node", "node_id": "n:x", "label": f"label {rev}"}]
    return {**arguments, "base_rev": rev, "ops": ops}


WORKLOADS: list[Workload] = [
    Workload("nereid.ping", lambda agent, run: {}),
    # A read: the demo's order flowchart (snapshot from its actor + the read context).
    Workload("diagram.stat", lambda agent, run: {"diagram_id": "order-flow"}),
    # A real write: one op, a new rev every call (in-memory demo session: no disk I/O).
    Workload(
        "diagram.apply_ops",
        _apply_arguments,
        setup=_create_bench_diagram,
        follow=_next_apply,
    ),
]


@dataclass(frozen=True)
class Result:
    workload: str
    agents: int
    latencies_ms: list[float]
    wall_s: float
    server_cpu_s: float | None

    def row(self) -> str:
        lat = sorted(self.latencies_ms)
        p99 = statistics.quantiles(lat, n=100)[98] if len(lat) >= 2 else lat[0]
        cpu = "n/a" if self.server_cpu_s is None else f"{self.server_cpu_s * 1000 / len(lat):.3f}"
        return (
            f"  {self.workload:<20} {self.agents:>6} {statistics.median(lat):>9.3f} "
            f"{p99:>9.3f} {statistics.fmean(lat):>9.3f} {len(lat) / self.wall_s:>10.0f} "
            f"{cpu:>10}"
        )


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process `pid` so far (Linux), else None."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# -- server (child process) -------------------------------------------------------


@asynccontextmanager
async def _session_parts() -> AsyncIterator[Any]:
    from nereid.actors import open_runtime
    from nereid.mcp import EndpointParts, ToolTable

    try:
        module = importlib.import_module("nereid.commands.session")
        opener = getattr(module, "open_mcp_session", None)
    except ModuleNotFoundError:
        opener = None
    if opener is not None:
        async with opener(None, demo=True, durable_writes=False) as parts:
            yield parts
        return
    async with open_runtime() as runtime:
        yield EndpointParts(runtime=runtime, tools=ToolTable())


async def _serve_forever() -> None:
    from nereid.mcp import McpEndpoint, ToolTable, serve_http
    from nereid.mcp.diagnostics import diagnostic_tools

    async with _session_parts() as parts:
        tools = ToolTable([*parts.tools, *diagnostic_tools()])
        endpoint = McpEndpoint(parts.runtime, tools, resources=parts.resources, hooks=parts.hooks)
        async with trio.open_nursery() as nursery:
            url = await nursery.start(partial(serve_http, endpoint, port=0))
            print(url, flush=True)


# -- agents (this process) ----------------------------------------------------------


async def _agent(
    url: str, workload: Workload, agent: int, run: int, calls: int, warmup: int, out: list[float]
) -> None:
    from mcp import Client

    async with Client(url) as client:
        if workload.setup is not None:
            await workload.setup(client, agent, run)
        arguments = workload.arguments(agent, run)

        async def once() -> None:
            nonlocal arguments
            result = await client.call_tool(workload.tool, arguments)
            if workload.follow is not None:
                assert result.structured_content is not None, result
                arguments = workload.follow(arguments, result.structured_content)

        for _ in range(warmup):
            await once()
        for _ in range(calls):
            start = time.perf_counter()
            await once()
            out.append((time.perf_counter() - start) * 1000.0)


async def _served_tools(url: str) -> set[str]:
    from mcp import Client

    async with Client(url) as client:
        return {tool.name for tool in (await client.list_tools()).tools}


async def _measure(
    url: str, agent_counts: list[int], calls: int, warmup: int, server_pid: int
) -> list[Result]:
    served = await _served_tools(url)
    results: list[Result] = []
    run = 0
    for workload in WORKLOADS:
        if workload.tool not in served:
            print(f"  {workload.tool:<20} skipped (not served by this build)")
            continue
        for agents in agent_counts:
            latencies: list[float] = []
            cpu_before = _cpu_seconds(server_pid)
            start = time.perf_counter()
            run += 1
            async with trio.open_nursery() as nursery:
                for agent in range(agents):
                    nursery.start_soon(_agent, url, workload, agent, run, calls, warmup, latencies)
            wall = time.perf_counter() - start
            cpu_after = _cpu_seconds(server_pid)
            cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
            # The server's CPU also covers session setup and warm-up calls: spread it
            # over the timed calls only as an upper bound.
            results.append(Result(workload.tool, agents, latencies, wall, cpu))
    return results


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench mcp", description=DESCRIPTION)
    parser.add_argument("--calls", type=int, default=300, help="timed calls per agent")
    parser.add_argument("--warmup", type=int, default=20, help="untimed calls per agent first")
    parser.add_argument("--agents", default="1,8", help="comma-separated agent counts")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.serve:
        trio.run(_serve_forever)
        return 0
    agent_counts = [int(n) for n in options.agents.split(",")]
    child = subprocess.Popen(
        [sys.executable, sys.argv[0], "mcp", "--serve"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        url = child.stdout.readline().strip()
        if not url.startswith("http://"):
            print(f"server did not start (got {url!r})", file=sys.stderr)
            return 1
        print(f"server {url}; {options.calls} calls per agent after {options.warmup} warm-up")
        print("(srv cpu ms: server CPU per timed call, incl. session setup and warm-up)")
        print(
            f"  {'tool':<20} {'agents':>6} {'p50 ms':>9} {'p99 ms':>9} {'mean ms':>9} "
            f"{'calls/s':>10} {'srv cpu ms':>10}"
        )
        measured = trio.run(_measure, url, agent_counts, options.calls, options.warmup, child.pid)
        for result in measured:
            print(result.row())
    finally:
        child.terminate()
        child.wait(timeout=10)
    return 0
