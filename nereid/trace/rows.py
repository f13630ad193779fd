"""A list walker that makes row widgets only for the rows on screen.

A trace log holds tens of thousands of events; building a widget per event on every filter
change or follow poll takes seconds. `LazyRows` keeps the plain items (entries, call steps)
and builds a row widget when the `ListBox` asks for its position, caching a bounded number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final, Generic, TypeVar

import urwid

__all__ = ["LazyRows"]

ItemT = TypeVar("ItemT")

_CACHE_LIMIT: Final = 2_000


class LazyRows(urwid.ListWalker[int, Any], Generic[ItemT]):
    """Integer positions over `items`; `make(item)` builds the widget of one item."""

    def __init__(self, make: Callable[[ItemT], urwid.Widget]) -> None:
        self._items: list[ItemT] = []
        self._make = make
        self._cache: dict[int, urwid.Widget] = {}
        self.focus = 0

    @property
    def items(self) -> list[ItemT]:
        """The items, in order (do not modify; use `replace`/`extend`)."""
        return self._items

    def replace(self, items: Iterable[ItemT], make: Callable[[ItemT], urwid.Widget]) -> None:
        """Show other items (focus goes to the first row until `set_focus`)."""
        self._items = list(items)
        self._make = make
        self._cache.clear()
        self.focus = 0
        self._modified()

    def extend(self, items: Iterable[ItemT]) -> None:
        """Append rows; the focus stays where it is."""
        self._items.extend(items)
        self._modified()

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, position: int) -> urwid.Widget:
        if not 0 <= position < len(self._items):
            raise IndexError(position)
        widget = self._cache.get(position)
        if widget is None:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            widget = self._cache[position] = self._make(self._items[position])
        return widget

    def next_position(self, position: int) -> int:
        if position + 1 >= len(self._items):
            raise IndexError(position + 1)
        return position + 1

    def prev_position(self, position: int) -> int:
        if position <= 0:
            raise IndexError(position - 1)
        return position - 1

    def set_focus(self, position: int) -> None:
        if self._items and not 0 <= position < len(self._items):
            raise IndexError(position)
        self.focus = position
        self._modified()

    def positions(self, reverse: bool = False) -> Iterator[int]:
        indexes = range(len(self._items))
        return iter(reversed(indexes) if reverse else indexes)
