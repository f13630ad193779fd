"""The TUI says who each agent is: its client name (else its agent id) where spotlights show."""

from __future__ import annotations

from nereid.actors import protocol as p
from nereid.actors.tree import open_session
from nereid.store import load_demo_session
from nereid.ui.client import ActorClient
from nereid.ui.mirror import spotlight_title
from nereid.ui.panes import objects_rows

from .tui_helpers import Screen, ref, spotlights

ORDER = ref("d:index/flow/node/n:order")
PSP = ref("d:payment-seq/seq/participant/p:psp")


def _two_agents(screen: Screen) -> None:
    screen.vm.apply(
        spotlights(
            ("agent:1", ORDER, 1),
            p.Spotlight(agent_id="agent:2", object_ref=PSP, seq=2, agent_name="claude-code"),
        )
    )


def test_follow_ai_says_whom_it_follows_on_the_status_line() -> None:
    screen = Screen(size=(80, 24))
    _two_agents(screen)
    assert screen.vm.cursor == PSP
    assert "Following claude-code (agent:2)" in screen.render()[-1]


def test_inspector_names_the_agents_on_the_cursor() -> None:
    screen = Screen()
    _two_agents(screen)
    assert "Agents here: claude-code (agent:2)" in "\n".join(screen.press("4"))
    screen.vm.jump(ORDER)
    text = screen.text()
    assert "Agents here: agent:1" in text and "claude-code" not in text


def _help_legend(screen: Screen) -> tuple[int, str] | None:
    """Scroll the help overlay until its `Agents:` legend shows: (row, line), or None."""
    lines = screen.press("?")
    for _ in range(100):
        rows = [(i, line) for i, line in enumerate(lines) if "Agents:" in line]
        if rows:
            return rows[0]
        lines = screen.press("j")
    return None


def test_help_legend_shows_each_agent_in_its_style() -> None:
    screen = Screen(size=(80, 24))
    assert _help_legend(screen) is None  # no spotlight, no legend
    screen.press("?")  # close it
    _two_agents(screen)
    found = _help_legend(screen)
    assert found is not None
    row, line = found
    assert "agent:1" in line and "claude-code (agent:2)" in line
    slots = screen.vm.session.agent_slots()
    assert slots["agent:1"] != slots["agent:2"]
    assert screen.attr_at(row, line.index("claude-code")) == f"agent{slots['agent:2']}"
    assert screen.attr_at(row, line.index("agent:1")) == f"agent{slots['agent:1']}"


async def test_the_snapshot_names_each_agent_by_its_client_name() -> None:
    async with open_session(load_demo_session(), files=None, durable=False) as handle:
        client = ActorClient(handle.registry, handle.bus)
        await handle.attention.call(
            p.SetSpotlight(agent_id="agent:1", object_ref=ORDER, agent_name="claude-code")
        )
        await handle.attention.call(p.SetSpotlight(agent_id="agent:2", object_ref=PSP))
        spots = (await client.snapshot()).attention.spotlights
        assert [(s.agent_id, spotlight_title(s)) for s in spots] == [
            ("agent:1", "claude-code (agent:1)"),
            ("agent:2", "agent:2"),
        ]


def test_objects_pane_marks_each_spotlight_in_its_agents_style() -> None:
    screen = Screen(size=(120, 36))
    shop, browse = ref("d:index/flow/node/n:shop"), ref("d:index/flow/node/n:browse")
    screen.vm.following.set_enabled(False)
    screen.vm.apply(spotlights(("agent:2", shop, 2), ("agent:10", browse, 10), follow_ai=False))
    # agent:2 sorts before agent:10 (numbers), so it has the first style
    assert screen.vm.session.agent_slots() == {"agent:2": 0, "agent:10": 1}
    title, rows = objects_rows(screen.vm, 40, 30)
    marks = {
        "".join(text for _, text in row): [style for style, text in row if text == "◉"]
        for row in rows
    }
    shop_row = next(label for label in marks if "node n:shop " in label)
    browse_row = next(label for label in marks if "node n:browse " in label)
    assert marks[shop_row] == ["agent0"]
    assert marks[browse_row] == ["agent1"]
