"""The main (session) mode: open a session folder (or the demo), run its actors, serve MCP.

- `open_session_handle(...)`: load the folder (or initialise a new one with the seed
  session, cli.md §5 / session-folder.md §12), or take the demo in memory; report per-file
  load problems on stderr; run the actor tree; yield its `SessionHandle`.
- `open_mcp_session(...)`: the same, yielding the MCP endpoint's `EndpointParts` (what
  `nereid serve` and the benchmarks use).
- `run_main(opts)`: `nereid [DIR] --mcp` serves stdio; otherwise TUI mode: Streamable HTTP on
  127.0.0.1 (`--mcp-http-port`, default `DEFAULT_PORT`) and the TUI in the foreground. One `trio.run`.

Where we differ from the reference, on purpose (cli.md §11): a non-empty folder without a
session meta is refused unless it only holds files the seed would write (§11.9); the seed's
session id comes from the resolved folder name (§11.8); the endpoint URL is printed before
the TUI starts (§11.4); a taken port says so and suggests `--mcp-http-port` (§11.5); the
TUI demo's temporary copy is removed on exit (§11.10); SIGINT in stdio mode exits 130.

The actor tree and the load path (and through them the Mermaid, ops, query and render
layers) are imported where they are used, not here: `nereid --mcp` answers `initialize`
and `tools/list` before they are needed (the session loads after the handshake).
"""

from __future__ import annotations

import collections
import contextlib
import gc
import importlib
import logging
import os
import secrets
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import (
    AbstractAsyncContextManager,
    AsyncExitStack,
    asynccontextmanager,
    contextmanager,
)
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple, TypeVar

import msgspec
import trio

from nereid.actors.session_runtime import open_session_runtime
from nereid.commands.folder_owner import claim, refusal, run_bridge
from nereid.commands.session_gate import SessionGate
from nereid.commands.session_options import MainOptions
from nereid.commands.started_now import StartedNow
from nereid.endpoint_address import DEFAULT_PORT
from nereid.errors import NereidError
from nereid.mcp import EndpointParts, McpEndpoint, ToolTable, serve_stdio
from nereid.mcp.catalog import (
    AgentSessionHooks,
    SessionDiagramResources,
    session_endpoint_parts,
    session_tools,
)
from nereid.mcp.heap import settle_heap
from nereid.model import Diagram, Session
from nereid.model.file_names import (
    LEGACY_META_FILE,
    META_FILE,
    StorePathError,
    diagram_paths,
)
from nereid.model.file_problem import FileProblem
from nereid.runtime import Runtime, Tracer
from nereid.store.contents import seed_session
from nereid.store.files import FolderFiles, SessionFiles
from nereid.store.folder_lock import LOCK_FILE, TOKEN_FILE, FolderLock, FolderOwned
from nereid.store.parse_cache import ParseCache, cached_decoder
from nereid.store.recording import RecordingFiles
from nereid.store.schema import SessionMetaFile, StoreFileError

if TYPE_CHECKING:  # imported where used: see the module docstring
    from nereid.actors.diagram import DiagramActorState
    from nereid.actors.folder_events import FolderEvents
    from nereid.actors.tree import SessionHandle
    from nereid.offload.folder_load import FolderLoad
    from nereid.store.session_io import DiagramRead, Kept, LoadResult

__all__ = [
    "SessionOpenError",
    "TuiFailed",
    "open_mcp_session",
    "open_session_handle",
    "run_main",
]

log = logging.getLogger(__name__)

_EXIT_SIGINT: Final = 130
_SIGINT_FLUSH_TIMEOUT: Final = 10.0
_BRIDGE_DELAY: Final = 1.0
"""Seconds of loading after which an owning `nereid --mcp` serves bridges anyway."""
_SEED_FILES: Final = frozenset({"flow.mmd", "flow.meta.json", "flow.ascii.txt"})
"""What a seed session writes under `diagrams/` (session-folder.md §12)."""

ExcT = TypeVar("ExcT", bound=BaseException)


class SessionOpenError(Exception):
    """The session cannot be opened (folder unreadable, broken meta, not ours to initialise)."""


