"""Annotations hosts act on: only deletes and edits may ask the person for approval."""

from __future__ import annotations

from tests.mcp.session_kit import memory_client, memory_session

DELETES_AND_EDITS = {
    "diagram.apply_ops",
    "diagram.delete",
    "walkthrough.apply_ops",
    "walkthrough.delete",
    "xref.remove",
}
PRESENCE = {
    "attention.agent.set",
    "attention.agent.clear",
    "follow_ai.set",
    "selection.update",
    "diagram.open",
    "walkthrough.open",
}


async def test_only_deletes_and_edits_are_destructive() -> None:
    async with memory_session(None, demo=True) as endpoint:
        async with memory_client(endpoint) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    destructive = set()
    for name, tool in tools.items():
        hints = tool.annotations
        assert hints is not None, name
        assert hints.open_world_hint is False, name
        if hints.read_only_hint:
            assert hints.destructive_hint is None and hints.idempotent_hint is None, name
        elif hints.destructive_hint:
            destructive.add(name)
    assert destructive == DELETES_AND_EDITS
    for name in PRESENCE:
        hints = tools[name].annotations
        assert hints is not None
        assert (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint) == (
            False,
            False,
            True,
        ), name
