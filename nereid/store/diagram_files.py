"""A diagram ⇄ its two files: the `.mmd` text and the `.meta.json` side-car (§4). Pure.

The `.mmd` holds the whole structure in Mermaid (our exporter writes everything the model
holds: subgraphs, classes, aliases, notes, blocks...). The side-car holds what Mermaid text
cannot: the stable ids of nodes, participants, edges and messages, and inline notes. On load
the text is parsed and the side-car's ids are matched onto the parse (spec decision 6).

Rev (what our actors rely on): a loaded diagram's `rev` is at least the rev in the session
meta, and it is never the rev of other content than the one loaded. The meta is written
last, so an interrupted save can leave newer files under an older meta rev; the side-car
therefore also records the rev it was written for and the SHA-256 of its `.mmd` (Nereid's
optional keys `rev`, `mmd_sha256`):

- side-car rev present and hash matching the `.mmd` → `max(meta rev, side-car rev)`;
- hash not matching (the `.mmd` changed after its side-car: interrupted save, hand edit)
  → `max(meta rev, side-car rev) + 1`, a rev nobody has seen for other content;
- no side-car or no `rev` key (folders of the reference implementation) → the meta rev.

The side-car's ids are `FlowIdHints.from_ast` (the hints an import uses), so a load and an
import match ids by one rule. `flow_edges` are in the order the `.mmd` has the edges, not in
edge-id order as session-folder.md §5 says: our exporter keeps document order, and edges
alike but for their link (`A --> B`, `A -.-> B`) are matched to the hints first come,
first served, so id order would swap their ids on a load. Readers accept any order.
"""

from __future__ import annotations

import hashlib

from nereid.mermaid import export_ast, parse_as
from nereid.mermaid.errors import MermaidError
from nereid.mermaid.reconcile import FlowEdgeHint, FlowIdHints, reconcile_flowchart
from nereid.mermaid.reconcile_sequence import (
    ActivationHint,
    MessageHint,
    NoteHint,
    SeqIdHints,
    reconcile_sequence,
)
from nereid.mermaid.sequence import parse_sequence
from nereid.mermaid.stable_ids import (
    block_ids_of,
    order_keys_of,
    restore_block_ids,
    restore_order_keys,
)
from nereid.mermaid.state_ids import StateIdHints, StateTransitionHint, reconcile_state
from nereid.model import Ast, Diagram, FlowchartAst, SequenceAst, StateAst
from nereid.model.file_names import diagram_paths
from nereid.model.file_problem import FileProblem
from nereid.store.schema import (
    MAX_REV,
    DiagramEntry,
    FlowEdgeEntry,
    SequenceActivationEntry,
    SequenceMessageEntry,
    SequenceNoteEntry,
    SidecarFile,
    StableIdMap,
    StateTransitionEntry,
    StoreFileError,
    UnparsableFile,
    encode_sidecar,
)

__all__ = [
    "decode_diagram",
    "flow_hints",
    "seq_hints",
    "state_hints",
    "with_sidecar_ids",
    "encode_diagram",
    "loaded_rev",
    "mmd_digest",
    "rev_after",
    "sidecar_for",
    "sidecar_keeping",
]


def mmd_digest(mmd: bytes) -> str:
    """The `mmd_sha256` side-car value for a `.mmd` file's bytes."""
    return hashlib.sha256(mmd).hexdigest()


