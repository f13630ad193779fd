"""`nereid.ops` is the import point: everything in `__all__` exists, and every module lists
what it defines."""

from __future__ import annotations

import importlib
import pkgutil

import nereid.ops


def test_package_exports_exist() -> None:
    for name in nereid.ops.__all__:
        assert hasattr(nereid.ops, name), name
    assert len(set(nereid.ops.__all__)) == len(nereid.ops.__all__)


def test_every_module_declares_all() -> None:
    for module_info in pkgutil.iter_modules(nereid.ops.__path__):
        module = importlib.import_module(f"nereid.ops.{module_info.name}")
        names = getattr(module, "__all__", None)
        assert names is not None, module_info.name
        for name in names:
            assert hasattr(module, name), (module_info.name, name)
