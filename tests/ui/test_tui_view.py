"""The TUI without a terminal: keys in, widget `render(...).text` and effects out."""

from __future__ import annotations

import re

import msgspec
import pytest

from nereid.actors import protocol as p
from nereid.model.flowchart import FlowchartAst
from nereid.ops import Delta
from nereid.ui import effects as fx
from nereid.ui.modes import FOLLOW_PAUSE, Focus

from .tui_helpers import Screen, demo_state, ref, spotlights

BROWSE = ref("d:index/flow/node/n:browse")
ORDER = ref("d:index/flow/node/n:order")


def test_startup_shows_diagram_title_status_and_mcp_url() -> None:
    screen = Screen()
    lines = screen.render()
    assert lines[0].startswith("┌─[1]─ Diagram [3/8] index")
    assert "Browse the catalog" in screen.text()
    assert "MCP http://127.0.0.1:5555/mcp" in lines[-1]  # the start-up message says where
    screen.clock.now += 10
    assert screen.render()[-1].rstrip().endswith("MCP http://127.0.0.1:5555/mcp  NEREID")
    # The first cursor is the first node, not the first edge (tui.md §16.10).
    assert screen.vm.cursor == BROWSE


def test_usable_at_80x24_and_resizes() -> None:
    screen = Screen(size=(80, 24))
    screen.press("2", "3")
    lines = screen.render()
    assert len(lines) == 24 and all(len(line) == 80 for line in lines)
    # The whole MCP URL, which a person copies into an agent host, fits at 80 columns.
    screen.clock.now += 10
    assert screen.render()[-1].rstrip().endswith("MCP http://127.0.0.1:5555/mcp  NEREID")
    assert any("[2]─ Objects" in line for line in lines)
    assert any("[3]─ XRefs" in line for line in lines)
    screen.size = (150, 50)
    lines = screen.render()
    assert len(lines) == 50
    # Wide: side by side, so the Objects title shares the first row with the Diagram's.
    assert "[1]─ Diagram" in lines[0] and "[2]─ Objects" in lines[0]


def test_objects_pane_cursor_moves_and_reports_attention() -> None:
    screen = Screen()
    screen.press("2")
    assert screen.vm.panes.focus is Focus.OBJECTS
    screen.effects.clear()
    screen.press("j")
    assert screen.vm.cursor == ref("d:index/flow/node/n:checkout")
    checkout = ref("d:index/flow/node/n:checkout")
    assert p.ReportHumanAttention(diagram_id="index", object_ref=checkout) in screen.effects
    assert "Label: node n:checkout" not in screen.text()
    screen.press("4")
    assert "Label: node n:checkout (▴" not in screen.text()
    assert "Ref: d:index/flow/node/n:checkout" in screen.text()


def test_space_selects_and_sends_the_whole_selection() -> None:
    screen = Screen()
    screen.press(" ")
    assert screen.effects[-1] == p.UpdateSelection(object_refs=(BROWSE,))
    assert "Selected d:index/flow/node/n:browse" in screen.text()
    screen.press("d")
    assert screen.effects[-1] == p.UpdateSelection(object_refs=())


def test_regex_search_jumps_and_cycles() -> None:
    screen = Screen()
    screen.press("/", *"n:(pay|ship)$".replace("$", ""))
    assert screen.vm.modes.search is not None and len(screen.vm.modes.search.results) >= 2
    first = screen.vm.cursor
    assert first is not None and first.object_id in ("n:pay", "n:ship")
    status = screen.render()[-1]
    assert status.startswith("/n:(pay|ship)   1/")
    screen.press("enter", "n")
    assert screen.vm.cursor != first
    screen.press("esc")
    assert screen.vm.modes.search is None


def test_search_editing_takes_q_and_digits_literally() -> None:
    screen = Screen()
    screen.press("\\", "q", "2")
    assert screen.vm.modes.search is not None and screen.vm.modes.search.query == "q2"
    assert Focus.OBJECTS not in screen.vm.panes.visible


