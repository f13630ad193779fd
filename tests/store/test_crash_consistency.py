"""kill -9 a writer at random moments: the folder always loads, no file is ever torn.

Runs `scripts/crash_consistency` (50 trials here; the script runs more with `--trials`).
The unsafe run is the negative control: a writer that writes in place does get caught.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "crash_consistency"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs fork and SIGKILL")


def _load_script() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("crash_consistency", str(SCRIPT))
    spec = importlib.util.spec_from_loader("crash_consistency", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("crash_consistency", module)
    loader.exec_module(module)
    return module


def test_atomic_writes_survive_kill_9(tmp_path: Path) -> None:
    report = _load_script().run_trials(50, root=tmp_path / "session", seed=20261129)
    assert report.trials == 50
    assert report.failures == []
    assert report.versions_seen >= 40  # the writer made progress between kills


def test_the_check_catches_in_place_writes(tmp_path: Path) -> None:
    report = _load_script().run_trials(10, root=tmp_path / "session", seed=7, unsafe=True)
    assert report.failures != []