# -- loading -------------------------------------------------------------------------------


def _foreign_entries(folder: Path) -> list[str]:
    """Entries of a meta-less folder that a seed session would not write (cli.md §11.9)."""
    if not folder.exists():
        return []
    foreign: list[str] = []
    for entry in sorted(folder.iterdir()):
        if entry.name in (META_FILE, LEGACY_META_FILE, LOCK_FILE, TOKEN_FILE) and entry.is_file():
            continue
        if entry.name == "diagrams" and entry.is_dir() and not entry.is_symlink():
            foreign.extend(
                f"diagrams/{child.name}"
                for child in sorted(entry.iterdir())
                if child.name not in _SEED_FILES or not child.is_file()
            )
            continue
        if entry.name == "walkthroughs" and entry.is_dir() and not any(entry.iterdir()):
            continue
        foreign.append(entry.name)
    return foreign


def probe_folder(folder: Path, files: SessionFiles) -> SessionMetaFile | None:
    """The folder's session meta, or None for a folder to give the seed session.

    Quick (the meta only): `nereid --mcp` calls it before answering, so a folder it
    cannot use is refused at once. Raises SessionOpenError for a broken meta or a
    folder that holds other things.
    """
    from nereid.store.session_io import SessionNotFound, read_meta

    try:
        return read_meta(files)
    except SessionNotFound:
        pass
    except StoreFileError as err:
        raise SessionOpenError(f"cannot load the session in {folder}: {err}") from None
    except OSError as err:
        raise SessionOpenError(f"cannot read {folder}: {err}") from None
    if folder.exists() and not folder.is_dir():
        raise SessionOpenError(f"{folder} is not a directory")
    try:
        foreign = _foreign_entries(folder)
    except OSError as err:
        raise SessionOpenError(f"cannot read {folder}: {err}") from None
    if foreign:
        shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
        raise SessionOpenError(
            f"{folder} has no Nereid session ({META_FILE}) but is not empty ({shown}); "
            "refusing to initialise a session there: use an empty or new folder"
        )
    return None


def load_probed(
    folder: Path, files: SessionFiles, meta: SessionMetaFile | None
) -> tuple[LoadResult, bool]:
    """What `probe_folder` found, loaded (the slow part); True if it is a new seed."""
    from nereid.store.session_io import LoadResult, load_listed

    if meta is None:
        return LoadResult(session=seed_session(folder.resolve().name)), True
    from nereid.offload.folder_load import decode_in_workers

    decode = cached_decoder(ParseCache.from_env(), decode_in_workers)
    try:
        return load_listed(files, meta, decode), False
    except OSError as err:
        raise SessionOpenError(f"cannot read {folder}: {err}") from None


class Listed(NamedTuple):
    """A folder listed but not parsed (`list_probed`): `result` is the session without
    the listed diagrams' contents (their entries in `kept`, as for files that did not
    load, until each has loaded); `reads` their bytes, for `FolderLoad`; `revs` the rev
    each read loads as (no parse: `listed_read`); `unsure` the ids of the reads whose
    load only their parse can tell (not `ListedRead.as_saved`)."""

    result: LoadResult
    reads: tuple[DiagramRead, ...]
    revs: tuple[int, ...]
    unsure: tuple[str, ...] = ()

    @property
    def pending(self) -> tuple[DiagramActorState, ...]:
        """The listed diagrams' actors' start states (made here, not in the listing's
        thread: their module imports the layers)."""
        from nereid.actors.diagram import DiagramActorState

        return tuple(
            DiagramActorState.unloaded(
                read.entry.diagram_id, name=read.entry.name, kind=read.entry.kind, rev=rev
            )
            for read, rev in zip(self.reads, self.revs, strict=True)
        )


