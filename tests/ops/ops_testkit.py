"""Shared helpers for the ops tests: run JSON ops, catch errors, the spec's example session."""

from __future__ import annotations

from typing import Any

import pytest

from nereid.errors import NereidError
from nereid.model import Ast, FlowchartAst, SequenceAst
from nereid.ops import (
    Delta,
    apply_ops,
    convert_diagram_ops,
)


def run(ast: Ast, *ops: dict[str, Any], diagram_id: str = "auth") -> tuple[Ast, Delta]:
    return apply_ops(ast, convert_diagram_ops(list(ops)), diagram_id=diagram_id)


def refuse(ast: Ast, *ops: dict[str, Any], diagram_id: str = "auth") -> NereidError:
    before = ast
    with pytest.raises(NereidError) as caught:
        run(ast, *ops, diagram_id=diagram_id)
    assert ast is before
    return caught.value


def delta_json(delta: Delta) -> dict[str, list[str]]:
    return delta.to_json()


def auth_flow() -> FlowchartAst:
    """The `auth` diagram of mcp-tools.md §0 (built with ops)."""
    ast, _ = run(
        FlowchartAst(),
        {"type": "flow_add_node", "node_id": "n:start", "label": "Start"},
        {"type": "flow_add_node", "node_id": "n:check", "label": "Check token", "shape": "diamond"},
        {"type": "flow_add_node", "node_id": "n:ok", "label": "Allow", "shape": "round"},
        {"type": "flow_add_node", "node_id": "n:deny", "label": "Deny"},
        {"type": "flow_add_edge", "edge_id": "e:0001", "from_node_id": "n:start", "to_node_id": "n:check"},
        {"type": "flow_add_edge", "edge_id": "e:0002", "from_node_id": "n:check", "to_node_id": "n:ok", "label": "valid"},
        {"type": "flow_add_edge", "edge_id": "e:0003", "from_node_id": "n:check", "to_node_id": "n:deny", "label": "invalid"},
    )  # fmt: skip
    assert isinstance(ast, FlowchartAst)
    return ast


def login_seq() -> SequenceAst:
    """The `login` diagram of mcp-tools.md §0 (alt block `b:0000` around m:0003 / m:0004)."""
    ast, _ = run(
        SequenceAst(),
        {"type": "seq_add_participant", "participant_id": "p:client", "mermaid_name": "Client"},
        {"type": "seq_add_participant", "participant_id": "p:api", "mermaid_name": "Api"},
        {"type": "seq_add_participant", "participant_id": "p:db", "mermaid_name": "Db"},
        {"type": "seq_add_message", "message_id": "m:0001", "from_participant_id": "p:client", "to_participant_id": "p:api", "kind": "sync", "text": "POST /login", "order_key": 1000},
        {"type": "seq_add_message", "message_id": "m:0002", "from_participant_id": "p:api", "to_participant_id": "p:db", "kind": "sync", "text": "select user", "order_key": 2000},
        {"type": "seq_add_message", "message_id": "m:0003", "from_participant_id": "p:db", "to_participant_id": "p:api", "kind": "return", "text": "row", "order_key": 3000},
        {"type": "seq_add_message", "message_id": "m:0004", "from_participant_id": "p:api", "to_participant_id": "p:client", "kind": "return", "text": "200 token", "order_key": 4000},
        {"type": "seq_add_block", "block_id": "b:0000", "kind": "alt", "header": "user exists", "sections": [
            {"section_id": "sec:0000:00", "message_ids": ["m:0003"]},
            {"section_id": "sec:0000:01", "header": "no", "message_ids": ["m:0004"]}]},
        diagram_id="login",
    )  # fmt: skip
    assert isinstance(ast, SequenceAst)
    return ast
