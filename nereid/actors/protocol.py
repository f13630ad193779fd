"""The message protocol of a Nereid session: every request, reply and event of its actors.

This is the contract the MCP tool handlers and the TUI build on. Both are pure clients:
they find an actor by name in the `Registry` (`SessionHandle` in `nereid.actors.tree` has
the names), `call` it with a request below and get its typed reply, or subscribe to the
events on the `EventBus`. Refusals are `nereid.errors` types (InvalidParams -32602,
ResourceNotFound -32002, Conflict / InvalidRequest -32600) whose message and data are the
contract's; ids and refs given as text are checked with `nereid.actors.refusals`
(`check_id_param`, `parse_ref_param`) before they are put in a message.

Who answers what (registry names):

- ``session`` (`SessionRequest`): which diagrams / walkthroughs exist, the active ones, the
  shared selection, their lifecycle (create, open, delete), and the read context.
- ``diagram:<id>`` (`DiagramRequest`): one diagram: snapshot, apply / propose ops, replace
  from Mermaid, diff.
- ``walkthrough:<id>`` (`WalkthroughRequest`): one walkthrough: read, node, stat, ops, diff.
- ``attention`` (`AttentionRequest`): human attention, per-agent spotlights, follow-AI,
  TUI view state, UI counters. Ephemeral.
- ``xref`` (`XrefRequest`): xrefs and their derived status, and object existence.

Events (`SessionEvent`), published after the change is committed and acknowledged to the
persister: `DiagramCreated`, `DiagramChanged` (one per rev), `DiagramDeleted`, `DiagramFileProblem`,
`WalkthroughCreated`, `WalkthroughChanged`, `WalkthroughDeleted`, `ActiveChanged`,
`SelectionChanged`, `XrefsChanged`, `AttentionChanged`. An event says what changed and
carries the committed value it announces (an immutable snapshot, shared, never copied), so a
subscriber such as the TUI mirrors the session from the events alone; after `ResyncNeeded`
it re-reads what it mirrors.

Every message is a frozen, keyword-only msgspec Struct; replies are plain Structs. Refs in
replies are `ObjectRef`s in canonical ref order unless a field says "string order".

Many requests are also MCP tools' params, and their replies the tools' results
(`nereid.mcp.session_calls.forward`): their field names, `rename`s, `U64`s and `param(...)`
descriptions are the tool contract (mcp-tools.md), so change them only with it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from nereid.model import Ast, Diagram, DiagramKind, ObjectRef, Walkthrough, WalkthroughNode
from nereid.model.file_problem import FileProblem
from nereid.model.wire import U64, param
from nereid.model.xref import XRef, XRefStatus
from nereid.ops import Delta, DiagramOp, DiffResult, WalkthroughDelta, WalkthroughOp
from nereid.query.results import NeighborsResult, XRefListResult
from nereid.query.scope import KIND_NAMES, KindName
from nereid.query.xrefs import STATUS_FILTERS
from nereid.runtime._messages import Event, Message, Request

__all__ = [
    "ActiveChanged",
    "ActiveIds",
    "AddXref",
    "AddXrefReply",
    "AgentSessionEnded",
    "ApplyDiagramOps",
    "ApplyDiagramOpsReply",
    "ApplyWalkthroughOps",
    "ApplyWalkthroughOpsReply",
    "AttachUi",
    "AttentionChanged",
    "AttentionRequest",
    "AttentionSnapshot",
    "CheckRefs",
    "ClearSpotlight",
    "ClearSpotlightReply",
    "CreateDiagramFromMermaid",
    "CreateDiagramReply",
    "CreateWalkthrough",
    "CreateWalkthroughReply",
    "DeleteDiagram",
    "DeleteDiagramReply",
    "DeleteWalkthrough",
    "DeleteWalkthroughReply",
    "DetachUi",
    "DiagramChanged",
    "DiagramCreated",
    "DiagramDeleted",
    "DiagramObserved",
    "DiagramRemoved",
    "DiagramFileProblem",
    "DiagramRequest",
    "DiagramSummary",
    "DiffDiagram",
    "DiffWalkthrough",
    "FinishLoad",
    "GetActive",
    "GetAttention",
    "AdoptDiagram",
    "AdoptWalkthrough",
    "ImportWalkthrough",
    "KIND_NAMES",
    "KindName",
    "GetDiagram",
    "ImportFile",
    "ImportFileReply",
    "GetDiagramSummary",
    "GetReadContext",
    "GetSpotlight",
    "GetWalkthrough",
    "GetWalkthroughNode",
    "GetWalkthroughSummary",
    "HandOverUnsent",
    "ListDiagrams",
    "ListDiagramsReply",
    "ListSpotlights",
    "ListWalkthroughs",
    "ListWalkthroughsReply",
    "ListXrefs",
    "NoteSessionMutation",
    "OpenDiagram",
    "OpenDiagramReply",
    "OpenWalkthrough",
    "OpenWalkthroughReply",
    "PurgeDiagramRefs",
    "PurgeDiagramRefsReply",
    "ReadContext",
    "ReadSelection",
    "RefsExistence",
    "RemoveXref",
    "RemoveXrefReply",
    "ReplaceFromMermaid",
    "ReplaceFromMermaidReply",
    "ReportHumanAttention",
    "ReportView",
    "ResendToPersister",
    "SelectionChanged",
    "SelectionMode",
    "SearchDetails",
    "SelectionReply",
    "SelectionUpdateReply",
    "SessionEvent",
    "SessionRequest",
    "SetFollowAi",
    "SetSpotlight",
    "Spotlight",
    "SpotlightsReply",
    "StatWalkthrough",
    "UiState",
    "UpdateSelection",
    "ViewDetails",
    "Size",
    "Scroll",
    "WalkthroughChanged",
    "WalkthroughCreated",
    "WalkthroughDeleted",
    "WalkthroughRequest",
    "WalkthroughStat",
    "WalkthroughSummary",
    "WalkthroughView",
    "XrefNeighbors",
    "XrefRequest",
    "XrefsChanged",
]


# -- shared values -----------------------------------------------------------------------


class DiagramSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One line of `diagram.list`: id, display name, kind, current rev."""

    diagram_id: str
    name: str
    kind: DiagramKind
    rev: int
    #: Set while the diagram's file in the folder does not parse (the diagram keeps its
    #: last good state, or is empty if it never loaded; writes are refused until fixed).
    file_problem: FileProblem | None = None

    @property
    def kind_name(self) -> KindName:
        """The kind as the wire spells it (`Flowchart`, ...)."""
        return KIND_NAMES[self.kind]


class WalkthroughSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One line of `walkthrough.list`: id, title, rev, node and edge counts."""

    walkthrough_id: str
    title: str
    rev: U64
    nodes: U64
    edges: U64


class WalkthroughStat(msgspec.Struct, frozen=True, kw_only=True):
    """`walkthrough.stat`'s digest: `{rev, counts: {nodes, edges}}` via `to_json`."""

    rev: int
    nodes: int
    edges: int
    #: Set while the walkthrough's file does not load (as `DiagramSummary.file_problem`).
    file_problem: FileProblem | None = None

    def to_json(self) -> dict[str, Any]:
        return {"rev": self.rev, "counts": {"nodes": self.nodes, "edges": self.edges}}


class ResendToPersister(Message, frozen=True):
    """Internal cast (from the retry timer): hand any state the persister has not
    acknowledged to it again. Every state-owning actor accepts it."""


class HandOverUnsent(Request[bool], frozen=True):
    """Internal call (before the session's final save): hand the persister every change it
    could not take yet, waiting (bounded) for room in its mailbox even in default mode, so
    a session that closes before the retry timer fires loses nothing. True if nothing is
    left unsent. Every actor that persists through a `PersistLink` accepts it."""


# -- diagram:<id> ------------------------------------------------------------------------


class GetDiagram(Request[Diagram], frozen=True):
    """The diagram's immutable snapshot (id, name, kind, ast, rev).

    Clients run the pure queries and renders (`nereid.query`, `nereid.render`) on it.
    `diagram_id` names the target for clients that route by it (the diagram read tools:
    absent means the active diagram); the actor answers for itself whatever it says.
    """

    diagram_id: str | None = None


class GetDiagramSummary(Request[DiagramSummary], frozen=True):
    """Id, name, kind and rev only (what `diagram.list` shows)."""


class ApplyDiagramOpsReply(msgspec.Struct, frozen=True, kw_only=True):
    """The contract's `{new_rev, applied, delta}` plus what the actor promises.

    `dry_run`: nothing was committed (propose). `durable`: the persister confirmed this
    rev is on disk before the reply (durable mode only; always False otherwise, and False
    if the bounded wait ran out — the rev is committed in memory and re-sent later).
    """

    new_rev: int
    applied: int
    delta: Delta
    dry_run: bool = False
    durable: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"new_rev": self.new_rev, "applied": self.applied, "delta": self.delta.to_json()}


class ApplyDiagramOps(Request[ApplyDiagramOpsReply], frozen=True):
    """`diagram.apply_ops` (or `diagram.propose_ops` with `dry_run`).

    Checks op ids, then `base_rev` (stale → `Conflict` with data `{base_rev, current_rev,
    snapshot_tool, digest, ast_digest}`), then runs the batch all-or-nothing. An empty
    batch changes nothing and keeps the rev. On success the new rev is committed (survives
    a restart of this actor), handed to the persister (and flushed in durable mode), and
    `DiagramChanged` is published, all before the reply.
    """

    base_rev: int
    ops: tuple[DiagramOp, ...]
    dry_run: bool = False