def list_probed(folder: Path, files: SessionFiles, meta: SessionMetaFile | None) -> Listed:
    """What `probe_folder` found, read but not parsed: cheap, so `nereid --mcp` lists the
    session at once and parses each diagram on use or in the background (`FolderLoad`).
    A new folder gets the seed session, as `load_probed` gives it."""
    from nereid.store.session_io import list_listed, listed_read

    if meta is None:
        return Listed(load_probed(folder, files, meta)[0], (), ())
    # The diagrams' reads are not recorded (hashed) here: each is taken in as it loads
    # (`_run_loaded`), or stays foreign if it does not; recording them now would hash
    # every byte of the folder once more before the first reply, for nothing.
    inner = files.inner if isinstance(files, RecordingFiles) else files
    try:
        listing = list_listed(files, meta, diagram_files=inner)
    except OSError as err:
        raise SessionOpenError(f"cannot read {folder}: {err}") from None
    last = {read.entry.diagram_id: read for read in listing.reads}
    revs: list[int] = []
    unsure: list[str] = []
    for diagram_id, read in last.items():
        try:
            listed = listed_read(read)
        except msgspec.DecodeError:  # the side-car is broken: the load will say so
            revs.append(read.entry.rev)
            unsure.append(diagram_id)
            continue
        revs.append(listed.rev)
        if not listed.as_saved:
            unsure.append(diagram_id)
    result = listing.result
    kept = msgspec.structs.replace(
        result.kept,
        diagram_entries=(*result.kept.diagram_entries, *(r.entry for r in last.values())),
    )
    return Listed(
        msgspec.structs.replace(result, kept=kept),
        tuple(last.values()),
        tuple(revs),
        tuple(unsure),
    )


def load_or_seed(folder: Path, files: SessionFiles) -> tuple[LoadResult, bool]:
    """The folder's session, or the seed for a folder without one; True if it is a new seed.

    Raises SessionOpenError for a broken meta or a folder that holds other things.
    """
    return load_probed(folder, files, probe_folder(folder, files))


def _report_issues(result: LoadResult) -> None:
    for issue in result.issues:
        _report_issue(str(issue))


def _report_issue(issue: str) -> None:
    print(
        f"nereid: warning: {issue} (listed with the problem; its files are left as they are until they load)",
        file=sys.stderr,
        flush=True,
    )


def unloaded_diagrams(result: LoadResult) -> list[DiagramActorState]:
    """The listed diagrams that did not load: still listed (empty, with their problem),
    so that nobody takes their id and overwrites the person's file."""
    from nereid.actors.diagram import DiagramActorState

    problems: dict[str, FileProblem] = {}
    for issue in result.issues:
        if issue.diagram_id is not None:
            problems[issue.diagram_id] = issue.file_problem or FileProblem(
                file=issue.path, message=issue.problem
            )
    return [
        DiagramActorState.unloaded(
            entry.diagram_id,
            name=entry.name,
            kind=entry.kind,
            rev=entry.rev,
            problem=problems.get(entry.diagram_id)
            or FileProblem(file=entry.mmd_path, message="did not load"),
        )
        for entry in result.kept.diagram_entries
        if entry.diagram_id not in result.session.diagrams
    ]


def _files_of_issues(result: LoadResult) -> set[str]:
    """The files of the items that failed to load: they stay foreign, never overwritten."""
    paths = {issue.path for issue in result.issues}
    for issue in result.issues:
        if issue.diagram_id is not None:
            try:
                paths.update(diagram_paths(issue.diagram_id))
            except StorePathError:
                pass
    return paths


def _adopt_seed_leftovers(files: RecordingFiles) -> None:
    """Seed files an interrupted first run left (§11.9) are Nereid's own: the seed replaces them."""
    for name in sorted(_SEED_FILES):
        path = f"diagrams/{name}"
        try:
            data = files.inner.read(path)
        except (OSError, StoreFileError):
            continue
        files.remember(path, data)


