"""Helpers for the session-actor tests: a session tree over an in-memory folder."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

import trio
import trio.testing

from nereid.actors.persist_link import PersistConfig
from nereid.actors.protocol import CreateDiagramFromMermaid, CreateDiagramReply
from nereid.actors.tree import SessionHandle, open_session
from nereid.model import Session
from nereid.ops import FlowAddNode
from nereid.runtime import Event, ResyncNeeded, Subscription
from nereid.store.files import MemoryFiles
from nereid.store.session_io import load_session

__all__ = [
    "FLOW",
    "SEQ",
    "Gate",
    "add_node",
    "create",
    "drain",
    "inline",
    "memory_session",
    "saved_session",
]

T = TypeVar("T")

FLOW = "flowchart TD\n  A[Start] --> B[Done]\n"
SEQ = "sequenceDiagram\n  participant A\n  participant B\n  A->>B: hello\n"


async def inline(fn: Callable[[], T]) -> T:
    """Run the persister's file work on the event loop (the fake folder never blocks)."""
    await trio.lowlevel.checkpoint()
    return fn()


class Gate:
    """A `run_blocking` that can be closed: saves wait until it is opened."""

    def __init__(self) -> None:
        self.open = trio.Event()
        self.open.set()
        self.started = 0

    def close(self) -> None:
        self.open = trio.Event()

    async def __call__(self, fn: Callable[[], T]) -> T:
        self.started += 1
        await self.open.wait()
        return fn()


@asynccontextmanager
async def memory_session(
    *,
    files: MemoryFiles | None = None,
    durable: bool = False,
    run_blocking: Callable[[Callable[[], T]], object] | None = None,
    config: PersistConfig | None = None,
    session: Session | None = None,
) -> AsyncIterator[SessionHandle]:
    """A session tree over `files` (a fresh MemoryFiles if None), I/O inline."""
    folder = files if files is not None else MemoryFiles()
    async with open_session(
        session or Session(session_id="s:test"),
        files=folder,
        durable=durable,
        unsaved=session is None,
        run_blocking=run_blocking or inline,  # type: ignore[arg-type]
        config=config,
    ) as handle:
        yield handle


def saved_session(files: MemoryFiles) -> Session:
    """What the in-memory folder holds now."""
    return load_session(files).session


async def create(
    handle: SessionHandle, text: str = FLOW, diagram_id: str | None = None
) -> CreateDiagramReply:
    return await handle.session.call(CreateDiagramFromMermaid(mermaid=text, diagram_id=diagram_id))


def add_node(node_id: str, label: str = "X") -> FlowAddNode:
    return FlowAddNode(node_id=node_id, label=label)


async def drain(subscription: Subscription) -> list[Event | ResyncNeeded]:
    """Every event published so far: once every task is blocked nothing is in flight."""
    await trio.testing.wait_all_tasks_blocked()
    events: list[Event | ResyncNeeded] = []
    while True:
        try:
            events.append(subscription.receive_nowait())
        except (trio.WouldBlock, trio.EndOfChannel):
            return events