def test_hint_jump_moves_the_cursor_to_the_labelled_object() -> None:
    screen = Screen()
    screen.press("f")
    mode = screen.vm.modes.hint
    assert mode is not None
    target = next(t for t in mode.targets if t.ref == ORDER)
    # The tag is painted on the diagram.
    assert any(target.label in line for line in screen.render())
    screen.press(*target.label.lower())
    assert screen.vm.modes.hint is None
    assert screen.vm.cursor == ORDER


def test_chain_selects_nodes_and_the_edge_between_them() -> None:
    screen = Screen()
    screen.press("c")
    mode = screen.vm.modes.hint
    assert mode is not None
    label = {t.ref: t.label for t in mode.targets}
    screen.press(*label[BROWSE].lower())
    mode = screen.vm.modes.hint
    assert mode is not None
    label = {t.ref: t.label for t in mode.targets}
    screen.press(*label[ORDER].lower(), "esc")
    assert set(screen.vm.session.selection) == {BROWSE, ORDER, ref("d:index/flow/edge/e:0002")}


def test_xref_jump_switches_diagram() -> None:
    screen = Screen()
    screen.vm.jump(ORDER)
    screen.press("t")
    assert screen.vm.active_id == "order-flow"
    assert screen.vm.cursor == ref("d:order-flow/flow/node/n:placed")
    assert p.OpenDiagram(diagram_id="order-flow") in screen.effects


def test_someone_elses_edit_keeps_pan_and_cursor() -> None:
    screen = Screen()
    screen.press("2", "j", "1", "l", "l", "j")
    pan = (screen.vm.camera.pan_x, screen.vm.camera.pan_y)
    cursor = screen.vm.cursor
    diagram = screen.vm.session.diagrams["index"]
    assert isinstance(diagram.ast, FlowchartAst)
    node = diagram.ast.nodes["n:shop"]
    nodes = dict(diagram.ast.nodes)
    nodes["n:shop"] = msgspec.structs.replace(node, label="Agent renamed")
    changed = msgspec.structs.replace(
        diagram, rev=diagram.rev + 1, ast=msgspec.structs.replace(diagram.ast, nodes=nodes)
    )
    screen.vm.apply(p.DiagramChanged(diagram=changed, delta=Delta()))
    text = screen.text()
    assert (screen.vm.camera.pan_x, screen.vm.camera.pan_y) == pan
    assert screen.vm.cursor == cursor
    assert f"r{diagram.rev + 1}" in screen.render()[0]
    assert "Agent renamed" in text or "Agent" in text


def test_selection_from_elsewhere_is_shown() -> None:
    screen = Screen()
    screen.press("2")
    screen.vm.apply(p.SelectionChanged(object_refs=(ORDER,)))
    assert any("◼ node n:order" in line for line in screen.render())


def test_follow_ai_is_edge_triggered_and_paused_by_the_person() -> None:
    screen = Screen()
    pay_seq = ref("d:payment-seq/seq/participant/p:psp")
    spot = ("agent-1", pay_seq, 1)
    screen.vm.apply(spotlights(spot))
    assert screen.vm.active_id == "payment-seq" and screen.vm.cursor == pay_seq
    assert screen.vm.cursors.by_agent
    # The person navigates: the same spotlight does not pull the camera back.
    screen.press("[")
    assert screen.vm.active_id != "payment-seq"
    screen.vm.apply(spotlights(spot))
    assert screen.vm.active_id != "payment-seq"
    # A new spotlight during the pause waits; after the pause it is followed.
    moved = ("agent-1", ref("d:index/flow/node/n:pay"), 2)
    screen.vm.apply(spotlights(moved))
    assert screen.vm.cursor != moved[1]
    screen.clock.now += FOLLOW_PAUSE + 1
    moved = ("agent-1", ref("d:index/flow/node/n:pay"), 3)
    screen.vm.apply(spotlights(moved))
    assert screen.vm.cursor == moved[1]