@asynccontextmanager
async def open_session_handle(
    session_dir: str | Path | None,
    *,
    demo: bool,
    durable_writes: bool,
    tracer: Tracer | None = None,
    watch: bool = True,
    lazy: bool = False,
    background: bool = True,
) -> AsyncIterator[SessionHandle]:
    """Run the session of `session_dir` (default `.`), or the demo in memory with `demo`.

    A new folder gets the seed session, written before this yields. Raises
    SessionOpenError when the folder cannot be used. `watch`: import edits made to the
    folder's files by other programs (`watch_folder`). `lazy` (what `nereid --mcp` does):
    yield once the folder is listed, each diagram parsed on first use, and (`background`)
    the others in worker processes meanwhile.
    """
    from nereid.actors.tree import open_session
    from nereid.store.demo import load_demo_session

    if demo:
        if session_dir is not None:
            raise SessionOpenError("--demo cannot be combined with a session directory")
        session: Session = load_demo_session()
        async with open_session(session, files=None, durable=False, tracer=tracer) as handle:
            yield handle
        return
    folder = Path(session_dir if session_dir is not None else ".")
    files = RecordingFiles(FolderFiles(folder, durable=durable_writes))
    listed: Listed | None = None
    if lazy:
        meta = probe_folder(folder, files)
        listed = list_probed(folder, files, meta)
        result, fresh = listed.result, meta is None
    else:
        result, fresh = load_or_seed(folder, files)
    async with _run_loaded(
        folder,
        files,
        result,
        fresh,
        durable_writes=durable_writes,
        tracer=tracer,
        watch=watch,
        listed=listed,
        background=background,
    ) as handle:
        yield handle


@asynccontextmanager
async def _run_loaded(
    folder: Path,
    files: RecordingFiles,
    result: LoadResult,
    fresh: bool,
    *,
    durable_writes: bool,
    tracer: Tracer | None,
    watch: bool,
    runtime: Runtime | None = None,
    listed: Listed | None = None,
    background: bool = True,
    background_after: Callable[[], Awaitable[None]] | None = None,
    events: FolderEvents | None = None,
) -> AsyncIterator[SessionHandle]:
    """Run the loaded (or seed) session of `folder` (in `runtime` if given), watched.

    `listed` (`list_probed`; `result` is its own): the session starts with those diagrams
    not parsed yet, and a `FolderLoad` parses them on use and (`background`) in worker
    processes meanwhile, once `background_after` returns (the client's first replies go
    first); as each loads, its files are taken in (or, broken, reported and left as they
    are). `events`: the folder's watch, begun before (`watch`: else begun here).
    """
    from nereid.actors.diagram import diagram_actor_name
    from nereid.actors.folder_watch import watch_folder
    from nereid.actors.protocol import FinishLoad
    from nereid.actors.tree import open_session
    from nereid.offload.folder_load import FolderLoad

    pending = listed.pending if listed is not None else ()
    reads = listed.reads if listed is not None else ()
    _report_issues(result)
    later = {path for read in reads for path in (read.mmd_path, read.sidecar_path)}
    files.adopt_reads(excluding=_files_of_issues(result) | later)
    if fresh:
        _adopt_seed_leftovers(files)
    later_ids = {p.state.diagram_id for p in pending}
    unloaded = [u for u in unloaded_diagrams(result) if u.state.diagram_id not in later_ids]
    unloaded += pending
    kept: Kept = result.kept
    running: list[SessionHandle] = []

    def done(read: DiagramRead, outcome: Diagram | FileProblem) -> None:
        name = diagram_actor_name(read.entry.diagram_id)
        registry = running[0].registry if running else None
        if registry is not None and name not in registry:
            return  # deleted meanwhile: its files are not ours to take in
        if isinstance(outcome, Diagram):
            files.remember(read.mmd_path, read.mmd, imported=True)
            if read.sidecar is not None:
                files.remember(read.sidecar_path, read.sidecar, imported=True)
        else:
            _report_issue(f"{outcome.file}: {outcome.message}")
        if registry is None:
            return
        # A diagram whose actor has not started keeps its content here until its first
        # use; one that does not load starts now, so the directory shows its problem.
        address = registry.running(name) if isinstance(outcome, Diagram) else registry.get(name)
        if address is not None:
            address.offer(FinishLoad())  # a full mailbox: it loads with its next message

    loads = FolderLoad(reads, on_done=done) if reads else None
    async with open_session(
        result.session,
        files=files,
        durable=durable_writes,
        tracer=tracer,
        kept=kept,
        unloaded=unloaded,
        loads=loads,
        unsaved=fresh,
        runtime=runtime,
    ) as handle:
        running.append(handle)
        if fresh:
            await handle.flush()
        if loads is not None and listed is not None and listed.unsure:
            await _load_unsure(loads, listed.unsure)
        async with trio.open_nursery() as nursery:
            if watch:
                await nursery.start(partial(watch_folder, events=events), handle, folder, files)
            if loads is not None and background:
                nursery.start_soon(_load_in_background, loads, background_after)
            yield handle
            nursery.cancel_scope.cancel()


