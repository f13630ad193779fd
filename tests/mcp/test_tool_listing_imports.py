"""`nereid --mcp` lists its tools before importing the layers they use (issue 18).

With the listing this code kept before (the parse cache), the stdio path up to the
`tools/list` reply — the session command's module, the endpoint, the tool table listed
from the kept entries, the resources following the bus — imports none of the Mermaid, ops, query, render or offload layers,
nor the actors beyond the runtime's opener: they load with the session, after the
handshake. Checked in a fresh interpreter (this one has imported everything).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from nereid.mcp.catalog import all_tools
from nereid.store.parse_cache import CACHE_DIR_ENV, ParseCache

_CHILD = """
import json, sys
import trio
import nereid.cli
import nereid.commands.session
from nereid.actors.session_runtime import open_session_runtime
from nereid.mcp import McpEndpoint
from nereid.mcp.catalog import AgentSessionHooks, SessionDiagramResources, session_tools
from nereid.store.parse_cache import ParseCache

async def main():
    cache = ParseCache.from_env()
    kept = cache.tool_listing()
    tools = session_tools(kept)
    async with open_session_runtime() as runtime:
        endpoint = McpEndpoint(runtime, tools, resources=SessionDiagramResources(runtime),
                               hooks=AgentSessionHooks(runtime))
        async with trio.open_nursery() as nursery:
            await nursery.start(endpoint.run_background)  # the resources' subscription too
            listing = endpoint.tool_listing("dotted")
            nursery.cancel_scope.cancel()
    print(json.dumps({"kept": kept is not None, "listing": listing, "modules": sorted(sys.modules)}))

trio.run(main)
"""

_LAYERS = ("mermaid", "ops", "query", "render", "offload", "ui")


def test_the_stdio_path_lists_tools_without_importing_the_layers(tmp_path: Path) -> None:
    cache = ParseCache.from_env({CACHE_DIR_ENV: str(tmp_path)})
    assert cache is not None
    generated = all_tools().listing()
    cache.keep_tool_listing(generated)
    cache.close()
    env = {**os.environ, CACHE_DIR_ENV: str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env, check=True
    )
    report = json.loads(done.stdout)
    assert report["kept"]
    assert report["listing"] == {"tools": list(generated.values())}
    modules = [m.split(".") for m in report["modules"] if m.startswith("nereid.")]
    layers = sorted(".".join(m) for m in modules if m[1] in _LAYERS)
    actors = sorted(".".join(m) for m in modules if m[1] == "actors" and len(m) > 2)
    assert layers == []
    assert actors == ["nereid.actors.session_runtime"]
    assert "nereid.mcp.tools_diagrams" not in report["modules"]
