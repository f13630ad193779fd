"""The actor seam with the real in-process actor tree: snapshot, events, requests, edits."""

from __future__ import annotations

import msgspec
import pytest
import trio

from nereid.actors import protocol as p
from nereid.actors.diagram import parse_mermaid_text
from nereid.actors.tree import open_session
from nereid.ops.flow_ops import FlowUpdateNode
from nereid.runtime import ResyncNeeded
from nereid.store import load_demo_session
from nereid.ui.client import ActorClient
from nereid.ui.conflict_marks import unresolved
from nereid.ui.session_state import EditRejected, SessionUpdate
from nereid.ui.viewmodel import ViewModel

from .tui_helpers import changed, demo_state, ref

ORDER = ref("d:index/flow/node/n:order")


async def next_updates(subscription: object, kind: type) -> list[SessionUpdate]:
    """The events received up to the first of `kind` (bounded by a deadline)."""
    updates: list[SessionUpdate] = []
    with trio.fail_after(5):
        async for event in subscription:  # type: ignore[attr-defined]
            assert not isinstance(event, ResyncNeeded)
            updates.append(event)
            if isinstance(event, kind):
                return updates
    raise AssertionError("subscription ended")


async def test_snapshot_events_and_requests_round_trip() -> None:
    async with open_session(load_demo_session(), files=None, durable=False) as handle:
        client = ActorClient(handle.registry, handle.bus)
        with client.subscribe() as events:
            await client.attach()
            state = await client.snapshot()
            assert sorted(state.session.diagrams) == sorted(load_demo_session().diagrams)
            assert state.session.xrefs == load_demo_session().xrefs
            vm = ViewModel(state, mcp_url=None)

            await client.perform(p.UpdateSelection(object_refs=(ORDER,)))
            updates = await next_updates(events, p.SelectionChanged)
            for update in updates:
                vm.apply(update)
            assert vm.session.selection == (ORDER,)

            # An agent sets its spotlight: the TUI follows it (follow-AI is on by default).
            spot = ref("d:order-flow/flow/node/n:placed")
            await handle.attention.call(p.SetSpotlight(agent_id="agent-7", object_ref=spot))
            updates = await next_updates(events, p.AttentionChanged)
            for update in updates:
                vm.apply(update)
            assert vm.cursor == spot and vm.active_id == "order-flow"

            # The person's attention and view are reported and read back truthfully.
            await client.perform(vm.human_report())
            await client.perform(vm.view_report())
            snap = await handle.attention.call(p.GetAttention())
            assert snap.ui.attached and snap.ui.human_object_ref == spot


async def test_replace_text_applies_and_refuses_with_a_reason() -> None:
    async with open_session(load_demo_session(), files=None, durable=False) as handle:
        client = ActorClient(handle.registry, handle.bus)
        with client.subscribe() as events:
            diagram = await client.diagram("index")
            from nereid.ui.client import export_text

            text = export_text(diagram).replace("Browse the catalog", "Browse the shop")
            updated = await client.replace_text("index", text, diagram)
            assert updated.rev == diagram.rev + 1
            assert updated.ast.nodes["n:browse"].label == "Browse the shop"  # type: ignore[union-attr]
            await next_updates(events, p.DiagramChanged)
            with pytest.raises(EditRejected) as info:
                await client.replace_text("index", "flowchart TD\n  A -->", updated)
            assert info.value.message and info.value.base is None
            # An edit made from the older revision is merged into the current one.
            older = export_text(diagram) + "\n  Z[zed]\n"
            merged = await client.replace_text("index", older, diagram)
            nodes = merged.ast.nodes  # type: ignore[union-attr]
            assert nodes["n:browse"].label == "Browse the shop" and nodes["n:Z"].label == "zed"
            # Both changed the same node differently: nothing applied, the conflict reported.
            clash = export_text(diagram).replace("Browse the catalog", "Browse the mall")
            with pytest.raises(EditRejected, match="1 conflict") as info:
                await client.replace_text("index", clash, diagram)
            assert info.value.base is not None and info.value.base.rev == merged.rev
            assert info.value.text is not None and "Browse the mall" in info.value.text
            assert "zed" in info.value.text  # the others' work is in the re-opened text
            assert (await client.diagram("index")).rev == merged.rev
            # Both versions are marked in place, as comments: the file still parses.
            lines = info.value.text.splitlines()
            opened = next(i for i, line in enumerate(lines) if "<<<<<<< nereid conflict 1" in line)
            block = lines[opened : opened + 5]
            assert "Browse the shop" in block[1] and block[1].lstrip().startswith("%%")
            assert "=======" in block[2] and "Browse the mall" in block[3]
            assert ">>>>>>> end of conflict 1" in block[4]
            assert not block[3].lstrip().startswith("%%")
            parse_mermaid_text(info.value.text)
            assert unresolved(info.value.text) == [opened + 1, opened + 3, opened + 5]
            assert unresolved(info.value.text.replace("%% <<<<<<<", "%% resolved")) != []


