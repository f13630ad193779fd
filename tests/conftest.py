"""Suite-wide settings: a parse cache of this run's own, and which tests never overlap.

Every load in the suite (and every `nereid` process a test starts, which inherits the
environment) uses the parse cache (`nereid.store.parse_cache`) as a user's program does,
but never the user's own: `NEREID_CACHE_DIR` names a directory made for this run and
removed after it. A test that needs loads to parse sets its own. Under pytest-xdist the
workers inherit the controller's directory and share it, as concurrent `nereid` processes
of one user do (its writes are temp + rename, named by pid).

On xdist workers (`uv run pytest -n 2 --dist loadgroup`), the tests that drive real
terminals or the chaos harness are one xdist group, so they run one at a time on one
worker: their waits on a screen or on a loaded server were sized for a suite running
alone, and two of them together would double the load each sees.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

from nereid.store.parse_cache import CACHE_DIR_ENV

if CACHE_DIR_ENV not in os.environ:
    _RUN_CACHE = tempfile.mkdtemp(prefix="nereid-test-cache-")
    os.environ[CACHE_DIR_ENV] = _RUN_CACHE
    atexit.register(shutil.rmtree, _RUN_CACHE, True)

# Modules (relative to tests/) whose tests never run at the same time as each other.
_ONE_AT_A_TIME = (
    "chaos/",
    "folder/test_live_folder_session.py",
    "folder/test_tui_folder_pty.py",
    "trace/test_trace_terminal.py",
    "ui/test_tui_mcp_pty.py",
    "ui/test_tui_pty.py",
    "ui/test_tui_save_status.py",
    "ui/test_tui_state_pty.py",
)
_TESTS = os.path.dirname(os.path.abspath(__file__))


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups off the items
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the terminal and chaos tests in one xdist group (see the module docstring)."""
    for item in items:
        where = os.path.relpath(item.path, _TESTS).replace(os.sep, "/")
        if where.startswith(_ONE_AT_A_TIME):
            item.add_marker(pytest.mark.xdist_group("one_at_a_time"))
