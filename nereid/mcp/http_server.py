"""hypercorn's trio server with a hard cap on open connections.

Body and header timeouts bound how long one connection can stall, but not how many can be
open at once: enough of them exhaust the process's file descriptors, and then nothing,
not the session folder, not a worker process, not a working client, gets one. So at most
`max_connections` connections are open at once (`ConnectionCap`). When one more arrives,
the oldest connection that is *idle* — no request in progress: a keep-alive connection
between requests, or one still sending its headers — is closed to make room (a client
between requests just opens a new one). Only when every connection is in the middle of a
request is the new one refused: `503 Service Unavailable` (`Retry-After: 1`,
`Connection: close`), then closed, costing one descriptor for a moment. So a flood of
connections that send nothing churns among itself, and clients at work keep working.
The ASGI app marks each request's connection busy (`ConnectionCap.busy`, by the peer
address hypercorn puts in the request scope).

`serve_capped` is hypercorn's own `hypercorn.trio.run.worker_serve` (lifespan, worker
context, `TCPServer` per connection, graceful shutdown) for plain-TCP binds, with the
connection handler counting; hypercorn offers no hook for it.
"""

from __future__ import annotations

import resource
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Final

import trio
from hypercorn.config import Config
from hypercorn.trio.lifespan import Lifespan
from hypercorn.trio.statsd import StatsdLogger
from hypercorn.trio.tcp_server import TCPServer
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import ConnectionState, LifespanState
from hypercorn.utils import ShutdownError, raise_shutdown, repr_socket_addr, wrap_app

__all__ = ["DEFAULT_MAX_CONNECTIONS", "ConnectionCap", "default_max_connections", "serve_capped"]

DEFAULT_MAX_CONNECTIONS: Final = 256
#: Descriptors kept for everything but connections (files, worker pipes, the TUI).
_RESERVED_FDS: Final = 128
_REFUSAL: Final = (
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n"
    b"Content-Type: text/plain\r\nContent-Length: 44\r\n\r\n"
    b"too many connections to this server; retry\r\n"
)
_REFUSAL_TIMEOUT: Final = 1.0


def default_max_connections() -> int:
    """`DEFAULT_MAX_CONNECTIONS`, or fewer if the descriptor limit would not hold them."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return DEFAULT_MAX_CONNECTIONS
    return max(8, min(DEFAULT_MAX_CONNECTIONS, (soft - _RESERVED_FDS) // 2))


@dataclass
class _Connection:
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    requests: int = 0


class ConnectionCap:
    """The open connections, oldest first (see the module docstring). `refused` and
    `evicted` count for tests and logs."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"max_connections must be >= 1, got {limit}")
        self.limit = limit
        self.refused = 0
        self.evicted = 0
        self._open: dict[tuple[Any, ...], _Connection] = {}

    @property
    def open(self) -> int:
        return len(self._open)

    @contextmanager
    def busy(self, client: Any) -> Iterator[None]:
        """A request is in progress on the connection from `client` (the ASGI scope's
        `client`, `(host, port)`): it is not idle meanwhile."""
        connection = self._open.get(tuple(client)) if client else None
        if connection is not None:
            connection.requests += 1
        try:
            yield
        finally:
            if connection is not None:
                connection.requests -= 1

    async def handle(self, serve: Any, stream: trio.SocketStream) -> None:
        """Serve `stream` with `serve(stream)` once there is room, else refuse it (503)."""
        try:
            peer = tuple(stream.socket.getpeername())[:2]
        except OSError:
            await trio.aclose_forcefully(stream)
            return
        if len(self._open) >= self.limit and not self._evict_idle():
            self.refused += 1
            with trio.move_on_after(_REFUSAL_TIMEOUT):
                try:
                    await stream.send_all(_REFUSAL)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass
            await trio.aclose_forcefully(stream)
            return
        connection = _Connection()
        self._open[peer] = connection
        try:
            with connection.scope:
                await serve(stream)
        finally:
            if self._open.get(peer) is connection:
                del self._open[peer]
            stream.socket.close()  # also when cancelled in the middle of hypercorn's close

    def _evict_idle(self) -> bool:
        """Close the oldest connection without a request in progress; False if none."""
        for peer, connection in self._open.items():
            if connection.requests == 0:
                del self._open[peer]
                connection.scope.cancel()
                self.evicted += 1
                return True
        return False


async def serve_capped(
    app: Any,
    config: Config,
    *,
    cap: ConnectionCap,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the ASGI `app` on `config.bind` (plain TCP) until cancelled; reports the
    bound URLs through `task_status` like `hypercorn.trio.serve`."""
    config.set_statsd_logger_class(StatsdLogger)
    wrapped = wrap_app(app, config.wsgi_max_body_size, "asgi")
    lifespan_state: LifespanState = {}
    lifespan = Lifespan(wrapped, config, lifespan_state)
    context = WorkerContext(None)
    async with trio.open_nursery() as lifespan_nursery:
        await lifespan_nursery.start(lifespan.handle_lifespan)
        await lifespan.wait_for_startup()
        async with trio.open_nursery() as server_nursery:
            sockets = config.create_sockets()
            listeners: list[trio.SocketListener] = []
            binds: list[str] = []
            for sock in sockets.insecure_sockets:
                sock.listen(config.backlog)
                listeners.append(trio.SocketListener(trio.socket.from_stdlib_socket(sock)))
                binds.append(f"http://{repr_socket_addr(sock.family, sock.getsockname())}")
            serve_one = partial(
                TCPServer, wrapped, config, context, ConnectionState(lifespan_state.copy())
            )

            async def handler(stream: trio.SocketStream) -> None:
                await cap.handle(serve_one, stream)

            task_status.started(binds)
            try:
                async with trio.open_nursery(strict_exception_groups=True) as nursery:
                    nursery.start_soon(raise_shutdown, context.terminate.wait)
                    nursery.start_soon(
                        partial(
                            trio.serve_listeners, handler, listeners, handler_nursery=server_nursery
                        )
                    )
                    await trio.sleep_forever()
            except BaseExceptionGroup as error:
                _, other = error.split((ShutdownError, KeyboardInterrupt))
                if other is not None:
                    raise other from None
            finally:
                await context.terminated.set()
                server_nursery.cancel_scope.deadline = trio.current_time() + config.graceful_timeout
        await lifespan.wait_for_shutdown()
        lifespan_nursery.cancel_scope.cancel()
