"""The `$EDITOR` round trip (tui.md §10 with §16.8): edit, apply, and never lose the text.

`edit_round_trip` writes the diagram's Mermaid to a temp file, runs the editor, reads the file
back and hands the text to `apply` (in the app: `ReplaceFromMermaid` to the diagram actor). A
refused text comes back in the outcome so the next `e` re-opens it with the error as a
Mermaid comment header (`%% nereid: ...`), which is stripped again before applying.
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

from nereid.ui.session_state import EditRejected

__all__ = [
    "HEADER_PREFIX",
    "EditOutcome",
    "compose_text",
    "edit_round_trip",
    "editor_command",
    "run_editor_blocking",
    "strip_header",
    "temp_path",
]

HEADER_PREFIX = "%% nereid: "
T = TypeVar("T")


@dataclass(frozen=True)
class EditOutcome(Generic[T]):
    """What happened; `text` is the person's edit when it must be kept for another try."""

    kind: Literal["applied", "cancelled", "rejected", "failed"]
    message: str
    text: str | None = None
    result: T | None = None


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


def compose_text(text: str, error: str | None) -> str:
    """The text to open: with the last error as a comment header when there was one."""
    if not error:
        return text
    header = [f"{HEADER_PREFIX}this edit was NOT applied; fix it and save, or quit unchanged:"]
    header += [f"{HEADER_PREFIX}{line}" for line in error.splitlines()]
    return "\n".join(header) + "\n" + strip_header(text)


def strip_header(text: str) -> str:
    """Drop the header lines `compose_text` added (only at the top of the file)."""
    lines = text.splitlines(keepends=True)
    index = 0
    while index < len(lines) and lines[index].startswith(HEADER_PREFIX):
        index += 1
    return "".join(lines[index:])


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
    environ: Mapping[str, str] = os.environ,
) -> EditOutcome[T]:
    """Edit `original` (or the kept text of a refused edit) and apply the result.

    Blocks while the editor runs (through `run_editor`). Never raises for editor or parse
    problems: they come back as `failed` / `rejected` outcomes carrying the text to keep.
    """
    path = temp_path(diagram_id)
    start = compose_text(kept_text, kept_error) if kept_text is not None else original
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
    if text == original:
        return EditOutcome("cancelled", f"Edit cancelled (no changes): {diagram_id}")
    try:
        result = await apply(text)
    except EditRejected as err:
        return EditOutcome("rejected", err.message, text)
    return EditOutcome("applied", f"Edited {diagram_id}", None, result)
