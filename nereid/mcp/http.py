"""MCP over Streamable HTTP, served by hypercorn in the same trio loop as the rest of Nereid.

Defaults follow the contract: `http://127.0.0.1:27435/mcp`, stateful sessions (one
`Mcp-Session-Id` per agent). Guards, in the order a request meets them:

1. path: only `path` exists (404 elsewhere);
2. DNS rebinding: the Host header must name a loopback host (or the explicitly
   bound/allowed host) and an Origin header, when sent, a loopback origin (421 /
   403), both parsed as host and port (`host_policy`), never prefix-matched;
3. bearer token: when a token is configured, requests without
   `Authorization: Bearer <token>` get 401. Binding a non-loopback host requires
   one (`HttpSecurityError` otherwise);
4. size: a body over `max_body_size` (1 MiB) gets 413, from its Content-Length
   before anything is read, else as soon as the cap is passed;
5. stalls: a POST body is read in full before the MCP layer sees it, within
   `body_timeout` seconds (else 408 and the connection closes), and at most
   `max_body_reads` bodies are being read at once (a new one cuts the oldest short,
   408), so connections that send headers and then nothing cannot pile up and exhaust
   file descriptors, and never keep a working client out. Connections that never finish
   their headers are closed by hypercorn after its keep-alive timeout (`HEADER_TIMEOUT`);
6. connections: at most `max_connections` are open at once (`http_server`: one more gets
   503 and is closed at once), so no number of clients can exhaust file descriptors.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
from collections.abc import Iterable
from functools import partial
from typing import Any, Final, final

import trio
from hypercorn.config import Config
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from nereid.endpoint_address import DEFAULT_HOST, DEFAULT_PATH, DEFAULT_PORT

from .endpoint import McpEndpoint
from .heap import settle_heap
from .host_policy import HostPolicy
from .http_server import ConnectionCap, default_max_connections, serve_capped

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_MAX_BODY_SIZE",
    "DEFAULT_PATH",
    "DEFAULT_PORT",
    "HttpGuard",
    "HttpSecurityError",
    "host_policy",
    "is_loopback_host",
    "serve_http",
]

log = logging.getLogger(__name__)

DEFAULT_MAX_BODY_SIZE: Final = 1024 * 1024
#: Seconds a client has to send a request body once its headers are in.
DEFAULT_BODY_TIMEOUT: Final = 10.0
#: Request bodies read at once (a new one cuts the oldest short); clients send theirs fast.
DEFAULT_MAX_BODY_READS: Final = 64
#: Seconds a connection may sit without a complete request (hypercorn's keep-alive timeout).
HEADER_TIMEOUT: Final = 5.0


class HttpSecurityError(ValueError):
    """The HTTP endpoint would be exposed without protection (e.g. no token off loopback)."""


def is_loopback_host(host: str) -> bool:
    """Whether `host` (a bind address or name) only reaches this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_for_url(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def host_policy(host: str, allowed_hosts: Iterable[str] = ()) -> HostPolicy:
    """Host/Origin allow-list: loopback names, plus the bound host and `allowed_hosts`.

    A wildcard bind (`0.0.0.0`, `::`) adds nothing: name the hosts clients use in
    `allowed_hosts`.
    """
    extra = list(allowed_hosts)
    if not is_loopback_host(host) and host not in ("0.0.0.0", "::", "[::]"):
        extra.append(host)
    return HostPolicy(extra)


@final
class HttpGuard:
    """The ASGI app hypercorn runs: the guards above, then the SDK's session manager."""

    def __init__(
        self,
        manager: StreamableHTTPSessionManager,
        *,
        path: str,
        token: str | None,
        policy: HostPolicy,
        max_body_size: int,
        streams: McpEndpoint | None = None,
        body_timeout: float = DEFAULT_BODY_TIMEOUT,
        max_body_reads: int = DEFAULT_MAX_BODY_READS,
        connections: ConnectionCap | None = None,
    ) -> None:
        self._manager = manager
        self._connections = connections
        self._streams = streams
        self._path = path
        self._token = token.encode("utf-8") if token is not None else None
        self._policy = policy
        self._max_body_size = max_body_size
        self._body_timeout = body_timeout
        self._max_body_reads = max(1, max_body_reads)
        # The cancel scopes of the body reads in progress, oldest first.
        self._body_reads: dict[trio.CancelScope, None] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _answer_lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if self._connections is None:
            await self._serve(scope, receive, send)
            return
        with self._connections.busy(scope.get("client")):
            await self._serve(scope, receive, send)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        refusal = self._refusal(scope, headers)
        if refusal is None and scope["method"] == "POST":
            body = await self._read_body(receive)
            if isinstance(body, Response):
                refusal = body
            elif body is None:
                return  # the client went away
            else:
                receive = _replay(body, receive)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        session_id = headers.get("mcp-session-id")
        if scope.get("method") != "GET" or session_id is None or self._streams is None:
            await self._manager.handle_request(scope, receive, send)
            return
        # A GET is the session's event stream: while one is open the client is there;
        # when the last one closes and none comes back, the client is gone (presence).
        await self._streams.stream_opened(session_id)
        try:
            await self._manager.handle_request(scope, receive, send)
        finally:
            self._streams.stream_closed(session_id)

    async def _read_body(self, receive: Receive) -> bytes | Response | None:
        """The whole body, a 408/413 refusal, or None if the client disconnected.

        When `max_body_reads` bodies are already being read, the oldest read is cut short
        (408): a client's body arrives in microseconds, so the oldest is the stalled one,
        and a new client is never turned away because others stall.
        """
        if len(self._body_reads) >= self._max_body_reads:
            oldest = next(iter(self._body_reads))
            oldest.cancel()
            del self._body_reads[oldest]
        with trio.move_on_after(self._body_timeout) as scope:
            self._body_reads[scope] = None
            try:
                chunks: list[bytes] = []
                size = 0
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return None
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self._max_body_size:
                        return _too_large(self._max_body_size)
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        return b"".join(chunks)
            finally:
                self._body_reads.pop(scope, None)
        return Response(
            f"Request body not received within {self._body_timeout:g} s",
            status_code=408,
            headers={"Connection": "close"},
        )

    def _refusal(self, scope: Scope, headers: Headers) -> Response | None:
        if scope["path"] != self._path:
            return Response("Not Found", status_code=404)
        if not self._policy.allows_host(headers.get("host")):
            return Response("Invalid Host header", status_code=421)
        if not self._policy.allows_origin(headers.get("origin")):
            return Response("Invalid Origin header", status_code=403)
        if self._token is not None and not self._authorized(headers.get("authorization")):
            return Response(
                "Unauthorized: send Authorization: Bearer <token>",
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="nereid"'},
            )
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > self._max_body_size:
            return _too_large(self._max_body_size)
        return None

    def _authorized(self, header: str | None) -> bool:
        assert self._token is not None
        if header is None:
            return False
        scheme, _, credentials = header.partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(credentials.strip().encode("utf-8"), self._token)


def _too_large(limit: int) -> Response:
    return Response(f"Request body too large (limit {limit} bytes)", status_code=413)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that first gives the already-read body, then the client's own messages."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Any:
        if pending:
            return pending.pop()
        return await receive()

    return replay


async def _answer_lifespan(receive: Receive, send: Send) -> None:
    """The session manager's lifetime is `serve_http`'s, so ASGI lifespan only acknowledges."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def _check_exposure(host: str, token: str | None) -> None:
    if token is not None and not token.strip():
        raise HttpSecurityError("the bearer token must not be empty")
    if not is_loopback_host(host) and token is None:
        raise HttpSecurityError(
            f"serving MCP on non-loopback host {host!r} needs a bearer token "
            "(--token or NEREID_TOKEN)"
        )


async def serve_http(
    endpoint: McpEndpoint,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    path: str = DEFAULT_PATH,
    token: str | None = None,
    allowed_hosts: Iterable[str] = (),
    max_body_size: int = DEFAULT_MAX_BODY_SIZE,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    max_body_reads: int = DEFAULT_MAX_BODY_READS,
    header_timeout: float = HEADER_TIMEOUT,
    max_connections: int | None = None,
    background: bool = True,
    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve `endpoint` over Streamable HTTP until cancelled.

    `background` False: another transport of the same endpoint (stdio) already runs
    `endpoint.run_background`.

    `task_status.started(url)` reports the real URL once the socket is bound (so
    `port=0` can be announced). Raises `HttpSecurityError` before binding when a
    non-loopback `host` has no `token`, and `OSError` if the address cannot be
    bound. Every session's agent ends (hooks run) when this returns. `max_connections`
    None: `default_max_connections()` (256, fewer under a low descriptor limit).
    """
    _check_exposure(host, token)
    if not path.startswith("/"):
        raise ValueError(f"path must start with '/', got {path!r}")
    # Host/Origin are checked (parsed) by HttpGuard; the SDK's prefix match is off.
    settings = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    cap = ConnectionCap(default_max_connections() if max_connections is None else max_connections)
    manager = StreamableHTTPSessionManager(
        app=endpoint.server, security_settings=settings, max_request_body_size=max_body_size
    )
    app = HttpGuard(
        manager,
        path=path,
        token=token,
        policy=host_policy(host, allowed_hosts),
        max_body_size=max_body_size,
        streams=endpoint,
        body_timeout=body_timeout,
        max_body_reads=max_body_reads,
        connections=cap,
    )
    config = Config()
    config.keep_alive_timeout = header_timeout
    config.bind = [f"{_host_for_url(host)}:{port}"]
    config.accesslog = None
    config.loglevel = "WARNING"
    config.graceful_timeout = 1.0
    async with trio.open_nursery() as nursery:
        if background:
            await nursery.start(endpoint.run_background)
        async with manager.run():
            binds: list[str] = await nursery.start(partial(serve_capped, app, config, cap=cap))
            if not binds:
                raise OSError(f"hypercorn bound no socket for {config.bind[0]}")
            url = f"{binds[0]}{path}"
            settle_heap()
            log.info("MCP listening on %s", url)
            task_status.started(url)
            await trio.sleep_forever()
