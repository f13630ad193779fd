"""`send_after`: runtime-owned timers, on trio's clock (every test runs on a MockClock)."""

from __future__ import annotations

from typing import assert_never

import pytest
import trio
import trio.testing

from nereid.runtime import Actor, Message, Request, Runtime, Timer, open_runtime


class Ping(Message, frozen=True):
    tag: str


class Arm(Request[None], frozen=True):
    """Have this actor arm a timer to itself (as the persister does)."""

    delay: float
    tag: str


class Seen(Request[list[tuple[str, float]]], frozen=True):
    pass


class Hold(Request[None], frozen=True):
    """Block the mailbox until the gate opens (fills it up behind)."""


class Crash(Message, frozen=True):
    pass


class Clock(Actor[tuple[tuple[str, float], ...], Ping | Arm | Seen | Hold | Crash]):
    """Records when each `Ping` arrived (committed, so a restart keeps the record)."""

    def __init__(self, gate: trio.Event | None = None) -> None:
        self._gate = gate

    async def handle(self, message: Ping | Arm | Seen | Hold | Crash) -> object:
        match message:
            case Ping(tag=tag):
                self.commit((*self._cell.snapshot, (tag, trio.current_time())))
                return None
            case Arm(delay=delay, tag=tag):
                self.send_after(delay, Ping(tag=tag))
                return None
            case Seen():
                return list(self._cell.snapshot)
            case Hold():
                assert self._gate is not None
                await self._gate.wait()
                return None
            case Crash():
                raise RuntimeError("crash on purpose")
            case _:
                assert_never(message)


async def _clock(runtime: Runtime, name: str = "clock", gate: trio.Event | None = None) -> None:
    await runtime.root.spawn(name, lambda: Clock(gate), initial=(), mailbox_size=2)


async def test_a_timer_fires_once_at_its_time(autojump_clock: trio.testing.MockClock) -> None:
    async with open_runtime() as runtime:
        await _clock(runtime)
        clock = runtime.registry.lookup("clock")
        start = trio.current_time()
        timer = runtime.send_after(1.5, clock, Ping(tag="a"))
        assert timer.pending
        await trio.sleep(10)
        seen = await clock.call(Seen())
        assert [(tag, round(at - start, 6)) for tag, at in seen] == [("a", 1.5)]
        assert not timer.pending and not timer.cancel()
        assert runtime.timers.pending == 0


async def test_many_timers_each_fire_on_their_own_schedule(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Twenty actors arm a 1 s timer at once: all fire at 1 s (a shared timer actor that
    sleeps per message would fire the n-th after n seconds)."""
    async with open_runtime() as runtime:
        names = [f"c{i}" for i in range(20)]
        for name in names:
            await _clock(runtime, name)
        start = trio.current_time()
        for name in names:
            await runtime.registry.lookup(name).call(Arm(delay=1.0, tag=name))
        await trio.sleep(1.0 + 1e-6)
        for name in names:
            seen = await runtime.registry.lookup(name).call(Seen())
            assert [(tag, round(at - start, 6)) for tag, at in seen] == [(name, 1.0)]


async def test_timers_fire_in_due_order_whatever_order_they_were_armed(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with open_runtime() as runtime:
        await runtime.root.spawn("clock", Clock, initial=())
        clock = runtime.registry.lookup("clock")
        for delay, tag in [(3.0, "c"), (1.0, "a"), (2.0, "b"), (1.0, "a2"), (0.0, "now")]:
            runtime.send_after(delay, clock, Ping(tag=tag))
        await trio.sleep(5)
        assert [tag for tag, _ in await clock.call(Seen())] == ["now", "a", "a2", "b", "c"]


async def test_a_cancelled_timer_never_delivers(autojump_clock: trio.testing.MockClock) -> None:
    async with open_runtime() as runtime:
        await _clock(runtime)
        clock = runtime.registry.lookup("clock")
        keep = runtime.send_after(2.0, clock, Ping(tag="keep"))
        drop = runtime.send_after(1.0, clock, Ping(tag="drop"))
        await trio.sleep(0.5)
        assert drop.cancel() and not drop.cancel()
        assert runtime.timers.pending == 1
        await trio.sleep(5)
        assert [tag for tag, _ in await clock.call(Seen())] == ["keep"]
        assert not keep.cancel()  # fired already


async def test_many_re_armed_timers_do_not_pile_up(autojump_clock: trio.testing.MockClock) -> None:
    async with open_runtime() as runtime:
        await _clock(runtime)
        timer: Timer | None = None
        for i in range(1000):  # a debounce re-armed on every change
            if timer is not None:
                timer.cancel()
            timer = runtime.send_after(100.0, "clock", Ping(tag=str(i)))
        assert runtime.timers.pending == 1
        assert len(runtime.timers._heap) < 200
        await trio.sleep(200)
        seen = await runtime.registry.lookup("clock").call(Seen())
        assert [tag for tag, _ in seen] == ["999"]


async def test_a_name_is_looked_up_when_the_timer_fires(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with open_runtime() as runtime:
        runtime.send_after(1.0, "later", Ping(tag="found"))
        runtime.send_after(1.0, "nobody", Ping(tag="dropped"))  # no such actor: dropped
        await _clock(runtime, "later")  # spawned after the timer was armed
        await trio.sleep(2)
        seen = await runtime.registry.lookup("later").call(Seen())
        assert [tag for tag, _ in seen] == ["found"]


async def test_a_full_mailbox_delays_the_message_but_never_loses_it(
    autojump_clock: trio.testing.MockClock,
) -> None:
    gate = trio.Event()
    async with open_runtime() as runtime, trio.open_nursery() as nursery:
        await _clock(runtime, gate=gate)
        clock = runtime.registry.lookup("clock")
        nursery.start_soon(clock.call, Hold())
        await trio.testing.wait_all_tasks_blocked()
        await clock.cast(Ping(tag="q1"))
        await clock.cast(Ping(tag="q2"))  # the mailbox (2) is full now
        runtime.send_after(1.0, clock, Ping(tag="timer"))
        await trio.sleep(5)
        gate.set()
        await trio.sleep(1)
        assert [tag for tag, _ in await clock.call(Seen())] == ["q1", "q2", "timer"]


async def test_a_timer_reaches_a_restarted_actor_and_skips_a_stopped_one(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with open_runtime() as runtime:
        await _clock(runtime, "phoenix")
        await _clock(runtime, "gone")
        phoenix = runtime.registry.lookup("phoenix")
        gone = runtime.registry.lookup("gone")
        runtime.send_after(1.0, phoenix, Ping(tag="after restart"))
        runtime.send_after(1.0, gone, Ping(tag="never"))
        await phoenix.cast(Crash())
        await runtime.root.stop("gone")
        await trio.sleep(2)
        assert [tag for tag, _ in await phoenix.call(Seen())] == ["after restart"]


async def test_a_nan_delay_is_refused() -> None:
    async with open_runtime() as runtime:
        with pytest.raises(ValueError, match="NaN"):
            runtime.send_after(float("nan"), "x", Ping(tag="x"))


async def test_pending_timers_end_with_the_runtime(autojump_clock: trio.testing.MockClock) -> None:
    start = trio.current_time()
    async with open_runtime() as runtime:
        await _clock(runtime)
        runtime.send_after(3600.0, "clock", Ping(tag="too late"))
    # Leaving the block cancelled the timer task at once: it did not wait for the timer.
    assert trio.current_time() - start < 1