def sidecar_for(diagram: Diagram, mmd_text: str) -> SidecarFile:
    """The side-car record of `diagram`, written next to `mmd_text`."""
    mmd_path = diagram_paths(diagram.diagram_id)[0]
    ast = diagram.ast
    sidecar = SidecarFile(
        diagram_id=diagram.diagram_id,
        mmd_path=mmd_path,
        rev=diagram.rev,
        mmd_sha256=mmd_digest(mmd_text.encode("utf-8")),
    )
    if isinstance(ast, FlowchartAst):
        hints = FlowIdHints.from_ast(ast)  # what a re-import matches on: one rule for both
        sidecar.stable_id_map = StableIdMap(by_mermaid_id=hints.by_mermaid_id)
        sidecar.flow_edges = [
            FlowEdgeEntry(
                edge_id=e.edge_id,
                from_node_id=e.from_node_id,
                to_node_id=e.to_node_id,
                label=e.label,
                style=e.style,
            )
            for e in hints.edges
        ]
        sidecar.flow_node_notes = hints.notes
        sidecar.flow_subgraph_ids = hints.subgraph_ids
        return sidecar
    if isinstance(ast, StateAst):
        # State ids come from the text; only the transitions' ids need the side-car.
        sidecar.state_transitions = [
            StateTransitionEntry(
                transition_id=transition_id,
                from_state_id=transition.from_state_id,
                to_state_id=transition.to_state_id,
                label=transition.label,
            )
            for transition_id, transition in ast.transitions.items()
        ]
        return sidecar
    by_name: dict[str, str] = {}
    for participant_id in sorted(ast.participants):
        name = ast.participants[participant_id].mermaid_name
        if name:
            by_name.setdefault(name, participant_id)
    sidecar.stable_id_map = StableIdMap(by_name=by_name)
    messages = sorted(ast.messages, key=lambda m: (m.order_key, m.message_id))
    sidecar.sequence_messages = [
        SequenceMessageEntry(
            message_id=message.message_id,
            from_participant_id=message.from_participant_id,
            to_participant_id=message.to_participant_id,
            kind=message.kind,
            text=message.text,
        )
        for message in messages
    ]
    sidecar.sequence_participant_notes = {
        p_id: p.note for p_id, p in ast.participants.items() if p.note is not None
    }
    sidecar.sequence_notes = [
        SequenceNoteEntry(
            note_id=note.note_id,
            placement=note.placement,
            participant_ids=list(note.participant_ids),
            text=note.text,
        )
        for note in sorted(ast.notes, key=lambda n: (n.order_key, n.note_id))
    ]
    sidecar.sequence_activations = [
        SequenceActivationEntry(
            activation_id=item.activation_id,
            participant_id=item.participant_id,
            active=item.active,
        )
        for item in sorted(ast.activations, key=lambda a: (a.order_key, a.activation_id))
    ]
    _record_positions(sidecar, ast, mmd_text)
    return sidecar


def _record_positions(sidecar: SidecarFile, ast: SequenceAst, mmd_text: str) -> None:
    """Record order keys and block/section ids, unless a parse of the text gives them.

    The parser numbers them by position; ops let agents choose them. Kept only when they
    differ, so a diagram whose ids are the parser's has a side-car like the reference's.
    """
    try:
        parsed: SequenceAst | None = parse_sequence(mmd_text)
    except MermaidError:  # pragma: no cover - our export always parses
        parsed = None
    ours = order_keys_of(ast)
    if parsed is None or list(order_keys_of(parsed).values()) != list(ours.values()):
        sidecar.sequence_order_keys = ours
    block_ids = block_ids_of(ast)
    if parsed is None or block_ids_of(parsed) != block_ids:
        sidecar.sequence_block_ids = block_ids


def encode_diagram(diagram: Diagram) -> tuple[str, str]:
    """`(mmd text, side-car text)` of a diagram. Raises the exporter's error."""
    mmd_text = export_ast(diagram.ast)
    return mmd_text, encode_sidecar(sidecar_for(diagram, mmd_text))


def sidecar_keeping(diagram: Diagram, mmd: bytes | None) -> str | None:
    """The side-car text that lets a person's `.mmd` stay as they wrote it, or None.

    A `.mmd` Nereid imported (edited by hand, or loaded) is not rewritten only to reformat
    it: if that text with the new side-car reads back as exactly `diagram`, only the
    side-car needs writing. Otherwise (someone else changed the diagram since) None: the
    canonical export replaces it.
    """
    if mmd is None:
        return None
    try:
        text = mmd.decode("utf-8")
    except UnicodeDecodeError:
        return None
    sidecar = sidecar_for(diagram, text)
    mmd_path = sidecar.mmd_path
    entry = DiagramEntry(
        diagram_id=diagram.diagram_id,
        name=diagram.name,
        kind=diagram.kind,
        mmd_path=mmd_path,
        rev=diagram.rev,
    )
    try:
        again = decode_diagram(entry, mmd, sidecar, mmd_path=mmd_path)
    except StoreFileError:
        return None
    return encode_sidecar(sidecar) if again == diagram else None


