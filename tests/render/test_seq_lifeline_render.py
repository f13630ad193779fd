"""A created participant's lifeline starts at its creating message; a destroyed one's ends
with a cross at its destroying message (render of `create` / `destroy`)."""

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
    col = lines[1].index("C")
    column = [line[col] if len(line) > col else " " for line in lines]
    creation = next(i for i, line in enumerate(lines) if "new" in line)
    ending = next(i for i, line in enumerate(lines) if "bye" in line)
    assert all(ch == " " for ch in column[3:creation]), column
    assert column[creation] == "│"
    assert column[ending] == "✕"
    assert all(ch == " " for ch in column[ending + 1 :]), column
