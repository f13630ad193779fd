"""Fixtures of the `nereid trace` tests: one scripted session recorded once per run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.trace.trace_testkit import record_scripted_session


@pytest.fixture(scope="session")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The trace file of the scripted session (read-only: copy it to change it)."""
    return record_scripted_session(tmp_path_factory.mktemp("trace") / "session.jsonl")


@pytest.fixture(scope="session")
def raw_events(recorded: Path) -> list[dict[str, Any]]:
    """The recorded lines decoded with the standard json module (an independent reading)."""
    return [json.loads(line) for line in recorded.read_text().splitlines()]
