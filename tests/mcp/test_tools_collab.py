"""Group C (attention, spotlights, follow-AI, selection, view) through the MCP client SDK.

The endpoint runs on the real session actors over the demo session (memory streams: the
stdio code path). A TUI is simulated by sending `attention` what the TUI reports.
"""

from __future__ import annotations

from nereid.actors.protocol import (
    AttachUi,
    DetachUi,
    ReportHumanAttention,
    ReportView,
    SearchDetails,
    Size,
    ViewDetails,
    WalkthroughView,
)
from nereid.model import parse_ref
from tests.mcp.mcp_testkit import memory_client
from tests.mcp.tools_testkit import demo_endpoint, error_of, structured

NO_TUI_CONTEXT = {"session_active_diagram_id": "index"}
PAY = "d:index/flow/node/n:pay"
SHIP = "d:index/flow/node/n:ship"
PSP = "d:payment-seq/seq/participant/p:psp"


async def test_without_a_tui_reads_give_the_documented_defaults() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        assert await structured(client, "attention.human.read") == {
            "object_ref": None,
            "diagram_id": None,
            "context": NO_TUI_CONTEXT,
        }
        assert await structured(client, "follow_ai.read") == {
            "enabled": True,
            "context": NO_TUI_CONTEXT,
        }
        # follow_ai.set is a no-op without a TUI that still echoes the input.
        assert await structured(client, "follow_ai.set", {"enabled": False}) == {"enabled": False}
        assert (await structured(client, "follow_ai.read"))["enabled"] is True
        assert await structured(client, "view.read_state") == {
            "active_diagram_id": "index",
            "scroll": {"x": 0.0, "y": 0.0},
            "panes": {},
            "tui": None,
            "context": NO_TUI_CONTEXT,
        }


async def test_with_a_tui_reads_report_its_real_state() -> None:
    async with demo_endpoint() as (handle, endpoint), memory_client(endpoint) as client:
        await handle.attention.call(AttachUi())
        await handle.attention.call(ReportHumanAttention(object_ref=parse_ref(SHIP)))
        await handle.attention.call(ReportView(scroll_x=3.0, scroll_y=12.5, panes={"xrefs": True}))
        human = await structured(client, "attention.human.read")
        context = human["context"]
        assert (human["object_ref"], human["diagram_id"]) == (SHIP, "index")
        assert context["human_active_object_ref"] == SHIP
        assert context["human_active_diagram_id"] == "index"
        assert context["follow_ai"] is True
        rev, session_rev = context["ui_rev"], context["ui_session_rev"]
        assert await structured(client, "follow_ai.set", {"enabled": False}) == {"enabled": False}
        after = await structured(client, "follow_ai.read")
        assert after["enabled"] is False
        assert after["context"]["ui_rev"] == rev + 1
        view = await structured(client, "view.read_state")
        assert view["scroll"] == {"x": 3.0, "y": 12.5}
        assert view["panes"] == {"xrefs": True}
        assert view["active_diagram_id"] == "index"
        # A successful mutation bumps ui_session_rev (the TUI re-reads).
        await structured(client, "selection.update", {"object_refs": [PAY]})
        bumped = (await structured(client, "selection.read"))["context"]
        assert bumped["ui_session_rev"] == session_rev + 1


async def test_spotlight_set_read_clear() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        assert await structured(client, "attention.agent.set", {"object_ref": PSP}) == {
            "object_ref": PSP,
            "diagram_id": "payment-seq",
        }
        assert await structured(client, "attention.agent.read") == {
            "object_ref": PSP,
            "diagram_id": "payment-seq",
            "context": NO_TUI_CONTEXT,
        }
        await structured(client, "attention.agent.set", {"object_ref": PAY})
        assert (await structured(client, "attention.agent.read"))["object_ref"] == PAY
        assert await structured(client, "attention.agent.clear") == {"cleared": 1}
        assert await structured(client, "attention.agent.clear") == {"cleared": 0}
        read = await structured(client, "attention.agent.read")
        assert (read["object_ref"], read["diagram_id"]) == (None, None)