def test_follow_ai_off_never_moves_the_view() -> None:
    screen = Screen()
    screen.press("a")
    assert p.SetFollowAi(enabled=False) in screen.effects
    spot = ("a", ref("d:payment-seq/seq/participant/p:psp"), 1)
    screen.vm.apply(spotlights(spot, follow_ai=False))
    assert screen.vm.active_id == "index"


def test_agent_spotlights_get_their_own_styles_and_overlap_is_magenta() -> None:
    screen = Screen()
    spots = (
        ("a", ORDER, 1),
        ("b", ref("d:index/flow/node/n:pay"), 2),
    )
    screen.vm.following.set_enabled(False)
    screen.vm.apply(spotlights(*spots, follow_ai=False))
    attrs = _attrs(screen)
    assert "agent0" in attrs and "agent1" in attrs
    assert "human" in attrs and "both" not in attrs
    screen.vm.jump(ORDER)
    attrs = _attrs(screen)
    assert "both" in attrs and "agent0" not in attrs


def test_help_overlay_is_built_from_the_key_table() -> None:
    screen = Screen()
    text = "\n".join(screen.press("?"))
    assert "MCP http://127.0.0.1:5555/mcp" in text
    assert "hint jump: type the 2-letter tag" in text
    screen.press("esc")
    assert not screen.vm.panes.help_open
    assert screen.press("q") is not None
    assert isinstance(screen.effects[-1], fx.Quit)


def test_quit_works_inside_hint_mode_and_ctrl_c_quits() -> None:
    screen = Screen()
    screen.press("f", "q")
    assert isinstance(screen.effects[-1], fx.Quit)
    screen.press("ctrl c")
    assert isinstance(screen.effects[-1], fx.Quit)


def test_mouse_is_opt_in_and_toggled_with_m() -> None:
    screen = Screen(size=(100, 30))
    assert not screen.vm.panes.mouse
    assert not screen.widget.mouse_event(screen.size, "mouse press", 1, 10, 10, True)
    screen.press("m")
    assert fx.SetMouse(True) in screen.effects and screen.vm.panes.mouse
    assert _last_view(screen).mouse
    assert "Mouse on" in screen.render()[-1]
    screen.press("m")
    assert screen.effects.count(fx.SetMouse(False)) == 1 and not screen.vm.panes.mouse
    text = "\n".join(screen.press("?"))
    assert "NEREID_TUI_MOUSE=1" in text


def test_mouse_click_selects_an_object_and_wheel_scrolls() -> None:
    screen = Screen(size=(100, 30), mouse=True)
    cells = screen.vm.cells()
    assert cells is not None
    bounds = cells.bounds(ORDER)
    assert bounds is not None
    top, left, _bottom, _right = bounds
    col = left + 3 - screen.vm.camera.pan_x + 1
    row = top + 1 - screen.vm.camera.pan_y + 1
    assert screen.widget.mouse_event(screen.size, "mouse press", 1, col, row, True)
    assert screen.vm.cursor == ORDER
    before = screen.vm.camera.pan_y
    screen.widget.mouse_event(screen.size, "mouse press", 5, 5, 5, True)
    assert screen.vm.camera.pan_y >= before


def test_pan_keys_and_page_move_by_the_viewport() -> None:
    screen = Screen(state=demo_state(active_diagram_id="order-flow"), size=(80, 24))
    y0 = screen.vm.camera.pan_y
    screen.press("page down")
    assert screen.vm.camera.pan_y == y0 + 20  # interior height 21, minus one row of overlap
    screen.press("end")
    cells = screen.vm.cells()
    assert cells is not None
    assert screen.vm.camera.pan_y == cells.height + 2 - 21
    screen.press("home")
    assert (screen.vm.camera.pan_x, screen.vm.camera.pan_y) == (-2, -2)


