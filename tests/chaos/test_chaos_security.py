"""Security: ids that try to leave the folder, Host/Origin, tokens, regexes that would hang."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
import trio
from mcp.shared.exceptions import MCPError

from nereid.store.files import FolderFiles
from nereid.store.session_io import load_session
from nereid.testing.crash import start_server
from nereid.testing.mcp_workspace import connect
from nereid.testing.workspace import Refused
from tests.chaos.chaos_testkit import FLOW, served_session

HOSTILE_IDS = (
    "../x",
    "../../escaped",
    "a/b",
    "a\\b",
    "..",
    ".",
    "/etc/passwd",
    "a\x00b",
    "\x00",
    "x" * 300,
    "é" * 200,
    "CON",
    "con.mmd",
    "NUL",
    "~x",
    "nereid-session.meta.json",
    ".hidden",
    " ",
    "",
)
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-03-26",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
JSON_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


async def test_hostile_ids_never_write_outside_the_session_folder(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    folder = outer / "session"
    (tmp_path / "bait").mkdir()
    before = tree(tmp_path)
    accepted: dict[str, list[str]] = {"diagram": [], "walkthrough": []}
    async with served_session(folder) as (handle, url):
        async with connect(url, "intruder") as workspace:
            for hostile in HOSTILE_IDS:
                for kind, tool, args in (
                    ("diagram", "diagram.create_from_mermaid", {"mermaid": FLOW}),
                    ("walkthrough", "walkthrough.create", {"title": "t"}),
                ):
                    try:
                        await workspace.call(tool, {**args, f"{kind}_id": hostile})
                    except Refused as refused:
                        assert refused.code == -32602, (hostile, refused.message)
                        assert refused.message.startswith(f"invalid {kind}_id"), refused.message
                    else:
                        accepted[kind].append(hostile)
            await handle.flush()
    outside = {p for p in tree(tmp_path) - before if not p.startswith("outer")}
    assert outside == set()
    inside = {p for p in tree(tmp_path) - before if p.startswith("outer")}
    assert all(p == "outer" or p.startswith("outer/session") for p in inside), inside
    for path in folder.rglob("*"):
        assert not path.is_symlink()
        assert path.resolve().is_relative_to(folder.resolve())
    loaded = load_session(FolderFiles(folder))
    assert loaded.issues == ()
    assert sorted(loaded.session.diagrams) == sorted(accepted["diagram"])
    assert sorted(loaded.session.walkthroughs) == sorted(accepted["walkthrough"])
    assert "../x" not in accepted["diagram"] and "a/b" not in accepted["diagram"]


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Host": "evil.example"}, 421),
        ({"Host": "127.0.0.1.evil.example"}, 421),
        ({"Origin": "http://evil.example"}, 403),
        ({"Origin": "null"}, 403),
    ],
)
async def test_foreign_host_or_origin_is_refused(
    tmp_path: Path, headers: dict[str, str], status: int
) -> None:
    async with served_session(tmp_path / "s") as (_, url):
        async with httpx2.AsyncClient() as raw:
            response = await raw.post(url, json=INITIALIZE, headers={**JSON_HEADERS, **headers})
            assert response.status_code == status


def test_a_non_loopback_host_without_a_token_is_refused_before_binding(tmp_path: Path) -> None:
    environment = {k: v for k, v in os.environ.items() if k != "NEREID_TOKEN"}
    for host in ("0.0.0.0", "192.0.2.1"):
        done = subprocess.run(
            [sys.executable, "-m", "nereid", "serve", str(tmp_path / "s"), "--host", host],
            capture_output=True,
            text=True,
            timeout=60,
            env=environment,
        )
        assert done.returncode == 2, done.stderr
        assert "token" in done.stderr and host in done.stderr
        assert "listening" not in done.stderr
    assert not (tmp_path / "s").exists()


async def test_a_token_from_the_flag_or_the_environment_is_required(tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        by_flag = await start_server(
            nursery, tmp_path / "a", durable=False, extra=("--token", "fl4g")
        )
        by_env = await start_server(
            nursery, tmp_path / "b", durable=False, env={"NEREID_TOKEN": "env1r0n"}
        )
        try:
            for server, token in ((by_flag, "fl4g"), (by_env, "env1r0n")):
                async with httpx2.AsyncClient() as raw:
                    missing = await raw.post(server.url, json=INITIALIZE, headers=JSON_HEADERS)
                    wrong = await raw.post(
                        server.url,
                        json=INITIALIZE,
                        headers={**JSON_HEADERS, "Authorization": "Bearer nope"},
                    )
                assert (missing.status_code, wrong.status_code) == (401, 401)
                authorization = {"Authorization": f"Bearer {token}"}
                async with connect(server.url, "authorised", authorization) as workspace:
                    listing = await workspace.call("diagram.list", {})
                    assert [d["diagram_id"] for d in listing["diagrams"]] == ["flow"]
        finally:
            for server in (by_flag, by_env):
                server.process.kill()
                await server.process.wait()


REDOS_PATTERNS = (
    "(a+)+$",
    "(a|aa)*$",
    "(a|a)*b",
    "^(\\w+\\s?)*$",
    "(?:a?){30}a{30}",
    "(.*a){25}",
    "(x+x+)+y",
    "\\1(a)",
    "(a*)*b",
    "a{4000}b",
)


async def test_regexes_that_would_backtrack_are_answered_or_refused_promptly(
    tmp_path: Path,
) -> None:
    long_text = "a" * 5000 + "!"
    mermaid = f"sequenceDiagram\n  participant A\n  participant B\n  A->>B: {long_text}\n"
    async with served_session(tmp_path / "s") as (_, url):
        async with connect(url, "regexer") as workspace:
            await workspace.call(
                "diagram.create_from_mermaid", {"mermaid": mermaid, "diagram_id": "long"}
            )
            for pattern in REDOS_PATTERNS:
                arguments = {"diagram_id": "long", "needle": pattern, "mode": "regex"}
                with trio.fail_after(20):  # a hang guard, not a timing assertion
                    try:
                        found = await workspace.client.call_tool("seq.search", arguments)
                    except MCPError as refused:
                        assert refused.code == -32602, (pattern, refused.message)
                        assert refused.message.startswith(
                            ("regex too expensive: ", "invalid regex: ")
                        ), (pattern, refused.message)
                    else:
                        messages = (found.structured_content or {})["messages"]
                        assert messages in ([], ["d:long/seq/message/m:0001"]), pattern
            with trio.fail_after(20):
                fine = await workspace.call(
                    "seq.search", {"diagram_id": "long", "needle": "a+!$", "mode": "regex"}
                )
            assert fine["messages"] == ["d:long/seq/message/m:0001"]
