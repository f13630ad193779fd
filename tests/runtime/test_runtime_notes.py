"""``@on_note`` casts: handled in the sender's task while the actor idles, else queued.

The rule under test, as for reads (`test_runtime_reads.py`): a note does what the actor's
own task would do with it at that moment, so one sender's messages keep their order, no
half-done handler is overtaken, and a bug still crashes the actor in its own task.
"""

from __future__ import annotations

from typing import assert_never

import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.errors import ActorRestarted, InvalidParams
from nereid.runtime import (
    Actor,
    Message,
    Request,
    RingSink,
    Tracer,
    on,
    on_cast,
    on_note,
    on_read,
    open_runtime,
)
from tests.runtime.actor_testkit import Append, Entries, LogNote


class Refused(Message, frozen=True):
    """A note that refuses (an expected error): nothing changes."""


class Buggy(Message, frozen=True):
    """A note with a bug: the actor must meet it in its own task (crash, restart)."""


class Hold(Request[tuple[str, ...]], frozen=True):
    """Append `tag`, then wait for the gate before replying (a half-done handler)."""

    tag: str


Mail = Entries | Append | LogNote | Refused | Buggy | Hold


class Log(Actor[tuple[str, ...], Mail]):
    def __init__(self, gate: trio.Event) -> None:
        self._gate = gate
        self.instance_notes = 0

    @on_read(Entries)
    def _entries(self, message: Entries) -> tuple[str, ...]:
        return self.state

    @on_cast(Append)
    async def _append(self, message: Append) -> None:
        self.commit((*self.state, message.tag))

    @on_note(LogNote)
    def _note(self, message: LogNote) -> None:
        self.instance_notes += 1
        self.commit((*self.state, message.tag))

    @on_note(Refused)
    def _refused(self, message: Refused) -> None:
        raise InvalidParams("refused note", data={"why": "test"})

    @on_note(Buggy)
    def _buggy(self, message: Buggy) -> None:
        raise RuntimeError("a bug in a note")

    @on(Hold)
    async def _hold(self, message: Hold) -> tuple[str, ...]:
        self.commit((*self.state, message.tag))
        await self._gate.wait()
        return self.state


async def test_a_note_to_an_idle_actor_is_handled_in_the_senders_task() -> None:
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: Log(trio.Event()), initial=())
        await trio.testing.wait_all_tasks_blocked()
        with trio.testing.assert_no_checkpoints():
            await log.cast(LogNote(tag="a"))
            assert log.offer(LogNote(tag="b"))
            assert await log.call(Entries()) == ("a", "b")


async def test_a_note_behind_queued_mail_is_queued_behind_it() -> None:
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: Log(trio.Event()), initial=())
        await trio.testing.wait_all_tasks_blocked()
        await log.cast(Append(tag="first"))  # queued: the actor has not run yet
        await log.cast(LogNote(tag="second"))
        assert await log.call(Entries()) == ("first", "second")


async def test_a_note_never_overtakes_a_handler_half_way() -> None:
    gate = trio.Event()
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: Log(gate), initial=())
        async with trio.open_nursery() as nursery:
            nursery.start_soon(log.call, Hold(tag="held"))
            await trio.testing.wait_all_tasks_blocked()
            await log.cast(LogNote(tag="after"))
            gate.set()
        assert await log.call(Entries()) == ("held", "after")


async def test_a_refused_note_changes_nothing_and_the_actor_goes_on() -> None:
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: Log(trio.Event()), initial=("x",))
        await trio.testing.wait_all_tasks_blocked()
        await log.cast(Refused())
        await log.cast(LogNote(tag="y"))
        assert await log.call(Entries()) == ("x", "y")


async def test_a_note_with_a_bug_crashes_the_actor_in_its_own_task() -> None:
    gate = trio.Event()
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: Log(gate), initial=("kept",))
        await trio.testing.wait_all_tasks_blocked()
        await log.cast(Buggy())  # goes to the actor's task, which crashes and restarts
        async with trio.open_nursery() as nursery:
            nursery.start_soon(log.call, Hold(tag="next"))
            await trio.testing.wait_all_tasks_blocked()
            gate.set()
        assert await log.call(Entries()) == ("kept", "next")


async def test_a_crash_while_a_note_waits_fails_only_the_request_in_flight() -> None:
    """A note queued behind a request that crashes its actor is handled by the restart."""

    class Crashing(Log):
        @on(Hold)
        async def _hold(self, message: Hold) -> tuple[str, ...]:
            await self._gate.wait()
            raise RuntimeError("crash")

    gate = trio.Event()
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: Crashing(gate), initial=())
        failed: list[BaseException] = []

        async def hold() -> None:
            try:
                await log.call(Hold(tag="lost"))
            except ActorRestarted as err:
                failed.append(err)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(hold)
            await trio.testing.wait_all_tasks_blocked()
            await log.cast(LogNote(tag="kept"))
            gate.set()
        assert len(failed) == 1
        assert await log.call(Entries()) == ("kept",)


async def test_notes_are_queued_and_traced_while_tracing() -> None:
    sink = RingSink(100)
    async with open_runtime(tracer=Tracer(sink)) as runtime:
        log = await runtime.root.spawn("log", lambda: Log(trio.Event()), initial=())
        await trio.testing.wait_all_tasks_blocked()
        await log.cast(LogNote(tag="a"))
        assert await log.call(Entries()) == ("a",)
    events = [(r.event, r.msg_type) for r in sink.records() if r.actor == "log"]
    assert ("receive", "LogNote") in events


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["note", "append", "hold", "read", "pass"]), max_size=12),
        min_size=1,
        max_size=4,
    )
)
def test_every_senders_messages_stay_in_its_order(scripts: list[list[str]]) -> None:
    """Several senders interleave notes, plain casts, blocking calls and reads: each
    sender's entries appear in the log in the order it sent them, every read sees all of
    the sender's own earlier entries, and nothing is lost or doubled."""

    async def main() -> None:
        gate = trio.Event()
        gate.set()  # Hold replies at once; its wait is still a pass of the scheduler
        async with open_runtime() as runtime:
            log = await runtime.root.spawn("log", lambda: Log(gate), initial=())

            async def sender(number: int, script: list[str]) -> None:
                sent: list[str] = []
                for index, action in enumerate(script):
                    tag = f"{number}.{index}"
                    match action:
                        case "note":
                            await log.cast(LogNote(tag=tag))
                            sent.append(tag)
                        case "append":
                            await log.cast(Append(tag=tag))
                            sent.append(tag)
                        case "hold":
                            await log.call(Hold(tag=tag))
                            sent.append(tag)
                        case "read":
                            entries = await log.call(Entries())
                            mine = [e for e in entries if e.startswith(f"{number}.")]
                            assert mine == sent
                        case "pass":
                            await trio.lowlevel.checkpoint()
                        case _:
                            assert_never(action)  # type: ignore[arg-type]

            async with trio.open_nursery() as nursery:
                for number, script in enumerate(scripts):
                    nursery.start_soon(sender, number, script)
            entries = await log.call(Entries())
            for number, script in enumerate(scripts):
                expected = [
                    f"{number}.{i}" for i, a in enumerate(script) if a in ("note", "append", "hold")
                ]
                assert [e for e in entries if e.startswith(f"{number}.")] == expected

    trio.run(main)
