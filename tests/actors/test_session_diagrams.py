"""Diagram lifecycle and edits through messages: create, apply, read, diff, replace, delete."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from nereid.actors.protocol import (
    ApplyDiagramOps,
    CreateDiagramFromMermaid,
    DeleteDiagram,
    DiagramChanged,
    DiagramCreated,
    DiagramDeleted,
    DiffDiagram,
    GetActive,
    GetDiagram,
    ListDiagrams,
    OpenDiagram,
    ReplaceFromMermaid,
)
from nereid.errors import ActorNotFound, Conflict, InvalidParams, InvalidRequest, ResourceNotFound
from nereid.model import FlowchartAst, SequenceAst
from nereid.ops import FlowRemoveNode
from tests.actors.session_testkit import FLOW, SEQ, add_node, create, drain, memory_session


async def test_create_allocates_ids_by_kind_and_makes_active() -> None:
    async with memory_session() as handle:
        first = await create(handle)
        second = await create(handle)
        third = await create(handle, SEQ)
        assert (first.diagram.diagram_id, second.diagram.diagram_id) == ("flow", "flow-2")
        assert third.diagram.diagram_id == "seq"
        assert third.diagram.kind == "sequence" and third.diagram.rev == 0
        assert third.active_diagram_id == "seq"
        listing = await handle.session.call(ListDiagrams())
        assert [d.diagram_id for d in listing.diagrams] == ["flow", "flow-2", "seq"]
        assert listing.active_diagram_id == "seq"
        snapshot = await handle.diagram("flow").call(GetDiagram())
        assert isinstance(snapshot.ast, FlowchartAst) and set(snapshot.ast.nodes) == {
            "n:A",
            "n:B",
        }


async def test_create_refusals_are_typed_and_change_nothing() -> None:
    async with memory_session() as handle:
        await create(handle, diagram_id="auth")
        with pytest.raises(InvalidParams) as taken:
            await create(handle, diagram_id="auth")
        assert taken.value.message == "diagram_id already exists"
        assert taken.value.data == {"diagram_id": "auth"}
        with pytest.raises(InvalidParams) as bad_id:
            await create(handle, diagram_id="a/b")
        assert bad_id.value.message == "invalid diagram_id: id must not contain '/'"
        with pytest.raises(InvalidParams) as parse:
            await handle.session.call(
                CreateDiagramFromMermaid(mermaid="flowchart TD\n  A --> \n  B[[[x\n")
            )
        assert parse.value.message.startswith("cannot parse Mermaid flowchart diagram: ")
        assert parse.value.data is not None and parse.value.data["line"] >= 2
        with pytest.raises(InvalidParams) as kind:
            await handle.session.call(CreateDiagramFromMermaid(mermaid="pie\n"))
        assert kind.value.message.startswith("expected 'flowchart'/'graph'")
        listing = await handle.session.call(ListDiagrams())
        assert [d.diagram_id for d in listing.diagrams] == ["auth"]


async def test_an_apply_to_an_idle_diagram_is_committed_in_the_callers_task() -> None:
    """``@on(ApplyDiagramOps, inline=True)``: the caller runs the commit rule itself, with
    no pass of the scheduler (xref, attention and the persister take notes), and the
    snapshot, the event and the persister see the new rev as from the actor's task."""
    async with memory_session() as handle:
        await create(handle, diagram_id="d")
        diagram = handle.diagram("d")
        await trio.testing.wait_all_tasks_blocked()
        with handle.bus.subscribe(DiagramChanged) as events:
            with trio.testing.assert_no_checkpoints():
                reply = await diagram.call(ApplyDiagramOps(base_rev=0, ops=(add_node("n:c"),)))
                snapshot = await diagram.call(GetDiagram())
            seen = await drain(events)
        assert reply.new_rev == snapshot.rev == 1 and reply.applied == 1
        assert "n:c" in snapshot.ast.nodes  # type: ignore[union-attr]
        assert [(e.diagram.rev, e.delta) for e in seen] == [(1, reply.delta)]
        with pytest.raises(Conflict):  # a refusal reaches the caller, and the actor goes on
            await diagram.call(ApplyDiagramOps(base_rev=0, ops=(add_node("n:d"),)))
        assert (await diagram.call(ApplyDiagramOps(base_rev=1, ops=()))).new_rev == 1


