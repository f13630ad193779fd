"""`Supervisor.spawn_on_use`: a name known at once, its actor started by its first lookup."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from nereid.errors import ActorNotFound, ActorRestarted, MailboxClosed
from nereid.runtime import RestartIntensity, open_runtime
from tests.runtime.actor_testkit import Add, Boom, Counter, Forward, Get, Knobs


class BrokenInit(Counter):
    """Fails its first `init` only."""

    async def init(self, snapshot: int) -> None:
        await super().init(snapshot)
        if len(self._knobs.inits) == 1:
            raise RuntimeError("first init fails")


async def test_nothing_runs_until_the_first_lookup() -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        runtime.root.spawn_on_use("diagram:a", lambda: Counter(knobs), initial=5)
        registry = runtime.registry
        assert "diagram:a" in registry
        assert registry.running("diagram:a") is None
        assert registry.names("diagram:") == []
        assert runtime.root.children == ["diagram:a"]
        await trio.testing.wait_all_tasks_blocked()
        assert knobs.inits == []
        address = registry.lookup("diagram:a")  # starts it; the call waits for its init
        assert registry.running("diagram:a") is address
        assert registry.get("diagram:a") is address
        assert await address.call(Add(amount=2)) == 7
        assert knobs.inits == [5]
        assert registry.names("diagram:") == ["diagram:a"]
        assert runtime.root.children == ["diagram:a"]


async def test_an_actor_started_on_use_is_supervised_as_any_child() -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        runtime.root.spawn_on_use("diagram:a", lambda: Counter(knobs), initial=1)
        address = runtime.registry.lookup("diagram:a")
        assert await address.call(Add(amount=1)) == 2
        with pytest.raises(ActorRestarted):
            await address.call(Boom())
        assert await address.call(Get()) == 2  # restarted from its last commit
        assert knobs.inits == [1, 2]
        runtime.registry.crash("diagram:a")
        assert await address.call(Get()) == 2
        await runtime.root.stop("diagram:a")
        with pytest.raises(MailboxClosed):
            await address.call(Get())
        assert "diagram:a" not in runtime.registry


async def test_a_failed_first_init_is_a_crash_not_the_users_error() -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        runtime.root.spawn_on_use("diagram:a", lambda: BrokenInit(knobs), initial=3)
        assert await runtime.registry.lookup("diagram:a").call(Get()) == 3
        assert knobs.inits == [3, 3]


async def test_a_name_not_started_is_stopped_and_taken_again() -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        runtime.root.spawn_on_use("diagram:a", lambda: Counter(knobs), initial=1)
        with pytest.raises(ValueError, match="already in use"):
            await runtime.root.spawn("diagram:a", lambda: Counter(knobs), initial=0)
        with pytest.raises(ValueError, match="already in use"):
            runtime.root.spawn_on_use("diagram:a", lambda: Counter(knobs), initial=0)
        await runtime.root.stop("diagram:a")
        assert "diagram:a" not in runtime.registry
        assert runtime.root.children == []
        with pytest.raises(ActorNotFound):
            runtime.registry.lookup("diagram:a")
        again = await runtime.root.spawn("diagram:a", lambda: Counter(knobs), initial=9)
        assert await again.call(Get()) == 9
        assert knobs.inits == [9]


async def test_stopped_after_its_lookup_before_its_task_ran() -> None:
    knobs = Knobs()
    async with open_runtime() as runtime:
        runtime.root.spawn_on_use("diagram:a", lambda: Counter(knobs), initial=1)
        address = runtime.registry.lookup("diagram:a")
        await runtime.root.stop("diagram:a")
        with pytest.raises(MailboxClosed):
            await address.call(Get())
        await trio.testing.wait_all_tasks_blocked()
        assert knobs.inits == []


async def test_an_actor_uses_a_name_that_starts_on_use() -> None:
    async with open_runtime() as runtime:
        runtime.root.spawn_on_use("diagram:b", lambda: Counter(Knobs()), initial=40)
        first = await runtime.root.spawn("diagram:a", lambda: Counter(Knobs()), initial=0)
        assert await first.call(Forward(target="diagram:b", amount=2)) == 42


async def test_a_restarted_supervisor_starts_what_was_used_and_keeps_the_rest_waiting() -> None:
    used, unused = Knobs(), Knobs()
    async with open_runtime(intensity=RestartIntensity(max_restarts=5, within_s=10)) as rt:
        diagrams = await rt.root.spawn_supervisor(
            "diagrams", intensity=RestartIntensity(max_restarts=0, within_s=10)
        )
        diagrams.spawn_on_use("diagram:a", lambda: Counter(used), initial=1)
        diagrams.spawn_on_use("diagram:b", lambda: Counter(unused), initial=2)
        address = rt.registry.lookup("diagram:a")
        assert await address.call(Add(amount=1)) == 2
        with pytest.raises(ActorRestarted):
            await address.call(Boom())  # escalates: root restarts "diagrams"
        assert await address.call(Get()) == 2
        assert rt.registry.running("diagram:b") is None
        assert unused.inits == []
        assert await rt.registry.lookup("diagram:b").call(Get()) == 2
        assert diagrams.children == ["diagram:a", "diagram:b"]
