"""`open_session`: the whole supervision tree of one Nereid session, and its handle.

Tree (root restarts one-for-one; each child restarts from its last commit)::

    root
    ├── persister, persister.status  (with files; their timers are the runtime's)
    ├── index                        (merges the session meta parts → PersistIndex)
    ├── xref                         (xrefs, statuses, object existence)
    ├── attention                    (ephemeral: human, spotlights, follow-AI, view)
    ├── diagrams      (supervisor)   diagram:<id>, one per diagram
    ├── walkthroughs  (supervisor)   walkthrough:<id>, one per walkthrough
    └── session                      (the directory; spawns/stops the per-item actors)

Spawn order matters once: ``xref`` is up before the diagram actors announce themselves,
``session`` last (its `init` spawns the loaded diagrams and walkthroughs). A crash-looping
diagram escalates to ``diagrams``, which root restarts with all its children (each from
its snapshot) — the rest of the tree keeps running.

Memory-only mode (`files=None`, `--mcp --demo`): no persister; the
actors' persist step is a no-op. Leaving the block — normally, by an error, or because the
code around it was cancelled (Ctrl-C) — flushes the persister (bounded and shielded; the
actors run in the runtime's own cancel scope, so they are still there to do it), then
stops everything. If the persister is not running any more (root gave up), the flush
fails at once instead of waiting out its timeout.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any, final

import trio

from nereid.actors.attention import AttentionActor, AttentionState
from nereid.actors.diagram import DiagramActorState, DiagramLoads, diagram_actor_name
from nereid.actors.persist_export import no_offload
from nereid.actors.persist_link import IndexActor, IndexState, PersistConfig, store_timeout
from nereid.actors.persister import DEFAULT_DEBOUNCE, Flush, PersisterState, spawn_persister
from nereid.actors.protocol import HandOverUnsent
from nereid.actors.session import DirectoryEntry, SessionActor, SessionState
from nereid.actors.session_runtime import SESSION_INTENSITY, open_session_runtime
from nereid.actors.walkthrough import walkthrough_actor_name
from nereid.actors.xref import XrefActor, XrefActorState
from nereid.errors import ActorDown, NereidError
from nereid.model import Session
from nereid.runtime._bus import EventBus
from nereid.runtime._cell import ActorStatus, Address
from nereid.runtime._registry import Registry
from nereid.runtime._runtime import Runtime
from nereid.runtime._supervisor import Supervisor
from nereid.runtime._trace import Tracer
from nereid.store.files import SessionFiles
from nereid.store.session_io import Kept, LoadResult

__all__ = ["SessionHandle", "open_session", "open_session_runtime"]

_log = logging.getLogger(__name__)

_FINAL_FLUSH_TIMEOUT = 10.0
_NOT_RUNNING = (ActorStatus.STOPPED, ActorStatus.FAILED)


@final
@dataclass(frozen=True)
class SessionHandle:
    """What clients (MCP endpoint, TUI, tests) need: the runtime and the actor names.

    Clients only send messages (`nereid.actors.protocol`) and read events from `bus`.
    """

    runtime: Runtime
    config: PersistConfig
    diagrams_supervisor: Supervisor
    walkthroughs_supervisor: Supervisor

    @property
    def registry(self) -> Registry:
        return self.runtime.registry

    @property
    def bus(self) -> EventBus:
        return self.runtime.bus

    @property
    def session(self) -> Address:
        return self.registry.lookup("session")

    @property
    def attention(self) -> Address:
        return self.registry.lookup("attention")

    @property
    def xref(self) -> Address:
        return self.registry.lookup("xref")

    @property
    def persister(self) -> Address | None:
        """None in memory-only mode."""
        name = self.config.persister
        return None if name is None else self.registry.get(name)

    def diagram(self, diagram_id: str) -> Address:
        """``diagram:<id>``; raises `ActorNotFound` (-32002) for an unknown diagram."""
        return self.registry.lookup(diagram_actor_name(diagram_id))

    def walkthrough(self, walkthrough_id: str) -> Address:
        """``walkthrough:<id>``; raises `ActorNotFound` (-32002) for an unknown one."""
        return self.registry.lookup(walkthrough_actor_name(walkthrough_id))

    async def flush(self, *, timeout: float = _FINAL_FLUSH_TIMEOUT) -> None:  # noqa: ASYNC109
        """Write everything pending now (no-op in memory-only mode), within `timeout` in all.

        Raises what the persister's `Flush` raises (PersistFailed, CallTimeout), or at once
        `ActorDown` when no persister instance runs (its supervisor gave up): its mailbox
        may still be open, but nothing would ever answer.
        """
        persister = self.persister
        if persister is None:
            return
        if persister.status in _NOT_RUNNING:
            raise ActorDown(
                f"cannot save the session: the persister is not running ({persister.status.value})",
                actor=persister.name,
            )
        deadline = trio.current_time() + timeout
        await self._hand_over_unsent(deadline)
        await persister.call(Flush(), timeout=max(0.0, deadline - trio.current_time()))

    async def _hand_over_unsent(self, deadline: float) -> None:
        """Have every running actor that persists hand over what the persister could not
        take yet (default mode keeps it for a retry timer that may not fire before exit)."""
        registry = self.registry
        names = [
            *registry.names(diagram_actor_name("")),
            *registry.names(walkthrough_actor_name("")),
            "session",
            "index",
        ]
        for name in names:
            address = registry.running(name)
            if address is None or address.status in _NOT_RUNNING:
                continue
            try:
                left = max(0.0, deadline - trio.current_time())
                await address.call(HandOverUnsent(), timeout=left)
            except NereidError as err:
                _log.warning("%s did not hand over its unsaved changes: %s", name, err)


@asynccontextmanager
async def open_session(
    session: Session,
    *,
    files: SessionFiles | None,
    durable: bool,
    tracer: Tracer | None = None,
    kept: Kept | None = None,
    unloaded: Sequence[DiagramActorState] = (),
    loads: DiagramLoads | None = None,
    unsaved: bool = False,
    debounce: float = DEFAULT_DEBOUNCE,
    run_blocking: Callable[[Callable[[], Any]], Awaitable[Any]] | None = None,
    config: PersistConfig | None = None,
    runtime: Runtime | None = None,
) -> AsyncIterator[SessionHandle]:
    """Build the tree for `session` and yield its handle; tear it all down on exit.

    `files` None: memory-only. `durable`: apply/create replies wait for the disk (bounded).
    `kept`: entries of the folder that failed to load (kept by saves); `unloaded`: the
    actors that list those diagrams (empty, with their file problem), and those of
    diagrams listed but not parsed yet (`DiagramActorState.unloaded` without a problem: their entries
    are in `kept` too, and `loads` gives their content on first use). `unsaved`: the
    session is not on disk yet (a seed or demo copy): the first save writes all of it.
    `run_blocking` (tests) runs the persister's file work, big exports included (no worker
    process); `config` overrides timeouts. `runtime` (from `open_session_runtime`): spawn
    the tree into that running runtime, which the caller closes, instead of a new one.
    """
    base = config or PersistConfig()
    if files is None:
        config = PersistConfig(
            persister=None,
            durable=False,
            cast_timeout=base.cast_timeout,
            flush_timeout=base.flush_timeout,
            retry_delay=base.retry_delay,
        )
    else:
        config = PersistConfig(
            persister=base.persister or "persister",
            durable=durable,
            cast_timeout=base.cast_timeout,
            flush_timeout=base.flush_timeout,
            retry_delay=base.retry_delay,
        )
    intensity = SESSION_INTENSITY
    async with AsyncExitStack() as stack:
        if runtime is None:
            runtime = await stack.enter_async_context(open_session_runtime(tracer))
        root = runtime.root
        if files is not None:
            assert config.persister is not None
            extra: dict[str, Any] = {}
            if run_blocking is not None:  # tests: every export in that runner too
                extra = {"run_blocking": run_blocking, "export_big": no_offload}
            await spawn_persister(
                root,
                files=files,
                initial=(
                    PersisterState(session=session, kept=kept or Kept(), pending=True)
                    if unsaved
                    else PersisterState.loaded(
                        LoadResult(session=session, kept=kept or Kept()),
                        listed={u.state.diagram_id: u.state.rev for u in unloaded if u.pending},
                    )
                ),
                name=config.persister,
                debounce=debounce,
                **extra,
            )
        await root.spawn(
            "index",
            lambda: IndexActor(config),
            initial=IndexState(
                xrefs=dict(session.xrefs),
                active_diagram_id=session.active_diagram_id,
                active_walkthrough_id=session.active_walkthrough_id,
                selected_object_refs=session.selected_object_refs,
            ),
        )
        xref_config = config
        await root.spawn(
            "xref",
            lambda: XrefActor(
                durable=xref_config.durable, store_timeout=store_timeout(xref_config)
            ),
            initial=XrefActorState(xrefs=dict(session.xrefs)),
        )
        await root.spawn("attention", AttentionActor, initial=AttentionState())
        diagrams = await root.spawn_supervisor("diagrams", intensity=intensity)
        walkthroughs = await root.spawn_supervisor("walkthroughs", intensity=intensity)
        await root.spawn(
            "session",
            lambda: SessionActor(config, diagrams=diagrams, walkthroughs=walkthroughs, loads=loads),
            initial=SessionState(
                diagrams={
                    **{
                        u.state.diagram_id: DirectoryEntry(name=u.name, kind=u.kind)
                        for u in unloaded
                    },
                    **{
                        d.diagram_id: DirectoryEntry(name=d.name, kind=d.kind)
                        for d in session.diagrams.values()
                    },
                },
                walkthroughs=frozenset(session.walkthroughs),
                active_diagram_id=session.active_diagram_id,
                active_walkthrough_id=session.active_walkthrough_id,
                selection=session.selected_object_refs,
                startup_diagrams=tuple(session.diagrams[k] for k in sorted(session.diagrams)),
                startup_unloaded=tuple(unloaded),
                startup_walkthroughs=tuple(
                    session.walkthroughs[k] for k in sorted(session.walkthroughs)
                ),
            ),
        )
        handle = SessionHandle(
            runtime=runtime,
            config=config,
            diagrams_supervisor=diagrams,
            walkthroughs_supervisor=walkthroughs,
        )
        try:
            yield handle
        finally:
            with trio.move_on_after(_FINAL_FLUSH_TIMEOUT, shield=True):
                try:
                    await handle.flush()
                except NereidError as err:
                    _log.error("final save of the session failed: %s", err)
