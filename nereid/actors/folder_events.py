"""`FolderEvents`: the watch of a session folder's files, begun before its session runs.

`watch_folder` (`nereid.actors.folder_watch`) takes the person's edits in; the watch it
reads is begun here, apart from it, so that `nereid --mcp DIR` can begin it while the
folder is being listed: the edits made from then on are kept until the session runs and
takes them, and the session's first reply does not wait for the watch's first round.
Light on purpose (no actor or Mermaid module): it runs before the handshake is answered.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from pathlib import Path
from typing import TYPE_CHECKING, Final, final

import trio

from nereid.model.file_names import DIAGRAMS_DIR, WALKTHROUGHS_DIR

if TYPE_CHECKING:
    from watchfiles.main import FileChange

__all__ = ["FolderEvents"]

#: Milliseconds watchfiles gathers a burst of events (an editor's write + rename) into one.
_DEBOUNCE_MS: Final = 30
#: Milliseconds of quiet after which a round comes anyway (retries are due; the first round
#: says the watch runs).
IDLE_MS: Final = 50

Changes = set["FileChange"]
"""A round of watchfiles' changes: (change kind, absolute path); empty when it was quiet."""


@final
class FolderEvents:
    """The changes under a session folder (its `diagrams/`, `walkthroughs/` and meta),
    from `begin` on. `begin` once (a task), then iterate it once, in `aclosing` (which
    ends the watch)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root
        self._begun = trio.Event()
        self._watch: AsyncGenerator[Changes, None] | None = None
        self._first: Changes | None = set()
        self._failed: Exception | None = None

    @property
    def diagrams(self) -> Path:
        return self.folder / DIAGRAMS_DIR

    @property
    def walkthroughs(self) -> Path:
        return self.folder / WALKTHROUGHS_DIR

    async def begin(self) -> None:
        """Resolve the folder, make its two directories, and watch them until the first
        round has come (from then on no change is missed); `aclose` ends the watch. What
        fails is raised by `begun` (the session's opening fails, as it would have)."""
        try:
            await self._begin()
        except Exception as error:
            self._failed = error
        self._begun.set()

    async def _begin(self) -> None:
        import watchfiles  # its start-up cost is paid only by folder sessions

        self.folder = Path(await trio.Path(self.root).resolve())
        for directory in (self.diagrams, self.walkthroughs):
            await trio.Path(directory).mkdir(parents=True, exist_ok=True)
        watch = watchfiles.awatch(
            self.folder,
            self.diagrams,
            self.walkthroughs,
            debounce=_DEBOUNCE_MS,
            step=10,
            recursive=False,
            yield_on_timeout=True,
            rust_timeout=IDLE_MS,
        )
        try:
            self._first = await anext(watch)
        except BaseException:
            await watch.aclose()
            raise
        self._watch = watch

    async def begun(self) -> None:
        """Return once `begin` has: the watch runs (else raise why it does not)."""
        await self._begun.wait()
        if self._failed is not None:
            raise self._failed

    def __aiter__(self) -> FolderEvents:
        return self

    async def __anext__(self) -> Changes:
        """The next round of changes (the first: those since `begin`; waits for it)."""
        await self.begun()
        assert self._watch is not None
        if self._first is not None:
            first, self._first = self._first, None
            return first
        return await anext(self._watch)

    async def aclose(self) -> None:
        """End the watch (or one nobody will read: the session did not open)."""
        if self._watch is not None:
            await self._watch.aclose()
