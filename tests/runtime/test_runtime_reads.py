"""``@on_read`` requests: answered in the caller's task while the actor idles, else queued.

The rule under test: a read gets the answer the actor would give if it handled the read in
its own task at that moment, so nothing sent before it is overtaken (per-sender order) and
no half-done handler is seen; only the scheduler passes are saved.
"""

from __future__ import annotations

from typing import assert_never

import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.errors import ActorRestarted, ResourceNotFound
from nereid.runtime import (
    Actor,
    Message,
    Request,
    RingSink,
    Tracer,
    on,
    on_cast,
    on_read,
    open_runtime,
)


class Total(Request[int], frozen=True):
    """The committed total (a read)."""


class Missing(Request[int], frozen=True):
    """A read that refuses (an expected error)."""


class Broken(Request[int], frozen=True):
    """A read with a bug: the actor must meet it in its own task (crash, restart)."""


class Step(Message, frozen=True):
    """Add `amount` and commit."""

    amount: int


class Slow(Request[int], frozen=True):
    """Commit `amount` more, then wait for the gate before replying (a half-done handler)."""

    amount: int


class Tally(Actor[int, Total | Missing | Broken | Step | Slow]):
    def __init__(self, gate: trio.Event) -> None:
        self._gate = gate

    @on_read(Total)
    def _total(self, message: Total) -> int:
        return self.state

    @on_read(Missing)
    def _missing(self, message: Missing) -> int:
        raise ResourceNotFound("total not found", data={"what": "total"})

    @on_read(Broken)
    def _broken(self, message: Broken) -> int:
        raise RuntimeError("a bug in a read")

    @on_cast(Step)
    async def _step(self, message: Step) -> None:
        self.commit(self.state + message.amount)

    @on(Slow)
    async def _slow(self, message: Slow) -> int:
        self.commit(self.state + message.amount)
        await self._gate.wait()
        return self.state


async def test_a_read_of_an_idle_actor_is_answered_without_a_scheduler_pass() -> None:
    async with open_runtime() as runtime:
        tally = await runtime.root.spawn("tally", lambda: Tally(trio.Event()), initial=7)
        await trio.testing.wait_all_tasks_blocked()
        with trio.testing.assert_no_checkpoints():
            assert await tally.call(Total()) == 7
            pending = tally.send_request(Total())
            assert await pending.reply() == 7


class Loading(Tally):
    """A tally whose `handle` first takes a pending load in (as a lazy diagram does)."""

    def __init__(self, gate: trio.Event) -> None:
        super().__init__(gate)
        self.loaded = False

    def reads_now(self) -> bool:
        return self.loaded

    async def handle(self, message: Total | Missing | Broken | Step | Slow) -> object:
        if not self.loaded:
            self.commit(self.state + 100)
            self.loaded = True
        return await super().handle(message)


async def test_a_read_goes_to_the_actor_while_it_says_reads_must_wait() -> None:
    async with open_runtime() as runtime:
        tally = await runtime.root.spawn("tally", lambda: Loading(trio.Event()), initial=1)
        await trio.testing.wait_all_tasks_blocked()
        with trio.testing.assert_checkpoints():
            assert await tally.call(Total()) == 101  # the load ran first
        await trio.testing.wait_all_tasks_blocked()
        with trio.testing.assert_no_checkpoints():
            assert await tally.call(Total()) == 101


async def test_a_read_behind_queued_mail_waits_for_it() -> None:
    """A cast not yet handled is seen by the read sent after it (the read is queued)."""
    async with open_runtime() as runtime:
        tally = await runtime.root.spawn("tally", lambda: Tally(trio.Event()), initial=0)
        await trio.testing.wait_all_tasks_blocked()
        await tally.cast(Step(amount=2))
        pending = tally.send_request(Total())
        assert not pending.slot or not pending.slot.settled
        assert await pending.reply() == 2
        await tally.cast(Step(amount=3))
        assert await tally.call(Total()) == 5


async def test_a_read_never_sees_a_handler_half_way() -> None:
    """While a handler waits (after committing), reads queue behind it."""
    gate = trio.Event()
    async with open_runtime() as runtime:
        tally = await runtime.root.spawn("tally", lambda: Tally(gate), initial=1)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(tally.call, Slow(amount=10))
            await trio.testing.wait_all_tasks_blocked()
            read = tally.send_request(Total())
            assert read.slot is not None and not read.slot.settled
            gate.set()
            assert await read.reply() == 11


async def test_a_refusing_read_raises_its_error_in_the_caller() -> None:
    async with open_runtime() as runtime:
        tally = await runtime.root.spawn("tally", lambda: Tally(trio.Event()), initial=0)
        await trio.testing.wait_all_tasks_blocked()
        with pytest.raises(ResourceNotFound) as caught:
            await tally.call(Missing())
        assert caught.value.actor == "tally"
        with pytest.raises(ResourceNotFound):
            await tally.send_request(Missing()).reply()


async def test_a_read_with_a_bug_crashes_the_actor_as_any_handler_would() -> None:
    async with open_runtime() as runtime:
        tally = await runtime.root.spawn("tally", lambda: Tally(trio.Event()), initial=4)
        await trio.testing.wait_all_tasks_blocked()
        with pytest.raises(ActorRestarted):
            await tally.call(Broken())
        assert await tally.call(Total()) == 4  # restarted from its commit


async def test_reads_are_queued_and_traced_while_tracing() -> None:
    sink = RingSink(100)
    async with open_runtime(tracer=Tracer(sink)) as runtime:
        tally = await runtime.root.spawn("tally", lambda: Tally(trio.Event()), initial=3)
        await trio.testing.wait_all_tasks_blocked()
        assert await tally.call(Total()) == 3
    events = [(r.event, r.msg_type) for r in sink.records() if r.actor == "tally"]
    assert ("receive", "Total") in events and ("reply", "Total") in events


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["step", "read", "send", "slow", "pass"]), max_size=12),
        min_size=1,
        max_size=4,
    )
)
def test_every_read_sees_what_its_sender_sent_before(scripts: list[list[str]]) -> None:
    """Several senders interleave casts, blocking calls and reads (call and send_request):
    every read sees at least the steps its own sender sent before it, and reads of one
    sender never go backwards."""

    async def main() -> None:
        gate = trio.Event()
        async with open_runtime() as runtime:
            tally = await runtime.root.spawn("tally", lambda: Tally(gate), initial=0)

            async def sender(script: list[str]) -> None:
                sent = 0
                seen = 0
                for action in script:
                    match action:
                        case "step":
                            await tally.cast(Step(amount=1))
                            sent += 1
                        case "read":
                            total = await tally.call(Total())
                            assert total >= max(sent, seen)
                            seen = total
                        case "send":
                            total = await tally.send_request(Total()).reply()
                            assert total >= max(sent, seen)
                            seen = total
                        case "slow":
                            total = await tally.call(Slow(amount=1))
                            sent += 1
                            assert total >= sent
                            seen = max(seen, total)
                        case "pass":
                            await trio.lowlevel.checkpoint()
                        case _:
                            assert_never(action)  # type: ignore[arg-type]

            gate.set()  # Slow replies at once; its wait is still a pass of the scheduler
            async with trio.open_nursery() as nursery:
                for script in scripts:
                    nursery.start_soon(sender, script)
            expected = sum(script.count("step") + script.count("slow") for script in scripts)
            assert await tally.call(Total()) == expected

    trio.run(main)
