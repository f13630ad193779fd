"""Diagrams as resources, as hosts discover them: a URI template, and list-change news."""

from __future__ import annotations

import trio
from mcp_types import ResourceListChangedNotification

from tests.mcp.session_kit import Agent, memory_client, memory_session

FLOW = "flowchart TD\n  a --> b\n"


async def test_templates_list_and_list_changed_on_create_and_delete() -> None:
    changes: list[str] = []
    changed = trio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, ResourceListChangedNotification):
            changes.append("list_changed")
            changed.set()

    async with memory_session(None, demo=True) as endpoint:
        async with memory_client(endpoint, message_handler=on_message) as client:
            assert client.server_capabilities is not None
            resources = client.server_capabilities.resources
            assert resources is not None and resources.list_changed is True
            templates = (await client.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["nereid://diagram/{diagram_id}"]
            assert templates[0].mime_type == "text/plain"
            agent = Agent(client)
            before = {str(r.uri) for r in (await client.list_resources()).resources}
            await agent.ok("diagram.create_from_mermaid", {"mermaid": FLOW, "diagram_id": "new"})
            with trio.fail_after(5):
                await changed.wait()
            after = {str(r.uri) for r in (await client.list_resources()).resources}
            assert after - before == {"nereid://diagram/new"}
            changed = trio.Event()
            await agent.ok("diagram.delete", {"diagram_id": "new"})
            with trio.fail_after(5):
                await changed.wait()
            assert {str(r.uri) for r in (await client.list_resources()).resources} == before
            assert changes == ["list_changed", "list_changed"]
            text = await client.read_resource("nereid://diagram/order-flow")
            assert text.contents
