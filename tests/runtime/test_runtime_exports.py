"""`nereid.runtime` is the one import point: every public name exported exactly once."""

from __future__ import annotations

import types

import nereid.errors
import nereid.runtime


def test_actors_all_lists_every_public_name_once() -> None:
    exported = nereid.runtime.__all__
    assert len(exported) == len(set(exported))
    public = {
        name
        for name, value in vars(nereid.runtime).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == set(exported)
    for name in exported:
        assert getattr(nereid.runtime, name) is not None


def test_public_classes_come_from_private_modules_only_via_the_package() -> None:
    for name in nereid.runtime.__all__:
        value = getattr(nereid.runtime, name)
        module = getattr(value, "__module__", None)
        if module is not None and isinstance(value, type):
            assert module.startswith("nereid.runtime._"), (name, module)


def test_errors_all_matches_and_every_error_has_a_jsonrpc_code() -> None:
    exported = nereid.errors.__all__
    assert len(exported) == len(set(exported))
    for name in exported:
        value = getattr(nereid.errors, name)
        if isinstance(value, type):
            assert issubclass(value, nereid.errors.NereidError)
            assert value.code in (-32602, -32600, -32002, -32603)
    assert nereid.errors.Conflict.code == -32600
    assert nereid.errors.ActorRestarted.retryable
    assert not nereid.errors.ActorDown.retryable
