"""Rendering with the cyclic garbage collector paused: allocation-heavy pure work.

A big render allocates hundreds of thousands of small tuples (layout items, span runs,
the spans themselves) that all live until the render returns. Each young collection moves
them up a generation and each full one walks all of them again: on a 3000-node flowchart
that was a third of the render's time, for no garbage at all (they hold only ints and
strings and form no cycles). Pausing the collector for the call and restoring it after
costs nothing; cyclic garbage made meanwhile is collected by the next collection.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import ParamSpec, TypeVar

__all__ = ["gc_paused", "without_gc"]

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the collector inside the block; re-enable it after if it was enabled."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def without_gc(fn: Callable[P, R]) -> Callable[P, R]:
    """`fn` run inside `gc_paused()`."""

    @wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused():
            return fn(*args, **kwargs)

    return run
