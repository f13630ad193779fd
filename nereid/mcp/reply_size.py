"""Replies too big for clients are refused here, never sent (and failed client-side).

The official MCP SDKs read at most 1 MiB per JSON-RPC message; a bigger reply is dropped
or fails to parse at the client, which then waits or errors without knowing why. So every
tool result (and every resource read) is measured as it would go on the wire — the text
item (itself JSON, escaped once more as a string) plus `structuredContent`, plus the
envelope — and one over `MAX_REPLY_BYTES` becomes -32602 "result too large", saying how
to read the same thing in parts. A drawing over the render budget (`TooLargeToRender`) is
refused the same way (`too_large_to_render`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import msgspec

from nereid.errors import InvalidParams

if TYPE_CHECKING:  # the render layer is not needed to answer the handshake
    from nereid.render import TooLargeToRender

__all__ = [
    "DIAGRAM_PARTS",
    "MAX_REPLY_BYTES",
    "WALKTHROUGH_PARTS",
    "check_reply_size",
    "check_resource_size",
    "too_large_to_render",
]

MAX_REPLY_BYTES: Final = 1024 * 1024
#: The tools that read a diagram or walkthrough in parts, named in "too large" refusals.
DIAGRAM_PARTS: Final = ("diagram.get_slice", "flow.*", "seq.*", "object.read", "diagram.stat")
WALKTHROUGH_PARTS: Final = ("walkthrough.get_node", "walkthrough.read", "walkthrough.stat")
#: Room for the JSON-RPC envelope and the result's other keys.
_ENVELOPE: Final = 512
_GENERIC_PARTS: Final = ("fewer refs per call", "a smaller limit", "a narrower query")


def _parts_for(tool: str) -> tuple[str, ...]:
    if tool.startswith(("walkthrough.", "walkthrough_")):
        return WALKTHROUGH_PARTS
    if tool.startswith(("diagram.", "diagram_")):
        return DIAGRAM_PARTS
    return _GENERIC_PARTS


def _refusal(size: int, what: dict[str, Any], parts: tuple[str, ...]) -> InvalidParams:
    return InvalidParams(
        f"result too large: {size} bytes, over the {MAX_REPLY_BYTES}-byte message limit of "
        f"MCP clients; read it in parts with {', '.join(parts)}",
        data={**what, "bytes": size, "limit": MAX_REPLY_BYTES, "read_in_parts": list(parts)},
    )


def check_reply_size(tool: str, body: bytes) -> None:
    """Raise InvalidParams if the `tools/call` result whose sorted JSON is `body` would exceed
    the limit, measured before the wire form is built (a refused 1 MB drawing then costs
    the event loop one encode, not four).

    On the wire the text item is `body` as a JSON string (each `"` and `\\` escaped once
    more; `body` holds no raw control characters, and non-ASCII stays UTF-8) and
    `structuredContent` is `body` again.
    """
    size = _ENVELOPE + len(body) + 2 + body.count(b'"') + body.count(b"\\")
    if size <= MAX_REPLY_BYTES:
        size += len(body)
    if size > MAX_REPLY_BYTES:
        raise _refusal(size, {"tool": tool}, _parts_for(tool))


def check_resource_size(uri: str, text: str) -> None:
    """Raise InvalidParams if a resource's text would exceed the limit."""
    size = _ENVELOPE + len(msgspec.json.encode(text))
    if size > MAX_REPLY_BYTES:
        raise _refusal(size, {"uri": uri}, DIAGRAM_PARTS)


def too_large_to_render(
    err: TooLargeToRender, owner: dict[str, str], parts: tuple[str, ...]
) -> InvalidParams:
    """-32602 "too large to render: …" saying what was counted and how to read in parts."""
    return InvalidParams(
        f"{err.message}; read it in parts with {', '.join(parts)}",
        data={
            **owner,
            "measure": err.measure,
            "value": err.value,
            "limit": err.limit,
            "read_in_parts": list(parts),
        },
    )
