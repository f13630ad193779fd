"""call / cast semantics: replies, typed errors, FIFO, back-pressure, deadlines."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from nereid.errors import CallTimeout, MailboxClosed, ResourceNotFound
from nereid.runtime import ActorStatus, Address, open_runtime
from tests.runtime.actor_testkit import (
    Add,
    Block,
    Bump,
    Counter,
    Fail,
    Get,
    Knobs,
    Record,
    Recorded,
    Recorder,
)


async def test_call_returns_reply_and_cast_is_handled_in_order() -> None:
    async with open_runtime() as runtime:
        counter = await runtime.root.spawn("counter", lambda: Counter(Knobs()), initial=10)
        assert await counter.call(Add(amount=5)) == 15
        await counter.cast(Bump(amount=2))
        assert await counter.call(Get()) == 17
        assert counter.status is ActorStatus.RUNNING


async def test_expected_error_goes_back_typed_and_actor_survives() -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        counter = await runtime.root.spawn("counter", lambda: Counter(knobs), initial=1)
        with pytest.raises(ResourceNotFound) as caught:
            await counter.call(Fail(what="diagram"))
        error = caught.value
        assert error.code == -32002
        assert error.actor == "counter"
        assert error.to_jsonrpc() == {
            "code": -32002,
            "message": "diagram not found",
            "data": {"what": "diagram"},
        }
        assert await counter.call(Get()) == 1
        assert knobs.inits == [1]  # no restart happened


async def test_fifo_per_sender_with_concurrent_senders() -> None:
    async with open_runtime() as runtime:
        recorder = await runtime.root.spawn("recorder", Recorder, initial=None, mailbox_size=4)

        async def send_all(sender: int) -> None:
            for seq in range(50):
                await recorder.cast(Record(sender=sender, seq=seq))

        async with trio.open_nursery() as nursery:
            for sender in range(3):
                nursery.start_soon(send_all, sender)
        seen = await recorder.call(Recorded())
    assert len(seen) == 150
    for sender in range(3):
        assert [seq for who, seq in seen if who == sender] == list(range(50))


async def test_full_mailbox_blocks_the_sender_until_space_frees() -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        counter = await runtime.root.spawn(
            "counter", lambda: Counter(knobs), initial=0, mailbox_size=2
        )
        async with trio.open_nursery() as nursery:
            nursery.start_soon(counter.call, Block())
            await trio.testing.wait_all_tasks_blocked()
            await counter.cast(Bump(amount=1))
            await counter.cast(Bump(amount=1))  # mailbox now full
            third_sent = trio.Event()

            async def third() -> None:
                await counter.cast(Bump(amount=1))
                third_sent.set()

            nursery.start_soon(third)
            await trio.testing.wait_all_tasks_blocked()
            assert not third_sent.is_set()
            knobs.gate.set()
            await third_sent.wait()
        assert await counter.call(Get()) == 3


async def test_call_times_out_at_its_deadline(autojump_clock: trio.testing.MockClock) -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        counter = await runtime.root.spawn("counter", lambda: Counter(knobs), initial=0)
        start = trio.current_time()
        with pytest.raises(CallTimeout) as caught:
            await counter.call(Block(), timeout=2.5)
        assert trio.current_time() - start == pytest.approx(2.5)
        assert caught.value.actor == "counter"
        assert not caught.value.retryable


async def test_message_whose_caller_gave_up_is_skipped(
    autojump_clock: trio.testing.MockClock,
) -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        counter = await runtime.root.spawn("counter", lambda: Counter(knobs), initial=0)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(counter.call, Block())
            await trio.testing.wait_all_tasks_blocked()
            with pytest.raises(CallTimeout):
                await counter.call(Add(amount=5), timeout=1)
            knobs.gate.set()
        assert await counter.call(Get()) == 0


async def test_cast_times_out_when_mailbox_stays_full(
    autojump_clock: trio.testing.MockClock,
) -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        counter = await runtime.root.spawn(
            "counter", lambda: Counter(knobs), initial=0, mailbox_size=1
        )
        async with trio.open_nursery() as nursery:
            nursery.start_soon(counter.call, Block())
            await trio.testing.wait_all_tasks_blocked()
            await counter.cast(Bump(amount=1))
            with pytest.raises(CallTimeout):
                await counter.cast(Bump(amount=1), timeout=3)
            knobs.gate.set()


async def test_address_has_no_public_constructor() -> None:
    with pytest.raises(TypeError, match="no public constructor"):
        Address()  # type: ignore[call-arg]


async def test_calls_after_runtime_end_fail_with_mailbox_closed() -> None:
    async with open_runtime() as runtime:
        counter = await runtime.root.spawn("counter", lambda: Counter(Knobs()), initial=0)
    assert counter.status is ActorStatus.STOPPED
    with pytest.raises(MailboxClosed):
        await counter.call(Get())
    with pytest.raises(MailboxClosed):
        await counter.cast(Bump(amount=1))


# -- send_request: ask now, take the reply later -----------------------------------------


async def test_send_request_lets_two_actors_work_at_once() -> None:
    """Both actors handle their request while the caller waits for neither: the second
    reply is there (no wait) by the time the first one is taken."""
    knobs = Knobs()
    async with open_runtime() as runtime:
        slow = await runtime.root.spawn("slow", lambda: Counter(knobs), initial=0)
        fast = await runtime.root.spawn("fast", lambda: Counter(Knobs()), initial=100)
        blocked = slow.send_request(Block())
        added = fast.send_request(Add(amount=1))
        await trio.testing.wait_all_tasks_blocked()
        assert await fast.call(Get()) == 101  # handled while `slow` still blocks
        knobs.gate.set()
        assert await blocked.reply() == "released"
        assert await added.reply() == 101


async def test_send_request_raises_what_call_would() -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        counter = await runtime.root.spawn("counter", lambda: Counter(knobs), initial=0)
        failing = counter.send_request(Fail(what="diagram"))
        with pytest.raises(ResourceNotFound):
            await failing.reply()
        await runtime.root.stop("counter")
        with pytest.raises(MailboxClosed):
            counter.send_request(Get())


async def test_send_request_times_out_from_the_send(autojump_clock: trio.testing.MockClock) -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        counter = await runtime.root.spawn("counter", lambda: Counter(knobs), initial=0)
        pending = counter.send_request(Block(), timeout=5)
        await trio.sleep(4)
        started = trio.current_time()
        with pytest.raises(CallTimeout):
            await pending.reply()
        assert trio.current_time() - started == pytest.approx(1)
        knobs.gate.set()
        assert await counter.call(Get()) == 0  # the abandoned request was skipped or dropped


async def test_send_request_to_a_full_mailbox_makes_the_whole_call_on_reply() -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        counter = await runtime.root.spawn(
            "counter", lambda: Counter(knobs), initial=0, mailbox_size=1
        )
        async with trio.open_nursery() as nursery:
            nursery.start_soon(counter.call, Block())
            await trio.testing.wait_all_tasks_blocked()
            await counter.cast(Bump(amount=1))  # mailbox now full
            pending = counter.send_request(Add(amount=2))  # not sent yet: no room
            knobs.gate.set()
            assert await pending.reply() == 3
