"""JSON schemas of the session-folder files (session-folder.md §3, §4.2, §7) and their text form.

Decoding is strict about types (msgspec) and lenient about layout and unknown keys, as the
spec asks; a second pass validates ids, ObjectRefs and paths and names the field at fault.
Encoding writes every key in the documented order with the JSON text format of §3.3.

Keys Nereid adds (all optional on read, ignored by the reference implementation):

- side-car `rev` and `mmd_sha256`: the diagram rev the side-car was written for and the
  SHA-256 of the `.mmd` text written with it. The loader uses them to pair content with the
  right rev after an interrupted save (see `nereid/store/diagram_files.py`).
- side-car `flow_subgraph_ids` (subgraph Mermaid id → subgraph id), `sequence_notes`
  (`{note_id, placement, participant_ids, text}`) and `sequence_activations`
  (`{activation_id, participant_id, active}`): stable ids of the objects Nereid models
  beyond the reference, matched like edges and messages. Omitted when empty.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Final, Literal

import msgspec

from nereid.model import IdError, ObjectRefError, check_id, parse_ref
from nereid.model.file_names import (
    LEGACY_META_FILE,
    META_FILE,
    StorePathError,
    check_relative_path,
    diagram_files_of,
)
from nereid.model.file_problem import FileProblem

__all__ = [
    "MAX_REV",
    "MAX_WALKTHROUGH_REV",
    "DiagramEntry",
    "FlowEdgeEntry",
    "SequenceActivationEntry",
    "SequenceMessageEntry",
    "SequenceNoteEntry",
    "SessionMetaFile",
    "SidecarFile",
    "SidecarXref",
    "StableIdMap",
    "StoreFileError",
    "WalkthroughEdgeEntry",
    "WalkthroughFile",
    "WalkthroughNodeEntry",
    "XrefEntry",
    "decode_meta",
    "decode_sidecar",
    "decode_walkthrough",
    "encode_meta",
    "encode_sidecar",
    "encode_walkthrough",
    "json_text",
]

#: msgspec bounds stop at int64; revs beyond are refused (the reference allows u64).
MAX_REV: Final = 2**63 - 1
MAX_WALKTHROUGH_REV: Final = 1_000_000

Rev = Annotated[int, msgspec.Meta(ge=0, le=MAX_REV)]
XrefStatusText = Literal["ok", "dangling_from", "dangling_to", "dangling_both"]


class StoreFileError(Exception):
    """A session file that cannot be read or is not what the format says; names file and problem."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class UnparsableFile(StoreFileError):
    """A session file that does not parse; `problem` says where."""

    def __init__(self, problem: FileProblem) -> None:
        super().__init__(problem.file, problem.message)
        self.file_problem = problem


class DiagramEntry(msgspec.Struct, kw_only=True):
    diagram_id: str
    name: str
    kind: Literal["sequence", "flowchart", "state"]
    mmd_path: str
    rev: Rev = 0


class XrefEntry(msgspec.Struct, kw_only=True):
    xref_id: str
    from_ref: str = msgspec.field(name="from")
    to_ref: str = msgspec.field(name="to")
    kind: str
    label: str | None = None
    status: XrefStatusText


class SessionMetaFile(msgspec.Struct, kw_only=True):
    """`nereid-session.meta.json`. `walkthrough_ids` None switches loading to a folder scan."""

    session_id: str
    active_diagram_id: str | None = None
    active_walkthrough_id: str | None = None
    walkthrough_ids: list[str] | None = None
    diagrams: list[DiagramEntry] = msgspec.field(default_factory=list)
    xrefs: list[XrefEntry] = msgspec.field(default_factory=list)
    selected_object_refs: list[str] = msgspec.field(default_factory=list)


class StableIdMap(msgspec.Struct, kw_only=True):
    by_mermaid_id: dict[str, str] = msgspec.field(default_factory=dict)
    by_name: dict[str, str] = msgspec.field(default_factory=dict)


class SidecarXref(msgspec.Struct, kw_only=True):
    """Parsed for compatibility, never used (the reference always writes `[]`)."""

    xref_id: str
    from_ref: str = msgspec.field(name="from")
    to_ref: str = msgspec.field(name="to")
    kind: str
    label: str | None = None
    status: XrefStatusText


class FlowEdgeEntry(msgspec.Struct, kw_only=True):
    edge_id: str
    from_node_id: str
    to_node_id: str
    label: str | None = None
    style: str | None = None


class StateTransitionEntry(msgspec.Struct, kw_only=True):
    """Nereid (state diagrams): a transition's stable id and its fingerprint."""

    transition_id: str
    from_state_id: str
    to_state_id: str
    label: str | None = None


class SequenceMessageEntry(msgspec.Struct, kw_only=True):
    message_id: str
    from_participant_id: str
    to_participant_id: str
    kind: Literal["sync", "async", "return"]
    text: str


class SequenceNoteEntry(msgspec.Struct, kw_only=True):
    note_id: str
    placement: Literal["left_of", "right_of", "over"]
    participant_ids: list[str]
    text: str


class SequenceActivationEntry(msgspec.Struct, kw_only=True):
    activation_id: str
    participant_id: str
    active: bool


