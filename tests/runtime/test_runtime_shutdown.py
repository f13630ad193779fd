"""Shutdown: cancelling the root stops everything at once and leaves no task behind."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from nereid.errors import MailboxClosed
from nereid.runtime import Request, open_runtime
from tests.runtime.actor_testkit import Block, Counter, Get, Knobs


def _all_task_names() -> list[str]:
    """Every live task in this trio run (to prove nothing outlived the runtime)."""
    names: list[str] = []
    pending = [trio.lowlevel.current_root_task()]
    while pending:
        task = pending.pop()
        if task is None:
            continue
        names.append(task.name)
        for nursery in task.child_nurseries:
            pending.extend(nursery.child_tasks)
    return sorted(names)


async def test_cancelling_the_root_stops_everything_within_a_second(
    autojump_clock: trio.testing.MockClock,
) -> None:
    knobs = Knobs()
    tasks_before = _all_task_names()
    with trio.CancelScope() as root_scope:
        async with open_runtime() as runtime:
            diagrams = await runtime.root.spawn_supervisor("diagrams")
            for index in range(5):
                address = await diagrams.spawn(
                    f"diagram:{index}", lambda: Counter(knobs), initial=index
                )
                runtime.bus.subscribe()
            async with trio.open_nursery() as callers:
                callers.start_soon(address.call, Block())
                await trio.testing.wait_all_tasks_blocked()
                cancelled_at = trio.current_time()
                root_scope.cancel(reason="test shutdown")
                await trio.sleep_forever()
    assert root_scope.cancelled_caught
    assert trio.current_time() - cancelled_at < 1.0
    assert _all_task_names() == tasks_before
    assert runtime.registry.names() == []


async def test_caller_outside_the_runtime_is_released_when_it_ends() -> None:
    knobs = Knobs()
    errors: list[BaseException] = []
    async with trio.open_nursery() as outside:
        async with open_runtime() as runtime:
            counter = await runtime.root.spawn("counter", lambda: Counter(knobs), initial=0)

            async def call_from_outside(message: Request[object]) -> None:
                try:
                    await counter.call(message)
                except MailboxClosed as error:
                    errors.append(error)

            outside.start_soon(call_from_outside, Block())
            await trio.testing.wait_all_tasks_blocked()
            outside.start_soon(call_from_outside, Get())
            await trio.testing.wait_all_tasks_blocked()
    assert [type(e) for e in errors] == [MailboxClosed, MailboxClosed]
    with pytest.raises(MailboxClosed):
        await counter.call(Get())
