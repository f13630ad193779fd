"""``@on(Request, inline=True)``: an idle actor's caller handles the request in its own task.

The rule under test, as for reads and notes (`test_runtime_reads.py`, `test_runtime_notes.py`):
the caller does what the actor's own task would do with the request at that moment, and the
actor is held while it does (one writer), so one sender's messages keep their order, nothing
overtakes a handler half-way, a cancelled caller never leaves a change half-done, and a bug,
a kill or a stop end the request exactly as they would in the actor's task.
"""

from __future__ import annotations

from typing import assert_never

import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.errors import ActorRestarted, CallTimeout, InvalidParams, MailboxClosed
from nereid.runtime import (
    Actor,
    Request,
    RingSink,
    Tracer,
    on,
    on_cast,
    on_note,
    on_read,
    open_runtime,
)
from nereid.testing.faults import RestartCounter
from tests.runtime.actor_testkit import Append, Entries, LogNote


class Write(Request[tuple[str, ...]], frozen=True):
    """An inline request: append `tag`; with `wait`, wait for the gate, then append
    `tag` + "/2" (two commits with a wait between: a half-done change shows)."""

    tag: str
    wait: bool = False


class Refuse(Request[None], frozen=True):
    """An inline request that refuses (an expected error): nothing changes."""


class Buggy(Request[None], frozen=True):
    """An inline request with a bug after a commit: the actor crashes and restarts."""


class Plain(Request[tuple[str, ...]], frozen=True):
    """A plain (not inline) request: append `tag` in the actor's task."""

    tag: str


Mail = Entries | Append | LogNote | Write | Refuse | Buggy | Plain


class Log(Actor[tuple[str, ...], Mail]):
    def __init__(self, gate: trio.Event, tasks: list[trio.lowlevel.Task] | None = None) -> None:
        self._gate = gate
        self._tasks = tasks

    @on_read(Entries)
    def _entries(self, message: Entries) -> tuple[str, ...]:
        return self.state

    @on_cast(Append)
    async def _append(self, message: Append) -> None:
        self.commit((*self.state, message.tag))

    @on_note(LogNote)
    def _note(self, message: LogNote) -> None:
        self.commit((*self.state, message.tag))

    @on(Write, inline=True)
    async def _write(self, message: Write) -> tuple[str, ...]:
        if self._tasks is not None:
            self._tasks.append(trio.lowlevel.current_task())
        self.commit((*self.state, message.tag))
        if message.wait:
            await self._gate.wait()
            self.commit((*self.state, f"{message.tag}/2"))
        return self.state

    @on(Refuse, inline=True)
    async def _refuse(self, message: Refuse) -> None:
        raise InvalidParams("refused", data={"why": "test"})

    @on(Buggy, inline=True)
    async def _buggy(self, message: Buggy) -> None:
        self.commit((*self.state, "before the bug"))
        raise RuntimeError("a bug in an inline handler")

    @on(Plain)
    async def _plain(self, message: Plain) -> tuple[str, ...]:
        self.commit((*self.state, message.tag))
        return self.state


async def test_an_inline_request_to_an_idle_actor_runs_in_the_callers_task() -> None:
    tasks: list[trio.lowlevel.Task] = []
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: Log(trio.Event(), tasks), initial=())
        await trio.testing.wait_all_tasks_blocked()
        with trio.testing.assert_no_checkpoints():
            assert await log.call(Write(tag="a")) == ("a",)
            assert await log.call(Write(tag="b")) == ("a", "b")
        assert tasks == [trio.lowlevel.current_task()] * 2
        assert await log.call(Plain(tag="c")) == ("a", "b", "c")


async def test_an_inline_request_behind_queued_mail_is_queued_behind_it() -> None:
    tasks: list[trio.lowlevel.Task] = []
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: Log(trio.Event(), tasks), initial=())
        await trio.testing.wait_all_tasks_blocked()
        await log.cast(Append(tag="first"))  # queued: the actor has not run yet
        assert await log.call(Write(tag="second")) == ("first", "second")
        assert tasks != [trio.lowlevel.current_task()]  # the actor's task handled it


async def test_an_inline_request_never_overtakes_a_handler_half_way() -> None:
    gate = trio.Event()
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: Log(gate), initial=())
        async with trio.open_nursery() as nursery:
            nursery.start_soon(log.call, Write(tag="held", wait=True))  # inline, waits
            await trio.testing.wait_all_tasks_blocked()
            # The actor is held: each of these waits behind the half-done write.
            nursery.start_soon(log.call, Write(tag="inline"))
            await trio.testing.wait_all_tasks_blocked()
            await log.cast(LogNote(tag="note"))
            await log.cast(Append(tag="cast"))
            nursery.start_soon(log.call, Plain(tag="plain"))
            await trio.testing.wait_all_tasks_blocked()
            assert log.offer(LogNote(tag="offer"))
            gate.set()
        assert await log.call(Entries()) == (
            "held",
            "held/2",
            "inline",
            "note",
            "cast",
            "plain",
            "offer",
        )


