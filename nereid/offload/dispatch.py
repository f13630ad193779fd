"""CPU-heavy pure work off the event loop: renders and big exports (architecture §8).

A render or Mermaid export of anything but a small item runs in a worker process
(`trio-parallel`: cached processes, at most one busy per CPU), so one agent drawing a
1000-node flowchart never stalls the other agents' requests or the TUI. Small items are
done in-process: below `SMALL_PAYLOAD` bytes of encoded AST (about 25 objects, a few
milliseconds of work) the hand-off would cost more than the work. Cancelling the call
(client gone, shutdown) kills the worker. Refusals made there (`TooLargeToRender`,
`RenderError`, `MermaidExportError`) are raised here unchanged; the MCP layer turns the first into the tool error
(`nereid.mcp.reply_size.too_large_to_render`).

User regexes (`seq.search`) get a wall-clock bound here (`bounded_regex_matcher`): the
`regex` engine's own limit counts CPU time, so on a loaded machine a 1 s search ran for
1.5-7 s. A search first runs in-process for `FAST_REGEX_SLICE` CPU seconds (nearly every
search ends well within it); one that does not is run again in a worker process with what
is left of its time limit, and the worker is killed when the wall clock reaches it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

import msgspec
import trio

from nereid.model.diagram import Ast, Diagram
from nereid.model.refs import ref_enc_hook
from nereid.model.walkthrough import Walkthrough
from nereid.offload.jobs import (
    call_encoded,
    diagram_drawing,
    diagram_mermaid,
    diagram_text,
    file_import,
    regex_matches,
    walkthrough_text,
)
from nereid.offload.packed_drawing import unpack_steps
from nereid.ops.merge3 import MergeConflict
from nereid.query.regex_guard import Pattern, RegexTimeout, match_all
from nereid.render import Rendered, RenderOptions, render_diagram

__all__ = [
    "SMALL_PAYLOAD",
    "FAST_REGEX_SLICE",
    "bounded_regex_matcher",
    "export_mermaid_text",
    "import_file_edit",
    "needs_worker",
    "render_diagram_drawing",
    "render_diagram_text",
    "render_walkthrough_text",
]

SMALL_PAYLOAD: Final = 8 * 1024

ItemT = TypeVar("ItemT")
ResultT = TypeVar("ResultT")

FAST_REGEX_SLICE: Final = 0.1
"""CPU seconds a regex search gets in-process before it moves to a worker process."""

_regex_limiter: trio.CapacityLimiter | None = None


_encode: Final = msgspec.msgpack.Encoder(enc_hook=ref_enc_hook).encode
"""msgpack of an item for a worker (a walkthrough's refs as their text)."""


def needs_worker(item: object, small: int = SMALL_PAYLOAD) -> bool:
    """Whether work on `item` is big enough for a worker process (its encoded size)."""
    return len(_encode(item)) > small


async def _run(
    job: Callable[..., ResultT],
    item: ItemT,
    item_type: type[ItemT],
    *args: Any,
    small: int = SMALL_PAYLOAD,
) -> ResultT:
    payload = _encode(item)
    if len(payload) <= small:
        return job(item, *args)
    import trio_parallel  # (and multiprocessing): only once a job is big enough to need it

    result: ResultT = await trio_parallel.run_sync(  # untyped: say what it returns
        call_encoded, job, item_type, payload, *args, kill_on_cancel=True
    )
    return result


def _diagram_args(diagram: Diagram) -> tuple[Any, ...]:
    return (diagram.diagram_id, diagram.kind, diagram.rev)


async def render_diagram_text(diagram: Diagram) -> str:
    """`render_diagram(diagram).text`, in a worker unless small."""
    return await _run(diagram_text, diagram.ast, type(diagram.ast), *_diagram_args(diagram))


async def render_diagram_drawing(
    diagram: Diagram,
    options: RenderOptions,
    *,
    small: int = SMALL_PAYLOAD,
    encoded: bytes | None = None,
) -> Rendered:
    """`render_diagram(diagram, options)` (the TUI's drawing), in a worker unless its AST
    encodes to at most `small` bytes (`encoded`: that encoding, when the caller made it
    already). The worker's drawing comes back packed and is rebuilt here in steps with a
    checkpoint after each (`nereid.offload.packed_drawing`), so the agents' requests are
    answered between them instead of after a 1 MB decode."""
    payload = msgspec.msgpack.encode(diagram.ast) if encoded is None else encoded
    if len(payload) <= small:
        return render_diagram(diagram, options)
    import trio_parallel

    packed: bytes = await trio_parallel.run_sync(
        call_encoded,
        diagram_drawing,
        type(diagram.ast),
        payload,
        *_diagram_args(diagram),
        options,
        kill_on_cancel=True,
    )
    steps = unpack_steps(packed)
    while True:
        await trio.lowlevel.checkpoint()
        try:
            next(steps)
        except StopIteration as done:
            rendered: Rendered = done.value
            return rendered


async def export_mermaid_text(diagram: Diagram) -> str:
    """The diagram's canonical Mermaid text, in a worker unless small."""
    return await _run(diagram_mermaid, diagram.ast, type(diagram.ast), *_diagram_args(diagram))


async def import_file_edit(
    current: Ast, edited: Ast, base: Ast | None, *, small: int = SMALL_PAYLOAD
) -> tuple[Ast, tuple[MergeConflict, ...]]:
    """A person's `.mmd` edit taken onto `current` (`jobs.file_import`: the ids kept, with
    `base` a three-way merge), in a worker unless the ASTs encode to at most `small`
    bytes; all three are of one kind."""
    kind = type(current)
    asts = [current, edited] if base is None else [current, edited, base]
    encoded = await _run(file_import, asts, list[kind], small=small)  # type: ignore[valid-type]
    merged: tuple[Ast, tuple[MergeConflict, ...]] = msgspec.msgpack.decode(
        encoded,
        type=tuple[kind, tuple[MergeConflict, ...]],  # type: ignore[valid-type]
    )
    return merged


async def render_walkthrough_text(walkthrough: Walkthrough) -> str:
    """`render_walkthrough(walkthrough).text`, in a worker unless small."""
    return await _run(walkthrough_text, walkthrough, Walkthrough)


def bounded_regex_matcher(pattern: Pattern, texts: Sequence[str], time_limit: float) -> list[bool]:
    """A `RegexMatcher` whose `time_limit` is wall-clock seconds, from the start of the
    search to its answer (see the module docstring). Call it in a `trio.to_thread`
    thread (the tool handlers' offload): it hands the slow case back to the event loop."""
    started = time.monotonic()
    try:
        return match_all(pattern, texts, min(time_limit, FAST_REGEX_SLICE))
    except RegexTimeout:
        pass
    remaining = time_limit - (time.monotonic() - started)
    found = None
    if time_limit > FAST_REGEX_SLICE and remaining > 0:
        found = trio.from_thread.run(
            _regex_in_worker, pattern.pattern, pattern.flags, list(texts), remaining
        )
    if found is None:
        raise RegexTimeout(time_limit)
    return found


async def _regex_in_worker(
    pattern: str, flags: int, texts: list[str], remaining: float
) -> list[bool] | None:
    global _regex_limiter
    if _regex_limiter is None:
        _regex_limiter = trio.CapacityLimiter(1)
    import trio_parallel

    with trio.move_on_after(remaining):  # the wall clock: the worker is killed at it
        found: list[bool] = await trio_parallel.run_sync(
            regex_matches,
            pattern,
            flags,
            texts,
            remaining,
            kill_on_cancel=True,
            limiter=_regex_limiter,
        )
        return found
    return None
