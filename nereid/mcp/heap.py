"""Garbage-collector settings for a long-running server: keep full collections short.

By the time a server starts listening, the heap holds what lives as long as the process
(modules, the SDK's pydantic schemas, the loaded session): tens of thousands of objects
that a full (generation 2) collection would walk again and again. Left alone, those
walks are the MCP benchmark's worst stalls (tens of ms, every in-flight call waits):
`settle_heap` collects once and freezes the survivors (`gc.freeze`), so later
collections only look at what requests allocated since.
"""

from __future__ import annotations

import gc
from typing import Final

__all__ = ["GEN0_THRESHOLD", "freeze_heap", "settle_heap"]

GEN0_THRESHOLD: Final = 5000
"""Net container allocations between young collections (CPython's default: 700).

One MCP call allocates a few thousand short-lived containers (HTTP parsing, pydantic
models, JSON); at 700 nearly every call paid for a young collection."""

_settled = False


def settle_heap() -> bool:
    """Collect, freeze what survives, raise the young threshold; once per process.

    Servers call it once they are ready to serve. Returns whether this call did it
    (a second server in the same process, e.g. in tests, leaves the heap alone).
    """
    global _settled
    if _settled:
        return False
    _settled = True
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(max(GEN0_THRESHOLD, gc.get_threshold()[0]), gen1, gen2)
    return True


def freeze_heap() -> None:
    """Freeze what lives now, without collecting first (no pause): for what a server
    loaded after `settle_heap` and keeps for good (`nereid --mcp`'s lazily loaded
    diagrams), so full collections do not walk it either."""
    gc.freeze()
