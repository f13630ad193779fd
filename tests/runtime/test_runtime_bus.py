"""EventBus: fan-out, filtering, and resync markers for slow subscribers."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from nereid.runtime import Event, EventBus, ResyncNeeded, open_runtime


class DiagramChanged(Event, frozen=True):
    diagram_id: str
    rev: int


class AttentionChanged(Event, frozen=True):
    who: str


async def test_subscribers_get_published_events_of_their_kinds() -> None:
    bus = EventBus()
    with bus.subscribe() as everything, bus.subscribe(DiagramChanged) as diagrams:
        bus.publish(DiagramChanged(diagram_id="a", rev=1))
        bus.publish(AttentionChanged(who="agent-1"))
        assert await everything.receive() == DiagramChanged(diagram_id="a", rev=1)
        assert await everything.receive() == AttentionChanged(who="agent-1")
        assert await diagrams.receive() == DiagramChanged(diagram_id="a", rev=1)
        with trio.testing.assert_checkpoints():
            bus.publish(DiagramChanged(diagram_id="a", rev=2))
            assert await diagrams.receive() == DiagramChanged(diagram_id="a", rev=2)
    assert bus.subscriber_count == 0


async def test_a_subscriber_is_not_woken_for_events_it_does_not_accept() -> None:
    """`accept` is asked at publish time: an event it refuses is never queued, so the
    subscriber neither gets it nor fills its buffer with it (no resync for it)."""
    watched = {"a"}
    bus = EventBus()

    def accept(event: Event) -> bool:
        return not isinstance(event, DiagramChanged) or event.diagram_id in watched

    with bus.subscribe(DiagramChanged, AttentionChanged, buffer=2, accept=accept) as sub:
        for rev in range(5):
            bus.publish(DiagramChanged(diagram_id="b", rev=rev))
        bus.publish(DiagramChanged(diagram_id="a", rev=1))
        watched.add("b")
        bus.publish(DiagramChanged(diagram_id="b", rev=9))
        assert sub.receive_nowait() == DiagramChanged(diagram_id="a", rev=1)
        assert sub.receive_nowait() == DiagramChanged(diagram_id="b", rev=9)
        with pytest.raises(trio.WouldBlock):
            sub.receive_nowait()
        bus.publish(AttentionChanged(who="x"))
        assert sub.receive_nowait() == AttentionChanged(who="x")


async def test_slow_subscriber_gets_resync_marker_and_never_blocks_publisher() -> None:
    bus = EventBus()
    with bus.subscribe(buffer=4) as slow, bus.subscribe(buffer=100) as fast:
        # publish is sync: 10 events in a row cannot wait for anyone
        for rev in range(10):
            bus.publish(DiagramChanged(diagram_id="a", rev=rev))
        assert await slow.receive() == ResyncNeeded(dropped=10)
        bus.publish(DiagramChanged(diagram_id="a", rev=10))
        assert await slow.receive() == DiagramChanged(diagram_id="a", rev=10)
        fast_revs = []
        for _ in range(11):
            item = await fast.receive()
            assert isinstance(item, DiagramChanged)
            fast_revs.append(item.rev)
        assert fast_revs == list(range(11))


async def test_buffered_events_arrive_before_overflow_only_if_within_capacity() -> None:
    bus = EventBus()
    with bus.subscribe(buffer=3) as sub:
        for rev in range(3):
            bus.publish(DiagramChanged(diagram_id="a", rev=rev))
        assert [await sub.receive() for _ in range(3)] == [
            DiagramChanged(diagram_id="a", rev=rev) for rev in range(3)
        ]


async def test_blocked_receiver_wakes_on_publish_and_iteration_ends_on_close() -> None:
    bus = EventBus()
    received: list[object] = []
    subscription = bus.subscribe()

    async def consume() -> None:
        async for item in subscription:
            received.append(item)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(consume)
        await trio.testing.wait_all_tasks_blocked()
        bus.publish(AttentionChanged(who="human"))
        await trio.testing.wait_all_tasks_blocked()
        assert received == [AttentionChanged(who="human")]
        subscription.close()
    bus.publish(AttentionChanged(who="nobody"))
    assert received == [AttentionChanged(who="human")]


async def test_runtime_end_closes_subscriptions() -> None:
    async with open_runtime() as runtime:
        subscription = runtime.bus.subscribe()
    with pytest.raises(trio.EndOfChannel):
        await subscription.receive()
