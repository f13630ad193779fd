"""Shared fixtures for the store tests: fixture folders copied into memory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from nereid.store.files import MemoryFiles

FIXTURES = Path(__file__).parent / "fixtures"


def _memory_copy(folder: Path) -> MemoryFiles:
    return MemoryFiles(
        {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    )


@pytest.fixture
def memory_copy() -> Callable[[Path], MemoryFiles]:
    """Every file under a folder, as an in-memory session folder."""
    return _memory_copy


@pytest.fixture
def reference_files() -> MemoryFiles:
    """An in-memory copy of the hand-made folder in the reference (Rust nereid) format."""
    return _memory_copy(FIXTURES / "reference-session")
