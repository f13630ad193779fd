"""Bad input against a live server: generated and schema-breaking tool arguments.

Arguments come from each tool's `inputSchema` as `tools/list` gives it
(`nereid.testing.schema_inputs`); examples are drawn up front with a fixed Hypothesis seed
(`derandomize`), then sent over Streamable HTTP to a served session. Every answer is judged
by `nereid.testing.bad_input.judge`: no internal error, no crash, every error precise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nereid.testing.bad_input import Probe, judge, probe
from nereid.testing.faults import RestartCounter
from nereid.testing.mcp_workspace import connect
from nereid.testing.schema_inputs import accepts, arguments, mutations
from tests.chaos.chaos_testkit import FLOW, SEQ, served_session

VALID_PER_TOOL = 6
BROKEN_PER_TOOL = 4
CALL_DEADLINE = 20.0


def draw_examples(strategy: st.SearchStrategy[Any], count: int) -> list[Any]:
    """`count` examples of `strategy`, the same on every run."""
    found: list[Any] = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(example: Any) -> None:
        found.append(example)

    collect()
    return found[:count]


async def seed(workspace: Any) -> None:
    await workspace.create_flowchart("flow", FLOW)
    await workspace.call(
        "diagram.create_from_mermaid", {"mermaid": SEQ, "diagram_id": "seq", "make_active": False}
    )
    await workspace.create_walkthrough("tour", "Tour")
    await workspace.add_walkthrough_node("tour", 0, "wn:1")
    await workspace.add_xref("x:1", "d:flow/flow/node/n:start", "d:seq/seq/participant/p:a")


def _destructive_last(name: str) -> tuple[bool, str]:
    return (name.endswith((".delete", ".remove")), name)


async def test_generated_and_broken_arguments_get_precise_answers(tmp_path: Path) -> None:
    counter = RestartCounter()
    async with served_session(tmp_path / "s", counter) as (_, url):
        async with connect(url, "fuzzer") as workspace:
            await seed(workspace)
            listing = await workspace.client.list_tools()
            tools = sorted(listing.tools, key=lambda t: _destructive_last(t.name))
            assert len(tools) >= 46
            probes: list[Probe] = []
            for tool in tools:
                schema = dict(tool.input_schema)
                valid = draw_examples(arguments(schema), VALID_PER_TOOL)
                assert all(accepts(schema, example) for example in valid), tool.name
                cases: list[tuple[dict[str, Any], str | None]] = [(v, None) for v in valid]
                if schema.get("properties"):
                    broken = draw_examples(mutations(schema), BROKEN_PER_TOOL)
                    assert not any(accepts(schema, args) for args, _ in broken), tool.name
                    cases.extend(broken)
                for args, key in cases:
                    result = Probe(tool=tool.name, arguments=args, broken_key=key, hung=True)
                    with trio.move_on_after(CALL_DEADLINE):
                        result = await probe(workspace.client, tool.name, args, key)
                    probes.append(result)
            problems = [p for p in (judge(r) for r in probes) if p is not None]
            assert problems == [], "\n".join(problems[:30])
            assert sum(1 for r in probes if r.ok) > len(tools) // 2  # calls got past the decoder
            assert sum(1 for r in probes if r.broken_key is not None) >= 2 * len(tools)
            still = await workspace.client.list_tools()  # the server is still serving
            assert len(still.tools) == len(listing.tools)
    assert sum(counter.crashes.values()) == 0, dict(counter.crashes)


@pytest.mark.parametrize("size", [2 * 1024 * 1024])
async def test_oversized_input_is_refused_before_it_is_read(tmp_path: Path, size: int) -> None:
    async with served_session(tmp_path / "s") as (_, url):
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "diagram.create_from_mermaid", "arguments": {"mermaid": "x" * size}},
        }
        headers = {"Accept": "application/json, text/event-stream"}
        with trio.fail_after(CALL_DEADLINE):
            async with httpx2.AsyncClient() as raw:
                response = await raw.post(url, json=body, headers=headers)
        assert response.status_code == 413
        async with connect(url, "after") as workspace:  # and it keeps serving
            assert (await workspace.call("diagram.list", {}))["diagrams"] == []