class ReplaceFromMermaidReply(msgspec.Struct, frozen=True, kw_only=True):
    """`changed` is False when the text gives the same AST (then the rev is kept)."""

    new_rev: int
    changed: bool
    delta: Delta
    durable: bool = False


class ReplaceFromMermaid(Request[ReplaceFromMermaidReply], frozen=True):
    """Replace the whole diagram with Mermaid text (the TUI's `$EDITOR` round trip).

    The text must be of the diagram's kind. Ids are kept: the parse is reconciled against
    the current AST (stable-id matching) before it replaces it. A parse error is
    `InvalidParams` `cannot parse Mermaid <kind> diagram: <reason>` with `line`/`column`
    in data. `base_rev`, when given, guards against a concurrent change (`Conflict`).
    """

    mermaid: str
    base_rev: int | None = None


class DiffDiagram(Request[DiffResult], frozen=True):
    """`diagram.diff`: what changed since `since_rev` (from the 64-entry history).

    `diagram_id` names the target for clients that route by it (the MCP tool: absent
    means the active diagram); the actor answers for itself whatever it says."""

    since_rev: U64
    diagram_id: str | None = None


class ImportFileReply(msgspec.Struct, frozen=True, kw_only=True):
    """`changed`: a new rev was committed; `file_problem`: the file did not parse."""

    new_rev: int
    changed: bool
    file_problem: FileProblem | None = None


class ImportFile(Request[ImportFileReply], frozen=True):
    """The folder watcher: the diagram's `.mmd` was changed by another program.

    `ast` is the file's parse (for a diagram that never loaded, with its side-car's ids):
    it is reconciled against the current AST (ids kept) and committed as a new rev. With
    `problem` (the file does not parse) nothing changes but the diagram's `file_problem`:
    writes are refused until the file parses again.

    `base`: the parse of the text Nereid last had in that file that the edit started from.
    With it the import is a three-way merge (`merge_file_edit`): the person's net change
    `base` → `ast` goes onto the current AST, so revisions committed since that text was
    written (an agent's acknowledged ops) are kept.
    """

    ast: Ast | None = None
    problem: FileProblem | None = None
    base: Ast | None = None


class AdoptDiagram(Request[DiagramSummary], frozen=True):
    """The folder watcher: a diagram file appeared (with a side-car, or listed in the meta).

    `problem`: it does not parse; the diagram is listed (empty, with the problem) so that
    nobody overwrites it, and takes its content once it parses.
    """

    diagram: Diagram
    problem: FileProblem | None = None


class FinishLoad(Message, frozen=True):
    """To a diagram listed before its file was parsed (a lazy start-up): its content is
    ready, take it in now (a no-op for a loaded diagram)."""


DiagramRequest = (
    GetDiagram
    | GetDiagramSummary
    | ApplyDiagramOps
    | ReplaceFromMermaid
    | ImportFile
    | DiffDiagram
    | ResendToPersister
    | HandOverUnsent
    | FinishLoad
)


# -- walkthrough:<id> --------------------------------------------------------------------


class GetWalkthrough(Request[Walkthrough], frozen=True):
    """`walkthrough.read`: the whole walkthrough (immutable; nodes and edges in stored order);
    `walkthrough_id` names the target (routing, as `DiffWalkthrough.walkthrough_id`)."""

    walkthrough_id: str


class GetWalkthroughSummary(Request[WalkthroughSummary], frozen=True):
    """Id, title, rev and counts (what `walkthrough.list` shows)."""


class GetWalkthroughNode(Request[WalkthroughNode], frozen=True):
    """`walkthrough.get_node`: `invalid node_id: …` or `walkthrough node not found`
    (data `{walkthrough_id, node_id}`); `walkthrough_id` names the target (routing)."""

    walkthrough_id: str
    node_id: Annotated[str, param("Walkthrough node id.")]


class StatWalkthrough(Request[WalkthroughStat], frozen=True):
    """`walkthrough.stat`: rev and counts (the `base_rev` source for ops); `walkthrough_id`
    names the target (routing)."""

    walkthrough_id: str


class ApplyWalkthroughOpsReply(msgspec.Struct, frozen=True, kw_only=True):
    """`{new_rev, applied, delta}` (walkthrough pseudo-refs, string order); `dry_run` and
    `durable` as in `ApplyDiagramOpsReply`."""

    new_rev: int
    applied: int
    delta: WalkthroughDelta
    dry_run: bool = False
    durable: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"new_rev": self.new_rev, "applied": self.applied, "delta": self.delta.to_json()}


