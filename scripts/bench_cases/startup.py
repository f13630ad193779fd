"""Start-up: launch -> first `tools/list` reply over stdio, and the CLI commands' import time.

Each server is launched as a real process with pipes (`python -m nereid --mcp ...`); the
conductor writes `initialize`, then (on its reply) `notifications/initialized` and
`tools/list`, and times launch -> the `tools/list` reply, best and median of `--runs`
launches; then it calls one tool (`diagram.list`, the minimal server's `ping`) and shows
launch -> that reply too: Nereid answers `tools/list` before the session has loaded, and a
call that needs the session waits for it, so this is when the session is usable. The peer, measured in the same run, is a minimal stdio server on the same MCP SDK
and the same trio backend (one tool, no state: the SDK's own start-up), so the ratio shows
what Nereid adds. Servers:

- `minimal SDK server`: the floor;
- `nereid --demo --mcp`: the demo session, in memory;
- `nereid DIR --mcp, 200 x 500 nodes`: a session folder of 200 flowcharts of 500 nodes each
  (saved once, untimed, by the store; every launch loads it), its parses in the parse
  cache (`nereid.store.parse_cache`; the untimed first launch fills it), as every launch
  after the first on an unchanged folder;
- `... no parse cache`: the same with the cache off (`NEREID_CACHE_DIR=`): nothing kept at
  all, not even the tool listing (`nereid.store.parse_cache.ParseCache.tool_listing`);
- `... first launch on it`: a fresh cache directory per launch that holds only the tool
  listing a launch of this code on any other session left: the first launch on a folder
  as a user who ran Nereid before meets it, no parse kept.
  `nereid --mcp` lists the folder without parsing it and parses each diagram on first use
  or in the background (worker processes), so its first `diagram.list` does not wait for
  the parses.

The parse cache of the children is a temporary directory of this run, never the user's.
Beside the wall times, the server's CPU time (all its threads, from `/proc`) at its
`tools/list` reply and at its first call's reply, and the ratio to the minimal server's:
on a loaded machine the wall figures mostly show the waits for a core.

Children run without PYTHONDONTWRITEBYTECODE (see `_ENV`), as an installed program does.
Import time: `import nereid.commands.render` / `nereid.commands.check` in a fresh interpreter,
the cumulative figure of `python -X importtime` (min of `--runs`), and the CPU time of the
import (less sensitive to a busy machine).

Targets (tools/list, and the first call beside it): demo <= 1.1x the minimal server's; the
200-diagram folder <= 1.5 s, with and without the parse cache; each command's import
<= 100 ms. Exit status 1 if one is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nereid.store.parse_cache import CACHE_DIR_ENV, ParseCache

from ._common import native_line

#: Children run as an installed program does: with byte-code caches. (This machine's
#: environment sets PYTHONDONTWRITEBYTECODE, which makes every launch compile every module
#: from source: seconds, and nothing to do with either server.) One untimed launch of each
#: server first writes the caches.
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

DESCRIPTION = "start-up: launch -> first tools/list over stdio vs a minimal SDK server; imports"

TARGET_DEMO_RATIO = 1.1
TARGET_FOLDER_MS = 1500.0
TARGET_IMPORT_MS = 100.0

_MINIMAL = """
import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    return types.ListToolsResult(
        tools=[types.Tool(name="ping", description="ping", input_schema={"type": "object"})]
    )

async def call_tool(ctx, params):
    return types.CallToolResult(content=[types.TextContent(type="text", text="pong")])

server = Server("minimal", on_list_tools=list_tools, on_call_tool=call_tool)

