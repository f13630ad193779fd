"""User regexes (`seq.search`, the TUI's `/`) run under a real time limit (decision 15, D4).

Python's `re` backtracks without bound and holds the GIL while it does, so no static check
catches every runaway pattern (`a{150000}b` on a 300 KB message ran for 74 s) and a thread
does not help. User patterns are therefore compiled with the `regex` engine (its VERSION0
dialect is `re`'s) and searched with its `timeout=`: one search over all texts gets
`time_limit` seconds in total, after which it stops with "regex too expensive". Searches
run `concurrent=True`, so matching releases the GIL and a search run in a worker thread
leaves the event loop free.

The engine's limit counts CPU time, not wall time: on a loaded machine a search given 1 s
ran for 1.5-7 s. A `RegexMatcher` is therefore pluggable: `match_all` (here, in-process)
is the plain one, and the MCP layer passes one that bounds the wall time too
(`nereid.offload.dispatch.bounded_regex_matcher`: a short in-process try, then a worker
process killed at the deadline).

The cheap refusals stay in front: a needle over MAX_PATTERN_LENGTH characters is refused
("needle too long") and a pattern that does not compile gets "invalid regex: …", both as
`invalid_params` before anything runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Final, TypeAlias

import regex

from nereid.errors import NereidError
from nereid.query.errors import invalid_params

__all__ = [
    "MAX_PATTERN_LENGTH",
    "SEARCH_TIME_LIMIT",
    "Pattern",
    "RegexClock",
    "RegexMatcher",
    "RegexTimeout",
    "compile_user_regex",
    "match_all",
    "search_each",
    "too_expensive",
]

MAX_PATTERN_LENGTH: Final = 1000
#: Seconds one search may spend matching, summed over all the texts it looks at.
SEARCH_TIME_LIMIT: Final = 1.0

Pattern: TypeAlias = regex.Pattern[str]

RegexMatcher: TypeAlias = Callable[[Pattern, Sequence[str], float], list[bool]]
"""`(pattern, texts, time_limit) -> whether each text has a match`; raises RegexTimeout
once `time_limit` seconds are spent on all of them."""


class RegexTimeout(Exception):
    """A search ran out of its time limit; `seconds` is the limit it had."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"regex search exceeded its {seconds:g} s time limit")
        self.seconds = seconds


def compile_user_regex(
    needle: str, *, case_insensitive: bool, max_length: int = MAX_PATTERN_LENGTH
) -> Pattern:
    """Compile a user's pattern, or raise the spec's `invalid_params` refusal."""
    if len(needle) > max_length:
        raise invalid_params(
            "needle too long", {"needle_length": len(needle), "max_length": max_length}
        )
    flags = regex.VERSION0 | (regex.IGNORECASE if case_insensitive else 0)
    try:
        return regex.compile(needle, flags)
    except (regex.error, OverflowError, RecursionError, ValueError) as err:
        raise invalid_params(f"invalid regex: {err}", _data(needle, case_insensitive)) from None


class RegexClock:
    """The time left of one search's `time_limit`, shared by all the texts it looks at."""

    def __init__(self, time_limit: float = SEARCH_TIME_LIMIT) -> None:
        self.time_limit = time_limit
        self._deadline = time.monotonic() + time_limit

    def remaining(self) -> float:
        """Seconds left for the next match call; raises RegexTimeout when none are."""
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise RegexTimeout(self.time_limit)
        return left


def search_each(
    pattern: Pattern, texts: Iterable[str], *, time_limit: float = SEARCH_TIME_LIMIT
) -> Iterator[regex.Match[str] | None]:
    """`pattern.search(text)` for each text in turn, all within `time_limit` seconds.

    Raises RegexTimeout as soon as the total is spent (possibly in the middle of a text).
    """
    clock = RegexClock(time_limit)
    for text in texts:
        try:
            yield pattern.search(text, concurrent=True, timeout=clock.remaining())
        except TimeoutError:
            raise RegexTimeout(time_limit) from None


def match_all(pattern: Pattern, texts: Sequence[str], time_limit: float) -> list[bool]:
    """The in-process `RegexMatcher` (the engine's CPU-time limit only)."""
    return [found is not None for found in search_each(pattern, texts, time_limit=time_limit)]


def too_expensive(needle: str, case_insensitive: bool, timeout: RegexTimeout) -> NereidError:
    """The `invalid_params` refusal for a search that ran out of time."""
    return invalid_params(
        f"regex too expensive: matching took longer than {timeout.seconds:g} s; "
        "use a simpler pattern (fewer nested or long repeats) or substring mode",
        {**_data(needle, case_insensitive), "time_limit_s": timeout.seconds},
    )


def _data(needle: str, case_insensitive: bool) -> dict[str, Any]:
    return {"needle": needle, "mode": "regex", "case_insensitive": case_insensitive}
