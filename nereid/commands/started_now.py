"""`StartedNow`: blocking work started in a thread at once, its result awaited in trio later.

`nereid --mcp DIR` lists the folder (reads and hashes 29 MB for 200 x 500 nodes; both
release the GIL) while it imports its tools and answers the handshake, instead of after:
`trio.to_thread.run_sync` would start the thread only once the event loop is free again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar, final

import outcome
import trio

__all__ = ["StartedNow"]

T = TypeVar("T")


@final
class StartedNow(Generic[T]):
    """`work()` running in a daemon thread from construction on (made inside `trio.run`).

    `result()` (once) waits for it and returns what it returned, or raises what it raised.
    A run that ends first abandons the thread (the work must not need finishing: reads).
    """

    def __init__(self, work: Callable[[], T], *, name: str) -> None:
        self._token = trio.lowlevel.current_trio_token()
        self._done = trio.Event()
        self._outcome: outcome.Outcome[T] | None = None
        threading.Thread(target=self._run, args=(work,), name=name, daemon=True).start()

    def _run(self, work: Callable[[], T]) -> None:
        self._outcome = outcome.capture(work)
        try:
            self._token.run_sync_soon(self._done.set)
        except trio.RunFinishedError:
            pass  # nobody waits any more

    async def result(self) -> T:
        """What `work()` returned (or raise what it raised); call it once."""
        await self._done.wait()
        assert self._outcome is not None
        return self._outcome.unwrap()
