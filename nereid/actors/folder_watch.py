"""The folder watcher (spec decision 20, architecture §8): the person's own edits come in.

`watch_diagrams(handle, root, files)` follows `diagrams/*.mmd` with `watchfiles` (on
anyio, so it runs in the trio loop). A file that changed (in place, or by rename as vim
and git save) and whose bytes are not something Nereid wrote there (`RecordingFiles`
hashes every write) becomes a `ReplaceFromMermaid` to that diagram's actor: the import
is reconciled against the current AST (side-car matching, ids kept), committed as a new
revision and announced like any change (TUI repaint, `resources/updated`, `diagram.diff`).
A text that does not parse changes nothing: the diagram keeps its last good state and
the problem is logged with the file, line and column.

The mailbox orders these imports with every other client's requests.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Final

import trio

from nereid.actors import protocol as p
from nereid.actors.diagram import diagram_actor_name
from nereid.actors.tree import SessionHandle
from nereid.errors import NereidError
from nereid.store.naming import DIAGRAMS_DIR, StorePathError, decode_stem, diagram_paths
from nereid.store.recording import RecordingFiles

__all__ = ["watch_diagrams"]

_log = logging.getLogger(__name__)

#: Milliseconds watchfiles gathers a burst of events (an editor's write + rename) into one.
_DEBOUNCE_MS: Final = 30
_SUFFIX: Final = ".mmd"


def _diagram_id(path: Path, directory: Path) -> str | None:
    """The diagram id a changed path is the `.mmd` of, or None for anything else."""
    if path.parent != directory or not path.name.endswith(_SUFFIX):
        return None
    stem = path.name[: -len(_SUFFIX)]
    decoded = decode_stem(stem)
    diagram_id = decoded if decoded is not None else stem
    try:
        return diagram_id if diagram_paths(diagram_id)[0] == f"{DIAGRAMS_DIR}/{path.name}" else None
    except StorePathError:
        return None


async def _import(handle: SessionHandle, files: RecordingFiles, diagram_id: str) -> None:
    relative = diagram_paths(diagram_id)[0]
    try:
        data = await trio.to_thread.run_sync(files.read, relative)
    except OSError:
        return  # gone again (a rename in progress) or not a regular file: nothing to import
    if files.is_own(relative, data):
        return
    actor = handle.registry.get(diagram_actor_name(diagram_id))
    if actor is None:
        return
    try:
        text = data.decode("utf-8")
        reply = await actor.call(p.ReplaceFromMermaid(mermaid=text))
    except UnicodeDecodeError as err:
        _log.warning("%s: not UTF-8 (%s); the diagram keeps its last good state", relative, err)
        return
    except NereidError as err:
        where = ""
        if err.data and "line" in err.data:
            where = f" (line {err.data['line']}, column {err.data.get('column', '?')})"
        _log.warning(
            "%s does not parse: %s%s; the diagram keeps its last good state",
            relative,
            err.message,
            where,
        )
        return
    files.remember(relative, data, imported=True)
    if reply.changed:
        _log.info("%s edited outside nereid: imported as rev %d", relative, reply.new_rev)


async def watch_diagrams(
    handle: SessionHandle,
    root: Path,
    files: RecordingFiles,
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Import external edits of the folder's diagram files until cancelled."""
    import watchfiles  # imported here: its start-up cost is paid only by folder sessions

    directory = root / DIAGRAMS_DIR
    await trio.Path(directory).mkdir(parents=True, exist_ok=True)
    directory = Path(await trio.Path(directory).resolve())
    started = False
    async for changes in watchfiles.awatch(
        directory,
        debounce=_DEBOUNCE_MS,
        step=10,
        recursive=False,
        yield_on_timeout=True,
        rust_timeout=200,
    ):
        if not started:
            started = True
            task_status.started()
        ids = sorted(
            {
                d_id
                for change, raw in changes
                if change != watchfiles.Change.deleted
                and (d_id := _diagram_id(Path(raw), directory)) is not None
            }
        )
        for diagram_id in ids:
            await _import(handle, files, diagram_id)
