"""Timers owned by the runtime: `send_after`, as Erlang's ``erlang:send_after/3``.

`send_after(delay, dest, message)` delivers `message` to `dest` (an `Address`, or a
registry name looked up when the timer fires) once `delay` seconds have passed, and
returns a `Timer` whose `cancel()` stops it. Nobody sleeps in a handler: one task of the
runtime keeps every pending timer in a heap and sleeps until the earliest is due, so an
actor that arms a timer keeps serving, and many timers armed at once each fire on their
own schedule (not one after the other).

Delivery never blocks the timer task: a message goes into the mailbox at once if it has
room, else a delivery task waits for room (a full mailbox does not lose it). A message
for an actor that is gone (no such name, mailbox closed) is dropped, as Erlang drops a
message to a dead process. A target's restart loses nothing: its mailbox outlives it.
Times are trio's clock, so tests drive timers with `trio.testing.MockClock`.
"""

from __future__ import annotations

import heapq
import logging
import math
from itertools import count
from typing import TYPE_CHECKING, final

import trio

from ..errors import ActorError
from ._cell import Address
from ._messages import Message
from ._util import NoPublicConstructor

if TYPE_CHECKING:
    from ._registry import Registry

__all__ = ["Timer", "TimerService"]

_log = logging.getLogger(__name__)


@final
class Timer(metaclass=NoPublicConstructor):
    """One pending `send_after`; made only by the runtime."""

    __slots__ = ("_state", "dest", "due", "message")

    def __init__(self, due: float, dest: Address | str, message: Message) -> None:
        self.due = due
        self.dest = dest
        self.message = message
        self._state = "pending"

    @property
    def pending(self) -> bool:
        """True until it fires or is cancelled."""
        return self._state == "pending"

    def cancel(self) -> bool:
        """Stop the timer: True if it had not fired yet (then its message is never sent).

        Sync; a no-op (False) once it fired or was cancelled. A message already delivered
        stays in the mailbox, as with Erlang's ``cancel_timer``.
        """
        if self._state != "pending":
            return False
        self._state = "cancelled"
        return True

    def __repr__(self) -> str:
        dest = self.dest if isinstance(self.dest, str) else self.dest.name
        return f"<Timer {type(self.message).__name__} to {dest} at {self.due:.3f} {self._state}>"


@final
class TimerService(metaclass=NoPublicConstructor):
    """The runtime's timers (see the module docstring); `Runtime.send_after` uses it."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry
        self._heap: list[tuple[float, int, Timer]] = []
        self._seq = count()
        self._wake = trio.Event()
        self._nursery: trio.Nursery | None = None

    @property
    def pending(self) -> int:
        """How many timers have not fired yet (cancelled ones excluded)."""
        return sum(1 for _, _, timer in self._heap if timer.pending)

    def send_after(self, delay: float, dest: Address | str, message: Message) -> Timer:
        """Deliver `message` to `dest` in `delay` seconds (0 or less: at the next tick).

        Sync, never blocks; must be called inside the runtime's `trio.run`.
        """
        if math.isnan(delay):
            raise ValueError("send_after: delay is NaN")
        timer: Timer = Timer._create(trio.current_time() + max(delay, 0.0), dest, message)
        if self._heap and len(self._heap) > 64 and 2 * self.pending < len(self._heap):
            self._compact()
        heapq.heappush(self._heap, (timer.due, next(self._seq), timer))
        if self._heap[0][2] is timer:
            self._wake.set()  # a new earliest deadline
        return timer

    def _compact(self) -> None:
        """Drop cancelled timers (many re-armed debounces would otherwise pile up)."""
        self._heap = [entry for entry in self._heap if entry[2].pending]
        heapq.heapify(self._heap)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """The timer task: fire due timers, sleep until the next one. Runs until cancelled."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started()
            while True:
                heap = self._heap
                now = trio.current_time()
                while heap and (heap[0][0] <= now or not heap[0][2].pending):
                    _, _, timer = heapq.heappop(heap)
                    if timer.pending:
                        timer._state = "fired"
                        self._deliver(timer)
                self._wake = trio.Event()
                with trio.move_on_at(heap[0][0] if heap else math.inf):
                    await self._wake.wait()

    def _deliver(self, timer: Timer) -> None:
        dest = timer.dest
        address = self._registry.get(dest) if isinstance(dest, str) else dest
        if address is None:
            _log.debug("timer: no actor %s for %s; dropped", dest, type(timer.message).__name__)
            return
        try:
            if address.offer(timer.message):
                return
        except ActorError:
            return  # the actor is gone for good
        assert self._nursery is not None
        self._nursery.start_soon(self._deliver_when_room, address, timer.message)

    @staticmethod
    async def _deliver_when_room(address: Address, message: Message) -> None:
        try:
            await address.cast(message, timeout=math.inf)
        except ActorError:
            pass  # stopped while we waited
