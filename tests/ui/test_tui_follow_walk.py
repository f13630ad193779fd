"""Follow-AI by spotlight `seq`, the walkthrough view, centring, and what the view reports."""

from __future__ import annotations

import trio

from nereid.actors import protocol as p
from nereid.actors.tree import open_session
from nereid.model.refs import ObjectRef
from nereid.runtime import ResyncNeeded
from nereid.store import load_demo_session
from nereid.ui.client import ActorClient
from nereid.ui.keys import help_sections
from nereid.ui.modes import Focus
from nereid.ui.panes import help_rows, walk_step_lines
from nereid.ui.viewmodel import ViewModel

from .tui_helpers import Screen, ref, spotlights

PLACED = ref("d:order-flow/flow/node/n:placed")
PSP = ref("d:payment-seq/seq/participant/p:psp")
SHOP = ref("d:index/flow/node/n:shop")
PAY = ref("d:index/flow/node/n:pay")


def spots(*items: tuple[str, ObjectRef, int]) -> p.AttentionChanged:
    return spotlights(*items)


def last_report(screen: Screen) -> p.ReportView:
    screen.render()
    reports = [e for e in screen.effects if isinstance(e, p.ReportView)]
    assert reports
    return reports[-1]


def last_view(screen: Screen) -> p.ViewDetails:
    view = last_report(screen).view
    assert view is not None
    return view


# ---- follow-AI -------------------------------------------------------------------------


def test_two_agents_in_turn_the_camera_follows_the_newest_seq() -> None:
    screen = Screen()
    vm = screen.vm
    vm.apply(spots(("agent:1", PLACED, 1)))
    assert vm.cursor == PLACED and vm.cursors.by_agent
    # agent:2 sets later: its spotlight is newest although agent:1 sorts first.
    vm.apply(spots(("agent:1", PLACED, 1), ("agent:2", PSP, 2)))
    assert (vm.active_id, vm.cursor) == ("payment-seq", PSP)
    # agent:1 points again (a larger seq for the same ref): followed back.
    vm.apply(spots(("agent:1", PLACED, 3), ("agent:2", PSP, 2)))
    assert (vm.active_id, vm.cursor) == ("order-flow", PLACED)
    # agent:1 clears: the older spotlight of agent:2 does not pull the camera back.
    vm.apply(spots(("agent:2", PSP, 2)))
    assert vm.cursor == PLACED
    screen.render()
    cells = vm.cells()
    assert cells is not None
    top, left, bottom, right = cells.bounds(PLACED) or (0, 0, 0, 0)
    width, height = vm.camera.viewport
    assert vm.camera.pan_y <= top and bottom < vm.camera.pan_y + height  # brought into view
    assert vm.camera.pan_x <= left and right < vm.camera.pan_x + width


def test_the_persons_navigation_pauses_follow_ai_then_the_newest_is_followed() -> None:
    screen = Screen()
    vm = screen.vm
    vm.apply(spots(("agent:1", PLACED, 1)))
    screen.press("[")  # the person navigates: follow-AI pauses
    own = vm.active_id
    assert own != "order-flow" and not vm.cursors.by_agent
    assert last_view(screen).follow_paused
    vm.apply(spots(("agent:1", PLACED, 1), ("agent:2", PSP, 2)))
    assert vm.active_id == own  # waits during the pause ...
    due = vm.follow_resume_at()
    assert due == vm.following.paused_until
    assert vm.follow() == []  # ... also when asked early
    screen.clock.now = due + 0.01
    assert vm.follow_resume_at() is None  # the pause is over: the app's timer calls follow()
    effects = vm.follow()
    assert (vm.active_id, vm.cursor) == ("payment-seq", PSP)
    assert p.OpenDiagram(diagram_id="payment-seq") in effects
    assert not [e for e in effects if isinstance(e, p.ReportHumanAttention)]  # not the person's
    assert vm.follow_resume_at() is None and vm.follow() == []


