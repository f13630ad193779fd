"""Tool-name modes with real SDK clients on a real session: what hosts that reject dots get.

Every name listed in `underscore` mode must pass the strictest host rule we know of: Claude
Desktop's `^[a-zA-Z0-9_-]{1,64}$`, Cursor's "letters, digits and underscores only", VS Code's
lower-case warning and Gemini's "starts with a letter or underscore" — together
`^[a-z_][a-z0-9_]{0,63}$`. Calls accept both spellings in both modes, and what the server
says (instructions, descriptions, error texts) names the tools as they are listed.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from mcp import Client

from nereid.cli import UsageError, parse_main_args
from nereid.commands import serve
from nereid.mcp import McpEndpoint
from nereid.tool_names import HOST_NAME_PATTERN, ToolNamer, parse_tool_names
from tests.mcp.session_kit import Agent, http_session, memory_client, memory_session, stdio_client

STRICTEST = re.compile(r"^[a-z_][a-z0-9_]{0,63}$")
DOTTED_TOOL = re.compile(r"\b[a-z_]+\.[a-z_]+(?:\.[a-z_]+)?\b")


def _underscore(endpoint: McpEndpoint) -> McpEndpoint:
    return McpEndpoint(
        endpoint.runtime,
        endpoint.tools,
        resources=endpoint.hub.provider if endpoint.hub is not None else None,
        hooks=endpoint.hooks,
        tool_names="underscore",
    )


def _dotted_names_in(text: str, known: set[str]) -> set[str]:
    return {m for m in DOTTED_TOOL.findall(text) if m in known}


async def test_underscore_mode_lists_only_host_safe_names_and_speaks_them() -> None:
    async with memory_session(None, demo=True) as dotted_endpoint:
        endpoint = _underscore(dotted_endpoint)
        canonical = set(endpoint.tools.names())
        async with memory_client(endpoint) as client:
            listed = (await client.list_tools()).tools
            names = [tool.name for tool in listed]
            print(f"underscore mode lists {len(names)} tools, longest {max(map(len, names))}")
            assert len(names) == len(canonical)
            for name in names:
                assert HOST_NAME_PATTERN.fullmatch(name), name
                assert STRICTEST.fullmatch(name), name
            assert "diagram_list" in names and "attention_agent_set" in names
            for tool in listed:
                dumped = tool.model_dump_json()
                assert not _dotted_names_in(dumped, canonical), (tool.name, dumped)
            assert client.instructions is not None
            assert "diagram_list" in client.instructions
            assert not _dotted_names_in(client.instructions, canonical)


async def test_both_spellings_are_called_in_both_modes() -> None:
    async with memory_session(None, demo=True) as dotted_endpoint:
        for endpoint in (dotted_endpoint, _underscore(dotted_endpoint)):
            async with memory_client(endpoint) as client:
                agent = Agent(client)
                one = await agent.ok("diagram.list")
                two = await agent.ok("diagram_list")
                assert one["diagrams"] == two["diagrams"]
                assert (await agent.ok("follow_ai_read"))["enabled"] is True
                unknown = await agent.err("diagram_lists")
                assert (unknown.code, unknown.message) == (-32602, "tool not found")


async def test_error_texts_use_the_listed_names() -> None:
    async with memory_session(None, demo=True) as dotted_endpoint:
        stale: dict[str, Any] = {"base_rev": 99, "ops": []}
        async with memory_client(dotted_endpoint) as client:
            dotted = await Agent(client).err("diagram.apply_ops", stale)
        async with memory_client(_underscore(dotted_endpoint)) as client:
            underscored = await Agent(client).err("diagram.apply_ops", stale)
        assert dotted.data["snapshot_tool"] == "diagram.stat"
        assert underscored.data["snapshot_tool"] == "diagram_stat"
        assert underscored.code == dotted.code


async def test_an_http_session_can_ask_for_underscores_in_its_url() -> None:
    async with http_session(None, demo=True) as (url, _endpoint):
        async with Client(f"{url}?tool_names=underscore") as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            assert all(STRICTEST.fullmatch(name) for name in names)
        async with Client(url) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            assert "diagram.list" in names


async def test_stdio_mode_takes_the_flag_and_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with stdio_client("--demo", "--mcp", "--tool-names", "underscore") as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert "diagram_apply_ops" in names and "diagram.apply_ops" not in names
        assert (await Agent(client).ok("diagram.list"))["diagrams"]
    monkeypatch.setenv("NEREID_TOOL_NAMES", "underscore")
    async with stdio_client("--demo", "--mcp") as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert "diagram_apply_ops" in names


def test_command_lines_parse_and_refuse_bad_modes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NEREID_TOOL_NAMES", raising=False)
    assert parse_main_args(["--mcp"]).tool_names == "dotted"
    assert parse_main_args(["--mcp", "--tool-names=underscore"]).tool_names == "underscore"
    with pytest.raises(UsageError, match="dotted, underscore"):
        parse_main_args(["--mcp", "--tool-names", "camel"])
    monkeypatch.setenv("NEREID_TOOL_NAMES", "UNDERSCORE")
    assert parse_main_args(["--mcp"]).tool_names == "underscore"
    assert parse_main_args(["--tool-names", "dotted"]).tool_names == "dotted"
    monkeypatch.setenv("NEREID_TOOL_NAMES", "snake")
    with pytest.raises(UsageError, match="NEREID_TOOL_NAMES"):
        parse_main_args([])
    assert serve.build_parser().parse_args(["--tool-names", "underscore"]).tool_names == (
        "underscore"
    )
    with pytest.raises(SystemExit):
        serve.build_parser().parse_args(["--tool-names", "camel"])
    with pytest.raises(ValueError, match="--tool-names"):
        parse_tool_names("")


def test_the_namer_rewrites_whole_names_only() -> None:
    namer = ToolNamer(["diagram.read", "diagram.read_state", "flow.paths"], "underscore")
    assert namer.text("use diagram.read, then diagram.read_state.") == (
        "use diagram_read, then diagram_read_state."
    )
    assert namer.text("d:flow/flow/node/a and x.diagram.read") == (
        "d:flow/flow/node/a and x.diagram.read"
    )
    assert namer.canonical("flow_paths") == namer.canonical("flow.paths") == "flow.paths"
    assert namer.canonical("flow.paths.x") is None
    with pytest.raises(ValueError, match="both spell"):
        ToolNamer(["a.b", "a_b"])
