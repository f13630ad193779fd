"""`open_runtime`: the root of the actor tree, with its registry, bus and tracer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import final

import trio

from ..errors import ActorDown, ActorError, MailboxClosed
from ._bus import EventBus
from ._cell import Address
from ._messages import Message
from ._registry import Registry
from ._supervisor import RestartIntensity, Supervisor
from ._timers import Timer, TimerService
from ._trace import Tracer
from ._turns import FairTurns
from ._util import NoPublicConstructor

__all__ = ["Runtime", "open_runtime"]


@final
class Runtime(metaclass=NoPublicConstructor):
    """What every actor shares: `registry`, `bus`, optional `tracer`, the `timers`, the
    `root` supervisor, and the `turns` of the calls that skip the mailbox.

    Made only by `open_runtime`.
    """

    def __init__(self, tracer: Tracer | None, intensity: RestartIntensity | None) -> None:
        self.tracer = tracer
        self.registry = Registry()
        self.bus = EventBus()
        self.timers: TimerService = TimerService._create(self.registry)
        self.root: Supervisor = Supervisor._create("root", self, intensity)
        self.turns = FairTurns()

    def send_after(self, delay: float, dest: Address | str, message: Message) -> Timer:
        """Deliver `message` to `dest` (an address, or a name looked up when it fires) in
        `delay` seconds; `Timer.cancel()` stops it. Sync (see `nereid.runtime._timers`)."""
        return self.timers.send_after(delay, dest, message)


@asynccontextmanager
async def open_runtime(
    *,
    tracer: Tracer | None = None,
    intensity: RestartIntensity | None = None,
) -> AsyncIterator[Runtime]:
    """Run an actor runtime for the duration of the block.

    Spawn actors with `runtime.root.spawn(...)`. Leaving the block (or
    cancelling it) stops every actor at once: their tasks are cancelled,
    pending calls fail with `MailboxClosed`, and no task outlives the block.
    The actors run in their own shielded cancel scope, cancelled only once the
    block is left: a cancellation from outside (Ctrl-C of a server) reaches the
    block's code first, so its cleanup (a final save) can still call the actors.
    If the root supervisor gives up (`RestartIntensityExceeded`), the block
    is cancelled and that error is raised (in an exception group); pending
    calls then fail with `ActorDown`. Bus subscriptions are closed. `tracer` (off if None) is not closed
    here: its owner closes it.
    """
    runtime: Runtime = Runtime._create(tracer, intensity)
    root = runtime.root
    error_type: type[ActorError] = MailboxClosed
    actors = trio.CancelScope(shield=True)
    timers = trio.CancelScope(shield=True)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(_run_timers, runtime.timers, timers)
            await nursery.start(_run_root, root, actors)
            try:
                yield runtime
            finally:
                actors.cancel(reason="runtime block finished")
                timers.cancel(reason="runtime block finished")
    except Exception:
        error_type = ActorDown
        raise
    finally:
        root.close(error_type, "the runtime ended")
        runtime.bus._close_all()


async def _run_timers(
    service: TimerService,
    timers: trio.CancelScope,
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    with timers:
        await service.run(task_status=task_status)


async def _run_root(
    root: Supervisor,
    actors: trio.CancelScope,
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    with actors:
        await root.run_incarnation(task_status.started, restarted=False)