class SidecarFile(msgspec.Struct, kw_only=True):
    """`diagrams/<id>.meta.json`: stable ids and what Mermaid text cannot hold."""

    diagram_id: str
    mmd_path: str
    stable_id_map: StableIdMap = msgspec.field(default_factory=StableIdMap)
    xrefs: list[SidecarXref] = msgspec.field(default_factory=list)
    flow_edges: list[FlowEdgeEntry] = msgspec.field(default_factory=list)
    sequence_messages: list[SequenceMessageEntry] = msgspec.field(default_factory=list)
    flow_node_notes: dict[str, str] = msgspec.field(default_factory=dict)
    sequence_participant_notes: dict[str, str] = msgspec.field(default_factory=dict)
    rev: Rev | None = None
    mmd_sha256: str | None = None
    flow_subgraph_ids: dict[str, str] = msgspec.field(default_factory=dict)
    sequence_notes: list[SequenceNoteEntry] = msgspec.field(default_factory=list)
    sequence_activations: list[SequenceActivationEntry] = msgspec.field(default_factory=list)
    #: Nereid: timeline item id (message, note, activation) → its `order_key` in memory.
    sequence_order_keys: dict[str, int] = msgspec.field(default_factory=dict)
    #: Nereid: `[block_id, section_id, ...]` of every block, blocks in document (pre-)order.
    sequence_block_ids: list[list[str]] = msgspec.field(default_factory=list)
    #: Nereid: the transitions of a state diagram (their ids are matched by fingerprint).
    state_transitions: list[StateTransitionEntry] = msgspec.field(default_factory=list)


class WalkthroughNodeEntry(msgspec.Struct, kw_only=True):
    node_id: str
    title: str
    body_md: str | None = None
    refs: list[str] = msgspec.field(default_factory=list)
    tags: list[str] = msgspec.field(default_factory=list)
    status: str | None = None


class WalkthroughEdgeEntry(msgspec.Struct, kw_only=True):
    from_node_id: str
    to_node_id: str
    kind: str
    label: str | None = None


class WalkthroughFile(msgspec.Struct, kw_only=True):
    """`walkthroughs/<id>.wt.json`. `rev` above 1,000,000 is clamped by `decode_walkthrough`."""

    walkthrough_id: str
    title: str
    rev: Rev = 0
    nodes: list[WalkthroughNodeEntry] = msgspec.field(default_factory=list)
    edges: list[WalkthroughEdgeEntry] = msgspec.field(default_factory=list)
    source: str | None = None


_META_DECODER: Final = msgspec.json.Decoder(SessionMetaFile)
_SIDECAR_DECODER: Final = msgspec.json.Decoder(SidecarFile)
_WALKTHROUGH_DECODER: Final = msgspec.json.Decoder(WalkthroughFile)


