"""Latency of MCP tool calls over Streamable HTTP, with 1 and 8 concurrent agents.

Every party runs in its own process, as with real agents: the server (a demo session served
by `serve_http`) in one, each agent (its own MCP session, `mcp.Client` over HTTP) in another. On a machine with 2+ CPUs the server is pinned to CPU 0 and the
agents to the others, so the clients' CPU never starves the server (`--no-pin` turns that off).

Two latencies are taken for every timed call:

- **server**: the time the server spends on the HTTP request (ASGI app entry to response
  sent: transport guards, SDK session routing, the tool, encoding) — Nereid's side, and what
  the targets are judged on;
- **round trip**: what the agent waits for, including its own SDK client work (pydantic
  models, output-schema validation) and the hop between processes.

Agents first set up and warm up every tool (untimed). Then, per agent count, the tools take
turns in short rounds (`--rounds`, the order rotating): in a round every agent calls one tool
in a loop. Background load on the machine thus falls on every tool alike, and the ratios to
the floor compare like with like. The server's samples are reset at the start of each round,
so they hold timed calls only.

**server CPU** per call is also taken: the server process's CPU time (`time.process_time`,
read by the server itself) over each round, divided by the round's calls.

**passes** per call: how many passes of trio's scheduler (one per I/O wait; each runs every
task that is ready) a request spans, the median. It does not depend on the machine's load:
under concurrency a request's server time is about its passes times the work the other
requests do in each, so a hop that adds a pass costs there far more than its own CPU.

The floor is `bare.ping`: a bare MCP SDK server (the SDK's low-level `Server` with one tool
answering "pong", its `StreamableHTTPSessionManager`, hypercorn, trio: Nereid's stack
without Nereid), in its own process, measured in the same run, the same way (its ASGI app
timed from entry to response sent), called by the same agents with the same client, both
sessions opened with the initialize handshake (`mode="legacy"`, the protocol era Nereid
serves).
`nereid.ping` (no actor work) shows what Nereid's transport guard, tool framework and
codec add on top of that floor. Targets: `diagram.stat` and `diagram.apply_ops` server p50
*and* server CPU per call <= 1.2x the floor's, and every workload's p99 <= 3x its own p50.
Exit status 1 if one is missed.

The ratios to the floor are paired by round: a tool's round r and the floor's round r ran
within the same minute or so, so their ratio is free of the machine's load drifting
between rounds; the figure judged is the median of the rounds' ratios (the pooled p50
ratio is printed too).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import IO, Any

import trio

DESCRIPTION = "MCP over Streamable HTTP: p50/p99 tool-call latency, 1 and 8 agents"

#: Server p50 over the floor's (`nereid.ping`) p50, per tool; p99 over p50 for every tool.
FLOOR_TARGET = {"diagram.stat": 1.2, "diagram.apply_ops": 1.2}
TAIL_TARGET = 3.0
FLOOR = "bare.ping"


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


WORKLOADS: dict[str, Workload] = {
    workload.tool: workload
    for workload in [
        Workload(FLOOR, lambda agent, run: {}),
        Workload("nereid.ping", lambda agent, run: {}),
        # A read: the demo's order flowchart (snapshot from its actor + the read context).
        Workload("diagram.stat", lambda agent, run: {"diagram_id": "order-flow"}),
        # A real write: one op, a new rev every call (in-memory demo session: no disk I/O).
        Workload(
            "diagram.apply_ops", _apply_arguments, setup=_create_bench_diagram, follow=_next_apply
        ),
    ]
}


# -- figures -------------------------------------------------------------------------------


def _p99(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[98]


@dataclass(frozen=True)
class Result:
    """One workload at one agent count: both latencies (ms) and the server's CPU."""

    workload: str
    agents: int
    round_trip_ms: list[float]
    server_ms: list[float]
    solo_ms: list[float]
    gc_pauses_ms: list[float]
    wall_s: float
    server_cpu_s: float
    #: Per round: (server p50 ms, server CPU ms per call), for the paired ratios.
    rounds: list[tuple[float, float]]
    #: Scheduler passes each timed request spanned.
    passes: list[int]

    @property
    def server_p50(self) -> float:
        return statistics.median(self.server_ms)

    @property
    def server_p99(self) -> float:
        return _p99(self.server_ms)

    def paired(self, floor: Result) -> tuple[float, float]:
        """Median over the rounds of (p50, CPU per call) over the floor's same round."""
        pairs = list(zip(self.rounds, floor.rounds, strict=True))
        return (
            statistics.median(mine[0] / base[0] for mine, base in pairs),
            statistics.median(mine[1] / base[1] for mine, base in pairs),
        )

    def row(self, floor: Result | None) -> str:
        trip = self.round_trip_ms
        calls = len(trip)
        cpu = f"{self.server_cpu_s * 1000 / calls:.3f}"
        pooled = "-" if floor is None else f"{self.server_p50 / floor.server_p50:.2f}x"
        p50_ratio, cpu_ratio = ("-", "-") if floor is None else self.paired(floor)
        vs_floor = p50_ratio if isinstance(p50_ratio, str) else f"{p50_ratio:.2f}x"
        cpu_floor = cpu_ratio if isinstance(cpu_ratio, str) else f"{cpu_ratio:.2f}x"
        solo = f"{_p99(self.solo_ms):.3f}" if len(self.solo_ms) >= 2 else "-"
        passes = statistics.median(self.passes) if self.passes else 0.0
        floor_passes = statistics.median(floor.passes) if floor and floor.passes else 0.0
        pass_ratio = f"{passes / floor_passes:.2f}x" if floor_passes else "-"
        return (
            f"  {self.workload:<18} {self.agents:>3} {self.server_p50:>8.3f} "
            f"{self.server_p99:>8.3f} {self.server_p99 / self.server_p50:>6.1f} {vs_floor:>7} "
            f"{pooled:>7} "
            f"{solo:>8} {len(self.solo_ms) * 100 / calls:>5.0f}% "
            f"{statistics.median(trip):>8.3f} {_p99(trip):>8.3f} "
            f"{calls / self.wall_s:>7.0f} {cpu:>7} {cpu_floor:>7} {passes:>6.1f} {pass_ratio:>7} "
            f"{len(self.gc_pauses_ms):>5} {max(self.gc_pauses_ms, default=0.0):>6.2f}"
        )

    def misses(self, floor: Result | None) -> list[str]:
        """The targets this result misses, as sentences."""
        missed = []
        tail = self.server_p99 / self.server_p50
        if tail > TAIL_TARGET:
            missed.append(f"{self.workload} x{self.agents}: p99 {tail:.1f}x p50 > {TAIL_TARGET}x")
        limit = FLOOR_TARGET.get(self.workload)
        if limit is not None and floor is not None:
            for what, over in zip(("p50", "CPU per call"), self.paired(floor), strict=True):
                if over > limit:
                    missed.append(
                        f"{self.workload} x{self.agents}: {what} {over:.2f}x the floor > {limit}x"
                    )
        return missed


