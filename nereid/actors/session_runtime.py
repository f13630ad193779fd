"""The runtime a session's supervision tree runs in (`open_session_runtime`).

Apart from `nereid.actors.tree`, which imports every actor and through them every layer:
`nereid --mcp` opens this runtime and answers `initialize` and `tools/list` from it before
those modules are loaded (they load with the session, after the handshake).
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Final

from nereid.runtime._runtime import Runtime, open_runtime
from nereid.runtime._supervisor import RestartIntensity
from nereid.runtime._trace import Tracer

__all__ = ["SESSION_INTENSITY", "open_session_runtime"]

SESSION_INTENSITY: Final = RestartIntensity(max_restarts=5, within_s=10.0)
"""How often the session's root may restart a child before it gives up."""


def open_session_runtime(tracer: Tracer | None = None) -> AbstractAsyncContextManager[Runtime]:
    """The runtime a session's tree runs in, opened before the session is loaded.

    `nereid --mcp` answers `initialize` and `tools/list` from an endpoint bound to this
    runtime while the folder is still loading; `open_session(..., runtime=)` then
    spawns the tree into it.
    """
    return open_runtime(tracer=tracer, intensity=SESSION_INTENSITY)
