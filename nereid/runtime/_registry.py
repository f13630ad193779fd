"""The registry: actor addresses by name, valid across restarts.

Names follow the architecture: ``diagram:<id>``, ``walkthrough:<id>``,
``attention``, ``xref``, ``persister``, ``session``. A name is registered
when its actor is spawned and forgotten when it is stopped (or the runtime
ends); a new actor may then take the name, with a new address.

A name may also be known before its actor runs (`Supervisor.spawn_on_use`): the first
`lookup` / `get` of it starts the actor, so a session of many diagrams of which few are
used does not start an actor per diagram. Such a name is `in` the registry from the
start; `running` and `names` see only actors that have started.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, final

from ..errors import ActorNotFound
from ._cell import ActorCell, Address

__all__ = ["Registry"]


@final
class Registry:
    """Name → address of every live actor in one runtime. Sync, never blocks."""

    def __init__(self) -> None:
        self._cells: dict[str, ActorCell[Any]] = {}
        #: Names whose actor starts on first use: what starts it (registering its cell).
        self._on_use: dict[str, Callable[[], Address]] = {}

    def lookup(self, name: str) -> Address:
        """The address of actor `name` (started now if it starts on use); raises
        `ActorNotFound` if there is none."""
        address = self.get(name)
        if address is None:
            raise ActorNotFound(f"no actor named {name!r}", actor=name)
        return address

    def get(self, name: str) -> Address | None:
        """The address of actor `name` (started now if it starts on use), or None."""
        cell = self._cells.get(name)
        if cell is not None:
            return cell.address
        start = self._on_use.get(name)
        return None if start is None else start()

    def running(self, name: str) -> Address | None:
        """The address of actor `name` if it has started, else None (never starts it)."""
        cell = self._cells.get(name)
        return None if cell is None else cell.address

    def names(self, prefix: str = "") -> list[str]:
        """Names of the started actors starting with `prefix` (e.g. ``"diagram:"``), sorted."""
        return sorted(name for name in self._cells if name.startswith(prefix))

    def __contains__(self, name: object) -> bool:
        return name in self._cells or name in self._on_use

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
        self._on_use.pop(cell.name, None)
        self._cells[cell.name] = cell

    def _add_on_use(self, name: str, start: Callable[[], Address]) -> None:
        if name in self:
            raise ValueError(f"actor name {name!r} is already registered")
        self._on_use[name] = start

    def _forget_on_use(self, name: str) -> None:
        self._on_use.pop(name, None)

    def _forget(self, cell: ActorCell[Any]) -> None:
        if self._cells.get(cell.name) is cell:
            del self._cells[cell.name]
