"""Key dispatch for the view model (tui.md §5-§9 with §16.7's fixes).

`handle_key(vm, key)` runs the `KEY_BINDINGS` command for the key in the current mode and
focus, changing only view state (and the view model's optimistic copy of the selection)
through the view-model parts' own methods, and returns the `Effect`s to send to the actors.
"""

from __future__ import annotations

from nereid.model.refs import ObjectRef
from nereid.ui.effects import Effect, Quit, RunEditor, SetMouse, Yank
from nereid.ui.hints import MAX_TARGETS, hint_targets
from nereid.ui.keys import Command, Context, command_for
from nereid.ui.modes import Focus, HintMode
from nereid.ui.objects import selectable_objects
from nereid.ui.pane_state import HELP_END
from nereid.ui.search import Candidate, search
from nereid.ui.viewmodel import ViewModel

__all__ = ["handle_key"]

# ---- keys ----------------------------------------------------------------------------


def handle_key(vm: ViewModel, key: str) -> list[Effect]:
    """Dispatch one key (tui.md §5 with §16.7's fixes); returns the effects to send.

    View changes (pan, focus, panes) are reported once per painted frame by the widget.
    """
    effects = _dispatch(vm, key)
    if vm.modes.hint is not None and vm.panes.focus not in (Focus.DIAGRAM, Focus.OBJECTS):
        vm.modes.cancel_hints()  # the tags belong to the diagram the person just left
    return effects


def _dispatch(vm: ViewModel, key: str) -> list[Effect]:
    if key == "ctrl c":
        return [Quit(0)]
    search_mode, hint_mode = vm.modes.search, vm.modes.hint
    if vm.panes.help_open:
        return _help_key(vm, key)
    if search_mode is not None and search_mode.editing:
        return _search_key(vm, key)
    if search_mode is not None and key == "esc":
        vm.modes.close_search()
        return []
    if hint_mode is not None and vm.panes.focus in (Focus.DIAGRAM, Focus.OBJECTS):
        if key in ("/", "\\"):
            vm.modes.cancel_hints()
        elif key == "q":
            return [Quit(0)]
        elif key != "?":
            return _hint_key(vm, key)
    context = {
        Focus.DIAGRAM: Context.WALKTHROUGH if vm.walk.is_open else Context.DIAGRAM,
        Focus.OBJECTS: Context.OBJECTS,
        Focus.XREFS: Context.XREFS,
        Focus.INSPECTOR: Context.INSPECTOR,
    }[vm.panes.focus]
    command = command_for(key, context)
    if key == "esc" and context is not Context.WALKTHROUGH:
        vm.toasts.dismiss_sticky()  # Esc outside any mode dismisses a kept error message
    if command is None:
        return []
    if context is Context.WALKTHROUGH:
        if command in _WALK_ONLY:
            vm.navigated()
            return _walk_command(vm, command)
        if command in _DIAGRAM_ONLY:
            vm.toast("Not in the walkthrough view (w returns to the diagram)")
            return []
    if command is Command.TOGGLE_NOTES and vm.modes.search is not None:
        command = Command.NEXT_RESULT
    if command in _NAVIGATION:
        vm.navigated()
    return _run(vm, command, key)


def _run(vm: ViewModel, command: Command, key: str) -> list[Effect]:  # noqa: C901 - one flat table
    focus = vm.panes.focus
    match command:
        case Command.QUIT:
            return [Quit(0)]
        case Command.HELP | Command.MESSAGES:
            # The message log closes the help overlay; the overlay clamps the scroll to it.
            vm.open_help(at_end=command is Command.MESSAGES)
        case Command.FOCUS_DIAGRAM:
            vm.panes.focus_on(Focus.DIAGRAM)
        case Command.TOGGLE_OBJECTS:
            _toggle_pane(vm, Focus.OBJECTS, "Objects")
        case Command.TOGGLE_XREFS:
            _toggle_pane(vm, Focus.XREFS, "XRefs")
        case Command.TOGGLE_INSPECTOR:
            _toggle_pane(vm, Focus.INSPECTOR, "Inspector")
        case Command.WALKTHROUGH:
            if vm.walk.is_open:
                vm.close_walkthrough()
            else:
                vm.open_walkthrough()
        case Command.MOUSE:
            mouse = vm.panes.toggle_mouse()
            vm.toast("Mouse on (click, wheel)" if mouse else "Mouse off")
            return [SetMouse(mouse)]
        case Command.FOLLOW_AI:
            return vm.toggle_follow_ai()
        case Command.DESELECT_DIAGRAM:
            return vm.deselect_diagram()
        case Command.CLEAR_SELECTION:
            return vm.clear_selection()
        case Command.SEARCH_REGEX | Command.SEARCH_FUZZY:
            vm.modes.start_search(fuzzy=command is Command.SEARCH_FUZZY, candidates=_candidates(vm))
        case Command.NEXT_RESULT | Command.PREV_RESULT:
            return _cycle(vm, 1 if command is Command.NEXT_RESULT else -1)
        case Command.NEXT_PANE | Command.PREV_PANE:
            vm.panes.cycle(1 if command is Command.NEXT_PANE else -1)
        case Command.PREV_DIAGRAM | Command.NEXT_DIAGRAM:
            ids = vm.session.diagram_ids
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
            vm.panes.toggle_notes()
        case _:
            return _pane_command(vm, command, key)
    return []


