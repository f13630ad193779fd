"""Interrupting `nereid serve` or `nereid --mcp` (SIGINT / SIGTERM) saves pending work first.

Without `--durable-writes` an acknowledged rev may still wait for the debounced save; an
interrupted server must write it before it exits (only SIGKILL may lose it).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from nereid.store.files import FolderFiles
from nereid.store.session_io import load_session
from nereid.testing.crash import start_server
from nereid.testing.mcp_workspace import connect


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
async def test_a_signalled_server_writes_the_acknowledged_rev(
    tmp_path: Path, signum: signal.Signals
) -> None:
    folder = tmp_path / "session"
    async with trio.open_nursery() as nursery:
        server = await start_server(nursery, folder, durable=False)
        try:
            async with connect(server.url, "agent") as workspace:
                base = (await workspace.read_diagram("flow")).rev
                rev = await workspace.add_diagram_node("flow", base, "n:late1")
            server.process.send_signal(signum)
            with trio.fail_after(20):  # upper bound guard: a hang fails, it is not a timing check
                await server.process.wait()
        finally:
            if server.process.poll() is None:
                server.process.kill()
            await server.process.wait()
    loaded = load_session(FolderFiles(folder))
    diagram = loaded.session.diagrams["flow"]
    assert diagram.rev == rev
    assert "n:late1" in getattr(diagram.ast, "nodes", {})
    assert server.process.returncode == 128 + signum


def _rpc(process: subprocess.Popen[bytes], message: dict[str, object]) -> dict[str, object] | None:
    """Send one JSON-RPC line; read the reply line when `message` has an id."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write((json.dumps(message) + "\n").encode())
    process.stdin.flush()
    if "id" not in message:
        return None
    reply = json.loads(process.stdout.readline())
    assert isinstance(reply, dict)
    return reply


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signalled_stdio_server_writes_the_acknowledged_rev(
    tmp_path: Path, signum: signal.Signals
) -> None:
    folder = tmp_path / "session"
    process = subprocess.Popen(
        [sys.executable, "-m", "nereid", str(folder), "--mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={k: v for k, v in os.environ.items() if k != "NEREID_TRACE"},
    )
    try:
        _rpc(
            process,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-03-26",
                    "capabilities": {},
                    "clientInfo": {"name": "sig", "version": "0"},
                },
            },
        )
        _rpc(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        op = {"type": "flow_add_node", "node_id": "n:late1", "label": "late"}
        reply = _rpc(
            process,
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {
                    "name": "diagram.apply_ops",
                    "arguments": {"diagram_id": "flow", "base_rev": 0, "ops": [op]},
                },
            },
        )
        assert reply is not None and "result" in reply, reply
        process.send_signal(signum)
        assert process.wait(timeout=30) == 128 + signum
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()
    diagram = load_session(FolderFiles(folder)).session.diagrams["flow"]
    assert diagram.rev == 1
    assert "n:late1" in getattr(diagram.ast, "nodes", {})
