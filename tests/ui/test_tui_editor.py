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
