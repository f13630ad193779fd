"""Schemas from msgspec Structs (golden), argument decoding and result encoding units."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.shared.exceptions import MCPError

from nereid.errors import Conflict
from nereid.mcp import decode_arguments, encode_result, struct_schema
from nereid.mcp.codec import result_text
from nereid.mcp.errors import expected_error
from nereid.mcp.schema import compact_output
from nereid.mcp.tools import READ_ONLY, tool
from nereid.mcp.tools_diagram_reads import ReadResult
from nereid.mcp.tools_diagrams import FileError
from tests.mcp.mcp_testkit import DiagramListResult, EchoParams, tool_table


def test_params_schema_golden_is_self_contained() -> None:
    assert struct_schema(EchoParams) == {
        "type": "object",
        "properties": {
            "count": {"type": "integer", "minimum": 0},
            "mode": {
                "default": "replace",
                "anyOf": [{"enum": ["add", "remove", "replace"]}, {"type": "null"}],
            },
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "inner": {
                "anyOf": [
                    {
                        "description": "A nested value.",
                        "type": "object",
                        "properties": {"label": {"type": "string"}},
                        "required": ["label"],
                    },
                    {"type": "null"},
                ]
            },
        },
        "required": ["count"],
    }


def test_result_schema_golden_is_compact_and_does_not_widen() -> None:
    full = struct_schema(DiagramListResult, nullable_optional=False)
    assert full == {
        "type": "object",
        "properties": {
            "diagrams": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "diagram_id": {"type": "string"},
                        "kind": {"type": "string"},
                        "name": {"type": "string"},
                        "rev": {"type": "integer", "minimum": 0},
                    },
                    "required": ["diagram_id", "kind", "name", "rev"],
                },
            }
        },
        "required": ["diagrams"],
    }
    assert compact_output(full) == {
        "type": "object",
        "properties": {"diagrams": {"type": "array"}},
        "required": ["diagrams"],
    }


class Titled(msgspec.Struct, frozen=True, kw_only=True):
    title: str | None
    note: str | None = None


def test_a_property_named_title_is_kept_and_nullables_compact() -> None:
    full = struct_schema(Titled, nullable_optional=False)
    assert set(full["properties"]) == {"title", "note"}
    assert compact_output(full)["properties"] == {
        "title": {"type": ["string", "null"]},
        "note": {"type": ["string", "null"]},
    }


class Node(msgspec.Struct, frozen=True, kw_only=True):
    label: str
    children: list[Node] = []


def test_a_self_referencing_root_keeps_its_definition() -> None:
    schema = struct_schema(Node)
    assert schema["type"] == "object"
    assert "Node" in schema["$defs"]
    assert schema["properties"]["children"]["anyOf"][0]["items"] == {"$ref": "#/$defs/Node"}


def test_every_tool_schema_has_an_object_root() -> None:
    for item in tool_table():
        assert item.input_schema["type"] == "object"
        assert item.output_schema["type"] == "object"
        assert "$ref" not in item.input_schema


def test_decode_strict_and_null_means_absent_for_optional() -> None:
    optional = frozenset({"mode", "note", "inner"})
    params = decode_arguments({"count": 1, "mode": None, "extra": 1}, EchoParams, optional)
    assert params == EchoParams(count=1)
    with pytest.raises(MCPError) as caught:
        decode_arguments({"count": False}, EchoParams, optional)
    assert caught.value.code == -32602
    assert caught.value.message.startswith("failed to deserialize parameters: ")


def test_op_error_with_no_data_sends_no_data() -> None:
    mapped = expected_error(Conflict("stale"))
    assert mapped is not None
    assert (mapped.code, mapped.message, mapped.data) == (-32600, "stale", None)
    assert expected_error(ValueError("bug")) is None


class Payload(msgspec.Struct, frozen=True, kw_only=True):
    zeta: str
    alpha: dict[str, Any]
    middle: list[int]


json_leaves = st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53), st.text())
json_values = st.recursive(
    json_leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    zeta=st.text(),
    alpha=st.dictionaries(st.text(), json_values, max_size=5),
    middle=st.lists(st.integers(0, 2**63 - 1), max_size=5),
)
def test_text_item_is_compact_sorted_json_with_literal_unicode(
    zeta: str, alpha: dict[str, Any], middle: list[int]
) -> None:
    payload = Payload(zeta=zeta, alpha=alpha, middle=middle)
    structured = msgspec.to_builtins(payload)
    expected = json.dumps(structured, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    assert result_text(payload) == expected
    wire = encode_result(payload)
    assert wire["structuredContent"] == structured
    assert json.dumps(wire["structuredContent"], separators=(",", ":"), ensure_ascii=False) == (
        expected
    )


def test_unlisted_output_fields_leave_the_schema_but_not_the_results() -> None:
    async def handler(call: Any, params: EchoParams) -> ReadResult:  # pragma: no cover
        raise AssertionError

    listed = tool("t", "T.", params=EchoParams, result=ReadResult, hints=READ_ONLY)(handler)
    quiet = tool(
        "t",
        "T.",
        params=EchoParams,
        result=ReadResult,
        hints=READ_ONLY,
        unlisted_output=("file_error",),
    )(handler)
    assert "file_error" in listed.output_schema["properties"]
    assert "file_error" not in quiet.output_schema["properties"]
    assert {k: v for k, v in quiet.output_schema.items() if k != "properties"} == {
        k: v for k, v in listed.output_schema.items() if k != "properties"
    }
    context = {"session_active_diagram_id": None, "session_active_walkthrough_id": None}
    error = FileError(file="diagrams/x.mmd", line=2, column=None, message="bad")
    result = msgspec.to_builtins(
        ReadResult(rev=1, kind="Flowchart", mermaid="", context=context, file_error=error)  # type: ignore[arg-type]
    )
    jsonschema.validate(result, quiet.output_schema)  # the additive field is still valid
    with pytest.raises(ValueError, match="optional result fields"):
        tool(
            "t",
            "T.",
            params=EchoParams,
            result=ReadResult,
            hints=READ_ONLY,
            unlisted_output=("rev",),
        )(handler)
