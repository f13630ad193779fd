"""One live session per folder, with real processes (spec decision 19).

The person runs the TUI on a folder (in a pty); two agent hosts launch `nereid --mcp DIR`
there, which bridge to the TUI's session; a third agent talks HTTP to it directly. Every
acknowledged edit is seen by every agent and the TUI, and is on disk after the TUI quits.
A second `nereid DIR` / `nereid serve DIR` refuses; a token-protected owner is joined
with the token from the lock's companion file or NEREID_TOKEN.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pexpect
import trio
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation

from nereid.store.folder_lock import TOKEN_FILE, LockInfo, read_owner
from tests.ui.pty_screen import PtyScreen

REPO = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "NEREID_TRACE")}
    env.update({"TERM": "xterm-256color", "PYTHONPATH": str(REPO), "LANG": "C.UTF-8"})
    return env


def _bridge(folder: Path, name: str, env: dict[str, str] | None = None) -> Client:
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "nereid", "--mcp", str(folder)], env=env or _env()
    )
    return Client(parameters, client_info=Implementation(name=name, version="1"))


def _http(url: str, name: str) -> Client:
    return Client(url, client_info=Implementation(name=name, version="1"))


def _owner_with_url(folder: Path, timeout: float = 120.0) -> LockInfo:
    deadline = time.monotonic() + timeout
    while True:
        owner = read_owner(folder)
        if owner is not None and owner.url is not None:
            return owner
        assert time.monotonic() < deadline, "the owner never published its URL"
        time.sleep(0.05)


async def _ok(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error and result.structured_content is not None, (tool, result)
    return result.structured_content


async def _add_node(client: Client, node_id: str, label: str) -> None:
    """Add a node, rebasing on conflicts (the others edit concurrently); returns once acked."""
    while True:
        rev = (await _ok(client, "diagram.stat", {"diagram_id": "flow"}))["rev"]
        try:
            await _ok(
                client,
                "diagram.apply_ops",
                {
                    "diagram_id": "flow",
                    "base_rev": rev,
                    "ops": [{"type": "flow_add_node", "node_id": node_id, "label": label}],
                },
            )
            return
        except MCPError as error:
            assert "conflict" in error.error.message, error
            await trio.sleep(0.01)


async def _drain(tui: PtyScreen) -> None:
    while True:
        tui.pump(0)
        await trio.sleep(0.005)


async def test_tui_two_bridges_and_an_http_agent_share_one_session(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    tui = PtyScreen(
        [sys.executable, "-m", "nereid", str(folder), "--mcp-http-port", "0"],
        cols=140,
        rows=44,
        env=_env(),
    )
    labels = {f"n:{who}{k}": f"{who.upper()} edit {k}" for who in ("a", "b", "c") for k in (1, 2)}
    try:
        tui.wait_for("Diagram [")
        owner = _owner_with_url(folder)
        assert owner.pid == tui.child.pid and owner.mode == "tui"
        assert owner.url is not None

        # A second TUI or server on the folder refuses with one line naming the owner.
        for argv in (["-m", "nereid", str(folder)], ["-m", "nereid", "serve", str(folder)]):
            refused = await trio.run_process(
                [sys.executable, *argv], env=_env(), capture_stderr=True, check=False
            )
            assert refused.returncode == 1
            lines = refused.stderr.decode().strip().splitlines()
            assert len(lines) == 1, refused.stderr
            assert f"pid {owner.pid}" in lines[0] and owner.url in lines[0]
            assert f"nereid --mcp {folder}" in lines[0]

        async with (
            trio.open_nursery() as nursery,
            _bridge(folder, "bridge-a") as alpha,
            _bridge(folder, "bridge-b") as beta,
            _http(owner.url, "http-c") as gamma,
        ):
            nursery.start_soon(_drain, tui)
            agents = {"a": alpha, "b": beta, "c": gamma}
            async with trio.open_nursery() as edits:
                for who, client in agents.items():
                    for k in (1, 2):
                        edits.start_soon(_add_node, client, f"n:{who}{k}", labels[f"n:{who}{k}"])
            for who, client in agents.items():
                await _ok(
                    client, "attention.agent.set", {"object_ref": f"d:flow/flow/node/n:{who}1"}
                )
            for client in agents.values():
                text = (await _ok(client, "diagram.read", {"diagram_id": "flow"}))["mermaid"]
                assert all(label in text for label in labels.values()), text
            spotlights = (await _ok(alpha, "attention.agents.read", {}))["spotlights"]
            assert sorted(s["agent_name"] for s in spotlights) == ["bridge-a", "bridge-b", "http-c"]
            assert len({s["agent_id"] for s in spotlights}) == 3
            # The TUI shows every edit.
            tui.wait_for(lambda t: all(label in t for label in labels.values()), timeout=30)
            # ... and each bridged agent's spotlight, by its own name (follow-AI: the newest).
            tui.wait_for("Following http-c", timeout=30)
            await _ok(alpha, "attention.agent.set", {"object_ref": "d:flow/flow/node/n:a2"})
            tui.wait_for("Following bridge-a", timeout=30)
            nursery.cancel_scope.cancel()
            # The person quits while the bridged agents are still connected.
            tui.send("q")
            tui.child.expect(pexpect.EOF, timeout=20)
            tui.child.close()
            assert tui.child.exitstatus == 0
        saved = (folder / "diagrams" / "flow.mmd").read_text(encoding="utf-8")
        assert all(label in saved for label in labels.values()), saved
        assert read_owner(folder) is None
    finally:
        tui.close()


def _serve(folder: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "nereid", "serve", str(folder), "--port", "0", *extra],
        env=env or _env(),
        stderr=subprocess.PIPE,
        text=True,
    )


def _reap(process: subprocess.Popen[str]) -> None:
    """Wait for an ended (or ending) process and close its pipes."""
    with process:  # Popen's exit closes stdin/stdout/stderr and waits
        process.wait(timeout=20)


async def test_a_bridge_joins_a_token_protected_owner_and_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    env = _env()
    env.pop("NEREID_TOKEN", None)
    server = _serve(folder, "--token", "tok-123", env=env)
    try:
        owner = _owner_with_url(folder)
        assert owner.needs_token
        async with _bridge(folder, "with-file", env) as client:
            listing = await _ok(client, "diagram.list", {})
            assert [d["diagram_id"] for d in listing["diagrams"]] == ["flow"]
        # Without the companion file, NEREID_TOKEN is used; the bridge's tool spelling holds.
        (folder / TOKEN_FILE).unlink()
        bridged_env = {**env, "NEREID_TOKEN": "tok-123", "NEREID_TOOL_NAMES": "underscore"}
        async with _bridge(folder, "with-env", bridged_env) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert "diagram_stat" in names and "diagram.stat" not in names
            await _ok(client, "diagram_stat", {"diagram_id": "flow"})
        # Neither: one clear line, exit 1.
        missing = await trio.run_process(
            [sys.executable, "-m", "nereid", "--mcp", str(folder)],
            env=env,
            stdin=b"",
            capture_stderr=True,
            check=False,
        )
        assert missing.returncode == 1 and b"NEREID_TOKEN" in missing.stderr
    finally:
        server.terminate()
        _reap(server)


def test_a_bridge_announces_itself_and_ends_when_the_owner_goes(tmp_path: Path) -> None:
    folder = tmp_path / "short"
    server = _serve(folder)
    bridge: subprocess.Popen[str] | None = None
    try:
        owner = _owner_with_url(folder)
        bridge = subprocess.Popen(
            [sys.executable, "-m", "nereid", "--mcp", str(folder)],
            env=_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert bridge.stderr is not None
        announced = bridge.stderr.readline()
        assert "bridging" in announced and f"pid {owner.pid}" in announced
        server.terminate()
        server.wait(timeout=20)
        assert bridge.wait(timeout=20) == 1  # its stdin is still open: the owner's exit ended it
        assert "has exited" in bridge.stderr.read()
    finally:
        for process in (server, bridge):
            if process is not None:
                if process.poll() is None:
                    process.kill()
                _reap(process)
