"""DiagramActor (``diagram:<id>``): owns one diagram's name, kind, AST, rev and history.

Requests are in `nereid.actors.protocol` (`DiagramRequest`). Writes to one diagram are
serialised by its mailbox, so revs are strictly increasing and no update is lost; reads
return the immutable `Diagram` snapshot, so clients query and render without holding the
actor.

The commit rule, for every new rev, all before the reply:

1. `self.commit(...)`: the rev survives a restart of this actor;
2. cast `DiagramObserved` to ``xref`` (so existence checks made after the reply see it);
3. hand the diagram to the persister (`PersistLink`; durable mode: flush and wait,
   bounded); the snapshot records `persisted_rev`, and `init` re-sends when it lags, so a
   crash between 1 and 3 loses nothing;
4. publish `DiagramChanged(diagram_id, rev, delta)`.

With `--durable-writes`, a rev that step 3 cannot confirm on disk (disk full, read-only
folder, EIO, a persister that does not answer in time) is rolled back: the previous
snapshot is committed again, re-announced and handed back to the persister, nothing is
published, and the caller gets `PersistFailed` (retryable, `applied: false`). So memory
stays equal to disk and no agent is told "applied" for a rev that is not on disk. (A
crash between 1 and the rollback restarts at the new rev with nobody told it was
applied; `init` hands it to the persister like any unsent rev.)

`init` also announces the snapshot to ``xref`` (a restarted or newly created diagram).
"""

from __future__ import annotations

import logging
from typing import assert_never

import msgspec

from nereid.actors.ops_batch import run_batch
from nereid.actors.persist_link import PersistConfig, PersistLink, not_applied
from nereid.actors.persister import PersistDiagram
from nereid.actors.protocol import (
    ApplyDiagramOps,
    ApplyDiagramOpsReply,
    DiagramChanged,
    DiagramFileProblem,
    DiagramObserved,
    DiagramRequest,
    DiagramSummary,
    DiffDiagram,
    GetDiagram,
    GetDiagramSummary,
    ImportFile,
    ImportFileReply,
    ReplaceFromMermaid,
    ReplaceFromMermaidReply,
    ResendToPersister,
)
from nereid.actors.refusals import from_mermaid_error, from_op_error
from nereid.errors import ActorError, InvalidParams, InvalidRequest, PersistFailed
from nereid.mermaid import MermaidError, detect_kind, export_ast, parse_as, reconcile_parse
from nereid.model import (
    Ast,
    Diagram,
    DiagramKind,
    ast_kind,
    empty_ast,
)
from nereid.model.file_problem import FileProblem
from nereid.ops import Delta, DiagramState, OpError, ast_digest
from nereid.ops.merge3 import merge_file_edit
from nereid.ops.state import conflict
from nereid.runtime._actor import Actor
from nereid.store.naming import diagram_paths