class ApplyWalkthroughOps(Request[ApplyWalkthroughOpsReply], frozen=True):
    """`walkthrough.apply_ops`: same rules and commit promise as `ApplyDiagramOps`;
    publishes `WalkthroughChanged`."""

    base_rev: int
    ops: tuple[WalkthroughOp, ...]
    dry_run: bool = False


class ImportWalkthrough(Request[ImportFileReply], frozen=True):
    """The folder watcher: the walkthrough's file was changed by another program; its
    content (id and rev are the actor's) becomes the next rev if it differs. `problem`:
    the file does not load; the walkthrough keeps its state, writes are refused until
    it loads again."""

    walkthrough: Walkthrough | None = None
    problem: FileProblem | None = None


class AdoptWalkthrough(Request[WalkthroughSummary], frozen=True):
    """The folder watcher: a walkthrough file appeared in the folder."""

    walkthrough: Walkthrough


class DiffWalkthrough(Request[DiffResult], frozen=True):
    """`walkthrough.diff`: changes since `since_rev`; `walkthrough_id` names the target
    (routing, as `DiffDiagram.diagram_id`)."""

    walkthrough_id: str
    since_rev: U64


WalkthroughRequest = (
    GetWalkthrough
    | GetWalkthroughSummary
    | GetWalkthroughNode
    | StatWalkthrough
    | ApplyWalkthroughOps
    | ImportWalkthrough
    | DiffWalkthrough
    | ResendToPersister
    | HandOverUnsent
)


# -- session -----------------------------------------------------------------------------


class ListDiagramsReply(msgspec.Struct, frozen=True, kw_only=True):
    """Diagrams sorted by id, and the active diagram id."""

    diagrams: tuple[DiagramSummary, ...]
    active_diagram_id: str | None


class ListDiagrams(Request[ListDiagramsReply], frozen=True):
    """`diagram.list` (revs are asked from each diagram actor, in parallel)."""


class ListWalkthroughsReply(msgspec.Struct, frozen=True, kw_only=True):
    walkthroughs: tuple[WalkthroughSummary, ...]
    active_walkthrough_id: str | None


class ListWalkthroughs(Request[ListWalkthroughsReply], frozen=True):
    """`walkthrough.list`, sorted by id."""


class ActiveIds(msgspec.Struct, frozen=True, kw_only=True):
    active_diagram_id: str | None
    active_walkthrough_id: str | None


class GetActive(Request[ActiveIds], frozen=True):
    """`diagram.current` / `walkthrough.current`."""


class CreateDiagramReply(msgspec.Struct, frozen=True, kw_only=True):
    diagram: DiagramSummary
    active_diagram_id: str | None


class CreateDiagramFromMermaid(Request[CreateDiagramReply], frozen=True):
    """`diagram.create_from_mermaid`.

    Order (mcp-tools.md §5.2): kind detection and parse (`InvalidParams` with line/column
    in data), then the id: given → `invalid diagram_id: …` / `diagram_id already exists`
    (data `{diagram_id}`); omitted → `flow` / `seq`, else the first free `<base>-2`, … The
    diagram starts at rev 0 with `name` or its id as name; `make_active` makes it active.
    Spawns `diagram:<id>`, persists it, publishes `DiagramCreated`.
    """

    mermaid: Annotated[
        str, param("Mermaid text: flowchart / graph, sequenceDiagram, stateDiagram.")
    ]
    diagram_id: Annotated[
        str | None, param("Id for the new diagram; absent: flow / seq / state, then -2, -3, ...")
    ] = None
    name: Annotated[str | None, param("Display name; absent: the id.")] = None
    make_active: Annotated[bool, param("Make it the active diagram (default true).")] = True


class OpenDiagramReply(msgspec.Struct, frozen=True, kw_only=True):
    """`diagram.open`: the diagram that is now active."""

    active_diagram_id: str


class OpenDiagram(Request[OpenDiagramReply], frozen=True):
    """`diagram.open`: make it active (`diagram not found`, data `{diagram_id}`)."""

    diagram_id: str


class DeleteDiagramReply(msgspec.Struct, frozen=True, kw_only=True):
    """`diagram.delete`: the deleted id and the active diagram after it (or null)."""

    deleted_diagram_id: str
    active_diagram_id: str | None


class DeleteDiagram(Request[DeleteDiagramReply], frozen=True):
    """`diagram.delete`: stops `diagram:<id>`, deletes its files, re-targets the active
    diagram (first remaining id, or none), drops its refs from the selection and from every
    spotlight and the human attention; xrefs into it stay and go dangling."""

    diagram_id: str


