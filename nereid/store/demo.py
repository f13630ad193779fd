"""The built-in demo session (session-folder.md §13, spec decision 14).

The demo is package data (`nereid/demo/session/`, found with `importlib.resources`, so it
works from a wheel or a zip too) and is only ever read. `--demo` works on a copy:

- `load_demo_session()`: the session in memory; nothing touches the disk.
- `demo_folder()`: a context manager that saves the demo into a fresh temporary folder,
  yields its path, and removes the folder on exit, so a demo run leaves nothing behind.

If the shipped files fail to load (a packaging bug), the small fallback session of §13 is
used instead and the problems are logged.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from nereid.model import (
    Diagram,
    FlowchartAst,
    FlowEdge,
    FlowNode,
    SeqMessage,
    SeqParticipant,
    SequenceAst,
    Session,
    XRef,
    parse_ref,
)
from nereid.store.files import FolderFiles, MemoryFiles
from nereid.store.parse_cache import ParseCache, cached_decoder
from nereid.store.session_io import LoadResult, decode_here, load_session, save_session

__all__ = ["demo_files", "demo_folder", "fallback_demo_session", "load_demo_session"]

_log = logging.getLogger(__name__)


def _collect(node: Traversable, prefix: str, into: dict[str, bytes]) -> None:
    for child in node.iterdir():
        path = f"{prefix}{child.name}"
        if child.is_dir():
            _collect(child, path + "/", into)
        elif child.is_file():
            into[path] = child.read_bytes()


def demo_files() -> MemoryFiles:
    """A fresh in-memory copy of the shipped demo folder."""
    files: dict[str, bytes] = {}
    _collect(resources.files("nereid.demo").joinpath("session"), "", files)
    return MemoryFiles(files)


def load_demo_result() -> LoadResult:
    """Load the shipped demo folder from memory (issues included, nothing written); its
    parses come from the parse cache when they can (start-up of `nereid --demo --mcp`)."""
    return load_session(demo_files(), cached_decoder(ParseCache.from_env(), decode_here))


def load_demo_session() -> Session:
    """The demo session, in memory. Falls back to `fallback_demo_session()` if it cannot load."""
    try:
        result = load_demo_result()
    except Exception:  # a broken package must not stop the demo; the fallback is the answer
        _log.exception("the shipped demo session does not load; using the built-in fallback")
        return fallback_demo_session()
    if result.issues:
        for issue in result.issues:
            _log.error("demo session: %s", issue)
        return fallback_demo_session()
    return result.session


@contextmanager
def demo_folder(*, durable: bool = False) -> Iterator[Path]:
    """Save the demo into a new temporary folder; yield its path; remove it on exit.

    The folder is `nereid-demo-session-<pid>-<unix ms>` in the system temp directory.
    Blocking (disk I/O); removal also runs when the block raises or is cancelled.
    """
    parent = Path(tempfile.gettempdir())
    folder = Path(
        tempfile.mkdtemp(
            prefix=f"nereid-demo-session-{os.getpid()}-{time.time_ns() // 1_000_000}-",
            dir=parent,
        )
    )
    try:
        save_session(FolderFiles(folder, durable=durable), load_demo_session())
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def fallback_demo_session() -> Session:
    """The small built-in session of session-folder.md §13, for when the demo cannot load."""
    sequence = SequenceAst(
        participants={
            "p:alice": SeqParticipant(mermaid_name="Alice"),
            "p:bob": SeqParticipant(mermaid_name="Bob"),
        },
        messages=(
            SeqMessage(
                message_id="m:0001",
                from_participant_id="p:alice",
                to_participant_id="p:bob",
                kind="sync",
                text="Hello",
                order_key=1000,
            ),
        ),
    )
    flow = FlowchartAst(
        nodes={f"n:{x}": FlowNode(label=x.upper(), mermaid_id=x) for x in "abcd"},
        edges={
            f"e:{a}{b}": FlowEdge(from_node_id=f"n:{a}", to_node_id=f"n:{b}")
            for a, b in ("ab", "ac", "bd", "cd")
        },
    )
    return Session(
        session_id="s:demo",
        diagrams={
            "demo-seq": Diagram(
                diagram_id="demo-seq", name="demo-seq", kind="sequence", ast=sequence
            ),
            "demo-flow": Diagram(
                diagram_id="demo-flow", name="demo-flow", kind="flowchart", ast=flow
            ),
        },
        xrefs={
            "x:1": XRef(
                from_ref=parse_ref("d:demo-flow/flow/node/n:a"),
                to_ref=parse_ref("d:demo-flow/flow/edge/e:ab"),
                kind="uses",
            ),
            "x:2": XRef(
                from_ref=parse_ref("d:demo-flow/flow/node/n:b"),
                to_ref=parse_ref("d:demo-flow/flow/edge/e:missing"),
                kind="uses",
            ),
        },
    )
