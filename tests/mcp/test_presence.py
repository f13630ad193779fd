"""Presence that tells the truth: idle spotlights grey, dead clients' spotlights go.

The tracker is driven with explicit times; the endpoint test kills a real SDK client
process (SIGKILL, so no DELETE is sent) and watches its spotlight disappear.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
import trio
import trio.testing
from mcp import Client

from nereid.commands.session import open_mcp_session
from nereid.mcp import Agent as McpAgent
from nereid.mcp import McpEndpoint, ToolTable, serve_http
from nereid.mcp.diagnostics import diagnostic_tools
from nereid.mcp.presence import Presence, PresenceTracker
from nereid.runtime import open_runtime
from tests.mcp.mcp_testkit import memory_client
from tests.mcp.session_kit import Agent

PAY = "d:index/flow/node/n:pay"


def test_idle_then_active_then_gone_by_silence() -> None:
    tracker = PresenceTracker(idle_after=10, expire_after=30, gone_grace=2)
    assert tracker.seen("a", 0.0) is None
    assert tracker.changes(9.9) == []
    assert tracker.next_deadline(0.0) == 10
    assert tracker.changes(10.0) == [("a", "idle")]
    assert tracker.seen("a", 12.0) == "active"
    assert tracker.changes(41.9) == [("a", "idle")]
    assert tracker.changes(42.0) == [("a", "gone")]
    assert tracker.changes(100.0) == []
    assert tracker.next_deadline(100.0) is None
    assert tracker.seen("a", 101.0) == "active"


def test_a_closed_stream_is_gone_unless_it_comes_back() -> None:
    tracker = PresenceTracker(idle_after=10, expire_after=30, gone_grace=2)
    tracker.seen("a", 0.0)
    tracker.stream_opened("a", 0.0)
    tracker.stream_closed("a", 1.0)
    assert tracker.next_deadline(1.0) == 3.0
    assert tracker.stream_opened("a", 2.0) is None  # a reconnect within the grace
    tracker.stream_closed("a", 4.0)
    assert tracker.changes(5.9) == []
    assert tracker.changes(6.0) == [("a", "gone")]
    tracker.forget("a")
    assert tracker.presence("a", 7.0) is None


class _Heard:
    """Session hooks that note each presence change and when it was reported."""

    def __init__(self) -> None:
        self.changes: list[tuple[Presence, float]] = []

    async def session_started(self, agent: McpAgent) -> None:
        return None

    async def session_ended(self, agent: McpAgent) -> None:
        return None

    async def session_presence(self, agent: McpAgent, presence: Presence) -> None:
        self.changes.append((presence, trio.current_time()))


async def test_presence_is_reported_on_time_by_one_runtime_timer(
    autojump_clock: trio.testing.MockClock,
) -> None:
    heard = _Heard()
    tracker = PresenceTracker(idle_after=10, expire_after=30, gone_grace=2)
    async with open_runtime() as runtime:
        endpoint = McpEndpoint(
            runtime, ToolTable(diagnostic_tools()), hooks=heard, presence=tracker
        )
        async with memory_client(endpoint) as client:
            for _ in range(20):
                await client.call_tool("nereid.ping", {})
            last = trio.current_time()
            # Requests arm no timer each: one runtime timer waits for the first deadline.
            assert runtime.timers.pending == 1
            await trio.sleep(10.5)
            assert heard.changes == [("idle", pytest.approx(last + 10, abs=0.05))]
            await client.call_tool("nereid.ping", {})
            back = trio.current_time()
            assert heard.changes[1:] == [("active", back)]
            await trio.sleep(40)
            assert heard.changes[2:] == [
                ("idle", pytest.approx(back + 10, abs=0.05)),
                ("gone", pytest.approx(back + 30, abs=0.05)),
            ]
            assert runtime.timers.pending == 0  # gone: nothing left to wait for


CLIENT = textwrap.dedent(
    """
    import sys, trio
    from mcp import Client
    from mcp_types import Implementation

    async def main():
        async with Client(sys.argv[1], client_info=Implementation(name="doomed", version="1")) as c:
            await c.call_tool("attention.agent.set", {"object_ref": sys.argv[2]})
            print("set", flush=True)
            await trio.sleep_forever()

    trio.run(main)
    """
)


async def test_a_killed_http_client_loses_its_spotlight_and_idle_ones_grey() -> None:
    presence = PresenceTracker(idle_after=1.0, expire_after=60.0, gone_grace=0.5)
    async with open_mcp_session(None, demo=True, durable_writes=False) as parts:
        endpoint = McpEndpoint(
            parts.runtime,
            parts.tools,
            resources=parts.resources,
            hooks=parts.hooks,
            presence=presence,
        )
        async with trio.open_nursery() as nursery:
            url = await nursery.start(
                lambda task_status: serve_http(endpoint, port=0, task_status=task_status)
            )
            child = await trio.lowlevel.open_process(
                [sys.executable, "-c", CLIENT, url, PAY], stdout=subprocess.PIPE
            )
            try:
                assert child.stdout is not None
                with trio.fail_after(60):
                    assert (await child.stdout.receive_some()).strip() == b"set"
                async with Client(url) as watcher_client:
                    watcher = Agent(watcher_client)
                    spots = (await watcher.ok("attention.agents.read"))["spotlights"]
                    assert [s["agent_name"] for s in spots] == ["doomed"]
                    with trio.fail_after(10):  # the doomed client says nothing: idle
                        while not spots[0]["idle"]:
                            await trio.sleep(0.2)
                            spots = (await watcher.ok("attention.agents.read"))["spotlights"]
                    os.kill(child.pid, signal.SIGKILL)
                    with trio.fail_after(10):  # its event stream closed: gone
                        while spots:
                            await trio.sleep(0.2)
                            spots = (await watcher.ok("attention.agents.read"))["spotlights"]
            finally:
                child.kill()
                await child.wait()
            nursery.cancel_scope.cancel()
