"""JSON schemas and text format of the session files (session-folder.md §3, §4.2, §7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nereid.store.schema import (
    MAX_WALKTHROUGH_REV,
    StoreFileError,
    decode_meta,
    decode_sidecar,
    decode_walkthrough,
    encode_meta,
    encode_sidecar,
    encode_walkthrough,
    json_text,
)

EXAMPLES = Path(__file__).parent / "fixtures" / "spec-examples"


def test_spec_examples_round_trip_byte_for_byte() -> None:
    meta_text = (EXAMPLES / "meta.json").read_text()
    assert encode_meta(decode_meta(meta_text.encode(), "m")) == meta_text
    for name in ("order-flow.meta.json", "checkout-seq.meta.json"):
        text = (EXAMPLES / name).read_text()
        assert encode_sidecar(decode_sidecar(text.encode(), name)) == text
    wt_text = (EXAMPLES / "wt-onboarding.wt.json").read_text()
    assert encode_walkthrough(decode_walkthrough(wt_text.encode(), "w")) == wt_text


def test_json_text_format() -> None:
    text = json_text({"b": [], "a": {}, "c": ["é", None, 1]})
    assert text == '{\n  "b": [],\n  "a": {},\n  "c": [\n    "é",\n    null,\n    1\n  ]\n}\n'


def test_meta_defaults_and_unknown_keys() -> None:
    meta = decode_meta(b'{"session_id": "s:x", "extra": 1}', "m")
    assert meta.walkthrough_ids is None
    assert meta.diagrams == [] and meta.xrefs == [] and meta.selected_object_refs == []
    text = encode_meta(meta)
    assert '"walkthrough_ids": null' in text and "extra" not in text
    assert list(json.loads(text)) == [
        "session_id",
        "active_diagram_id",
        "active_walkthrough_id",
        "walkthrough_ids",
        "diagrams",
        "xrefs",
        "selected_object_refs",
    ]


@pytest.mark.parametrize(
    ("doc", "fragment"),
    [
        (b"{", "m: invalid JSON"),
        (b"[]", "m: invalid content"),
        (b"{}", "session_id"),
        (b'{"session_id": "a/b"}', "session_id"),
        (b'{"session_id": "s", "active_diagram_id": ""}', "active_diagram_id"),
        (b'{"session_id": "s", "walkthrough_ids": ["ok", "x/y"]}', "walkthrough_ids[1]"),
        (
            b'{"session_id": "s", "diagrams": [{"diagram_id": "d", "name": "n", "kind": "flowchart",'
            b' "mmd_path": "../../etc/passwd"}]}',
            "diagrams[0].mmd_path",
        ),
        (
            b'{"session_id": "s", "diagrams": [{"diagram_id": "d", "name": "n", "kind": "Flowchart",'
            b' "mmd_path": "d.mmd"}]}',
            "$.diagrams[0].kind",
        ),
        (
            b'{"session_id": "s", "diagrams": [{"diagram_id": "d", "name": "n", "kind": "flowchart",'
            b' "mmd_path": "d.mmd", "rev": -1}]}',
            "$.diagrams[0].rev",
        ),
        (
            b'{"session_id": "s", "diagrams": [{"diagram_id": "d", "name": "n", "kind": "flowchart",'
            b' "mmd_path": "d.mmd", "rev": true}]}',
            "$.diagrams[0].rev",
        ),
        (
            b'{"session_id": "s", "xrefs": [{"xref_id": "x", "from": "d:a/flow/node/n", "to": "nope",'
            b' "kind": "k", "status": "ok"}]}',
            "xrefs[0].to",
        ),
        (
            b'{"session_id": "s", "xrefs": [{"xref_id": "x", "from": "d:a/flow/node/n",'
            b' "to": "d:a/flow/node/n", "kind": "k", "status": "broken"}]}',
            "$.xrefs[0].status",
        ),
        (b'{"session_id": "s", "selected_object_refs": ["d:x"]}', "selected_object_refs[0]"),
    ],
)
def test_meta_errors_name_the_file_and_field(doc: bytes, fragment: str) -> None:
    with pytest.raises(StoreFileError) as caught:
        decode_meta(doc, "m")
    assert caught.value.path == "m"
    assert str(caught.value).startswith("m: ")
    assert fragment in str(caught.value)


def test_sidecar_is_lenient_about_missing_sections_and_bad_map_values() -> None:
    sidecar = decode_sidecar(
        b'{"diagram_id": "d", "mmd_path": "diagrams/d.mmd",'
        b' "stable_id_map": {"by_mermaid_id": {"a": "n:a", "b": "bad/id", "c": ""}}}',
        "s",
    )
    assert sidecar.stable_id_map.by_mermaid_id == {"a": "n:a"}
    assert sidecar.flow_edges == [] and sidecar.flow_node_notes == {}
    text = encode_sidecar(sidecar)
    assert "flow_node_notes" not in text and "rev" not in text


@pytest.mark.parametrize(
    ("doc", "fragment"),
    [
        (b'{"mmd_path": "x.mmd"}', "diagram_id"),
        (b'{"diagram_id": "d", "mmd_path": "/abs.mmd"}', "mmd_path"),
        (
            b'{"diagram_id": "d", "mmd_path": "x.mmd", "flow_edges": [{"edge_id": "e/1",'
            b' "from_node_id": "n:a", "to_node_id": "n:b"}]}',
            "flow_edges[0].edge_id",
        ),
        (
            b'{"diagram_id": "d", "mmd_path": "x.mmd", "sequence_messages": [{"message_id": "m",'
            b' "from_participant_id": "p", "to_participant_id": "q", "kind": "sync"}]}',
            "text",
        ),
        (
            b'{"diagram_id": "d", "mmd_path": "x.mmd", "flow_node_notes": {"": "x"}}',
            "flow_node_notes",
        ),
    ],
)
def test_sidecar_errors(doc: bytes, fragment: str) -> None:
    with pytest.raises(StoreFileError, match="^s: ") as caught:
        decode_sidecar(doc, "s")
    assert fragment in str(caught.value)


def test_walkthrough_rev_is_clamped_and_refs_checked() -> None:
    record = decode_walkthrough(b'{"walkthrough_id": "w", "title": "t", "rev": 5000000}', "w")
    assert record.rev == MAX_WALKTHROUGH_REV
    assert list(json.loads(encode_walkthrough(record))) == [
        "walkthrough_id",
        "title",
        "rev",
        "nodes",
        "edges",
        "source",
    ]
    with pytest.raises(StoreFileError, match=r"nodes\[0\]\.refs\[1\]"):
        decode_walkthrough(
            b'{"walkthrough_id": "w", "title": "t", "nodes": [{"node_id": "n", "title": "",'
            b' "refs": ["d:a/flow/node/n:x", "d:a/flow"]}]}',
            "w",
        )
