"""Replies over the clients' 1 MiB message limit are refused by the server, over real HTTP.

A refused reply is a -32602 the client can read (what was too big, and how to read it in
parts), and the session keeps working; a reply under the limit arrives whole.
"""

from __future__ import annotations

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from nereid.errors import InvalidParams
from nereid.mcp.reply_size import (
    DIAGRAM_PARTS,
    MAX_REPLY_BYTES,
    check_reply_size,
    check_resource_size,
)
from tests.mcp.session_kit import Agent, http_session


def _labelled_flowchart(nodes: int, label_length: int) -> str:
    lines = ["flowchart TD"]
    for i in range(nodes):
        lines.append(f"  n{i}[{'x' * label_length} {i}] --> n{(i + 1) % nodes}")
    return "\n".join(lines) + "\n"


async def test_too_big_reply_is_refused_with_how_to_read_in_parts() -> None:
    async with http_session(None, demo=True) as (url, _):
        client = Client(
            streamable_http_client(url), client_info=Implementation(name="big", version="1")
        )
        async with client:
            agent = Agent(client)
            mermaid = _labelled_flowchart(3000, 120)
            await agent.ok(
                "diagram.create_from_mermaid",
                {"mermaid": mermaid, "diagram_id": "wide", "make_active": False},
            )
            error = await agent.err("diagram.get_ast", {"diagram_id": "wide"})
            assert error.code == -32602
            assert error.message.startswith("result too large: ")
            assert "diagram.get_slice" in error.message
            assert error.data["tool"] == "diagram.get_ast"
            assert error.data["bytes"] > error.data["limit"] == MAX_REPLY_BYTES
            assert error.data["read_in_parts"] == list(DIAGRAM_PARTS)
            # Reading in parts works, and the session is still healthy.
            part = await agent.ok("object.read", {"object_ref": "d:wide/flow/node/n:n7"})
            assert "x" * 120 in str(part)
            stat = await agent.ok("diagram.stat", {"diagram_id": "wide"})
            assert stat["counts"]["nodes"] == 3000


def test_size_counts_the_text_item_escaped_and_the_structured_copy() -> None:
    quote_heavy = '"' * (MAX_REPLY_BYTES // 2 + 10)
    # The text item holds JSON (each quote escaped there), escaped once more on the wire.
    encoded = {
        "content": [{"type": "text", "text": quote_heavy}],
        "structuredContent": {"a": "b"},
        "isError": False,
    }
    with pytest.raises(InvalidParams) as info:
        check_reply_size("diagram.read", encoded)
    assert info.value.data is not None and info.value.data["bytes"] > MAX_REPLY_BYTES
    small = {"content": [{"type": "text", "text": "{}"}], "structuredContent": {}}
    check_reply_size("diagram.read", small)


def test_resource_text_is_measured_too() -> None:
    check_resource_size("nereid://diagram/d", "x" * 1000)
    with pytest.raises(InvalidParams) as info:
        check_resource_size("nereid://diagram/d", "x" * MAX_REPLY_BYTES)
    assert info.value.data is not None and info.value.data["uri"] == "nereid://diagram/d"