async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main, backend="trio")
"""

_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def _send(proc: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def _reply(proc: subprocess.Popen[bytes], want_id: int) -> dict[str, object]:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"server exited before replying to request {want_id}")
        message = json.loads(line)
        if message.get("id") == want_id:
            return message  # type: ignore[no-any-return]


def launch_to_tools_list(
    command: list[str],
    cwd: str | None = None,
    tool: str = "diagram.list",
    env: dict[str, str] | None = None,
) -> tuple[float, float, float | None, float | None]:
    """ms from launching `command` to the `tools/list` reply, and to the reply of a first
    call of `tool` (the session has loaded by then), and the server's CPU ms (all its
    threads) at those two replies; the server is then stopped."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
        env=env if env is not None else _ENV,
    )
    try:
        _send(proc, _INITIALIZE)
        _reply(proc, 1)
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        reply = _reply(proc, 2)
        listed = (time.perf_counter() - start) * 1000
        cpu = _cpu_ms(proc.pid)
        if "result" not in reply:
            raise RuntimeError(f"tools/list failed: {reply}")
        call = {"name": tool, "arguments": {}}
        _send(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
        reply = _reply(proc, 3)
        called = (time.perf_counter() - start) * 1000
        called_cpu = _cpu_ms(proc.pid)
        result = reply.get("result")
        if not isinstance(result, dict) or result.get("isError"):
            raise RuntimeError(f"{tool} failed: {reply}")
        return listed, called, cpu, called_cpu
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _cpu_ms(pid: int) -> float | None:
    """CPU ms (user + system, every thread) process `pid` has used; None off Linux."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _folder(path: Path, diagrams: int, nodes: int) -> None:
    """A saved session folder of `diagrams` flowcharts of `nodes` nodes (the store bench's)."""
    from nereid.store.files import FolderFiles
    from nereid.store.session_io import save_session

    from .store import make_session

    save_session(FolderFiles(path), make_session(diagrams, nodes))


def _import_ms(module: str, runs: int) -> tuple[float, float]:
    """(min cumulative -X importtime ms, min CPU ms) of importing `module` afresh."""
    cumulative, cpu = [], []
    code = (
        "import time; t = time.process_time(); import " + module + "; "
        "print((time.process_time() - t) * 1000)"
    )
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=tempfile.gettempdir(),
            env=_ENV,
        )
        cpu.append(float(done.stdout.strip()))
        for line in done.stderr.splitlines():
            parts = line.split("|")
            if len(parts) == 3 and parts[2].strip() == module:
                cumulative.append(int(parts[1]) / 1000)
    return min(cumulative), min(cpu)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench startup", description=__doc__)
    parser.add_argument("--runs", type=int, default=7, help="launches per server (default 7)")
    parser.add_argument("--diagrams", type=int, default=200)
    parser.add_argument("--nodes", type=int, default=500)
    args = parser.parse_args(argv)
    load = os.getloadavg() if hasattr(os, "getloadavg") else ()
    print(f"Start-up, {args.runs} launches each, load average {load}")
    print(native_line())
    missed = 0
    with tempfile.TemporaryDirectory(prefix="nereid-bench-startup-") as tmp:
        minimal = Path(tmp) / "minimal_server.py"
        minimal.write_text(_MINIMAL, encoding="utf-8")
        folder = Path(tmp) / "session"
        _folder(folder, args.diagrams, args.nodes)
        cached = {**_ENV, CACHE_DIR_ENV: str(Path(tmp) / "parse-cache")}
        uncached = {**_ENV, CACHE_DIR_ENV: ""}
        big = f"nereid DIR --mcp, {args.diagrams} x {args.nodes} nodes"
        first = "  ... first launch on it"
        nereid_dir = [sys.executable, "-m", "nereid", str(folder), "--mcp"]
        servers: dict[str, tuple[list[str], dict[str, str]]] = {
            "minimal SDK server": ([sys.executable, str(minimal)], _ENV),
            "nereid --demo --mcp": ([sys.executable, "-m", "nereid", "--demo", "--mcp"], cached),
            big: (nereid_dir, cached),
            "  ... no parse cache": (nereid_dir, uncached),
            first: (nereid_dir, cached),  # its env is made per launch: see `fresh_cache`
        }
        launches = 0

        def fresh_cache() -> dict[str, str]:
            """A new cache directory holding only the tool listing the warm-up kept."""
            nonlocal launches
            launches += 1
            kept = ParseCache.from_env(cached)
            listing = kept.tool_listing() if kept is not None else None
            directory = Path(tmp) / f"first-{launches}"
            directory.mkdir(mode=0o700)
            cache = ParseCache.from_env({CACHE_DIR_ENV: str(directory)})
            if cache is not None and listing is not None:
                cache.keep_tool_listing(listing)
                cache.close()
            if kept is not None:
                kept.close()
            return {**_ENV, CACHE_DIR_ENV: str(directory)}

        samples: dict[str, list[float]] = {name: [] for name in servers}
        calls: dict[str, list[float]] = {name: [] for name in servers}
        cpus: dict[str, list[float]] = {name: [] for name in servers}
        call_cpus: dict[str, list[float]] = {name: [] for name in servers}
        tools = {name: "ping" if name.startswith("minimal") else "diagram.list" for name in servers}
        for name, (command, env) in servers.items():  # byte-code caches, the parse cache
            if name != first:
                launch_to_tools_list(command, cwd=tmp, tool=tools[name], env=env)
        for _ in range(args.runs):  # interleaved, so load falls on every server alike
            for name, (command, env) in servers.items():
                if name == first:
                    env = fresh_cache()
                listed, called, cpu, called_cpu = launch_to_tools_list(
                    command, cwd=tmp, tool=tools[name], env=env
                )
                samples[name].append(listed)
                calls[name].append(called)
                if cpu is not None:
                    cpus[name].append(cpu)
                if called_cpu is not None:
                    call_cpus[name].append(called_cpu)
    floor = statistics.median(samples["minimal SDK server"])
    floor_call = statistics.median(calls["minimal SDK server"])
    print(
        f"  {'server':<40} {'best ms':>9} {'median ms':>10} {'/minimal':>9} {'target':>10}"
        f" {'1st call med':>13} {'/minimal':>9} {'target':>10} {'cpu ms':>8} {'/minimal':>9}"
        f" {'1st call cpu':>13} {'/minimal':>9}"
    )
    floor_cpu = statistics.median(cpus["minimal SDK server"]) if cpus["minimal SDK server"] else 0
    floor_call_cpu = (
        statistics.median(call_cpus["minimal SDK server"]) if call_cpus["minimal SDK server"] else 0
    )

    def verdict(ok: bool, text: str) -> str:
        nonlocal missed
        missed += not ok
        return ("<=" if ok else ">") + text

    for name, values in samples.items():
        median = statistics.median(values)
        call = statistics.median(calls[name])
        target = call_target = ""
        if name.startswith("nereid --demo"):
            target = verdict(median / floor <= TARGET_DEMO_RATIO, f"{TARGET_DEMO_RATIO}x")
            call_target = verdict(call / floor_call <= TARGET_DEMO_RATIO, f"{TARGET_DEMO_RATIO}x")
        elif name in (big, "  ... no parse cache", first):
            target = verdict(median <= TARGET_FOLDER_MS, f"{TARGET_FOLDER_MS:.0f}ms")
            call_target = verdict(call <= TARGET_FOLDER_MS, f"{TARGET_FOLDER_MS:.0f}ms")
        cpu = f"{statistics.median(cpus[name]):>8.0f}" if cpus[name] else f"{'-':>8}"
        cpu_ratio = (
            f"{statistics.median(cpus[name]) / floor_cpu:>8.2f}x"
            if cpus[name] and floor_cpu
            else ""
        )
        call_cpu = f"{statistics.median(call_cpus[name]):>13.0f}" if call_cpus[name] else ""
        call_cpu_ratio = (
            f"{statistics.median(call_cpus[name]) / floor_call_cpu:>8.2f}x"
            if call_cpus[name] and floor_call_cpu
            else ""
        )
        print(
            f"  {name:<40} {min(values):>9.1f} {median:>10.1f} {median / floor:>8.2f}x {target:>10}"
            f" {call:>13.1f} {call / floor_call:>8.2f}x {call_target:>10} {cpu} {cpu_ratio:>9}"
            f" {call_cpu} {call_cpu_ratio:>9}"
        )
    print(
        "  (launch -> tools/list reply; /minimal: median over the minimal server's median;"
        " 1st call: launch -> the reply of a first call, diagram.list / ping, which needs"
        " the session loaded; its /minimal: over the minimal server's first call; cpu ms:"
        " the server's CPU, all threads, at its tools/list reply, median: what a loaded"
        " machine's waits do not blur; 1st call cpu: the same at the first call's reply)"
    )
    print(f"  {'import':<40} {'importtime':>10} {'cpu ms':>9} {'target':>10}")
    for module in ("nereid.commands.render", "nereid.commands.check"):
        cumulative, cpu = _import_ms(module, args.runs)
        ok = cumulative <= TARGET_IMPORT_MS
        missed += not ok
        print(
            f"  {module:<40} {cumulative:>10.1f} {cpu:>9.1f} "
            f"{('<=' if ok else '>') + f'{TARGET_IMPORT_MS:.0f}ms':>10}"
        )
    print("  (importtime: cumulative ms of the module in `python -X importtime`, min of runs)")
    return 1 if missed else 0
