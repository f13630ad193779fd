"""`run_tui`: the TUI as one task in the session's trio run (tui.md §2, style §3).

Tasks sharing one `ViewModel`: urwid's input handling (keys/mouse → view model →
effects), the event pump (the actors' bus events → view model → invalidate), the
effect sender (effects → actor requests, the `$EDITOR` round trip, OSC 52), the layout
task (a big diagram's drawing, made in a worker process so that the event loop, which
answers every agent, never waits for it) and the search task (a `/` regex, in a thread
under a wall-clock limit, slow patterns in a worker process). urwid redraws when the loop goes idle, so a
change is painted as soon as it is applied: no polling.
"""

from __future__ import annotations

import base64
import functools
import logging
import os
import signal
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, cast

import trio
import urwid

from nereid.actors import protocol as p
from nereid.errors import NereidError
from nereid.model.diagram import Diagram
from nereid.offload.dispatch import bounded_regex_matcher, render_diagram_drawing
from nereid.render import Rendered
from nereid.runtime import ResyncNeeded
from nereid.ui import effects as fx
from nereid.ui.client import ActorClient, export_text
from nereid.ui.editor import edit_round_trip, editor_command, run_editor_blocking
from nereid.ui.highlight import DiagramCells
from nereid.ui.palette import Colors, PaletteError, theme_from_env
from nereid.ui.search import SearchResult, search
from nereid.ui.viewmodel import ViewModel
from nereid.ui.widgets import TuiWidget

__all__ = ["TuiApp", "mouse_wanted", "run_tui"]

EFFECT_BUFFER = 256


class _ToastLogHandler(logging.Handler):
    """Log records become messages on the status line (and in the help's message log)."""

    def __init__(self, app: TuiApp) -> None:
        super().__init__(logging.WARNING)
        self.app = app

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = f"{record.levelname.lower()}: {record.getMessage()}"
        except Exception:  # a broken log call must not break the TUI
            text = f"{record.levelname.lower()}: {record.msg!r}"
        self.app.vm.toast(text, error=record.levelno >= logging.ERROR)
        self.app.widget.refresh()


@contextmanager
def logs_off_the_terminal(app: TuiApp) -> Iterator[None]:
    """While the TUI owns the screen, log lines meant for stderr/stdout become messages
    (tui.md §16.18); file handlers keep working. Restored on exit."""
    root = logging.getLogger()
    moved = [
        h
        for h in root.handlers
        if type(h) is logging.StreamHandler and h.stream in (sys.stderr, sys.stdout)
    ]
    for handler in moved:
        root.removeHandler(handler)
    toast = _ToastLogHandler(app)
    root.addHandler(toast)
    try:
        yield
    finally:
        root.removeHandler(toast)
        for handler in moved:
            root.addHandler(handler)


