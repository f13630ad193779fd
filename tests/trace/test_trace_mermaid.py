"""`nereid trace FILE --mermaid`: the export passes `nereid check` and imports with our parser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from nereid.commands import check
from nereid.commands.trace import run
from nereid.mermaid.sequence import parse_sequence
from nereid.mermaid.sequence_rules import participant_name_problem
from nereid.model.sequence import SequenceAst
from nereid.trace.mermaid_export import export_sequence_diagram, participant_id
from nereid.trace.reader import read_trace_file
from nereid.trace.records import TraceEntry

Event = dict[str, Any]


def export(capsys: pytest.CaptureFixture[str], recorded: Path, *flags: str) -> str:
    assert run([str(recorded), "--mermaid", *flags]) == 0
    return capsys.readouterr().out


def passes_check(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> SequenceAst:
    path = tmp_path / "slice.mmd"
    path.write_text(text)
    code = check.run([str(path)])
    assert (code, capsys.readouterr().out) == (0, "")
    return parse_sequence(text)


def test_whole_trace_exports_to_a_valid_sequence_diagram(
    recorded: Path, raw_events: list[Event], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = export(capsys, recorded)
    ast = passes_check(text, tmp_path, capsys)
    names = {p.mermaid_name: p.alias for p in ast.participants.values()}
    assert names == {
        "outside": "(outside)",
        "session": None,
        "diagram_auth": "diagram:auth",
        "persister": None,
    }
    sends = sum(e["event"] == "send" for e in raw_events)
    call_ends = sum(
        e["event"] in ("reply", "error") and e.get("kind") == "call" for e in raw_events
    )
    crashed_calls = sum(e["event"] == "crash" and bool(e.get("msg_type")) for e in raw_events)
    assert len(ast.messages) == sends + call_ends + crashed_calls
    problems = sum(e["event"] in ("error", "crash", "restart", "timeout") for e in raw_events)
    assert len(ast.notes) == problems
    assert "    diagram_auth-)persister: PersistDiagram\n" in text
    assert "    diagram_auth-->>session: Add ok (" in text
    assert "#59;" in text  # the error text's ';' is escaped, not a statement break


def test_one_request_slice_shows_the_crash(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = export(capsys, recorded, "--corr", "req-boom")
    ast = passes_check(text, tmp_path, capsys)
    assert text.splitlines()[1] == "    title trace session.jsonl corr req-boom"
    assert [m.text for m in ast.messages] == ["Boom", "Boom crashed"]
    assert [m.token for m in ast.messages] == ["->>", "--x"]
    assert [(m.from_participant_id, m.to_participant_id) for m in ast.messages] == [
        ("p:outside", "p:diagram_auth"),
        ("p:diagram_auth", "p:outside"),
    ]
    assert [n.text for n in ast.notes] == ["CRASH RuntimeError: boom second line"]


def test_a_nested_request_has_reply_arrows_back_to_each_caller(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = export(capsys, recorded, "--corr", "req-edit")
    passes_check(text, tmp_path, capsys)
    body = [line.strip() for line in text.splitlines() if "->>" in line or "-)" in line]
    assert body[:3] == [
        "outside->>session: Edit",
        "session->>diagram_auth: Add",
        "diagram_auth-)persister: PersistDiagram",
    ]
    replies = [line.split(":")[0].strip() for line in text.splitlines() if "-->>" in line]
    assert replies == ["diagram_auth-->>session", "session-->>outside"]


def test_an_empty_slice_is_an_error(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([str(recorded), "--mermaid", "--corr", "no-such-request"]) == 1
    assert "nothing to draw" in capsys.readouterr().err


def entry(event: str, actor: str, **fields: Any) -> TraceEntry:
    return TraceEntry(mono=1.0, wall=2.0, event=event, actor=actor, **fields)


actor_names = st.text(
    alphabet=st.characters(exclude_categories=["Cs"]), min_size=1, max_size=20
).filter(lambda name: name.strip() != "")


@settings(max_examples=150, deadline=None)
@given(actor_names)
def test_participant_ids_are_valid_names(name: str) -> None:
    ident = participant_id(name)
    assert participant_name_problem(ident) is None, ident


@settings(max_examples=100, deadline=None)
@given(actor_names, actor_names, st.text(max_size=30))
@example(caller="0", callee="#", detail="a # b; c")  # `#` starts a Mermaid comment
@example(caller="wrap:x", callee="nowrap:", detail=":wrap: y")  # Mermaid's wrap flag
def test_any_actor_names_and_details_import(caller: str, callee: str, detail: str) -> None:
    entries = [
        entry("send", callee, sender=caller, kind="call", msg_type="Get", correlation_id="c"),
        entry("error", callee, kind="call", msg_type="Get", correlation_id="c", detail=detail),
        entry("crash", caller, sender="root", outcome="RuntimeError", detail=detail),
    ]
    ast = parse_sequence(export_sequence_diagram(entries))
    assert len(ast.participants) == (1 if caller == callee else 2)
    assert len(ast.messages) == 2
    assert len(ast.notes) == 2


def test_colliding_ids_get_suffixes() -> None:
    entries = [
        entry("send", "diagram:a", sender="diagram_a", kind="cast", msg_type="Ping"),
        entry("send", "end", sender="diagram a", kind="cast", msg_type="Ping"),
    ]
    ast = parse_sequence(export_sequence_diagram(entries))
    assert [p.mermaid_name for p in ast.participants.values()] == [
        "diagram_a",
        "diagram_a_2",
        "diagram_a_3",
        "end_",
    ]


def test_reading_the_export_back_keeps_the_counts(recorded: Path) -> None:
    entries, skipped = read_trace_file(recorded)
    assert skipped.count == 0
    text = export_sequence_diagram(entries)
    assert text.startswith("sequenceDiagram\n") and text.endswith("\n")