class CreateWalkthroughReply(msgspec.Struct, frozen=True, kw_only=True):
    """`walkthrough.create`: the new walkthrough and the active one after it."""

    walkthrough: WalkthroughSummary
    active_walkthrough_id: str | None


class CreateWalkthrough(Request[CreateWalkthroughReply], frozen=True):
    """`walkthrough.create` (decision 8): an empty walkthrough at rev 0.

    `walkthrough_id` given → `invalid walkthrough_id: …` / `walkthrough_id already exists`;
    omitted → `wt`, else the first free `wt-2`, `wt-3`, …
    """

    title: Annotated[str, param("Walkthrough title.")]
    walkthrough_id: Annotated[str | None, param("Id for the new walkthrough; absent: derived.")] = (
        None
    )
    make_active: Annotated[bool, param("Make it the active walkthrough (default false).")] = False


class OpenWalkthroughReply(msgspec.Struct, frozen=True, kw_only=True):
    """`walkthrough.open`: the walkthrough that is now active."""

    active_walkthrough_id: str


class OpenWalkthrough(Request[OpenWalkthroughReply], frozen=True):
    """`walkthrough.open` (`walkthrough not found`, data `{walkthrough_id}`)."""

    walkthrough_id: str


class DeleteWalkthroughReply(msgspec.Struct, frozen=True, kw_only=True):
    """`walkthrough.delete`: the deleted id and the active walkthrough after it (or null)."""

    deleted_walkthrough_id: str
    active_walkthrough_id: str | None


class DeleteWalkthrough(Request[DeleteWalkthroughReply], frozen=True):
    """`walkthrough.delete` (decision 8): stops the actor and deletes its file; an active
    walkthrough is re-targeted to the first remaining id, or none."""

    walkthrough_id: str


class SelectionReply(msgspec.Struct, frozen=True, kw_only=True):
    object_refs: tuple[ObjectRef, ...]


class ReadSelection(Request[SelectionReply], frozen=True):
    """`selection.read`: the selection pruned to existing objects, in ref order."""


SelectionMode = Literal["replace", "add", "remove"]


class SelectionUpdateReply(msgspec.Struct, frozen=True, kw_only=True):
    """`applied` (existing refs, ref order) and `ignored` (missing ones, string order)."""

    applied: tuple[ObjectRef, ...]
    ignored: tuple[ObjectRef, ...]


class UpdateSelection(Request[SelectionUpdateReply], frozen=True):
    """`selection.update` on the pruned selection; persisted; publishes `SelectionChanged`
    when the selection changed."""

    object_refs: Annotated[
        tuple[ObjectRef, ...], param("Object refs to replace, add to or remove from it.")
    ]
    mode: Annotated[SelectionMode, param("How object_refs change the selection.")] = "replace"


class ReadContext(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """mcp-tools.md §3.4: keys are omitted when unset (None); `to_json` gives the wire form."""

    session_active_diagram_id: str | None = None
    human_active_diagram_id: str | None = None
    human_active_object_ref: ObjectRef | None = None
    follow_ai: bool | None = None
    ui_rev: int | None = None
    ui_session_rev: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            key: value
            for key in self.__struct_fields__
            if (value := getattr(self, key)) is not None
        }

    @property
    def follow_ai_enabled(self) -> bool:
        """Whether agents' spotlights move the cursor: the TUI's switch, on without a TUI."""
        return True if self.follow_ai is None else self.follow_ai

    @classmethod
    def of(cls, active_diagram_id: str | None, ui: UiState | None) -> ReadContext:
        """The context of the session's active diagram and ``attention``'s UI state (None or
        not attached: no TUI, so only the active diagram)."""
        if ui is None or not ui.attached:
            return cls(session_active_diagram_id=active_diagram_id)
        return cls(
            session_active_diagram_id=active_diagram_id,
            human_active_diagram_id=ui.human_diagram_id,
            human_active_object_ref=ui.human_object_ref,
            follow_ai=ui.follow_ai,
            ui_rev=ui.rev,
            ui_session_rev=ui.session_rev,
        )


class GetReadContext(Request[ReadContext], frozen=True):
    """The read context: active diagram from `session`, UI state from `attention`."""


SessionRequest = (
    ListDiagrams
    | ListWalkthroughs
    | GetActive
    | CreateDiagramFromMermaid
    | AdoptDiagram
    | AdoptWalkthrough
    | OpenDiagram
    | DeleteDiagram
    | CreateWalkthrough
    | OpenWalkthrough
    | DeleteWalkthrough
    | ReadSelection
    | UpdateSelection
    | GetReadContext
    | ResendToPersister
    | HandOverUnsent
)


# -- attention ---------------------------------------------------------------------------


