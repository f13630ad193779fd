"""The view's small state types: focus, and the search and hint input modes.

`InputModes` holds the one search and the one hint mode that may be active; `SearchMode` and
`HintMode` change only through their own methods (the key dispatch calls them). A regex
search runs off the event loop when the app listens (`InputModes.listen`): the mode waits
for the answer to its newest query (`pending`), and answers to older queries are dropped.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field

from nereid.model.refs import ObjectRef
from nereid.ui.hints import HintTarget
from nereid.ui.search import Candidate, SearchResult

__all__ = [
    "CAMERA_MARGIN",
    "FOLLOW_PAUSE",
    "PANE_ORDER",
    "Focus",
    "HintMode",
    "InputModes",
    "SearchJob",
    "SearchMode",
]

#: Cells kept between an object brought into view and the pane edge (tui.md §16.4).
CAMERA_MARGIN = 2
#: Seconds follow-AI waits after the person navigates (tui.md §16.6).
FOLLOW_PAUSE = 3.0


class Focus(enum.Enum):
    DIAGRAM = "diagram"
    OBJECTS = "objects"
    XREFS = "xrefs"
    INSPECTOR = "inspector"


PANE_ORDER = (Focus.DIAGRAM, Focus.OBJECTS, Focus.XREFS, Focus.INSPECTOR)


@dataclass
class SearchMode:
    """A `/` or `\\` search: the query being typed (or kept), its results and the one shown."""

    fuzzy: bool
    query: str = ""
    editing: bool = True
    results: tuple[ObjectRef, ...] = ()
    index: int = 0
    error: str | None = None
    candidates: list[Candidate] = field(default_factory=list)
    awaiting: int | None = None  # the search job whose answer the query waits for

    @property
    def pending(self) -> bool:
        """The answer to the query is being worked out off the loop."""
        return self.awaiting is not None

    def edit(self, key: str) -> bool:
        """Apply one key to the query (a printable character or backspace); whether it
        changed the query."""
        if key == "backspace":
            self.query = self.query[:-1]
        elif len(key) == 1 and key.isprintable():
            self.query += key
        else:
            return False
        return True

    def found(self, result: SearchResult) -> ObjectRef | None:
        """Take the ranked results of the query; the first one (jumped to), if any."""
        self.results, self.error, self.index = result.refs, result.error, 0
        self.awaiting = None
        return self.results[0] if self.results else None

    def wait_for(self, job: int) -> None:
        """The query's answer will come from search job `job`."""
        self.awaiting = job

    def accept(self) -> bool:
        """`Enter`: keep the results for `n`/`N` (True), or end the search (False) when
        there are fewer than two to cycle through (and none is on its way)."""
        if self.pending or len(self.results) > 1:
            self.editing = False
            return True
        return False

    def step(self, delta: int) -> ObjectRef | None:
        """Move to the next (`delta` 1) or previous (-1) result, wrapping; None without
        two results to cycle through."""
        if len(self.results) < 2:
            return None
        self.index = (self.index + delta) % len(self.results)
        return self.results[self.index]


@dataclass(frozen=True)
class SearchJob:
    """A regex search for the app to run off the loop (`InputModes.searched` takes the
    answer)."""

    job: int
    candidates: tuple[Candidate, ...]
    query: str
    active_diagram: str | None


@dataclass
class HintMode:
    """Hint tags on the diagram (`f` jump, `c` chain) and the first letter typed, if any."""

    chain: bool
    targets: list[HintTarget]
    first: str | None = None
    previous_pick: ObjectRef | None = None

    def type_first(self, letter: str) -> bool:
        """Take the first letter of a tag; whether any tag starts with it."""
        if any(t.label[0] == letter for t in self.targets):
            self.first = letter
            return True
        return False


class InputModes:
    """The search and the hint mode that may be active (at most one of each)."""

    def __init__(self) -> None:
        self._search: SearchMode | None = None
        self._hint: HintMode | None = None
        self._jobs = 0  # search jobs numbered so far
        self._wanted: SearchJob | None = None  # the newest search to run off the loop
        # The app's hook: a search is wanted off the loop (None: search in-process).
        self._listener: Callable[[], None] | None = None

    @property
    def search(self) -> SearchMode | None:
        return self._search

    @property
    def hint(self) -> HintMode | None:
        return self._hint

    def start_search(self, *, fuzzy: bool, candidates: list[Candidate]) -> SearchMode:
        """Start a search (it cancels hint mode, tui.md §16.7)."""
        self._hint = None
        self._wanted = None
        self._search = SearchMode(fuzzy=fuzzy, candidates=candidates)
        return self._search

    def close_search(self) -> None:
        self._search = None
        self._wanted = None

    def listen(self, callback: Callable[[], None] | None) -> None:
        """Run regex searches off the loop: `callback` is called when one is wanted
        (None: the key dispatch searches in-process)."""
        self._listener = callback

    def search_off_loop(self, active_diagram: str | None) -> bool:
        """Ask the app to run the active regex search's query off the loop; False when
        it is to be searched in-process (no app listening, or fuzzy search)."""
        mode = self._search
        if mode is None or mode.fuzzy or self._listener is None:
            return False
        self._jobs += 1
        mode.wait_for(self._jobs)
        self._wanted = SearchJob(self._jobs, tuple(mode.candidates), mode.query, active_diagram)
        self._listener()
        return True

    def take_search(self) -> SearchJob | None:
        """The newest wanted search, for the app to run (None: none)."""
        job, self._wanted = self._wanted, None
        return job

    def searched(self, job: SearchJob, result: SearchResult) -> bool:
        """Take the answer to `job`; False when it is for a query no longer shown (then it
        is dropped)."""
        mode = self._search
        if mode is None or mode.awaiting != job.job:
            return False
        mode.found(result)
        return True

    def start_hints(self, mode: HintMode) -> None:
        self._hint = mode

    def cancel_hints(self) -> None:
        self._hint = None
