"""Supervision: restart from the last commit, in-flight failures, intensity, stop."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from nereid.errors import ActorNotFound, ActorRestarted, MailboxClosed
from nereid.runtime import (
    ActorStatus,
    Request,
    RestartIntensity,
    RestartIntensityExceeded,
    open_runtime,
)
from tests.runtime.actor_testkit import Add, Block, Boom, Bump, Counter, Forward, Get, Knobs


async def test_crash_restarts_from_last_commit_and_address_stays_valid() -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        counter = await runtime.root.spawn("diagram:a", lambda: Counter(knobs), initial=1)
        assert await counter.call(Add(amount=4)) == 5  # committed
        await counter.cast(Bump(amount=100))  # not committed
        assert await counter.call(Get()) == 105
        with pytest.raises(ActorRestarted) as caught:
            await counter.call(Boom())
        assert caught.value.retryable
        assert caught.value.actor == "diagram:a"
        assert await counter.call(Get()) == 5
        assert runtime.registry.lookup("diagram:a") is counter
        assert knobs.inits == [1, 5]


async def test_in_flight_call_fails_promptly_when_actor_is_killed() -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        counter = await runtime.root.spawn("counter", lambda: Counter(knobs), initial=7)
        outcome: list[BaseException] = []

        async def blocked_call() -> None:
            try:
                await counter.call(Block())
            except ActorRestarted as error:
                outcome.append(error)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(blocked_call)
            await trio.testing.wait_all_tasks_blocked()
            runtime.registry.crash("counter")
        assert len(outcome) == 1
        assert await counter.call(Get()) == 7


async def test_calls_made_during_restart_wait_and_succeed(
    autojump_clock: trio.testing.MockClock,
) -> None:
    knobs = Knobs(restart_init_delay=3.0)
    async with open_runtime() as runtime:
        counter = await runtime.root.spawn("counter", lambda: Counter(knobs), initial=2)
        runtime.root.kill("counter")
        await trio.testing.wait_all_tasks_blocked()
        assert counter.status is ActorStatus.RESTARTING
        start = trio.current_time()
        assert await counter.call(Add(amount=1), timeout=5) == 3
        assert trio.current_time() - start == pytest.approx(3.0)


async def test_exceeding_restart_intensity_escalates_out_of_the_runtime() -> None:
    knobs = Knobs()
    with pytest.RaisesGroup(RestartIntensityExceeded):
        async with open_runtime(intensity=RestartIntensity(max_restarts=2, within_s=10)) as rt:
            counter = await rt.root.spawn("counter", lambda: Counter(knobs), initial=0)
            for _ in range(3):
                with pytest.raises(ActorRestarted):
                    await counter.call(Boom())
            await trio.sleep_forever()
    assert len(knobs.inits) == 3  # first start + 2 restarts


async def test_restarts_spread_over_time_do_not_escalate(
    autojump_clock: trio.testing.MockClock,
) -> None:
    knobs = Knobs()
    async with open_runtime(intensity=RestartIntensity(max_restarts=1, within_s=5)) as rt:
        counter = await rt.root.spawn("counter", lambda: Counter(knobs), initial=0)
        for _ in range(4):
            with pytest.raises(ActorRestarted):
                await counter.call(Boom())
            await trio.sleep(6)
        assert await counter.call(Get()) == 0
    assert len(knobs.inits) == 5


async def test_nested_supervisor_escalates_to_parent_which_restarts_it() -> None:
    knobs = Knobs()
    async with open_runtime(intensity=RestartIntensity(max_restarts=5, within_s=10)) as rt:
        diagrams = await rt.root.spawn_supervisor(
            "diagrams", intensity=RestartIntensity(max_restarts=0, within_s=10)
        )
        counter = await diagrams.spawn("diagram:a", lambda: Counter(knobs), initial=0)
        sibling = await diagrams.spawn("diagram:b", lambda: Counter(Knobs()), initial=40)
        await counter.call(Add(amount=3))
        with pytest.raises(ActorRestarted):
            await counter.call(Boom())
        # the whole "diagrams" subtree was restarted by root, from commits
        assert await counter.call(Get()) == 3
        assert await sibling.call(Get()) == 40
        assert diagrams.children == ["diagram:a", "diagram:b"]


async def test_stop_child_at_runtime_and_reuse_its_name() -> None:
    async with open_runtime() as runtime:
        first = await runtime.root.spawn("diagram:a", lambda: Counter(Knobs()), initial=1)
        other = await runtime.root.spawn("diagram:b", lambda: Counter(Knobs()), initial=2)
        await runtime.root.stop("diagram:a")
        assert runtime.registry.names("diagram:") == ["diagram:b"]
        with pytest.raises(MailboxClosed):
            await first.call(Get())
        with pytest.raises(ActorNotFound):
            runtime.registry.lookup("diagram:a")
        with pytest.raises(ActorNotFound):
            await runtime.root.stop("diagram:a")
        assert await other.call(Get()) == 2
        again = await runtime.root.spawn("diagram:a", lambda: Counter(Knobs()), initial=9)
        assert again is not first
        assert await again.call(Get()) == 9


async def test_stop_fails_the_in_flight_and_queued_calls() -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        counter = await runtime.root.spawn("counter", lambda: Counter(knobs), initial=0)
        failures: list[type[BaseException]] = []

        async def call_and_record(message: Request[object]) -> None:
            try:
                await counter.call(message)
            except MailboxClosed as error:
                failures.append(type(error))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(call_and_record, Block())
            await trio.testing.wait_all_tasks_blocked()
            nursery.start_soon(call_and_record, Get())
            await trio.testing.wait_all_tasks_blocked()
            await runtime.root.stop("counter")
        assert failures == [MailboxClosed, MailboxClosed]


async def test_init_failure_on_first_spawn_propagates_and_leaves_nothing() -> None:
    class BrokenInit(Counter):
        async def init(self, snapshot: int) -> None:
            raise ValueError("bad snapshot")

    async with open_runtime() as runtime:
        with pytest.raises(ValueError, match="bad snapshot"):
            await runtime.root.spawn("broken", lambda: BrokenInit(Knobs()), initial=0)
        assert "broken" not in runtime.registry
        assert runtime.root.children == []


async def test_duplicate_name_is_refused() -> None:
    async with open_runtime() as runtime:
        await runtime.root.spawn("xref", lambda: Counter(Knobs()), initial=0)
        with pytest.raises(ValueError, match="already in use"):
            await runtime.root.spawn("xref", lambda: Counter(Knobs()), initial=0)


async def test_actor_to_actor_call_survives_callee_restart() -> None:
    async with open_runtime() as runtime:
        front = await runtime.root.spawn("session", lambda: Counter(Knobs()), initial=0)
        back = await runtime.root.spawn("persister", lambda: Counter(Knobs()), initial=10)
        assert await front.call(Forward(target="persister", amount=1)) == 11
        runtime.registry.crash("persister")
        assert await front.call(Forward(target="persister", amount=1)) == 12
        assert await back.call(Get()) == 12


async def test_killing_a_nested_supervisor_restarts_its_subtree() -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        diagrams = await runtime.root.spawn_supervisor("diagrams")
        blocked = await diagrams.spawn("diagram:a", lambda: Counter(knobs), initial=0)
        other = await diagrams.spawn("diagram:b", lambda: Counter(Knobs()), initial=0)
        await other.call(Add(amount=8))
        failures: list[BaseException] = []

        async def blocked_call() -> None:
            try:
                await blocked.call(Block())
            except ActorRestarted as error:
                failures.append(error)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(blocked_call)
            await trio.testing.wait_all_tasks_blocked()
            runtime.root.kill("diagrams")
        assert len(failures) == 1
        assert knobs.inits == [0, 0]
        assert await other.call(Get()) == 8
        assert runtime.registry.names("diagram:") == ["diagram:a", "diagram:b"]
