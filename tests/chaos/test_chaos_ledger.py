"""The checkers themselves: they must catch what they are meant to catch."""

from __future__ import annotations

from typing import Any

from nereid.testing.bad_input import Probe, judge
from nereid.testing.ledger import Ledger
from nereid.testing.schema_inputs import accepts
from nereid.testing.workspace import Broken, Refused, Retryable, Stale, classify_rpc_error


def test_a_rev_acknowledged_twice_is_a_lost_update() -> None:
    ledger = Ledger()
    ledger.note_ack("d:a", 0, 1, "n:x", "a1")
    ledger.note_ack("d:a", 0, 1, "n:y", "a2")
    assert ledger.violations == [
        "d:a: rev 1 acknowledged twice (a1 added n:x, a2 added n:y): a lost update"
    ]


def test_an_ack_that_skips_revs_is_reported() -> None:
    ledger = Ledger()
    ledger.note_ack("w:t", 3, 5, "wn:1", "a1")
    assert ledger.violations == ["w:t: write by a1 at base_rev 3 was acknowledged as rev 5"]


def test_reads_must_see_every_earlier_ack_but_not_later_ones() -> None:
    ledger = Ledger()
    started_before = ledger.now()
    ledger.note_ack("d:a", 0, 1, "n:x", "a1")
    ledger.note_read("d:a", started_before, 0, frozenset(), "a2")  # concurrent: fine
    assert ledger.violations == []
    started_after = ledger.now()
    ledger.note_read("d:a", started_after, 0, frozenset(), "a2")
    ledger.note_read("d:a", started_after, 1, frozenset({"n:other"}), "a3")
    assert ledger.violations == [
        "d:a: a2 read rev 0 after rev 1 was acknowledged",
        "d:a: a3 read rev 1 without n:x, acknowledged in rev 1",
    ]


def test_final_state_and_lost_acks() -> None:
    ledger = Ledger()
    ledger.note_ack("d:a", 0, 1, "n:x", "a1")
    ledger.note_ack("d:a", 1, 2, "n:y", "a1")
    assert [a.node_id for a in ledger.lost("d:a", 1, frozenset({"n:x"}))] == ["n:y"]
    ledger.check_final("d:a", 2, frozenset({"n:x", "n:y"}), "memory")
    assert ledger.violations == []
    ledger.check_final("d:a", 2, frozenset({"n:x"}), "folder")
    assert ledger.violations == ["d:a: folder lacks n:y (acknowledged rev 2)"]


def test_rpc_errors_are_sorted_by_what_a_client_may_do() -> None:
    assert isinstance(classify_rpc_error(-32603, "actor restarted", {"retryable": True}), Retryable)
    stale = classify_rpc_error(-32600, "conflict: stale base_rev", {"current_rev": 4})
    assert isinstance(stale, Stale) and stale.current_rev == 4
    assert isinstance(classify_rpc_error(-32002, "diagram not found", None), Refused)
    assert isinstance(classify_rpc_error(-32603, "internal error", None), Broken)


def _probe(**fields: Any) -> Probe:
    return Probe(tool="t", arguments={"k": 1}, **fields)


def test_the_judge_wants_precise_input_errors() -> None:
    assert judge(_probe(ok=True)) is None
    assert judge(_probe(code=-32602, message="bad `k`", broken_key="k")) is None
    assert "expected an input error" in str(judge(_probe(code=-32603, message="boom")))
    assert "without a message" in str(judge(_probe(code=-32602, message=" ")))
    assert "does not name 'k'" in str(judge(_probe(code=-32602, message="bad", broken_key="k")))
    assert "accepted arguments" in str(judge(_probe(ok=True, broken_key="k")))
    assert "deadline" in str(judge(_probe(hung=True)))


def test_accepts_follows_the_schema_subset() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 0},
            "mode": {"anyOf": [{"enum": ["a", "b"]}, {"type": "null"}]},
            "ops": {"type": "array", "items": {"$ref": "#/$defs/Op"}},
        },
        "required": ["n"],
        "$defs": {
            "Op": {
                "type": "object",
                "properties": {"type": {"enum": ["x"]}},
                "required": ["type"],
                "additionalProperties": False,
            }
        },
    }
    assert accepts(schema, {"n": 0, "mode": None, "ops": [{"type": "x"}], "extra": 1})
    assert not accepts(schema, {"n": True})
    assert not accepts(schema, {"n": -1})
    assert not accepts(schema, {"mode": "a"})
    assert not accepts(schema, {"n": 1, "mode": "c"})
    assert not accepts(schema, {"n": 1, "ops": [{"type": "x", "more": 1}]})
