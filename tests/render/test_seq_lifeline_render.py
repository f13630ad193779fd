"""A created participant's box stands right above its creating message and its lifeline
starts there; a destroyed one's ends with a cross at its destroying message (render of
`create` / `destroy`)."""

from __future__ import annotations

from nereid.mermaid import parse_sequence
from nereid.render import render_sequence

TEXT = """sequenceDiagram
A->>B: hi
create participant C
A->>C: new
destroy C
C-xA: bye
A->>B: after
"""


def test_lifeline_runs_from_creation_to_destruction() -> None:
    lines = render_sequence(parse_sequence(TEXT), "d").text.splitlines()
    creation = next(i for i, line in enumerate(lines) if "new" in line)
    ending = next(i for i, line in enumerate(lines) if "bye" in line)
    assert "C" not in lines[1]  # not with the heads at the top
    assert "│ C │" in lines[creation - 2]  # its box, right above the creating message
    col = lines[creation - 2].index("C")
    column = [line[col] if len(line) > col else " " for line in lines]
    assert all(ch == " " for ch in column[: creation - 3]), column
    assert column[creation - 1] == "┬" and column[creation] == "│"
    assert column[ending] == "✕"
    assert all(ch == " " for ch in column[ending + 1 :]), column
