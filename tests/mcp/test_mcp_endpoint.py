"""The endpoint end to end through the real MCP client SDK, over in-process memory streams.

This is the stdio code path (`serve_streams`) without the process's descriptors.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import trio
from mcp.shared.exceptions import MCPError
from mcp_types import ResourceUpdatedNotification

from nereid import __version__
from nereid.mcp import INSTRUCTIONS
from nereid.runtime import open_runtime
from tests.mcp.mcp_testkit import (
    INITIAL,
    RecordingHooks,
    make_endpoint,
    memory_client,
    spawn_diagrams,
)


async def test_initialize_reports_nereid_version_and_instructions() -> None:
    async with open_runtime() as runtime:
        await spawn_diagrams(runtime)
        async with memory_client(make_endpoint(runtime)) as client:
            assert client.server_info is not None
            assert client.server_info.name == "nereid"
            assert client.server_info.version == __version__
            assert client.instructions == INSTRUCTIONS
            capabilities = client.server_capabilities
            assert capabilities.tools is not None
            assert capabilities.resources is not None and capabilities.resources.subscribe


async def test_tools_list_is_sorted_with_schemas_and_truthful_annotations() -> None:
    async with open_runtime() as runtime:
        await spawn_diagrams(runtime)
        async with memory_client(make_endpoint(runtime)) as client:
            tools = (await client.list_tools()).tools
            names = [t.name for t in tools]
            assert names == sorted(names)
            assert names == [
                "diagram.list",
                "diagram.stat",
                "nereid.ping",
                "test.echo",
                "test.fail",
                "test.replace_text",
            ]
            by_name = {t.name: t for t in tools}
            stat = by_name["diagram.stat"]
            assert stat.description
            assert stat.input_schema == {
                "type": "object",
                "properties": {"diagram_id": {"description": "Diagram id.", "type": "string"}},
                "required": ["diagram_id"],
            }
            assert stat.output_schema is not None and stat.output_schema["type"] == "object"
            assert stat.annotations is not None
            assert stat.annotations.read_only_hint is True
            assert stat.annotations.open_world_hint is False
            replace = by_name["test.replace_text"].annotations
            assert replace is not None
            assert (replace.read_only_hint, replace.destructive_hint) == (False, True)
            assert by_name["diagram.list"].input_schema == {"type": "object", "properties": {}}


async def test_call_returns_structured_content_and_the_same_sorted_compact_text() -> None:
    async with open_runtime() as runtime:
        await spawn_diagrams(runtime)
        async with memory_client(make_endpoint(runtime)) as client:
            result = await client.call_tool("diagram.stat", {"diagram_id": "auth"})
            assert result.is_error is False
            assert result.structured_content == {
                "diagram_id": "auth",
                "kind": "Flowchart",
                "name": "Auth flow",
                "rev": 2,
                "text_length": len(INITIAL["auth"].text),
            }
            (item,) = result.content
            assert item.type == "text"
            assert item.text == json.dumps(
                result.structured_content, separators=(",", ":"), sort_keys=True
            )
            listing = await client.call_tool("diagram.list", {})
            assert listing.structured_content is not None
            ids = [d["diagram_id"] for d in listing.structured_content["diagrams"]]
            assert ids == ["auth", "login"]


async def test_text_item_keeps_non_ascii_literal_and_keys_sorted() -> None:
    async with open_runtime() as runtime:
        async with memory_client(make_endpoint(runtime)) as client:
            result = await client.call_tool(
                "test.echo", {"count": 3, "note": "héllo ✓", "inner": {"label": "ü"}}
            )
            (item,) = result.content
            assert item.type == "text"
            assert '"note":"héllo ✓"' in item.text
            assert item.text.index('"agent_id"') < item.text.index('"count"')
            assert item.text.index('"count"') < item.text.index('"inner"')


async def _error_of(client: Any, name: str, arguments: dict[str, Any] | None) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await client.call_tool(name, arguments)
    return caught.value


@pytest.mark.parametrize(
    ("arguments", "detail"),
    [
        ({}, "Object missing required field `count`"),
        ({"count": "5"}, "Expected `int`, got `str` - at `$.count`"),
        ({"count": True}, "Expected `int`, got `bool` - at `$.count`"),
        ({"count": 3.0}, "Expected `int`, got `float` - at `$.count`"),
        ({"count": -1}, "Expected `int` >= 0 - at `$.count`"),
        ({"count": None}, "Expected `int`, got `null` - at `$.count`"),
        ({"count": 1, "mode": "toggle"}, "Invalid enum value 'toggle' - at `$.mode`"),
        ({"count": 1, "inner": {}}, "Object missing required field `label` - at `$.inner`"),
        ({"count": 1, "inner": {"label": 7}}, "Expected `str`, got `int` - at `$.inner.label`"),
    ],
)
async def test_malformed_arguments_are_invalid_params_naming_the_path(
    arguments: dict[str, Any], detail: str
) -> None:
    async with open_runtime() as runtime:
        async with memory_client(make_endpoint(runtime)) as client:
            error = await _error_of(client, "test.echo", arguments)
            assert error.code == -32602
            assert error.message == f"failed to deserialize parameters: {detail}"
            assert error.data is None


async def test_optional_params_accept_absent_or_null_and_unknown_keys_are_ignored() -> None:
    async with open_runtime() as runtime:
        async with memory_client(make_endpoint(runtime)) as client:
            sent = {"count": 2, "mode": None, "note": None, "inner": None, "surprise": [1]}
            result = await client.call_tool("test.echo", sent)
            assert result.structured_content is not None
            assert result.structured_content["mode"] == "replace"
            assert result.structured_content["note"] is None
            absent = await client.call_tool("test.echo", {"count": 2})
            assert absent.structured_content is not None
            assert absent.structured_content["mode"] == "replace"
            no_arguments = await client.call_tool("nereid.ping", None)
            assert no_arguments.structured_content is not None


async def test_unknown_tool_is_invalid_params() -> None:
    async with open_runtime() as runtime:
        async with memory_client(make_endpoint(runtime)) as client:
            error = await _error_of(client, "diagram.nope", {})
            assert (error.code, error.message) == (-32602, "tool not found")


@pytest.mark.parametrize(
    ("how", "code", "message", "data"),
    [
        ("conflict", -32600, "conflict: stale base_rev", {"base_rev": 1, "current_rev": 3}),
        ("op_not_found", -32002, "object not found", {"kind": "FlowNode", "object_id": "n:x"}),
        ("op_invalid", -32602, "empty label", None),
        ("query_not_found", -32002, "diagram not found", {"diagram_id": "zz"}),
    ],
)
async def test_expected_failures_keep_their_code_message_and_data(
    how: str, code: int, message: str, data: dict[str, Any] | None
) -> None:
    async with open_runtime() as runtime:
        async with memory_client(make_endpoint(runtime)) as client:
            error = await _error_of(client, "test.fail", {"how": how})
            assert (error.code, error.message) == (code, message)
            if data is None:
                assert error.data is None
            else:
                assert {k: error.data[k] for k in data} == data


async def test_actor_refusal_reaches_the_client_as_resource_not_found() -> None:
    async with open_runtime() as runtime:
        await spawn_diagrams(runtime)
        async with memory_client(make_endpoint(runtime)) as client:
            error = await _error_of(client, "diagram.stat", {"diagram_id": "nope"})
            assert (error.code, error.message) == (-32002, "diagram not found")
            assert error.data == {"diagram_id": "nope"}


@pytest.mark.parametrize("how", ["bug", "wrong_type"])
async def test_a_bug_is_internal_error_logged_and_the_server_survives(
    how: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with open_runtime() as runtime:
        await spawn_diagrams(runtime)
        async with memory_client(make_endpoint(runtime)) as client:
            error = await _error_of(client, "test.fail", {"how": how})
            assert (error.code, error.message) == (-32603, "internal error")
            assert set(error.data) == {"correlation_id"}
            assert any(
                record.exc_info is not None and "test.fail" in record.getMessage()
                for record in caplog.records
            )
            after = await client.call_tool("diagram.stat", {"diagram_id": "login"})
            assert after.structured_content is not None


async def test_each_session_is_its_own_agent_with_hooks_on_start_and_end() -> None:
    hooks = RecordingHooks()
    async with open_runtime() as runtime:
        endpoint = make_endpoint(runtime, hooks)
        async with memory_client(endpoint, name="first") as one:
            async with memory_client(endpoint, name="second") as two:
                first = await one.call_tool("nereid.ping", {})
                second = await two.call_tool("nereid.ping", {})
                again = await one.call_tool("nereid.ping", {})
                assert first.structured_content == {"agent_id": "agent:1", "client_name": "first"}
                assert second.structured_content == {
                    "agent_id": "agent:2",
                    "client_name": "second",
                }
                assert again.structured_content == first.structured_content
                assert [a.agent_id for a in endpoint.agents.live()] == ["agent:1", "agent:2"]
        assert [(what, agent.agent_id) for what, agent in hooks.events] == [
            ("started", "agent:1"),
            ("started", "agent:2"),
            ("ended", "agent:2"),
            ("ended", "agent:1"),
        ]
        assert endpoint.agents.live() == []


async def test_echo_sees_a_fresh_correlation_id_per_call() -> None:
    async with open_runtime() as runtime:
        async with memory_client(make_endpoint(runtime)) as client:
            one = await client.call_tool("test.echo", {"count": 1})
            two = await client.call_tool("test.echo", {"count": 1})
            assert one.structured_content is not None and two.structured_content is not None
            assert (
                one.structured_content["correlation_id"] != two.structured_content["correlation_id"]
            )


async def test_diagrams_are_resources_listed_and_read_as_mermaid_text() -> None:
    async with open_runtime() as runtime:
        await spawn_diagrams(runtime)
        async with memory_client(make_endpoint(runtime)) as client:
            listed = (await client.list_resources()).resources
            assert [str(r.uri) for r in listed] == [
                "nereid://diagram/auth",
                "nereid://diagram/login",
            ]
            assert listed[0].mime_type == "text/plain"
            read = await client.read_resource("nereid://diagram/login")
            (content,) = read.contents
            assert getattr(content, "text", None) == INITIAL["login"].text
            with pytest.raises(MCPError) as missing:
                await client.read_resource("nereid://diagram/zzz")
            assert (missing.value.code, missing.value.data) == (-32002, {"diagram_id": "zzz"})
            with pytest.raises(MCPError) as bad:
                await client.read_resource("nereid://other/auth")
            assert bad.value.code == -32602


@pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")
async def test_subscribed_sessions_get_resource_updated_on_each_new_rev() -> None:
    received: list[str] = []
    arrived = trio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            received.append(str(message.params.uri))
            if str(message.params.uri).endswith("/login"):
                arrived.set()

    async with open_runtime() as runtime:
        await spawn_diagrams(runtime)
        endpoint = make_endpoint(runtime)
        async with memory_client(endpoint, message_handler=on_message) as client:
            await client.subscribe_resource("nereid://diagram/auth")
            await client.subscribe_resource("nereid://diagram/login")
            await client.call_tool("test.replace_text", {"diagram_id": "auth", "text": "x"})
            await client.unsubscribe_resource("nereid://diagram/auth")
            await client.call_tool("test.replace_text", {"diagram_id": "auth", "text": "y"})
            await client.call_tool("test.replace_text", {"diagram_id": "login", "text": "z"})
            with trio.fail_after(10):
                await arrived.wait()
            assert received == ["nereid://diagram/auth", "nereid://diagram/login"]
            with pytest.raises(MCPError) as unknown:
                await client.subscribe_resource("nereid://diagram/zzz")
            assert unknown.value.code == -32002