def json_text(value: Any) -> str:
    """The §3.3 JSON text: 2-space indent, raw UTF-8, one trailing newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _decode(decoder: msgspec.json.Decoder[Any], data: bytes, path: str) -> Any:
    try:
        return decoder.decode(data)
    except msgspec.ValidationError as err:
        raise StoreFileError(path, f"invalid content: {err}") from None
    except msgspec.DecodeError as err:
        raise StoreFileError(path, f"invalid JSON: {err}") from None


def _id(path: str, field: str, value: str) -> None:
    try:
        check_id(value)
    except IdError as err:
        raise StoreFileError(path, f"invalid id in {field}: {err.message} ({value!r})") from None


def _ref(path: str, field: str, value: str) -> None:
    try:
        parse_ref(value)
    except ObjectRefError as err:
        raise StoreFileError(
            path, f"invalid ObjectRef in {field}: {err.message} ({value!r})"
        ) from None


def _relative(path: str, field: str, value: str) -> None:
    try:
        check_relative_path(value)
    except StorePathError as err:
        raise StoreFileError(path, f"invalid relative path in {field}: {err}") from None


def decode_meta(data: bytes, path: str) -> SessionMetaFile:
    """Parse and validate a session meta file (§3.1, §6.1 step 1); raise StoreFileError."""
    meta: SessionMetaFile = _decode(_META_DECODER, data, path)
    _id(path, "session_id", meta.session_id)
    if meta.active_diagram_id is not None:
        _id(path, "active_diagram_id", meta.active_diagram_id)
    if meta.active_walkthrough_id is not None:
        _id(path, "active_walkthrough_id", meta.active_walkthrough_id)
    for index, wt_id in enumerate(meta.walkthrough_ids or ()):
        _id(path, f"walkthrough_ids[{index}]", wt_id)
    owners: dict[str, str] = {name: "the session meta" for name in (META_FILE, LEGACY_META_FILE)}
    for index, entry in enumerate(meta.diagrams):
        field = f"diagrams[{index}]"
        _id(path, f"{field}.diagram_id", entry.diagram_id)
        _relative(path, f"{field}.mmd_path", entry.mmd_path)
        for owned in diagram_files_of(entry.mmd_path):
            other = owners.setdefault(owned, field)
            if other != field:
                raise StoreFileError(
                    path, f"{field} and {other} share the file {owned} (each entry owns its files)"
                )
    for index, xref in enumerate(meta.xrefs):
        _id(path, f"xrefs[{index}].xref_id", xref.xref_id)
        _ref(path, f"xrefs[{index}].from", xref.from_ref)
        _ref(path, f"xrefs[{index}].to", xref.to_ref)
    for index, ref in enumerate(meta.selected_object_refs):
        _ref(path, f"selected_object_refs[{index}]", ref)
    return meta


def decode_sidecar(data: bytes, path: str) -> SidecarFile:
    """Parse and validate a diagram side-car (§4.2); raise StoreFileError.

    Stable-id map values that are not valid ids are dropped, as the spec says.
    """
    sidecar: SidecarFile = _decode(_SIDECAR_DECODER, data, path)
    _id(path, "diagram_id", sidecar.diagram_id)
    _relative(path, "mmd_path", sidecar.mmd_path)
    for index, xref in enumerate(sidecar.xrefs):
        _id(path, f"xrefs[{index}].xref_id", xref.xref_id)
        _ref(path, f"xrefs[{index}].from", xref.from_ref)
        _ref(path, f"xrefs[{index}].to", xref.to_ref)
    for index, edge in enumerate(sidecar.flow_edges):
        for name in ("edge_id", "from_node_id", "to_node_id"):
            _id(path, f"flow_edges[{index}].{name}", getattr(edge, name))
    for index, message in enumerate(sidecar.sequence_messages):
        for name in ("message_id", "from_participant_id", "to_participant_id"):
            _id(path, f"sequence_messages[{index}].{name}", getattr(message, name))
    for index, note in enumerate(sidecar.sequence_notes):
        _id(path, f"sequence_notes[{index}].note_id", note.note_id)
        for p_index, participant in enumerate(note.participant_ids):
            _id(path, f"sequence_notes[{index}].participant_ids[{p_index}]", participant)
    for index, activation in enumerate(sidecar.sequence_activations):
        _id(path, f"sequence_activations[{index}].activation_id", activation.activation_id)
        _id(path, f"sequence_activations[{index}].participant_id", activation.participant_id)
    for key in sidecar.flow_node_notes:
        _id(path, "flow_node_notes key", key)
    for key in sidecar.sequence_participant_notes:
        _id(path, "sequence_participant_notes key", key)
    ids = sidecar.stable_id_map
    ids.by_mermaid_id = {k: v for k, v in ids.by_mermaid_id.items() if _valid_id(v)}
    ids.by_name = {k: v for k, v in ids.by_name.items() if _valid_id(v)}
    sidecar.flow_subgraph_ids = {k: v for k, v in sidecar.flow_subgraph_ids.items() if _valid_id(v)}
    return sidecar


def _valid_id(value: str) -> bool:
    return value != "" and "/" not in value


def decode_walkthrough(data: bytes, path: str) -> WalkthroughFile:
    """Parse and validate a walkthrough file (§7), clamping `rev`; raise StoreFileError."""
    walkthrough: WalkthroughFile = _decode(_WALKTHROUGH_DECODER, data, path)
    _id(path, "walkthrough_id", walkthrough.walkthrough_id)
    for index, node in enumerate(walkthrough.nodes):
        _id(path, f"nodes[{index}].node_id", node.node_id)
        for ref_index, ref in enumerate(node.refs):
            _ref(path, f"nodes[{index}].refs[{ref_index}]", ref)
    for index, edge in enumerate(walkthrough.edges):
        _id(path, f"edges[{index}].from_node_id", edge.from_node_id)
        _id(path, f"edges[{index}].to_node_id", edge.to_node_id)
    walkthrough.rev = min(walkthrough.rev, MAX_WALKTHROUGH_REV)
    return walkthrough


def encode_meta(meta: SessionMetaFile) -> str:
    """The meta file text: keys in §3.1 order (`walkthrough_ids` written even when null)."""
    return json_text(msgspec.to_builtins(meta))


def encode_sidecar(sidecar: SidecarFile) -> str:
    """The side-car text: §4.2 key order; empty note maps and unset Nereid keys omitted."""
    value = msgspec.to_builtins(sidecar)
    for key in ("flow_node_notes", "sequence_participant_notes"):
        value[key] = dict(sorted(value[key].items()))
        if not value[key]:
            del value[key]
    for key in ("rev", "mmd_sha256"):
        if value[key] is None:
            del value[key]
    value["flow_subgraph_ids"] = dict(sorted(value["flow_subgraph_ids"].items()))
    for key in (
        "flow_subgraph_ids",
        "sequence_notes",
        "sequence_activations",
        "sequence_order_keys",
        "sequence_block_ids",
        "state_transitions",
    ):
        if not value[key]:
            del value[key]
    ids = value["stable_id_map"]
    for key in ("by_mermaid_id", "by_name"):
        ids[key] = dict(sorted(ids[key].items()))
    return json_text(value)


def encode_walkthrough(walkthrough: WalkthroughFile) -> str:
    """The walkthrough text: every key present (nulls included) in §7 order."""
    return json_text(msgspec.to_builtins(walkthrough))
