"""What each pane paints, as rows of styled runs, from a `ViewModel` snapshot (tui.md §4).

Pure functions of the view model: no urwid widgets and no actor calls, so tests can check
them by text. `nereid/ui/widgets.py` lays them out and turns them into canvases.
"""

from __future__ import annotations

from nereid.model.refs import ObjectRef
from nereid.ui.canvas import Rows, Run, clip_runs, runs_width, wrap_runs
from nereid.ui.highlight import Marks, styled_rows
from nereid.ui.keys import help_sections
from nereid.ui.mirror import spotlight_title
from nereid.ui.modes import Focus
from nereid.ui.objects import find_object, object_index
from nereid.ui.pane_state import scrolled
from nereid.ui.viewmodel import ViewModel

__all__ = [
    "BRAND",
    "diagram_marks",
    "diagram_rows",
    "diagram_title",
    "help_rows",
    "inspector_rows",
    "objects_rows",
    "status_row",
    "xrefs_rows",
]

BRAND = " NEREID "


def owner_border(vm: ViewModel, pane: Focus) -> str:
    if vm.panes.focus is not pane:
        return "border"
    return "border_agent" if vm.cursors.by_agent else "border_human"


def walkthrough_title(vm: ViewModel) -> list[Run]:
    """`[1]─ Walkthrough [i/N] <id> · <title> r<rev> step <node>` (the walkthrough view)."""
    border = owner_border(vm, Focus.DIAGRAM)
    ids = sorted(vm.session.walkthroughs)
    walk = vm.walk.walkthrough
    index = ids.index(walk.walkthrough_id) + 1 if walk is not None else 0
    digits = len(str(len(ids)))
    runs: list[Run] = [
        (border, "[1]─ Walkthrough "),
        ("counter", f"[{index:0{digits}d}/{len(ids)}]"),
        (border, " "),
    ]
    if walk is None:
        return [*runs, ("title", "—"), (border, " ")]
    runs.append(("title", walk.walkthrough_id))
    if walk.title:
        runs.append(("title_dim", f" · {walk.title}"))
    runs.append(("title_dim", f" r{walk.rev}"))
    node = vm.walk.node()
    if node is not None:
        position = [n.node_id for n in walk.nodes].index(node.node_id) + 1
        runs.append(("title_dim", f" step {position}/{len(walk.nodes)}"))
    runs.append((border, " "))
    return runs


def diagram_title(vm: ViewModel) -> list[Run]:
    if vm.walk.is_open:
        return walkthrough_title(vm)
    border = owner_border(vm, Focus.DIAGRAM)
    ids = vm.session.diagram_ids
    total = len(ids)
    digits = len(str(total))
    index = ids.index(vm.active_id) + 1 if vm.active_id in ids else 0
    counter = f"[{index:0{digits}d}/{total}]" if total else "[0/0]"
    active = vm.active
    id_style = "title" if vm.panes.focus is Focus.DIAGRAM else "title_dim"
    runs: list[Run] = [(border, "[1]─ Diagram "), ("counter", counter), (border, " ")]
    if active is None:
        runs.append((id_style, "—"))
    else:
        runs.append((id_style, active.diagram_id))
        if active.name and active.name != active.diagram_id:
            runs.append(("title_dim", f" · {active.name}"))
        runs.append(("title_dim", f" r{active.rev}"))
        behind = vm.layout_behind()
        if behind is not None:
            runs.append(("title_dim", f" · updating (showing r{behind})"))
        elif vm.layout_provisional():
            runs.append(("title_dim", " · updating (label patched, laying out)"))
    runs.append((border, " "))
    return runs


def hint_marks(vm: ViewModel) -> dict[tuple[int, int], tuple[str, str]]:
    """Cells covered by hint tags (after a first letter only the matching tags)."""
    marks: dict[tuple[int, int], tuple[str, str]] = {}
    mode = vm.modes.hint
    if mode is None:
        return marks
    for target in mode.targets:
        if mode.first is not None and target.label[0] != mode.first:
            continue
        first_style = "hint_typed" if mode.first is not None else "hint"
        marks[(target.row, target.col)] = (target.label[0], first_style)
        marks[(target.row, target.col + 1)] = (target.label[1], "hint")
    return marks