def loaded_rev(
    meta_rev: int, sidecar_rev: int | None, sidecar_digest: str | None, mmd: bytes
) -> int:
    """The rev a loaded diagram gets (see the module docstring), from the meta's rev and
    the side-car's `rev` and `mmd_sha256` (None: no side-car, or not that key)."""
    if sidecar_rev is None:
        return meta_rev
    unchanged = sidecar_digest is not None and sidecar_digest == mmd_digest(mmd)
    return rev_after(meta_rev, sidecar_rev, unchanged=unchanged)


def rev_after(meta_rev: int, sidecar_rev: int, *, unchanged: bool) -> int:
    """`loaded_rev` of a diagram with a side-car rev, the `.mmd`'s digest compared
    (`unchanged`: it is the side-car's `mmd_sha256`)."""
    rev = max(meta_rev, sidecar_rev)
    return rev if unchanged else min(rev + 1, MAX_REV)


def decode_diagram(
    entry: DiagramEntry, mmd: bytes, sidecar: SidecarFile | None, *, mmd_path: str
) -> Diagram:
    """Parse a diagram's `.mmd`, match the side-car's stable ids onto it, and build the Diagram.

    Raises StoreFileError naming the `.mmd` file (not UTF-8, parse error with line/column,
    header not matching the meta's `kind`).
    """
    try:
        text = mmd.decode("utf-8")
    except UnicodeDecodeError as err:
        problem = FileProblem(file=mmd_path, message=f"not UTF-8 text (byte {err.start})")
        raise UnparsableFile(problem) from None
    try:
        ast = parse_as(entry.kind, text)
        if sidecar is not None:
            ast = with_sidecar_ids(ast, sidecar)
    except MermaidError as err:
        problem = FileProblem(
            file=mmd_path,
            message=f"{entry.kind} does not parse: {err}",
            line=err.line if err.line is not None else 1,
            column=err.column,
        )
        raise UnparsableFile(problem) from None
    return Diagram(
        diagram_id=entry.diagram_id,
        name=entry.name,
        kind=entry.kind,
        ast=ast,
        rev=loaded_rev(
            entry.rev,
            None if sidecar is None else sidecar.rev,
            None if sidecar is None else sidecar.mmd_sha256,
            mmd,
        ),
    )


def with_sidecar_ids(ast: Ast, sidecar: SidecarFile) -> Ast:
    """A fresh parse with the stable ids (and sequence positions) its side-car recorded."""
    if isinstance(ast, FlowchartAst):
        return reconcile_flowchart(ast, flow_hints(sidecar))
    if isinstance(ast, StateAst):
        return reconcile_state(ast, state_hints(sidecar))
    ast = reconcile_sequence(ast, seq_hints(sidecar))
    ast = restore_order_keys(ast, sidecar.sequence_order_keys)
    return restore_block_ids(ast, sidecar.sequence_block_ids)


def flow_hints(sidecar: SidecarFile) -> FlowIdHints:
    """The flowchart id hints a side-car carries."""
    return FlowIdHints(
        by_mermaid_id=dict(sidecar.stable_id_map.by_mermaid_id),
        edges=[
            FlowEdgeHint(e.edge_id, e.from_node_id, e.to_node_id, e.label, e.style)
            for e in sidecar.flow_edges
        ],
        notes=dict(sidecar.flow_node_notes),
        subgraph_ids=dict(sidecar.flow_subgraph_ids),
    )


def state_hints(sidecar: SidecarFile) -> StateIdHints:
    """The state-diagram id hints a side-car carries."""
    return StateIdHints(
        transitions=[
            StateTransitionHint(t.transition_id, t.from_state_id, t.to_state_id, t.label)
            for t in sidecar.state_transitions
        ]
    )


def seq_hints(sidecar: SidecarFile) -> SeqIdHints:
    """The sequence id hints a side-car carries."""
    return SeqIdHints(
        by_name=dict(sidecar.stable_id_map.by_name),
        messages=tuple(
            MessageHint(m.message_id, m.from_participant_id, m.to_participant_id, m.kind, m.text)
            for m in sidecar.sequence_messages
        ),
        participant_notes=dict(sidecar.sequence_participant_notes),
        notes=tuple(
            NoteHint(n.note_id, n.placement, tuple(n.participant_ids), n.text)
            for n in sidecar.sequence_notes
        ),
        activations=tuple(
            ActivationHint(a.activation_id, a.participant_id, a.active)
            for a in sidecar.sequence_activations
        ),
    )
