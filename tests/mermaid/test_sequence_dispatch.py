"""`nereid.mermaid` as one import point: kind detection (mermaid.md §2) and `parse_mermaid`."""

from __future__ import annotations

import pytest

import nereid.mermaid as mermaid
from nereid.mermaid import MermaidError, detect_kind, parse_mermaid
from nereid.model.flowchart import FlowchartAst
from nereid.model.sequence import SequenceAst


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("sequenceDiagram\nA->>B: x", "sequence"),
        ("%% comment\n\n  sequenceDiagramX", "sequence"),
        ("flowchart LR\na-->b", "flowchart"),
        ("graph TD", "flowchart"),
        ("graphical", "flowchart"),
        ("---\ntitle: t\n---\nflowchart", "flowchart"),
    ],
)
def test_detect_kind(text: str, kind: str) -> None:
    assert detect_kind(text) == kind


@pytest.mark.parametrize(("text", "line"), [("pie\n", 1), ("%% x\n\nclassDiagram", 3), ("", None)])
def test_detect_kind_errors(text: str, line: int | None) -> None:
    with pytest.raises(MermaidError) as info:
        detect_kind(text)
    assert info.value.kind == "UnknownDiagramKind"
    assert info.value.line == line
    assert str(info.value) == mermaid.DETECT_ERROR


def test_parse_mermaid_dispatches() -> None:
    assert isinstance(parse_mermaid("sequenceDiagram\nA->>B: x"), SequenceAst)
    assert isinstance(parse_mermaid("flowchart\na --> b"), FlowchartAst)
    with pytest.raises(MermaidError) as info:
        parse_mermaid("sequenceDiagramX")
    assert info.value.kind == "MissingHeader"


def test_every_public_name_is_exported_once() -> None:
    for name in mermaid.__all__:
        assert getattr(mermaid, name) is not None
    assert len(set(mermaid.__all__)) == len(mermaid.__all__)
