"""SessionActor (``session``): the session directory.

Owns which diagrams and walkthroughs exist (id, name, kind), the active ids and the
shared selection (persisted through ``index``). It routes lifecycle and does not proxy
reads: clients call ``diagram:<id>`` / ``walkthrough:<id>`` directly.

- **Start**: the spawn-time snapshot carries the loaded diagrams and walkthroughs, and
  the listed ones not parsed yet (`startup_*`; those load on use through the
  `DiagramLoads` the actor was given); `init` spawns their actors under the ``diagrams`` / ``walkthroughs``
  supervisors and commits the directory without them. A listed diagram's actor starts on
  its first use (`Supervisor.spawn_on_use`: a folder of 200 diagrams starts no actor
  before its first reply, issue 18); until then the directory answers for it from the
  listing (`DirectoryEntry.listed_rev`). A restarted `init` reconciles with
  the registry: an actor without an entry is adopted, an entry without an actor (a crash
  in the middle of a delete) is finished as a delete.
- **Create** (`CreateDiagramFromMermaid`, `CreateWalkthrough`): validate, allocate the id
  (model.md §7.4), spawn the actor — whose `init` hands the new diagram to the persister
  (flushed in durable mode) and to ``xref`` — commit, store the index, publish. In durable
  mode the new item and the meta must be confirmed on disk first; otherwise the create is
  undone and the caller gets `PersistFailed` (retryable, `applied: false`).
- **Delete**: stop the actor, cast `DiagramRemoved` to ``xref``, tell the persister to
  delete the files (pending deletes are in the snapshot until the persister took them;
  durable mode: a delete not on disk is undone), then purge ``attention`` (so a refused
  delete keeps its spotlights), re-target the active id, prune the selection, publish.
- **Selection**: `ReadSelection` / `UpdateSelection` check existence with ``xref``
  (which reflects every acknowledged change); missing refs are ignored.
- **Read context**: `GetReadContext` joins the active diagram with ``attention``'s UI state.

Every change is committed before the reply; the index (active ids, selection) is handed to
``index`` with a bounded call, retried with the next message if it failed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import msgspec
import trio

from nereid.actors.diagram import (
    DiagramActor,
    DiagramActorState,
    DiagramLoads,
    diagram_actor_name,
    parse_mermaid_text,
)
from nereid.actors.persist_link import (
    PersistConfig,
    PersistLink,
    StoreSessionIndex,
    not_applied,
    store_timeout,
    unconfirmed,
)
from nereid.actors.persister import META_KEY
from nereid.actors.persister import DeleteDiagram as PersisterDeleteDiagram
from nereid.actors.persister import DeleteWalkthrough as PersisterDeleteWalkthrough
from nereid.actors.protocol import (
    ActiveChanged,
    ActiveIds,
    AdoptDiagram,
    AdoptWalkthrough,
    CheckRefs,
    CreateDiagramFromMermaid,
    CreateDiagramReply,
    CreateWalkthrough,
    CreateWalkthroughReply,
    DeleteDiagram,
    DeleteDiagramReply,
    DeleteWalkthrough,
    DeleteWalkthroughReply,
    DiagramCreated,
    DiagramDeleted,
    DiagramRemoved,
    DiagramSummary,
    GetActive,
    GetAttention,
    GetDiagram,
    GetDiagramSummary,
    GetReadContext,
    GetWalkthrough,
    GetWalkthroughSummary,
    HandOverUnsent,
    ListDiagrams,
    ListDiagramsReply,
    ListWalkthroughs,
    ListWalkthroughsReply,
    OpenDiagram,
    OpenDiagramReply,
    OpenWalkthrough,
    OpenWalkthroughReply,
    PurgeDiagramRefs,
    ReadContext,
    ReadSelection,
    ResendToPersister,
    SelectionChanged,
    SelectionReply,
    SelectionUpdateReply,
    SessionRequest,
    UpdateSelection,
    WalkthroughCreated,
    WalkthroughDeleted,
    WalkthroughSummary,
)
from nereid.actors.refusals import check_id_param
from nereid.actors.walkthrough import (
    WalkthroughActor,
    WalkthroughActorState,
    walkthrough_actor_name,
    walkthrough_summary,
)
from nereid.errors import InvalidParams, NereidError, PersistFailed, ResourceNotFound
from nereid.model import Diagram, DiagramKind, ObjectRef, Walkthrough, ast_kind
from nereid.model.file_names import StorePathError, check_storable_id
from nereid.runtime import Actor, PendingReply, Supervisor, on, on_cast, on_read

__all__ = ["DirectoryEntry", "SessionActor", "SessionState", "allocate_id"]

_log = logging.getLogger(__name__)


def allocate_id(base: str, taken: Iterable[str]) -> str:
    """`base` if free, else the first free `base-2`, `base-3`, … (never `-1`; §7.4)."""
    used = set(taken)
    if base not in used:
        return base
    n = 2
    while f"{base}-{n}" in used:
        n += 1
    return f"{base}-{n}"


class DirectoryEntry(msgspec.Struct, frozen=True, kw_only=True):
    """What the directory knows of a diagram without asking its actor."""

    name: str
    kind: DiagramKind
    #: A listed diagram whose actor starts on use: the rev it was listed at, its summary
    #: while the actor has not started (from then on the actor answers).
    listed_rev: int | None = None


class SessionState(msgspec.Struct, frozen=True, kw_only=True):
    """The committed snapshot.

    `startup_*`: loaded content whose actors `init` still has to spawn (spawn time only).
    `pending_*_deletes`: deletes the persister has not taken yet. `index_stored`: whether
    ``index`` has the current active ids and selection.
    """

    diagrams: dict[str, DirectoryEntry] = msgspec.field(default_factory=dict)
    walkthroughs: frozenset[str] = frozenset()
    active_diagram_id: str | None = None
    active_walkthrough_id: str | None = None
    selection: tuple[ObjectRef, ...] = ()
    startup_diagrams: tuple[Diagram, ...] = ()
    #: Listed diagrams whose file did not parse at load (empty, with their problem), or
    #: is not parsed yet (`DiagramActorState.unloaded` without a problem).
    startup_unloaded: tuple[DiagramActorState, ...] = ()
    startup_walkthroughs: tuple[Walkthrough, ...] = ()
    pending_diagram_deletes: frozenset[str] = frozenset()
    pending_walkthrough_deletes: frozenset[str] = frozenset()
    index_stored: bool = True


def _sorted_refs(refs: Iterable[ObjectRef]) -> tuple[ObjectRef, ...]:
    return tuple(sorted(set(refs), key=ObjectRef.sort_key))


class SessionActor(Actor[SessionState, SessionRequest]):
    """See the module docstring."""

    def __init__(
        self,
        config: PersistConfig,
        *,
        diagrams: Supervisor,
        walkthroughs: Supervisor,
        xref: str = "xref",
        attention: str = "attention",
        index: str = "index",
        call_timeout: float = 5.0,
        loads: DiagramLoads | None = None,
    ) -> None:
        self._config = config
        self._loads = loads
        self._link = PersistLink(self, config)
        self._diagram_sup = diagrams
        self._walkthrough_sup = walkthroughs
        self._xref = xref
        self._attention = attention
        self._index = index
        self._call_timeout = call_timeout

    # -- lifecycle -------------------------------------------------------------------------

    async def init(self, snapshot: SessionState) -> None:
        for diagram in snapshot.startup_diagrams:
            if diagram_actor_name(diagram.diagram_id) not in self.runtime.registry:
                await self._spawn_diagram(DiagramActorState.of(diagram, persisted=True))
        on_use: dict[str, int] = {}
        for unloaded in snapshot.startup_unloaded:
            diagram_id = unloaded.state.diagram_id
            name = diagram_actor_name(diagram_id)
            if unloaded.pending:  # not parsed yet: its actor starts on use
                if name not in self.runtime.registry:
                    self._diagram_sup.spawn_on_use(name, self._diagram_factory, initial=unloaded)
                on_use[diagram_id] = unloaded.state.rev
            elif name not in self.runtime.registry:
                await self._spawn_diagram(unloaded)
        if on_use:
            self.commit(
                msgspec.structs.replace(
                    self.state,
                    diagrams={
                        k: msgspec.structs.replace(e, listed_rev=on_use[k]) if k in on_use else e
                        for k, e in self.state.diagrams.items()
                    },
                )
            )
        for walkthrough in snapshot.startup_walkthroughs:
            if walkthrough_actor_name(walkthrough.walkthrough_id) not in self.runtime.registry:
                await self._spawn_walkthrough(WalkthroughActorState.of(walkthrough, persisted=True))
        await self._reconcile()
        self.commit(
            msgspec.structs.replace(
                self.state, startup_diagrams=(), startup_unloaded=(), startup_walkthroughs=()
            )
        )
        for diagram_id in sorted(self.state.pending_diagram_deletes):
            await self._persist_diagram_delete(diagram_id)
        for walkthrough_id in sorted(self.state.pending_walkthrough_deletes):
            await self._persist_walkthrough_delete(walkthrough_id)
        if not self.state.index_stored:
            await self._store_index()

    async def _reconcile(self) -> None:
        """Make the directory agree with the live actors (after a crash mid-change)."""
        registry = self.runtime.registry
        s = self.state
        diagrams = dict(s.diagrams)
        for diagram_id in list(diagrams):
            if diagram_actor_name(diagram_id) not in registry:
                del diagrams[diagram_id]
                s = msgspec.structs.replace(
                    s, pending_diagram_deletes=s.pending_diagram_deletes | {diagram_id}
                )
        for name in registry.names("diagram:"):
            diagram_id = name.removeprefix("diagram:")
            if diagram_id not in diagrams:
                summary = await registry.lookup(name).call(
                    GetDiagramSummary(), timeout=self._call_timeout
                )
                diagrams[diagram_id] = DirectoryEntry(name=summary.name, kind=summary.kind)
        walkthroughs = {w for w in s.walkthroughs if walkthrough_actor_name(w) in registry} | {
            name.removeprefix("walkthrough:") for name in registry.names("walkthrough:")
        }
        gone = s.walkthroughs - walkthroughs
        self.commit(
            msgspec.structs.replace(
                s,
                diagrams=diagrams,
                walkthroughs=frozenset(walkthroughs),
                pending_walkthrough_deletes=s.pending_walkthrough_deletes | gone,
            )
        )

    def reads_now(self) -> bool:
        return self.state.index_stored  # else any message first retries the store

    async def handle(self, message: SessionRequest) -> object:
        if not self.state.index_stored:  # the last store failed: retried with each message
            await self._store_index()
        return await super().handle(message)

    @on(ListDiagrams)
    async def _list_diagrams(self, message: ListDiagrams) -> ListDiagramsReply:
        return ListDiagramsReply(
            diagrams=await self._diagram_summaries(),
            active_diagram_id=self.state.active_diagram_id,
        )

    @on(ListWalkthroughs)
    async def _list_walkthroughs(self, message: ListWalkthroughs) -> ListWalkthroughsReply:
        return ListWalkthroughsReply(
            walkthroughs=await self._walkthrough_summaries(),
            active_walkthrough_id=self.state.active_walkthrough_id,
        )

    @on_read(GetActive)
    def _get_active(self, message: GetActive) -> ActiveIds:
        return self._active()

    @on(OpenDiagram)
    async def _open_diagram(self, message: OpenDiagram) -> OpenDiagramReply:
        self._require_diagram(message.diagram_id)
        await self._set_active(diagram_id=message.diagram_id)
        return OpenDiagramReply(active_diagram_id=message.diagram_id)

    @on(OpenWalkthrough)
    async def _open_walkthrough(self, message: OpenWalkthrough) -> OpenWalkthroughReply:
        self._require_walkthrough(message.walkthrough_id)
        await self._set_active(walkthrough_id=message.walkthrough_id)
        return OpenWalkthroughReply(active_walkthrough_id=message.walkthrough_id)

    @on(ReadSelection)
    async def _read_selection(self, message: ReadSelection) -> SelectionReply:
        return SelectionReply(object_refs=await self._existing(self.state.selection))

    @on_cast(ResendToPersister)
    async def _resend(self, message: ResendToPersister) -> None:
        await self._link.resend()
        self._note_deletes_persisted()

    @on(HandOverUnsent)
    async def _hand_over(self, message: HandOverUnsent) -> bool:
        done = await self._link.hand_over()
        self._note_deletes_persisted()
        return done

    # -- diagrams --------------------------------------------------------------------------

    def _check_new_id(self, param: str, value: str) -> str:
        check_id_param(param, value)
        if self._link.enabled:
            try:
                check_storable_id(value)
            except StorePathError as err:
                raise InvalidParams(f"invalid {param}: {err}", data={param: value}) from None
        return value

    def _require_diagram(self, diagram_id: str) -> None:
        check_id_param("diagram_id", diagram_id)
        if diagram_id not in self.state.diagrams:
            raise ResourceNotFound("diagram not found", data={"diagram_id": diagram_id})

    def _require_walkthrough(self, walkthrough_id: str) -> None:
        check_id_param("walkthrough_id", walkthrough_id)
        if walkthrough_id not in self.state.walkthroughs:
            raise ResourceNotFound("walkthrough not found", data={"walkthrough_id": walkthrough_id})

    @on(CreateDiagramFromMermaid)
    async def _create_diagram(self, message: CreateDiagramFromMermaid) -> CreateDiagramReply:
        ast = parse_mermaid_text(message.mermaid)
        kind = ast_kind(ast)
        if message.diagram_id is not None:
            diagram_id = self._check_new_id("diagram_id", message.diagram_id)
            if diagram_id in self.state.diagrams:
                await self._refuse_existing(diagram_id)
        else:
            base = {"sequence": "seq", "state": "state"}.get(kind, "flow")
            diagram_id = allocate_id(base, self.state.diagrams)
        name = message.name if message.name is not None else diagram_id
        diagram = Diagram(diagram_id=diagram_id, name=name, kind=kind, ast=ast, rev=0)
        await self._spawn_diagram(DiagramActorState.of(diagram, persisted=False))
        before = self._active()
        undo = self.state
        self.commit(
            msgspec.structs.replace(
                self.state,
                diagrams={**self.state.diagrams, diagram_id: DirectoryEntry(name=name, kind=kind)},
                active_diagram_id=diagram_id if message.make_active else before.active_diagram_id,
                index_stored=False,
            )
        )
        await self._store_index()
        await self._confirm_created(diagram_actor_name(diagram_id), undo)
        summary = DiagramSummary(diagram_id=diagram_id, name=name, kind=kind, rev=0)
        self.runtime.bus.publish(DiagramCreated(diagram=diagram))
        self._publish_active_if_changed(before)
        return CreateDiagramReply(diagram=summary, active_diagram_id=self.state.active_diagram_id)

    async def _refuse_existing(self, diagram_id: str) -> None:
        """`diagram_id already exists`; for a diagram whose file does not parse, data also
        says so (the person's file is never replaced by a create: delete it first)."""
        data: dict[str, Any] = {"diagram_id": diagram_id}
        address = self.runtime.registry.get(diagram_actor_name(diagram_id))
        if address is not None:
            summary = await address.call(GetDiagramSummary(), timeout=self._call_timeout)
            if summary.file_problem is not None:
                data["file_problem"] = msgspec.to_builtins(summary.file_problem)
                data["hint"] = (
                    "its file does not parse and is kept as it is; fix it, or call "
                    "diagram.delete (which removes the file) before creating it again"
                )
        raise InvalidParams("diagram_id already exists", data=data)

    @on(AdoptDiagram)
    async def _adopt_diagram(self, message: AdoptDiagram) -> DiagramSummary:
        """A diagram file that appeared in the folder joins the session (the watcher)."""
        diagram = message.diagram
        diagram_id = self._check_new_id("diagram_id", diagram.diagram_id)
        if diagram_id in self.state.diagrams:
            await self._refuse_existing(diagram_id)
        if message.problem is None:
            initial = DiagramActorState.of(diagram, persisted=False)
        else:
            initial = DiagramActorState.unloaded(
                diagram_id,
                name=diagram.name,
                kind=diagram.kind,
                rev=diagram.rev,
                problem=message.problem,
            )
        await self._spawn_diagram(initial)
        entry = DirectoryEntry(name=diagram.name, kind=diagram.kind)
        self.commit(
            msgspec.structs.replace(
                self.state, diagrams={**self.state.diagrams, diagram_id: entry}, index_stored=False
            )
        )
        await self._store_index()
        summary = DiagramSummary(
            diagram_id=diagram_id,
            name=diagram.name,
            kind=diagram.kind,
            rev=diagram.rev,
            file_problem=message.problem,
        )
        self.runtime.bus.publish(
            DiagramCreated(diagram=initial.diagram(), file_problem=message.problem)
        )
        return summary

    @on(DeleteDiagram)
    async def _delete_diagram(self, message: DeleteDiagram) -> DeleteDiagramReply:
        diagram_id = message.diagram_id
        self._require_diagram(diagram_id)
        name = diagram_actor_name(diagram_id)
        keep = await self._last_diagram(name)
        if name in self._diagram_sup.children:
            await self._diagram_sup.stop(name)
        before = self._active()
        undo = self.state
        remaining = {k: v for k, v in self.state.diagrams.items() if k != diagram_id}
        active = before.active_diagram_id
        if active == diagram_id:
            active = min(remaining) if remaining else None
        old_selection = self.state.selection
        self.commit(
            msgspec.structs.replace(
                self.state,
                diagrams=remaining,
                active_diagram_id=active,
                selection=tuple(r for r in old_selection if r.diagram_id != diagram_id),
                pending_diagram_deletes=self.state.pending_diagram_deletes | {diagram_id},
                index_stored=False,
            )
        )
        await self._cast_xref(DiagramRemoved(diagram_id=diagram_id))
        try:
            await self._persist_diagram_delete(diagram_id, confirm=keep is not None)
        except PersistFailed as err:
            assert keep is not None
            self.commit(msgspec.structs.replace(undo, index_stored=False))
            await self._spawn_diagram(DiagramActorState.of(keep, persisted=False))
            await self._store_index()
            raise not_applied(err) from None
        # Only once the delete stands: a refused one keeps every spotlight on the diagram.
        await self._purge_attention(diagram_id)
        pruned = await self._existing(self.state.selection)
        if pruned != self.state.selection:
            self.commit(msgspec.structs.replace(self.state, selection=pruned, index_stored=False))
        await self._store_index()
        self.runtime.bus.publish(DiagramDeleted(diagram_id=diagram_id))
        self._publish_active_if_changed(before)
        if self.state.selection != old_selection:
            self.runtime.bus.publish(SelectionChanged(object_refs=self.state.selection))
        return DeleteDiagramReply(deleted_diagram_id=diagram_id, active_diagram_id=active)

    async def _confirm_created(self, item: str, undo: SessionState) -> None:
        """Durable mode: the new item and the meta listing it must be on disk, else the
        create is undone (actor stopped, files dropped) and `PersistFailed` raised."""
        if not (self._link.enabled and self._config.durable):
            return
        try:
            await self._link.flush(items=(item, META_KEY), confirm=True)
        except PersistFailed as err:
            supervisor = self._diagram_sup if item.startswith("diagram:") else self._walkthrough_sup
            if item in supervisor.children:
                await supervisor.stop(item)
            kind, item_id = item.split(":", 1)
            self.commit(undo)
            if kind == "diagram":
                await self._cast_xref(DiagramRemoved(diagram_id=item_id))
                await self._persist_diagram_delete(item_id, wait=False)
            else:
                await self._persist_walkthrough_delete(item_id, wait=False)
            await self._store_index()
            raise PersistFailed(
                f"{err.message}; the {kind} was not created (--durable-writes): send it again "
                "once the session folder is writable",
                data={**(err.data or {}), "applied": False},
            ) from None

    def _diagram_factory(self) -> DiagramActor:
        return DiagramActor(self._config, xref=self._xref, loads=self._loads)

    async def _spawn_diagram(self, initial: DiagramActorState) -> None:
        await self._diagram_sup.spawn(
            diagram_actor_name(initial.state.diagram_id), self._diagram_factory, initial=initial
        )

    async def _diagram_summaries(self) -> tuple[DiagramSummary, ...]:
        """Every diagram's summary, by id: from its actor (all asked at once), or from the
        listing while its actor has not started (`DirectoryEntry.listed_rev`)."""
        registry = self.runtime.registry
        found: dict[str, DiagramSummary] = {}
        asked: list[tuple[str, PendingReply[DiagramSummary]]] = []
        for diagram_id, entry in self.state.diagrams.items():
            name = diagram_actor_name(diagram_id)
            address = registry.running(name)
            if address is not None:
                request = address.send_request(GetDiagramSummary(), timeout=self._call_timeout)
                asked.append((diagram_id, request))
            elif entry.listed_rev is not None and name in registry:
                found[diagram_id] = DiagramSummary(
                    diagram_id=diagram_id, name=entry.name, kind=entry.kind, rev=entry.listed_rev
                )
        for diagram_id, request in asked:
            found[diagram_id] = await request.reply()
        return tuple(found[k] for k in sorted(found))

    # -- walkthroughs ----------------------------------------------------------------------

    @on(CreateWalkthrough)
    async def _create_walkthrough(self, message: CreateWalkthrough) -> CreateWalkthroughReply:
        if message.walkthrough_id is not None:
            walkthrough_id = self._check_new_id("walkthrough_id", message.walkthrough_id)
            if walkthrough_id in self.state.walkthroughs:
                raise InvalidParams(
                    "walkthrough_id already exists", data={"walkthrough_id": walkthrough_id}
                )
        else:
            walkthrough_id = allocate_id("wt", self.state.walkthroughs)
        walkthrough = Walkthrough(walkthrough_id=walkthrough_id, title=message.title)
        await self._spawn_walkthrough(WalkthroughActorState.of(walkthrough, persisted=False))
        before = self._active()
        active = walkthrough_id if message.make_active else before.active_walkthrough_id
        undo = self.state
        self.commit(
            msgspec.structs.replace(
                self.state,
                walkthroughs=self.state.walkthroughs | {walkthrough_id},
                active_walkthrough_id=active,
                index_stored=False,
            )
        )
        await self._store_index()
        await self._confirm_created(walkthrough_actor_name(walkthrough_id), undo)
        summary = walkthrough_summary(walkthrough)
        self.runtime.bus.publish(WalkthroughCreated(walkthrough=walkthrough))
        self._publish_active_if_changed(before)
        return CreateWalkthroughReply(walkthrough=summary, active_walkthrough_id=active)

    @on(AdoptWalkthrough)
    async def _adopt_walkthrough(self, message: AdoptWalkthrough) -> WalkthroughSummary:
        walkthrough = message.walkthrough
        """A walkthrough file that appeared in the folder joins the session (the watcher)."""
        walkthrough_id = self._check_new_id("walkthrough_id", walkthrough.walkthrough_id)
        if walkthrough_id in self.state.walkthroughs:
            raise InvalidParams(
                "walkthrough_id already exists", data={"walkthrough_id": walkthrough_id}
            )
        await self._spawn_walkthrough(WalkthroughActorState.of(walkthrough, persisted=False))
        self.commit(
            msgspec.structs.replace(
                self.state,
                walkthroughs=self.state.walkthroughs | {walkthrough_id},
                index_stored=False,
            )
        )
        await self._store_index()
        summary = walkthrough_summary(walkthrough)
        self.runtime.bus.publish(WalkthroughCreated(walkthrough=walkthrough))
        return summary

    @on(DeleteWalkthrough)
    async def _delete_walkthrough(self, message: DeleteWalkthrough) -> DeleteWalkthroughReply:
        walkthrough_id = message.walkthrough_id
        self._require_walkthrough(walkthrough_id)
        name = walkthrough_actor_name(walkthrough_id)
        keep = await self._last_walkthrough(walkthrough_id)
        if name in self._walkthrough_sup.children:
            await self._walkthrough_sup.stop(name)
        before = self._active()
        undo = self.state
        remaining = self.state.walkthroughs - {walkthrough_id}
        active = before.active_walkthrough_id
        if active == walkthrough_id:
            active = min(remaining) if remaining else None
        self.commit(
            msgspec.structs.replace(
                self.state,
                walkthroughs=remaining,
                active_walkthrough_id=active,
                pending_walkthrough_deletes=self.state.pending_walkthrough_deletes
                | {walkthrough_id},
                index_stored=False,
            )
        )
        try:
            await self._persist_walkthrough_delete(walkthrough_id, confirm=keep is not None)
        except PersistFailed as err:
            assert keep is not None
            self.commit(msgspec.structs.replace(undo, index_stored=False))
            await self._spawn_walkthrough(WalkthroughActorState.of(keep, persisted=False))
            await self._store_index()
            raise not_applied(err) from None
        await self._store_index()
        self.runtime.bus.publish(WalkthroughDeleted(walkthrough_id=walkthrough_id))
        self._publish_active_if_changed(before)
        return DeleteWalkthroughReply(
            deleted_walkthrough_id=walkthrough_id, active_walkthrough_id=active
        )

    async def _spawn_walkthrough(self, initial: WalkthroughActorState) -> None:
        config = self._config
        await self._walkthrough_sup.spawn(
            walkthrough_actor_name(initial.state.walkthrough.walkthrough_id),
            lambda: WalkthroughActor(config),
            initial=initial,
        )

    async def _walkthrough_summaries(self) -> tuple[WalkthroughSummary, ...]:
        found: dict[str, WalkthroughSummary] = {}
        registry = self.runtime.registry

        async def ask(walkthrough_id: str) -> None:
            address = registry.get(walkthrough_actor_name(walkthrough_id))
            if address is not None:
                found[walkthrough_id] = await address.call(
                    GetWalkthroughSummary(), timeout=self._call_timeout
                )

        async with trio.open_nursery() as nursery:
            for walkthrough_id in self.state.walkthroughs:
                nursery.start_soon(ask, walkthrough_id)
        return tuple(found[k] for k in sorted(found))

    # -- active ids, selection, context ----------------------------------------------------

    def _active(self) -> ActiveIds:
        return ActiveIds(
            active_diagram_id=self.state.active_diagram_id,
            active_walkthrough_id=self.state.active_walkthrough_id,
        )

    async def _set_active(
        self, *, diagram_id: str | None = None, walkthrough_id: str | None = None
    ) -> None:
        before = self._active()
        changes: dict[str, Any] = {}
        if diagram_id is not None:
            changes["active_diagram_id"] = diagram_id
        if walkthrough_id is not None:
            changes["active_walkthrough_id"] = walkthrough_id
        undo = self.state
        self.commit(msgspec.structs.replace(self.state, index_stored=False, **changes))
        await self._store_index_or_undo(undo)
        self._publish_active_if_changed(before)

    def _publish_active_if_changed(self, before: ActiveIds) -> None:
        after = self._active()
        if after != before:
            self.runtime.bus.publish(
                ActiveChanged(
                    active_diagram_id=after.active_diagram_id,
                    active_walkthrough_id=after.active_walkthrough_id,
                )
            )

    async def _existing(self, refs: tuple[ObjectRef, ...]) -> tuple[ObjectRef, ...]:
        """The refs whose objects exist, in ref order (asks ``xref``)."""
        flags = await self._check(refs)
        return _sorted_refs(ref for ref, ok in zip(refs, flags, strict=True) if ok)

    async def _check(self, refs: tuple[ObjectRef, ...]) -> tuple[bool, ...]:
        if not refs:
            return ()
        xref = self.runtime.registry.lookup(self._xref)
        reply = await xref.call(CheckRefs(refs=refs), timeout=self._call_timeout)
        return reply.exists

    @on(UpdateSelection)
    async def _update_selection(self, message: UpdateSelection) -> SelectionUpdateReply:
        refs, mode = message.object_refs, message.mode
        flags = await self._check(refs)
        applied = _sorted_refs(r for r, ok in zip(refs, flags, strict=True) if ok)
        ignored = tuple(
            sorted(set(r for r, ok in zip(refs, flags, strict=True) if not ok), key=str)
        )
        base = set(await self._existing(self.state.selection))
        match mode:
            case "replace":
                selection = set(applied)
            case "add":
                selection = base | set(applied)
            case "remove":
                selection = base - set(applied)
            case _:
                raise InvalidParams(
                    "invalid mode (expected replace|add|remove)", data={"mode": mode}
                )
        new = _sorted_refs(selection)
        if new != self.state.selection:
            undo = self.state
            self.commit(msgspec.structs.replace(self.state, selection=new, index_stored=False))
            await self._store_index_or_undo(undo)
            self.runtime.bus.publish(SelectionChanged(object_refs=new))
        return SelectionUpdateReply(applied=applied, ignored=ignored)

    @on(GetReadContext)
    async def _read_context(self, message: GetReadContext) -> ReadContext:
        active = self.state.active_diagram_id
        attention = self.runtime.registry.get(self._attention)
        if attention is None:
            return ReadContext.of(active, None)
        ui = (await attention.call(GetAttention(), timeout=self._call_timeout)).ui
        return ReadContext.of(active, ui)

    # -- talking to the others (bounded) ---------------------------------------------------

    @property
    def _durable(self) -> bool:
        return self._link.enabled and self._config.durable

    async def _store_index(self, *, confirm: bool = False) -> None:
        """Hand the active ids and selection to ``index`` (bounded; retried with the next
        message). `confirm`, durable mode: raise `PersistFailed` unless on disk."""
        address = self.runtime.registry.get(self._index)
        if address is None:
            return
        s = self.state
        confirm = confirm and self._durable
        try:
            await address.call(
                StoreSessionIndex(
                    active_diagram_id=s.active_diagram_id,
                    active_walkthrough_id=s.active_walkthrough_id,
                    selected_object_refs=s.selection,
                    confirm=confirm,
                ),
                timeout=store_timeout(self._config) if confirm else self._call_timeout,
            )
        except NereidError as err:
            if confirm:
                raise unconfirmed(err) from None
            _log.warning("session: index did not take the active ids / selection: %s", err)
            return
        self.commit(msgspec.structs.replace(self.state, index_stored=True))

    async def _store_index_or_undo(self, undo: SessionState) -> None:
        """Store the index; durable mode: unless it is on disk, go back to `undo` (memory
        equals disk again) and raise `PersistFailed` (not applied)."""
        try:
            await self._store_index(confirm=True)
        except PersistFailed as err:
            self.commit(msgspec.structs.replace(undo, index_stored=False))
            await self._store_index()
            raise not_applied(err) from None

    async def _last_diagram(self, name: str) -> Diagram | None:
        """Durable mode: the diagram as it is before a delete, to bring back if the delete
        does not reach the disk (None otherwise)."""
        if not self._durable:
            return None
        address = self.runtime.registry.get(name)
        try:
            return None if address is None else await address.call(GetDiagram())
        except NereidError as err:
            raise PersistFailed(f"not deleted: {name} did not answer ({err})") from None

    async def _last_walkthrough(self, walkthrough_id: str) -> Walkthrough | None:
        """`_last_diagram` for a walkthrough."""
        if not self._durable:
            return None
        name = walkthrough_actor_name(walkthrough_id)
        address = self.runtime.registry.get(name)
        try:
            request = GetWalkthrough(walkthrough_id=walkthrough_id)
            return None if address is None else await address.call(request)
        except NereidError as err:
            raise PersistFailed(f"not deleted: {name} did not answer ({err})") from None

    async def _persist_diagram_delete(
        self, diagram_id: str, *, wait: bool = True, confirm: bool = False
    ) -> None:
        """Tell the persister to delete; `confirm` (durable mode): raise `PersistFailed`
        unless the meta without it is on disk (the files are removed only after that)."""
        key = f"delete-diagram:{diagram_id}"
        try:
            await self._link.send(
                key,
                PersisterDeleteDiagram(diagram_id=diagram_id),
                item=META_KEY,
                wait=wait,
                confirm=confirm,
            )
        except PersistFailed:
            self._link.forget(key)  # rolled back: never send it later
            raise
        self._note_deletes_persisted(diagrams=(diagram_id,))

    async def _persist_walkthrough_delete(
        self, walkthrough_id: str, *, wait: bool = True, confirm: bool = False
    ) -> None:
        """`_persist_diagram_delete` for a walkthrough."""
        key = f"delete-walkthrough:{walkthrough_id}"
        try:
            await self._link.send(
                key,
                PersisterDeleteWalkthrough(walkthrough_id=walkthrough_id),
                item=META_KEY,
                wait=wait,
                confirm=confirm,
            )
        except PersistFailed:
            self._link.forget(key)
            raise
        self._note_deletes_persisted(walkthroughs=(walkthrough_id,))

    def _note_deletes_persisted(
        self, *, diagrams: Iterable[str] | None = None, walkthroughs: Iterable[str] | None = None
    ) -> None:
        """Drop from the pending deletes those just offered (None: all) that the persister
        took (all of them when memory-only)."""
        unsent = set(self._link.unsent)
        s = self.state
        offered_d = s.pending_diagram_deletes if diagrams is None else set(diagrams)
        offered_w = s.pending_walkthrough_deletes if walkthroughs is None else set(walkthroughs)
        taken_d = {d for d in offered_d if f"delete-diagram:{d}" not in unsent}
        taken_w = {w for w in offered_w if f"delete-walkthrough:{w}" not in unsent}
        if taken_d & s.pending_diagram_deletes or taken_w & s.pending_walkthrough_deletes:
            self.commit(
                msgspec.structs.replace(
                    s,
                    pending_diagram_deletes=s.pending_diagram_deletes - taken_d,
                    pending_walkthrough_deletes=s.pending_walkthrough_deletes - taken_w,
                )
            )

    async def _cast_xref(self, message: DiagramRemoved) -> None:
        address = self.runtime.registry.get(self._xref)
        if address is None:
            return
        try:
            await address.cast(message, timeout=self._call_timeout)
        except NereidError as err:
            _log.warning("session: xref did not take %s: %s", type(message).__name__, err)

    async def _purge_attention(self, diagram_id: str) -> None:
        address = self.runtime.registry.get(self._attention)
        if address is None:
            return
        try:
            await address.call(PurgeDiagramRefs(diagram_id=diagram_id), timeout=self._call_timeout)
        except NereidError as err:
            _log.warning("session: attention did not purge %s: %s", diagram_id, err)
