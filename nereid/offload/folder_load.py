"""A big session folder's diagrams parsed in worker processes (issue 18).

Loading a folder is mostly parsing: 200 flowcharts of 500 nodes are 233 000 statements,
~25 s of one core on the loaded 2-core machine. Two ways to do it:

- `decode_in_workers`, a `DiagramDecoder` (`nereid.store.session_io.load_listed`), parses
  everything before the session starts (the TUI, `nereid serve`): above `PARALLEL_BYTES`
  of Mermaid text it hands contiguous chunks of the reads to one spawned process per CPU.
- `FolderLoad` (`nereid --mcp`) lets the session start with its diagrams listed but not
  parsed, so an agent's first `diagram.list` is answered at once: a diagram actor takes
  its content on its first request (`take`: decoded here at once if the background has
  not got to it, first asked first served), and `run` decodes the rest in the
  background, in worker processes, after the first replies.

Each diagram crosses back as msgpack bytes of its AST (decoded here in C, far cheaper than
unpickling), each failure as what `load_listed` reports: one file's problem never stops
the others. If the workers cannot run (no processes allowed, a worker killed), the reads
are decoded in this process instead: slower, same result. Workers run at
`WORKER_NICENESS`, so `nereid --mcp` answers its handshake and first calls first. The
parse cache (`nereid.store.parse_cache`) answers for what an earlier run parsed.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from typing import Final, final

import msgspec
import trio

from nereid.model import Diagram, FlowchartAst, SequenceAst, StateAst
from nereid.model.diagram import Ast
from nereid.model.file_problem import FileProblem
from nereid.offload import as_background
from nereid.store.parse_cache import ParseCache, cached_decoder
from nereid.store.schema import StoreFileError, UnparsableFile
from nereid.store.session_io import DiagramRead, decode_here, decode_read

__all__ = ["PARALLEL_BYTES", "FolderLoad", "LoadOutcome", "decode_in_workers", "load_problem"]

log = logging.getLogger(__name__)

PARALLEL_BYTES: Final = 1 << 20
"""Below this much Mermaid text, starting the workers costs more than it saves."""

_CHUNKS_PER_WORKER: Final = 4
"""Several chunks per worker, so one slow chunk does not leave the other CPU idle."""

_AST_TYPES: Final[dict[str, type[Ast]]] = {
    t.__name__: t for t in (FlowchartAst, SequenceAst, StateAst)
}

_Outcome = tuple[str, bytes, int] | FileProblem | tuple[str, str]
"""A worker's answer for one read: the Diagram as (AST type, msgpack AST, rev) (its other
fields are the meta entry's), an UnparsableFile's problem, or another StoreFileError's
(path, problem)."""


def _decode_chunk(reads: Sequence[DiagramRead]) -> list[_Outcome]:
    """In a worker: decode each read (at a lower priority than the event loop's)."""
    as_background()
    out: list[_Outcome] = []
    for read in reads:
        try:
            diagram = decode_read(read)
            ast = msgspec.msgpack.encode(diagram.ast)
            out.append((type(diagram.ast).__name__, ast, diagram.rev))
        except UnparsableFile as err:
            out.append(err.file_problem)
        except StoreFileError as err:
            out.append((err.path, err.problem))
    return out


def _taken_back(read: DiagramRead, outcome: _Outcome) -> Diagram | StoreFileError:
    if isinstance(outcome, FileProblem):
        return UnparsableFile(outcome)
    if len(outcome) == 2:
        return StoreFileError(*outcome)
    type_name, ast, rev = outcome
    return Diagram(
        diagram_id=read.entry.diagram_id,
        name=read.entry.name,
        kind=read.entry.kind,
        ast=msgspec.msgpack.decode(ast, type=_AST_TYPES[type_name]),
        rev=rev,
    )


def decode_in_workers(
    reads: Sequence[DiagramRead], *, threshold: int = PARALLEL_BYTES
) -> list[Diagram | StoreFileError]:
    """`DiagramDecoder`: in worker processes above `threshold` bytes of Mermaid, else here."""
    workers = min(os.cpu_count() or 1, len(reads))
    if workers < 2 or sum(len(read.mmd) for read in reads) < threshold:
        return decode_here(reads)
    import multiprocessing  # (and the pool): only for a folder big enough to need them
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    size = max(1, -(-len(reads) // (workers * _CHUNKS_PER_WORKER)))
    chunks = [reads[i : i + size] for i in range(0, len(reads), size)]
    try:
        with ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
        ) as pool:
            answers = list(pool.map(_decode_chunk, chunks))
    except (BrokenProcessPool, OSError) as err:
        log.warning("parsing the folder in worker processes failed (%s); parsing here", err)
        return decode_here(reads)
    outcomes = [outcome for answer in answers for outcome in answer]
    return [_taken_back(read, outcome) for read, outcome in zip(reads, outcomes, strict=True)]


LoadOutcome = Diagram | FileProblem
"""What a listed diagram loads as: the Diagram, or why it does not load (left as it is)."""

_BACKGROUND_CHUNK: Final = 8
"""Diagrams per background job: small, so an early result reaches its actor early."""


def load_problem(error: StoreFileError) -> FileProblem:
    """The file problem a diagram that does not load is listed with."""
    if isinstance(error, UnparsableFile):
        return error.file_problem
    return FileProblem(file=error.path, message=error.problem)


def _outcome(result: Diagram | StoreFileError) -> LoadOutcome:
    return result if isinstance(result, Diagram) else load_problem(result)


@final
class FolderLoad:
    """The listed diagrams of a session that started before parsing them (see the module
    docstring). Lives as long as the session; one instance per start-up.

    `on_done(read, outcome)` runs in the event loop once per diagram when its outcome is
    known, whoever decoded it (the session takes in its files, reports a broken one, and
    tells its actor). `cache` makes a fresh `ParseCache` (or None) for each decode.
    """

    def __init__(
        self,
        reads: Sequence[DiagramRead],
        *,
        on_done: Callable[[DiagramRead, LoadOutcome], None] | None = None,
        cache: Callable[[], ParseCache | None] = ParseCache.from_env,
        workers: int | None = None,
    ) -> None:
        #: What is still to take, by id (the last read of an id: the meta's last entry).
        self._reads: dict[str, DiagramRead] = {read.entry.diagram_id: read for read in reads}
        self._done: dict[str, LoadOutcome] = {}
        self._decoding: dict[str, trio.Event] = {}
        self._cache = cache
        self._workers = workers if workers is not None else (os.cpu_count() or 1)
        self.on_done = on_done

    def ready(self, diagram_id: str) -> bool:
        """Whether `take` would answer at once."""
        return diagram_id in self._done

    def pending(self) -> tuple[str, ...]:
        """The ids whose outcome is not known yet."""
        return tuple(d for d in self._reads if d not in self._done)

    async def take(self, diagram_id: str) -> LoadOutcome:
        """The diagram's outcome: at once if known, after its decode if one runs, else
        decoded here now (a thread; the parse cache first)."""
        while diagram_id not in self._done:
            read = self._reads.get(diagram_id)
            if read is None:
                raise KeyError(diagram_id)
            running = self._decoding.get(diagram_id)
            if running is not None:
                await running.wait()
                continue
            done = trio.Event()
            self._decoding[diagram_id] = done
            try:
                decode = cached_decoder(self._cache(), decode_here)
                [result] = await trio.to_thread.run_sync(decode, [read])
                self._deliver(read, _outcome(result))
            finally:
                del self._decoding[diagram_id]
                done.set()
        return self._done[diagram_id]

    def release(self, diagram_id: str) -> None:
        """Its actor has taken its content: forget the bytes and the outcome."""
        self._reads.pop(diagram_id, None)
        self._done.pop(diagram_id, None)

    def _deliver(self, read: DiagramRead, outcome: LoadOutcome) -> None:
        diagram_id = read.entry.diagram_id
        if self._reads.get(diagram_id) is not read or diagram_id in self._done:
            return  # released, or decoded twice (the same bytes: the same outcome)
        self._done[diagram_id] = outcome
        if self.on_done is not None:
            self.on_done(read, outcome)

    async def run(self) -> None:
        """Decode every diagram not taken yet: the parse cache first, then worker
        processes, a few diagrams per job. Returns when all are known."""
        todo = [read for d, read in self._reads.items() if d not in self._done]
        if not todo:
            return
        found = await trio.to_thread.run_sync(_from_cache, self._cache, todo)
        for read, diagram in zip(todo, found, strict=True):
            if diagram is not None:
                self._deliver(read, diagram)
        misses = [read for read, diagram in zip(todo, found, strict=True) if diagram is None]
        limiter = trio.CapacityLimiter(max(1, self._workers))
        async with trio.open_nursery() as nursery:
            for i in range(0, len(misses), _BACKGROUND_CHUNK):
                nursery.start_soon(self._background, misses[i : i + _BACKGROUND_CHUNK], limiter)

    async def _background(self, chunk: list[DiagramRead], limiter: trio.CapacityLimiter) -> None:
        async with limiter:
            todo = [r for r in chunk if self._wanted(r)]
            if not todo:
                return
            events = {r.entry.diagram_id: trio.Event() for r in todo}
            self._decoding.update(events)
            try:
                results = await _decode_elsewhere(todo)
                for read, result in zip(todo, results, strict=True):
                    self._deliver(read, _outcome(result))
                kept = [
                    (r, d) for r, d in zip(todo, results, strict=True) if isinstance(d, Diagram)
                ]
                if kept:
                    await trio.to_thread.run_sync(_keep, self._cache, kept)
            finally:
                for diagram_id, event in events.items():
                    del self._decoding[diagram_id]
                    event.set()

    def _wanted(self, read: DiagramRead) -> bool:
        diagram_id = read.entry.diagram_id
        return (
            self._reads.get(diagram_id) is read
            and diagram_id not in self._done
            and diagram_id not in self._decoding
        )


async def _decode_elsewhere(reads: list[DiagramRead]) -> list[Diagram | StoreFileError]:
    """`reads` decoded in a worker process (here, in a thread, if none can run)."""
    import trio_parallel  # (and multiprocessing): only once there is background work

    try:
        outcomes: list[_Outcome] = await trio_parallel.run_sync(
            _decode_chunk, reads, kill_on_cancel=True
        )
    except (trio_parallel.BrokenWorkerError, OSError) as err:
        log.warning("parsing diagrams in a worker process failed (%s); parsing here", err)
        return await trio.to_thread.run_sync(decode_here, reads)
    return [_taken_back(read, outcome) for read, outcome in zip(reads, outcomes, strict=True)]


def _from_cache(
    cache: Callable[[], ParseCache | None], reads: list[DiagramRead]
) -> list[Diagram | None]:
    """Each read's Diagram if the parse cache has it (in a thread)."""
    opened = cache()
    if opened is None:
        return [None] * len(reads)
    try:
        return [opened.get(opened.key(read), read) for read in reads]
    finally:
        opened.close()


def _keep(
    cache: Callable[[], ParseCache | None], parsed: list[tuple[DiagramRead, Diagram]]
) -> None:
    """Keep the background's parses in the parse cache (in a thread)."""
    opened = cache()
    if opened is None:
        return
    try:
        for read, diagram in parsed:
            opened.put(opened.key(read), diagram.ast)
        opened.prune()
    finally:
        opened.close()
