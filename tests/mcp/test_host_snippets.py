"""The README's host configurations start a working server that lists what the host needs.

Each JSON / TOML snippet under "Connecting hosts" is parsed as the host would: a stdio entry
(`command` + `args`) is started (`nereid` mapped to this interpreter's `-m nereid`, the
folder placeholder to a fresh folder) and asked for its tools through the SDK's stdio client;
an HTTP entry's URL (its port mapped to a live server's) is connected to with the SDK's HTTP
client. Hosts said to need underscore names must get only names of the strictest pattern.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from mcp import Client, StdioServerParameters

from tests.mcp.session_kit import REPO, http_session

STRICTEST = re.compile(r"^[a-z_][a-z0-9_]{0,63}$")
SNIPPET = re.compile(r"```(json|toml)\n(.*?)```", re.S)


def _snippets() -> list[dict[str, Any]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Connecting hosts") :]
    section = section[: section.index("\n## ", 1)]
    entries = []
    for kind, body in SNIPPET.findall(section):
        config = json.loads(body) if kind == "json" else tomllib.loads(body)
        servers = config.get("mcpServers") or config.get("servers") or config["mcp_servers"]
        entries.append(servers["nereid"])
    return entries


def _needs_underscores(entry: dict[str, Any]) -> bool:
    return "underscore" in entry.get("args", ()) or "tool_names=underscore" in entry.get("url", "")


async def _names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


def _check(entry: dict[str, Any], names: list[str]) -> None:
    assert "diagram_list" in names or "diagram.list" in names
    if _needs_underscores(entry):
        assert all(STRICTEST.fullmatch(name) for name in names), entry
    else:
        assert "diagram.list" in names


async def test_every_host_snippet_starts_a_working_server(tmp_path: Path) -> None:
    entries = _snippets()
    assert len(entries) == 5  # Claude Code, Claude Desktop, Codex, Cursor, VS Code
    stdio = [e for e in entries if "command" in e]
    http = [e for e in entries if "url" in e]
    assert len(stdio) == 2 and len(http) == 3
    for entry in stdio:
        assert entry["command"] == "nereid"
        args = [str(tmp_path / "s") if a == "/path/to/session" else a for a in entry["args"]]
        params = StdioServerParameters(command=sys.executable, args=["-m", "nereid", *args])
        async with Client(params) as client:
            _check(entry, await _names(client))
    async with http_session(None, demo=True) as (url, _endpoint):
        live = urlsplit(url)
        for entry in http:
            if "type" in entry:
                assert entry["type"] == "http"
            wanted = urlsplit(entry["url"])
            assert (wanted.hostname, wanted.port, wanted.path) == ("127.0.0.1", 27435, "/mcp")
            target = urlunsplit((live.scheme, live.netloc, live.path, wanted.query, ""))
            async with Client(target) as client:
                _check(entry, await _names(client))