def _pane_command(vm: ViewModel, command: Command, key: str) -> list[Effect]:
    width, height = vm.camera.viewport
    focus = vm.panes.focus
    if focus is Focus.DIAGRAM:
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
            vm.camera.home(vm.view_cells())
        elif command is Command.END:
            cells = vm.cells()
            if cells is not None:
                vm.camera.end(cells)
        elif command is Command.CENTER and vm.cursor is not None:
            vm.camera.reveal(vm.cursor)
        return []
    if focus is Focus.OBJECTS:
        if command in (Command.UP, Command.DOWN):
            return vm.move_cursor(-1 if command is Command.UP else 1)
        if command in (Command.HOME, Command.END):
            return vm.move_cursor(None, to_end=command is Command.END)
        if command is Command.FILTER:
            selected_only = vm.panes.toggle_selected_only()
            vm.toast("Showing selected objects" if selected_only else "Showing all objects")
        return []
    if focus is Focus.XREFS:
        rows = vm.xref_rows()
        if command in (Command.UP, Command.DOWN):
            vm.panes.move_xref_cursor(-1 if command is Command.UP else 1, len(rows))
        elif command in (Command.HOME, Command.END):
            vm.panes.xref_cursor_to(len(rows) - 1 if command is Command.END else 0)
        elif command is Command.FILTER:
            vm.panes.toggle_dangling_only()
        elif command is Command.FILTER_INVOLVING:
            vm.panes.toggle_involving()
        return []
    if command in (Command.UP, Command.DOWN):
        vm.panes.scroll_inspector(-1 if command is Command.UP else 1)
    return []


def _walk_command(vm: ViewModel, command: Command) -> list[Effect]:
    """The walkthrough view's own keys: steps, walkthroughs, going to a step's objects."""
    width, height = vm.camera.viewport
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
    shown = vm.panes.toggle(pane)
    if shown is not None:
        vm.toast(f"{name} shown" if shown else f"{name} hidden")


def _help_key(vm: ViewModel, key: str) -> list[Effect]:
    command = command_for(key, Context.HELP)
    if key == "q":
        return [Quit(0)]
    panes = vm.panes
    if command is Command.HELP:
        panes.close_help()
    elif command is Command.UP:
        panes.scroll_help(-1)
    elif command is Command.DOWN:
        panes.scroll_help(1)
    elif command is Command.PAGE_UP:
        panes.scroll_help(-10)
    elif command is Command.PAGE_DOWN:
        panes.scroll_help(10)
    elif command is Command.HOME:
        panes.scroll_help_to(0)
    elif command is Command.END:
        panes.scroll_help_to(HELP_END)
    return []


# ---- search --------------------------------------------------------------------------


def _candidates(vm: ViewModel) -> list[Candidate]:
    out = []
    diagrams = vm.session.diagrams
    for diagram_id in vm.session.diagram_ids:
        for item in selectable_objects(diagrams[diagram_id]):
            out.append(Candidate(item.ref, f"{item.ref} {item.label}".lower()))
    out.sort(key=lambda c: c.haystack)
    return out


def _search_key(vm: ViewModel, key: str) -> list[Effect]:
    mode = vm.modes.search
    assert mode is not None
    if key == "esc":
        vm.modes.close_search()
        return []
    if key == "enter":
        if not mode.accept():
            vm.modes.close_search()
        return []
    if not mode.edit(key):
        return []
    if mode.query.strip() and vm.modes.search_off_loop(vm.active_id):
        return []  # the app runs it; `ViewModel.searched` takes the answer
    result = search(mode.candidates, mode.query, fuzzy=mode.fuzzy, active_diagram=vm.active_id)
    first = mode.found(result)
    return vm.jump(first) if first is not None else []


def _cycle(vm: ViewModel, step: int) -> list[Effect]:
    mode = vm.modes.search
    target = mode.step(step) if mode is not None else None
    return vm.jump(target) if target is not None else []


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
    vm.modes.start_hints(HintMode(chain=chain, targets=targets, previous_pick=previous))


def _hint_key(vm: ViewModel, key: str) -> list[Effect]:
    mode = vm.modes.hint
    assert mode is not None
    if key == "esc":
        vm.modes.cancel_hints()
        return []
    if len(key) != 1 or not key.isprintable():
        return []
    letter = key.upper()
    if mode.first is None:
        if not mode.type_first(letter):
            if mode.chain:
                vm.toast(f"No hint targets for '{letter}'")
            else:
                vm.modes.cancel_hints()
        return []
    code = mode.first + letter
    target = next((t for t in mode.targets if t.label == code), None)
    if target is None:
        if mode.chain:
            vm.toast("No matching hint")
        else:
            vm.modes.cancel_hints()
        return []
    if not mode.chain:
        vm.modes.cancel_hints()
        return vm.jump(target.ref)
    effects = vm.chain_pick(target.ref, mode.previous_pick)
    _enter_hints(vm, chain=True, previous=target.ref)
    return effects


# ---- xrefs ---------------------------------------------------------------------------


def _xref_jump(vm: ViewModel, *, incoming: bool) -> list[Effect]:
    if vm.panes.focus is Focus.XREFS:
        rows = vm.xref_rows()
        if not rows:
            return []
        xref = rows[min(vm.panes.xref_cursor, len(rows) - 1)].xref
        target = xref.from_ref if incoming else xref.to_ref
        return vm.jump(target) if vm.session.ref_exists(target) else []
    cur = vm.cursor
    if cur is None:
        vm.toast("No object selected")
        return []
    matches = [
        (xid, x)
        for xid, x in sorted(vm.session.xrefs.items())
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
