"""Search over every selectable object of the session (tui.md §7, decision 12).

`/` is a real regex search (the `re` dialect, case-insensitive); `\\` is fuzzy (subsequence
+ Indel similarity). Both rank with the spec's scores and group results per diagram, the
active one first. An invalid or too slow pattern yields an error message, not an exception.

A user's pattern can backtrack for minutes, so a regex search runs under the user-regex
time limit of `nereid.query.regex_guard` through a pluggable `RegexMatcher`: the TUI app
runs it in a thread with `nereid.offload.dispatch.bounded_regex_matcher` (wall-clock bound,
a worker process for slow patterns), so its event loop, which also serves every agent,
never waits for it; without the app (`matcher` left alone) it runs in-process.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from nereid.errors import NereidError
from nereid.model.refs import ObjectRef
from nereid.query.regex_guard import (
    SEARCH_TIME_LIMIT,
    RegexClock,
    RegexMatcher,
    RegexTimeout,
    compile_user_regex,
    match_all,
)

__all__ = [
    "Candidate",
    "SearchResult",
    "fuzzy_score",
    "indel_ratio",
    "search",
    "substring_score",
    "too_slow",
]

BOUNDARY = "/:-_ "
MAX_PATTERN = 200


def too_slow(time_limit: float) -> str:
    """The search line's message for a pattern that ran out of time."""
    return (
        f"regex too slow: no answer within {time_limit:g} s; use a simpler pattern "
        "(fewer nested or long repeats) or \\ (fuzzy)"
    )


@dataclass(frozen=True)
class Candidate:
    ref: ObjectRef
    haystack: str


@dataclass(frozen=True)
class SearchResult:
    """Ordered matches, or an error text when the pattern is unusable."""

    refs: tuple[ObjectRef, ...]
    error: str | None = None


def substring_score(needle: str, hay: str, first: int, count: int) -> int:
    """The regular search score of tui.md §7 for a match at `first` seen `count` times."""
    score = 200_000 - 1000 * first + 200 * count - len(hay)
    if first == 0:
        score += 50_000
    if first == 0 or hay[first - 1] in BOUNDARY:
        score += 20_000
    if hay == needle:
        score += 100_000
    return score


def indel_ratio(a: str, b: str) -> float:
    """Normalised Indel similarity (what rapidfuzz.fuzz.ratio/100 computes): 2·LCS/(|a|+|b|)."""
    if not a and not b:
        return 1.0
    previous = [0] * (len(b) + 1)
    for ch in a:
        current = [0]
        for j, other in enumerate(b):
            current.append(previous[j] + 1 if ch == other else max(previous[j + 1], current[j]))
        previous = current
    return 2 * previous[-1] / (len(a) + len(b))


def fuzzy_score(needle: str, hay: str) -> int | None:
    """The fuzzy score of tui.md §7, or None when `needle` is not a subsequence of `hay`."""
    positions: list[int] = []
    start = 0
    for ch in needle:
        found = hay.find(ch, start)
        if found < 0:
            return None
        positions.append(found)
        start = found + 1
    first, last = positions[0], positions[-1]
    consec = sum(1 for i in range(1, len(positions)) if positions[i] == positions[i - 1] + 1)
    boundary = first == 0 or hay[first - 1] in BOUNDARY
    score = round(1000 * indel_ratio(needle, hay)) - (last - first + 1) - first // 4
    score += 40 * consec + (150 if boundary else 0) + (2000 if needle in hay else 500)
    return score


def search(
    candidates: Iterable[Candidate],
    query: str,
    *,
    fuzzy: bool,
    active_diagram: str | None,
    matcher: RegexMatcher = match_all,
    time_limit: float = SEARCH_TIME_LIMIT,
) -> SearchResult:
    """Rank the candidates for `query` (trimmed, lowercased); empty query → no results.

    A regex search gets `time_limit` seconds in all: `matcher` says which haystacks match
    (the slow part for a runaway pattern), then the matching ones are scored in what is
    left. Blocks for as long as that takes: call it off the event loop (see the module
    docstring)."""
    needle = query.strip().lower()
    if not needle:
        return SearchResult(())
    scored: list[tuple[int, str, ObjectRef]] = []
    if fuzzy:
        for cand in candidates:
            score = fuzzy_score(needle, cand.haystack)
            if score is not None:
                scored.append((score, cand.haystack, cand.ref))
    else:
        if len(needle) > MAX_PATTERN:
            return SearchResult((), f"pattern longer than {MAX_PATTERN} characters")
        try:
            pattern = compile_user_regex(needle, case_insensitive=True, max_length=MAX_PATTERN)
        except NereidError as err:
            return SearchResult((), f"bad regex: {err.message.removeprefix('invalid regex: ')}")
        pool = list(candidates)
        clock = RegexClock(time_limit)
        try:
            hits = matcher(pattern, [cand.haystack for cand in pool], time_limit)
            for cand, hit in zip(pool, hits, strict=True):
                if not hit:
                    continue
                found = pattern.finditer(cand.haystack, concurrent=True, timeout=clock.remaining())
                matches = [m for m in found if m.end() > m.start()]
                if not matches:
                    continue
                first = matches[0].start()
                exact = matches[0].group(0) == cand.haystack
                score = substring_score(
                    cand.haystack if exact else needle, cand.haystack, first, len(matches)
                )
                scored.append((score, cand.haystack, cand.ref))
        except (TimeoutError, RegexTimeout):
            return SearchResult((), too_slow(time_limit))
    groups: dict[str, list[tuple[int, str, ObjectRef]]] = {}
    for item in scored:
        groups.setdefault(item[2].diagram_id, []).append(item)
    for members in groups.values():
        members.sort(key=lambda item: (-item[0], item[1]))
    order = sorted(
        groups,
        key=lambda did: (did != active_diagram, -groups[did][0][0], did),
    )
    return SearchResult(tuple(item[2] for did in order for item in groups[did]))
