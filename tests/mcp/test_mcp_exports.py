"""`nereid.mcp` is the import point: every name in `__all__` exists, once."""

from __future__ import annotations

import nereid.mcp


def test_all_names_exist_and_are_unique() -> None:
    names = nereid.mcp.__all__
    assert len(names) == len(set(names))
    for name in names:
        assert hasattr(nereid.mcp, name), name
