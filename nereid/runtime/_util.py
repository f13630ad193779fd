"""Small runtime-internal helpers."""

from __future__ import annotations

from typing import Any, NoReturn

__all__ = ["NoPublicConstructor"]


class NoPublicConstructor(type):
    """Metaclass: `Cls(...)` is refused; the runtime builds instances with `Cls._create`.

    For handles whose validity depends on the runtime that made them
    (`Address`, `Supervisor`, `Runtime`).
    """

    def __call__(cls, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(f"{cls.__module__}.{cls.__qualname__} has no public constructor")

    def _create(cls, *args: Any, **kwargs: Any) -> Any:
        return super().__call__(*args, **kwargs)
