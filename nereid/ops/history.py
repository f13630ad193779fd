"""Revision history and `diff` (ops.md §10, mcp-tools.md §17.2-17.3), shared by diagrams and
walkthroughs.

A window of at most 64 entries `{from_rev, to_rev, added, removed, updated}` (refs as strings).
`diff(since_rev)` unions the entries from `since_rev` to the current rev; unions are not netted
across revisions, as the contract says.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from nereid.errors import InvalidParams, InvalidRequest, NereidError

__all__ = ["HISTORY_LIMIT", "MAX_REV", "Change", "DiffResult", "History", "HistoryEntry", "bump"]

HISTORY_LIMIT: Final = 64
MAX_REV: Final = 2**64 - 1

ChangeKind = Literal["added", "removed", "updated"]


def bump(rev: int) -> int:
    """The next revision (saturating at the u64 maximum, as the reference)."""
    return min(rev + 1, MAX_REV)


class HistoryEntry(msgspec.Struct, frozen=True, kw_only=True):
    from_rev: int
    to_rev: int
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()


class Change(msgspec.Struct, frozen=True, kw_only=True):
    kind: ChangeKind
    refs: tuple[str, ...]


class DiffResult(msgspec.Struct, frozen=True, kw_only=True):
    """The contract's diff answer: `{from_rev, to_rev, changes: [{kind, refs}]}`."""

    from_rev: int
    to_rev: int
    changes: tuple[Change, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "from_rev": self.from_rev,
            "to_rev": self.to_rev,
            "changes": [{"kind": c.kind, "refs": list(c.refs)} for c in self.changes],
        }


class History(msgspec.Struct, frozen=True):
    """The last `HISTORY_LIMIT` entries, oldest first."""

    entries: tuple[HistoryEntry, ...] = ()

    def push(self, entry: HistoryEntry) -> History:
        return History((*self.entries, entry)[-HISTORY_LIMIT:])

    def diff(self, since_rev: int, current_rev: int, snapshot_tool: str) -> DiffResult:
        """What changed from `since_rev` to `current_rev` (mcp-tools.md §17.3).

        Raises `since_rev must be <= current rev` (invalid_params) or
        `delta unavailable; use <snapshot_tool>` (invalid_request) when the window cannot
        answer.
        """
        if since_rev > current_rev:
            raise InvalidParams(
                "since_rev must be <= current rev",
                {"since_rev": since_rev, "current_rev": current_rev},
            )
        if since_rev == current_rev:
            return DiffResult(from_rev=current_rev, to_rev=current_rev)
        supported = self.entries[0].from_rev if self.entries else current_rev

        def unavailable() -> NereidError:
            return InvalidRequest(
                f"delta unavailable; use {snapshot_tool}",
                {
                    "since_rev": since_rev,
                    "current_rev": current_rev,
                    "supported_since_rev": supported,
                    "snapshot_tool": snapshot_tool,
                },
            )

        if not self.entries or since_rev < supported:
            raise unavailable()
        start = next((i for i, e in enumerate(self.entries) if e.from_rev == since_rev), None)
        if start is None:
            raise unavailable()
        added: set[str] = set()
        removed: set[str] = set()
        updated: set[str] = set()
        expected = since_rev
        reached = False
        for entry in self.entries[start:]:
            if entry.from_rev != expected:
                break
            added.update(entry.added)
            removed.update(entry.removed)
            updated.update(entry.updated)
            expected = entry.to_rev
            if expected == current_rev:
                reached = True
                break
        if not reached:
            raise unavailable()
        kinds: tuple[tuple[ChangeKind, set[str]], ...] = (
            ("added", added),
            ("removed", removed),
            ("updated", updated),
        )
        changes = tuple(Change(kind=kind, refs=tuple(sorted(refs))) for kind, refs in kinds if refs)
        return DiffResult(from_rev=since_rev, to_rev=current_rev, changes=changes)