def diagram_rows(vm: ViewModel, width: int, height: int) -> Rows:
    """The Diagram pane's interior: the panned, highlighted rendering."""
    vm.set_viewport(width, height)
    if vm.walk.is_open:
        return walkthrough_rows(vm, width, height)
    active = vm.active
    if active is None:
        return [[("default", "No diagrams in session")]]
    cells = vm.cells()
    if cells is None and vm.layout_pending():
        return wrap_runs(f"Laying out {active.diagram_id} r{active.rev}…", "default", width)
    if cells is None:
        return wrap_runs(f"Diagram render error:\n{vm.render_error()}", "default", width)
    marks, dim = diagram_marks(vm)
    pan_x, pan_y = vm.camera.pan_x, vm.camera.pan_y
    return styled_rows(cells, marks, range(pan_y, pan_y + height), pan_x, width, dim)


def diagram_marks(vm: ViewModel) -> tuple[Marks, bool]:
    """Who looks at what in the active diagram, and whether its unselected cells are dim
    (a selection in it): what `diagram_rows` styles the drawing with."""
    session = vm.session
    slots = session.agent_slots()
    marks = Marks(
        cursor=vm.cursor,
        cursor_by_agent=vm.cursors.by_agent,
        selection=frozenset(session.selection),
        spotlights=tuple(
            (slots[s.agent_id], s.object_ref)
            for s in session.spotlights
            if s.object_ref is not None and s.object_ref.diagram_id == vm.active_id
        ),
        hints=hint_marks(vm),
    )
    dim = any(ref.diagram_id == vm.active_id for ref in session.selection)
    return marks, dim


def walkthrough_rows(vm: ViewModel, width: int, height: int) -> Rows:
    """The walkthrough view: its rendering with the step under the cursor highlighted."""
    walk = vm.walk.walkthrough
    if walk is None:
        return [[("default", "No walkthrough")]]
    if not walk.nodes:
        return [[("default", f"Walkthrough {walk.walkthrough_id} has no steps yet")]]
    cells = vm.walk.cells()
    if cells is None:
        return wrap_runs(f"Walkthrough render error:\n{vm.render_error()}", "default", width)
    marks = Marks(cursor=vm.walk.cursor_ref(), cursor_by_agent=False)
    pan_x, pan_y = vm.camera.pan_x, vm.camera.pan_y
    return styled_rows(cells, marks, range(pan_y, pan_y + height), pan_x, width, False)


def objects_rows(vm: ViewModel, width: int, height: int) -> tuple[list[Run], Rows]:
    border = owner_border(vm, Focus.OBJECTS)
    title: list[Run] = [(border, "[2]─ Objects ")]
    if vm.panes.objects_selected_only:
        title.append((border, "— selected only "))
    items = vm.objects()
    cursor = vm.cursor
    chosen = set(vm.session.selection)
    focused = vm.panes.focus is Focus.OBJECTS
    index = (object_index(items, cursor) if cursor is not None else None) or 0
    scroll = vm.panes.scroll_objects_to(index, len(items), height)
    # Each object shows the spotlight marker in its agent's style; where agents overlap,
    # the lowest style slot wins, as in the diagram pane.
    slots = vm.session.agent_slots()
    agent_slot: dict[ObjectRef, int] = {}
    for spot in vm.session.spotlights:
        slot = slots[spot.agent_id]
        if spot.object_ref is not None:
            agent_slot[spot.object_ref] = min(slot, agent_slot.get(spot.object_ref, slot))
    rows: Rows = []
    for item in items[scroll : scroll + height]:
        selected = item.ref in chosen
        is_cursor = item.ref == cursor
        if is_cursor and selected:
            style = "row_cursor" if focused else "row_selected"
        elif is_cursor:
            style = "row_cursor_agent" if vm.cursors.by_agent else "row_cursor"
        elif selected:
            style = "row_selected"
        else:
            style = "row_dim" if chosen else "row"
        mark = "◼" if selected else "◻"
        slot_here = agent_slot.get(item.ref)
        runs: list[Run] = [
            ("row_marker", mark),
            (f"agent{slot_here}", "◉") if slot_here is not None else ("row", " "),
        ]
        runs.append((style, item.label))
        rows.append(clip_runs(runs, width, style if is_cursor else "default"))
    if not items:
        rows.append([("row_dim", "(no objects)")])
    return title, rows


