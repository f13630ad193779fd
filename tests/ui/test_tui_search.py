"""Regex and fuzzy search ranking (tui.md §7, decision 12)."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.model.refs import parse_ref
from nereid.ui.search import (
    Candidate,
    SearchResult,
    fuzzy_score,
    indel_ratio,
    search,
    too_slow,
)


def cand(text: str, label: str) -> Candidate:
    ref = parse_ref(text)
    return Candidate(ref, f"{ref} {label}".lower())


CANDIDATES = [
    cand("d:a/flow/node/n:cart", "node n:cart (Cart)"),
    cand("d:a/flow/node/n:checkout", "node n:checkout (Checkout)"),
    cand("d:b/flow/node/n:carrier", "node n:carrier (Hand to carrier)"),
]


def test_regex_search_is_a_real_regex_and_groups_the_active_diagram_first() -> None:
    result = search(CANDIDATES, "car(t|rier)", fuzzy=False, active_diagram="b")
    assert [str(r) for r in result.refs] == ["d:b/flow/node/n:carrier", "d:a/flow/node/n:cart"]
    assert search(CANDIDATES, "CHECK", fuzzy=False, active_diagram="a").refs[0].object_id == (
        "n:checkout"
    )


def test_bad_regex_is_an_error_message_not_an_exception() -> None:
    result = search(CANDIDATES, "car(", fuzzy=False, active_diagram=None)
    assert result.refs == ()
    assert result.error is not None and result.error.startswith("bad regex")


def test_fuzzy_matches_subsequences_only() -> None:
    assert fuzzy_score("ckt", "checkout") is not None
    assert fuzzy_score("tkc", "checkout") is None
    refs = search(CANDIDATES, "chkout", fuzzy=True, active_diagram="a").refs
    assert [r.object_id for r in refs] == ["n:checkout"]


def test_empty_query_has_no_results() -> None:
    assert search(CANDIDATES, "   ", fuzzy=True, active_diagram=None).refs == ()


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="abc", max_size=8), st.text(alphabet="abc", max_size=8))
def test_indel_ratio_is_symmetric_and_bounded(a: str, b: str) -> None:
    ratio = indel_ratio(a, b)
    assert 0.0 <= ratio <= 1.0
    assert ratio == indel_ratio(b, a)
    assert (ratio == 1.0) == (a == b)


def test_a_runaway_pattern_ends_with_a_message_within_its_time_limit() -> None:
    hostile = [cand("d:s/seq/message/m:1", "message m:1 p:a→p:b: " + "a" * 300_000)]
    started = time.monotonic()
    result = search(hostile, "a{150000}b", fuzzy=False, active_diagram=None, time_limit=0.05)
    assert time.monotonic() - started < 2.0
    assert result == SearchResult((), too_slow(0.05))
    assert result.error is not None and result.error.startswith(
        "regex too slow: no answer within 0.05 s; use a simpler pattern"
    )