async def test_spotlight_set_refusals() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        bad = await error_of(client, "attention.agent.set", {"object_ref": "index/n:pay"})
        assert (bad.code, bad.message, bad.data) == (
            -32602,
            "invalid object_ref: object ref must start with 'd:'",
            {"object_ref": "index/n:pay"},
        )
        missing = await error_of(client, "attention.agent.set", {"object_ref": PAY + "x"})
        assert (missing.code, missing.message, missing.data) == (
            -32002,
            "object not found",
            {"object_ref": PAY + "x"},
        )
        absent = await error_of(client, "attention.agent.set", {})
        assert absent.code == -32602
        assert absent.message.startswith("failed to deserialize parameters: ")
        assert "object_ref" in absent.message
        # Nothing was set by the failures.
        assert (await structured(client, "attention.agent.read"))["object_ref"] is None


async def test_each_session_has_its_own_spotlight_and_loses_it_when_it_ends() -> None:
    async with demo_endpoint() as (_, endpoint):
        async with memory_client(endpoint, "alpha") as alpha:
            async with memory_client(endpoint, "beta") as beta:
                await structured(alpha, "attention.agent.set", {"object_ref": PAY})
                await structured(beta, "attention.agent.set", {"object_ref": PSP})
                assert (await structured(alpha, "attention.agent.read"))["object_ref"] == PAY
                assert (await structured(beta, "attention.agent.read"))["object_ref"] == PSP
                listing = await structured(beta, "attention.agents.read")
                assert listing == {
                    "caller_agent_id": "agent:2",
                    "spotlights": [
                        {
                            "agent_id": "agent:1",
                            "agent_name": "alpha",
                            "object_ref": PAY,
                            "diagram_id": "index",
                            "seq": 1,
                            "idle": False,
                        },
                        {
                            "agent_id": "agent:2",
                            "agent_name": "beta",
                            "object_ref": PSP,
                            "diagram_id": "payment-seq",
                            "seq": 2,
                            "idle": False,
                        },
                    ],
                    "context": NO_TUI_CONTEXT,
                }
                # Clearing one agent's spotlight leaves the other's.
                assert await structured(beta, "attention.agent.clear") == {"cleared": 1}
                assert (await structured(alpha, "attention.agent.read"))["object_ref"] == PAY
                await structured(beta, "attention.agent.set", {"object_ref": PSP})
            # beta's session ended: its spotlight went (the hook's cast is queued first).
            listing = await structured(alpha, "attention.agents.read")
            assert listing["caller_agent_id"] == "agent:1"
            assert listing["spotlights"] == [
                {
                    "agent_id": "agent:1",
                    "agent_name": "alpha",
                    "object_ref": PAY,
                    "diagram_id": "index",
                    "seq": 1,
                    "idle": False,
                }
            ]


async def test_agents_read_names_each_agent_by_its_client_name() -> None:
    async with demo_endpoint() as (_, endpoint):
        async with (
            memory_client(endpoint, "claude-code") as claude,
            memory_client(endpoint, "cursor") as cursor,
        ):
            await structured(claude, "attention.agent.set", {"object_ref": PAY})
            await structured(cursor, "attention.agent.set", {"object_ref": PSP})
            listing = await structured(cursor, "attention.agents.read")
            named = [(s["agent_id"], s["agent_name"]) for s in listing["spotlights"]]
            assert named == [("agent:1", "claude-code"), ("agent:2", "cursor")]


async def test_selection_update_modes_and_ignored_refs() -> None:
    missing = "d:index/flow/node/n:nope"
    gone_diagram = "d:zzz/flow/node/n:a"
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        assert await structured(client, "selection.read") == {
            "object_refs": [],
            "context": NO_TUI_CONTEXT,
        }
        replaced = await structured(
            client, "selection.update", {"object_refs": [SHIP, PSP, missing, PAY, SHIP]}
        )
        assert replaced == {"applied": [PAY, SHIP, PSP], "ignored": [missing]}
        assert (await structured(client, "selection.read"))["object_refs"] == [PAY, SHIP, PSP]
        removed = await structured(
            client, "selection.update", {"object_refs": [SHIP, gone_diagram], "mode": "remove"}
        )
        assert removed == {"applied": [SHIP], "ignored": [gone_diagram]}
        assert (await structured(client, "selection.read"))["object_refs"] == [PAY, PSP]
        added = await structured(
            client, "selection.update", {"object_refs": [SHIP, missing], "mode": "add"}
        )
        assert added == {"applied": [SHIP], "ignored": [missing]}
        assert (await structured(client, "selection.read"))["object_refs"] == [PAY, SHIP, PSP]
        # `null` mode means the default, replace; all refs ignored empties the selection.
        emptied = await structured(
            client, "selection.update", {"object_refs": [missing], "mode": None}
        )
        assert emptied == {"applied": [], "ignored": [missing]}
        assert (await structured(client, "selection.read"))["object_refs"] == []


