"""A scripted actor session recorded to a real trace file, for the `nereid trace` tests.

Three actors: `session` forwards `Edit` to `diagram:auth`, which adds, commits and casts
`PersistDiagram` to `persister`. The script then makes an expected error, a crash (an
unexpected exception), a timeout and an injected crash (`Supervisor.kill`), each in its own
correlation scope, so every feature of the log reader has something to show.
"""

from __future__ import annotations

from pathlib import Path
from typing import assert_never

import pytest
import trio

from nereid.errors import ActorRestarted, CallTimeout, ResourceNotFound
from nereid.runtime import (
    Actor,
    FileSink,
    Message,
    Request,
    Tracer,
    correlation_scope,
    open_runtime,
)

__all__ = ["SCRIPT_CORRELATIONS", "record_scripted_session"]

#: The correlation ids the script uses, in order.
SCRIPT_CORRELATIONS = ("req-edit", "req-missing", "req-boom", "req-slow", "req-after-kill")


class Edit(Request[int], frozen=True):
    amount: int


class Add(Request[int], frozen=True):
    amount: int


class Lookup(Request[int], frozen=True):
    what: str


class Boom(Request[None], frozen=True):
    pass


class Slow(Request[str], frozen=True):
    pass


class PersistDiagram(Message, frozen=True):
    total: int


class SessionActor(Actor[None, Edit]):
    async def handle(self, message: Edit) -> object:
        match message:
            case Edit(amount=amount):
                return await self.runtime.registry.lookup("diagram:auth").call(Add(amount=amount))
            case _:
                assert_never(message)


class DiagramActor(Actor[int, Add | Lookup | Boom | Slow]):
    def __init__(self, gate: trio.Event) -> None:
        self._gate = gate
        self._total = 0

    async def init(self, snapshot: int) -> None:
        self._total = snapshot

    async def handle(self, message: Add | Lookup | Boom | Slow) -> object:
        match message:
            case Add(amount=amount):
                self._total += amount
                self.commit(self._total)
                await self.runtime.registry.lookup("persister").cast(
                    PersistDiagram(total=self._total)
                )
                return self._total
            case Lookup(what=what):
                raise ResourceNotFound(f"{what} not found; try another")
            case Boom():
                raise RuntimeError("boom\nsecond line")
            case Slow():
                await self._gate.wait()
                return "late"
            case _:
                assert_never(message)


class PersisterActor(Actor[None, PersistDiagram]):
    async def handle(self, message: PersistDiagram) -> object:
        return None


async def run_script(path: Path) -> None:
    """Run the scripted session with a `FileSink` at `path` (closed at the end)."""
    tracer = Tracer(FileSink(path, flush_interval=0.0))
    gate = trio.Event()
    try:
        async with open_runtime(tracer=tracer) as runtime:
            root = runtime.root
            await root.spawn("persister", PersisterActor, initial=None)
            await root.spawn("diagram:auth", lambda: DiagramActor(gate), initial=0)
            session = await root.spawn("session", SessionActor, initial=None)
            diagram = runtime.registry.lookup("diagram:auth")
            with correlation_scope("req-edit"):
                assert await session.call(Edit(amount=2)) == 2
            with correlation_scope("req-missing"), pytest.raises(ResourceNotFound):
                await diagram.call(Lookup(what="node A"))
            with correlation_scope("req-boom"), pytest.raises(ActorRestarted):
                await diagram.call(Boom())
            with correlation_scope("req-slow"), pytest.raises(CallTimeout):
                await diagram.call(Slow(), timeout=0.05)
            gate.set()
            root.kill("diagram:auth")
            with correlation_scope("req-after-kill"):
                assert await session.call(Edit(amount=3)) == 5
    finally:
        tracer.close()


def record_scripted_session(path: Path) -> Path:
    """Record the script to `path` (outside any running trio loop) and return the path."""
    trio.run(run_script, path)
    return path