def xrefs_rows(vm: ViewModel, width: int, height: int) -> tuple[list[Run], Rows]:
    border = owner_border(vm, Focus.XREFS)
    tails = []
    if vm.panes.xrefs_dangling_only:
        tails.append("dangling only")
    if vm.panes.xrefs_involving:
        tails.append("involving selection")
    title: list[Run] = [(border, "[3]─ XRefs ")]
    if tails:
        title.append((border, "— " + ", ".join(tails) + " "))
    rows_data = vm.xref_rows()
    xref_cursor = vm.panes.clamp_xref_cursor(len(rows_data))
    scroll = scrolled(len(rows_data), xref_cursor, 0, height)
    cursor = vm.cursor
    rows: Rows = []
    for index, item in enumerate(rows_data[scroll : scroll + height], start=scroll):
        prefix = ""
        if cursor is not None:
            outgoing = item.xref.from_ref == cursor
            incoming = item.xref.to_ref == cursor
            prefix = (
                "▾▴ " if outgoing and incoming else "▴ " if outgoing else "▾ " if incoming else ""
            )
        if index == xref_cursor and vm.panes.focus is Focus.XREFS:
            style = "row_cursor_agent" if vm.cursors.by_agent else "row_cursor"
        elif prefix:
            style = "row_involved"
        elif item.status == "ok":
            style = "row"
        else:
            style = "row_dangling"
        rows.append(clip_runs([(style, prefix + item.label)], width, style))
    if not rows_data:
        rows.append([("row_dim", "(no xrefs)")])
    return title, rows


def walk_step_lines(vm: ViewModel) -> tuple[str, list[str]]:
    """The Inspector's title and lines for the walkthrough step under the cursor: what a
    person needs first (title, the objects `g` goes to) comes first, the body last."""
    walk = vm.walk.walkthrough
    node = vm.walk.node()
    if walk is None or node is None:
        return "[4]─ Inspector — step ", ["No step"]
    status = f" [{node.status}]" if node.status else ""
    lines = [f"{node.title or node.node_id}{status}"]
    for number, target in enumerate(node.refs, start=1):
        missing = "" if vm.session.ref_exists(target) else " (missing)"
        lines.append(f"g{number} {target}{missing}")
    if not node.refs:
        lines.append("(points at no object)")
    if node.tags:
        lines.append("Tags: " + ", ".join(node.tags))
    for edge in walk.edges:
        if edge.from_node_id == node.node_id:
            label = f" ({edge.label})" if edge.label else ""
            lines.append(f"→ {edge.to_node_id} [{edge.kind}]{label}")
    if node.body_md:
        lines.append("")
        lines.extend(node.body_md.splitlines())
    return f"[4]─ Inspector — step {node.node_id} ", lines


def inspector_rows(vm: ViewModel, width: int, height: int) -> tuple[list[Run], Rows]:
    border = owner_border(vm, Focus.INSPECTOR)
    focus = vm.panes.focus
    exists = vm.session.ref_exists
    if vm.walk.is_open and focus is not Focus.XREFS:
        title_text, lines = walk_step_lines(vm)
        title = [(border, title_text)]
    elif focus is Focus.XREFS:
        rows_data = vm.xref_rows()
        if not rows_data:
            return [(border, "[4]─ Inspector — XRef ")], [[("inspector", "No selection")]]
        item = rows_data[min(vm.panes.xref_cursor, len(rows_data) - 1)]
        x = item.xref
        lines = [
            f"ID: {item.xref_id}",
            f"Kind: {x.kind}",
            f"Status: {item.status}",
            f"Label: {x.label or '—'}",
            f"From: {x.from_ref}" + ("" if exists(x.from_ref) else " (missing)"),
            f"To: {x.to_ref}" + ("" if exists(x.to_ref) else " (missing)"),
        ]
        title = [(border, f"[4]─ Inspector — XRef {item.xref_id} ({item.status}) ")]
    else:
        cursor = vm.cursor
        obj = find_object(vm.objects(), cursor) if cursor is not None and vm.active else None
        if cursor is None or obj is None:
            return [(border, "[4]─ Inspector ")], [[("inspector", "No selection")]]
        lines = [
            f"Label: {obj.label}",
            f"Note: {obj.note or '—'}",
            f"Ref: {cursor}",
            f"Diagram: {cursor.diagram_id}",
            f"Category: {'/'.join(cursor.category)}",
            f"Object: {cursor.object_id}",
        ]
        watchers = [spotlight_title(s) for s in vm.session.spotlights if s.object_ref == cursor]
        if watchers:
            lines.append("Agents here: " + ", ".join(watchers))
        if cursor in vm.session.selection:
            lines.append("Selected: yes")
        title = [(border, f"[4]─ Inspector — {cursor} ")]
    rows: Rows = []
    for line in lines:
        rows.extend(wrap_runs(line, "inspector", width))
    return title, rows[vm.panes.clamp_inspector(len(rows), height) :]


