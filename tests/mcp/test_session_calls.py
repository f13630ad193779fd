"""How a tool row reads its result from actor replies (`nereid.mcp.session_calls.read_from`),
and the params and results derived from the protocol Structs (`params_of`, `reply_result`).

Refs are their text at any depth on the wire (`ref_enc_hook`, as the MCP codec encodes),
Structs are taken as they are (a tagged union such as the AST view converts only that way),
and a mapping part offers its keys, never its methods.
"""

from __future__ import annotations

import msgspec

from nereid.actors.protocol import GetDiagram, SetSpotlight, Spotlight, UpdateSelection
from nereid.mcp.schema import struct_schema
from nereid.mcp.session_calls import ReadContext, params_of, read_from, reply_result
from nereid.mermaid import parse_mermaid
from nereid.model import Walkthrough, WalkthroughEdge, WalkthroughNode, parse_ref
from nereid.model.refs import ref_enc_hook
from nereid.query.ast_view import AstView, ast_view


def _json(value: object) -> object:
    return msgspec.json.decode(msgspec.json.encode(value, enc_hook=ref_enc_hook))


def test_refs_are_read_as_text_inside_nested_structs() -> None:
    refs = (parse_ref("d:auth/flow/node/n:a"), parse_ref("d:seq/seq/message/m:1"))
    node = WalkthroughNode(node_id="wn:1", title="A", refs=refs, tags=("x",))
    edge = WalkthroughEdge(from_node_id="wn:1", to_node_id="wn:1", kind="next")
    walk = Walkthrough(walkthrough_id="wt", title="T", rev=3, nodes=(node,), edges=(edge,))
    shape = reply_result(Walkthrough, "walkthrough_id", "rev", "nodes", "edges", context=False)
    out = _json(msgspec.convert(read_from(walk), shape, from_attributes=True))
    assert out == {
        "walkthrough_id": "wt",
        "rev": 3,
        "nodes": [
            {
                "node_id": "wn:1",
                "title": "A",
                "body_md": None,
                "refs": ["d:auth/flow/node/n:a", "d:seq/seq/message/m:1"],
                "tags": ["x"],
                "status": None,
            }
        ],
        "edges": [_json(edge)],
    }


def test_a_reply_result_requires_every_field_renames_and_reads_properties() -> None:
    shape = reply_result(Spotlight, "object_ref", "diagram_id", who="agent_id")
    schema = struct_schema(shape, nullable_optional=False)
    assert schema["required"] == ["object_ref", "diagram_id", "who", "context"]
    assert schema["properties"]["object_ref"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    spot = Spotlight(agent_id="a1", object_ref=parse_ref("d:auth/flow/node/n:a"), seq=2)
    extra = {"context": ReadContext()}
    out = msgspec.convert(read_from(extra, spot), shape, from_attributes=True)
    assert _json(out) == {
        "object_ref": "d:auth/flow/node/n:a",
        "diagram_id": "auth",
        "who": "a1",
        "context": {},
    }


def test_params_of_a_request_are_its_fields_without_the_caller() -> None:
    assert params_of(GetDiagram) is GetDiagram  # no caller: the request itself
    assert params_of(UpdateSelection) is UpdateSelection  # refs too: each is its text
    assert params_of(SetSpotlight).__struct_fields__ == ("object_ref",)
    schema = struct_schema(params_of(UpdateSelection), nullable_optional=False)
    assert schema["properties"]["object_refs"] == {
        "type": "array",
        "items": {"type": "string"},
        "description": "Object refs to replace, add to or remove from it.",
    }
    assert schema["properties"]["mode"]["default"] == "replace"
    assert schema["required"] == ["object_refs"]


class _Shaped(msgspec.Struct, frozen=True, kw_only=True):
    ast: AstView
    items: list[str] = []


def test_structs_without_refs_are_taken_whole_and_mappings_offer_only_keys() -> None:
    view = ast_view(parse_mermaid("flowchart TD\n  a --> b\n"))
    out = msgspec.convert(read_from({"ast": view}), _Shaped, from_attributes=True)
    assert out.ast is view
    assert out.items == []
