"""Inline conflict markers in the re-opened `$EDITOR` file, written as Mermaid comments.

After a merge conflict the person re-opens a text made of the current revision with their
changes merged in. Where they and someone else changed the same object, `mark_conflicts`
puts both versions in place, git-style, so the file still parses:

    %% <<<<<<< nereid conflict 1 — someone else's version (as comments):
    %%   hello[Hello from the agent]
    %% ======= your version (Mermaid):
      hello[Hello from the person]
    %% >>>>>>> end of conflict 1

Keeping one version means deleting the marker lines (and the other version's lines, or
un-commenting theirs). Nothing is applied while a marker line is left (`unresolved`).
"""

from __future__ import annotations

import difflib
import re
from typing import Final

__all__ = ["OPEN_MARK", "mark_conflicts", "unresolved"]

OPEN_MARK: Final = "%% <<<<<<< nereid conflict"
_SPLIT_MARK: Final = "%% ======= your version (Mermaid):"
_CLOSE_MARK: Final = "%% >>>>>>> end of conflict"
_MARKER: Final = re.compile(r"^\s*%% (<<<<<<< nereid conflict|=======|>>>>>>> end of conflict)")


def mark_conflicts(yours: str, theirs: str) -> tuple[str, int]:
    """`yours` with each place it differs from `theirs` marked; (text, how many places).

    The two texts are exports of one merge with either side's version of the conflicting
    objects, so they differ exactly there.
    """
    mine, other = yours.splitlines(), theirs.splitlines()
    out: list[str] = []
    count = 0
    matcher = difflib.SequenceMatcher(a=other, b=mine, autojunk=False)
    for tag, o1, o2, m1, m2 in matcher.get_opcodes():
        if tag == "equal":
            out += mine[m1:m2]
            continue
        count += 1
        out.append(f"{OPEN_MARK} {count} — someone else's version (as comments):")
        out += [f"%%   {line.strip()}" for line in other[o1:o2]] or ["%%   (nothing: removed)"]
        out.append(_SPLIT_MARK)
        out += mine[m1:m2] or ["%%   (nothing: you removed it)"]
        out.append(f"{_CLOSE_MARK} {count}")
    return "\n".join(out) + ("\n" if yours.endswith("\n") else ""), count


def unresolved(text: str) -> list[int]:
    """1-based numbers of the marker lines still in `text` (empty: all resolved)."""
    return [n for n, line in enumerate(text.splitlines(), 1) if _MARKER.match(line)]
