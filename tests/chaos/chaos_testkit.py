"""Helpers for the chaos tests: a session tree over an in-memory folder, served over MCP."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import trio

from nereid.actors.tree import SessionHandle, open_session
from nereid.mcp import McpEndpoint, ToolTable, serve_http
from nereid.mcp.catalog import session_endpoint_parts
from nereid.model import Session
from nereid.runtime import Tracer
from nereid.store.files import FolderFiles, MemoryFiles
from nereid.testing.faults import RestartCounter

__all__ = ["FLOW", "SEQ", "inline", "memory_session", "served_session"]

T = TypeVar("T")

FLOW = "flowchart TD\n  start[Start] --> done[Done]\n"
SEQ = "sequenceDiagram\n  participant A\n  participant B\n  A->>B: hello\n  B-->>A: fine\n"


async def inline(fn: Callable[[], T]) -> T:
    """Run the persister's file work on the event loop (the in-memory folder never blocks)."""
    await trio.lowlevel.checkpoint()
    return fn()


@asynccontextmanager
async def memory_session(
    counter: RestartCounter | None = None, files: MemoryFiles | None = None
) -> AsyncIterator[SessionHandle]:
    """A session tree over an in-memory folder, traced into `counter`."""
    async with open_session(
        Session(session_id="s:chaos"),
        files=files if files is not None else MemoryFiles(),
        durable=False,
        unsaved=True,
        run_blocking=inline,
        tracer=Tracer(counter, messages=False) if counter is not None else None,
    ) as handle:
        yield handle


@asynccontextmanager
async def served_session(
    folder: Path, counter: RestartCounter | None = None, **http: Any
) -> AsyncIterator[tuple[SessionHandle, str]]:
    """A session on `folder`, its MCP endpoint on an ephemeral loopback port: (handle, url)."""
    async with open_session(
        Session(session_id="s:served"),
        files=FolderFiles(folder),
        durable=False,
        unsaved=True,
        tracer=Tracer(counter, messages=False) if counter is not None else None,
    ) as handle:
        parts = session_endpoint_parts(handle)
        endpoint = McpEndpoint(
            parts.runtime, ToolTable(parts.tools), resources=parts.resources, hooks=parts.hooks
        )
        async with trio.open_nursery() as nursery:
            url = await nursery.start(partial(serve_http, endpoint, port=0, **http))
            yield handle, url
            nursery.cancel_scope.cancel(reason="test finished")
