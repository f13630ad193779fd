"""Group E (route.find, xref.*) through the MCP client SDK on the real session actors."""

from __future__ import annotations

from nereid.actors.protocol import AttachUi, DeleteDiagram
from tests.mcp.mcp_testkit import memory_client
from tests.mcp.tools_testkit import demo_endpoint, error_of, structured

PAY = "d:index/flow/node/n:pay"
PSP = "d:payment-seq/seq/participant/p:psp"
GIFTWRAP = {
    "xref_id": "x:giftwrap",
    "from": "d:order-flow/flow/node/n:giftwrap",
    "to": "d:fulfilment/flow/node/n:pack",
    "kind": "relates_to",
    "label": "gift wrapping (planned, not drawn yet)",
    "status": "dangling_from",
}


async def test_xref_list_filters() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        everything = (await structured(client, "xref.list"))["xrefs"]
        ids = [x["xref_id"] for x in everything]
        assert len(ids) == 16 and ids == sorted(ids)
        assert await structured(client, "xref.list", {"dangling_only": True}) == {
            "xrefs": [GIFTWRAP]
        }
        assert (await structured(client, "xref.list", {"status": "dangling_*"}))["xrefs"] == [
            GIFTWRAP
        ]
        navs = await structured(client, "xref.list", {"kind": "nav", "involves_ref": PAY})
        assert [x["xref_id"] for x in navs["xrefs"]] == ["x:nav-pay-flow", "x:nav-pay-seq"]
        labelled = await structured(client, "xref.list", {"label_contains": "retr"})
        assert [x["xref_id"] for x in labelled["xrefs"]] == ["x:nav-pay-flow", "x:retry"]
        limited = await structured(client, "xref.list", {"limit": 2, "status": "", "kind": None})
        assert [x["xref_id"] for x in limited["xrefs"]] == ids[:2]
        assert await structured(client, "xref.list", {"limit": 0}) == {"xrefs": []}
        to = await structured(client, "xref.list", {"to_ref": "d:fulfilment/flow/node/n:pick"})
        assert [x["xref_id"] for x in to["xrefs"]] == ["x:pick"]


async def test_xref_list_refusals() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        status = await error_of(client, "xref.list", {"status": "broken", "from_ref": "nope"})
        assert (status.code, status.message, status.data) == (
            -32602,
            "invalid status (expected ok|dangling_from|dangling_to|dangling_both|dangling_*)",
            {"status": "broken"},
        )
        ref = await error_of(client, "xref.list", {"involves_ref": "d:x"})
        assert (ref.code, ref.message, ref.data) == (
            -32602,
            "invalid involves_ref: object ref is missing category path",
            {"involves_ref": "d:x"},
        )
        negative = await error_of(client, "xref.list", {"limit": -1})
        assert negative.code == -32602
        assert negative.message.startswith("failed to deserialize parameters: ")


async def test_xref_neighbors_by_direction() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        both = await structured(client, "xref.neighbors", {"object_ref": PAY})
        assert both == {
            "neighbors": [
                "d:payment-retry/flow/node/n:start",
                "d:payment-seq/seq/message/m:authorize-request",
            ]
        }
        assert await structured(
            client, "xref.neighbors", {"object_ref": PAY, "direction": "in"}
        ) == {"neighbors": []}
        into = await structured(
            client,
            "xref.neighbors",
            {"object_ref": "d:fulfilment/flow/node/n:pack", "direction": "in"},
        )
        assert into == {"neighbors": ["d:order-flow/flow/node/n:giftwrap"]}
        bad = await error_of(client, "xref.neighbors", {"object_ref": PAY, "direction": ""})
        assert (bad.code, bad.message, bad.data) == (
            -32602,
            "invalid direction (expected out|in|both)",
            {"direction": ""},
        )
        ref = await error_of(client, "xref.neighbors", {"object_ref": "x", "direction": "up"})
        assert (ref.code, ref.message, ref.data) == (
            -32602,
            "invalid object_ref: object ref must start with 'd:'",
            {"object_ref": "x"},
        )


async def test_xref_add_remove_and_dangling_after_a_diagram_delete() -> None:
    async with demo_endpoint() as (handle, endpoint), memory_client(endpoint) as client:
        new = {
            "xref_id": "x:loop",
            "from": "d:g/flow/node/n:z",
            "to": PSP,
            "kind": "implements",
            "label": "self-loop",
        }
        assert await structured(client, "xref.add", new) == {"xref_id": "x:loop", "status": "ok"}
        todo = {"xref_id": "x:todo", "from": PAY, "to": "d:g/flow/node/n:q", "kind": ""}
        assert await structured(client, "xref.add", todo) == {
            "xref_id": "x:todo",
            "status": "dangling_to",
        }
        listed = await structured(client, "xref.list", {"involves_ref": "d:g/flow/node/n:z"})
        assert listed == {"xrefs": [{**new, "status": "ok"}]}
        await handle.session.call(DeleteDiagram(diagram_id="g"))
        after = await structured(client, "xref.list", {"status": "dangling_*"})
        by_id = {x["xref_id"]: x["status"] for x in after["xrefs"]}
        assert by_id == {
            "x:giftwrap": "dangling_from",
            "x:loop": "dangling_from",
            "x:todo": "dangling_to",
        }
        assert await structured(client, "xref.remove", {"xref_id": "x:loop"}) == {"removed": True}
        gone = await error_of(client, "xref.remove", {"xref_id": "x:loop"})
        assert (gone.code, gone.message, gone.data) == (
            -32002,
            "xref not found",
            {"xref_id": "x:loop"},
        )
        remaining = await structured(client, "xref.list", {"dangling_only": True})
        assert [x["xref_id"] for x in remaining["xrefs"]] == ["x:giftwrap", "x:todo"]


