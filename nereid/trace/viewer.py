"""The `nereid trace FILE` terminal viewer (urwid): timeline, filters, follow, request view.

`TraceViewer` is a plain urwid widget over a list of entries (and optionally a
`TraceLogReader` it polls in follow mode), so it is tested by sending keys and reading
`render(size).text`, without a terminal. `run_viewer` wraps it in a `MainLoop` with a timer
that polls the file. Keys are listed in `keys.KEY_BINDINGS` (the `?` overlay shows them).
Crashes and escalations are drawn in the `crash` attribute, restarts in `restart`, errors,
timeouts and expired calls in `error`, so they stand out on any colour terminal.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final, Literal

import urwid

from .calls import CallStep, format_step, request_path
from .filters import TimeParseError, TraceFilter, describe_filter, parse_time
from .keys import KEY_BINDINGS, Command, command_for
from .reader import SkippedLines, TraceLogReader
from .records import TraceEntry
from .rows import LazyRows
from .text import format_entry

__all__ = ["PALETTE", "POLL_SECONDS", "TraceViewer", "attr_for", "run_viewer"]

#: How often follow mode looks for new lines.
POLL_SECONDS: Final = 0.5

PALETTE: Final = [
    ("normal", "default", "default"),
    ("header", "white,bold", "dark blue"),
    ("footer", "light gray", "dark gray"),
    ("error", "light red", "default"),
    ("crash", "white,bold", "dark red"),
    ("restart", "yellow,bold", "default"),
    ("focus", "black", "light gray"),
    ("crash_focus", "dark red,bold", "light gray"),
    ("help", "white", "dark blue"),
    ("warning", "yellow,bold", "dark gray"),
]

_Wrap = Literal["space", "clip"]
_Size = tuple[()] | tuple[int] | tuple[int, int]

#: A row: an entry on the timeline, a step in the request view, None for "nothing matches".
_Item = TraceEntry | CallStep | None


def _entry_of(item: _Item) -> TraceEntry | None:
    return item.entry if isinstance(item, CallStep) else item


def attr_for(entry: TraceEntry) -> str:
    """The display attribute of an entry's row."""
    match entry.event:
        case "crash" | "escalate":
            return "crash"
        case "restart":
            return "restart"
        case "error" | "timeout" | "expired":
            return "error"
        case _:
            return "normal"


class _Row(urwid.Text):
    """A selectable line that remembers its entry (so keys can act on the focused row)."""

    _selectable = True

    def __init__(self, text: str, entry: TraceEntry, wrap: _Wrap) -> None:
        super().__init__(text, wrap=wrap)
        self.entry = entry

    def keypress(self, size: _Size, key: str) -> str:
        return key


def _help_text() -> str:
    width = max(len(" / ".join(binding.keys)) for binding in KEY_BINDINGS)
    lines = [f"{' / '.join(b.keys):<{width}}  {b.help}" for b in KEY_BINDINGS]
    lines += ["", f"{'up/down, page up/down':<{width}}  move", "", "any key closes this help"]
    return "\n".join(lines)


