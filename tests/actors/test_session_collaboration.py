"""Xrefs, selection, spotlights, UI state, read context and walkthroughs through messages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.actors.protocol import (
    AddXref,
    AgentSessionEnded,
    ApplyDiagramOps,
    ApplyWalkthroughOps,
    AttachUi,
    AttentionChanged,
    ClearSpotlight,
    CreateWalkthrough,
    DeleteDiagram,
    DeleteWalkthrough,
    DetachUi,
    DiffWalkthrough,
    GetAttention,
    GetReadContext,
    GetSpotlight,
    GetWalkthrough,
    GetWalkthroughNode,
    ListSpotlights,
    ListWalkthroughs,
    ListXrefs,
    NoteSessionMutation,
    OpenWalkthrough,
    ReadSelection,
    RemoveXref,
    ReportHumanAttention,
    ReportView,
    SelectionChanged,
    SelectionMode,
    SetFollowAi,
    SetSpotlight,
    StatWalkthrough,
    UpdateSelection,
    WalkthroughChanged,
    XrefNeighbors,
)
from nereid.actors.refusals import parse_ref_param
from nereid.errors import Conflict, InvalidParams, ResourceNotFound
from nereid.model import ObjectRef, parse_ref
from nereid.ops import FlowRemoveNode, WalkthroughAddEdge, WalkthroughAddNode, WalkthroughSetTitle
from nereid.query.results import XRefListResult
from nereid.store.files import MemoryFiles
from tests.actors.session_testkit import SEQ, add_node, create, drain, memory_session, saved_session

A = parse_ref("d:a/flow/node/n:A")
B = parse_ref("d:a/flow/node/n:B")
P = parse_ref("d:s/seq/participant/p:A")
MISSING = parse_ref("d:a/flow/node/n:zz")


def statuses(listing: XRefListResult) -> dict[str, str]:
    return {x.xref_id: x.status for x in listing.xrefs}


async def test_xref_status_follows_ops_deletes_and_recreates() -> None:
    files = MemoryFiles()
    async with memory_session(files=files) as handle:
        await create(handle, diagram_id="a")
        await create(handle, SEQ, diagram_id="s")
        xref = handle.xref
        added = await xref.call(AddXref(xref_id="x:1", from_ref=str(A), to_ref=str(P), kind="k"))
        dangling = await xref.call(
            AddXref(xref_id="x:2", from_ref=str(MISSING), to_ref=str(P), kind="todo", label="l")
        )
        assert (added.status, dangling.status) == ("ok", "dangling_from")
        with pytest.raises(InvalidParams, match="xref_id already exists"):
            await xref.call(AddXref(xref_id="x:1", from_ref=str(A), to_ref=str(P), kind="k"))
        with pytest.raises(InvalidParams) as bad_from:
            await xref.call(AddXref(xref_id="x:3", from_ref="a/b", to_ref=str(P), kind="k"))
        assert bad_from.value.data == {"from": "a/b"}
        # an op removes an endpoint: the status follows at once
        await handle.diagram("a").call(
            ApplyDiagramOps(base_rev=0, ops=(FlowRemoveNode(node_id="n:A"),))
        )
        assert statuses(await xref.call(ListXrefs()))["x:1"] == "dangling_from"
        await handle.session.call(DeleteDiagram(diagram_id="s"))
        assert statuses(await xref.call(ListXrefs())) == {
            "x:1": "dangling_both",
            "x:2": "dangling_both",
        }
        await create(handle, SEQ, diagram_id="s")
        assert statuses(await xref.call(ListXrefs(dangling_only=True))) == {
            "x:1": "dangling_from",
            "x:2": "dangling_from",
        }
        assert statuses(await xref.call(ListXrefs(label_contains="l"))) == {"x:2": "dangling_from"}
        with pytest.raises(InvalidParams) as bad_status:
            await xref.call(ListXrefs(status="broken"))
        assert bad_status.value.data == {"status": "broken"}
        neighbors = await xref.call(XrefNeighbors(object_ref=str(P)))
        assert neighbors.neighbors == sorted([str(A), str(MISSING)])
        assert (await xref.call(RemoveXref(xref_id="x:2"))).removed
        with pytest.raises(ResourceNotFound) as gone:
            await xref.call(RemoveXref(xref_id="x:2"))
        assert gone.value.data == {"xref_id": "x:2"}
        await handle.flush()
        assert set(saved_session(files).xrefs) == {"x:1"}
        # a restarted xref actor keeps its xrefs and rebuilds the existence index
        handle.registry.crash("xref")
        assert statuses(await xref.call(ListXrefs())) == {"x:1": "dangling_from"}


async def test_selection_ignores_missing_refs_and_follows_deletes() -> None:
    files = MemoryFiles()
    async with memory_session(files=files) as handle:
        await create(handle, diagram_id="a")
        await create(handle, SEQ, diagram_id="s")
        session = handle.session
        with handle.bus.subscribe(SelectionChanged) as events:
            reply = await session.call(
                UpdateSelection(object_refs=(P, MISSING, B, A, A), mode="add")
            )
            assert len(await drain(events)) == 1
        assert reply.applied == (A, B, P)
        assert reply.ignored == (MISSING,)
        removed = await session.call(UpdateSelection(object_refs=(B,), mode="remove"))
        assert removed.applied == (B,)
        assert (await session.call(ReadSelection())).object_refs == (A, P)
        # an op removes a selected object: reads prune it
        await handle.diagram("a").call(
            ApplyDiagramOps(base_rev=0, ops=(FlowRemoveNode(node_id="n:A"),))
        )
        assert (await session.call(ReadSelection())).object_refs == (P,)
        # a new object is selectable right after the apply that made it
        await handle.diagram("a").call(ApplyDiagramOps(base_rev=1, ops=(add_node("n:new"),)))
        new = parse_ref("d:a/flow/node/n:new")
        assert (await session.call(UpdateSelection(object_refs=(new,), mode="add"))).applied == (
            new,
        )
        await session.call(DeleteDiagram(diagram_id="s"))
        assert (await session.call(ReadSelection())).object_refs == (new,)
        replaced = await session.call(UpdateSelection(object_refs=(MISSING,)))
        assert replaced.applied == () and replaced.ignored == (MISSING,)
        assert (await session.call(ReadSelection())).object_refs == ()
        await session.call(UpdateSelection(object_refs=(new,)))
        await handle.flush()
        assert saved_session(files).selected_object_refs == (new,)


async def test_spotlights_are_per_agent() -> None:
    async with memory_session() as handle:
        await create(handle, diagram_id="a")
        await create(handle, SEQ, diagram_id="s")
        attention = handle.attention
        one = await attention.call(SetSpotlight(agent_id="agent:1", object_ref=A))
        assert one.diagram_id == "a"
        await attention.call(SetSpotlight(agent_id="agent:10", object_ref=P))
        await attention.call(SetSpotlight(agent_id="agent:2", object_ref=B))
        with pytest.raises(ResourceNotFound) as missing:
            await attention.call(SetSpotlight(agent_id="agent:2", object_ref=MISSING))
        assert missing.value.data == {"object_ref": str(MISSING)}
        assert (await attention.call(GetSpotlight(agent_id="agent:2"))).object_ref == B
        listing = await attention.call(ListSpotlights())
        assert [s.agent_id for s in listing.spotlights] == ["agent:1", "agent:2", "agent:10"]
        assert (await attention.call(ClearSpotlight(agent_id="agent:1"))).cleared == 1
        assert (await attention.call(ClearSpotlight(agent_id="agent:1"))).cleared == 0
        assert (await attention.call(GetSpotlight(agent_id="agent:2"))).object_ref == B
        await attention.cast(AgentSessionEnded(agent_id="agent:2"))
        # deleting a diagram purges the spotlights into it
        await handle.session.call(DeleteDiagram(diagram_id="s"))
        assert (await attention.call(ListSpotlights())).spotlights == ()


async def test_spotlight_seq_orders_agents_and_survives_purges() -> None:
    async with memory_session() as handle:
        await create(handle, diagram_id="a")
        await create(handle, SEQ, diagram_id="s")
        attention = handle.attention
        with handle.bus.subscribe(AttentionChanged) as events:
            first = await attention.call(SetSpotlight(agent_id="agent:1", object_ref=A))
            second = await attention.call(SetSpotlight(agent_id="agent:2", object_ref=P))
            again = await attention.call(SetSpotlight(agent_id="agent:2", object_ref=P))
            parts = [e.agent_id for e in await drain(events) if isinstance(e, AttentionChanged)]
        assert (first.seq, second.seq, again.seq) == (1, 2, 2)
        assert parts == ["agent:1", "agent:2"]  # the repeat of the newest is no change
        snapshot = await attention.call(GetAttention())
        newest = max(snapshot.spotlights, key=lambda s: s.seq)
        assert (newest.agent_id, newest.object_ref) == ("agent:2", P)
        assert (await attention.call(GetSpotlight(agent_id="agent:1"))).seq == 1
        assert (await attention.call(GetSpotlight(agent_id="agent:9"))).seq == 0
        await handle.session.call(DeleteDiagram(diagram_id="s"))
        moved = await attention.call(SetSpotlight(agent_id="agent:1", object_ref=B))
        assert moved.seq == 3  # the counter never goes back, even after a purge


async def test_read_context_and_ui_state() -> None:
    async with memory_session() as handle:
        await create(handle, diagram_id="a")
        session, attention = handle.session, handle.attention
        context = await session.call(GetReadContext())
        assert context.to_json() == {"session_active_diagram_id": "a"}
        # without a TUI, follow-AI stays on and TUI reports are ignored
        assert (await attention.call(SetFollowAi(enabled=False))).follow_ai
        with handle.bus.subscribe(AttentionChanged) as events:
            await attention.call(AttachUi())
            await attention.call(ReportHumanAttention(object_ref=A))
            await attention.call(ReportHumanAttention(object_ref=A))  # no change, no bump
            await attention.call(SetFollowAi(enabled=False))
            await attention.call(ReportView(scroll_x=3.0, panes={"tree": True}))
            await attention.cast(NoteSessionMutation())
            parts = [e.part for e in await drain(events) if isinstance(e, AttentionChanged)]
        assert parts == ["ui", "human", "follow_ai"]
        context = await session.call(GetReadContext())
        assert context.to_json() == {
            "session_active_diagram_id": "a",
            "human_active_diagram_id": "a",
            "human_active_object_ref": str(A),
            "follow_ai": False,
            "ui_rev": 4,
            "ui_session_rev": 1,
        }
        ui = (await attention.call(GetAttention())).ui
        assert (ui.scroll_x, ui.panes) == (3.0, {"tree": True})
        await session.call(DeleteDiagram(diagram_id="a"))
        after = (await session.call(GetReadContext())).to_json()
        assert "human_active_object_ref" not in after and "session_active_diagram_id" not in after
        await attention.call(DetachUi())
        assert (await session.call(GetReadContext())).to_json() == {}


async def test_walkthrough_lifecycle_and_ops() -> None:
    files = MemoryFiles()
    async with memory_session(files=files) as handle:
        session = handle.session
        created = await session.call(CreateWalkthrough(title="Tour"))
        assert created.walkthrough.walkthrough_id == "wt" and created.active_walkthrough_id is None
        second = await session.call(CreateWalkthrough(title="Other", make_active=True))
        assert second.walkthrough.walkthrough_id == "wt-2"
        assert second.active_walkthrough_id == "wt-2"
        with pytest.raises(InvalidParams, match="walkthrough_id already exists"):
            await session.call(CreateWalkthrough(title="x", walkthrough_id="wt"))
        tour = handle.walkthrough("wt")
        with handle.bus.subscribe(WalkthroughChanged) as events:
            reply = await tour.call(
                ApplyWalkthroughOps(
                    base_rev=0,
                    ops=(
                        WalkthroughSetTitle(title="Tour v2"),
                        WalkthroughAddNode(node_id="wn:1", title="One"),
                        WalkthroughAddNode(node_id="wn:2", title="Two"),
                        WalkthroughAddEdge(from_node_id="wn:1", to_node_id="wn:2", kind="next"),
                    ),
                )
            )
            assert [e.rev for e in await drain(events)] == [1]  # type: ignore[union-attr]
        assert reply.new_rev == 1 and "w:wt/node/wn:1" in reply.delta.added
        with pytest.raises(Conflict) as stale:
            await tour.call(ApplyWalkthroughOps(base_rev=0, ops=()))
        assert (
            stale.value.data is not None and stale.value.data["snapshot_tool"] == "walkthrough.stat"
        )
        assert (await tour.call(StatWalkthrough(walkthrough_id="wt"))).to_json() == {
            "rev": 1,
            "counts": {"nodes": 2, "edges": 1},
        }
        assert (
            await tour.call(GetWalkthroughNode(walkthrough_id="wt", node_id="wn:2"))
        ).title == "Two"
        with pytest.raises(ResourceNotFound) as no_node:
            await tour.call(GetWalkthroughNode(walkthrough_id="wt", node_id="wn:9"))
        assert no_node.value.data == {"walkthrough_id": "wt", "node_id": "wn:9"}
        diff = await tour.call(DiffWalkthrough(walkthrough_id="tour", since_rev=0))
        assert diff.to_rev == 1
        handle.registry.crash("walkthrough:wt")
        assert (await tour.call(GetWalkthrough(walkthrough_id="wt"))).title == "Tour v2"
        listing = await session.call(ListWalkthroughs())
        assert [(w.walkthrough_id, w.rev, w.nodes) for w in listing.walkthroughs] == [
            ("wt", 1, 2),
            ("wt-2", 0, 0),
        ]
        await session.call(OpenWalkthrough(walkthrough_id="wt"))
        deleted = await session.call(DeleteWalkthrough(walkthrough_id="wt"))
        assert deleted.active_walkthrough_id == "wt-2"
        with pytest.raises(ResourceNotFound):
            await session.call(OpenWalkthrough(walkthrough_id="wt"))
        await handle.flush()
        assert set(saved_session(files).walkthroughs) == {"wt-2"}


def test_ref_params_are_checked_with_the_contract_messages() -> None:
    with pytest.raises(InvalidParams) as bad:
        parse_ref_param("object_ref", "auth/n:start")
    assert bad.value.message == "invalid object_ref: object ref must start with 'd:'"
    assert bad.value.data == {"object_ref": "auth/n:start"}


_POOL = (A, B, P, MISSING, parse_ref("d:s/seq/message/m:0001"), parse_ref("d:zz/flow/node/n:A"))
_EXISTING = {A, B, P, parse_ref("d:s/seq/message/m:0001")}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["replace", "add", "remove"]),
            st.lists(st.sampled_from(_POOL), max_size=6),
        ),
        max_size=6,
    )
)
async def test_selection_updates_match_the_set_model(
    steps: list[tuple[SelectionMode, list[ObjectRef]]],
) -> None:
    async with memory_session() as handle:
        await create(handle, diagram_id="a")
        await create(handle, SEQ, diagram_id="s")
        model: set[ObjectRef] = set()
        for mode, refs in steps:
            reply = await handle.session.call(UpdateSelection(object_refs=tuple(refs), mode=mode))
            applied = {r for r in refs if r in _EXISTING}
            assert reply.applied == tuple(sorted(applied, key=ObjectRef.sort_key))
            assert reply.ignored == tuple(sorted(set(refs) - applied, key=str))
            if mode == "replace":
                model = applied
            elif mode == "add":
                model |= applied
            else:
                model -= applied
            selection = (await handle.session.call(ReadSelection())).object_refs
            assert selection == tuple(sorted(model, key=ObjectRef.sort_key))
