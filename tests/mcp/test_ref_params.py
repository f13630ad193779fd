"""Ref parameters are decoded by the MCP codec (`decode_arguments`): a malformed ref is the
same refusal as the query layer's `check_param_ref` (`invalid object_ref: <reason>`, a list's
refs under the singular name), and only once nothing else in the arguments is wrong."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from mcp.shared.exceptions import MCPError

from nereid.errors import InvalidParams
from nereid.mcp.codec import decode_arguments
from nereid.model import ObjectRef, ObjectRefError, parse_ref
from nereid.query.params import check_param_ref
from tests.model.test_ref_codecs import HOSTILE


class Params(msgspec.Struct, frozen=True, kw_only=True):
    object_ref: ObjectRef | None = None
    object_refs: tuple[ObjectRef, ...] = ()
    count: int = 0


@settings(max_examples=100)
@given(HOSTILE)
def test_a_bad_ref_parameter_is_refused_as_the_query_layer_refuses_it(text: str) -> None:
    try:
        parse_ref(text)
    except ObjectRefError:
        pass
    else:
        assert decode_arguments({"object_refs": [text]}, Params).object_refs == (parse_ref(text),)
        return
    with pytest.raises(InvalidParams) as direct:
        check_param_ref("object_ref", text)
    for arguments in ({"object_ref": text}, {"object_refs": ["d:a/b/c", text]}):
        with pytest.raises(InvalidParams) as decoded:
            decode_arguments(arguments, Params)
        assert decoded.value.to_jsonrpc() == direct.value.to_jsonrpc()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"object_ref": "bad", "count": "5"}, "Expected `int`, got `str` - at `$.count`"),
        ({"count": "5", "object_refs": ["bad"]}, "Expected `int`, got `str` - at `$.count`"),
        ({"object_refs": ["bad", 5]}, "Expected `str`, got `int` - at `$.object_refs[1]`"),
        ({"object_ref": 5}, "Expected `str`, got `int` - at `$.object_ref`"),
        ({"object_refs": "d:a/b/c"}, "Expected `array`, got `str` - at `$.object_refs`"),
    ],
)
def test_what_else_is_wrong_is_reported_before_a_bad_ref(
    arguments: dict[str, Any], message: str
) -> None:
    """As when refs were parsed after decoding: a wrong type anywhere wins over a bad ref."""
    with pytest.raises(MCPError) as caught:
        decode_arguments(arguments, Params)
    assert caught.value.error.code == -32602
    assert caught.value.error.message == f"failed to deserialize parameters: {message}"
