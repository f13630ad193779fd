"""Model values ⇄ file records for the session meta and walkthrough files. Pure.

The diagram files (`.mmd` and side-car) are in `diagram_files.py`; the order of work (what is
read or written when) is in `session_io.py`.
"""

from __future__ import annotations

from collections.abc import Iterable

from nereid.model import (
    Diagram,
    FlowchartAst,
    FlowNode,
    ObjectRef,
    Session,
    Walkthrough,
    WalkthroughEdge,
    WalkthroughNode,
    XRef,
    parse_ref,
    xref_status_in,
)
from nereid.model.file_names import diagram_paths
from nereid.store.schema import (
    DiagramEntry,
    SessionMetaFile,
    WalkthroughEdgeEntry,
    WalkthroughFile,
    WalkthroughNodeEntry,
    XrefEntry,
)

__all__ = [
    "diagram_entry",
    "meta_for_session",
    "seed_session",
    "selection_from_meta",
    "sorted_selection",
    "walkthrough_file",
    "walkthrough_from_file",
    "xref_from_entry",
]


def seed_session(folder_name: str) -> Session:
    """The session a folder without meta starts with (§12, model.md §7.5).

    `s:<folder name>` (or `s:session` when the name is empty, `.`, `..` or holds a `/`), one
    flowchart `flow` named `Flow` with node `n:hello` labelled `Hello`, made active.
    """
    usable = folder_name not in ("", ".", "..") and "/" not in folder_name
    flow = Diagram(
        diagram_id="flow",
        name="Flow",
        kind="flowchart",
        ast=FlowchartAst(nodes={"n:hello": FlowNode(label="Hello")}),
    )
    return Session(
        session_id=f"s:{folder_name}" if usable else "s:session",
        diagrams={"flow": flow},
        active_diagram_id="flow",
    )


def diagram_entry(diagram: Diagram) -> DiagramEntry:
    """The meta entry of a diagram; `mmd_path` is always the default path (§8 step 3)."""
    return DiagramEntry(
        diagram_id=diagram.diagram_id,
        name=diagram.name,
        kind=diagram.kind,
        mmd_path=diagram_paths(diagram.diagram_id)[0],
        rev=diagram.rev,
    )


def sorted_selection(refs: Iterable[ObjectRef]) -> tuple[ObjectRef, ...]:
    """De-duplicated, in ObjectRef order (model.md §3.3)."""
    return tuple(sorted(set(refs), key=ObjectRef.sort_key))


def meta_for_session(
    session: Session,
    *,
    kept_entries: Iterable[DiagramEntry] = (),
    kept_walkthrough_ids: Iterable[str] = (),
    diagram_entries: Iterable[DiagramEntry] | None = None,
    walkthrough_ids: Iterable[str] | None = None,
) -> SessionMetaFile:
    """The meta record a full save writes for `session` (§8 steps 3-7).

    `kept_entries` / `kept_walkthrough_ids` belong to files that failed to load: they stay
    listed (and their files untouched) until something is written for those ids on purpose.
    `diagram_entries` / `walkthrough_ids`, when given, are the whole listing instead (what
    is on disk after a save in which some items failed).
    """
    if diagram_entries is not None:
        entries = {entry.diagram_id: entry for entry in diagram_entries}
    else:
        entries = {entry.diagram_id: entry for entry in kept_entries}
        entries.update((d_id, diagram_entry(d)) for d_id, d in session.diagrams.items())
    if walkthrough_ids is None:
        walkthrough_ids = set(kept_walkthrough_ids) | set(session.walkthroughs)
    xrefs = [
        XrefEntry(
            xref_id=xref_id,
            from_ref=str(xref.from_ref),
            to_ref=str(xref.to_ref),
            kind=xref.kind,
            label=xref.label,
            status=xref_status_in(session.diagrams, xref),
        )
        for xref_id, xref in sorted(session.xrefs.items())
    ]
    return SessionMetaFile(
        session_id=session.session_id,
        active_diagram_id=session.active_diagram_id,
        active_walkthrough_id=session.active_walkthrough_id,
        walkthrough_ids=sorted(set(walkthrough_ids)),
        diagrams=[entries[key] for key in sorted(entries)],
        xrefs=xrefs,
        selected_object_refs=[str(ref) for ref in sorted_selection(session.selected_object_refs)],
    )


def xref_from_entry(entry: XrefEntry) -> XRef:
    """The model xref of a validated meta entry (its stored status is not kept)."""
    return XRef(
        from_ref=parse_ref(entry.from_ref),
        to_ref=parse_ref(entry.to_ref),
        kind=entry.kind,
        label=entry.label,
    )


def selection_from_meta(meta: SessionMetaFile) -> tuple[ObjectRef, ...]:
    """The stored selection, de-duplicated and sorted (§6.1 step 1)."""
    return sorted_selection(parse_ref(text) for text in meta.selected_object_refs)


def walkthrough_file(walkthrough: Walkthrough) -> WalkthroughFile:
    """The `.wt.json` record of a walkthrough."""
    return WalkthroughFile(
        walkthrough_id=walkthrough.walkthrough_id,
        title=walkthrough.title,
        rev=walkthrough.rev,
        nodes=[
            WalkthroughNodeEntry(
                node_id=node.node_id,
                title=node.title,
                body_md=node.body_md,
                refs=[str(ref) for ref in node.refs],
                tags=list(node.tags),
                status=node.status,
            )
            for node in walkthrough.nodes
        ],
        edges=[
            WalkthroughEdgeEntry(
                from_node_id=edge.from_node_id,
                to_node_id=edge.to_node_id,
                kind=edge.kind,
                label=edge.label,
            )
            for edge in walkthrough.edges
        ],
        source=walkthrough.source,
    )


def walkthrough_from_file(record: WalkthroughFile) -> Walkthrough:
    """The model walkthrough of a validated `.wt.json` record."""
    return Walkthrough(
        walkthrough_id=record.walkthrough_id,
        title=record.title,
        rev=record.rev,
        nodes=tuple(
            WalkthroughNode(
                node_id=node.node_id,
                title=node.title,
                body_md=node.body_md,
                refs=tuple(parse_ref(ref) for ref in node.refs),
                tags=tuple(node.tags),
                status=node.status,
            )
            for node in record.nodes
        ),
        edges=tuple(
            WalkthroughEdge(
                from_node_id=edge.from_node_id,
                to_node_id=edge.to_node_id,
                kind=edge.kind,
                label=edge.label,
            )
            for edge in record.edges
        ),
        source=record.source,
    )
