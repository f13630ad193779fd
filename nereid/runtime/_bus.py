"""The event bus: change events fanned out to subscribers, never blocking publishers.

Each subscriber has its own bounded buffer. A subscriber that falls so far
behind that its buffer is full loses the buffered events and gets one
`ResyncNeeded` marker instead; events published until it takes the marker
are dropped too. After the marker it should re-read the state it mirrors
(e.g. `diagram.stat` / `diagram.diff`) and carry on: events carry revs, so
seeing an event whose change the re-read already showed is harmless.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import final

import msgspec
import trio

from ._messages import Event

__all__ = ["DEFAULT_SUBSCRIBER_BUFFER", "EventBus", "ResyncNeeded", "Subscription"]

DEFAULT_SUBSCRIBER_BUFFER = 256
"""Events a subscriber may lag behind before it is sent `ResyncNeeded`."""


class ResyncNeeded(msgspec.Struct, frozen=True, kw_only=True):
    """Marker: you missed `dropped` events; re-read the state you mirror."""

    dropped: int


@final
class EventBus:
    """Publish/subscribe of change `Event`s inside one runtime."""

    def __init__(self) -> None:
        self._subscriptions: list[Subscription] = []

    def publish(self, event: Event) -> None:
        """Offer `event` to every subscriber. Sync, never blocks, never fails."""
        for subscription in self._subscriptions:
            subscription._offer(event)

    def subscribe(
        self,
        *kinds: type[Event],
        buffer: int = DEFAULT_SUBSCRIBER_BUFFER,
        accept: Callable[[Event], bool] | None = None,
    ) -> Subscription:
        """A new subscription to events of the given classes (all events if none).

        `accept` (optional) is asked at publish time, for each event of those classes,
        whether the subscriber wants it: one it does not want is never queued, so the
        subscriber is not woken for it (e.g. a change nobody watches).

        Use as a context manager so it is removed when you are done::

            with bus.subscribe(DiagramChanged) as events:
                async for item in events:   # Event or ResyncNeeded
                    ...
        """
        if buffer < 1:
            raise ValueError(f"subscriber buffer must be >= 1, got {buffer}")
        subscription = Subscription(self, kinds, buffer, accept)
        self._subscriptions.append(subscription)
        return subscription

    @property
    def subscriber_count(self) -> int:
        """How many subscriptions are open."""
        return len(self._subscriptions)

    def _close_all(self) -> None:
        for subscription in list(self._subscriptions):
            subscription.close()

    def _remove(self, subscription: Subscription) -> None:
        if subscription in self._subscriptions:
            self._subscriptions.remove(subscription)


@final
class Subscription:
    """One subscriber's bounded view of the bus; iterate it or call `receive`."""

    def __init__(
        self,
        bus: EventBus,
        kinds: tuple[type[Event], ...],
        capacity: int,
        accept: Callable[[Event], bool] | None = None,
    ) -> None:
        self._bus = bus
        self._kinds = kinds
        self._accept = accept
        self._capacity = capacity
        self._queue: deque[Event] = deque()
        self._dropped = 0
        self._closed = False
        self._lot = trio.lowlevel.ParkingLot()

    def _offer(self, event: Event) -> None:
        if self._kinds and not isinstance(event, self._kinds):
            return
        if self._accept is not None and not self._accept(event):
            return
        if self._dropped:
            self._dropped += 1
            return
        if len(self._queue) >= self._capacity:
            self._dropped = len(self._queue) + 1
            self._queue.clear()
        else:
            self._queue.append(event)
        self._lot.unpark_all()

    async def receive(self) -> Event | ResyncNeeded:
        """The next event, or `ResyncNeeded` if some were dropped.

        Blocks until one arrives. Cancel-safe (nothing is taken if
        cancelled). Raises `trio.EndOfChannel` once closed.
        """
        await trio.lowlevel.checkpoint_if_cancelled()
        while True:
            try:
                item = self.receive_nowait()
            except trio.WouldBlock:
                await self._lot.park()
                continue
            await trio.lowlevel.cancel_shielded_checkpoint()
            return item

    def receive_nowait(self) -> Event | ResyncNeeded:
        """`receive` without waiting: raises `trio.WouldBlock` if nothing is queued."""
        if self._dropped:
            marker = ResyncNeeded(dropped=self._dropped)
            self._dropped = 0
            return marker
        if self._queue:
            return self._queue.popleft()
        if self._closed:
            raise trio.EndOfChannel
        raise trio.WouldBlock

    def close(self) -> None:
        """Stop receiving; a blocked `receive` raises `trio.EndOfChannel`. Idempotent."""
        if not self._closed:
            self._closed = True
            self._bus._remove(self)
            self._lot.unpark_all()

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Event | ResyncNeeded:
        try:
            return await self.receive()
        except trio.EndOfChannel:
            raise StopAsyncIteration from None
