"""Key dispatch for the view model (tui.md §5-§9 with §16.7's fixes).

`handle_key(vm, key)` runs the `KEY_BINDINGS` command for the key in the current mode and
focus, changing only view state (and the view model's optimistic copy of the selection), and
returns the `Effect`s to send to the actors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nereid.model.refs import ObjectRef
from nereid.ui.effects import Effect, Quit, RunEditor, SetFollowAi, SetMouse, Yank
from nereid.ui.hints import MAX_TARGETS, hint_targets
from nereid.ui.keys import Command, Context, command_for
from nereid.ui.modes import CAMERA_MARGIN, FOLLOW_PAUSE, PANE_ORDER, Focus, HintMode, SearchMode
from nereid.ui.objects import ref_exists, selectable_objects
from nereid.ui.search import Candidate, search

if TYPE_CHECKING:
    from nereid.ui.viewmodel import ViewModel

__all__ = ["handle_key"]

# ---- keys ----------------------------------------------------------------------------


def handle_key(vm: ViewModel, key: str) -> list[Effect]:
    """Dispatch one key (tui.md §5 with §16.7's fixes); returns the effects to send.

    View changes (pan, focus, panes) are reported once per painted frame by the widget.
    """
    effects = _dispatch(vm, key)
    if vm.hint is not None and vm.focus not in (Focus.DIAGRAM, Focus.OBJECTS):
        vm.hint = None  # the tags belong to the diagram the person just left
    return effects


def _dispatch(vm: ViewModel, key: str) -> list[Effect]:
    if key == "ctrl c":
        return [Quit(0)]
    if vm.help_open:
        return _help_key(vm, key)
    if vm.search is not None and vm.search.editing:
        return _search_key(vm, key)
    if vm.search is not None and key == "esc":
        vm.search = None
        return []
    if vm.hint is not None and vm.focus in (Focus.DIAGRAM, Focus.OBJECTS):
        if key in ("/", "\\"):
            vm.hint = None
        elif key == "q":
            return [Quit(0)]
        elif key != "?":
            return _hint_key(vm, key)
    context = {
        Focus.DIAGRAM: Context.WALKTHROUGH if vm.walk_open else Context.DIAGRAM,
        Focus.OBJECTS: Context.OBJECTS,
        Focus.XREFS: Context.XREFS,
        Focus.INSPECTOR: Context.INSPECTOR,
    }[vm.focus]
    command = command_for(key, context)
    if key == "esc" and context is not Context.WALKTHROUGH:
        vm.sticky_error = None  # Esc outside any mode dismisses a kept error message
    if command is None:
        return []
    if context is Context.WALKTHROUGH:
        if command in _WALK_ONLY:
            vm.follow_paused_until = vm.clock() + FOLLOW_PAUSE
            vm.cursor_by_agent = False
            return _walk_command(vm, command)
        if command in _DIAGRAM_ONLY:
            vm.toast("Not in the walkthrough view (w returns to the diagram)")
            return []
    if command is Command.TOGGLE_NOTES and vm.search is not None:
        command = Command.NEXT_RESULT
    if command in _NAVIGATION:
        vm.follow_paused_until = vm.clock() + FOLLOW_PAUSE
        vm.cursor_by_agent = False
    return _run(vm, command, key)


def _run(vm: ViewModel, command: Command, key: str) -> list[Effect]:  # noqa: C901 - one flat table
    focus = vm.focus
    match command:
        case Command.QUIT:
            return [Quit(0)]
        case Command.HELP | Command.MESSAGES:
            vm.help_open = True
            # The message log closes the help overlay; the overlay clamps the scroll to it.
            vm.help_scroll = 10_000 if command is Command.MESSAGES else 0
            vm.search = None
            vm.hint = None
        case Command.FOCUS_DIAGRAM:
            vm.focus = Focus.DIAGRAM
        case Command.TOGGLE_OBJECTS:
            _toggle_pane(vm, Focus.OBJECTS, "Objects")
        case Command.TOGGLE_XREFS:
            _toggle_pane(vm, Focus.XREFS, "XRefs")
        case Command.TOGGLE_INSPECTOR:
            _toggle_pane(vm, Focus.INSPECTOR, "Inspector")
        case Command.WALKTHROUGH:
            if vm.walk_open:
                vm.close_walkthrough()
            else:
                vm.open_walkthrough()
        case Command.MOUSE:
            vm.mouse = not vm.mouse
            vm.toast("Mouse on (click, wheel)" if vm.mouse else "Mouse off")
            return [SetMouse(vm.mouse)]
        case Command.FOLLOW_AI:
            vm.follow_ai = not vm.follow_ai
            vm.toast("Follow AI enabled" if vm.follow_ai else "Follow AI disabled")
            effects: list[Effect] = [SetFollowAi(vm.follow_ai)]
            if vm.follow_ai:
                vm.follow_paused_until = 0.0
                effects += vm.follow(force=True)
            return effects
        case Command.DESELECT_DIAGRAM:
            return vm.deselect_diagram()
        case Command.CLEAR_SELECTION:
            if not vm.selection:
                vm.toast("Nothing is selected")
                return []
            vm.toast(f"Deselected all {len(vm.selection)} object(s)")
            return vm.set_selection([])
        case Command.SEARCH_REGEX | Command.SEARCH_FUZZY:
            vm.hint = None
            vm.search = SearchMode(
                fuzzy=command is Command.SEARCH_FUZZY, candidates=_candidates(vm)
            )
        case Command.NEXT_RESULT | Command.PREV_RESULT:
            return _cycle(vm, 1 if command is Command.NEXT_RESULT else -1)
        case Command.NEXT_PANE | Command.PREV_PANE:
            order = [p for p in PANE_ORDER if p in vm.visible]
            step = 1 if command is Command.NEXT_PANE else -1
            vm.focus = order[(order.index(focus) + step) % len(order)]
        case Command.PREV_DIAGRAM | Command.NEXT_DIAGRAM:
            ids = vm.diagram_ids
            if ids:
                index = ids.index(vm.active_id) if vm.active_id in ids else 0
                step = 1 if command is Command.NEXT_DIAGRAM else -1
                effects = vm.switch_diagram(ids[(index + step) % len(ids)])
                return [*effects, vm.human_report()]
        case Command.HINT_JUMP | Command.HINT_CHAIN if focus in (Focus.DIAGRAM, Focus.OBJECTS):
            _enter_hints(vm, chain=command is Command.HINT_CHAIN)
        case Command.EDIT if focus is Focus.DIAGRAM:
            if vm.active_id is None:
                vm.toast("External action failed: no active diagram", error=True)
                return []
            return [RunEditor(vm.active_id)]
        case Command.TOGGLE_SELECT if focus in (Focus.DIAGRAM, Focus.OBJECTS):
            return vm.toggle_select()
        case Command.YANK if focus in (Focus.DIAGRAM, Focus.OBJECTS):
            cur = vm.cursor
            if cur is None:
                vm.toast("No object selected")
                return []
            vm.toast("Yanked object ref (osc52)")
            return [Yank(str(cur))]
        case Command.XREF_IN | Command.XREF_OUT:
            return _xref_jump(vm, incoming=command is Command.XREF_IN)
        case Command.TOGGLE_NOTES:
            vm.show_notes = not vm.show_notes
        case _:
            return _pane_command(vm, command, key)
    return []


def _pane_command(vm: ViewModel, command: Command, key: str) -> list[Effect]:
    width, height = vm.viewport
    if vm.focus is Focus.DIAGRAM:
        moves = {
            Command.UP: (0, -1),
            Command.DOWN: (0, 1),
            Command.LEFT: (-1, 0),
            Command.RIGHT: (1, 0),
            Command.UP_FAR: (0, -10),
            Command.DOWN_FAR: (0, 10),
            Command.LEFT_FAR: (-10, 0),
            Command.RIGHT_FAR: (10, 0),
            Command.PAGE_UP: (0, -max(height - 1, 1)),
            Command.PAGE_DOWN: (0, max(height - 1, 1)),
        }
        if command in moves:
            vm.pan(*moves[command])
        elif command is Command.HOME:
            vm.pan_x = vm.pan_y = -CAMERA_MARGIN
            vm.pan(0, 0)
        elif command is Command.END:
            cells = vm.cells()
            if cells is not None:
                vm.pan_x = cells.width + CAMERA_MARGIN - width
                vm.pan_y = cells.height + CAMERA_MARGIN - height
                vm.pan(0, 0)
        elif command is Command.CENTER and vm.cursor is not None:
            vm.reveal_pending = vm.cursor
        return []
    if vm.focus is Focus.OBJECTS:
        if command in (Command.UP, Command.DOWN):
            return vm.move_cursor(-1 if command is Command.UP else 1)
        if command in (Command.HOME, Command.END):
            return vm.move_cursor(None, to_end=command is Command.END)
        if command is Command.FILTER:
            vm.objects_selected_only = not vm.objects_selected_only
            vm.toast(
                "Showing selected objects" if vm.objects_selected_only else "Showing all objects"
            )
        return []
    if vm.focus is Focus.XREFS:
        rows = vm.xref_rows()
        if command in (Command.UP, Command.DOWN):
            step = -1 if command is Command.UP else 1
            vm.xref_cursor = max(0, min(len(rows) - 1, vm.xref_cursor + step))
        elif command in (Command.HOME, Command.END):
            vm.xref_cursor = max(len(rows) - 1, 0) if command is Command.END else 0
        elif command is Command.FILTER:
            vm.xrefs_dangling_only = not vm.xrefs_dangling_only
            vm.xref_cursor = 0
        elif command is Command.FILTER_INVOLVING:
            vm.xrefs_involving = not vm.xrefs_involving
            vm.xref_cursor = 0
        return []
    if command in (Command.UP, Command.DOWN):
        vm.inspector_scroll = max(0, vm.inspector_scroll + (-1 if command is Command.UP else 1))
    return []


def _walk_command(vm: ViewModel, command: Command) -> list[Effect]:
    """The walkthrough view's own keys: steps, walkthroughs, going to a step's objects."""
    width, height = vm.viewport
    match command:
        case Command.UP | Command.DOWN:
            vm.walk_move(-1 if command is Command.UP else 1)
        case Command.HOME | Command.END:
            vm.walk_move(None, to_end=command is Command.END)
        case Command.PREV_DIAGRAM | Command.NEXT_DIAGRAM:
            vm.walk_switch(-1 if command is Command.PREV_DIAGRAM else 1)
        case Command.WALKTHROUGH:
            vm.close_walkthrough()
        case Command.WALK_GO:
            return vm.walk_go()
        case _:
            moves = {
                Command.LEFT: (-1, 0),
                Command.RIGHT: (1, 0),
                Command.UP_FAR: (0, -10),
                Command.DOWN_FAR: (0, 10),
                Command.LEFT_FAR: (-10, 0),
                Command.RIGHT_FAR: (10, 0),
                Command.PAGE_UP: (0, -max(height - 1, 1)),
                Command.PAGE_DOWN: (0, max(height - 1, 1)),
            }
            if command in moves:
                vm.pan(*moves[command])
    return []


def _toggle_pane(vm: ViewModel, pane: Focus, name: str) -> None:
    if pane in vm.visible and vm.focus is pane:
        vm.visible.discard(pane)
        vm.focus = next(p for p in (Focus.OBJECTS, Focus.XREFS, Focus.DIAGRAM) if p in vm.visible)
        vm.toast(f"{name} hidden")
    elif pane in vm.visible:
        vm.focus = pane
    else:
        vm.visible.add(pane)
        vm.focus = pane
        vm.toast(f"{name} shown")


def _help_key(vm: ViewModel, key: str) -> list[Effect]:
    command = command_for(key, Context.HELP)
    if key == "q":
        return [Quit(0)]
    if command is Command.HELP:
        vm.help_open = False
    elif command is Command.UP:
        vm.help_scroll = max(0, vm.help_scroll - 1)
    elif command is Command.DOWN:
        vm.help_scroll += 1
    elif command is Command.PAGE_UP:
        vm.help_scroll = max(0, vm.help_scroll - 10)
    elif command is Command.PAGE_DOWN:
        vm.help_scroll += 10
    elif command is Command.HOME:
        vm.help_scroll = 0
    elif command is Command.END:
        vm.help_scroll = 10_000
    return []


# ---- search --------------------------------------------------------------------------


def _candidates(vm: ViewModel) -> list[Candidate]:
    out = []
    for diagram_id in vm.diagram_ids:
        for item in selectable_objects(vm.diagrams[diagram_id]):
            out.append(Candidate(item.ref, f"{item.ref} {item.label}".lower()))
    out.sort(key=lambda c: c.haystack)
    return out


def _search_key(vm: ViewModel, key: str) -> list[Effect]:
    mode = vm.search
    assert mode is not None
    if key == "esc":
        vm.search = None
        return []
    if key == "enter":
        if len(mode.results) > 1:
            mode.editing = False
        else:
            vm.search = None
        return []
    if key == "backspace":
        mode.query = mode.query[:-1]
    elif len(key) == 1 and key.isprintable():
        mode.query += key
    else:
        return []
    result = search(mode.candidates, mode.query, fuzzy=mode.fuzzy, active_diagram=vm.active_id)
    mode.results, mode.error, mode.index = result.refs, result.error, 0
    if mode.results:
        return vm.jump(mode.results[0])
    return []


def _cycle(vm: ViewModel, step: int) -> list[Effect]:
    mode = vm.search
    if mode is None or len(mode.results) < 2:
        return []
    mode.index = (mode.index + step) % len(mode.results)
    return vm.jump(mode.results[mode.index])


# ---- hints ---------------------------------------------------------------------------


def _enter_hints(vm: ViewModel, *, chain: bool, previous: ObjectRef | None = None) -> None:
    cells = vm.cells()
    if cells is None:
        return
    targets = hint_targets(cells.rendered, chain=chain)
    if not targets:
        return
    if len(targets) > MAX_TARGETS:
        vm.toast(f"Too many hint targets ({len(targets)}, max {MAX_TARGETS})")
        return
    vm.hint = HintMode(chain=chain, targets=targets, previous_pick=previous)


def _hint_key(vm: ViewModel, key: str) -> list[Effect]:
    mode = vm.hint
    assert mode is not None
    if key == "esc":
        vm.hint = None
        return []
    if len(key) != 1 or not key.isprintable():
        return []
    letter = key.upper()
    if mode.first is None:
        if any(t.label[0] == letter for t in mode.targets):
            mode.first = letter
        elif mode.chain:
            vm.toast(f"No hint targets for '{letter}'")
        else:
            vm.hint = None
        return []
    code = mode.first + letter
    target = next((t for t in mode.targets if t.label == code), None)
    if target is None:
        if mode.chain:
            vm.toast("No matching hint")
        else:
            vm.hint = None
        return []
    if not mode.chain:
        vm.hint = None
        return vm.jump(target.ref)
    effects = vm.chain_pick(target.ref, mode.previous_pick)
    _enter_hints(vm, chain=True, previous=target.ref)
    return effects


# ---- xrefs ---------------------------------------------------------------------------


def _xref_jump(vm: ViewModel, *, incoming: bool) -> list[Effect]:
    if vm.focus is Focus.XREFS:
        rows = vm.xref_rows()
        if not rows:
            return []
        xref = rows[min(vm.xref_cursor, len(rows) - 1)].xref
        target = xref.from_ref if incoming else xref.to_ref
        return vm.jump(target) if ref_exists(vm.diagrams, target) else []
    cur = vm.cursor
    if cur is None:
        vm.toast("No object selected")
        return []
    matches = [
        (xid, x)
        for xid, x in sorted(vm.xrefs.items())
        if (x.to_ref if incoming else x.from_ref) == cur
    ]
    word = "incoming" if incoming else "outgoing"
    if not matches:
        vm.toast(f"No {word} xref for {cur}")
        return []
    xref_id, xref = matches[0]
    effects = vm.jump(xref.from_ref if incoming else xref.to_ref)
    if len(matches) > 1:
        vm.toast(f"{len(matches)} {word} xrefs; followed first ({xref_id})")
    return effects


_WALK_ONLY = {
    Command.UP,
    Command.DOWN,
    Command.HOME,
    Command.END,
    Command.PREV_DIAGRAM,
    Command.NEXT_DIAGRAM,
    Command.WALKTHROUGH,
    Command.WALK_GO,
    Command.LEFT,
    Command.RIGHT,
    Command.UP_FAR,
    Command.DOWN_FAR,
    Command.LEFT_FAR,
    Command.RIGHT_FAR,
    Command.PAGE_UP,
    Command.PAGE_DOWN,
}
"""Commands the walkthrough view handles itself (Diagram focus, walkthrough shown)."""

_DIAGRAM_ONLY = {
    Command.HINT_JUMP,
    Command.HINT_CHAIN,
    Command.EDIT,
    Command.TOGGLE_SELECT,
    Command.YANK,
    Command.XREF_OUT,
    Command.TOGGLE_NOTES,
}
"""Commands about the diagram's drawing or cursor: refused while the walkthrough shows."""

_NAVIGATION = {
    Command.UP,
    Command.DOWN,
    Command.HOME,
    Command.END,
    Command.NEXT_RESULT,
    Command.PREV_RESULT,
    Command.PREV_DIAGRAM,
    Command.NEXT_DIAGRAM,
    Command.XREF_IN,
    Command.XREF_OUT,
    Command.HINT_JUMP,
    Command.SEARCH_REGEX,
    Command.SEARCH_FUZZY,
    Command.WALKTHROUGH,
    Command.WALK_GO,
}
