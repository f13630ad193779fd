"""The `$EDITOR` round trip (tui.md §10 with §16.8): edit, apply, and never lose the text.

`edit_round_trip` writes the diagram's Mermaid to a temp file, runs the editor, reads the file
back and hands the text to `apply` (in the app: the client merges it into the current
revision, `ActorClient.replace_text`). A refused text (or, after a merge conflict, the merged
text with the conflicts described) comes back in the outcome so the next `e` re-opens it with
the reason as a Mermaid comment header (`%% nereid: ...`), which is stripped again before
applying. Line numbers in messages point into the file as the person sees it: the header's
lines are counted in (`shift_lines`). Saving a re-opened file unchanged applies nothing.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Literal, TypeVar

import trio

from nereid.ui.conflict_marks import unresolved
from nereid.ui.session_state import EditRejected

__all__ = [
    "HEADER_PREFIX",
    "EditOutcome",
    "compose_text",
    "edit_round_trip",
    "editor_command",
    "header_length",
    "run_editor_blocking",
    "shift_lines",
    "strip_header",
    "temp_path",
]

HEADER_PREFIX = "%% nereid: "
T = TypeVar("T")


@dataclass(frozen=True)
class EditOutcome(Generic[T]):
    """What happened; `text` is the person's edit when it must be kept for another try."""

    kind: Literal["applied", "cancelled", "rejected", "failed", "unchanged"]
    message: str
    text: str | None = None
    result: T | None = None
    #: For `rejected`: the message with line numbers of the text alone (to re-open with).
    reason: str | None = None
    #: For `rejected` after a merge conflict: the revision `text` is now based on.
    base: object | None = None
    #: For `rejected`: `text` still holds a conflict (markers left), `reason` its report.
    conflict: bool = False


def editor_command(environ: Mapping[str, str]) -> str:
    """`$VISUAL`, else `$EDITOR`, else `vi` (blank values count as unset)."""
    for name in ("VISUAL", "EDITOR"):
        value = environ.get(name, "").strip()
        if value:
            return value
    return "vi"


def temp_path(diagram_id: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", diagram_id)
    return Path(tempfile.gettempdir()) / f"nereid-{safe}-{time.time_ns()}.mmd"


def shift_lines(message: str, offset: int) -> str:
    """`message` with every `line N` moved by `offset` (text lines -> file lines)."""
    if not offset:
        return message
    return re.sub(r"\bline (\d+)", lambda m: f"line {int(m.group(1)) + offset}", message)


def compose_text(text: str, error: str | None, *, shift: bool = True) -> str:
    """The text to open: with the last error as a comment header when there was one.

    `error`'s line numbers count lines of `text`; in the header they count the file's
    (`shift` False: the error quotes diagram content, e.g. a merge conflict report).
    """
    if not error:
        return text
    lines = error.splitlines()
    offset = 1 + len(lines) if shift else 0
    header = [f"{HEADER_PREFIX}this edit was NOT applied; fix it and save, or quit unchanged:"]
    header += [f"{HEADER_PREFIX}{shift_lines(line, offset)}" for line in lines]
    return "\n".join(header) + "\n" + strip_header(text)


def header_length(text: str) -> int:
    """How many header lines `compose_text` put at the top of `text`."""
    lines = text.splitlines()
    index = 0
    while index < len(lines) and lines[index].startswith(HEADER_PREFIX):
        index += 1
    return index


def strip_header(text: str) -> str:
    """Drop the header lines `compose_text` added (only at the top of the file)."""
    return "".join(text.splitlines(keepends=True)[header_length(text) :])


_SHELL_NOT_FOUND = 127
"""The shell's exit status for a command it cannot find."""


def run_editor_blocking(command: str, path: Path) -> int:
    """Run `command path` through the shell (the command may carry arguments); exit status."""
    if str(path).startswith("-"):
        raise OSError("invalid editor temp path")
    completed = subprocess.run(["sh", "-c", f"{command} {shlex.quote(str(path))}"], check=False)
    return completed.returncode


async def edit_round_trip(
    diagram_id: str,
    original: str,
    *,
    run_editor: Callable[[Path], Awaitable[int]],
    apply: Callable[[str], Awaitable[T]],
    kept_text: str | None = None,
    kept_error: str | None = None,
    kept_conflict: bool = False,
    environ: Mapping[str, str] = os.environ,
) -> EditOutcome[T]:
    """Edit `original` (or the kept text of a refused edit) and apply the result.

    Blocks while the editor runs (through `run_editor`). Never raises for editor or parse
    problems: they come back as `failed` / `rejected` outcomes carrying the text to keep.
    """
    path = temp_path(diagram_id)
    start = (
        compose_text(kept_text, kept_error, shift=not kept_conflict)
        if kept_text is not None
        else original
    )
    try:
        await trio.Path(path).write_text(start, encoding="utf-8")
        try:
            status = await run_editor(path)
        except OSError as err:
            return EditOutcome(
                "failed",
                f"failed to run editor command `{editor_command(environ)}`: {err}",
                kept_text,
            )
        if status == _SHELL_NOT_FOUND:
            command = editor_command(environ)
            program = command.split()[0] if command.split() else command
            return EditOutcome(
                "failed",
                f"editor {program!r} not found (set $VISUAL or $EDITOR to an installed editor)",
                kept_text,
            )
        if status != 0:
            return EditOutcome("failed", f"editor command failed with status {status}", kept_text)
        try:
            edited = await trio.Path(path).read_text(encoding="utf-8")
        except OSError as err:
            return EditOutcome(
                "failed", f"failed reading edited Mermaid from {path}: {err}", kept_text
            )
    finally:
        with trio.CancelScope(shield=True):
            await trio.Path(path).unlink(missing_ok=True)
    text = strip_header(edited)
    if kept_text is not None and edited == start:
        return EditOutcome(
            "unchanged",
            f"Edit of {diagram_id} still not applied (saved unchanged); press e to resolve it",
            kept_text,
        )
    if text == original:
        return EditOutcome("cancelled", f"Edit cancelled (no changes): {diagram_id}")
    left = unresolved(text)
    if left:
        where = header_length(edited)
        lines = ", ".join(str(n + where) for n in left[:6]) + (", ..." if len(left) > 6 else "")
        return EditOutcome(
            "rejected",
            f"Edit of {diagram_id} not applied: conflict markers are left (lines {lines}); "
            "keep the version you want, delete the marker lines and save",
            text,
            reason=kept_error,
            conflict=kept_conflict,
        )
    try:
        result = await apply(text)
    except EditRejected as err:
        conflict = err.base is not None
        return EditOutcome(
            "rejected",
            err.message if conflict else shift_lines(err.message, header_length(edited)),
            err.text if err.text is not None else text,
            reason=err.message,
            base=err.base,
        )
    return EditOutcome("applied", f"Edited {diagram_id}", None, result)