__all__ = [
    "DiagramActor",
    "DiagramActorState",
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
    try:
        kind = detect_kind(text)
    except MermaidError as err:
        raise from_mermaid_error(err, None) from None
    if expected is not None and kind != expected:
        raise InvalidParams(
            "mermaid kind does not match the diagram kind",
            data={"diagram_kind": expected, "mermaid_kind": kind},
        )
    try:
        return parse_as(kind, text)
    except MermaidError as err:
        raise from_mermaid_error(err, kind) from None


class DiagramActorState(msgspec.Struct, frozen=True, kw_only=True):
    """The committed snapshot. `persisted_rev`: the last rev the persister took (None:
    never — a new diagram, sent by `init`)."""

    name: str
    kind: DiagramKind
    state: DiagramState
    persisted_rev: int | None = None
    #: The diagram's file does not parse (an edit by another program): writes are refused.
    file_problem: FileProblem | None = None
    #: False for a diagram whose file did not parse at load: its AST is empty, not its own.
    loaded: bool = True

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
        cls, diagram_id: str, *, name: str, kind: DiagramKind, rev: int, problem: FileProblem
    ) -> DiagramActorState:
        """A listed diagram whose file does not parse: empty, visible, not writable."""
        return cls(
            name=name,
            kind=kind,
            state=DiagramState(diagram_id=diagram_id, ast=empty_ast(kind), rev=rev),
            persisted_rev=rev,
            file_problem=problem,
            loaded=False,
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


class DiagramActor(Actor[DiagramActorState, DiagramRequest]):
    """One diagram. See the module docstring for the commit rule."""

    def __init__(self, config: PersistConfig, *, xref: str | None = "xref") -> None:
        self._link = PersistLink(self, config)
        self._xref = xref
        self._s: DiagramActorState | None = None
        self._diagram: Diagram | None = None

    @property
    def current(self) -> DiagramActorState:
        assert self._s is not None, "init has not run"
        return self._s

    async def init(self, snapshot: DiagramActorState) -> None:
        self._set(snapshot)
        await self._announce()
        if snapshot.persisted_rev != snapshot.state.rev:
            await self._persist()

    async def handle(self, message: DiagramRequest) -> object:
        match message:
            case GetDiagram():
                return self._snapshot()
            case GetDiagramSummary():
                s = self.current
                return DiagramSummary(
                    diagram_id=s.state.diagram_id,
                    name=s.name,
                    kind=s.kind,
                    rev=s.state.rev,
                    file_problem=s.file_problem,
                )
            case ApplyDiagramOps():
                if not message.dry_run:
                    self._refuse_while_unparsable()
                return await self._apply(message)
            case ReplaceFromMermaid():
                self._refuse_while_unparsable()
                return await self._replace(message)
            case ImportFile():
                return await self._import_file(message)
            case DiffDiagram(since_rev=since_rev):
                try:
                    return self.current.state.diff(since_rev)
                except OpError as err:
                    raise from_op_error(err) from None
            case ResendToPersister():
                await self._link.resend()
                self._note_persisted()
                return None
            case _:
                assert_never(message)

    # -- writes ----------------------------------------------------------------------------

    async def _apply(self, message: ApplyDiagramOps) -> ApplyDiagramOpsReply:
        state = self.current.state
        new_state, outcome = run_batch(
            state.propose, state.apply, message.base_rev, message.ops, dry_run=message.dry_run
        )
        durable = False
        if new_state is not None and new_state is not state:
            durable = await self._commit_rev(new_state, outcome.delta)
        return ApplyDiagramOpsReply(
            new_rev=outcome.new_rev,
            applied=outcome.applied,
            delta=outcome.delta,
            dry_run=message.dry_run,
            durable=durable,
        )

    async def _replace(self, message: ReplaceFromMermaid) -> ReplaceFromMermaidReply:
        current = self.current
        state = current.state
        if message.base_rev is not None and message.base_rev != state.rev:
            err = conflict(
                message.base_rev, state.rev, "diagram.stat", state.digest(), ast_digest(state.ast)
            )
            raise from_op_error(err)
        parsed = parse_mermaid_text(message.mermaid, current.kind)
        ast = reconcile_parse(parsed, state.ast)
        try:
            new_state, delta = state.replace_ast(ast)
        except OpError as err:  # pragma: no cover - the kind was checked above
            raise from_op_error(err) from None
        if new_state is state:
            return ReplaceFromMermaidReply(new_rev=state.rev, changed=False, delta=Delta())
        durable = await self._commit_rev(new_state, delta)
        return ReplaceFromMermaidReply(
            new_rev=new_state.rev, changed=True, delta=delta, durable=durable
        )

    def _refuse_while_unparsable(self) -> None:
        """Writes wait until the person's file parses: saving them would overwrite it."""
        problem = self.current.file_problem
        if problem is None:
            return
        raise InvalidRequest(
            f"diagram file does not parse: {problem}; nothing is changed until it is fixed "
            "(the folder is watched) or the diagram is deleted (diagram.delete removes the "
            "file) and created again",
            data={
                "diagram_id": self.current.state.diagram_id,
                "file_problem": msgspec.to_builtins(problem),
            },
        )

    async def _import_file(self, message: ImportFile) -> ImportFileReply:
        """The watcher's import of the `.mmd` (see `ImportFile`)."""
        current = self.current
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
            elif message.base is None or ast_kind(message.base) != current.kind:
                ast = reconcile_parse(message.ast, state.ast)
            else:
                ast = self._merge_edit(message.base, message.ast)
        if ast is None:
            problem = problem or self._problem("nothing to import")
            if problem != current.file_problem:
                self._set(msgspec.structs.replace(current, file_problem=problem))
                self.commit(self.current)
                self._publish_problem()
            return ImportFileReply(new_rev=state.rev, changed=False, file_problem=problem)
        was_unparsable = current.file_problem is not None
        if was_unparsable or not current.loaded:
            self._set(msgspec.structs.replace(current, file_problem=None, loaded=True))
            self.commit(self.current)
        try:
            new_state, delta = state.replace_ast(ast)
        except OpError as err:  # pragma: no cover - the kind was checked above
            raise from_op_error(err) from None
        changed = new_state is not state
        if changed:
            await self._commit_rev(new_state, delta)
        if was_unparsable:
            self._publish_problem()
        return ImportFileReply(new_rev=self.current.state.rev, changed=changed)

    def _merge_edit(self, base: Ast, edited: Ast) -> Ast:
        """The person's change `base` → `edited` on the current AST (see `ImportFile`)."""
        current = self.current.state.ast
        base = reconcile_parse(base, current)  # the ids the objects have now
        if _reads_back_as(current, base):  # nothing committed since that text
            return reconcile_parse(edited, current)
        result = merge_file_edit(base, current, reconcile_parse(edited, base))
        for item in result.conflicts:
            _log.warning(
                "%s: %s: %s; the file's version is kept (was: %s)",
                self.name,
                item.what,
                item.reason,
                item.current,
            )
        ast: Ast = result.ast
        return ast

    def _problem(
        self, text: str, *, line: int | None = None, column: int | None = None
    ) -> FileProblem:
        path = diagram_paths(self.current.state.diagram_id)[0]
        return FileProblem(file=path, message=text, line=line, column=column)

    def _publish_problem(self) -> None:
        self.runtime.bus.publish(
            DiagramFileProblem(
                diagram_id=self.current.state.diagram_id, problem=self.current.file_problem
            )
        )

    async def _commit_rev(self, new_state: DiagramState, delta: Delta) -> bool:
        """Steps 1-4 of the commit rule; returns whether the rev is confirmed on disk."""
        previous = self.current
        self._set(msgspec.structs.replace(previous, state=new_state))
        self.commit(self.current)
        await self._announce()
        try:
            durable = await self._persist(confirm=True)
        except PersistFailed as err:  # durable mode: not on disk, so not applied either
            self._set(previous)
            self.commit(previous)
            await self._announce()
            await self._persist(wait=False)
            raise not_applied(err, previous.state.rev) from None
        self.runtime.bus.publish(
            DiagramChanged(diagram_id=new_state.diagram_id, rev=new_state.rev, delta=delta)
        )
        return durable

    # -- helpers ---------------------------------------------------------------------------

    def _set(self, snapshot: DiagramActorState) -> None:
        self._s = snapshot
        self._diagram = None

    def _snapshot(self) -> Diagram:
        if self._diagram is None:
            self._diagram = self.current.diagram()
        return self._diagram

    async def _persist(self, *, confirm: bool = False, wait: bool = True) -> bool:
        durable = await self._link.send(
            "diagram",
            PersistDiagram(diagram=self._snapshot()),
            item=self.name,
            confirm=confirm,
            wait=wait,
        )
        self._note_persisted()
        return durable

    def _note_persisted(self) -> None:
        """Record in the snapshot that the persister has the current rev (if it has)."""
        current = self.current
        if not self._link.enabled or self._link.unsent:
            return
        if current.persisted_rev != current.state.rev:
            self._s = msgspec.structs.replace(current, persisted_rev=current.state.rev)
            self.commit(self._s)

    async def _announce(self) -> None:
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


def _reads_back_as(ast: Ast, text_ast: Ast) -> bool:
    """Whether `ast`, written as Mermaid and read back (its ids kept), is `text_ast`."""
    try:
        again = reconcile_parse(parse_mermaid_text(export_ast(ast)), ast)
    except (MermaidError, InvalidParams):
        return False
    return again == text_ast