async def _load_unsure(loads: FolderLoad, unsure: tuple[str, ...]) -> None:
    """Parse the listed diagrams whose load only a parse can tell (edited while Nereid was
    off, mostly) before the session answers: a file that does not load then shows its
    problem in the first `diagram.list` (its actor starts to hold it, `done`), never a
    listing's "ok". The others are as Nereid saved them: they load."""

    async def take(diagram_id: str) -> None:
        with contextlib.suppress(KeyError):  # its actor has taken it in meanwhile
            await loads.take(diagram_id)

    async with trio.open_nursery() as nursery:
        for diagram_id in unsure:
            nursery.start_soon(take, diagram_id)


async def _load_in_background(
    loads: FolderLoad, after: Callable[[], Awaitable[None]] | None = None
) -> None:
    """Parse the diagrams nobody asked for yet (once `after` returns), then freeze them
    with the rest of the heap (they live as long as the process: full collections need
    not walk them)."""
    from nereid.mcp.heap import freeze_heap

    if after is not None:
        await after()
    await loads.run()
    freeze_heap()


@asynccontextmanager
async def open_mcp_session(
    session_dir: str | Path | None,
    *,
    demo: bool,
    durable_writes: bool,
    tracer: Tracer | None = None,
) -> AsyncIterator[EndpointParts]:
    """`open_session_handle`, yielding what the MCP endpoint serves (`EndpointParts`)."""
    async with open_session_handle(
        session_dir, demo=demo, durable_writes=durable_writes, tracer=tracer
    ) as handle:
        yield session_endpoint_parts(handle)


# -- running -------------------------------------------------------------------------------


def _leaf(error: BaseException, kind: type[ExcT]) -> ExcT | None:
    """The first `kind` in `error` or, through exception groups, in what it wraps."""
    if isinstance(error, kind):
        return error
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            found = _leaf(inner, kind)
            if found is not None:
                return found
    return None


def open_tracer(path: str | None) -> Tracer | None:
    """The tracer writing to `path` (None for no tracing); SessionOpenError if it cannot open."""
    if path is None:
        return None
    from nereid.commands.trace import open_trace_sink

    try:
        return Tracer(open_trace_sink(path))
    except OSError as err:
        raise SessionOpenError(f"cannot open the trace file {path}: {err}") from None


async def _serve_stdio_main(
    opts: MainOptions, tracer: Tracer | None, lock: FolderLock | None
) -> int:
    """stdio MCP, answering before the session has loaded.

    The folder's meta is checked first (a folder that cannot be used exits 1 at once);
    then the endpoint serves the handshake and `tools/list` while a thread lists the
    folder (`list_probed`, started at once) and `_load_and_run` spawns its tree once the
    handshake is done; calls that need the session
    wait for it at the `SessionGate`. Owning a folder, it also serves loopback HTTP
    (any port, a private token in the lock's companion file) so that other
    `nereid --mcp DIR` can bridge in.
    """
    if opts.demo and opts.session_dir is not None:
        raise SessionOpenError("--demo cannot be combined with a session directory")
    gc.disable()  # until the first reply (`_settle_after_first_reply`): see there
    try:
        return await _serve_stdio(opts, tracer, lock)
    finally:
        gc.enable()


