"""Tool arguments in, tool results out (mcp-tools.md §0, §2.1-2.3).

Arguments are decoded strictly: a missing key, a wrong JSON type (`"5"`, `true` or
`3.0` for an integer), a negative u64 or an unknown enum string is refused with
-32602 `failed to deserialize parameters: <detail naming the path>`. An `ObjectRef`
parameter is decoded from its text here too (`ref_dec_hook`); a malformed one is the
spec's `invalid <name>: <reason>` (a list's refs each under the singular name), and only
once nothing else in the arguments is wrong, as when refs were checked after decoding. Unknown
top-level keys are ignored, and an optional parameter sent as `null` means "not
provided". Unknown keys inside ops are ignored too; the op tools list them in
`ignored_fields` (decision 22).

A result is sent as `structuredContent` plus the same JSON as one text item:
compact, keys sorted at every level, non-ASCII written literally.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, TypeVar

import msgspec

from nereid.errors import invalid_param
from nereid.model.refs import ObjectRef, ObjectRefError, ref_dec_hook, ref_enc_hook

from .errors import deserialize_error

__all__ = ["decode_arguments", "encode_result", "result_body", "result_text"]

ParamsT = TypeVar("ParamsT", bound=msgspec.Struct)

_ENCODER: Final = msgspec.json.Encoder(order="sorted", enc_hook=ref_enc_hook)
_PLAIN_ENCODER: Final = msgspec.json.Encoder()

_FIELD_AT: Final = re.compile(r" - at `\$\.([^.\[`]+)(\[)?[^`]*`$")
"""The top-level field (and whether an item of it) a ValidationError's message names."""


def decode_arguments(
    arguments: Mapping[str, Any] | None,
    params_type: type[ParamsT],
    optional_fields: frozenset[str] = frozenset(),
) -> ParamsT:
    """`arguments` as a `params_type`; raises `MCPError` (-32602) if they do not fit.

    `optional_fields` are the encoded names of parameters with a default: a `null`
    there is dropped before decoding, so the default applies.
    """
    given: dict[str, Any] = dict(arguments or {})
    for name in optional_fields:
        if name in given and given[name] is None:
            del given[name]
    try:
        return msgspec.convert(given, params_type, strict=True, dec_hook=ref_dec_hook)
    except msgspec.ValidationError as error:
        bad_ref = error.__cause__
        if not isinstance(bad_ref, ObjectRefError):
            raise deserialize_error(error) from None
        try:
            msgspec.convert(given, params_type, strict=True, dec_hook=_any_text_as_ref)
        except msgspec.ValidationError as other:  # wrong besides the ref: that first
            raise deserialize_error(other) from None
        raise _ref_refusal(params_type, str(error), bad_ref) from None


_SOME_REF: Final = ObjectRef("d", ("c",), "o")


def _any_text_as_ref(kind: type, value: object) -> object:
    """`ref_dec_hook` that takes any string as a ref (the check for what else is wrong)."""
    if kind is ObjectRef and isinstance(value, str):
        return _SOME_REF
    return ref_dec_hook(kind, value)


def _ref_refusal(params_type: type[msgspec.Struct], message: str, err: ObjectRefError) -> Exception:
    """`invalid <field>: <reason>` for the ref the message's path names (`object_refs[2]`:
    `object_ref`), the field by its name in the params Struct."""
    found = _FIELD_AT.search(message)
    if found is None:  # pragma: no cover - msgspec always says where
        raise TypeError(f"no path in {message!r}")
    wire, item = found.group(1), found.group(2) is not None
    names = dict(
        zip(params_type.__struct_encode_fields__, params_type.__struct_fields__, strict=True)
    )
    name = names.get(wire, wire)
    return invalid_param(name.removesuffix("s") if item else name, err.message, err.text)


def result_body(result: msgspec.Struct) -> bytes:
    """The text item as bytes (compact JSON, sorted keys, non-ASCII literal): also what the
    reply-size check measures."""
    return _ENCODER.encode(result)


def result_text(result: msgspec.Struct) -> str:
    """The text item: compact JSON, sorted keys, non-ASCII literal."""
    return result_body(result).decode("utf-8")


def encode_result(result: msgspec.Struct, body: bytes | None = None) -> dict[str, Any]:
    """The `tools/call` result (wire form) for a handler's result Struct.

    The Struct is converted once (keys sorted at every level); the text item is `body`
    (`result_body(result)`, given when the caller already has it), the same sorted JSON.
    """
    structured = msgspec.to_builtins(result, order="sorted", enc_hook=ref_enc_hook)
    if not isinstance(structured, dict):
        raise TypeError(f"tool result {type(result).__name__} does not encode as a JSON object")
    text = body if body is not None else _PLAIN_ENCODER.encode(structured)
    return {
        "content": [{"type": "text", "text": text.decode("utf-8")}],
        "structuredContent": structured,
        "isError": False,
    }
