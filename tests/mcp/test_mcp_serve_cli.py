"""`nereid serve`: its command line, and serving a session's parts over HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
from mcp import Client

from nereid.commands import serve
from nereid.mcp import EndpointParts, ToolTable
from nereid.runtime import open_runtime
from tests.mcp.mcp_testkit import spawn_diagrams, tool_table


def test_help_describes_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        serve.run(["--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    for option in ("--demo", "--port", "--host", "--token", "--allow-host", "--diagnostics"):
        assert option in text


def test_non_loopback_host_without_token_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NEREID_TOKEN", raising=False)
    with pytest.raises(SystemExit) as exited:
        serve.run(["--host", "0.0.0.0"])
    assert exited.value.code == 2
    assert "bearer token" in capsys.readouterr().err


def test_bad_port_and_dir_with_demo_are_usage_errors() -> None:
    for argv in (["--port", "70000"], ["--port", "x"], ["somewhere", "--demo"]):
        with pytest.raises(SystemExit) as exited:
            serve.run(argv)
        assert exited.value.code == 2


def test_without_session_actors_it_says_so_and_fails(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(serve, "_session_opener", lambda: None)
    assert serve.run(["--demo", "--port", "0"]) == 1
    assert "not available in this build yet" in capsys.readouterr().err


async def test_serves_the_session_parts_and_announces_the_url(
    capsys: pytest.CaptureFixture[str],
) -> None:
    opened: list[dict[str, Any]] = []
    async with open_runtime() as runtime:
        await spawn_diagrams(runtime)

        @asynccontextmanager
        async def opener(session_dir: str | None, **flags: Any) -> AsyncIterator[EndpointParts]:
            opened.append({"dir": session_dir, **flags})
            without_ping = ToolTable(t for t in tool_table() if t.name != "nereid.ping")
            yield EndpointParts(runtime=runtime, tools=without_ping)

        options = serve.build_parser().parse_args(["--demo", "--port", "0", "--diagnostics"])
        async with trio.open_nursery() as nursery:
            url = await nursery.start(serve.serve_session, options, opener, None)
            assert f"nereid: MCP listening on {url}\n" in capsys.readouterr().err
            async with Client(url) as client:
                names = [t.name for t in (await client.list_tools()).tools]
                assert "nereid.ping" in names and "diagram.stat" in names
                ping = await client.call_tool("nereid.ping", {})
                assert ping.structured_content is not None
            nursery.cancel_scope.cancel()
    assert opened == [{"dir": None, "demo": True, "durable_writes": False, "tracer": None}]