def _attrs(screen: Screen) -> set[str]:
    screen.render()
    found: set[str] = set()
    for line in screen.canvas.content():
        for attr, _cs, _chunk in line:
            if attr is not None:
                found.add(str(attr))
    return found


def test_messages_expire_but_a_kept_error_stays_until_esc() -> None:
    screen = Screen()
    screen.press(" ")
    assert "Selected d:index" in screen.render()[-1]
    screen.clock.now += 10
    assert "Selected d:index" not in screen.render()[-1]
    screen.vm.edit_failed("index", "flowchart TD\n  A -->\n", "line 2: expected a node")
    screen.press(" ")  # a newer transient message shows first ...
    screen.clock.now += 10
    assert "expected a node" in screen.render()[-1]  # ... then the kept error again
    screen.press("esc")
    assert "expected a node" not in screen.render()[-1]
    kept = screen.vm.edits.get("index")
    assert kept is not None and kept.text.endswith("A -->\n")  # the text itself is kept


async def test_bad_palette_refuses_to_start_before_touching_the_screen(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from nereid.ui import run_tui

    code = await run_tui(object(), mcp_url=None, environ={"NEREID_PALETTE": "red"})
    assert code == 1
    assert "invalid env NEREID_PALETTE=red (expected 18" in capsys.readouterr().err


def test_view_changes_are_reported_once_per_frame() -> None:
    screen = Screen()
    screen.effects.clear()
    screen.press("l", "l")
    reports = [e for e in screen.effects if isinstance(e, p.ReportView)]
    assert reports[-1].scroll_x == screen.vm.camera.pan_x
    view = reports[-1].view
    assert view is not None and view.viewport.width == 118
    count = len(reports)
    screen.render()  # nothing changed: no new report
    assert len([e for e in screen.effects if isinstance(e, p.ReportView)]) == count


def test_an_agent_opening_a_diagram_is_announced_not_followed() -> None:
    screen = Screen()
    screen.press("]", "]")  # two quick switches; their echoes arrive late
    screen.vm.apply(p.ActiveChanged(active_diagram_id="order-flow", active_walkthrough_id=None))
    screen.vm.apply(p.ActiveChanged(active_diagram_id="order-states", active_walkthrough_id=None))
    message = screen.vm.toasts.current()
    assert message is None or "opened" not in message.text
    screen.vm.apply(p.ActiveChanged(active_diagram_id="refund-seq", active_walkthrough_id=None))
    assert screen.vm.active_id == "order-states"
    assert "Another client opened refund-seq" in screen.render()[-1]


def test_following_an_agent_brings_its_object_into_view() -> None:
    screen = Screen(size=(80, 24))
    cells_before = screen.vm.cells()
    assert cells_before is not None
    target = ref("d:order-flow/flow/node/n:delivered")
    screen.vm.apply(spotlights(("a", target, 1)))
    screen.render()
    cells = screen.vm.cells()
    assert cells is not None and cells.height > 22  # taller than the pane
    bounds = cells.bounds(target)
    assert bounds is not None
    top, left, bottom, right = bounds
    width, height = screen.vm.camera.viewport
    assert screen.vm.camera.pan_y <= top and bottom < screen.vm.camera.pan_y + height
    assert screen.vm.camera.pan_x <= left and right < screen.vm.camera.pan_x + width
    assert any("Delivered" in line for line in screen.render())


def _last_view(screen: Screen) -> p.ViewDetails:
    reports = [e.view for e in screen.effects if isinstance(e, p.ReportView) and e.view]
    assert reports
    return reports[-1]


def test_a_long_status_message_can_be_read_in_full() -> None:
    screen = Screen(size=(80, 24))
    words = " ".join(f"word{i}" for i in range(40))
    screen.vm.toast(words, error=True)
    assert words not in screen.render()[-1]  # the status line cuts it
    screen.press("M")
    overlay = "\n".join(screen.render()[:-1])  # above the status line
    assert all(re.search(rf"\bword{i}\b", overlay) for i in range(40))
