"""`nereid render`: prints text art, reports parse errors compiler-style."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from nereid.cli import main

SEQ = "sequenceDiagram\n    Alice->>Bob: Hello\n    Bob-->>Alice: Hi\n"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["render", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_renders_a_sequence_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hello.mmd"
    path.write_text(SEQ, encoding="utf-8")
    code, out, err = _run([str(path)], capsys)
    assert code == 0 and err == ""
    assert out.endswith("\n")
    lines = out.splitlines()
    assert "│ Alice │" in lines[1] and "│ Bob │" in lines[1]
    assert any("├" in line and " Hello " in line and "▶│" in line for line in lines)
    assert any("│◀┄" in line and " Hi " in line for line in lines)


def test_ascii_output_is_pure_ascii(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hello.mmd"
    path.write_text(SEQ, encoding="utf-8")
    code, out, _ = _run(["--ascii", str(path)], capsys)
    assert code == 0
    assert out.isascii()
    assert "+---------->|" in out.replace(" ", "") or "->|" in out


def test_width_wraps_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "long.mmd"
    path.write_text("sequenceDiagram\n  A->>B: one two three four five six\n", encoding="utf-8")
    code, out, _ = _run(["--width", "9", str(path)], capsys)
    assert code == 0
    stripped = [line.strip(" │├─▶") for line in out.splitlines()]
    start = stripped.index("one two")
    assert stripped[start : start + 4] == ["one two", "three", "four five", "six"]
    code, wide, _ = _run(["--width=40", str(path)], capsys)
    assert code == 0 and "one two three four five six" in wide


def test_reads_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(SEQ))
    code, out, _ = _run(["-"], capsys)
    assert code == 0 and "Hello" in out


def test_parse_error_is_reported_with_location(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.mmd"
    path.write_text("sequenceDiagram\n  A->>B hi\n", encoding="utf-8")
    code, out, err = _run([str(path)], capsys)
    assert code == 1 and out == ""
    assert err.startswith(f"{path}:2:")
    assert "invalid message syntax on line 2" in err


def test_unknown_kind_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pie.mmd"
    path.write_text("pie\n  title x\n", encoding="utf-8")
    code, _, err = _run([str(path)], capsys)
    assert code == 1
    assert err.startswith(
        f"{path}:1:1: expected 'flowchart'/'graph', 'sequenceDiagram' or 'stateDiagram'"
    )


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run([str(tmp_path / "nope.mmd")], capsys)
    assert code == 1 and "nope.mmd: No such file or directory" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "no file given"),
        (["a.mmd", "b.mmd"], "one file at a time"),
        (["--width", "2", "a.mmd"], "invalid --width '2'"),
        (["--width"], "option --width needs a value"),
        (["--bogus", "a.mmd"], "unknown option '--bogus'"),
    ],
)
def test_bad_command_lines(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(argv, capsys)
    assert code == 2 and message in err


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["--help"], capsys)
    assert code == 0 and out.startswith("Usage: nereid render")


def test_renders_a_walkthrough_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tour.wt.json"
    path.write_text(
        '{"walkthrough_id": "tour", "title": "Tour", "rev": 1, "nodes": ['
        '{"node_id": "a", "title": "Start", "refs": [], "tags": []},'
        '{"node_id": "b", "title": "End", "refs": [], "tags": [], "status": "done"}],'
        '"edges": [{"from_node_id": "a", "to_node_id": "b", "kind": "next"}]}',
        encoding="utf-8",
    )
    code, out, err = _run([str(path)], capsys)
    assert code == 0, err
    assert out.splitlines()[0] == "Tour"
    assert "│ Start" in out and "[done]" in out and "│ next" in out and "▼" in out


def test_bad_walkthrough_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.wt.json"
    path.write_text("{not json", encoding="utf-8")
    code, _, err = _run([str(path)], capsys)
    assert code == 1 and err.startswith(str(path))


def test_renders_a_state_diagram(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "order.mmd"
    path.write_text(
        "stateDiagram-v2\n[*] --> Placed\nPlaced --> Paid : pay\nPaid --> [*]\n", encoding="utf-8"
    )
    code, out, err = _run([str(path)], capsys)
    assert code == 0 and err == ""
    assert "●" in out and "◉" in out and "│ Placed  │" in out and " pay" in out
    code, out, _ = _run([str(path), "--ascii"], capsys)
    assert code == 0 and out.isascii() and "Paid" in out