def _pin(cpus: set[int] | None) -> None:
    if cpus is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, cpus)


def _cpu_split(pin: bool) -> tuple[set[int] | None, set[int] | None]:
    """(server CPUs, agent CPUs): CPU 0 for the server, the rest for the agents."""
    available = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if not pin or len(available) < 2:
        return None, None
    return {available[0]}, set(available[1:])


# -- server (child process) ----------------------------------------------------------------


class PassCounter(trio.abc.Instrument):
    """Counts the passes of trio's scheduler (each ends in one wait for I/O)."""

    def __init__(self) -> None:
        self.passes = 0

    def after_io_wait(self, timeout: float) -> None:
        self.passes += 1


PASSES = PassCounter()


class ServerClock:
    """Times every `tools/call` POST of the ASGI app `serve_http` builds, and GC pauses."""

    def __init__(self) -> None:
        self.samples_ms: list[float] = []
        self.passes: list[int] = []
        self.by_tool_ms: dict[str, list[float]] = {}
        self.solo_ms: list[float] = []
        self.gc_pauses_ms: list[float] = []
        self.in_flight = 0
        self.idle = trio.Event()  # set while no POST is in flight
        self.idle.set()
        self._gc_start = 0.0
        self._cpu_start = time.process_time()

    def reset(self) -> None:
        self._cpu_start = time.process_time()
        self.samples_ms.clear()
        self.passes.clear()
        self.by_tool_ms.clear()
        self.solo_ms.clear()
        self.gc_pauses_ms.clear()

    def report(self) -> dict[str, Any]:
        return {
            "samples": self.samples_ms,
            "passes": self.passes,
            "by_tool": self.by_tool_ms,
            "solo": self.solo_ms,
            "gc_pauses": self.gc_pauses_ms,
            "cpu_s": time.process_time() - self._cpu_start,
        }

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            self.gc_pauses_ms.append((time.perf_counter() - self._gc_start) * 1000.0)

    def install(self) -> None:
        """Time Nereid's HTTP app (`serve_http`'s `HttpGuard`)."""
        from nereid.mcp import http

        http.HttpGuard.__call__ = self.timed(http.HttpGuard.__call__)  # type: ignore[method-assign]

    def timed(self, original: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
        """`original(owner, scope, receive, send)` (an ASGI app's `__call__`), timed."""
        clock = self
        gc.callbacks.append(self._on_gc)

        async def timed(guard: Any, scope: Any, receive: Any, send: Any) -> None:
            if scope.get("method") != "POST":
                await original(guard, scope, receive, send)
                return
            start = time.perf_counter()
            passes = PASSES.passes
            alone = clock.in_flight == 0
            if alone:
                clock.idle = trio.Event()
            clock.in_flight += 1
            body = bytearray()

            async def peek() -> Any:
                message = await receive()
                body.extend(message.get("body", b""))
                return message

            try:
                await original(guard, scope, peek, send)
            finally:
                clock.in_flight -= 1
                if clock.in_flight == 0:
                    clock.idle.set()
            if b'"tools/call"' in body:
                elapsed = (time.perf_counter() - start) * 1000.0
                clock.samples_ms.append(elapsed)
                clock.passes.append(PASSES.passes - passes)
                clock.by_tool_ms.setdefault(_tool_name(bytes(body)), []).append(elapsed)
                if alone:
                    clock.solo_ms.append(elapsed)

        return timed


def _tool_name(body: bytes) -> str:
    """The tool a `tools/call` POST body names ("?" if it cannot be read)."""
    try:
        params = json.loads(body).get("params") or {}
    except (ValueError, AttributeError):
        return "?"
    name = params.get("name") if isinstance(params, dict) else None
    return name if isinstance(name, str) else "?"


def _serve(profile: str | None, bare: bool = False, folder: str | None = None) -> None:
    """Run the server; with `profile`, under cProfile, its stats written there at exit.

    `folder`: serve that session folder (with its persister) instead of the demo session.
    """
    serve = _serve_bare_forever if bare else partial(_serve_forever, folder)
    if profile is None:
        trio.run(serve, instruments=[PASSES])
        return
    import cProfile

    profiler = cProfile.Profile()
    profiler.enable()
    try:
        trio.run(serve, instruments=[PASSES])
    finally:
        profiler.disable()
        profiler.dump_stats(profile)


async def _serve_forever(folder: str | None = None) -> None:
    from nereid.commands.session import open_mcp_session
    from nereid.mcp import McpEndpoint, ToolTable, serve_http
    from nereid.mcp.diagnostics import diagnostic_tools

    clock = ServerClock()
    clock.install()
    async with open_mcp_session(folder, demo=folder is None, durable_writes=False) as parts:
        tools = ToolTable([*parts.tools, *diagnostic_tools()])
        endpoint = McpEndpoint(parts.runtime, tools, resources=parts.resources, hooks=parts.hooks)
        async with trio.open_nursery() as nursery:
            url = await nursery.start(partial(serve_http, endpoint, port=0))
            print(url, flush=True)
            await _serve_commands(clock)
            nursery.cancel_scope.cancel()


async def _serve_commands(clock: ServerClock) -> None:
    """Commands on stdin: `reset` clears the samples, `dump` prints them (JSON)."""
    while line := await trio.to_thread.run_sync(sys.stdin.readline):
        if line.strip() == "reset":
            clock.reset()
            print("ok", flush=True)
        elif line.strip() == "dump":
            # An agent has its reply a moment before its request's timing is noted.
            await clock.idle.wait()
            print(json.dumps(clock.report()), flush=True)


class _BareApp:
    """The bare server's ASGI app: the SDK's session manager at /mcp, nothing else."""

    def __init__(self, manager: Any) -> None:
        self.manager = manager

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/mcp":
            await self.manager.handle_request(scope, receive, send)
        elif scope["type"] == "http":
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b""})
        elif scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})