async def _serve_stdio(opts: MainOptions, tracer: Tracer | None, lock: FolderLock | None) -> int:
    folder = Path(opts.session_dir if opts.session_dir is not None else ".")
    files = RecordingFiles(FolderFiles(folder, durable=opts.durable_writes))
    meta = None if opts.demo else probe_folder(folder, files)
    listing = (  # mostly reads and hashes (no GIL): beside the imports and the handshake
        None
        if opts.demo
        else StartedNow(partial(list_probed, folder, files, meta), name="nereid-list-folder")
    )
    gate = SessionGate()
    cache = ParseCache.from_env()
    kept = cache.tool_listing() if cache is not None else None
    if cache is not None:
        cache.close()
    tools = session_tools(kept)
    async with open_session_runtime(tracer) as runtime:
        endpoint = McpEndpoint(
            runtime,
            tools,
            resources=SessionDiagramResources(runtime),
            hooks=AgentSessionHooks(runtime),
            tool_names=opts.tool_names,
            ready=gate.wait,
        )
        endpoint.server.middleware.append(gate.middleware)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_exit_on_sigint, gate, tracer, lock)
            nursery.start_soon(
                partial(
                    _load_and_run,
                    opts,
                    folder,
                    files,
                    meta,
                    listing,
                    runtime=runtime,
                    gate=gate,
                    tracer=tracer,
                    endpoint=endpoint,
                    lock=lock,
                    keep_listing=kept is None,
                )
            )
            await serve_stdio(endpoint, settle=False)
            nursery.cancel_scope.cancel()
    return 0


async def _load_and_run(
    opts: MainOptions,
    folder: Path,
    files: RecordingFiles,
    meta: SessionMetaFile | None,
    listing: StartedNow[Listed] | None,
    *,
    runtime: Runtime,
    gate: SessionGate,
    tracer: Tracer | None,
    endpoint: McpEndpoint,
    lock: FolderLock | None,
    keep_listing: bool = False,
) -> None:
    """Serve the bridge's HTTP (owning a folder), load the session off the event loop
    (a folder: take `listing`, the folder listed meanwhile), run its tree in `runtime`,
    open the gate and settle the heap after the first reply; runs until cancelled. The
    tools are imported meanwhile, in a worker thread, if the endpoint listed them from the
    parse cache; `keep_listing`: the listing was generated in this run: keep it for the next.

    Loading writes nothing, so a client leaving meanwhile abandons the worker threads.
    """
    events: FolderEvents | None = None
    async with trio.open_nursery() as nursery:
        if lock is not None:
            nursery.start_soon(_serve_bridge_http, endpoint, lock, gate)
        if listing is not None and meta is not None:  # a session folder: watched meanwhile
            from nereid.actors.folder_events import FolderEvents

            events = FolderEvents(folder)
            nursery.start_soon(events.begin)
        await gate.until_wanted()
        await trio.to_thread.run_sync(endpoint.tools.load)
        from nereid.actors.tree import open_session
        from nereid.store.demo import load_demo_session

        try:
            if opts.demo:
                session = await trio.to_thread.run_sync(load_demo_session, abandon_on_cancel=True)
                opening: AbstractAsyncContextManager[SessionHandle] = open_session(
                    session, files=None, durable=False, tracer=tracer, runtime=runtime
                )
            else:
                assert listing is not None
                listed = await listing.result()
                opening = _run_loaded(
                    folder,
                    files,
                    listed.result,
                    meta is None,
                    durable_writes=opts.durable_writes,
                    tracer=tracer,
                    watch=True,
                    runtime=runtime,
                    listed=listed,
                    background_after=gate.first_served,
                    events=events,
                )
            async with opening as handle:
                gate.opened(handle)
                await _settle_after_first_reply(gate, endpoint.tools if keep_listing else None)
                await trio.sleep_forever()
        except Exception as error:
            if gate.handle is not None:
                raise  # the session ran and failed: as before, the process stops
            why = str(error) or type(error).__name__
            if not isinstance(error, SessionOpenError):  # a bug: keep its traceback
                log.exception("the session could not be opened")
            print(f"nereid: the session could not be opened: {why}", file=sys.stderr, flush=True)
            gate.failed(why)
            gc.enable()
            if events is not None:
                await events.aclose()
            await trio.sleep_forever()


