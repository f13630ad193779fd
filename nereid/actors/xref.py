"""XrefActor (``xref``): owns the xrefs, derives their status, and knows which objects exist.

- **Xrefs** are committed in its snapshot and persisted through ``index`` (the session meta).
  Statuses are never stored: `xref.list` derives them from existence at the time of the
  call, so they follow deletes, re-creates and ops at once (spec: "recomputed on delete").
- **Existence index**: the latest `Diagram` snapshot of every live diagram. Diagram actors
  cast `DiagramObserved` when they start and *before acknowledging* each new rev, and
  ``session`` casts `DiagramRemoved` before acknowledging a delete; mailboxes are FIFO, so
  any `CheckRefs` sent after an acknowledged change sees it (read-your-writes). That is why
  this actor is fed by casts rather than by a bus subscription, which could lag behind a
  client's next call. On (re)start it rebuilds the index by asking every ``diagram:*``
  actor for its snapshot; a cast that arrives later with an older rev is ignored.
  A diagram listed before its file was parsed (a lazy start-up) has not announced itself
  yet: a request that needs it first asks its actor (`_fill`), which loads it then.

Requests: `ListXrefs`, `XrefNeighbors`, `AddXref`, `RemoveXref`, `CheckRefs` (for the
selection and spotlight checks of ``session`` and ``attention``).
"""

from __future__ import annotations

import logging

import msgspec
import trio

from nereid.actors.diagram import diagram_actor_name
from nereid.actors.persist_link import StoreXrefs, not_applied, unconfirmed
from nereid.actors.protocol import (
    AddXref,
    AddXrefReply,
    CheckRefs,
    DiagramObserved,
    DiagramRemoved,
    GetDiagram,
    ListXrefs,
    RefsExistence,
    RemoveXref,
    RemoveXrefReply,
    ResendToPersister,
    XrefNeighbors,
    XrefRequest,
    XrefsChanged,
)
from nereid.actors.refusals import check_id_param, parse_ref_param
from nereid.errors import InvalidParams, NereidError, PersistFailed, ResourceNotFound
from nereid.model import Diagram, ObjectRef, XRef, ref_exists, xref_status
from nereid.model.refs import ObjectRefError, parse_ref
from nereid.query.results import NeighborsResult, XRefListResult
from nereid.query.scope import QueryScope
from nereid.query.xrefs import xref_list, xref_neighbors
from nereid.runtime import Actor, on, on_cast, on_note

__all__ = ["XrefActor", "XrefActorState"]

_log = logging.getLogger(__name__)

_REBUILD_TIMEOUT = 5.0
_FILL_TIMEOUT = 60.0
"""Seconds a request waits for a diagram that loads on use (a big parse on a busy machine)."""


class XrefActorState(msgspec.Struct, frozen=True, kw_only=True):
    """The committed snapshot: the xrefs, and whether ``index`` has taken them."""

    xrefs: dict[str, XRef] = msgspec.field(default_factory=dict)
    stored: bool = True


