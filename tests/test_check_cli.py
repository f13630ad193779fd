"""`nereid check`: compiler-style errors, exit codes, stdin, --json, unreadable files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from nereid.commands.check import check_text, run
from nereid.mermaid import MermaidError, parse_mermaid
from nereid.testing.hostile import mermaid_texts


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_valid_files_exit_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path, "good.mmd", "sequenceDiagram\nA->>B: hi\n")
    assert run([good]) == 0
    assert capsys.readouterr().out == ""


def test_errors_are_file_line_col(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path, "good.mmd", "sequenceDiagram\nA->>B: hi\n")
    bad = write(tmp_path, "bad.mmd", "sequenceDiagram\nA->>B: hi\n  details B: {}\n")
    lone = write(tmp_path, "lone.mmd", "sequenceDiagram\nA->>B: hi\n  destroy B\n")
    assert run([good, bad, lone]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{bad}:3:3: unsupported Mermaid syntax on line 3: details B")
    assert f"{lone}:3:3: 'destroy' on line 3 has no message after it" in out
    assert good not in out


def test_unknown_kind_and_unreadable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pie = write(tmp_path, "pie.mmd", "%% c\npie\n")
    missing = str(tmp_path / "missing.mmd")
    assert run([pie, missing]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        f"{pie}:2:1: expected 'flowchart'/'graph', 'sequenceDiagram' or 'stateDiagram' as the first non-empty line"
    )
    assert lines[1] == f"{missing}: No such file or directory"


def test_json_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seq = write(
        tmp_path,
        "s.mmd",
        "sequenceDiagram\nalt x\nA->>B: hi\nend\nNote over A: n\nactivate B\n",
    )
    bad = write(tmp_path, "b.mmd", "sequenceDiagram\nalt x\n")
    assert run(["--json", seq, bad]) == 1
    reports = json.loads(capsys.readouterr().out)
    assert reports[0] == {
        "file": seq,
        "ok": True,
        "kind": "sequence",
        "counts": {
            "participants": 2,
            "messages": 1,
            "notes": 1,
            "activations": 1,
            "blocks": 1,
            "sections": 1,
        },
        "ids": {
            "participants": ["p:A", "p:B"],
            "messages": ["m:0001"],
            "notes": ["note:0001"],
            "activations": ["act:0001"],
            "blocks": ["b:0001"],
            "sections": ["sec:0001:00"],
        },
        "errors": [],
    }
    assert reports[1]["ok"] is False
    assert reports[1]["errors"][0]["kind"] == "UnclosedBlock"
    assert reports[1]["errors"][0]["line"] == 2


def test_help_and_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--help"]) == 0
    assert "Usage: nereid check" in capsys.readouterr().out
    assert run([]) == 2
    assert run(["--frobnicate", "x"]) == 2


def test_stdin_through_the_real_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "nereid", "check", "-"],
        input="sequenceDiagram\nA->>B hi\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout.startswith("<stdin>:2:")
    assert "invalid message syntax on line 2" in result.stdout


def test_a_state_diagram_is_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path, "s.mmd", "stateDiagram-v2\n[*] --> A\nA --> B : go\n")
    bad = write(tmp_path, "t.mmd", "stateDiagram-v2\nA --> B; B --> C\n")
    assert run(["--json", good]) == 0
    summary = json.loads(capsys.readouterr().out)[0]
    assert summary["kind"] == "state"
    assert summary["counts"] == {"states": 3, "transitions": 2}
    assert run([bad]) == 1
    assert capsys.readouterr().out.startswith(f"{bad}:2:8: ")


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(mermaid_texts())
def test_check_accepts_exactly_what_the_importer_accepts(text: str) -> None:
    """Issue 16: `nereid check` and an import agree on every text (hostile ones too), and a
    refusal names its line and column."""
    try:
        parse_mermaid(text)
    except MermaidError as error:
        imported: MermaidError | None = error
    else:
        imported = None
    summary, errors = check_text(text)
    if imported is None:
        assert summary is not None and errors == []
    else:
        ((found,),) = (errors,)
        assert (found["kind"], found["line"]) == (imported.kind, imported.line or 1)
        assert found["column"] >= 1 and found["message"] == str(imported)