async def test_a_read_waits_for_an_inline_request_half_way() -> None:
    gate = trio.Event()
    seen: list[tuple[str, ...]] = []
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: Log(gate), initial=())

        async def read() -> None:
            seen.append(await log.call(Entries()))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(log.call, Write(tag="w", wait=True))
            await trio.testing.wait_all_tasks_blocked()
            nursery.start_soon(read)
            await trio.testing.wait_all_tasks_blocked()
            assert seen == []  # not the half-done state
            gate.set()
        assert seen == [("w", "w/2")]


async def test_a_refused_inline_request_changes_nothing_and_the_actor_goes_on() -> None:
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: Log(trio.Event()), initial=("x",))
        await trio.testing.wait_all_tasks_blocked()
        with pytest.raises(InvalidParams) as caught:
            await log.call(Refuse())
        assert caught.value.actor == "log"
        assert await log.call(Write(tag="y")) == ("x", "y")


async def test_a_bug_in_an_inline_request_crashes_and_restarts_the_actor() -> None:
    """The caller gets `ActorRestarted`; the crash is traced and counted like one in the
    actor's task; the restart begins from the last commit; mail that came meanwhile is
    handled by the restarted actor."""
    counter = RestartCounter()
    async with open_runtime(tracer=Tracer(counter, messages=False)) as runtime:
        log = await runtime.root.spawn("log", lambda: Log(trio.Event()), initial=("kept",))
        await trio.testing.wait_all_tasks_blocked()
        with pytest.raises(ActorRestarted):
            await log.call(Buggy())
        assert counter.crashes == {"log": 1}
        assert counter.restarts == 1
        assert await log.call(Write(tag="next")) == ("kept", "before the bug", "next")


async def test_mail_held_during_an_inline_request_survives_its_crash() -> None:
    class WaitThenCrash(Log):
        @on(Buggy, inline=True)
        async def _buggy(self, message: Buggy) -> None:
            await self._gate.wait()
            raise RuntimeError("a bug after a wait")

    gate = trio.Event()
    failed: list[BaseException] = []
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: WaitThenCrash(gate), initial=())

        async def buggy() -> None:
            with pytest.raises(ActorRestarted) as caught:
                await log.call(Buggy())
            failed.append(caught.value)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(buggy)
            await trio.testing.wait_all_tasks_blocked()
            await log.cast(Append(tag="held"))  # the actor's task takes it and holds it
            nursery.start_soon(log.call, Plain(tag="queued"))
            await trio.testing.wait_all_tasks_blocked()
            gate.set()
        assert len(failed) == 1
        assert await log.call(Entries()) == ("held", "queued")


async def test_a_cancelled_caller_never_leaves_an_inline_change_half_done() -> None:
    gate = trio.Event()
    scopes: list[trio.CancelScope] = []
    replies: list[tuple[str, ...]] = []
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: Log(gate), initial=())

        async def write() -> None:
            with trio.CancelScope() as scope:
                scopes.append(scope)
                replies.append(await log.call(Write(tag="w", wait=True)))
                await trio.lowlevel.checkpoint()  # the cancel lands after the handler
                replies.append(("not reached",))
            assert scope.cancelled_caught

        async with trio.open_nursery() as nursery:
            nursery.start_soon(write)
            await trio.testing.wait_all_tasks_blocked()
            scopes[0].cancel()  # the caller is cancelled while its handler waits
            await trio.testing.wait_all_tasks_blocked()
            assert replies == []  # still in its handler, which holds the actor:
            assert log.offer(LogNote(tag="after"))  # queued
            gate.set()
        assert replies == [("w", "w/2")]
        assert await log.call(Entries()) == ("w", "w/2", "after")