class XrefActor(Actor[XrefActorState, XrefRequest]):
    """See the module docstring."""

    def __init__(
        self,
        *,
        index: str | None = "index",
        call_timeout: float = 5.0,
        durable: bool = False,
        store_timeout: float | None = None,
    ) -> None:
        self._index = index
        self._call_timeout = call_timeout
        self._durable = durable
        self._store_timeout = call_timeout if store_timeout is None else store_timeout
        #: Derived, not committed: rebuilt from the diagram actors by `init`.
        self._diagrams: dict[str, Diagram] = {}

    async def init(self, snapshot: XrefActorState) -> None:
        await self._rebuild()

    def reads_now(self) -> bool:
        return self.state.stored  # else any message first retries the store (`handle`)

    async def handle(self, message: XrefRequest) -> object:
        if not self.state.stored:  # the last store failed: retried with each message
            await self._store()
        return await super().handle(message)

    @on(ListXrefs)
    async def _list(self, message: ListXrefs) -> XRefListResult:
        texts = (message.from_ref, message.to_ref, message.involves_ref)
        await self._fill(self._endpoint_diagrams() | _diagrams_named(texts))
        # The request's fields are the query's keyword parameters: the call is derived.
        return xref_list(self._scope(), **msgspec.structs.asdict(message))

    @on(XrefNeighbors)
    async def _neighbors(self, message: XrefNeighbors) -> NeighborsResult:
        await self._fill(self._endpoint_diagrams() | _diagrams_named((message.object_ref,)))
        return xref_neighbors(self._scope(), **msgspec.structs.asdict(message))

    @on(CheckRefs)
    async def _check(self, message: CheckRefs) -> RefsExistence:
        await self._fill({ref.diagram_id for ref in message.refs})
        return RefsExistence(exists=tuple(self._exists(ref) for ref in message.refs))

    @on_note(DiagramObserved)
    def _observed(self, message: DiagramObserved) -> None:
        diagram = message.diagram
        known = self._diagrams.get(diagram.diagram_id)
        if known is None or diagram.rev >= known.rev:
            self._diagrams[diagram.diagram_id] = diagram

    @on_note(DiagramRemoved)
    def _removed(self, message: DiagramRemoved) -> None:
        self._diagrams.pop(message.diagram_id, None)

    @on_cast(ResendToPersister)
    async def _resend(self, message: ResendToPersister) -> None:
        """`index` does the persisting; `stored` was retried above."""

    # -- xrefs -----------------------------------------------------------------------------

    @on(AddXref)
    async def _add(self, message: AddXref) -> AddXrefReply:
        xref_id = check_id_param("xref_id", message.xref_id)
        from_ref = parse_ref_param("from", message.from_ref)
        to_ref = parse_ref_param("to", message.to_ref)
        if xref_id in self.state.xrefs:
            raise InvalidParams("xref_id already exists", data={"xref_id": xref_id})
        xref = XRef(from_ref=from_ref, to_ref=to_ref, kind=message.kind, label=message.label)
        await self._fill({from_ref.diagram_id, to_ref.diagram_id})
        await self._change({**self.state.xrefs, xref_id: xref})
        self.runtime.bus.publish(XrefsChanged(added=(xref_id,), xrefs=self.state.xrefs))
        status = xref_status(not self._exists(from_ref), not self._exists(to_ref))
        return AddXrefReply(xref_id=xref_id, status=status)

    @on(RemoveXref)
    async def _remove(self, message: RemoveXref) -> RemoveXrefReply:
        xref_id = check_id_param("xref_id", message.xref_id)
        if xref_id not in self.state.xrefs:
            raise ResourceNotFound("xref not found", data={"xref_id": xref_id})
        await self._change({k: v for k, v in self.state.xrefs.items() if k != xref_id})
        self.runtime.bus.publish(XrefsChanged(removed=(xref_id,), xrefs=self.state.xrefs))
        return RemoveXrefReply(removed=True)

    def _set(self, xrefs: dict[str, XRef]) -> None:
        self.commit(XrefActorState(xrefs=xrefs, stored=False))

    async def _change(self, xrefs: dict[str, XRef]) -> None:
        """Commit `xrefs` and store them. Durable mode: unless ``index`` confirms them on
        disk, go back to the previous xrefs and raise `PersistFailed` (not applied)."""
        previous = self.state.xrefs
        self._set(xrefs)
        try:
            await self._store(confirm=True)
        except PersistFailed as err:
            self._set(previous)
            await self._store()
            raise not_applied(err) from None

    async def _store(self, *, confirm: bool = False) -> None:
        """Hand the xrefs to ``index`` (bounded); on failure retried with the next message.
        `confirm`: a failure raises `PersistFailed` (only in durable mode can it fail)."""
        if self._index is None:
            return
        index = self.runtime.registry.get(self._index)
        if index is None:
            return
        try:
            await index.call(
                StoreXrefs(xrefs=dict(self.state.xrefs), confirm=confirm),
                timeout=self._store_timeout,
            )
        except NereidError as err:
            if confirm and (isinstance(err, PersistFailed) or self._durable):
                raise unconfirmed(err) from None
            _log.warning("xref: index did not take the xrefs: %s", err)
            return
        self.commit(msgspec.structs.replace(self.state, stored=True))

    # -- existence -------------------------------------------------------------------------

    def _scope(self) -> QueryScope:
        return QueryScope(diagrams=self._diagrams, xrefs=self.state.xrefs)

    def _exists(self, ref: ObjectRef) -> bool:
        return ref_exists(self._diagrams, ref)

    async def _rebuild(self) -> None:
        """Ask every live diagram actor for its snapshot (in parallel, bounded)."""
        self._diagrams = await self._snapshots(self.runtime.registry.names("diagram:"))

    async def _fill(self, diagram_ids: set[str]) -> None:
        """Ask the diagrams in `diagram_ids` that run but that this index has not seen
        (listed before they were parsed: asking loads them) for their snapshots."""
        registry = self.runtime.registry
        names = [
            diagram_actor_name(d)
            for d in sorted(diagram_ids)
            if d not in self._diagrams and diagram_actor_name(d) in registry
        ]
        if names:
            found = await self._snapshots(names, timeout=_FILL_TIMEOUT)
            for diagram_id, diagram in found.items():
                known = self._diagrams.get(diagram_id)  # a cast may have come meanwhile
                if known is None or diagram.rev >= known.rev:
                    self._diagrams[diagram_id] = diagram

    async def _snapshots(
        self,
        names: list[str],
        *,
        timeout: float = _REBUILD_TIMEOUT,  # noqa: ASYNC109 - per call
    ) -> dict[str, Diagram]:
        registry = self.runtime.registry
        found: dict[str, Diagram] = {}

        async def fetch(name: str) -> None:
            address = registry.get(name)
            if address is None:
                return
            try:
                diagram = await address.call(GetDiagram(), timeout=timeout)
            except NereidError as err:
                _log.warning("xref: no snapshot from %s: %s", name, err)
                return
            found[diagram.diagram_id] = diagram

        async with trio.open_nursery() as nursery:
            for name in names:
                nursery.start_soon(fetch, name)
        return found

    def _endpoint_diagrams(self) -> set[str]:
        """The diagrams the xrefs start or end in."""
        return {ref.diagram_id for x in self.state.xrefs.values() for ref in (x.from_ref, x.to_ref)}


def _diagrams_named(texts: tuple[str | None, ...]) -> set[str]:
    """The diagrams of the refs among `texts` that parse (the query refuses the others)."""
    found: set[str] = set()
    for text in texts:
        if text is not None:
            try:
                found.add(parse_ref(text).diagram_id)
            except ObjectRefError:
                pass
    return found
