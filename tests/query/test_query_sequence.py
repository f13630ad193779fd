"""seq.messages / seq.search / seq.trace (queries.md §8–§11) and the regex guard (D4)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.errors import NereidError
from nereid.model import SeqBlock, SeqSection
from nereid.query import seq_messages, seq_search, seq_trace
from nereid.query.regex_guard import MAX_PATTERN_LENGTH
from tests.query.query_builders import flowchart, message, node_ids, scope, sequence

# queries.md §9: storage order differs from message order; tie at 2000 broken by id.
SPEC = scope(
    sequence(
        "s",
        [
            message("m:0003", "p:a", "p:b", 2000, "third"),
            message("m:0002", "p:b", "p:a", 1000, "first"),
            message("m:0001", "p:a", "p:c", 2000, "second"),
            message("m:0004", "p:c", "p:a", 3000, "fourth"),
        ],
    )
)

# mcp-tools.md example session `login`.
LOGIN = scope(
    sequence(
        "login",
        [
            message("m:0001", "p:client", "p:api", 1000, "POST /login"),
            message("m:0002", "p:api", "p:db", 2000, "select user"),
            message("m:0003", "p:db", "p:api", 3000, "row"),
            message("m:0004", "p:api", "p:client", 4000, "200 token"),
        ],
    )
)


def test_messages_in_message_order_and_filters() -> None:
    assert node_ids(seq_messages(SPEC).messages) == ["m:0002", "m:0001", "m:0003", "m:0004"]
    assert node_ids(seq_messages(SPEC, from_participant_id="p:a").messages) == [
        "m:0001",
        "m:0003",
    ]
    assert node_ids(
        seq_messages(SPEC, from_participant_id="p:a", to_participant_id="p:b").messages
    ) == ["m:0003"]
    assert seq_messages(SPEC, to_participant_id="p:nobody").messages == []
    assert seq_messages(LOGIN, from_participant_id="p:api").messages == [
        "d:login/seq/message/m:0002",
        "d:login/seq/message/m:0004",
    ]
    with pytest.raises(NereidError) as info:
        seq_messages(SPEC, from_participant_id="")
    assert (info.value.message, info.value.data) == (
        "invalid from_participant_id: id must not be empty",
        {"from_participant_id": ""},
    )
    with pytest.raises(NereidError) as info:
        seq_messages(scope(flowchart("g", [("a", "b")])))
    assert (info.value.message, info.value.data) == (
        "diagram is not a sequence diagram",
        {"diagram_id": "g", "diagram_kind": "Flowchart"},
    )


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"from_message_id": "m:0001", "limit": 10}, ["m:0003", "m:0004"]),
        ({"from_message_id": "m:0003", "direction": "before", "limit": 2}, ["m:0002", "m:0001"]),
        ({"limit": 2}, ["m:0002", "m:0001"]),
        ({"direction": "before", "limit": 2}, ["m:0003", "m:0004"]),
        ({"from_message_id": "m:0002", "direction": "before"}, []),
        ({"from_message_id": "m:0004"}, []),
        ({"limit": 0}, []),
        ({"direction": "before", "limit": 0}, []),
        ({}, ["m:0002", "m:0001", "m:0003", "m:0004"]),
    ],
)
def test_trace_spec_examples(kwargs: dict, expected: list[str]) -> None:
    assert node_ids(seq_trace(SPEC, **kwargs).messages) == expected


def test_trace_errors() -> None:
    with pytest.raises(NereidError) as info:
        seq_trace(SPEC, direction="", from_message_id="")
    assert info.value.message == "invalid direction (expected before|after)"
    with pytest.raises(NereidError) as info:
        seq_trace(SPEC, from_message_id="a/b")
    assert (info.value.message, info.value.data) == (
        "invalid object id: id must not contain '/'",
        {"object_id": "a/b"},
    )
    with pytest.raises(NereidError) as info:
        seq_trace(SPEC, from_message_id="m:9", limit=0)
    assert (info.value.category, info.value.message, info.value.data) == (
        "not_found",
        "seq message not found",
        {"diagram_id": "s", "from_message_id": "m:9"},
    )


def test_trace_walks_through_blocks_of_every_kind() -> None:
    kinds = ["alt", "opt", "loop", "par", "critical", "break", "rect"]
    messages = [message(f"m:{i:04d}", "p:a", "p:b", 1000 * (i + 1)) for i in range(len(kinds))]
    blocks = tuple(
        SeqBlock(
            block_id=f"b:{i:04d}",
            kind=kind,
            sections=(
                SeqSection(section_id=f"sec:{i:04d}:00", kind="main", message_ids=(f"m:{i:04d}",)),
            ),
        )
        for i, kind in enumerate(kinds)
    )
    diagram = scope(sequence("s", messages, blocks=blocks))
    assert node_ids(seq_trace(diagram, from_message_id="m:0000").messages) == [
        f"m:{i:04d}" for i in range(1, len(kinds))
    ]


def test_search_substring_and_regex() -> None:
    assert seq_search(LOGIN, needle="TOKEN").messages == ["d:login/seq/message/m:0004"]
    assert seq_search(LOGIN, needle="TOKEN", case_insensitive=False).messages == []
    assert node_ids(seq_search(LOGIN, needle="^(post|select)", mode="regex").messages) == [
        "m:0001",
        "m:0002",
    ]
    strict = seq_search(LOGIN, needle="^(post|select)", mode="regex", case_insensitive=False)
    assert node_ids(strict.messages) == ["m:0002"]
    assert node_ids(seq_search(LOGIN, needle=r"\d+", mode="regex").messages) == ["m:0004"]
    # Only message text is searched, never participant names.
    assert seq_search(LOGIN, needle="client").messages == []


def test_search_errors_in_order() -> None:
    with pytest.raises(NereidError) as info:
        seq_search(LOGIN, needle="", mode="bogus")
    assert (info.value.message, info.value.data) == ("needle must not be empty", {"needle": ""})
    with pytest.raises(NereidError) as info:
        seq_search(LOGIN, needle="x", mode="")
    assert info.value.message == "invalid mode (expected substring|regex)"
    with pytest.raises(NereidError) as info:
        seq_search(LOGIN, needle="(unclosed", mode="regex")
    assert info.value.category == "invalid_params"
    assert info.value.message.startswith("invalid regex:")
    assert info.value.data == {"needle": "(unclosed", "mode": "regex", "case_insensitive": True}


def _refusal(needle: str, diagram=LOGIN, time_limit: float = 0.05) -> NereidError:
    with pytest.raises(NereidError) as info:
        seq_search(diagram, needle=needle, mode="regex", time_limit=time_limit)
    assert info.value.category == "invalid_params"
    return info.value


def test_fixed_count_repeat_is_stopped_by_the_time_limit() -> None:
    # The pattern the old static guard let through: `re` ran it for over a minute.
    hostile = scope(sequence("s", [message("m:1", "p:a", "p:b", 1000, "a" * 300_000)]))
    started = time.monotonic()
    refused = _refusal("a{150000}b", hostile, time_limit=0.05)
    assert time.monotonic() - started < 2.0
    assert refused.message.startswith("regex too expensive: matching took longer than 0.05 s")
    assert refused.data == {
        "needle": "a{150000}b",
        "mode": "regex",
        "case_insensitive": True,
        "time_limit_s": 0.05,
    }
    # The same question in substring mode is linear and answered.
    assert seq_search(hostile, needle="aaab").messages == []


def test_time_limit_is_shared_by_all_messages() -> None:
    # Each message alone fits in the limit; together they do not.
    many = scope(
        sequence(
            "s",
            [message(f"m:{i}", "p:a", "p:b", i, "a" * 20_000) for i in range(1, 400)],
        )
    )
    assert _refusal("(?:a|aa){1,2000}b", many, time_limit=0.05).message.startswith(
        "regex too expensive"
    )


@pytest.mark.parametrize("needle", [r"(a+)+$", r"(a*)*b", r"(a|aa)+$", r"(x+x+)+y", r"(a)\1"])
def test_classic_redos_patterns_are_answered_within_the_limit(needle: str) -> None:
    # The `regex` engine answers these quickly; were one slow, the limit would stop it.
    hostile = scope(sequence("s", [message("m:1", "p:a", "p:b", 1000, "a" * 5000 + "!")]))
    try:
        seq_search(hostile, needle=needle, mode="regex", time_limit=0.5)
    except NereidError as err:
        assert err.message.startswith("regex too expensive")


def test_long_patterns_are_refused_before_compiling() -> None:
    with pytest.raises(NereidError) as info:
        seq_search(LOGIN, needle="a" * (MAX_PATTERN_LENGTH + 1), mode="regex")
    assert info.value.message == "needle too long"


def test_backreferences_follow_re_semantics() -> None:
    echo = scope(sequence("s", [message("m:1", "p:a", "p:b", 1000, "abab")]))
    assert seq_search(echo, needle=r"(ab)\1", mode="regex").messages == ["d:s/seq/message/m:1"]


@pytest.mark.parametrize(
    "needle",
    [r"(\d{3}-)+\d{4}", r"(a|b)+", r"[a-z]+ user", r"^POST /\w+$", r"(?:GET|POST) /login"],
)
def test_regex_guard_allows_ordinary_patterns(needle: str) -> None:
    seq_search(LOGIN, needle=needle, mode="regex")


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="ab(|)*+?.\\", max_size=12))
def test_any_pattern_is_compiled_refused_or_answered(needle: str) -> None:
    """Whatever the pattern: an answer or an invalid_params refusal, never anything else."""
    text = scope(sequence("s", [message("m:1", "p:a", "p:b", 1000, "ab" * 20 + "!")]))
    if not needle:
        return
    try:
        seq_search(text, needle=needle, mode="regex")
    except NereidError as err:
        assert err.category == "invalid_params"
