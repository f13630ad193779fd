"""The registry: actor addresses by name, valid across restarts.

Names follow the architecture: ``diagram:<id>``, ``walkthrough:<id>``,
``attention``, ``xref``, ``persister``, ``session``. A name is registered
when its actor is spawned and forgotten when it is stopped (or the runtime
ends); a new actor may then take the name, with a new address.
"""

from __future__ import annotations

from typing import Any, final

from ..errors import ActorNotFound
from ._cell import ActorCell, Address

__all__ = ["Registry"]


@final
class Registry:
    """Name → address of every live actor in one runtime. Sync, never blocks."""

    def __init__(self) -> None:
        self._cells: dict[str, ActorCell[Any]] = {}

    def lookup(self, name: str) -> Address:
        """The address of actor `name`; raises `ActorNotFound` if there is none."""
        cell = self._cells.get(name)
        if cell is None:
            raise ActorNotFound(f"no actor named {name!r}", actor=name)
        return cell.address

    def get(self, name: str) -> Address | None:
        """The address of actor `name`, or None."""
        cell = self._cells.get(name)
        return None if cell is None else cell.address

    def names(self, prefix: str = "") -> list[str]:
        """Registered names starting with `prefix` (e.g. ``"diagram:"``), sorted."""
        return sorted(name for name in self._cells if name.startswith(prefix))

    def __contains__(self, name: object) -> bool:
        return name in self._cells

    def crash(self, name: str) -> None:
        """Fault injection: crash actor `name` as an unexpected exception would.

        See `Supervisor.kill`. Raises `ActorNotFound` for an unknown name.
        """
        cell = self._cells.get(name)
        if cell is None:
            raise ActorNotFound(f"no actor named {name!r}", actor=name)
        cell.supervisor.kill(name)

    def _add(self, cell: ActorCell[Any]) -> None:
        if cell.name in self._cells:
            raise ValueError(f"actor name {cell.name!r} is already registered")
        self._cells[cell.name] = cell

    def _forget(self, cell: ActorCell[Any]) -> None:
        if self._cells.get(cell.name) is cell:
            del self._cells[cell.name]
