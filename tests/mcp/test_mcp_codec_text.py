"""`encode_result`: one conversion, the text item is the structured content as sorted JSON."""

from __future__ import annotations

import json

import msgspec

from nereid.mcp.codec import encode_result, result_text


class Inner(msgspec.Struct, frozen=True, kw_only=True):
    zeta: int
    alpha: str


class Outer(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    inner: Inner
    extra: dict[str, int]
    items: list[Inner]


def test_text_item_is_sorted_compact_json_of_structured_content() -> None:
    result = Outer(
        name="Ünïcode →",
        inner=Inner(zeta=1, alpha="a"),
        extra={"b": 2, "a": 1},
        items=[Inner(zeta=3, alpha="x")],
    )
    wire = encode_result(result)
    text = wire["content"][0]["text"]
    assert wire["isError"] is False
    assert text == json.dumps(
        wire["structuredContent"], sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    assert text == result_text(result)
    assert text.startswith('{"extra":{"a":1,"b":2},"inner":{"alpha":"a","zeta":1}')
    assert list(wire["structuredContent"]) == ["extra", "inner", "items", "name"]