async def _settle_after_first_reply(gate: SessionGate, keep: ToolTable | None) -> None:
    """Once the open session has answered (`SessionGate.first_served`): collect and freeze
    the heap (`settle_heap`; what `nereid.cli` froze while importing is collected with the
    rest now), collect again as usual from then on, and keep the tool listing `keep` for
    the next launch.

    Until then nothing is collected: what start-up builds (the tools, their listing, the
    session's actors) lives as long as the process, and the young collections that walked
    it were a tenth of the CPU before the first reply. The window is short: the handshake
    and the first call, at most `LOAD_DELAY` after the session has opened.
    """
    await gate.first_served()
    gc.unfreeze()
    settle_heap()  # the session is in: what lives as long as the process
    gc.enable()
    if keep is not None:
        await trio.to_thread.run_sync(_keep_tool_listing, keep)


def _keep_tool_listing(tools: ToolTable) -> None:
    """Keep the tool listing for the next launch (generating the schemas is most of
    building the tool table, importing the tools most of start-up; it depends on the code
    only)."""
    cache = ParseCache.from_env()
    if cache is not None:
        cache.keep_tool_listing(tools.listing())
        cache.close()


async def _serve_bridge_http(endpoint: McpEndpoint, lock: FolderLock, gate: SessionGate) -> None:
    """Serve loopback HTTP for bridges (a private token) and publish it in the lock.

    After the handshake and the session, which the client is waiting for: it starts once
    the session has loaded (or after `_BRIDGE_DELAY` of loading) and answered its first
    call (or `_BRIDGE_DELAY` later; a bridge waits up to 15 s for the URL). The HTTP stack
    is imported in a thread.
    """
    with trio.move_on_after(_BRIDGE_DELAY):
        await gate.settled()
    await gate.first_served(_BRIDGE_DELAY)
    http = await trio.to_thread.run_sync(importlib.import_module, "nereid.mcp.http")
    token = secrets.token_urlsafe(32)
    async with trio.open_nursery() as nursery:
        url = await nursery.start(
            partial(http.serve_http, endpoint, port=0, token=token, background=False)
        )
        lock.publish(url, token)


async def _exit_on_sigint(
    gate: SessionGate, tracer: Tracer | None, lock: FolderLock | None = None
) -> None:
    """SIGINT / SIGTERM in stdio mode: save what is pending, then exit 128 + signal at once.

    The stdio transport reads stdin in a worker thread that no cancellation can
    interrupt, so an orderly unwind would wait for the client's next line; the session
    is flushed here first, so nothing committed is lost.
    """
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            handle = gate.handle  # None while loading: nothing was acknowledged yet
            with trio.move_on_after(_SIGINT_FLUSH_TIMEOUT):
                try:
                    if handle is not None:
                        await handle.flush(timeout=_SIGINT_FLUSH_TIMEOUT)
                except NereidError as err:
                    print(f"nereid: saving the session failed: {err}", file=sys.stderr)
            if tracer is not None:
                tracer.close()
            if lock is not None:
                lock.release()
            sys.stderr.flush()
            os._exit(128 + signum)


TuiRunner = Callable[..., Awaitable[int]]


def _tui_runner() -> TuiRunner | None:
    try:
        module = importlib.import_module("nereid.ui")
    except ImportError as err:
        log.warning("the TUI cannot be imported: %s", err)
        return None
    runner = getattr(module, "run_tui", None)
    return runner if callable(runner) else None


class _HeldLog(logging.Handler):
    """Keeps warnings while the TUI owns the screen (cli.md §11.12); printed after it."""

    def __init__(self, limit: int = 200) -> None:
        super().__init__(logging.WARNING)
        self.setFormatter(logging.Formatter("nereid: %(levelname)s %(name)s: %(message)s"))
        self.lines: collections.deque[str] = collections.deque(maxlen=limit)

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@contextmanager
def _quiet_while_tui() -> Iterator[None]:
    """Hold log output while the TUI runs, then print what was held to stderr."""
    root = logging.getLogger()
    held = _HeldLog()
    saved = root.handlers[:]
    root.handlers = [held]
    try:
        yield
    finally:
        root.handlers = saved
        for line in held.lines:
            print(line, file=sys.stderr)


class TuiFailed(Exception):
    """The TUI stopped with an error (terminal, I/O); the message says what."""


async def _stop_on_signals(scope: trio.CancelScope, caught: list[int]) -> None:
    """SIGTERM / SIGHUP in TUI mode: stop the TUI and the server in order (cli.md §11.11)."""
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
        async for signum in signals:
            caught.append(signum)
            scope.cancel()
            return


