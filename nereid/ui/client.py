"""The TUI's only link to the actors: reads, requests and change events (the seam).

`ActorClient` reads the `SessionState` snapshot, subscribes to the bus events the view model
applies as they are (`SessionUpdate`), and sends the view model's `Effect`s as requests
(`perform`). Nothing else in `nereid/ui` talks to the actors; the view model only reads
the protocol's values.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import trio

from nereid.actors import protocol as p
from nereid.actors.diagram import diagram_actor_name, parse_mermaid_text
from nereid.actors.persister import GetSaveStatus, SaveStatus
from nereid.actors.walkthrough import walkthrough_actor_name
from nereid.errors import Conflict, NereidError
from nereid.mermaid import export_ast as export_any
from nereid.mermaid import reconcile_parse
from nereid.model.diagram import Diagram
from nereid.model.session import Session
from nereid.model.walkthrough import Walkthrough
from nereid.model.xref import XRef
from nereid.ops.merge3 import MergeConflict, merge_asts
from nereid.runtime import EventBus, Registry, Subscription
from nereid.ui import effects as fx
from nereid.ui.conflict_marks import mark_conflicts
from nereid.ui.session_state import EVENTS, EditRejected, SessionState

__all__ = ["CALL_TIMEOUT", "ActorClient", "export_text"]

CALL_TIMEOUT = 5.0


def export_text(diagram: Diagram) -> str:
    """The diagram's canonical Mermaid (what the session's `.mmd` file holds)."""
    return export_ast(diagram.ast)


def export_ast(ast: Any) -> str:
    return export_any(ast)


class ActorClient:
    """Talks to `session`, `diagram:<id>`, `walkthrough:<id>`, `attention` and `xref` by
    name; never blocks longer than `CALL_TIMEOUT` per call. Keeps no state of its own."""

    def __init__(self, registry: Registry, bus: EventBus) -> None:
        self.registry = registry
        self.bus = bus

    async def _call(self, name: str, request: Any) -> Any:
        return await self.registry.lookup(name).call(request, timeout=CALL_TIMEOUT)

    # ---- reads ---------------------------------------------------------------------------

    async def diagram(self, diagram_id: str) -> Diagram:
        result: Diagram = await self._call(diagram_actor_name(diagram_id), p.GetDiagram())
        return result

    async def walkthrough(self, walkthrough_id: str) -> Walkthrough:
        result: Walkthrough = await self._call(
            walkthrough_actor_name(walkthrough_id), p.GetWalkthrough(walkthrough_id=walkthrough_id)
        )
        return result

    async def walkthroughs(self) -> tuple[dict[str, Walkthrough], str | None]:
        listing: p.ListWalkthroughsReply = await self._call("session", p.ListWalkthroughs())
        found: dict[str, Walkthrough] = {}

        async def fetch(walkthrough_id: str) -> None:
            try:
                found[walkthrough_id] = await self.walkthrough(walkthrough_id)
            except NereidError:  # deleted meanwhile: its WalkthroughDeleted follows
                pass

        async with trio.open_nursery() as nursery:
            for summary in listing.walkthroughs:
                nursery.start_soon(fetch, summary.walkthrough_id)
        return dict(sorted(found.items())), listing.active_walkthrough_id

    async def xrefs(self) -> dict[str, XRef]:
        listing: Any = await self._call("xref", p.ListXrefs())
        return {
            item.xref_id: XRef(
                from_ref=item.from_ref,
                to_ref=item.to_ref,
                kind=item.kind,
                label=item.label,
            )
            for item in listing.xrefs
        }

    async def snapshot(self) -> SessionState:
        """Everything the TUI mirrors, read afresh (also the answer to `ResyncNeeded`)."""
        listing: p.ListDiagramsReply = await self._call("session", p.ListDiagrams())
        diagrams: dict[str, Diagram] = {}

        async def fetch(diagram_id: str) -> None:
            diagrams[diagram_id] = await self.diagram(diagram_id)

        async with trio.open_nursery() as nursery:
            for summary in listing.diagrams:
                nursery.start_soon(fetch, summary.diagram_id)
        selection: p.SelectionReply = await self._call("session", p.ReadSelection())
        attention: p.AttentionSnapshot = await self._call("attention", p.GetAttention())
        walkthroughs, active_walkthrough = await self.walkthroughs()
        session = Session(
            session_id="",
            diagrams=diagrams,
            walkthroughs=walkthroughs,
            xrefs=await self.xrefs(),
            active_diagram_id=listing.active_diagram_id,
            active_walkthrough_id=active_walkthrough,
            selected_object_refs=selection.object_refs,
        )
        return SessionState(
            session=session,
            attention=attention,
            save_errors=await self.save_errors(),
            file_problems={
                d.diagram_id: d.file_problem for d in listing.diagrams if d.file_problem is not None
            },
        )

    async def save_errors(self) -> dict[str, str]:
        """Items whose last save failed (empty in memory-only mode)."""
        address = self.registry.get("persister.status")
        if address is None:
            return {}
        status: SaveStatus = await address.call(GetSaveStatus(), timeout=CALL_TIMEOUT)
        return status.errors

    # ---- events --------------------------------------------------------------------------

    @contextmanager
    def subscribe(self) -> Iterator[Subscription]:
        """The events the view model applies (`SessionUpdate`); subscribe before reading
        the `snapshot`, so that nothing is missed in between."""
        with self.bus.subscribe(*EVENTS) as subscription:
            yield subscription

    # ---- requests ------------------------------------------------------------------------

    async def attach(self) -> None:
        await self._call("attention", p.AttachUi())

    async def detach(self) -> None:
        await self._call("attention", p.DetachUi())

    async def perform(self, effect: fx.Effect) -> None:
        """Send one view-model effect (an actor request) to the actor that owns that state."""
        match effect:
            case p.UpdateSelection() | p.OpenDiagram():
                await self._call("session", effect)
            case p.ReportHumanAttention() | p.ReportView() | p.SetFollowAi():
                await self._call("attention", effect)
            case _:
                raise ValueError(f"not an actor request: {effect!r}")

    async def replace_text(self, diagram_id: str, text: str, base: Diagram) -> Diagram:
        """Apply the person's edited text, made from revision `base`.

        When the diagram moved on meanwhile, the person's net change is merged into the
        current revision (`merge_asts`): nothing of the others' work is undone. Conflicts
        apply nothing and come back as `EditRejected` carrying the text to re-open (the
        person's version, the conflicts described in the message) and its new base.
        Parse and other refusals become `EditRejected` with the reason.
        """
        for _ in range(_MERGE_ATTEMPTS):
            current = await self.diagram(diagram_id)
            if current.rev == base.rev:
                candidate = text
            else:
                candidate = self._merged(diagram_id, text, base, current)
            try:
                await self._call(
                    diagram_actor_name(diagram_id),
                    p.ReplaceFromMermaid(mermaid=candidate, base_rev=current.rev),
                )
            except Conflict:
                continue  # it moved again between our read and the replace: merge again
            except NereidError as err:
                raise EditRejected(_refusal_text(err)) from None
            return await self.diagram(diagram_id)
        raise EditRejected(
            f"{diagram_id} keeps changing while your edit is merged; your text is kept: "
            "press e to try again"
        )

    def _merged(self, diagram_id: str, text: str, base: Diagram, current: Diagram) -> str:
        """`text` (made from `base`) merged into `current`, as Mermaid; raises EditRejected."""
        try:
            edited = reconcile_parse(parse_mermaid_text(text, current.kind), base.ast)
        except NereidError as err:
            raise EditRejected(_refusal_text(err)) from None
        result = merge_asts(base.ast, current.ast, edited)
        merged = export_ast(result.ast)
        if result.conflicts:
            theirs = export_ast(merge_asts(base.ast, current.ast, edited, keep="theirs").ast)
            marked, _ = mark_conflicts(merged, theirs)
            raise EditRejected(
                conflict_report(diagram_id, base.rev, current.rev, result.conflicts),
                text=marked,
                base=current,
            )
        return merged


_MERGE_ATTEMPTS = 5


def _refusal_text(err: NereidError) -> str:
    detail = err.message
    if err.data and "line" in err.data and f"line {err.data['line']}" not in detail:
        detail += f" (line {err.data['line']}, column {err.data.get('column', '?')})"
    elif err.data and "column" in err.data:
        detail += f" (column {err.data['column']})"
    return detail


def conflict_report(
    diagram_id: str, base_rev: int, current_rev: int, conflicts: tuple[MergeConflict, ...]
) -> str:
    """What the re-opened file's header says about each conflict (one line per fact)."""
    count = len(conflicts)
    lines = [
        f"{count} conflict{'s' if count != 1 else ''} with changes made to {diagram_id} "
        f"while you edited (rev {base_rev} -> {current_rev}); nothing was applied.",
        "The text below is the current diagram with YOUR changes merged in; where you both "
        "changed the same object, both versions are marked in place (<<<<<<< ... >>>>>>>):",
    ]
    for number, conflict in enumerate(conflicts, 1):
        lines.append(f"<<< conflict {number}: {conflict.what}: {conflict.reason}")
        if conflict.base:
            lines.append(f"    before:  {conflict.base}")
        if conflict.current:
            lines.append(f"    theirs:  {conflict.current}")
        lines.append(f"    yours:   {conflict.yours}   (in the text below)")
        lines.append(f">>> end of conflict {number}")
    lines.append(
        "Keep the version you want at each marker, delete the marker lines and save; "
        "nothing is applied while a marker is left."
    )
    return "\n".join(lines)