async def test_apply_read_diff_and_events_per_rev() -> None:
    async with memory_session() as handle:
        await create(handle, diagram_id="d")
        diagram = handle.diagram("d")
        with handle.bus.subscribe(DiagramChanged) as events:
            one = await diagram.call(ApplyDiagramOps(base_rev=0, ops=(add_node("n:c"),)))
            two = await diagram.call(
                ApplyDiagramOps(base_rev=1, ops=(FlowRemoveNode(node_id="n:A"),))
            )
            empty = await diagram.call(ApplyDiagramOps(base_rev=2, ops=()))
            seen = await drain(events)
        assert (one.new_rev, two.new_rev, empty.new_rev, empty.applied) == (1, 2, 2, 0)
        assert [str(r) for r in one.delta.added] == ["d:d/flow/node/n:c"]
        assert one.to_json()["delta"]["added"] == ["d:d/flow/node/n:c"]
        assert [(e.rev, e.delta) for e in seen if isinstance(e, DiagramChanged)] == [
            (1, one.delta),
            (2, two.delta),
        ]
        snapshot = await diagram.call(GetDiagram())
        assert snapshot.rev == 2 and isinstance(snapshot.ast, FlowchartAst)
        assert "n:c" in snapshot.ast.nodes and "n:A" not in snapshot.ast.nodes
        diff = await diagram.call(DiffDiagram(since_rev=0))
        assert (diff.from_rev, diff.to_rev) == (0, 2)
        kinds = {c.kind: c.refs for c in diff.changes}
        assert "d:d/flow/node/n:c" in kinds["added"] and "d:d/flow/node/n:A" in kinds["removed"]
        with pytest.raises(InvalidParams, match="since_rev must be <= current rev"):
            await diagram.call(DiffDiagram(since_rev=5))


async def test_dry_run_commits_nothing() -> None:
    async with memory_session() as handle:
        await create(handle, diagram_id="d")
        diagram = handle.diagram("d")
        with handle.bus.subscribe(DiagramChanged) as events:
            proposed = await diagram.call(
                ApplyDiagramOps(base_rev=0, ops=(add_node("n:c"),), dry_run=True)
            )
            assert await drain(events) == []
        assert proposed.dry_run and proposed.new_rev == 1
        assert (await diagram.call(GetDiagram())).rev == 0


async def test_stale_base_rev_is_a_conflict_with_the_ops_layer_data() -> None:
    async with memory_session() as handle:
        await create(handle, diagram_id="d")
        diagram = handle.diagram("d")
        await diagram.call(ApplyDiagramOps(base_rev=0, ops=(add_node("n:c"),)))
        with pytest.raises(Conflict) as stale:
            await diagram.call(ApplyDiagramOps(base_rev=0, ops=(add_node("n:e"),)))
        error = stale.value
        assert error.message == "conflict: stale base_rev"
        assert error.to_jsonrpc()["code"] == -32600
        assert error.data is not None
        assert (error.data["base_rev"], error.data["current_rev"]) == (0, 1)
        assert error.data["snapshot_tool"] == "diagram.stat"
        assert error.data["digest"]["rev"] == 1 and "ast_digest" in error.data
        with pytest.raises(ResourceNotFound) as missing:
            await diagram.call(ApplyDiagramOps(base_rev=1, ops=(FlowRemoveNode(node_id="n:zz"),)))
        assert missing.value.message == "object not found"
        assert missing.value.to_jsonrpc()["code"] == -32002
        with pytest.raises(InvalidParams) as bad:
            await diagram.call(ApplyDiagramOps(base_rev=1, ops=(add_node("n:A"),)))
        assert bad.value.message == "object already exists"
        assert (await diagram.call(GetDiagram())).rev == 1


