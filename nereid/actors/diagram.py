"""DiagramActor (``diagram:<id>``): owns one diagram's name, kind, AST, rev and history.

A `RevisionedActor` for diagrams (the commit rule is in `nereid.actors.revisioned`).
Requests are in `nereid.actors.protocol` (`DiagramRequest`), one `@on` handler each.
Writes to one diagram are serialised by its mailbox, so revs are strictly increasing and
no update is lost; reads return the immutable `Diagram` snapshot, so clients query and
render without holding the actor.

A diagram's kind: the persister takes `PersistDiagram`, a new rev is `DiagramChanged`,
and ``xref`` hears of every committed snapshot first (`DiagramObserved`, also from
`init`: a restarted or newly created diagram), so existence checks made after a reply
see it.

A diagram listed before its file was parsed (`nereid --mcp` starts that way, issue 18:
`DiagramActorState.unloaded` without a problem) answers `GetDiagramSummary` from its listing at once;
any other message first takes its content from `DiagramLoads` (waiting for its parse if
need be), commits it, tells ``xref`` and the persister (`LoadedDiagram`), and only then
is handled, so every reply sees the loaded diagram. A file that does not parse makes it
an unloaded diagram with its problem, as a load before the start would have.
"""

from __future__ import annotations

import logging
from typing import Protocol

import msgspec

from nereid.actors.persist_link import PersistConfig
from nereid.actors.persister import LoadedDiagram, PersistDiagram
from nereid.actors.protocol import (
    ApplyDiagramOps,
    ApplyDiagramOpsReply,
    DiagramChanged,
    DiagramFileProblem,
    DiagramObserved,
    DiagramRequest,
    DiagramSummary,
    DiffDiagram,
    FinishLoad,
    GetDiagram,
    GetDiagramSummary,
    ImportFile,
    ImportFileReply,
    ReplaceFromMermaid,
    ReplaceFromMermaidReply,
)
from nereid.actors.revisioned import RevisionedActor, RevisionedSnapshot
from nereid.errors import ActorError, InvalidParams, InvalidRequest
from nereid.mermaid import MermaidError, detect_kind, parse_as, reconcile_parse
from nereid.model import (
    Ast,
    Diagram,
    DiagramKind,
    ast_kind,
    empty_ast,
)
from nereid.model.file_names import diagram_paths
from nereid.model.file_problem import FileProblem
from nereid.offload.dispatch import import_file_edit
from nereid.ops import Delta, DiagramState, DiffResult, ast_digest
from nereid.ops.state import conflict
from nereid.runtime import Event, on, on_cast, on_read

__all__ = [
    "DiagramActor",
    "DiagramActorState",
    "DiagramLoads",
    "diagram_actor_name",
    "parse_mermaid_text",
]

_log = logging.getLogger(__name__)


def diagram_actor_name(diagram_id: str) -> str:
    """The registry name of a diagram's actor."""
    return f"diagram:{diagram_id}"


def parse_mermaid_text(text: str, expected: DiagramKind | None = None) -> Ast:
    """Detect the kind and parse; refusals as `InvalidParams` with line/column in data.

    With `expected`, a text of the other kind is refused (`mermaid kind does not match the
    diagram kind`, data `{diagram_kind, mermaid_kind}`).
    """
    kind = detect_kind(text)
    if expected is not None and kind != expected:
        raise InvalidParams(
            "mermaid kind does not match the diagram kind",
            data={"diagram_kind": expected, "mermaid_kind": kind},
        )
    try:
        return parse_as(kind, text)
    except MermaidError as err:
        raise err.in_diagram(kind) from None


class DiagramLoads(Protocol):
    """Where listed diagrams that were not parsed at start-up get their content
    (`nereid.offload.folder_load.FolderLoad`)."""

    def ready(self, diagram_id: str) -> bool:
        """Whether `take` would answer at once."""

    async def take(self, diagram_id: str) -> Diagram | FileProblem:
        """The diagram as its files load, or why they do not (waits for the parse)."""

    def release(self, diagram_id: str) -> None:
        """The actor holds the content now: the loader may forget it."""