class Spotlight(msgspec.Struct, frozen=True, kw_only=True):
    """One agent's spotlight (`object_ref` None when empty); `diagram_id` is the ref's.

    `seq` orders spotlights by when they were set (session-wide, never reused, 0 when
    empty): the largest is the newest, which is what follow-AI follows. `agent_name` is
    the agent's client name (MCP `clientInfo.name`), so viewers can say who looks; None
    when unknown. `idle`: the agent has asked nothing for a while (shown greyed; it goes
    when the agent is gone)."""

    agent_id: str
    object_ref: ObjectRef | None = None
    seq: int = 0
    agent_name: str | None = None
    idle: bool = False

    @property
    def diagram_id(self) -> str | None:
        return None if self.object_ref is None else self.object_ref.diagram_id


class SearchDetails(msgspec.Struct, frozen=True, kw_only=True):
    """An open search in the TUI: `mode` is `regex` (`/`) or `fuzzy` (`\\`)."""

    mode: Literal["regex", "fuzzy"]
    query: str
    editing: bool
    results: int
    index: int | None = None


class WalkthroughView(msgspec.Struct, frozen=True, kw_only=True):
    """The walkthrough the TUI shows (its Diagram pane in walkthrough view)."""

    walkthrough_id: str
    node_id: str | None = None


class Size(msgspec.Struct, frozen=True, kw_only=True):
    """A size in terminal cells."""

    width: int = 0
    height: int = 0


class Scroll(msgspec.Struct, frozen=True, kw_only=True):
    """The TUI's pan in cells: the cell shown top-left (negative = margin)."""

    x: float
    y: float


class ViewDetails(msgspec.Struct, frozen=True, kw_only=True):
    """What the person sees, beyond scroll and panes (tui.md §16.3, decision 11).

    `diagram_id` is the diagram the TUI shows (the person's; the session's active one can
    differ after an agent's `diagram.open`); `cursor_ref` the person's cursor object; the
    `viewport` is the Diagram pane's interior in cells, `diagram_size` the rendering's size;
    `focus` a pane name (`diagram`/`objects`/`xrefs`/`inspector`), `focus_owner` `human` or
    `agent` (who moved the cursor last); `follow_paused`: follow-AI waits because the person
    navigated; `hint_mode` `jump`/`chain`; `mouse` whether the TUI captures the mouse;
    `walkthrough` set while the walkthrough view is open; `mcp_url` where agents connect."""

    diagram_id: str | None = None
    cursor_ref: ObjectRef | None = None
    viewport: Size = msgspec.field(default_factory=Size)
    diagram_size: Size = msgspec.field(default_factory=Size)
    focus: str = "diagram"
    focus_owner: Literal["human", "agent"] = "human"
    search: SearchDetails | None = None
    hint_mode: Literal["jump", "chain"] | None = None
    show_notes: bool = True
    help_open: bool = False
    mouse: bool = False
    follow_paused: bool = False
    walkthrough: WalkthroughView | None = None
    mcp_url: str | None = None


class UiState(msgspec.Struct, frozen=True, kw_only=True):
    """What the TUI reported (model.md §10.2). `attached` False: no TUI; the rest are the
    documented defaults then (follow_ai True, counters 0, no focus, scroll 0, no panes)."""

    attached: bool = False
    rev: int = 0
    session_rev: int = 0
    human_diagram_id: str | None = None
    human_object_ref: ObjectRef | None = None
    follow_ai: bool = True
    scroll_x: float = 0.0
    scroll_y: float = 0.0
    panes: dict[str, bool] = msgspec.field(default_factory=dict)
    view: ViewDetails | None = None

    @property
    def scroll(self) -> Scroll:
        return Scroll(x=self.scroll_x, y=self.scroll_y)