async def _serve_bare_forever() -> None:
    """The floor: one `bare.ping` tool on the bare SDK + hypercorn + trio stack."""
    import mcp.types as types
    from hypercorn.config import Config
    from hypercorn.trio import serve
    from mcp.server.lowlevel import Server
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

    from nereid.mcp.heap import settle_heap

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        tool = types.Tool(name=FLOOR, description="pong", input_schema={"type": "object"})
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text="pong")])

    server = Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)
    manager = StreamableHTTPSessionManager(
        app=server,
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    clock = ServerClock()
    _BareApp.__call__ = clock.timed(_BareApp.__call__)  # type: ignore[method-assign]
    config = Config()
    config.bind = ["127.0.0.1:0"]
    config.accesslog = None
    config.loglevel = "WARNING"
    config.graceful_timeout = 1.0
    async with manager.run(), trio.open_nursery() as nursery:
        binds = await nursery.start(partial(serve, _BareApp(manager), config, mode="asgi"))
        settle_heap()  # the same GC settings as Nereid's server: only the request path differs
        print(f"{binds[0]}/mcp", flush=True)
        await _serve_commands(clock)
        nursery.cancel_scope.cancel()


# -- agents (one child process each) -------------------------------------------------------


async def _agent(
    url: str, bare_url: str, tools: list[str], agent: int, run: int, warmup: int
) -> None:
    """One MCP session with Nereid (and one with the bare floor server): set up and warm up
    every tool, say `ready`, then serve commands.

    `go TOOL N` times N calls of TOOL and prints their latencies (JSON); end of input ends
    the session.
    """
    from mcp import Client

    # Both with the initialize handshake: Nereid serves only handshake-era sessions (what
    # every host speaks), and a bare server reached with the 2026 sessionless protocol would
    # take the SDK's other request path (JSON replies, no SSE stream): no floor at all.
    async with Client(url, mode="legacy") as nereid, Client(bare_url, mode="legacy") as bare:
        arguments: dict[str, dict[str, Any]] = {}
        client = nereid

        async def once(tool: str) -> None:
            workload = WORKLOADS[tool]
            result = await (bare if tool == FLOOR else nereid).call_tool(tool, arguments[tool])
            if result.is_error:
                raise RuntimeError(f"{tool} failed: {result}")
            if workload.follow is not None:
                assert result.structured_content is not None, result
                arguments[tool] = workload.follow(arguments[tool], result.structured_content)

        for tool in tools:
            workload = WORKLOADS[tool]
            if workload.setup is not None:
                await workload.setup(client, agent, run)
            arguments[tool] = workload.arguments(agent, run)
            for _ in range(warmup):
                await once(tool)
        print("ready", flush=True)
        while command := (await trio.to_thread.run_sync(sys.stdin.readline)).split():
            _, tool, count = command
            latencies: list[float] = []
            for _ in range(int(count)):
                start = time.perf_counter()
                await once(tool)
                latencies.append((time.perf_counter() - start) * 1000.0)
            print(json.dumps(latencies), flush=True)


# -- the conductor (this process) ----------------------------------------------------------


def _pipes(child: subprocess.Popen[str]) -> tuple[IO[str], IO[str]]:
    assert child.stdin is not None and child.stdout is not None
    return child.stdin, child.stdout


def _tell(child: subprocess.Popen[str], command: str) -> None:
    stdin = _pipes(child)[0]
    stdin.write(command + "\n")
    stdin.flush()


def _ask(child: subprocess.Popen[str], command: str) -> str:
    _tell(child, command)
    return _pipes(child)[1].readline()


def _spawn(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, sys.argv[0], "mcp", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


@dataclass
class _Tally:
    """One tool's samples at one agent count, gathered over the rounds."""

    round_trip_ms: list[float]
    server_ms: list[float]
    solo_ms: list[float]
    gc_pauses_ms: list[float]
    rounds: list[tuple[float, float]]
    passes: list[int]
    wall_s: float = 0.0
    server_cpu_s: float = 0.0


def _round(
    server: subprocess.Popen[str], agents: list[subprocess.Popen[str]], tool: str, calls: int
) -> tuple[list[float], dict[str, Any], float]:
    """Every agent makes `calls` timed calls of `tool` at once; both sides' samples."""
    if _ask(server, "reset").strip() != "ok":
        raise RuntimeError("server did not reset its clock")
    start = time.perf_counter()
    for agent in agents:
        _tell(agent, f"go {tool} {calls}")
    round_trip: list[float] = []
    for agent in agents:
        round_trip.extend(json.loads(_pipes(agent)[1].readline()))
    wall = time.perf_counter() - start
    report = json.loads(_ask(server, "dump"))
    if len(report["samples"]) != len(round_trip):
        raise RuntimeError(f"server timed {len(report['samples'])} calls, agents {len(round_trip)}")
    return round_trip, report, wall


def _measure(
    servers: dict[str, subprocess.Popen[str]],
    urls: tuple[str, str],
    tools: list[str],
    agent_count: int,
    options: argparse.Namespace,
    agent_cpus: set[int] | None,
) -> list[Result]:
    """All `tools` at one agent count, interleaved round by round (so background load on the
    machine falls on every tool alike), the tool order rotating each round."""
    pin = [] if agent_cpus is None else ["--cpus", ",".join(map(str, sorted(agent_cpus)))]
    agents = [
        _spawn(
            ["--agent", *urls, ",".join(tools), str(agent), str(agent_count), str(options.warmup)]
            + pin
        )
        for agent in range(agent_count)
    ]
    tallies = {tool: _Tally([], [], [], [], [], []) for tool in tools}
    calls = max(1, options.calls // (agent_count * options.rounds))
    try:
        for agent in agents:
            if _pipes(agent)[1].readline().strip() != "ready":
                raise RuntimeError("an agent did not get ready")
        for number in range(options.rounds):
            for tool in tools[number % len(tools) :] + tools[: number % len(tools)]:
                server = servers["bare" if tool == FLOOR else "nereid"]
                round_trip, report, wall = _round(server, agents, tool, calls)
                tally = tallies[tool]
                cpu_ms = report["cpu_s"] * 1000 / len(round_trip)
                tally.rounds.append((statistics.median(report["samples"]), cpu_ms))
                tally.round_trip_ms.extend(round_trip)
                tally.server_ms.extend(report["samples"])
                tally.passes.extend(report["passes"])
                tally.solo_ms.extend(report["solo"])
                tally.gc_pauses_ms.extend(report["gc_pauses"])
                tally.wall_s += wall
                tally.server_cpu_s += report["cpu_s"]
    finally:
        for agent in agents:
            if agent.stdin is not None:
                agent.stdin.close()
        for agent in agents:
            agent.wait(timeout=30)
    return [
        Result(
            tool,
            agent_count,
            tally.round_trip_ms,
            tally.server_ms,
            tally.solo_ms,
            tally.gc_pauses_ms,
            tally.wall_s,
            tally.server_cpu_s,
            tally.rounds,
            tally.passes,
        )
        for tool, tally in tallies.items()
    ]


def _conduct(options: argparse.Namespace) -> int:
    server_cpus, agent_cpus = _cpu_split(options.pin)
    agent_counts = [int(n) for n in options.agents.split(",")]
    tools = options.tools.split(",")
    server = _spawn(
        ["--serve"] + ([] if options.profile is None else ["--profile", options.profile])
    )
    bare = _spawn(
        ["--serve-bare"]
        + ([] if options.profile_bare is None else ["--profile", options.profile_bare])
    )
    for child in (server, bare):
        if server_cpus is not None:
            os.sched_setaffinity(child.pid, server_cpus)
    try:
        url = _pipes(server)[1].readline().strip()
        bare_url = _pipes(bare)[1].readline().strip()
        if not url.startswith("http://") or not bare_url.startswith("http://"):
            print(f"a server did not start (got {url!r}, {bare_url!r})", file=sys.stderr)
            return 1
        placement = (
            f"server on CPU {sorted(server_cpus)}, agents on CPUs {sorted(agent_cpus or ())}"
            if server_cpus is not None
            else "processes not pinned"
        )
        load = " ".join(f"{n:.2f}" for n in os.getloadavg())
        print(
            f"server {url}, bare floor server {bare_url}; load average {load}; {options.calls} timed calls per workload "
            f"in {options.rounds} interleaved rounds, after {options.warmup} warm-up calls "
            f"per agent and tool; {placement}"
        )
        print(
            f"  {'tool':<18} {'ag':>3} {'srv p50':>8} {'srv p99':>8} {'p99/50':>6} "
            f"{'/floor':>7} {'pooled':>7} {'solo p99':>8} {'solo':>6} {'rt p50':>8} {'rt p99':>8} "
            f"{'calls/s':>7} {'cpu ms':>7} {'cpu/fl':>7} {'passes':>6} {'pass/fl':>7} "
            f"{'gcs':>5} {'gc max':>6}"
        )
        missed: list[str] = []
        for agent_count in agent_counts:
            results = _measure(
                {"nereid": server, "bare": bare},
                (url, bare_url),
                tools,
                agent_count,
                options,
                agent_cpus,
            )
            floor = next((result for result in results if result.workload == FLOOR), None)
            for result in results:
                print(result.row(None if result is floor else floor), flush=True)
                missed.extend(result.misses(floor))
        print(
            "  (ms; srv: server time per request, rt: agent's round trip; /floor: srv p50 over "
            f"{FLOOR}'s, the median of the rounds' ratios; pooled: the same over all rounds' "
            "calls; solo p99: srv p99 of the calls that found the server idle, solo: their "
            "share; cpu ms: server CPU per timed call, cpu/fl: over the floor's, paired by "
            "round like /floor; passes: scheduler passes a request spans, the median, pass/fl: "
            "over the floor's; gcs: server GC runs in the timed windows, gc max: the longest)"
        )
        print("  load average at the end: " + " ".join(f"{n:.2f}" for n in os.getloadavg()))
        print(
            f"  targets: srv p50 and CPU per call <= {FLOOR_TARGET} x the floor, p99 <= {TAIL_TARGET}x p50: "
            + ("all met" if not missed else "missed: " + "; ".join(missed))
        )
        return 1 if missed else 0
    finally:
        for child in (server, bare):
            if child.stdin is not None:
                child.stdin.close()
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.terminate()
                child.wait(timeout=10)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench mcp", description=DESCRIPTION)
    parser.add_argument(
        "--calls", type=int, default=2000, help="timed calls per workload (default 2000)"
    )
    parser.add_argument("--warmup", type=int, default=50, help="untimed calls per agent first")
    parser.add_argument("--agents", default="1,8", help="comma-separated agent counts")
    parser.add_argument("--tools", default=",".join(WORKLOADS), help="comma-separated tools")
    parser.add_argument(
        "--no-pin", dest="pin", action="store_false", help="do not pin server and agents to CPUs"
    )
    parser.add_argument("--profile", help="write the server's cProfile stats to this file")
    parser.add_argument(
        "--profile-bare", help="write the bare floor server's cProfile stats to this file"
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve-bare", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=20, help="interleaved rounds (default 20)")
    parser.add_argument("--agent", nargs=6, help=argparse.SUPPRESS)
    parser.add_argument("--cpus", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.cpus:
        _pin({int(cpu) for cpu in options.cpus.split(",")})
    if options.serve or options.serve_bare:
        _serve(options.profile, bare=options.serve_bare, folder=options.folder)
        return 0
    if options.agent:
        url, bare_url, tools, agent, run, warmup = options.agent
        trio.run(_agent, url, bare_url, tools.split(","), int(agent), int(run), int(warmup))
        return 0
    unknown = set(options.tools.split(",")) - set(WORKLOADS)
    if unknown:
        parser.error(f"unknown tools {sorted(unknown)}; known: {list(WORKLOADS)}")
    return _conduct(options)
