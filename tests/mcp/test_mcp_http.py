"""Streamable HTTP on 127.0.0.1 (ephemeral port) with the SDK's HTTP client and raw requests."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
import trio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import Implementation

from nereid.mcp import HttpSecurityError, McpEndpoint, serve_http
from nereid.runtime import open_runtime
from tests.mcp.mcp_testkit import RecordingHooks, make_endpoint, spawn_diagrams

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-03-26",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
JSON_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@asynccontextmanager
async def serving(
    hooks: RecordingHooks | None = None, **options: Any
) -> AsyncIterator[tuple[str, McpEndpoint]]:
    async with open_runtime() as runtime:
        await spawn_diagrams(runtime)
        endpoint = make_endpoint(runtime, hooks)
        async with trio.open_nursery() as nursery:
            url = await nursery.start(
                lambda task_status: serve_http(endpoint, port=0, task_status=task_status, **options)
            )
            yield url, endpoint
            nursery.cancel_scope.cancel()


@asynccontextmanager
async def http_client(
    url: str, name: str, headers: dict[str, str] | None = None
) -> AsyncIterator[Client]:
    """A connected client; its HTTP client (which the SDK leaves open) is closed on exit."""
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, client_info=Implementation(name=name, version="1")) as client:
            yield client


async def test_serves_on_the_loopback_url_it_reports() -> None:
    async with serving() as (url, _):
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/mcp", url)
        assert not url.endswith(":0/mcp")
        async with http_client(url, "one") as client:
            assert client.server_info is not None and client.server_info.name == "nereid"
            result = await client.call_tool("diagram.stat", {"diagram_id": "auth"})
            assert result.structured_content is not None
            assert result.structured_content["rev"] == 2


async def test_two_concurrent_sessions_are_two_agents() -> None:
    hooks = RecordingHooks()
    async with serving(hooks) as (url, endpoint):
        seen: dict[str, Any] = {}

        async def ping_as(name: str) -> None:
            async with http_client(url, name) as client:
                result = await client.call_tool("nereid.ping", {})
                again = await client.call_tool("nereid.ping", {})
                assert again.structured_content == result.structured_content
                seen[name] = result.structured_content

        async with trio.open_nursery() as nursery:
            nursery.start_soon(ping_as, "alpha")
            nursery.start_soon(ping_as, "beta")
        assert {v["client_name"] for v in seen.values()} == {"alpha", "beta"}
        assert seen["alpha"]["agent_id"] != seen["beta"]["agent_id"]
        assert {v["agent_id"] for v in seen.values()} == {"agent:1", "agent:2"}
        with trio.fail_after(10):
            while len(hooks.events) < 4:
                await hooks.changed.wait()
        ended = sorted(agent.agent_id for what, agent in hooks.events if what == "ended")
        assert ended == ["agent:1", "agent:2"]
        assert all(agent.session_id for _, agent in hooks.events)
        assert endpoint.agents.live() == []


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Host": "evil.example:27435"}, 421),
        ({"Origin": "http://evil.example"}, 403),
        ({"Origin": "http://127.0.0.1.evil.example:80"}, 403),
    ],
)
async def test_foreign_host_or_origin_is_refused(headers: dict[str, str], status: int) -> None:
    async with serving() as (url, _):
        async with httpx2.AsyncClient() as raw:
            response = await raw.post(url, json=INITIALIZE, headers={**JSON_HEADERS, **headers})
            assert response.status_code == status
            fine = await raw.post(
                url, json=INITIALIZE, headers={**JSON_HEADERS, "Origin": "http://localhost:3000"}
            )
            assert fine.status_code == 200


async def test_oversized_request_is_413_and_other_paths_404() -> None:
    async with serving(max_body_size=4096) as (url, _):
        async with httpx2.AsyncClient() as raw:
            big = {**INITIALIZE, "params": {**INITIALIZE["params"], "pad": "x" * 5000}}
            response = await raw.post(url, json=big, headers=JSON_HEADERS)
            assert response.status_code == 413
            elsewhere = await raw.post(url.replace("/mcp", "/other"), json=INITIALIZE)
            assert elsewhere.status_code == 404


async def test_bearer_token_is_required_when_configured() -> None:
    async with serving(token="s3cret") as (url, _):
        async with httpx2.AsyncClient() as raw:
            missing = await raw.post(url, json=INITIALIZE, headers=JSON_HEADERS)
            assert missing.status_code == 401
            assert missing.headers["www-authenticate"].startswith("Bearer")
            wrong = await raw.post(
                url, json=INITIALIZE, headers={**JSON_HEADERS, "Authorization": "Bearer nope"}
            )
            assert wrong.status_code == 401
        async with http_client(url, "authed", {"Authorization": "Bearer s3cret"}) as client:
            result = await client.call_tool("nereid.ping", {})
            assert result.structured_content is not None


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "example.org"])
async def test_non_loopback_host_without_token_is_refused_before_binding(host: str) -> None:
    async with open_runtime() as runtime:
        with pytest.raises(HttpSecurityError, match="needs a bearer token"):
            await serve_http(make_endpoint(runtime), host=host, port=0)


@pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")
async def test_resource_updates_reach_a_subscribed_http_session() -> None:
    from mcp_types import ResourceUpdatedNotification

    updates: list[str] = []
    arrived = trio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            updates.append(str(message.params.uri))
            arrived.set()

    async with serving() as (url, _):
        transport = streamable_http_client(url)
        async with Client(transport, message_handler=on_message) as client:
            await client.subscribe_resource("nereid://diagram/login")
            # The client opens its standalone (GET) stream in the background; a
            # notification sent before it is connected is lost, so keep changing
            # the diagram until one arrives.
            with trio.fail_after(10):
                for n in range(1000):
                    await client.call_tool(
                        "test.replace_text", {"diagram_id": "login", "text": f"v{n}"}
                    )
                    with trio.move_on_after(0.2):
                        await arrived.wait()
                    if arrived.is_set():
                        break
            assert set(updates) == {"nereid://diagram/login"}


async def test_per_request_envelope_era_is_refused_naming_the_handshake_versions() -> None:
    from mcp.shared.exceptions import MCPError

    async with serving() as (url, endpoint):
        async with Client(url, mode="2026-07-28") as modern:
            with pytest.raises(MCPError) as refused:
                await modern.call_tool("nereid.ping", {})
        assert refused.value.code == -32022
        assert "2025-03-26" in refused.value.data["supported"]
        assert "2026-07-28" not in refused.value.data["supported"]
        assert endpoint.agents.live() == []
