"""Replies over the clients' 1 MiB message limit are refused by the server, over real HTTP.

A refused reply is a -32602 the client can read (what was too big, and how to read it in
parts), and the session keeps working; a reply under the limit arrives whole.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from nereid.errors import InvalidParams
from nereid.mcp.codec import encode_result, result_body
from nereid.mcp.reply_size import (
    _ENVELOPE,
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


class _Payload(msgspec.Struct, frozen=True):
    text: str
    items: list[str]
    number: float


def _wire_size(encoded: dict[str, Any]) -> int:
    """The oracle: the wire form's text items and structured content, JSON-encoded."""
    size = _ENVELOPE + sum(len(msgspec.json.encode(i["text"])) for i in encoded["content"])
    return size + len(msgspec.json.encode(encoded["structuredContent"]))


@settings(max_examples=200, deadline=None)
@given(st.text(), st.lists(st.text(max_size=20), max_size=5), st.floats(allow_nan=False))
def test_size_from_the_body_is_the_wire_form_size(text: str, items: list[str], n: float) -> None:
    # Quotes, backslashes, control characters, separators and astral characters alike: the
    # size measured from the sorted JSON alone is what the wire form built from it weighs.
    result = _Payload(text=text, items=items, number=n)
    body = result_body(result)
    wire = encode_result(result, body)
    assert wire == encode_result(result)
    expected = _wire_size(wire)
    padding = MAX_REPLY_BYTES - expected + 1  # a copy just over the limit by one byte
    check_reply_size("diagram.read", body)
    with pytest.raises(InvalidParams) as info:
        check_reply_size("diagram.read", body + b" " * padding)
    assert info.value.data is not None and info.value.data["bytes"] == expected + padding * 2


def test_size_counts_the_text_item_escaped_and_the_structured_copy() -> None:
    quote_heavy = _Payload(text='"' * (MAX_REPLY_BYTES // 4 + 10), items=[], number=0.0)
    body = result_body(quote_heavy)
    # Each quote is escaped in the text item's JSON, and once more on the wire: over the
    # limit although the drawing alone is a quarter of it.
    with pytest.raises(InvalidParams) as info:
        check_reply_size("diagram.read", body)
    assert info.value.data is not None
    text_item = encode_result(quote_heavy, body)["content"][0]["text"]
    # Counting stops at the text item once it alone is over the limit.
    assert info.value.data["bytes"] == _ENVELOPE + len(msgspec.json.encode(text_item))
    check_reply_size("diagram.read", result_body(_Payload(text="{}", items=[], number=1.0)))


def test_resource_text_is_measured_too() -> None:
    check_resource_size("nereid://diagram/d", "x" * 1000)
    with pytest.raises(InvalidParams) as info:
        check_resource_size("nereid://diagram/d", "x" * MAX_REPLY_BYTES)
    assert info.value.data is not None and info.value.data["uri"] == "nereid://diagram/d"