async def test_xref_add_refusals_in_order() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        base = {"xref_id": "x:new", "from": PAY, "to": PSP, "kind": "k"}
        cases = [
            ({**base, "xref_id": "a/b", "from": "bad"}, "invalid xref_id: id must not contain '/'"),
            ({**base, "from": "bad", "to": "bad"}, "invalid from: object ref must start with 'd:'"),
            ({**base, "to": "d:x/flow/"}, "invalid to: object ref is missing object id"),
            ({**base, "xref_id": "x:pick"}, "xref_id already exists"),
        ]
        datas = [{"xref_id": "a/b"}, {"from": "bad"}, {"to": "d:x/flow/"}, {"xref_id": "x:pick"}]
        for (arguments, message), data in zip(cases, datas, strict=True):
            error = await error_of(client, "xref.add", arguments)
            assert (error.code, error.message, error.data) == (-32602, message, data)
        missing_kind = await error_of(client, "xref.add", {k: base[k] for k in base if k != "kind"})
        assert missing_kind.message.startswith("failed to deserialize parameters: ")
        assert len((await structured(client, "xref.list"))["xrefs"]) == 16


async def test_xref_mutations_bump_the_ui_session_rev() -> None:
    async with demo_endpoint() as (handle, endpoint), memory_client(endpoint) as client:
        await handle.attention.call(AttachUi())
        before = (await structured(client, "follow_ai.read"))["context"]["ui_session_rev"]
        await structured(client, "xref.add", {"xref_id": "x:n", "from": PAY, "to": PSP, "kind": ""})
        await structured(client, "xref.remove", {"xref_id": "x:n"})
        after = (await structured(client, "follow_ai.read"))["context"]["ui_session_rev"]
        assert after == before + 2


async def test_route_find_across_diagrams() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        routes = await structured(
            client, "route.find", {"from_ref": PAY, "to_ref": PSP, "limit": 3}
        )
        assert routes["routes"][0] == [
            PAY,
            "d:payment-retry/flow/node/n:start",
            "d:payment-retry/flow/node/n:attempt",
            "d:payment-seq/seq/message/m:charge",
            PSP,
        ]
        assert len(routes["routes"]) == 3
        assert all(r[0] == PAY and r[-1] == PSP for r in routes["routes"])
        hops = [len(r) for r in routes["routes"]]
        assert hops == sorted(hops)
        lexicographic = await structured(
            client,
            "route.find",
            {"from_ref": PAY, "to_ref": PSP, "limit": 3, "ordering": "lexicographic"},
        )
        assert sorted(lexicographic["routes"]) == sorted(routes["routes"])
        assert await structured(
            client, "route.find", {"from_ref": PAY, "to_ref": PSP, "max_hops": 2}
        ) == {"routes": []}
        # Same endpoint: one route of one ref, even for an object that does not exist.
        ghost = "d:nowhere/flow/node/n:x"
        assert await structured(client, "route.find", {"from_ref": ghost, "to_ref": ghost}) == {
            "routes": [[ghost]]
        }


async def test_route_find_refusals_in_the_contract_order() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        bad_from = await error_of(client, "route.find", {"from_ref": "x", "to_ref": "y"})
        assert (bad_from.code, bad_from.message, bad_from.data) == (
            -32602,
            "invalid from_ref: object ref must start with 'd:'",
            {"from_ref": "x"},
        )
        bad_to = await error_of(client, "route.find", {"from_ref": PAY, "to_ref": "d:a"})
        assert (bad_to.message, bad_to.data) == (
            "invalid to_ref: object ref is missing category path",
            {"to_ref": "d:a"},
        )
        # limit 0 answers before the ordering is checked (the contract's order).
        zero = {"from_ref": PAY, "to_ref": PSP, "limit": 0, "ordering": "shortest"}
        assert await structured(client, "route.find", zero) == {"routes": []}
        ordering = await error_of(client, "route.find", {**zero, "limit": 1})
        assert (ordering.code, ordering.message, ordering.data) == (
            -32602,
            "invalid ordering (expected fewest_hops|lexicographic)",
            {"ordering": "shortest"},
        )
        floaty = await error_of(
            client, "route.find", {"from_ref": PAY, "to_ref": PSP, "limit": 1.0}
        )
        assert floaty.message.startswith("failed to deserialize parameters: ")