class TuiApp:
    """One running TUI: the view model, the widget, the urwid loop and the actor client."""

    def __init__(
        self,
        client: ActorClient,
        vm: ViewModel,
        *,
        screen: urwid.display.raw.Screen | None = None,
        palette: list[tuple[str, ...]] | None = None,
        colors: Colors = 16,
        environ: Mapping[str, str] = os.environ,
    ) -> None:
        self.client = client
        self.vm = vm
        self.environ = environ
        self.exit_code = 0
        self._send, self._receive = trio.open_memory_channel[fx.Effect](EFFECT_BUFFER)
        self._follow_check = trio.Event()  # set after every key and update: re-plan the timer
        self.widget = TuiWidget(vm, self.on_effects)
        self.screen = screen if screen is not None else urwid.display.raw.Screen()
        self.loop = urwid.MainLoop(
            self.widget,
            palette=cast(Any, palette or []),
            screen=self.screen,
            event_loop=urwid.TrioEventLoop(),
            handle_mouse=vm.panes.mouse,  # opt-in (tui.md §16.14): `m` or NEREID_TUI_MOUSE=1
        )
        self.screen.set_terminal_properties(colors=colors)
        # Ctrl-C arrives as a key (and quits cleanly) instead of a SIGINT mid-draw.
        self.screen.tty_signal_keys(intr="undefined", quit="undefined", stop="undefined")
        self._message_posted = trio.Event()
        vm.toasts.listen(self._message_posted.set)
        self._layout_wanted = trio.Event()
        vm.drawings.listen(self._layout_wanted.set)
        self._search_wanted = trio.Event()
        vm.modes.listen(self._search_wanted.set)
        self._reported_human: p.ReportHumanAttention | None = None
        self._stale = False  # a resync failed: re-read the session with the next event

    def on_effects(self, effects: list[fx.Effect]) -> None:
        """Queue effects for the sender task; `Quit` ends the urwid loop right away.

        Whatever moved the view (a key, follow-AI, a diagram deleted under the person),
        what the person now sees is reported if it differs from the last report, so
        `attention.human.read` always tells the truth.
        """
        self._follow_check.set()  # a key or a frame may have started or ended a pause
        human = self.vm.human_report()
        if human != self._reported_human and not any(
            isinstance(effect, p.ReportHumanAttention) for effect in effects
        ):
            effects = [*effects, human]
        for effect in effects:
            if isinstance(effect, p.ReportHumanAttention):
                self._reported_human = effect
            if isinstance(effect, fx.Quit):
                self.exit_code = effect.code
                raise urwid.ExitMainLoop()
            try:
                self._send.send_nowait(effect)
            except trio.WouldBlock:
                self.vm.toast("Too many pending requests; dropped one", error=True)

    def _exit_soon(self, code: int) -> None:
        self.exit_code = code

        def stop() -> None:
            raise urwid.ExitMainLoop()

        self.loop.event_loop.alarm(0, stop)

    async def pump_events(self, subscription: Any) -> None:
        """Bus events → view model → the drawing → repaint. Never polls: it sleeps until an
        event comes. The events carry what changed; the session is re-read only after the
        TUI fell behind (`ResyncNeeded`), and again with the next event while that read
        fails."""
        async for event in subscription:
            if isinstance(event, ResyncNeeded) or self._stale:
                await self._resync()
            if not isinstance(event, ResyncNeeded):
                self.on_effects(self.vm.apply(event))
            # What the drawing is made from (its content digest, an encode of the AST), then
            # the drawing the change needs (a label patch, a layout job), each in a step of
            # its own, before the repaint's: no one step holds the loop for two of them.
            await trio.lowlevel.checkpoint()
            self.vm.prepare_cells()
            await trio.lowlevel.checkpoint()
            self.vm.view_cells()
            # A camera move (follow-AI) shows a whole pane of new rows: their canvas bands
            # are made ahead, one per step, so the repaint only stacks them.
            for _band in self.widget.paint_ahead():
                await trio.lowlevel.checkpoint()
            self._follow_check.set()
            self.widget.refresh()

    async def _resync(self) -> None:
        try:
            state = await self.client.snapshot()
        except NereidError as err:  # an actor restarting or slow: retried with the next event
            self._stale = True
            self.vm.toast(f"re-reading the session failed: {err}", error=True)
            return
        self._stale = False
        self.on_effects(self.vm.resync(state))

    async def send_effects(self) -> None:
        async for effect in self._receive:
            try:
                await self._perform(effect)
            except Exception as err:  # a failed request is shown, never fatal to the TUI
                self.vm.toast(f"{type(effect).__name__} failed: {err}", error=True)
            self.widget.refresh()

    async def _perform(self, effect: fx.Effect) -> None:
        match effect:
            case fx.RunEditor(diagram_id=diagram_id):
                await self._edit(diagram_id)
            case fx.SetMouse(enabled=enabled):
                self.loop.handle_mouse = enabled  # also what `paused()` restores
                self.screen.set_mouse_tracking(enabled)
            case fx.Yank(text=text):
                payload = base64.b64encode(text.encode()).decode()
                sys.stdout.write(f"\x1b]52;c;{payload}\x1b\\")
                sys.stdout.flush()
            case _:
                await self.client.perform(effect)

    async def _edit(self, diagram_id: str) -> None:
        vm = self.vm
        diagram = vm.session.diagrams.get(diagram_id)
        if diagram is None:
            vm.toast(f"External action failed: no diagram {diagram_id}", error=True)
            return
        command = editor_command(self.environ)

        async def run_editor(path: Any) -> int:
            with self.loop.paused():
                status: int = await trio.to_thread.run_sync(run_editor_blocking, command, path)
            return status

        kept = vm.edits.get(diagram_id)
        base = (kept.base or diagram) if kept is not None else diagram

        async def apply(text: str) -> Any:
            return await self.client.replace_text(diagram_id, text, base)

        outcome = await edit_round_trip(
            diagram_id,
            export_text(diagram),
            run_editor=run_editor,
            apply=apply,
            kept_text=kept.text if kept is not None else None,
            kept_error=kept.reason if kept is not None else None,
            kept_conflict=kept is not None and kept.conflict,
            environ=self.environ,
        )
        if outcome.kind == "applied" and outcome.result is not None:
            vm.edit_applied(outcome.result, diagram.rev)
        elif outcome.kind == "rejected" and outcome.text is not None:
            # After a conflict the re-opened text is made from the current revision;
            # otherwise the kept text still is the person's edit of `base`.
            merged_into = outcome.base if isinstance(outcome.base, Diagram) else None
            vm.edit_failed(
                diagram_id,
                outcome.text,
                outcome.message,
                reason=outcome.reason,
                base=merged_into or base,
                conflict=merged_into is not None or outcome.conflict,
            )
        elif outcome.kind == "unchanged":
            vm.toast(outcome.message, error=True)
        elif outcome.kind == "failed":
            vm.toast(f"External action failed: {outcome.message}", error=True)
        else:
            vm.edit_settled(diagram_id, outcome.message)

    async def lay_out(self) -> None:
        """Make the drawings the view model wants off the loop, one at a time, newest
        first (what was wanted meanwhile is superseded); the previous drawing stays on
        screen until the new one arrives. `TooLargeToRender` and other render errors come
        back from the worker and are shown instead of a drawing."""
        while True:
            await self._layout_wanted.wait()
            self._layout_wanted = trio.Event()
            self.vm.drawings.listen(self._layout_wanted.set)
            job = self.vm.take_layout()
            if job is None:
                continue
            outcome: Any
            try:
                outcome = await render_diagram_drawing(
                    job.diagram, job.options, small=0, encoded=job.encoded
                )
            except Exception as err:  # shown as the render error, never fatal to the TUI
                outcome = err
            # The drawing's cells are worked out in a step of their own (after the unpacking's),
            # and shown in the next (which lets the drawing it replaces go).
            await trio.lowlevel.checkpoint()
            if isinstance(outcome, Rendered):
                outcome = DiagramCells(outcome, job.key[0], job.ast)
                await trio.lowlevel.checkpoint()
                for _band in self.vm.warm_steps(outcome):  # the rows the repaint shows
                    await trio.lowlevel.checkpoint()
            if self.vm.layout_done(job.key, outcome, job.ast):
                for _band in self.widget.paint_ahead():  # its canvas bands, one per step
                    await trio.lowlevel.checkpoint()
                self.widget.refresh()

    async def run_searches(self) -> None:
        """Run the regex searches the view model wants, one at a time, newest first, in a
        thread with the wall-clock bounded matcher (a worker process for slow patterns),
        so a runaway pattern typed into `/` never stalls the loop that answers keys and
        agents; it ends with the search line's "regex too slow" after the time limit."""
        while True:
            await self._search_wanted.wait()
            self._search_wanted = trio.Event()
            self.vm.modes.listen(self._search_wanted.set)
            job = self.vm.modes.take_search()
            if job is None:
                continue
            run = functools.partial(
                search,
                job.candidates,
                job.query,
                fuzzy=False,
                active_diagram=job.active_diagram,
                matcher=bounded_regex_matcher,
            )
            try:
                result = await trio.to_thread.run_sync(run, abandon_on_cancel=True)
            except Exception as err:  # shown on the search line, never fatal to the TUI
                result = SearchResult((), f"search failed: {err}")
            self.on_effects(self.vm.searched(job, result))
            self.widget.refresh()

    async def expire_messages(self) -> None:
        """Repaint when a transient message runs out (a timer, not a poll)."""
        while True:
            expiry = self.vm.toasts.expiry()
            if expiry is None or expiry < self.vm.clock():
                await self._message_posted.wait()
                self._message_posted = trio.Event()
                self.vm.toasts.listen(self._message_posted.set)
                continue
            with trio.move_on_after(expiry - self.vm.clock() + 0.05):
                await self._message_posted.wait()
                self._message_posted = trio.Event()
                self.vm.toasts.listen(self._message_posted.set)
                continue
            self.widget.refresh()

    async def resume_following(self) -> None:
        """Follow a spotlight that was set while the person's navigation paused follow-AI,
        once the pause is over (a timer per pause, not a poll)."""
        while True:
            vm = self.vm
            # Also at the end of a pause with nothing to follow: `view.read_state` says when
            # follow-AI is paused, so the view is re-reported then.
            due = vm.follow_resume_at() or vm.following.pause_end()
            if due is None:
                await self._follow_check.wait()
                self._follow_check = trio.Event()
                continue
            with trio.move_on_after(max(due - self.vm.clock(), 0) + 0.01):
                await self._follow_check.wait()
                self._follow_check = trio.Event()
                continue
            self.on_effects(self.vm.follow())
            self.widget.refresh()

    async def watch_signals(self) -> None:
        """SIGTERM / SIGHUP end the loop normally, so the terminal is restored."""
        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
            async for signum in signals:
                self._exit_soon(128 + signum)
                return

    async def run(self, subscription: Any) -> int:
        """Run until `q` (or a signal); the terminal is restored however it ends."""
        self.on_effects([self.vm.human_report()])  # the view is reported by the first frame
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.pump_events, subscription)
            nursery.start_soon(self.send_effects)
            nursery.start_soon(self.watch_signals)
            nursery.start_soon(self.expire_messages)
            nursery.start_soon(self.resume_following)
            nursery.start_soon(self.lay_out)
            nursery.start_soon(self.run_searches)
            with logs_off_the_terminal(self), self.loop.start():
                await self.loop.event_loop.run_async()  # type: ignore[attr-defined]
            nursery.cancel_scope.cancel()
        return self.exit_code


