"""A runaway `/` regex never freezes the TUI (issue 13): the search runs off the event loop
under the wall-clock limit the MCP tools use, the TUI keeps answering keys meanwhile, and
the search line then says why there is no answer.

A real session tree and the real app tasks; only the terminal is left out (the test paints
the widget itself, as urwid does when the loop goes idle).
"""

from __future__ import annotations

import time

import msgspec
import trio
import urwid

from nereid.actors.tree import open_session
from nereid.mermaid import parse_sequence
from nereid.model import Diagram, Session
from nereid.model.refs import parse_ref
from nereid.query.regex_guard import SEARCH_TIME_LIMIT
from nereid.store import load_demo_session
from nereid.ui.app import TuiApp
from nereid.ui.client import ActorClient
from nereid.ui.modes import Focus, SearchMode
from nereid.ui.search import search, too_slow
from nereid.ui.viewmodel import ViewModel

SIZE = (160, 40)
#: `regex` needs minutes for this on the long message below (each of 300,000 starts
#: matches 150,000 characters before failing); the MCP tests refuse the same pattern.
HOSTILE = "a{150000}b"


class _Headless(urwid.display.raw.Screen):
    """The TUI's screen without a terminal."""

    def tty_signal_keys(self, *args: object, **kwargs: object) -> None:
        return None


def _session() -> Session:
    session = load_demo_session()
    ast = parse_sequence("sequenceDiagram\n  A->>B: " + "a" * 300_000 + "\n")
    long = Diagram(diagram_id="long", name="Long", kind="sequence", ast=ast, rev=0)
    return msgspec.structs.replace(session, diagrams={**session.diagrams, "long": long})


async def _answered(app: TuiApp, mode: SearchMode) -> None:
    """Until the app has taken the search's answer (it repaints after each)."""
    repainted = trio.Event()
    repaint = app.widget.refresh

    def refresh() -> None:
        repaint()
        repainted.set()

    app.widget.refresh = refresh  # type: ignore[method-assign]
    with trio.fail_after(30):
        while mode.pending:
            await repainted.wait()
            repainted = trio.Event()
    app.widget.refresh = repaint  # type: ignore[method-assign]


def _screen(app: TuiApp) -> str:
    return "\n".join(line.decode() for line in app.widget.render(SIZE).text)


async def test_a_runaway_regex_runs_off_the_loop_and_the_tui_keeps_answering() -> None:
    async with open_session(_session(), files=None, durable=False) as handle:
        client = ActorClient(handle.registry, handle.bus)
        vm = ViewModel(await client.snapshot(), mcp_url=None)
        vm.following.set_enabled(False)
        app = TuiApp(client, vm, screen=_Headless())
        async with trio.open_nursery() as nursery:
            nursery.start_soon(app.run_searches)
            started = time.monotonic()
            for key in ["/", *HOSTILE]:
                app.widget.keypress(SIZE, key)
            mode = vm.modes.search
            assert mode is not None and mode.query == HOSTILE.lower()
            assert mode.pending and "searching…" in _screen(app)
            # Keys are answered while the search runs: Enter keeps the search line, `2`
            # shows the Objects pane, both painted before the answer is in.
            app.widget.keypress(SIZE, "enter")
            app.widget.keypress(SIZE, "2")
            assert mode.pending and not mode.editing and vm.panes.focus is Focus.OBJECTS
            assert "[2]─ Objects" in _screen(app)
            ticks = 0
            with trio.fail_after(30):
                while mode.pending:  # the loop runs on: the search is not on it
                    await trio.sleep(0.01)
                    ticks += 1
            elapsed = time.monotonic() - started
            assert ticks >= 5, ticks
            assert elapsed < SEARCH_TIME_LIMIT + 5, elapsed  # wall clock, not CPU time
            assert mode.results == () and mode.error == too_slow(SEARCH_TIME_LIMIT)
            assert f"regex too slow: no answer within {SEARCH_TIME_LIMIT:g} s" in _screen(app)
            # A pattern that answers goes the same way: results, then the jump.
            app.widget.keypress(SIZE, "esc")
            for key in ["/", *"n:brow"]:
                app.widget.keypress(SIZE, key)
            again = vm.modes.search
            assert again is not None and again.pending
            await _answered(app, again)
            assert again.error is None and again.results
            assert vm.cursor == again.results[0] == parse_ref("d:index/flow/node/n:browse")
            nursery.cancel_scope.cancel()


async def test_answers_to_older_queries_are_dropped() -> None:
    """Typed on while a search ran: only the newest query's answer is shown."""
    async with open_session(load_demo_session(), files=None, durable=False) as handle:
        client = ActorClient(handle.registry, handle.bus)
        vm = ViewModel(await client.snapshot(), mcp_url=None)
        app = TuiApp(client, vm, screen=_Headless())
        for key in ["/", *"checkout"]:
            app.widget.keypress(SIZE, key)
        first = vm.modes.take_search()
        assert first is not None and first.query == "checkout"
        app.widget.keypress(SIZE, "backspace")  # a newer query is wanted
        stale = search(first.candidates, first.query, fuzzy=False, active_diagram=None)
        assert stale.refs and vm.searched(first, stale) == []
        mode = vm.modes.search
        assert mode is not None and mode.pending and mode.results == ()
        newest = vm.modes.take_search()
        assert newest is not None and newest.query == "checkou"
        answer = search(newest.candidates, newest.query, fuzzy=False, active_diagram=None)
        assert vm.searched(newest, answer) and mode.results == answer.refs
        assert not mode.pending and vm.cursor == answer.refs[0]


async def test_enter_before_the_answer_acts_as_enter_after_it() -> None:
    async with open_session(load_demo_session(), files=None, durable=False) as handle:
        client = ActorClient(handle.registry, handle.bus)
        vm = ViewModel(await client.snapshot(), mcp_url=None)
        app = TuiApp(client, vm, screen=_Headless())
        for query, stays in (("n:browse$", False), ("n:", True)):
            for key in ["/", *query, "enter"]:
                app.widget.keypress(SIZE, key)
            job = vm.modes.take_search()
            assert job is not None and job.query == query
            result = search(job.candidates, job.query, fuzzy=False, active_diagram=None)
            vm.searched(job, result)
            assert vm.cursor == result.refs[0]
            assert (vm.modes.search is not None) == stays, query  # one result: search ends
            app.widget.keypress(SIZE, "esc")