def _entry(label: str, value: str, disabled: bool = False) -> list[Run]:
    return [
        ("status_label", f"{label}:"),
        ("status_disabled" if disabled else "status_value", value),
    ]


def _key_hints(vm: ViewModel, compact: bool) -> list[Run]:
    """The key-hint entries for the focus and mode (tui.md §4.6)."""
    sep: Run = ("status_label", " | ")
    entries: list[list[Run]] = []
    hint, focus = vm.modes.hint, vm.panes.focus
    if hint is not None:
        entries.append(_entry("Chain" if hint.chain else "Hint", "2 letters"))
        entries.append(_entry("Done" if hint.chain else "Cancel", "Esc"))
    elif vm.walk.is_open and focus is Focus.DIAGRAM:
        for label, value in (("Step", "↑↓"), ("Go", "g"), ("Walk", "[]"), ("Back", "w")):
            entries.append(_entry(label, value))
            if compact:
                break
    elif compact:
        entries.append(_entry("Hint", "f"))
    elif focus is Focus.DIAGRAM:
        for label, value in (
            ("Diagram", "[]"),
            ("Hint", "f"),
            ("Chain", "c"),
            ("Edit", "e"),
            ("Select", "␣"),
            ("Xref", "g/t"),
            ("Notes", "n◼" if vm.panes.show_notes else "n◻"),
        ):
            entries.append(_entry(label, value))
    elif focus is Focus.OBJECTS:
        for label, value in (("Select", "␣"), ("Filter", "-"), ("Hint", "f"), ("Jump", "g/t")):
            entries.append(_entry(label, value))
    elif focus is Focus.XREFS:
        for label, value in (("Filter", "-/I"), ("Jump", "g/t"), ("Diagram", "[]")):
            entries.append(_entry(label, value))
    entries.append(_entry("Ai", "a◼" if vm.following.enabled else "a◻"))
    entries += [_entry("Help", "?"), _entry("Quit", "q")]
    left: list[Run] = []
    for index, entry in enumerate(entries):
        if index:
            left.append(sep)
        left += entry
    return left


def _trim_separators(runs: list[Run]) -> list[Run]:
    """Clipped key hints without the dangling ` | ` (or padding) a cut leaves at the end."""
    out = list(runs)
    while out:
        style, text = out[-1]
        trimmed = text.rstrip(" |")
        if trimmed:
            out[-1] = (style, trimmed)
            break
        out.pop()
    return out


def _mcp_entry(url: str | None, width: int) -> list[Run]:
    """Where agents connect: the whole URL (what a person copies into a host's config), or
    just the port where the line has no room for it (`width` under 80 columns)."""
    if not url:
        return []
    if width >= 80:
        return [("status_label", " MCP "), ("status_value", url), ("status", " ")]
    port = url.rsplit(":", 1)[-1].split("/", 1)[0]
    return [("status_label", " Mcp:"), ("status_value", port), ("status", " ")]