async def test_replace_from_mermaid_keeps_ids_and_bumps_rev_once() -> None:
    async with memory_session() as handle:
        await create(handle, diagram_id="d")
        diagram = handle.diagram("d")
        before = await diagram.call(GetDiagram())
        assert isinstance(before.ast, FlowchartAst)
        edge_ids = set(before.ast.edges)
        reply = await diagram.call(
            ReplaceFromMermaid(mermaid="flowchart TD\n  A[Start] --> B[Done]\n  B --> C[New]\n")
        )
        assert reply.changed and reply.new_rev == 1
        after = await diagram.call(GetDiagram())
        assert isinstance(after.ast, FlowchartAst)
        assert edge_ids < set(after.ast.edges) and "n:C" in after.ast.nodes
        same = await diagram.call(
            ReplaceFromMermaid(mermaid="flowchart TD\n  A[Start] --> B[Done]\n  B --> C[New]\n")
        )
        assert not same.changed and same.new_rev == 1
        with pytest.raises(InvalidParams, match="does not match the diagram kind"):
            await diagram.call(ReplaceFromMermaid(mermaid=SEQ))
        with pytest.raises(Conflict):
            await diagram.call(ReplaceFromMermaid(mermaid=FLOW, base_rev=0))


async def test_open_and_delete_retarget_the_active_diagram() -> None:
    async with memory_session() as handle:
        await create(handle, diagram_id="b")
        await create(handle, SEQ, diagram_id="a")
        await create(handle, diagram_id="c")
        assert (await handle.session.call(OpenDiagram(diagram_id="b"))).active_diagram_id == "b"
        with pytest.raises(ResourceNotFound) as unknown:
            await handle.session.call(OpenDiagram(diagram_id="zz"))
        assert unknown.value.data == {"diagram_id": "zz"}
        with handle.bus.subscribe(DiagramDeleted, DiagramCreated) as events:
            deleted = await handle.session.call(DeleteDiagram(diagram_id="b"))
            assert [type(e) for e in await drain(events)] == [DiagramDeleted]
        assert (deleted.deleted_diagram_id, deleted.active_diagram_id) == ("b", "a")
        with pytest.raises(ActorNotFound):
            handle.diagram("b")
        active = await handle.session.call(GetActive())
        assert active.active_diagram_id == "a"
        await handle.session.call(DeleteDiagram(diagram_id="c"))
        last = await handle.session.call(DeleteDiagram(diagram_id="a"))
        assert last.active_diagram_id is None
        assert (await handle.session.call(ListDiagrams())).diagrams == ()
        # the id is free again, and the new diagram starts over at rev 0
        again = await create(handle, SEQ, diagram_id="b")
        assert again.diagram.rev == 0
        assert isinstance((await handle.diagram("b").call(GetDiagram())).ast, SequenceAst)


async def test_diff_window_errors_map_to_invalid_request() -> None:
    async with memory_session() as handle:
        await create(handle, diagram_id="d")
        diagram = handle.diagram("d")
        for rev in range(70):
            await diagram.call(ApplyDiagramOps(base_rev=rev, ops=(add_node(f"n:r{rev}"),)))
        with pytest.raises(InvalidRequest) as old:
            await diagram.call(DiffDiagram(since_rev=0))
        assert old.value.message == "delta unavailable; use diagram.read"


async def test_concurrent_applies_serialise_without_lost_updates() -> None:
    """Many tasks apply to one diagram with rebase-on-conflict: revs strictly increase,
    every node lands exactly once."""
    async with memory_session() as handle:
        await create(handle, diagram_id="d")
        diagram = handle.diagram("d")
        revs: list[int] = []
        with handle.bus.subscribe(DiagramChanged) as events:

            async def writer(worker: int) -> None:
                for step in range(5):
                    while True:
                        base = (await diagram.call(GetDiagram())).rev
                        try:
                            reply = await diagram.call(
                                ApplyDiagramOps(
                                    base_rev=base, ops=(add_node(f"n:w{worker}s{step}"),)
                                )
                            )
                        except Conflict:
                            continue
                        revs.append(reply.new_rev)
                        break

            async with trio.open_nursery() as nursery:
                for worker in range(8):
                    nursery.start_soon(writer, worker)
            published = [e.rev for e in await drain(events) if isinstance(e, DiagramChanged)]
        assert sorted(revs) == list(range(1, 41))
        assert published == list(range(1, 41))
        final = await diagram.call(GetDiagram())
        assert isinstance(final.ast, FlowchartAst) and final.rev == 40
        assert {f"n:w{w}s{s}" for w in range(8) for s in range(5)} <= set(final.ast.nodes)
