"""`nereid.query` is the one import point: every public name is exported once and exists."""

from __future__ import annotations

import importlib
import pkgutil

import nereid.query


def test_all_names_exist_and_are_unique() -> None:
    names = nereid.query.__all__
    assert len(names) == len(set(names))
    for name in names:
        assert hasattr(nereid.query, name), name


def test_every_module_declares_all() -> None:
    for info in pkgutil.iter_modules(nereid.query.__path__):
        module = importlib.import_module(f"nereid.query.{info.name}")
        assert isinstance(getattr(module, "__all__", None), list), info.name
        for name in module.__all__:
            assert hasattr(module, name), f"{info.name}.{name}"