def mouse_wanted(environ: Mapping[str, str]) -> bool:
    """`NEREID_TUI_MOUSE=1` (or true/yes/on) starts with the mouse captured."""
    return environ.get("NEREID_TUI_MOUSE", "").strip().lower() in ("1", "true", "yes", "on")


async def run_tui(
    handle: Any,
    *,
    mcp_url: str | None,
    environ: Mapping[str, str] | None = None,
    screen: urwid.display.raw.Screen | None = None,
) -> int:
    """Run the TUI on a running session until `q`; returns the exit code.

    `handle` is the session's `SessionHandle` (its registry and event bus). An invalid
    palette variable prints the error to stderr and returns 1 before the screen is touched.
    """
    env = os.environ if environ is None else environ
    try:
        theme = theme_from_env(env)
    except PaletteError as err:
        print(f"nereid: {err}", file=sys.stderr)
        return 1
    client = ActorClient(handle.registry, handle.bus)
    with client.subscribe() as subscription:
        await client.attach()
        try:
            state = await client.snapshot()
            vm = ViewModel(state, mcp_url=mcp_url, mouse=mouse_wanted(env))
            app = TuiApp(
                client, vm, screen=screen, palette=theme.entries, colors=theme.colors, environ=env
            )
            return await app.run(subscription)
        finally:
            with trio.move_on_after(1, shield=True):
                await client.detach()
