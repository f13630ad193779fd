"""CPU-heavy pure work off the event loop, in worker processes (architecture §8).

`jobs` holds what a worker runs (pure layers only, so a worker starts light);
`dispatch` is the loop side: when to hand work off, budgets, and the regex bound.
"""

import os
from typing import Final

WORKER_NICENESS: Final = 10
"""How much a worker process lowers its CPU priority: on a machine whose cores are all
busy, a worker's job takes its CPU from other background work, not from the event loop
that answers every agent (or, at start-up, the MCP handshake)."""

_niced = False


def as_background() -> None:
    """In a worker process: lower its priority by `WORKER_NICENESS`, once (a worker only
    ever runs jobs)."""
    global _niced
    if _niced:
        return
    _niced = True
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # pragma: no cover - not allowed here: run at the normal priority
        pass
