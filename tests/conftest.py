"""Suite-wide settings: the parse cache of this run lives in a temporary directory.

Every load in the suite (and every `nereid` process a test starts, which inherits the
environment) uses the parse cache (`nereid.store.parse_cache`) as a user's program does,
but never the user's own: `NEREID_CACHE_DIR` names a directory made for this run and
removed after it. A test that needs loads to parse sets its own.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

from nereid.store.parse_cache import CACHE_DIR_ENV

if CACHE_DIR_ENV not in os.environ:
    _RUN_CACHE = tempfile.mkdtemp(prefix="nereid-test-cache-")
    os.environ[CACHE_DIR_ENV] = _RUN_CACHE
    atexit.register(shutil.rmtree, _RUN_CACHE, True)
