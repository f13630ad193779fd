"""`nereid serve`: a session's MCP endpoint over Streamable HTTP, without a TUI.

    nereid serve [DIR | --demo] [--port N] [--host H] [--token T] [--allow-host NAME]...
                 [--durable-writes] [--trace FILE] [--diagnostics]

Loopback only by default (`127.0.0.1:27435/mcp`). Binding any other host needs a
bearer token (`--token` or `NEREID_TOKEN`); with a token every request must send
`Authorization: Bearer <token>`. The URL is announced on stderr as
`nereid: MCP listening on <url>` once the socket is bound (so `--port 0` works).

The session itself (the actors and the tool handlers) comes from
`nereid.commands.session.open_mcp_session(session_dir, demo=, durable_writes=)`,
an async context manager yielding `nereid.mcp.EndpointParts`. Until that exists
this command says so and exits 1; it never serves a made-up session.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from functools import partial
from pathlib import Path
from typing import TypeVar

import trio

from nereid.commands.folder_owner import claim, refusal
from nereid.commands.session import SessionOpenError, open_tracer
from nereid.mcp import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    EndpointParts,
    HttpSecurityError,
    McpEndpoint,
    ToolTable,
    is_loopback_host,
    serve_http,
)
from nereid.mcp.diagnostics import diagnostic_tools
from nereid.runtime import Tracer
from nereid.store.folder_lock import FolderLock, FolderOwned
from nereid.tool_names import TOOL_NAMES_ENV, ToolNames, parse_tool_names, tool_names_from_env

__all__ = ["build_parser", "run", "serve_session"]

ExcT = TypeVar("ExcT", bound=BaseException)

SessionOpener = Callable[..., AbstractAsyncContextManager[EndpointParts]]

_DESCRIPTION = """\
Serve a session's MCP tools over Streamable HTTP without the TUI (one agent per
MCP session). Loopback only unless --host is given; a non-loopback host requires a
bearer token (--token or NEREID_TOKEN). The URL is printed to stderr."""


def _port(text: str) -> int:
    if not text.isascii() or not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"invalid port {text!r} (expected 0-65535)")
    return int(text)


def _tool_names(text: str) -> ToolNames:
    try:
        return parse_tool_names(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="nereid serve", description=_DESCRIPTION)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("dir", nargs="?", help="session folder (default: current directory)")
    where.add_argument("--demo", action="store_true", help="serve the built-in demo session")
    parser.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=f"TCP port, 0 = any (default {DEFAULT_PORT})",
    )
    parser.add_argument(
        "--host", default=DEFAULT_HOST, help=f"bind address (default {DEFAULT_HOST})"
    )
    parser.add_argument(
        "--token",
        default=None,
        help="require 'Authorization: Bearer TOKEN' (default: $NEREID_TOKEN; "
        "required for a non-loopback --host)",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also accept this Host/Origin name (repeatable; e.g. the machine's DNS name)",
    )
    parser.add_argument(
        "--durable-writes", action="store_true", help="fsync every write before acknowledging it"
    )
    parser.add_argument(
        "--tool-names",
        type=_tool_names,
        default=None,
        metavar="dotted|underscore",
        help="how tools are listed: dotted (diagram.list, the default) or underscore "
        "(diagram_list) for hosts that reject dots; calls accept both "
        f"(default: ${TOOL_NAMES_ENV} or dotted)",
    )
    parser.add_argument(
        "--trace",
        default=None,
        metavar="FILE",
        help="record every actor message as JSON lines (default: $NEREID_TRACE)",
    )
    parser.add_argument(
        "--diagnostics",
        action="store_true",
        help="also serve the diagnostic tool nereid.ping (not part of the tool contract)",
    )
    return parser


def _session_opener() -> SessionOpener | None:
    try:
        module = importlib.import_module("nereid.commands.session")
    except ModuleNotFoundError as error:
        if error.name != "nereid.commands.session":
            raise
        return None
    opener = getattr(module, "open_mcp_session", None)
    return opener if callable(opener) else None


async def serve_session(
    options: argparse.Namespace,
    opener: SessionOpener,
    token: str | None,
    *,
    lock: FolderLock | None = None,
    tracer: Tracer | None = None,
    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Open the session, serve its endpoint over HTTP and announce the URL; runs until cancelled.

    `lock` (the folder's, when this process owns it) gets the URL and the token, so
    `nereid --mcp DIR` can bridge to this endpoint.
    """
    async with opener(
        options.dir, demo=options.demo, durable_writes=options.durable_writes, tracer=tracer
    ) as parts:
        tools = ToolTable(parts.tools)
        if options.diagnostics:
            for item in diagnostic_tools():
                tools.add(item)
        endpoint = McpEndpoint(
            parts.runtime,
            tools,
            resources=parts.resources,
            hooks=parts.hooks,
            tool_names=options.tool_names or "dotted",
        )
        async with trio.open_nursery() as nursery:
            try:
                url = await nursery.start(
                    partial(
                        serve_http,
                        endpoint,
                        host=options.host,
                        port=options.port,
                        token=token,
                        allowed_hosts=options.allow_host,
                    )
                )
            except BaseException as error:
                bind = _leaf(error, OSError)
                if bind is None:
                    raise
                raise SessionOpenError(
                    f"cannot serve MCP on {options.host}:{options.port}: "
                    f"{bind.strerror or bind} (is another nereid running? choose another "
                    "port with --port, 0 for any free one)"
                ) from None
            if lock is not None:
                lock.publish(url, token)
            print(f"nereid: MCP listening on {url}", file=sys.stderr, flush=True)
            task_status.started(url)


