"""The attention actor keeps each agent's display name with its spotlight."""

from __future__ import annotations

from nereid.actors.protocol import (
    AgentSessionEnded,
    AttentionChanged,
    ClearSpotlight,
    GetAttention,
    GetSpotlight,
    ListSpotlights,
    SetSpotlight,
)
from nereid.model import parse_ref
from tests.actors.session_testkit import SEQ, create, drain, memory_session

A = parse_ref("d:a/flow/node/n:A")
P = parse_ref("d:s/seq/participant/p:A")


async def test_names_are_stored_listed_and_dropped_with_the_spotlight() -> None:
    async with memory_session() as handle:
        await create(handle, diagram_id="a")
        await create(handle, SEQ, diagram_id="s")
        attention = handle.attention
        set_one = SetSpotlight(agent_id="agent:1", object_ref=A, agent_name="claude-code")
        assert (await attention.call(set_one)).agent_name == "claude-code"
        await attention.call(SetSpotlight(agent_id="agent:2", object_ref=P, agent_name="cursor"))
        await attention.call(SetSpotlight(agent_id="agent:3", object_ref=A))
        listing = await attention.call(ListSpotlights())
        assert [(s.agent_id, s.agent_name) for s in listing.spotlights] == [
            ("agent:1", "claude-code"),
            ("agent:2", "cursor"),
            ("agent:3", None),
        ]
        snapshot = await attention.call(GetAttention())
        assert {s.agent_id: s.agent_name for s in snapshot.spotlights} == {
            "agent:1": "claude-code",
            "agent:2": "cursor",
            "agent:3": None,
        }
        # A cleared spotlight forgets the name; so does an ended session.
        await attention.call(ClearSpotlight(agent_id="agent:1"))
        assert (await attention.call(GetSpotlight(agent_id="agent:1"))).agent_name is None
        await attention.call(SetSpotlight(agent_id="agent:1", object_ref=A))
        assert (await attention.call(GetSpotlight(agent_id="agent:1"))).agent_name is None
        await attention.cast(AgentSessionEnded(agent_id="agent:2"))
        names = [
            (s.agent_id, s.agent_name) for s in (await attention.call(ListSpotlights())).spotlights
        ]
        assert names == [("agent:1", None), ("agent:3", None)]


async def test_a_new_name_on_the_same_spotlight_is_published_without_a_new_seq() -> None:
    async with memory_session() as handle:
        await create(handle, diagram_id="a")
        attention = handle.attention
        with handle.bus.subscribe(AttentionChanged) as events:
            first = await attention.call(SetSpotlight(agent_id="agent:1", object_ref=A))
            named = await attention.call(
                SetSpotlight(agent_id="agent:1", object_ref=A, agent_name="claude-code")
            )
            again = await attention.call(
                SetSpotlight(agent_id="agent:1", object_ref=A, agent_name="claude-code")
            )
            changes = [e for e in await drain(events) if isinstance(e, AttentionChanged)]
        assert (first.seq, named.seq, again.seq) == (1, 1, 1)
        assert (first.agent_name, named.agent_name, again.agent_name) == (
            None,
            "claude-code",
            "claude-code",
        )
        assert [(e.part, e.agent_id) for e in changes] == [("spotlight", "agent:1")] * 2
