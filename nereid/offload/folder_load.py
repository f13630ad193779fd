"""A big session folder's diagrams parsed in worker processes, in parallel (issue 18).

Loading a folder is mostly parsing: 200 flowcharts of 500 nodes are 233 000 statements,
~25 s of one core on the loaded 2-core machine. `decode_in_workers` is a
`DiagramDecoder` (`nereid.store.session_io.load_listed`): above `PARALLEL_BYTES` of
Mermaid text it hands contiguous chunks of the reads to one spawned process per CPU.
Each diagram crosses back as msgpack bytes of the `Diagram` (decoded here in C, far
cheaper than unpickling), each failure as what `load_listed` reports: one file's
problem never stops the others. If the pool itself cannot run (no processes allowed,
a worker killed), the reads are decoded in this process instead: slower, same result.
Workers run at `WORKER_NICENESS`, so `nereid --mcp` answers its handshake first.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Final

import msgspec

from nereid.model import Diagram, FlowchartAst, SequenceAst, StateAst
from nereid.model.diagram import Ast
from nereid.model.file_problem import FileProblem
from nereid.offload import WORKER_NICENESS
from nereid.store.schema import StoreFileError, UnparsableFile
from nereid.store.session_io import DiagramRead, decode_here, decode_read

__all__ = ["PARALLEL_BYTES", "decode_in_workers"]

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


def _lower_priority() -> None:
    """A worker's initializer: parse at a lower CPU priority than the handshake's loop."""
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # pragma: no cover - not allowed here: run at the normal priority
        pass


def _decode_chunk(reads: Sequence[DiagramRead]) -> list[_Outcome]:
    """In a worker: decode each read."""
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
    size = max(1, -(-len(reads) // (workers * _CHUNKS_PER_WORKER)))
    chunks = [reads[i : i + size] for i in range(0, len(reads), size)]
    try:
        with ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_lower_priority,
        ) as pool:
            answers = list(pool.map(_decode_chunk, chunks))
    except (BrokenProcessPool, OSError) as err:
        log.warning("parsing the folder in worker processes failed (%s); parsing here", err)
        return decode_here(reads)
    outcomes = [outcome for answer in answers for outcome in answer]
    return [_taken_back(read, outcome) for read, outcome in zip(reads, outcomes, strict=True)]
