"""`SessionGate`: what `nereid --mcp` tool calls wait on while the session is loading.

Stdio start-up answers `initialize`, `tools/list`, `resources/templates/list` (and
everything else that needs no session) at once; a call that needs the session waits
here until the folder has loaded, for at most `patience` seconds: then it gets
`SessionLoading` (retryable). If loading failed, every such call gets
`SessionUnavailable` saying why, so an agent hears the reason instead of a silent hang.

Loading waits for the handshake (`until_wanted`): loading is CPU work in this process
(reading, decoding kept parses, starting actors) that would share the interpreter with
the handshake, so it starts once `tools/list` has been answered, as soon as any other
request comes (a call needs the session), or a short delay after `initialize` has been
answered, whichever is first. The delay counts from `initialize`, not from launch: on a
busy machine the launch alone can take longer than the delay, and the load would then
compete with the handshake it is meant to wait for. Background work waits in turn for
the first answer from the open session (`first_served`), and then for a quiet moment:
the transport writes an answer after its handler has returned, so work that holds the
interpreter (a full collection, an import) started at once would delay those bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, final

import trio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from nereid.errors import SessionLoading, SessionUnavailable

if TYPE_CHECKING:  # the session's modules load after the handshake
    from nereid.actors.tree import SessionHandle

__all__ = ["LOAD_DELAY", "LOAD_PATIENCE", "QUIET", "SessionGate"]

LOAD_DELAY: Final = 1.0
"""Seconds after `initialize` loading waits for the rest of the handshake at most
(`SessionGate.until_wanted`)."""
_HANDSHAKE: Final = frozenset({"initialize", "tools/list"})
QUIET: Final = 0.05
"""Seconds with no request in flight after an answer from the open session before
background work starts (`SessionGate.first_served`): the stdio transport writes the
answer in a worker thread once the handler has returned, and needs the interpreter for
it."""

LOAD_PATIENCE: Final = 120.0
"""Seconds a tool call waits for the session to load (a 200 x 500-node folder on a busy
2-core machine takes ~25 s)."""


@final
class SessionGate:
    """Opens once: with the running session's handle, or with why it could not run."""

    def __init__(self, patience: float = LOAD_PATIENCE) -> None:
        self._patience = patience
        self._settled = trio.Event()
        self._failure: str | None = None
        self._wanted = trio.Event()
        self._greeted = trio.Event()
        self._served = trio.Event()
        self._in_flight = 0
        self._answered_at = 0.0
        self.handle: SessionHandle | None = None

    async def middleware(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """The MCP server's middleware that tells when the client wants the session."""
        if ctx.method not in _HANDSHAKE:
            self._wanted.set()
            self._greeted.set()
        self._in_flight += 1
        try:
            return await call_next(ctx)
        finally:
            self._in_flight -= 1
            self._answered_at = trio.current_time()
            if ctx.method == "tools/list":
                self._wanted.set()
            elif ctx.method not in _HANDSHAKE and self.handle is not None:
                self._served.set()
            self._greeted.set()  # `initialize` answered (or, out of order, something else)

    async def until_wanted(self, delay: float = LOAD_DELAY) -> None:
        """Return once the handshake is done or a request needs the session, or `delay`
        seconds after `initialize` was answered: when loading should start."""
        await self._greeted.wait()
        with trio.move_on_after(delay):
            await self._wanted.wait()

    def opened(self, handle: SessionHandle) -> None:
        """The session is running: calls go through from now on."""
        self.handle = handle
        self._settled.set()

    def failed(self, why: str) -> None:
        """The session cannot be opened: calls waiting and to come get `why`."""
        if not self._settled.is_set():
            self._failure = why
            self._settled.set()

    async def first_served(self, delay: float = LOAD_DELAY) -> None:
        """Return once a request has been answered from the open session and no request
        has been in flight for `QUIET` seconds since (its answer has been written), or
        `delay` seconds after the call: when background work (settling the heap, parsing
        the rest of the folder, the bridge's HTTP stack) may start without delaying the
        client's first replies."""
        with trio.move_on_after(delay):
            await self._served.wait()
            while self._in_flight or trio.current_time() < self._answered_at + QUIET:
                if self._in_flight:
                    await trio.sleep(QUIET)
                else:
                    await trio.sleep_until(self._answered_at + QUIET)

    async def settled(self) -> None:
        """Return once the gate is open or has failed (without raising)."""
        await self._settled.wait()

    async def wait(self) -> None:
        """Return once the session runs; raise SessionLoading / SessionUnavailable."""
        self._wanted.set()
        self._greeted.set()
        if self.handle is None:
            with trio.move_on_after(self._patience):
                await self._settled.wait()
        if self._failure is not None:
            raise SessionUnavailable(f"the session could not be opened: {self._failure}")
        if self.handle is None:
            raise SessionLoading(
                f"the session is still loading after {self._patience:.0f} s; try again"
            )
