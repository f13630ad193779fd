"""Session folders on disk (shared/spec/session-folder.md): format, loading, saving, demo data.

Modules, pure first (the file names of ids and the path-safety rules are
`nereid.model.file_names`: pure, and the actors need them too):

- `schema`: msgspec Structs of the JSON files and their exact text format.
- `contents`: session meta / walkthrough records ⇄ model values.
- `diagram_files`: a diagram ⇄ its `.mmd` text and side-car (parse, stable-id matching, rev).
- `files`: the only module that touches the disk — the `SessionFiles` seam with the real
  `FolderFiles` (atomic, optionally durable writes; never reads or writes through a
  symlink inside the folder) and the in-memory `MemoryFiles`.
- `faults`: the fault-injection seam both take (ENOSPC, EROFS, EIO, slow fsync...).
- `session_io`: the load and save algorithms, run over a `SessionFiles` (blocking).
- `demo`: the demo session shipped in `nereid/demo/session/`.

The `PersisterActor` (`nereid/actors/persister.py`) drives `session_io` and is the only
writer of a folder at run time.

Where we go beyond the reference format (all compatible with it):

- Side-car keys `rev`, `mmd_sha256`, `flow_subgraph_ids`, `sequence_notes`,
  `sequence_activations`, `sequence_order_keys`, `sequence_block_ids` (optional; see
  `schema`). Everything else Nereid models (subgraphs, classes, styles, aliases, notes,
  blocks, activations...) is in the `.mmd` text. `sequence_order_keys` (timeline id →
  `order_key`) and `sequence_block_ids` (`[block_id, section_id...]` per block, document
  order) are written only when they differ from what a parse of the text gives (positional
  numbers), and applied on load only when they still fit the text (`diagram_files`).
- A saved and reloaded diagram equals the one in memory exactly — ids, order keys, notes,
  styles, block and section ids (`tests/store/test_store_roundtrip.py`); flowchart ops keep
  derived Mermaid ids explicit for this (docs/ops.md).
- A loaded diagram's rev is never lower than the meta's, and never names other content
  than what was loaded (see `diagram_files`): actors can trust it for `base_rev` checks.
- Broken or missing diagram/walkthrough files do not fail the whole load: they are reported
  per file (`LoadResult.issues`) and left untouched by later saves (`Kept`).
- Deleting a diagram deletes its files (spec decision 14); the demo leaves nothing behind.
- Saving is per item (`SaveReport.failed` / `on_disk`): a diagram or walkthrough that
  cannot be saved (invalid id, export error, a link or directory in its place, any OSError
  or other exception) is reported and skipped; the others and the meta are still
  written, and the meta keeps listing what is on disk for the failed one.
- A meta whose entries share a file is refused; deletes never remove a file that another
  entry (or the meta) owns.
- Known limit: ids that differ only by letter case (or Unicode normalisation) get distinct
  file names, which collide on case-insensitive file systems (the reference encoding does
  not cover this either).
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nereid.model.file_names import StorePathError, check_storable_id
    from nereid.store.demo import demo_folder, load_demo_session
    from nereid.store.files import FolderFiles, MemoryFiles, SessionFiles, SymlinkRefused
    from nereid.store.schema import StoreFileError
    from nereid.store.session_io import (
        Kept,
        LoadIssue,
        LoadResult,
        SaveReport,
        SessionNotFound,
        load_session,
        save_session,
    )

__all__ = [
    "FolderFiles",
    "Kept",
    "LoadIssue",
    "LoadResult",
    "MemoryFiles",
    "SaveReport",
    "SessionFiles",
    "SessionNotFound",
    "StoreFileError",
    "StorePathError",
    "SymlinkRefused",
    "check_storable_id",
    "demo_folder",
    "load_demo_session",
    "load_session",
    "save_session",
]

_HOMES = {
    "StorePathError": "nereid.model.file_names",
    "check_storable_id": "nereid.model.file_names",
    "demo_folder": "nereid.store.demo",
    "load_demo_session": "nereid.store.demo",
    "FolderFiles": "nereid.store.files",
    "MemoryFiles": "nereid.store.files",
    "SessionFiles": "nereid.store.files",
    "SymlinkRefused": "nereid.store.files",
    "StoreFileError": "nereid.store.schema",
}
"""Where each name lives; the rest are `nereid.store.session_io`'s."""


def __getattr__(name: str) -> Any:
    """The package's names, imported on first use: `nereid --mcp` uses a few light store
    modules (files, the parse cache) before the handshake, and must not wait for the load
    path's (the Mermaid layer) meanwhile."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES.get(name, "nereid.store.session_io")), name)
    globals()[name] = value
    return value