class TraceViewer(urwid.WidgetWrap[Any]):
    """The viewer's whole screen. Raises `urwid.ExitMainLoop` on `q`.

    Holds its own copy of the entries; `poll()` appends what `reader` has gained since.
    """

    def __init__(
        self,
        entries: Sequence[TraceEntry],
        *,
        title: str,
        reader: TraceLogReader | None = None,
        selection: TraceFilter | None = None,
        follow: bool = False,
    ) -> None:
        self._entries: list[TraceEntry] = list(entries)
        self._title = title
        self._reader = reader
        self.selection = selection or TraceFilter()
        self.following = follow
        self.request: str | None = None
        self._message: tuple[str, str] | None = None
        self._prompt: tuple[Command, urwid.Edit] | None = None
        self._walker: LazyRows[_Item] = LazyRows(self._make)
        self._header = urwid.Text("", wrap="clip")
        self._footer = urwid.Text("", wrap="clip")
        # Typed Any: urwid's Frame generics cannot express swapping the footer widget type.
        self._frame: Any = urwid.Frame(
            urwid.ListBox(self._walker),
            header=urwid.AttrMap(self._header, "header"),
            footer=urwid.AttrMap(self._footer, "footer"),
        )
        self._help = urwid.Overlay(
            urwid.AttrMap(
                urwid.LineBox(urwid.Filler(urwid.Text(_help_text()), valign="top"), "keys"),
                "help",
            ),
            self._frame,
            align="center",
            width=("relative", 90),
            valign="middle",
            height=len(KEY_BINDINGS) + 7,
        )
        super().__init__(self._frame)
        self._rebuild()

    # -- state shown -------------------------------------------------------

    @property
    def shown_entries(self) -> list[TraceEntry]:
        """The entries of the rows shown (on screen or scrolled away), in order."""
        return [entry for item in self._walker.items if (entry := _entry_of(item)) is not None]

    @property
    def help_visible(self) -> bool:
        return self._w is self._help

    @property
    def skipped(self) -> SkippedLines | None:
        return None if self._reader is None else self._reader.skipped

    def _row(self, text: str, entry: TraceEntry, wrap: _Wrap) -> urwid.Widget:
        attr = attr_for(entry)
        focus = "crash_focus" if attr == "crash" else "focus"
        return urwid.AttrMap(_Row(text, entry, wrap), attr, focus_map=focus)

    def _make(self, item: _Item) -> urwid.Widget:
        if item is None:
            return urwid.Text(("warning", "no events match: x clears the filters"))
        if isinstance(item, CallStep):
            return self._row(format_step(item), item.entry, "space")
        return self._row(format_entry(item), item, "clip")

    def _items(self) -> list[_Item]:
        if self.request is not None:
            return list(request_path(self._entries, self.request))
        return [entry for entry in self._entries if self.selection.matches(entry)]

    def _rebuild(self) -> None:
        focused = self._focused_entry()
        items = self._items() or [None]
        self._walker.replace(items, self._make)
        if self.following or focused is None:
            position = len(items) - 1 if self.following else 0
        else:
            entries = self.shown_entries
            position = next((i for i, e in enumerate(entries) if e is focused), -1)
            if position < 0:
                position = next((i for i, e in enumerate(entries) if e.mono >= focused.mono), 0)
        self._walker.set_focus(position)
        self._update_bars()

    def _focused_entry(self) -> TraceEntry | None:
        items = self._walker.items
        if not 0 <= self._walker.focus < len(items):
            return None
        return _entry_of(items[self._walker.focus])

    def _update_bars(self) -> None:
        if self.request is not None:
            view = f"request {self.request}: {len(self.shown_entries)} events (esc: back)"
        else:
            view = f"{len(self.shown_entries)}/{len(self._entries)} events | "
            view += describe_filter(self.selection)
        follow = " | follow" if self.following else ""
        skipped = self.skipped
        bad = f" | {skipped.count} malformed lines skipped" if skipped and skipped.count else ""
        self._header.set_text(f"nereid trace {self._title} | {view}{follow}{bad}")
        if self._message is not None:
            attr, text = self._message
            self._footer.set_text((attr, text))
        else:
            self._footer.set_text(
                "? help  q quit  a actor  t type  c corr  e errors  w window  x clear  "
                "f follow  enter request"
            )

    def _say(self, text: str, attr: str = "footer") -> None:
        self._message = (attr, text)
        self._update_bars()

    # -- follow mode -------------------------------------------------------

    def poll(self) -> int:
        """Read lines the log gained (if there is a reader); return how many entries arrived.

        A file that cannot be read (gone for a moment while the runtime rotates it) is said
        in the footer and tried again at the next poll.
        """
        if self._reader is None:
            return 0
        try:
            fresh = self._reader.read_new(final=False)
        except OSError as err:
            self._say(f"cannot read {self._title}: {err.strerror or err}", "warning")
            return 0
        if not fresh:
            self._update_bars()  # the count of skipped lines may have changed
            return 0
        self._entries.extend(fresh)
        matching = [entry for entry in fresh if self.selection.matches(entry)]
        if self.request is not None or self._walker.items == [None]:
            self._rebuild()
        elif matching:
            self._walker.extend(matching)
            if self.following:
                self._walker.set_focus(len(self._walker) - 1)
        self._update_bars()
        return len(fresh)

    # -- keys --------------------------------------------------------------

    def keypress(self, size: _Size, key: str) -> str | None:
        if self._prompt is not None:
            return self._prompt_key(size, key)
        if self.help_visible:
            if key == "q":
                raise urwid.ExitMainLoop()
            self._w = self._frame
            return None
        command = command_for(key)
        if command is None:
            self._message = None
            handled: str | None = self._frame.keypress(size, key)
            self._update_bars()
            return handled
        self._message = None
        self._run(command)
        return None

    def _run(self, command: Command) -> None:
        match command:
            case "help":
                self._w = self._help
            case "quit":
                raise urwid.ExitMainLoop()
            case "toggle_follow":
                self.following = not self.following
                if self.following:
                    self.poll()
                self._rebuild()
            case "back":
                if self.request is not None:
                    self.request = None
                    self._rebuild()
            case "first":
                if self._walker:
                    self._walker.set_focus(0)
            case "last":
                if self._walker:
                    self._walker.set_focus(len(self._walker) - 1)
            case "open_request":
                entry = self._focused_entry()
                if entry is None or entry.correlation_id is None:
                    self._say("this row has no correlation id", "warning")
                else:
                    self.request = entry.correlation_id
                    self._rebuild()
            case _ if self.request is not None:
                self._say("esc returns to the timeline, where filters apply", "warning")
            case "toggle_errors":
                self._apply(replace(self.selection, problems_only=not self.selection.problems_only))
            case "clear_filters":
                self._apply(TraceFilter())
            case "filter_actor":
                self._open_prompt(command, "actor (glob): ", self.selection.actor or "")
            case "filter_type":
                self._open_prompt(command, "message type (glob): ", self.selection.msg_type or "")
            case "filter_corr":
                entry = self._focused_entry()
                initial = self.selection.correlation_id or (entry and entry.correlation_id) or ""
                self._open_prompt(command, "correlation id: ", initial)
            case "filter_window":
                self._open_prompt(command, "since[..until] (10s, 5m, ISO): ", "")

    def _apply(self, selection: TraceFilter) -> None:
        self.selection = selection
        self._rebuild()

    def _open_prompt(self, command: Command, caption: str, initial: str) -> None:
        edit = urwid.Edit(caption, initial)
        self._prompt = (command, edit)
        self._frame.footer = urwid.AttrMap(edit, "footer")
        self._frame.focus_position = "footer"

    def _close_prompt(self) -> None:
        self._prompt = None
        self._frame.footer = urwid.AttrMap(self._footer, "footer")
        self._frame.focus_position = "body"

    def _prompt_key(self, size: _Size, key: str) -> str | None:
        assert self._prompt is not None
        command, edit = self._prompt
        if key == "esc":
            self._close_prompt()
            self._update_bars()
            return None
        if key != "enter":
            edit.keypress((max(size[0] if size else 1, 1),), key)
            return None
        text = edit.edit_text.strip()
        self._close_prompt()
        value = text or None
        if command == "filter_actor":
            self._apply(replace(self.selection, actor=value))
        elif command == "filter_type":
            self._apply(replace(self.selection, msg_type=value))
        elif command == "filter_corr":
            self._apply(replace(self.selection, correlation_id=value))
        else:
            try:
                since, until = _parse_window(text)
            except TimeParseError as err:
                self._say(str(err), "warning")
                return None
            self._apply(replace(self.selection, since=since, until=until))
        return None


def _parse_window(text: str) -> tuple[float | None, float | None]:
    if not text:
        return None, None
    now = time.time()
    since, _sep, until = text.partition("..")
    return (
        parse_time(since, now) if since.strip() else None,
        parse_time(until, now) if until.strip() else None,
    )


def run_viewer(reader: TraceLogReader, *, title: str, selection: TraceFilter, follow: bool) -> None:
    """Run the viewer full-screen until `q`. Blocks; raises `OSError` if the file goes away."""
    entries = reader.read_new(final=not follow)
    viewer = TraceViewer(entries, title=title, reader=reader, selection=selection, follow=follow)
    loop = urwid.MainLoop(viewer, palette=PALETTE)

    def tick(main_loop: urwid.MainLoop, _data: object) -> None:
        if viewer.following:
            viewer.poll()
        main_loop.set_alarm_in(POLL_SECONDS, tick)

    loop.set_alarm_in(POLL_SECONDS, tick)
    loop.run()