class DiagramActorState(RevisionedSnapshot[DiagramState], frozen=True, kw_only=True):
    """The committed snapshot: the diagram's state, name and kind (`persisted_rev` and
    `file_problem` as in `RevisionedSnapshot`)."""

    name: str
    kind: DiagramKind
    #: False for a diagram whose file did not parse at load: its AST is empty, not its own.
    loaded: bool = True
    #: Listed, its file not parsed yet (`unloaded` without a problem): the content comes from `DiagramLoads`.
    pending: bool = False

    @classmethod
    def of(cls, diagram: Diagram, *, persisted: bool) -> DiagramActorState:
        """From a model diagram; `persisted`: it is on disk already (loaded)."""
        return cls(
            name=diagram.name,
            kind=diagram.kind,
            state=DiagramState(diagram_id=diagram.diagram_id, ast=diagram.ast, rev=diagram.rev),
            persisted_rev=diagram.rev if persisted else None,
        )

    @classmethod
    def unloaded(
        cls,
        diagram_id: str,
        *,
        name: str,
        kind: DiagramKind,
        rev: int,
        problem: FileProblem | None = None,
    ) -> DiagramActorState:
        """A listed diagram not taken in: empty, visible, not writable. With `problem` its
        file does not parse; without, it is not parsed yet (pending: loaded on use)."""
        return cls(
            name=name,
            kind=kind,
            state=DiagramState(diagram_id=diagram_id, ast=empty_ast(kind), rev=rev),
            persisted_rev=rev,
            file_problem=problem,
            loaded=False,
            pending=problem is None,
        )

    def diagram(self) -> Diagram:
        state = self.state
        return Diagram(
            diagram_id=state.diagram_id,
            name=self.name,
            kind=self.kind,
            ast=state.ast,
            rev=state.rev,
        )


