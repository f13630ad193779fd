"""The session wiring: loading / seeding folders, persistence across restarts, the demo,
diagram resources on the real session, and the main mode's process behaviour."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import pytest
import trio
from mcp_types import ResourceUpdatedNotification

from nereid.actors.protocol import ListDiagrams
from nereid.commands.session import SessionOpenError, open_session_handle
from nereid.mcp import catalog
from tests.mcp.session_kit import REPO, Agent, memory_client, memory_session, stdio_client

AUTH = "flowchart TD\n  start[Start] --> check{Check token}\n"


async def test_restarting_the_server_keeps_rev_and_content(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    async with stdio_client("--mcp", str(folder)) as client:
        agent = Agent(client)
        await agent.ok("diagram.create_from_mermaid", {"mermaid": AUTH, "diagram_id": "auth"})
        await agent.ok(
            "diagram.apply_ops",
            {
                "diagram_id": "auth",
                "base_rev": 0,
                "ops": [{"type": "flow_add_node", "node_id": "n:audit", "label": "Audit log"}],
            },
        )
        await agent.ok("walkthrough.create", {"title": "Tour", "walkthrough_id": "wt-1"})
        await agent.ok(
            "walkthrough.apply_ops",
            {
                "walkthrough_id": "wt-1",
                "base_rev": 0,
                "ops": [{"type": "add_node", "node_id": "a", "title": "Start here"}],
            },
        )
        before = await agent.ok("diagram.read", {"diagram_id": "auth"})
    async with stdio_client("--mcp", str(folder)) as client:
        agent = Agent(client)
        stat = await agent.ok("diagram.stat", {"diagram_id": "auth"})
        assert stat["rev"] == 1 and "Audit log" in stat["key_names"]
        after = await agent.ok("diagram.read", {"diagram_id": "auth"})
        assert after["mermaid"] == before["mermaid"]
        # decision 5: diagram.read is exactly what the session file holds
        assert after["mermaid"] == (folder / "diagrams" / "auth.mmd").read_text(encoding="utf-8")
        ast = await agent.ok("diagram.get_ast", {"diagram_id": "auth"})
        assert [n["node_id"] for n in ast["ast"]["nodes"]] == ["n:start", "n:check", "n:audit"]
        walkthrough = await agent.ok("walkthrough.stat", {"walkthrough_id": "wt-1"})
        assert walkthrough["digest"] == {"rev": 1, "counts": {"nodes": 1, "edges": 0}}


async def test_a_new_folder_gets_the_seed_session_written_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "shop"
    async with open_session_handle(folder, demo=False, durable_writes=False) as handle:
        reply = await handle.session.call(ListDiagrams())
        assert [d.diagram_id for d in reply.diagrams] == ["flow"]
        meta = json.loads((folder / "nereid-session.meta.json").read_text())
        assert meta["session_id"] == "s:shop"
        assert (folder / "diagrams" / "flow.mmd").is_file()


async def test_a_folder_holding_only_seed_files_may_be_initialised(tmp_path: Path) -> None:
    (tmp_path / "diagrams").mkdir()
    (tmp_path / "diagrams" / "flow.mmd").write_text("flowchart\n  x[Old]\n")
    (tmp_path / "walkthroughs").mkdir()
    async with open_session_handle(tmp_path, demo=False, durable_writes=False) as handle:
        reply = await handle.session.call(ListDiagrams())
        assert [d.diagram_id for d in reply.diagrams] == ["flow"]


async def test_a_foreign_non_empty_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "diagrams").mkdir()
    (tmp_path / "diagrams" / "other.mmd").write_text("flowchart\n")
    with pytest.raises(SessionOpenError) as caught:
        async with open_session_handle(tmp_path, demo=False, durable_writes=False):
            raise AssertionError("must not open")
    message = str(caught.value)
    assert "diagrams/other.mmd" in message and "notes.txt" in message
    assert not (tmp_path / "nereid-session.meta.json").exists()


async def test_a_broken_meta_is_refused_and_a_broken_diagram_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "nereid-session.meta.json").write_text("{not json")
    with pytest.raises(SessionOpenError, match="nereid-session.meta.json"):
        async with open_session_handle(broken, demo=False, durable_writes=False):
            raise AssertionError("must not open")

    folder = tmp_path / "proj"
    async with open_session_handle(folder, demo=False, durable_writes=False):
        pass
    (folder / "diagrams" / "flow.mmd").write_text("flowchart TD\n  a -->\n")
    async with open_session_handle(folder, demo=False, durable_writes=False) as handle:
        reply = await handle.session.call(ListDiagrams())
        (listed,) = reply.diagrams  # listed, with where its file does not parse
        assert listed.diagram_id == "flow" and listed.file_problem is not None
        assert listed.file_problem.file == "diagrams/flow.mmd" and listed.file_problem.line == 2
    err = capsys.readouterr().err
    assert "nereid: warning: diagrams/flow.mmd" in err


@pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")
@pytest.mark.parametrize("protocol_loaded", [True, False])
async def test_the_demo_runs_in_memory_and_serves_diagram_resources(
    protocol_loaded: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not loaded: the resources subscribe to every event and narrow at the first (as
    # `nereid --mcp` does before its handshake); no change may be missed either way.
    monkeypatch.setattr(catalog, "_protocol_loaded", lambda: protocol_loaded)
    updates: list[str] = []
    arrived = trio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            updates.append(str(message.params.uri))
            arrived.set()

    async with memory_session(None, demo=True) as endpoint:
        async with memory_client(endpoint, message_handler=on_message) as client:
            agent = Agent(client)
            listed = await agent.ok("diagram.list")
            ids = [d["diagram_id"] for d in listed["diagrams"]]
            assert "order-flow" in ids
            resources = await client.list_resources()
            assert {str(r.uri) for r in resources.resources} == {
                f"nereid://diagram/{i}" for i in ids
            }
            text = await client.read_resource("nereid://diagram/order-flow")
            read = await agent.ok("diagram.read", {"diagram_id": "order-flow"})
            assert text.contents[0].text == read["mermaid"]  # type: ignore[union-attr]
            await client.subscribe_resource("nereid://diagram/order-flow")
            stat = await agent.ok("diagram.stat", {"diagram_id": "order-flow"})
            await agent.ok(
                "diagram.apply_ops",
                {
                    "diagram_id": "order-flow",
                    "base_rev": stat["rev"],
                    "ops": [{"type": "flow_add_node", "node_id": "n:new", "label": "New"}],
                },
            )
            with trio.fail_after(10):
                await arrived.wait()
            assert updates == ["nereid://diagram/order-flow"]


def _terminal() -> tuple[int, int]:
    """A pseudo-terminal (master, slave) of 40x120 cells, as the TUI needs a TTY."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    return master, slave