def test_pan_and_focus_keys_do_not_pause_follow_ai() -> None:
    screen = Screen()
    screen.press("2", "1", "?", "esc")
    screen.vm.apply(spots(("agent:1", PSP, 1)))
    assert screen.vm.cursor == PSP
    screen.clock.now += 0.5
    screen.press("l")  # panning is not navigating to another object
    screen.vm.apply(spots(("agent:1", PSP, 1), ("agent:2", PAY, 2)))
    assert screen.vm.cursor == PAY


async def test_follow_ai_over_the_real_attention_actor_uses_its_seq() -> None:
    async with open_session(load_demo_session(), files=None, durable=False) as handle:
        client = ActorClient(handle.registry, handle.bus)
        with client.subscribe() as events:
            await client.attach()
            vm = ViewModel(await client.snapshot(), mcp_url=None)
            for agent, target in (("agent:1", PLACED), ("agent:2", PSP), ("agent:1", PLACED)):
                await handle.attention.call(p.SetSpotlight(agent_id=agent, object_ref=target))
                with trio.fail_after(5):
                    async for event in events:
                        assert not isinstance(event, ResyncNeeded)
                        vm.apply(event)
                        if isinstance(event, p.AttentionChanged) and event.part == "spotlight":
                            break
                assert vm.cursor == target, agent
            assert [s.seq for s in vm.session.spotlights] == [3, 2]


# ---- what the view reports -------------------------------------------------------------


def test_view_report_tells_search_hint_focus_and_walkthrough() -> None:
    screen = Screen()
    screen.press("2")
    report = last_report(screen)
    view = last_view(screen)
    assert view.focus == "objects"
    assert report.panes == {"diagram": True, "objects": True, "xrefs": False, "inspector": False}
    assert view.cursor_ref == screen.vm.cursor and view.mcp_url == "http://127.0.0.1:5555/mcp"
    screen.press("\\", "p", "a", "y")
    search = last_view(screen).search
    assert search is not None
    assert (search.mode, search.query, search.editing) == ("fuzzy", "pay", True)
    assert search.results > 0 and search.index == 0
    screen.press("esc", "1", "f")
    assert last_view(screen).hint_mode == "jump"
    screen.press("esc", "w")
    report = last_report(screen)
    view = last_view(screen)
    assert view.walkthrough == p.WalkthroughView(walkthrough_id="wt-tour", node_id="n:map")
    assert report.panes["inspector"] is True and view.diagram_id == "index"


# ---- walkthrough view ------------------------------------------------------------------


def test_walkthrough_view_steps_and_goes_to_each_ref() -> None:
    screen = Screen()
    vm = screen.vm
    text = "\n".join(screen.press("w"))
    assert "Walkthrough [1/1] wt-tour · A tour of Nereid Shop r1 step 1/6" in text
    assert "Start at the map" in text and "Returns" in text
    assert "Inspector — step n:map" in text and "g1 d:index/flow/node/n:shop" in text
    assert "Step:↑↓ | Go:g" in screen.render()[-1]
    # The step under the cursor is highlighted like the person's cursor.
    cells = vm.walk.cells()
    assert cells is not None
    row, col = _first_cell(cells, vm.walk.cursor_ref())
    assert screen.attr_at(row - vm.camera.pan_y + 1, col - vm.camera.pan_x + 1) == "human"
    screen.press("j")
    assert "step 2/6" in screen.render()[0]
    assert "g3 d:order-flow/flow/edge/e:declined" in walk_step_lines(vm)[1]
    screen.press("g")
    assert not vm.walk.is_open and Focus.INSPECTOR not in vm.panes.visible
    assert vm.cursor == ref("d:order-flow/flow/node/n:placed")
    assert "Step n:order 1/3: d:order-flow/flow/node/n:placed" in screen.render()[-1]
    assert "|  |" not in screen.render()[-1]
    assert p.ReportHumanAttention(diagram_id="order-flow", object_ref=vm.cursor) in screen.effects
    screen.press("w", "g")  # back at the same step; g goes to its next ref
    assert vm.cursor == ref("d:order-flow/flow/node/n:authorize")
    screen.press("w", "end")
    assert "step 6/6" in screen.render()[0]
    screen.press("enter")
    assert vm.cursor == ref("d:refund-seq/seq/message/m:request-return")
    screen.press("[")  # in the diagram again, [ ] switch diagrams
    assert vm.active_id != "refund-seq"
    screen.press("w", "esc")
    assert not vm.walk.is_open