class AttentionSnapshot(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the attention actor holds: UI state and every agent's spotlight
    (sorted by agent id)."""

    ui: UiState
    spotlights: tuple[Spotlight, ...]


class GetAttention(Request[AttentionSnapshot], frozen=True):
    """The whole attention state (`attention.human.read`, `view.read_state`, the TUI)."""


class GetSpotlight(Request[Spotlight], frozen=True):
    """`attention.agent.read` for the calling agent."""

    agent_id: str


class SetSpotlight(Request[Spotlight], frozen=True):
    """`attention.agent.set` for the calling agent: the object must exist
    (`object not found`, data `{object_ref}`); replaces the agent's previous spotlight.
    `agent_name` (the client's name, None when unknown) is kept with the spotlight."""

    agent_id: str
    object_ref: ObjectRef
    agent_name: str | None = None


class ClearSpotlightReply(msgspec.Struct, frozen=True, kw_only=True):
    """`attention.agent.clear`: how many refs went (0 or 1)."""

    cleared: int


class ClearSpotlight(Request[ClearSpotlightReply], frozen=True):
    """`attention.agent.clear` for the calling agent: `cleared` is 0 or 1."""

    agent_id: str


class SpotlightsReply(msgspec.Struct, frozen=True, kw_only=True):
    spotlights: tuple[Spotlight, ...]


class ListSpotlights(Request[SpotlightsReply], frozen=True):
    """Every agent's non-empty spotlight, by agent id (the TUI draws each in its style)."""


class AgentSessionEnded(Message, frozen=True):
    """Cast by the MCP layer when an agent's session ends: its spotlight is dropped."""

    agent_id: str


class AgentPresence(Message, frozen=True):
    """Cast by the MCP layer when an agent's presence changes (`nereid.mcp.presence`):
    `idle` greys its spotlight, `active` restores it, `gone` drops it."""

    agent_id: str
    presence: Literal["active", "idle", "gone"]


class SetFollowAi(Request[UiState], frozen=True):
    """`follow_ai.set` (MCP) or the TUI's toggle. Without a TUI attached it is a no-op
    (the contract echoes the input, and `follow_ai` stays true)."""

    enabled: Annotated[bool, param("true: the TUI cursor follows agent spotlights.")]


class AttachUi(Request[UiState], frozen=True):
    """The TUI announces itself; UI state starts from the defaults (counters keep going)."""


class DetachUi(Request[UiState], frozen=True):
    """The TUI went away: the UI part of the read context disappears."""


class ReportHumanAttention(Request[UiState], frozen=True):
    """The TUI's cursor: with a ref, the diagram is the ref's (model.md §10.2).
    Bumps `ui_rev` only on change. Ignored (returns the state) without a TUI attached."""

    diagram_id: str | None = None
    object_ref: ObjectRef | None = None


class ReportView(Request[UiState], frozen=True):
    """The TUI's view state for `view.read_state` (decision 11): scroll, panes and the
    rest of what the person sees (`view`; None from reporters that only know the first)."""

    scroll_x: float = 0.0
    scroll_y: float = 0.0
    panes: dict[str, bool] = msgspec.field(default_factory=dict)
    view: ViewDetails | None = None


class NoteSessionMutation(Message, frozen=True):
    """Cast by the MCP layer after each successful mutating tool: bumps `ui_session_rev`
    (and `ui_rev`) when a TUI is attached (mcp-tools.md §3.3)."""


class PurgeDiagramRefsReply(msgspec.Struct, frozen=True, kw_only=True):
    spotlights_cleared: int
    human_cleared: bool


class PurgeDiagramRefs(Request[PurgeDiagramRefsReply], frozen=True):
    """Sent by `session` on `diagram.delete`: drop every spotlight into the diagram and
    the human focus on it."""

    diagram_id: str


AttentionRequest = (
    GetAttention
    | GetSpotlight
    | SetSpotlight
    | ClearSpotlight
    | ListSpotlights
    | AgentSessionEnded
    | AgentPresence
    | SetFollowAi
    | AttachUi
    | DetachUi
    | ReportHumanAttention
    | ReportView
    | NoteSessionMutation
    | PurgeDiagramRefs
)


# -- xref --------------------------------------------------------------------------------


class ListXrefs(Request[XRefListResult], frozen=True):
    """`xref.list` with the filters of mcp-tools.md §9.2 (AND-combined; refs as given text,
    checked here: `invalid from_ref: …` etc.; `status` checked first)."""

    dangling_only: Annotated[bool, param("Only xrefs with a missing endpoint.")] = False
    status: Annotated[
        str | None,
        param("Only this status (dangling_* = any but ok).", choices=STATUS_FILTERS),
    ] = None
    kind: Annotated[str | None, param("Only this xref kind.")] = None
    from_ref: Annotated[str | None, param("Only xrefs from this object ref.")] = None
    to_ref: Annotated[str | None, param("Only xrefs to this object ref.")] = None
    involves_ref: Annotated[str | None, param("Only xrefs from or to this object ref.")] = None
    label_contains: Annotated[
        str | None, param("Only xrefs whose label contains this (case-sensitive).")
    ] = None
    limit: Annotated[U64 | None, param("Most xrefs to return (absent: all).")] = None


class XrefNeighbors(Request[NeighborsResult], frozen=True):
    """`xref.neighbors`: `direction` out | in | both (else `invalid direction …`)."""

    object_ref: str
    direction: Annotated[
        str,
        param("out: xrefs from the object, in: to it, both.", choices=("out", "in", "both")),
    ] = "both"


class AddXrefReply(msgspec.Struct, frozen=True, kw_only=True):
    """`xref.add`: the new xref and its status now (derived from its endpoints)."""

    xref_id: str
    status: XRefStatus


class AddXref(Request[AddXrefReply], frozen=True):
    """`xref.add`: `invalid xref_id: …`, `invalid from: …`, `invalid to: …`, then
    `xref_id already exists`; the status is derived from endpoint existence now. On the
    wire `from_ref` / `to_ref` are `from` / `to` (Python keywords, hence the field names)."""

    xref_id: str
    from_ref: Annotated[str, param("Object ref the xref starts at.")] = msgspec.field(name="from")
    to_ref: Annotated[str, param("Object ref the xref points to.")] = msgspec.field(name="to")
    kind: Annotated[str, param("What the link means, a free word (e.g. implements).")]
    label: Annotated[str | None, param("Optional label text.")] = None


class RemoveXrefReply(msgspec.Struct, frozen=True, kw_only=True):
    """`xref.remove`: always true (an unknown id is refused)."""

    removed: bool


class RemoveXref(Request[RemoveXrefReply], frozen=True):
    """`xref.remove`: `xref not found` (data `{xref_id}`)."""

    xref_id: str


class RefsExistence(msgspec.Struct, frozen=True, kw_only=True):
    """One flag per asked ref, in the same order."""

    exists: tuple[bool, ...]


class CheckRefs(Request[RefsExistence], frozen=True):
    """Whether each ref names an existing object (model.md §3.4), for selection filtering
    and spotlight validation. Reflects every change acknowledged before the call."""

    refs: tuple[ObjectRef, ...]


class DiagramObserved(Message, frozen=True):
    """Cast by a diagram actor (at start and before acknowledging each new rev): its
    current snapshot, so `xref` knows which objects exist."""

    diagram: Diagram


class DiagramRemoved(Message, frozen=True):
    """Cast by `session` when a diagram is deleted: its objects no longer exist."""

    diagram_id: str


XrefRequest = (
    ListXrefs
    | XrefNeighbors
    | AddXref
    | RemoveXref
    | CheckRefs
    | DiagramObserved
    | DiagramRemoved
    | ResendToPersister
)


# -- events ------------------------------------------------------------------------------


class DiagramCreated(Event, frozen=True):
    """A diagram joined the session (created, or adopted from the folder): `diagram` is
    its first snapshot; `file_problem` is set when its file does not parse (then the
    diagram is empty until it does)."""

    diagram: Diagram
    file_problem: FileProblem | None = None


class DiagramChanged(Event, frozen=True):
    """Published once per new rev, after it is committed: `diagram` is the committed
    snapshot (immutable, so subscribers mirror it without asking), `delta` that rev's net
    change."""

    diagram: Diagram
    delta: Delta

    @property
    def diagram_id(self) -> str:
        return self.diagram.diagram_id

    @property
    def rev(self) -> int:
        return self.diagram.rev


class DiagramDeleted(Event, frozen=True):
    diagram_id: str


class DiagramFileProblem(Event, frozen=True):
    """The diagram's file stopped parsing (`problem`) or parses again (None)."""

    diagram_id: str
    problem: FileProblem | None = None


class WalkthroughCreated(Event, frozen=True):
    """A walkthrough joined the session (created or adopted): its first snapshot."""

    walkthrough: Walkthrough


class WalkthroughChanged(Event, frozen=True):
    """One per new rev, after it is committed: the committed walkthrough and the delta."""

    walkthrough: Walkthrough
    delta: WalkthroughDelta

    @property
    def walkthrough_id(self) -> str:
        return self.walkthrough.walkthrough_id

    @property
    def rev(self) -> int:
        return self.walkthrough.rev


class WalkthroughDeleted(Event, frozen=True):
    walkthrough_id: str


class ActiveChanged(Event, frozen=True):
    active_diagram_id: str | None
    active_walkthrough_id: str | None


class SelectionChanged(Event, frozen=True):
    object_refs: tuple[ObjectRef, ...]


class XrefsChanged(Event, frozen=True):
    """An xref was added or removed; `xrefs` is every xref after the change (statuses
    are derived on read)."""

    xrefs: dict[str, XRef]
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


AttentionPart = Literal["human", "spotlight", "follow_ai", "view", "ui"]


class AttentionChanged(Event, frozen=True):
    """`part` changed (`spotlight`: of `agent_id`); `attention` is the whole attention
    state after the change (what `GetAttention` would answer)."""

    part: AttentionPart
    attention: AttentionSnapshot
    agent_id: str | None = None

    @property
    def ui_rev(self) -> int:
        return self.attention.ui.rev


SessionEvent = (
    DiagramCreated
    | DiagramChanged
    | DiagramDeleted
    | DiagramFileProblem
    | WalkthroughCreated
    | WalkthroughChanged
    | WalkthroughDeleted
    | ActiveChanged
    | SelectionChanged
    | XrefsChanged
    | AttentionChanged
)