def _drain(master: int) -> None:
    """Read the TUI's screen output so it never blocks on a full pty."""
    try:
        while os.read(master, 65536):
            pass
    except OSError:
        pass


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pseudo-terminals")
def test_a_taken_http_port_fails_with_a_hint(tmp_path: Path) -> None:
    master, slave = _terminal()
    try:
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            result = subprocess.run(
                [sys.executable, "-m", "nereid", str(tmp_path / "p"), "--mcp-http-port", str(port)],
                stdin=slave,
                stdout=slave,
                stderr=subprocess.PIPE,
                text=True,
                cwd=REPO,
                timeout=60,
            )
    finally:
        os.close(slave)
        os.close(master)
    assert result.returncode == 1, result.stderr
    assert f"127.0.0.1:{port}" in result.stderr and "--mcp-http-port" in result.stderr


def test_tui_mode_without_a_terminal_says_so() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "nereid", "--demo", "--mcp-http-port", "0"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert result.returncode == 1
    assert "the TUI needs a terminal" in result.stderr


async def _list_over_http(url: str) -> list[str]:
    from tests.mcp.test_mcp_http import http_client

    async with http_client(url, "tui-side-agent") as client:
        listed = await Agent(client).ok("diagram.list")
        return [d["diagram_id"] for d in listed["diagrams"]]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pseudo-terminals and signals")
def test_tui_mode_serves_mcp_and_sigterm_cleans_up_the_demo_copy() -> None:
    master, slave = _terminal()
    process = subprocess.Popen(
        [sys.executable, "-m", "nereid", "--demo", "--mcp-http-port", "0"],
        stdin=slave,
        stdout=slave,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        start_new_session=True,
    )
    os.close(slave)
    threading.Thread(target=_drain, args=(master,), daemon=True).start()
    try:
        assert process.stderr is not None
        copied = process.stderr.readline()
        folder = Path(copied.split("copied to ", 1)[1].split(" (", 1)[0])
        url = process.stderr.readline().strip().rpartition(" ")[2]
        assert url.startswith("http://127.0.0.1:") and folder.is_dir()
        assert "order-flow" in trio.run(_list_over_http, url)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 143
        assert not folder.exists()
    finally:
        if process.poll() is None:
            process.kill()
        with process:  # closes its stderr pipe and reaps it
            process.wait()
        os.close(master)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigint_in_stdio_mode_exits_130() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "nereid", "--mcp", "--demo"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env={k: v for k, v in os.environ.items() if k != "NEREID_TRACE"},
    )
    assert process.stdin is not None and process.stdout is not None
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-03-26",
            "capabilities": {},
            "clientInfo": {"name": "sig", "version": "0"},
        },
    }
    process.stdin.write((json.dumps(request) + "\n").encode())
    process.stdin.flush()
    assert b'"nereid"' in process.stdout.readline()  # running and answering
    process.send_signal(signal.SIGINT)
    with process:  # closes its pipes on the way out
        assert process.wait(timeout=30) == 130


def test_nereid_serve_finds_the_real_session_opener() -> None:
    """`nereid serve` serves `open_mcp_session` (the HTTP tests above serve the same parts)."""
    from nereid.commands import serve
    from nereid.commands.session import open_mcp_session

    assert serve._session_opener() is open_mcp_session


async def test_trace_file_records_the_tool_calls(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    async with stdio_client("--mcp", "--demo", "--trace", str(trace)) as client:
        await Agent(client).ok("diagram.stat", {"diagram_id": "order-flow"})
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert any("GetDiagram" in json.dumps(line) for line in lines)
