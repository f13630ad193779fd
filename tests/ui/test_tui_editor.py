"""The `$EDITOR` round trip against an injected editor and apply function (no terminal)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from nereid.ui.editor import (
    HEADER_PREFIX,
    compose_text,
    edit_round_trip,
    editor_command,
    strip_header,
)
from nereid.ui.session_state import EditRejected

ORIGINAL = "flowchart TD\n  a[A] --> b[B]\n"


def writer(*texts: str, seen: list[str] | None = None) -> Callable[[Path], Awaitable[int]]:
    """An 'editor' that records what it was shown and writes the next text."""
    queue = list(texts)

    async def run(path: Path) -> int:
        if seen is not None:
            seen.append(await trio.Path(path).read_text())
        await trio.Path(path).write_text(queue.pop(0))
        return 0

    return run


async def apply_ok(text: str) -> str:
    if "-->" in text and text.rstrip().endswith("-->"):
        raise EditRejected("cannot parse Mermaid flowchart diagram: line 2: expected a node")
    return text.upper()


async def test_applied_edit_returns_the_result() -> None:
    outcome = await edit_round_trip(
        "d1", ORIGINAL, run_editor=writer(ORIGINAL.replace("B]", "Bee]")), apply=apply_ok
    )
    assert outcome.kind == "applied" and outcome.result == ORIGINAL.replace("B]", "Bee]").upper()


async def test_unchanged_text_is_a_cancel() -> None:
    outcome = await edit_round_trip("d1", ORIGINAL, run_editor=writer(ORIGINAL), apply=apply_ok)
    assert outcome.kind == "cancelled" and outcome.message == "Edit cancelled (no changes): d1"


async def test_broken_edit_is_kept_and_reopened_with_the_error() -> None:
    broken = "flowchart TD\n  a[A] -->\n"
    first = await edit_round_trip("d1", ORIGINAL, run_editor=writer(broken), apply=apply_ok)
    assert first.kind == "rejected" and first.text == broken
    assert "expected a node" in first.message
    seen: list[str] = []
    fixed = "flowchart TD\n  a[A] --> c[C]\n"
    second = await edit_round_trip(
        "d1",
        ORIGINAL,
        run_editor=writer(compose_text(fixed, "stale header kept by the person"), seen=seen),
        apply=apply_ok,
        kept_text=first.text,
        kept_error=first.message,
    )
    assert seen[0].startswith(HEADER_PREFIX) and broken in seen[0]
    assert "expected a node" in seen[0]
    assert second.kind == "applied" and second.result == fixed.upper()


async def test_editor_failure_keeps_the_previous_text() -> None:
    async def fails(path: Path) -> int:
        return 3

    outcome = await edit_round_trip(
        "d1", ORIGINAL, run_editor=fails, apply=apply_ok, kept_text="kept", kept_error="e"
    )
    assert outcome.kind == "failed" and outcome.message == "editor command failed with status 3"
    assert outcome.text == "kept"


def test_header_strip_only_touches_the_top() -> None:
    text = f"{HEADER_PREFIX}x\n{HEADER_PREFIX}y\nflowchart TD\n%% nereid: inside stays\n"
    assert strip_header(text) == "flowchart TD\n%% nereid: inside stays\n"


def test_editor_command_prefers_visual_then_editor_then_vi() -> None:
    assert editor_command({"VISUAL": "code -w", "EDITOR": "nano"}) == "code -w"
    assert editor_command({"VISUAL": "  ", "EDITOR": "nano"}) == "nano"
    assert editor_command({}) == "vi"


async def test_a_missing_editor_is_named_as_not_found() -> None:
    from nereid.ui.editor import edit_round_trip, run_editor_blocking

    environ = {"EDITOR": "nereid-no-such-editor --wait"}

    async def run_editor(path: object) -> int:
        return await trio.to_thread.run_sync(
            run_editor_blocking, "nereid-no-such-editor --wait", path
        )

    async def apply(text: str) -> None:
        raise AssertionError("nothing to apply")

    outcome = await edit_round_trip(
        "flow", "flowchart TD\n  a --> b\n", run_editor=run_editor, apply=apply, environ=environ
    )
    assert outcome.kind == "failed"
    assert "'nereid-no-such-editor' not found" in outcome.message


async def test_error_line_numbers_point_into_the_file_being_edited() -> None:
    """The parser counts lines of the text without the header; the person sees the file."""
    broken = "flowchart TD\n  a[A] -->\n"
    first = await edit_round_trip("d1", ORIGINAL, run_editor=writer(broken), apply=apply_ok)
    assert first.kind == "rejected" and "line 2" in first.message  # no header yet
    seen: list[str] = []
    # Re-opened with the header; the person saves it still broken, header and all.
    again = await edit_round_trip(
        "d1",
        ORIGINAL,
        run_editor=_echo(seen),
        apply=apply_ok,
        kept_text=first.text,
        kept_error=first.reason,
    )
    shown = seen[0].splitlines()
    bad_line = next(i for i, line in enumerate(shown, 1) if line.endswith("-->"))
    assert any(f"line {bad_line}" in line for line in shown if line.startswith(HEADER_PREFIX))
    assert again.kind == "unchanged"  # saved unchanged: nothing applied, still kept
    # Saved with one more line above the bad one: the status names the file's line.
    changed = seen[0].replace("flowchart TD\n", "flowchart TD\n  z[Z]\n")
    third = await edit_round_trip(
        "d1",
        ORIGINAL,
        run_editor=writer(changed),
        apply=_line_of_dangling_link,
        kept_text=first.text,
        kept_error=first.reason,
    )
    lines = changed.splitlines()
    assert third.kind == "rejected"
    assert f"line {len(lines)}" in third.message  # the file's numbering
    assert third.reason is not None and "line 3" in third.reason  # the text's own


def _echo(seen: list[str]) -> Callable[[Path], Awaitable[int]]:
    async def run(path: Path) -> int:
        seen.append(await trio.Path(path).read_text())
        return 0

    return run


async def _line_of_dangling_link(text: str) -> str:
    number = next(i for i, line in enumerate(text.splitlines(), 1) if line.endswith("-->"))
    raise EditRejected(f"cannot parse Mermaid flowchart diagram: line {number}: expected a node")
