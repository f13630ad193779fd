"""Every diagram and walkthrough tool over both transports, on a real session.

stdio: `python -m nereid --mcp <folder>` in a subprocess; HTTP: the same session code
served in-process on an ephemeral port. Both run the scripted scenario of
`session_scenario` (success shapes and every error class).
"""

from __future__ import annotations

from pathlib import Path

from nereid.mcp.catalog import all_tools
from nereid.mcp.tools_diagram_reads import TOOLS as READ_TOOLS
from nereid.mcp.tools_diagrams import TOOLS as DIAGRAM_TOOLS
from nereid.mcp.tools_walkthroughs import TOOLS as WALKTHROUGH_TOOLS
from tests.mcp.session_kit import Agent, http_session, stdio_client
from tests.mcp.session_scenario import run_all

OURS = {
    "diagram.list", "diagram.create_from_mermaid", "diagram.open", "diagram.delete",
    "diagram.current", "walkthrough.list", "walkthrough.open", "walkthrough.current",
    "walkthrough.create", "walkthrough.delete", "walkthrough.read", "walkthrough.get_node",
    "walkthrough.stat", "walkthrough.render_text", "walkthrough.diff", "walkthrough.apply_ops",
    "diagram.stat", "diagram.read", "diagram.get_ast", "diagram.get_slice",
    "diagram.render_text", "diagram.diff", "diagram.apply_ops", "diagram.propose_ops",
}  # fmt: skip


def test_the_modules_declare_exactly_our_tools_and_the_catalog_serves_them() -> None:
    declared = [t.name for t in (*DIAGRAM_TOOLS, *READ_TOOLS, *WALKTHROUGH_TOOLS)]
    assert sorted(declared) == sorted(OURS)
    assert OURS <= set(all_tools().names())


async def test_every_tool_over_stdio_on_a_new_folder(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    async with stdio_client("--mcp", str(folder)) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert OURS <= listed
        await run_all(Agent(client))
    assert (folder / "nereid-session.meta.json").is_file()


async def test_every_tool_over_http_on_a_new_folder(tmp_path: Path) -> None:
    from tests.mcp.test_mcp_http import http_client

    async with (
        http_session(tmp_path / "proj") as (url, _),
        http_client(url, "http-agent") as client,
    ):
        await run_all(Agent(client))