def _describe(error: BaseException) -> str:
    """The innermost error's text (a TUI failure often arrives wrapped in groups)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}" if not str(error) else str(error)


async def _serve_tui_main(opts: MainOptions, tracer: Tracer | None, lock: FolderLock | None) -> int:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise SessionOpenError(
            "the TUI needs a terminal (stdin and stdout are not both a TTY); "
            "use --mcp for MCP over stdio, or `nereid serve` for MCP over HTTP without a TUI"
        )
    port = opts.mcp_http_port if opts.mcp_http_port is not None else DEFAULT_PORT
    caught: list[int] = []
    code = 0
    async with AsyncExitStack() as stack:
        folder: str | Path | None = opts.session_dir
        if opts.demo:
            from nereid.store.demo import demo_folder

            folder = stack.enter_context(demo_folder(durable=opts.durable_writes))
            print(f"nereid: demo session copied to {folder} (removed on exit)", file=sys.stderr)
        handle = await stack.enter_async_context(
            open_session_handle(
                folder, demo=False, durable_writes=opts.durable_writes, tracer=tracer
            )
        )
        parts = session_endpoint_parts(handle)
        endpoint = McpEndpoint(
            parts.runtime,
            parts.tools,
            resources=parts.resources,
            hooks=parts.hooks,
            tool_names=opts.tool_names,
        )
        from nereid.mcp.http import serve_http

        async with trio.open_nursery() as nursery:
            nursery.start_soon(_stop_on_signals, nursery.cancel_scope, caught)
            try:
                url = await nursery.start(partial(serve_http, endpoint, port=port))
            except BaseException as error:
                bind = _leaf(error, OSError)
                if bind is None:
                    raise
                raise SessionOpenError(
                    f"cannot listen on 127.0.0.1:{port}: {bind.strerror or bind} "
                    "(is another nereid running? choose another port with --mcp-http-port, "
                    "0 for any free one)"
                ) from None
            if lock is not None:
                lock.publish(url)
            print(f"nereid: MCP listening on {url}", file=sys.stderr, flush=True)
            runner = _tui_runner()
            if runner is None:
                print(
                    "nereid: the TUI is not available in this build; serving MCP only until Ctrl-C",
                    file=sys.stderr,
                    flush=True,
                )
                await trio.sleep_forever()
            try:
                with _quiet_while_tui():
                    code = await runner(handle, mcp_url=url)
            except Exception as error:
                raise TuiFailed(f"the TUI failed: {_describe(error)}") from error
            nursery.cancel_scope.cancel()
    if caught:
        return 128 + caught[0]
    return code


def run_main(opts: MainOptions) -> int:
    """Run the main mode chosen on the command line; returns the exit status."""
    try:
        tracer = open_tracer(opts.trace)
    except SessionOpenError as err:
        print(f"nereid: {err}", file=sys.stderr)
        return 1
    if opts.mcp:
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    lock: FolderLock | None = None
    if not opts.demo:
        folder = Path(opts.session_dir if opts.session_dir is not None else ".")
        try:
            lock = claim(folder, "mcp" if opts.mcp else "tui")
        except FolderOwned as owned:
            if tracer is not None:
                tracer.close()
            if opts.mcp:
                return run_bridge(folder, owned, opts.tool_names)
            print(refusal(owned), file=sys.stderr)
            return 1
        except OSError as err:
            print(f"nereid: cannot lock the session folder {folder}: {err}", file=sys.stderr)
            return 1
    main = _serve_stdio_main if opts.mcp else _serve_tui_main
    try:
        return trio.run(main, opts, tracer, lock)
    except BaseException as error:
        opening = _leaf(error, SessionOpenError) or _leaf(error, TuiFailed)
        if opening is not None:
            print(f"nereid: {opening}", file=sys.stderr)
            return 1
        if _leaf(error, KeyboardInterrupt) is not None:
            return _EXIT_SIGINT
        raise
    finally:
        if lock is not None:
            lock.release()
        if tracer is not None:
            tracer.close()