class DiagramActor(RevisionedActor[DiagramActorState, DiagramState, Delta, DiagramRequest]):
    """One diagram. See the module docstring."""

    persist_key = "diagram"

    def __init__(
        self,
        config: PersistConfig,
        *,
        xref: str | None = "xref",
        loads: DiagramLoads | None = None,
    ) -> None:
        super().__init__(config)
        self._xref = xref
        self._loads = loads
        self._diagram: tuple[DiagramActorState, Diagram] | None = None

    # -- a diagram listed before it was parsed ---------------------------------------------

    async def init(self, snapshot: DiagramActorState) -> None:
        if not snapshot.pending:  # a pending one has nothing to tell yet: it loads on use
            await super().init(snapshot)

    def reads_now(self) -> bool:
        return not self.state.pending  # a read first finishes the load (`handle`)

    async def handle(self, message: DiagramRequest) -> object:
        if self.state.pending and not (
            isinstance(message, GetDiagramSummary)
            and self._loads is not None
            and not self._loads.ready(self.state.state.diagram_id)
        ):
            await self._finish_load()
        return await super().handle(message)

    async def _finish_load(self) -> None:
        """Take the content in: commit it, tell ``xref`` and the persister (which keeps
        the folder's files as they are); or, when the file does not load, become an
        unloaded diagram with its problem."""
        current = self.state
        diagram_id = current.state.diagram_id
        if self._loads is None:
            outcome: Diagram | FileProblem = self._problem("did not load")
        else:
            outcome = await self._loads.take(diagram_id)
        if isinstance(outcome, Diagram):
            self.commit(DiagramActorState.of(outcome, persisted=True))
            await self.announce()
            await self._link.send(
                self.persist_key, LoadedDiagram(diagram=outcome), item=self.name, wait=False
            )
        else:
            self.commit(msgspec.structs.replace(current, pending=False, file_problem=outcome))
            self._publish_problem()
        if self._loads is not None:
            self._loads.release(diagram_id)

    @on_cast(FinishLoad)
    async def _loaded(self, message: FinishLoad) -> None:
        """Done by `handle` before any message: nothing more to do."""

    # -- the document kind -----------------------------------------------------------------

    def persist_message(self) -> PersistDiagram:
        return PersistDiagram(diagram=self._snapshot())

    def changed(self, document: DiagramState, delta: Delta) -> Event:
        return DiagramChanged(diagram=self._snapshot(), delta=delta)

    async def announce(self) -> None:
        """Tell ``xref`` which objects exist now (bounded; a miss is healed by its rebuild)."""
        if self._xref is None:
            return
        xref = self.runtime.registry.get(self._xref)
        if xref is None:
            return
        try:
            await xref.cast(
                DiagramObserved(diagram=self._snapshot()),
                timeout=self._link.config.cast_timeout,
            )
        except ActorError as err:
            _log.warning("%s: xref did not take the new snapshot: %s", self.name, err)

    # -- reads -----------------------------------------------------------------------------

    @on_read(GetDiagram)
    def _get(self, message: GetDiagram) -> Diagram:
        return self._snapshot()

    @on_read(GetDiagramSummary)
    def _summary(self, message: GetDiagramSummary) -> DiagramSummary:
        s = self.state
        return DiagramSummary(
            diagram_id=s.state.diagram_id,
            name=s.name,
            kind=s.kind,
            rev=s.state.rev,
            file_problem=s.file_problem,
        )

    @on_read(DiffDiagram)
    def _diff(self, message: DiffDiagram) -> DiffResult:
        return self.diff(message.since_rev)

    # -- writes ----------------------------------------------------------------------------

    @on(ApplyDiagramOps, inline=True)  # an idle diagram's caller applies it: no round trip
    async def _apply(self, message: ApplyDiagramOps) -> ApplyDiagramOpsReply:
        if not message.dry_run:
            self._refuse_while_unparsable()
        state = self.state.state
        outcome, durable = await self.apply_batch(
            state.propose, state.apply, message.base_rev, message.ops, dry_run=message.dry_run
        )
        return ApplyDiagramOpsReply(
            new_rev=outcome.new_rev,
            applied=outcome.applied,
            delta=outcome.delta,
            dry_run=message.dry_run,
            durable=durable,
        )

    @on(ReplaceFromMermaid)
    async def _replace(self, message: ReplaceFromMermaid) -> ReplaceFromMermaidReply:
        self._refuse_while_unparsable()
        current = self.state
        state = current.state
        if message.base_rev is not None and message.base_rev != state.rev:
            raise conflict(
                message.base_rev, state.rev, "diagram.stat", state.digest(), ast_digest(state.ast)
            )
        parsed = parse_mermaid_text(message.mermaid, current.kind)
        ast = reconcile_parse(parsed, state.ast)
        new_state, delta = state.replace_ast(ast)
        if new_state is state:
            return ReplaceFromMermaidReply(new_rev=state.rev, changed=False, delta=Delta())
        durable = await self.commit_rev(new_state, delta)
        return ReplaceFromMermaidReply(
            new_rev=new_state.rev, changed=True, delta=delta, durable=durable
        )

    def _refuse_while_unparsable(self) -> None:
        """Writes wait until the person's file parses: saving them would overwrite it."""
        problem = self.state.file_problem
        if problem is None:
            return
        raise InvalidRequest(
            f"diagram file does not parse: {problem}; nothing is changed until it is fixed "
            "(the folder is watched) or the diagram is deleted (diagram.delete removes the "
            "file) and created again",
            data={
                "diagram_id": self.state.state.diagram_id,
                "file_problem": msgspec.to_builtins(problem),
            },
        )

    @on(ImportFile)
    async def _import_file(self, message: ImportFile) -> ImportFileReply:
        """The watcher's import of the `.mmd` (see `ImportFile`)."""
        current = self.state
        state = current.state
        problem = message.problem
        ast: Ast | None = None
        if problem is None and message.ast is not None:
            if ast_kind(message.ast) != current.kind:
                problem = self._problem(
                    f"mermaid kind does not match the diagram kind: the file holds a "
                    f"{ast_kind(message.ast)} diagram, not a {current.kind}"
                )
            elif not current.loaded:
                ast = message.ast
            else:
                base = message.base
                if base is not None and ast_kind(base) != current.kind:
                    base = None
                ast = await self._merge_edit(message.ast, base)
        if ast is None:
            problem = problem or self._problem("nothing to import")
            if problem != current.file_problem:
                self.set_file_problem(problem)
                self._publish_problem()
            return ImportFileReply(new_rev=state.rev, changed=False, file_problem=problem)
        was_unparsable = current.file_problem is not None
        if was_unparsable or not current.loaded:
            self.commit(msgspec.structs.replace(current, file_problem=None, loaded=True))
        new_state, delta = state.replace_ast(ast)
        changed = new_state is not state
        if changed:
            await self.commit_rev(new_state, delta)
        if was_unparsable:
            self._publish_problem()
        return ImportFileReply(new_rev=self.state.state.rev, changed=changed)

    async def _merge_edit(self, edited: Ast, base: Ast | None) -> Ast:
        """The person's text on the current AST: its ids, and with `base` (the text it
        started from) only their net change (see `ImportFile`). Export, parses and merge
        of a big diagram run in a worker process (`import_file_edit`): the mailbox waits,
        the event loop does not."""
        ast, conflicts = await import_file_edit(self.state.state.ast, edited, base)
        for item in conflicts:
            _log.warning(
                "%s: %s: %s; the file's version is kept (was: %s)",
                self.name,
                item.what,
                item.reason,
                item.current,
            )
        return ast

    def _problem(
        self, text: str, *, line: int | None = None, column: int | None = None
    ) -> FileProblem:
        path = diagram_paths(self.state.state.diagram_id)[0]
        return FileProblem(file=path, message=text, line=line, column=column)

    def _publish_problem(self) -> None:
        self.runtime.bus.publish(
            DiagramFileProblem(
                diagram_id=self.state.state.diagram_id, problem=self.state.file_problem
            )
        )

    # -- helpers ---------------------------------------------------------------------------

    def _snapshot(self) -> Diagram:
        """The committed diagram as a model value (made once per commit)."""
        current = self.state
        if self._diagram is None or self._diagram[0] is not current:
            self._diagram = (current, current.diagram())
        return self._diagram[1]