async def _serve_until_signalled(
    options: argparse.Namespace,
    opener: SessionOpener,
    token: str | None,
    lock: FolderLock | None,
    tracer: Tracer | None,
) -> int:
    """`serve_session` until SIGINT or SIGTERM; returns 0, or 128 + the signal number.

    A signal cancels the server in order: the session block's final save writes what was
    acknowledged but not yet on disk (debounced writes) before the process exits.
    """
    caught: list[int] = []
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:

            async def stop_on_signal() -> None:
                async for signum in signals:
                    caught.append(signum)
                    nursery.cancel_scope.cancel(reason=f"signal {signum}")
                    return

            nursery.start_soon(stop_on_signal)
            await serve_session(options, opener, token, lock=lock, tracer=tracer)
            nursery.cancel_scope.cancel()  # pragma: no cover - serve_session runs until cancelled
    return 128 + caught[0] if caught else 0


def run(argv: Sequence[str]) -> int:
    """Entry point of `nereid serve`; returns the exit status."""
    parser = build_parser()
    options = parser.parse_args(list(argv))
    if options.tool_names is None:
        try:
            options.tool_names = tool_names_from_env()
        except ValueError as error:
            parser.error(str(error))
    token: str | None = (
        options.token if options.token is not None else os.environ.get("NEREID_TOKEN")
    )
    if not is_loopback_host(options.host) and not token:
        parser.error(
            f"--host {options.host} is not loopback: give a bearer token with --token or NEREID_TOKEN"
        )
    if not is_loopback_host(options.host):
        print(
            f"nereid: warning: MCP will be reachable from other machines on {options.host}",
            file=sys.stderr,
        )
    opener = _session_opener()
    if opener is None:
        what = "the demo session" if options.demo else "a session folder"
        print(
            f"nereid: serving {what} over MCP is not available in this build yet "
            "(the session actors are missing)",
            file=sys.stderr,
        )
        return 1
    if options.trace is None and os.environ.get("NEREID_TRACE"):
        options.trace = os.environ["NEREID_TRACE"]
    try:
        tracer = open_tracer(options.trace)
    except SessionOpenError as err:
        print(f"nereid: {err}", file=sys.stderr)
        return 1
    lock: FolderLock | None = None
    if not options.demo:
        folder = Path(options.dir if options.dir is not None else ".")
        try:
            lock = claim(folder, "serve")
        except FolderOwned as owned:
            print(refusal(owned), file=sys.stderr)
            _close(tracer)
            return 1
        except OSError as err:
            print(f"nereid: cannot lock the session folder {folder}: {err}", file=sys.stderr)
            _close(tracer)
            return 1
    try:
        return trio.run(_serve_until_signalled, options, opener, token, lock, tracer)
    except BaseException as error:  # the nurseries wrap what the server raised in groups
        if _leaf(error, KeyboardInterrupt) is not None:
            return 130
        opening = _leaf(error, SessionOpenError)
        if opening is not None:
            print(f"nereid: {opening}", file=sys.stderr)
            return 1
        security = _leaf(error, HttpSecurityError)
        if security is not None:
            print(f"nereid: {security}", file=sys.stderr)
            return 2
        bind = _leaf(error, OSError)
        if bind is not None:
            print(
                f"nereid: cannot serve MCP on {options.host}:{options.port}: {bind}",
                file=sys.stderr,
            )
            return 1
        raise
    finally:
        if lock is not None:
            lock.release()
        _close(tracer)


def _close(tracer: Tracer | None) -> None:
    if tracer is not None:
        tracer.close()


def _leaf(error: BaseException, kind: type[ExcT]) -> ExcT | None:
    """The first `kind` in `error` or, through exception groups, in what it wraps."""
    if isinstance(error, kind):
        return error
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            found = _leaf(inner, kind)
            if found is not None:
                return found
    return None