async def test_resync_rereads_everything_and_deletion_moves_off_the_diagram() -> None:
    async with open_session(load_demo_session(), files=None, durable=False) as handle:
        client = ActorClient(handle.registry, handle.bus)
        with client.subscribe() as events:
            vm = ViewModel(await client.snapshot(), mcp_url=None)
            rev = vm.session.diagrams["index"].rev
            relabel = FlowUpdateNode(node_id="n:browse", label="B")
            await handle.diagram("index").call(p.ApplyDiagramOps(base_rev=rev, ops=(relabel,)))
            vm.resync(await client.snapshot())  # what the app does after `ResyncNeeded`
            assert vm.session.diagrams["index"].rev == rev + 1
            assert sorted(vm.session.diagrams) == sorted(load_demo_session().diagrams)
            await handle.session.call(p.DeleteDiagram(diagram_id="index"))
            for item in await next_updates(events, p.DiagramDeleted):
                vm.apply(item)
            assert "index" not in vm.session.diagrams and vm.active_id == "checkout-seq"


async def test_events_carry_what_they_announce_and_the_view_model_takes_them_as_they_are() -> None:
    async with open_session(load_demo_session(), files=None, durable=False) as handle:
        client = ActorClient(handle.registry, handle.bus)
        with client.subscribe() as events:
            vm = ViewModel(await client.snapshot(), mcp_url=None)
            rev = vm.session.diagrams["index"].rev
            relabel = FlowUpdateNode(node_id="n:browse", label="Browse it")
            await handle.diagram("index").call(p.ApplyDiagramOps(base_rev=rev, ops=(relabel,)))
            (event,) = await next_updates(events, p.DiagramChanged)
            assert isinstance(event, p.DiagramChanged)
            assert event.diagram == await client.diagram("index") and event.rev == rev + 1
            vm.apply(event)
            assert vm.session.diagrams["index"] is event.diagram  # shared, not copied
            await handle.xref.call(
                p.AddXref(xref_id="x:new", from_ref=str(ORDER), to_ref=str(ORDER), kind="same")
            )
            (added,) = await next_updates(events, p.XrefsChanged)
            vm.apply(added)
            assert vm.session.xrefs == await client.xrefs()


def test_an_event_older_than_the_mirrored_rev_does_not_roll_it_back() -> None:
    """Events queued between subscribing and reading the snapshot may be older than it."""
    vm = ViewModel(demo_state(), mcp_url=None)
    diagram = vm.session.diagrams["index"]
    newer = msgspec.structs.replace(diagram, rev=diagram.rev + 2)
    vm.apply(changed(newer))
    vm.apply(changed(msgspec.structs.replace(diagram, rev=diagram.rev + 1)))
    assert vm.session.diagrams["index"] is newer