async def test_a_kill_cancels_an_inline_request_like_one_in_the_actors_task() -> None:
    gate = trio.Event()
    failed: list[BaseException] = []
    counter = RestartCounter()
    async with open_runtime(tracer=Tracer(counter, messages=False)) as runtime:
        log = await runtime.root.spawn("log", lambda: Log(gate), initial=())

        async def write() -> None:
            with pytest.raises(ActorRestarted) as caught:
                await log.call(Write(tag="w", wait=True))
            failed.append(caught.value)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(write)
            await trio.testing.wait_all_tasks_blocked()
            await log.cast(Append(tag="held"))
            runtime.root.kill("log")
        assert len(failed) == 1
        assert counter.crashes == {"log": 1}
        # The write's first commit stands (a kill mid-handler keeps what was committed,
        # as in the actor's task); its second never ran; the held cast was handled.
        assert await log.call(Entries()) == ("w", "held")


async def test_a_stop_fails_an_inline_request_with_mailbox_closed() -> None:
    gate = trio.Event()
    failed: list[str] = []
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: Log(gate), initial=())

        async def call(request: Write | Plain) -> None:
            with pytest.raises(MailboxClosed):
                await log.call(request)
            failed.append(request.tag)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(call, Write(tag="inline", wait=True))
            await trio.testing.wait_all_tasks_blocked()
            nursery.start_soon(call, Plain(tag="held"))
            await trio.testing.wait_all_tasks_blocked()
            await runtime.root.stop("log")
        assert sorted(failed) == ["held", "inline"]


async def test_an_inline_request_past_its_deadline_times_out_as_a_queued_one() -> None:
    gate = trio.Event()
    async with open_runtime() as runtime:
        log = await runtime.root.spawn("log", lambda: Log(gate), initial=())
        await trio.testing.wait_all_tasks_blocked()
        async with trio.open_nursery() as nursery:

            async def late_gate() -> None:
                await trio.sleep(0.2)
                gate.set()

            nursery.start_soon(late_gate)
            with pytest.raises(CallTimeout):
                await log.call(Write(tag="w", wait=True), timeout=0.05)
        assert await log.call(Entries()) == ("w", "w/2")  # its work stands, as queued


async def test_inline_requests_are_queued_and_traced_while_tracing() -> None:
    sink = RingSink(100)
    tasks: list[trio.lowlevel.Task] = []
    async with open_runtime(tracer=Tracer(sink)) as runtime:
        log = await runtime.root.spawn("log", lambda: Log(trio.Event(), tasks), initial=())
        await trio.testing.wait_all_tasks_blocked()
        assert await log.call(Write(tag="a")) == ("a",)
        assert tasks != [trio.lowlevel.current_task()]
    events = [(r.event, r.msg_type) for r in sink.records() if r.actor == "log"]
    assert ("receive", "Write") in events
    assert ("reply", "Write") in events


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from(["write", "wait", "note", "append", "plain", "read", "pass"]),
            max_size=12,
        ),
        min_size=1,
        max_size=4,
    )
)
def test_every_senders_messages_stay_in_its_order(scripts: list[list[str]]) -> None:
    """Several senders interleave inline requests (some of which wait half-way), notes,
    plain casts, plain requests and reads: each sender's entries appear in the log in the
    order it sent them, no write is ever seen half-done, every read sees all of the
    sender's own earlier entries, and nothing is lost or doubled."""

    async def main() -> None:
        gate = trio.Event()
        gate.set()  # a waiting write goes on at once; its wait is still a checkpoint
        async with open_runtime() as runtime:
            log = await runtime.root.spawn("log", lambda: Log(gate), initial=())

            def check(entries: tuple[str, ...]) -> None:
                for index, entry in enumerate(entries):  # a wait's two halves are adjacent
                    if entry.endswith("/2"):
                        assert entries[index - 1] == entry[:-2]

            async def sender(number: int, script: list[str]) -> None:
                sent: list[str] = []
                for index, action in enumerate(script):
                    tag = f"{number}.{index}"
                    match action:
                        case "write":
                            check(await log.call(Write(tag=tag)))
                            sent.append(tag)
                        case "wait":
                            check(await log.call(Write(tag=tag, wait=True)))
                            sent += [tag, f"{tag}/2"]
                        case "note":
                            await log.cast(LogNote(tag=tag))
                            sent.append(tag)
                        case "append":
                            await log.cast(Append(tag=tag))
                            sent.append(tag)
                        case "plain":
                            check(await log.call(Plain(tag=tag)))
                            sent.append(tag)
                        case "read":
                            entries = await log.call(Entries())
                            check(entries)
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
            check(entries)
            for number, script in enumerate(scripts):
                expected: list[str] = []
                for i, action in enumerate(script):
                    if action in ("write", "note", "append", "plain"):
                        expected.append(f"{number}.{i}")
                    elif action == "wait":
                        expected += [f"{number}.{i}", f"{number}.{i}/2"]
                assert [e for e in entries if e.startswith(f"{number}.")] == expected

    trio.run(main)