async def test_selection_update_refusals_change_nothing() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        await structured(client, "selection.update", {"object_refs": [PAY]})
        bad = await error_of(
            client, "selection.update", {"object_refs": [SHIP, "d:index", "nope"], "mode": "add"}
        )
        assert (bad.code, bad.message, bad.data) == (
            -32602,
            "invalid object_ref: object ref is missing category path",
            {"object_ref": "d:index"},
        )
        mode = await error_of(client, "selection.update", {"object_refs": [SHIP], "mode": "toggle"})
        assert mode.code == -32602 and mode.data is None
        assert mode.message.startswith("failed to deserialize parameters: ")
        assert (await structured(client, "selection.read"))["object_refs"] == [PAY]


async def test_view_read_state_reports_the_tuis_whole_view() -> None:
    details = ViewDetails(
        diagram_id="payment-seq",
        cursor_ref=parse_ref(PSP),
        viewport=Size(width=118, height=33),
        diagram_size=Size(width=140, height=40),
        focus="objects",
        focus_owner="agent",
        search=SearchDetails(mode="fuzzy", query="psp", editing=False, results=3, index=1),
        hint_mode="chain",
        show_notes=False,
        help_open=True,
        mouse=True,
        follow_paused=True,
        walkthrough=WalkthroughView(walkthrough_id="wt-tour", node_id="n:map"),
        mcp_url="http://127.0.0.1:4242/mcp",
    )
    async with demo_endpoint() as (handle, endpoint), memory_client(endpoint) as client:
        await handle.attention.call(AttachUi())
        attached = await structured(client, "view.read_state")
        assert attached["tui"] is None  # attached, but no frame reported yet
        panes = {"diagram": True, "objects": True, "xrefs": False, "inspector": False}
        await handle.attention.call(
            ReportView(scroll_x=-2.0, scroll_y=7.0, panes=panes, view=details)
        )
        view = await structured(client, "view.read_state")
        assert view["scroll"] == {"x": -2.0, "y": 7.0}
        assert view["panes"] == panes
        assert view["active_diagram_id"] == "index"  # the session's; the TUI shows another
        assert view["tui"] == {
            "diagram_id": "payment-seq",
            "cursor_ref": PSP,
            "viewport": {"width": 118, "height": 33},
            "diagram_size": {"width": 140, "height": 40},
            "focus": "objects",
            "focus_owner": "agent",
            "follow_ai": True,
            "follow_paused": True,
            "search": {"mode": "fuzzy", "query": "psp", "editing": False, "results": 3, "index": 1},
            "hint_mode": "chain",
            "show_notes": False,
            "help_open": True,
            "mouse": True,
            "walkthrough": {"walkthrough_id": "wt-tour", "node_id": "n:map"},
            "mcp_url": "http://127.0.0.1:4242/mcp",
        }
        await handle.attention.call(DetachUi())
        gone = await structured(client, "view.read_state")
        assert (gone["tui"], gone["scroll"], gone["panes"]) == (None, {"x": 0.0, "y": 0.0}, {})


async def test_spotlight_seq_says_which_is_newest() -> None:
    async with demo_endpoint() as (_, endpoint):
        async with (
            memory_client(endpoint, "alpha") as alpha,
            memory_client(endpoint, "beta") as beta,
        ):

            async def seqs() -> dict[str, int]:
                listing = await structured(alpha, "attention.agents.read")
                return {s["agent_id"]: s["seq"] for s in listing["spotlights"]}

            await structured(alpha, "attention.agent.set", {"object_ref": PAY})
            await structured(beta, "attention.agent.set", {"object_ref": PSP})
            assert await seqs() == {"agent:1": 1, "agent:2": 2}
            # Repeating the newest spotlight changes nothing ...
            await structured(beta, "attention.agent.set", {"object_ref": PSP})
            assert await seqs() == {"agent:1": 1, "agent:2": 2}
            # ... but an older one set again becomes the newest.
            await structured(alpha, "attention.agent.set", {"object_ref": PAY})
            assert await seqs() == {"agent:1": 3, "agent:2": 2}
            # Clearing never renumbers: the counter only grows.
            await structured(alpha, "attention.agent.clear")
            await structured(beta, "attention.agent.set", {"object_ref": SHIP})
            assert await seqs() == {"agent:2": 4}