def status_row(vm: ViewModel, width: int, compact: bool) -> list[Run]:
    """The bottom line: key hints or the search line, the message, MCP URL and brand."""
    sep: Run = ("status_label", " | ")
    message = vm.toasts.current()
    # A message shortens the URL to its port: what just happened matters more then.
    right = _mcp_entry(vm.mcp_url, width if message is None else 0)
    right.append(("brand", BRAND))
    for problem in (vm.file_problem(), vm.session.save_problem()):
        if problem is not None:  # stays until the folder has everything again
            right = [("status_error", f" {problem} "), *right]
    room = width - runs_width(right)
    mode = vm.modes.search
    if mode is not None:
        left = [
            ("status_value", "\\" if mode.fuzzy else "/"),
            ("status", mode.query),
            ("status", "   "),
        ]
        if mode.pending:
            left.append(("status_count", "searching…"))
        elif mode.error:
            left.append(("status_error", mode.error))
        elif mode.query:
            count = f"{mode.index + 1}/{len(mode.results)}" if mode.results else "0"
            left.append(("status_count", count))
        if not mode.editing:
            left += [sep, *_entry("Next", "n/N")]
        left += [sep, *_entry("Accept", "Enter"), sep, *_entry("Close", "Esc")]
    else:
        left = _key_hints(vm, compact)
        if runs_width(left) > room:
            left = _key_hints(vm, True)
    if message is not None:
        msg_style = "status_error" if message.error else "status"
        text = message.text
        # The message wins over key hints when space is short: it is what just happened.
        budget = max(room - runs_width(left) - 3, 0)
        if budget < min(len(text), 30):
            left = _trim_separators(clip_runs(left, max(room - min(len(text), room) - 3, 0)))
        left = [*left, sep, (msg_style, text)] if left else [(msg_style, text)]
    return [*clip_runs(left, max(room, 0), "status"), *right]


def help_rows(vm: ViewModel, width: int) -> Rows:
    """The help overlay's lines, built from the key table (never hand-written)."""
    rows: Rows = []
    if vm.mcp_url:
        rows.append([("help_header", "MCP "), ("status_value", vm.mcp_url)])
    else:
        rows.append([("help_header", "MCP "), ("status_disabled", "not serving")])
    rows.append([])
    sections = help_sections()
    key_width = max(len(keys) for _title, entries in sections for keys, _d in entries)
    for title, entries in sections:
        rows.append([("help_header", f"--- {title} ---")])
        for keys, description in entries:
            room = max(width - key_width - 2, 10)
            lines = [r[0][1] for r in wrap_runs(description, "default", room)]
            rows.append([("help_key", keys.rjust(key_width)), ("default", "  " + lines[0])])
            rows += [[("default", " " * (key_width + 2) + line)] for line in lines[1:]]
        rows.append([])
    rows.append([("help_header", "--- Styles ---")])
    rows.append(
        [
            ("human", " you "),
            ("default", " "),
            ("agent0", " agent "),
            ("default", " "),
            ("both", " you+agent "),
            ("default", " "),
            ("selected", " selected "),
            ("default", " "),
            ("hint", " AS "),
            ("default", " hint"),
        ]
    )
    rows.extend(_agent_legend(vm, width))
    rows.append([])
    rows.append([("help_header", "--- Messages ---")])
    for message in vm.toasts.messages[-20:]:
        rows.extend(wrap_runs(message.text, "status_error" if message.error else "dim", width))
    return rows


def _agent_legend(vm: ViewModel, width: int) -> Rows:
    """Who each spotlight style stands for now: one `name (agent id)` per agent, drawn in
    that agent's style, wrapped to `width` (nothing while no agent has a spotlight)."""
    slots = vm.session.agent_slots()
    head = "Agents:"
    rows: Rows = []
    line: list[Run] = [("help_header", head)]
    for spot in sorted(vm.session.spotlights, key=lambda s: slots[s.agent_id]):
        idle = " (idle)" if spot.idle else ""
        chip: Run = (f"agent{slots[spot.agent_id]}", f" {spotlight_title(spot)}{idle} ")
        if len(line) > 1 and runs_width(line) + 1 + runs_width([chip]) > width:
            rows.append(clip_runs(line, width))
            line = [("default", " " * len(head))]
        line += [("default", " "), chip]
    if len(line) > 1:
        rows.append(clip_runs(line, width))
    return rows