def test_walkthrough_view_keeps_the_diagram_camera_and_refuses_diagram_keys() -> None:
    screen = Screen()
    vm = screen.vm
    screen.press("l", "l", "l")
    pan = (vm.camera.pan_x, vm.camera.pan_y)
    screen.press("w", "j", "j", "J", " ")
    assert "Not in the walkthrough view" in screen.render()[-1]
    assert vm.session.selection == load_demo_session().selected_object_refs
    screen.press("w")
    assert not vm.walk.is_open and (vm.camera.pan_x, vm.camera.pan_y) == pan
    assert "[1]─ Diagram [3/8] index" in screen.render()[0]


def test_without_walkthroughs_w_says_so() -> None:
    from .tui_helpers import demo_state

    screen = Screen(state=demo_state(walkthroughs={}, active_walkthrough_id=None))
    screen.press("w")
    assert not screen.vm.walk.is_open
    assert "No walkthroughs in this session" in screen.render()[-1]


def test_mouse_click_picks_a_walkthrough_step() -> None:
    screen = Screen(mouse=True)
    screen.press("w")
    vm = screen.vm
    cells = vm.walk.cells()
    walk = vm.walkthrough
    assert cells is not None and walk is not None
    from nereid.render.walkthrough import node_ref

    top, left, _b, _r = cells.bounds(node_ref("wt-tour", "n:payment")) or (0, 0, 0, 0)
    col, row = left + 2 - vm.camera.pan_x + 1, top + 1 - vm.camera.pan_y + 1
    assert screen.widget.mouse_event(screen.size, "mouse press", 1, col, row, True)
    node = vm.walk_node()
    assert node is not None and node.node_id == "n:payment"


# ---- centring --------------------------------------------------------------------------


def test_small_diagrams_are_centred_and_stay_centred_on_resize() -> None:
    screen = Screen(size=(200, 50))
    vm = screen.vm
    cells = vm.cells()
    assert cells is not None and cells.width < 198 and cells.height < 48
    width, height = vm.camera.viewport
    assert vm.camera.pan_x == int((cells.width - width) / 2)
    assert vm.camera.pan_y == int((cells.height - height) / 2)
    screen.size = (180, 44)
    screen.render()
    width, height = vm.camera.viewport
    assert vm.camera.pan_x == int((cells.width - width) / 2)  # recentred for the new size
    # Once the person moved the camera, a resize keeps it where they put it.
    screen.press("l")
    pan = (vm.camera.pan_x, vm.camera.pan_y)
    screen.size = (200, 50)
    screen.render()
    assert (vm.camera.pan_x, vm.camera.pan_y) == pan


def test_help_documents_search_typing_and_the_new_keys() -> None:
    entries = {keys: text for _title, rows in help_sections() for keys, text in rows}
    assert "q ? and digits too" in entries["text"]
    assert entries["Esc"] in ("close the search", "leave hint mode")
    assert "walkthrough view" in entries["w"]
    assert "newest agent spotlight" in entries["a"] and "pauses" in entries["a"]
    screen = Screen()
    screen.press("?")
    text = "\n".join("".join(t for _s, t in row) for row in help_rows(screen.vm, 90))
    assert "--- Walkthrough ---" in text and "--- Search ---" in text
    screen.press("esc", "/", "q")
    assert screen.vm.modes.search is not None and screen.vm.modes.search.query == "q"
    screen.press("esc")
    assert screen.vm.modes.search is None


def _first_cell(cells: object, target: object) -> tuple[int, int]:
    spans = cells.rendered.spans[target]  # type: ignore[attr-defined]
    first = min(spans, key=lambda s: (s.row, s.col_start))
    return first.row + 1, first.col_start + 2  # inside the box, on its label row
