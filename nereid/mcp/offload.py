"""CPU-heavy pure work off the event loop: renders and big exports (architecture §8).

A render or Mermaid export of anything but a small item runs in a worker process
(`trio-parallel`: cached processes, at most one busy per CPU), so one agent drawing a
1000-node flowchart never stalls the other agents' requests or the TUI. Small items are
done in-process: below `SMALL_PAYLOAD` bytes of encoded AST (about 25 objects, a few
milliseconds of work) the hand-off would cost more than the work. Cancelling the call
(client gone, shutdown) kills the worker. Refusals made there (`TooLargeToRender`,
`RenderError`, `MermaidExportError`) are raised here unchanged; `too_large_to_render`
turns the first into the tool error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

import msgspec
import trio_parallel

from nereid.errors import InvalidParams
from nereid.jobs import call_encoded, diagram_mermaid, diagram_text, walkthrough_text
from nereid.model.diagram import Diagram
from nereid.model.walkthrough import Walkthrough
from nereid.render import TooLargeToRender

__all__ = [
    "DIAGRAM_PARTS",
    "SMALL_PAYLOAD",
    "WALKTHROUGH_PARTS",
    "export_mermaid_text",
    "render_diagram_text",
    "render_walkthrough_text",
    "too_large_to_render",
]

SMALL_PAYLOAD: Final = 8 * 1024
#: The tools that read a diagram or walkthrough in parts, named in "too large" refusals.
DIAGRAM_PARTS: Final = ("diagram.get_slice", "flow.*", "seq.*", "object.read", "diagram.stat")
WALKTHROUGH_PARTS: Final = ("walkthrough.get_node", "walkthrough.read", "walkthrough.stat")

ItemT = TypeVar("ItemT")


async def _run(job: Callable[..., str], item: ItemT, item_type: type[ItemT], *args: Any) -> str:
    payload = msgspec.msgpack.encode(item)
    if len(payload) <= SMALL_PAYLOAD:
        return job(item, *args)
    return await trio_parallel.run_sync(
        call_encoded, job, item_type, payload, *args, kill_on_cancel=True
    )


def _diagram_args(diagram: Diagram) -> tuple[Any, ...]:
    return (diagram.diagram_id, diagram.kind, diagram.rev)


async def render_diagram_text(diagram: Diagram) -> str:
    """`render_diagram(diagram).text`, in a worker unless small."""
    return await _run(diagram_text, diagram.ast, type(diagram.ast), *_diagram_args(diagram))


async def export_mermaid_text(diagram: Diagram) -> str:
    """The diagram's canonical Mermaid text, in a worker unless small."""
    return await _run(diagram_mermaid, diagram.ast, type(diagram.ast), *_diagram_args(diagram))


async def render_walkthrough_text(walkthrough: Walkthrough) -> str:
    """`render_walkthrough(walkthrough).text`, in a worker unless small."""
    return await _run(walkthrough_text, walkthrough, Walkthrough)


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
