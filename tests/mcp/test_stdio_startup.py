"""Stdio start-up answers before the session has loaded (issue 18): the handshake and
`tools/list` come at once, then `diagram.list` from the folder's listing, before the
diagrams are parsed; each diagram loads on first use, the rest in the background.

Real processes (`python -m nereid DIR --mcp`) on a folder big enough that parsing it takes
seconds (the parse cache is off). The order is observed, not timed: a diagram whose file
does not parse makes the server print its load warning on stderr once it is parsed; with
answer-first, the `tools/list` reply is on stdout while stderr has no such warning yet,
and the broken diagram is listed at once, with its problem once the background got to it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
import trio
import trio.testing

from nereid.actors.tree import open_session
from nereid.commands.session_gate import LOAD_DELAY, QUIET, SessionGate
from nereid.errors import SessionLoading, SessionUnavailable
from nereid.model import Diagram, FlowchartAst, FlowEdge, FlowNode, Session
from nereid.store.demo import load_demo_session
from nereid.store.files import FolderFiles
from nereid.store.parse_cache import CACHE_DIR_ENV
from nereid.store.session_io import save_session
from tests.mcp.session_kit import REPO

DIAGRAMS = 24
NODES = 500


def _flowchart(index: int) -> Diagram:
    nodes = {
        f"n:s{index}_{i}": FlowNode(label=f"Step {i} of flow {index}", mermaid_id=f"s{index}_{i}")
        for i in range(NODES)
    }
    ids = list(nodes)
    edges = {
        f"e:{i:04d}": FlowEdge(from_node_id=ids[i - 1], to_node_id=ids[i]) for i in range(1, NODES)
    }
    return Diagram(
        diagram_id=f"flow-{index:03d}",
        name=f"Flow {index}",
        kind="flowchart",
        ast=FlowchartAst(direction="TD", nodes=nodes, edges=edges),
        rev=1,
    )


@pytest.fixture(scope="module")
def big_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("big") / "session"
    made = [_flowchart(i) for i in range(DIAGRAMS)]
    save_session(
        FolderFiles(folder), Session(session_id="s:big", diagrams={d.diagram_id: d for d in made})
    )
    # The last listed diagram does not parse: its warning is printed when loading ends.
    (folder / "diagrams" / f"flow-{DIAGRAMS - 1:03d}.mmd").write_text("flowchart TD\n  a[[[\n")
    return folder


class _Server:
    """`python -m nereid <args> --mcp` with pipes; stderr is collected by a thread."""

    def __init__(self, *args: str) -> None:
        env = {k: v for k, v in os.environ.items() if k != "NEREID_TRACE"}
        env[CACHE_DIR_ENV] = ""  # no parse cache: every launch parses (the slow load)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "nereid", *args, "--mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=REPO,
            env=env,
        )
        self.stderr: list[str] = []
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        self.proc.stdin.flush()

    def reply(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, f"the server exited: {''.join(self.stderr)}"
            message: dict[str, Any] = json.loads(line)
            if "id" in message:
                return message

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self._reader.join(timeout=10)
            with self.proc:  # closes its stdout and stderr pipes
                self.proc.wait(timeout=60)


_INITIALIZE = {
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "startup-test", "version": "0"},
    },
}


def test_tools_list_is_answered_while_the_folder_loads_and_calls_wait(big_folder: Path) -> None:
    before = {p.name: p.read_bytes() for p in (big_folder / "diagrams").iterdir()}
    server = _Server(str(big_folder))
    try:
        server.send(_INITIALIZE)
        assert "result" in server.reply()
        server.send({"method": "notifications/initialized"})
        server.send({"id": 2, "method": "tools/list"})
        listing = server.reply()
        assert listing["id"] == 2
        assert any(t["name"] == "diagram.list" for t in listing["result"]["tools"])
        loaded_already = [line for line in server.stderr if "warning" in line]
        assert loaded_already == [], "the session had loaded before tools/list was answered"
        server.send(
            {"id": 3, "method": "tools/call", "params": {"name": "diagram.list", "arguments": {}}}
        )
        call = server.reply()
        assert call["id"] == 3 and not call["result"].get("isError"), call
        listed = json.loads(call["result"]["content"][0]["text"])["diagrams"]
        assert [d["diagram_id"] for d in listed] == [f"flow-{i:03d}" for i in range(DIAGRAMS)]
        assert all(d["rev"] == 1 for d in listed[:-1])
        broken = f"flow-{DIAGRAMS - 1:03d}"
        deadline = time.monotonic() + 120
        while not any(broken in line for line in server.stderr):  # parsed in the background
            assert time.monotonic() < deadline, "the broken diagram was never reported"
            time.sleep(0.05)
        server.send(_call(4, "diagram.list", {}))
        relisted = json.loads(server.reply()["result"]["content"][0]["text"])["diagrams"]
        assert relisted[-1]["file_error"]["file"] == f"diagrams/{broken}.mmd"
        assert all("file_error" not in d for d in relisted[:-1])
        server.send(_call(5, "diagram.stat", {"diagram_id": "flow-007"}))
        stat = json.loads(server.reply()["result"]["content"][0]["text"])
        assert stat["rev"] == 1 and stat["saved_rev"] == 1, stat
    finally:
        status = server.close()
    assert status == 0, "".join(server.stderr)
    # Loading and leaving wrote nothing over the person's files.
    assert {p.name: p.read_bytes() for p in (big_folder / "diagrams").iterdir()} == before


def _call(request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


def test_a_folder_that_cannot_be_used_is_refused_before_answering(tmp_path: Path) -> None:
    (tmp_path / "nereid-session.meta.json").write_text("{not json")
    done = subprocess.run(
        [sys.executable, "-m", "nereid", str(tmp_path), "--mcp"],
        input=json.dumps({"jsonrpc": "2.0", **_INITIALIZE}).encode() + b"\n",
        capture_output=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    assert b"nereid-session.meta.json" in done.stderr
    assert done.stdout == b""


async def test_the_gate_lets_calls_through_once_opened(autojump_clock: trio.abc.Clock) -> None:
    gate = SessionGate(patience=30.0)
    passed: list[float] = []

    async def call() -> None:
        await gate.wait()
        passed.append(trio.current_time())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(call)
        await trio.sleep(5.0)
        assert passed == []
        async with open_session(load_demo_session(), files=None, durable=False) as handle:
            gate.opened(handle)
            await trio.testing.wait_all_tasks_blocked()
            assert len(passed) == 1 and passed[0] >= 5.0
            await gate.wait()  # once open, at once
            gate.failed("too late")  # an open gate stays open
            await gate.wait()


async def test_the_gate_says_why_loading_failed(autojump_clock: trio.abc.Clock) -> None:
    gate = SessionGate(patience=30.0)
    gate.failed("diagrams/x.mmd: cannot read: Permission denied")
    with pytest.raises(SessionUnavailable, match="Permission denied") as caught:
        await gate.wait()
    assert caught.value.to_jsonrpc()["data"] == {"retryable": False}


async def test_the_gate_is_bounded(autojump_clock: trio.abc.Clock) -> None:
    gate = SessionGate(patience=30.0)
    with pytest.raises(SessionLoading, match="still loading after 30 s") as caught:
        await gate.wait()
    assert caught.value.to_jsonrpc()["data"] == {"retryable": True}
    assert trio.current_time() == pytest.approx(30.0)


async def _answer(gate: SessionGate, method: str) -> None:
    """`method` through the gate's middleware (what the SDK's server runs for a request)."""

    async def handler(ctx: Any) -> None:
        return None

    await gate.middleware(cast(Any, SimpleNamespace(method=method)), handler)


@pytest.mark.parametrize("then", ["nothing", "tools/list"])
async def test_loading_waits_for_the_handshake_not_for_the_launch(
    then: str, autojump_clock: trio.abc.Clock
) -> None:
    """A slow launch (a busy machine) does not start the load before `initialize`: the
    delay counts from its answer; `tools/list` starts the load at once."""
    gate = SessionGate()
    started: list[float] = []

    async def load() -> None:
        await gate.until_wanted()
        started.append(trio.current_time())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(load)
        await trio.sleep(10 * LOAD_DELAY)
        assert started == []
        await _answer(gate, "initialize")
        await trio.sleep(LOAD_DELAY / 4)
        if then == "tools/list":
            await _answer(gate, then)
            await trio.testing.wait_all_tasks_blocked()
            assert started == [pytest.approx(10.25 * LOAD_DELAY)]
        else:
            await trio.sleep(LOAD_DELAY / 2)
            assert started == []
            await trio.sleep(LOAD_DELAY)
            assert started == [pytest.approx(11 * LOAD_DELAY)]


async def test_background_work_waits_for_the_first_answer_from_the_session(
    autojump_clock: trio.abc.Clock,
) -> None:
    gate = SessionGate(patience=30.0)
    started = trio.current_time()
    await gate.first_served(2.0)  # nobody calls: it starts after the delay
    assert trio.current_time() - started == pytest.approx(2.0)

    async def answered(ctx: object) -> None:
        await trio.sleep(0.5)

    async with open_session(load_demo_session(), files=None, durable=False) as handle:
        gate.opened(handle)
        for method in ("initialize", "tools/list"):  # the handshake does not count
            await gate.middleware(cast(Any, SimpleNamespace(method=method)), answered)
        began = trio.current_time()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                gate.middleware, cast(Any, SimpleNamespace(method="tools/call")), answered
            )
            await gate.first_served(10.0)
        # once the call was answered and nothing was in flight for QUIET seconds since
        assert trio.current_time() - began == pytest.approx(0.5 + QUIET)


async def test_background_work_waits_for_a_quiet_moment_after_the_first_answer(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A call in flight (or answered less than QUIET ago) holds background work back, as
    the answer's bytes are written after its handler returns; `delay` bounds the wait."""
    gate = SessionGate(patience=30.0)
    events: list[tuple[str, float]] = []

    async def answered_after(ctx: object, seconds: float) -> None:
        await trio.sleep(seconds)

    async def call(seconds: float) -> None:
        await gate.middleware(
            cast(Any, SimpleNamespace(method="tools/call")),
            partial(answered_after, seconds=seconds),
        )
        events.append(("answered", trio.current_time()))

    async def background(delay: float) -> None:
        await gate.first_served(delay)
        events.append(("background", trio.current_time()))

    async with open_session(load_demo_session(), files=None, durable=False) as handle:
        gate.opened(handle)
        began = trio.current_time()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(background, 10.0)
            nursery.start_soon(call, 0.1)  # answered at 0.1
            await trio.sleep(0.1 + QUIET / 2)
            nursery.start_soon(call, 0.3)  # in flight until 0.1 + QUIET / 2 + 0.3
        second = 0.4 + QUIET / 2
        assert [(what, pytest.approx(at - began)) for what, at in events] == [
            ("answered", 0.1),
            ("answered", second),
            ("background", second + QUIET),
        ]
        events.clear()
        busy = trio.current_time()
        async with trio.open_nursery() as nursery:  # never quiet: the delay bounds it
            nursery.start_soon(background, 0.5)
            nursery.start_soon(call, 2.0)
        assert [(what, pytest.approx(at - busy)) for what, at in events] == [
            ("background", 0.5),
            ("answered", 2.0),
        ]
