"""The guard of the optional native (mypyc) build: compiled modules load only while fresh.

The build backend (`hatch_build.py`, see docs/native.md) may compile some pure modules
with mypyc into the `_nereid_native` package beside `nereid`, together with a manifest of
the digests of every source the compile read. Nothing there is importable by its own
name: `install` puts a finder first on `sys.meta_path` that hands out a compiled module
only when every source of its group (its own modules and everything they import from
`nereid`) still has the digest it had at build time. A stale group loads the `.py` files,
so an edit always takes effect. Modules of one group call each other directly, so a group
is native or pure as a whole. `NEREID_PURE=1` or a non-CPython interpreter keeps
everything pure.

This module is imported by `nereid/__init__.py` on every start, so it imports nothing
that start-up does not already pay for.
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, ModuleSpec, PathFinder
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

PACKAGE = "_nereid_native"
"""The top-level package the build writes the compiled modules and the manifest into."""

MANIFEST = "manifest.txt"
"""One line per fact: `group NAME`, `module DOTTED.NAME`, `source REL/PATH DIGEST`."""

PURE_SWITCH = "NEREID_PURE"
"""Set to 1 to ignore the native build (at run time) or to skip it (at build time)."""


def source_digest(data: bytes) -> str:
    """The digest the manifest records for a source file (the build calls this too)."""
    from _blake2 import blake2b

    return blake2b(data, digest_size=16).hexdigest()


def pure_requested() -> bool:
    """Whether the developer asked for the pure modules only."""
    return os.environ.get(PURE_SWITCH, "") not in ("", "0")


class NativeGroup:
    """One compiled group: its modules and the digests of the sources it was built from."""

    __slots__ = ("fresh", "modules", "name", "sources")

    def __init__(self, name: str) -> None:
        self.name = name
        self.modules: list[str] = []
        self.sources: dict[str, str] = {}
        self.fresh: bool | None = None

    def check(self, root: str) -> bool:
        """Whether every source still has its build-time digest (decided once per process)."""
        if self.fresh is None:
            self.fresh = all(
                _digest_of(os.path.join(root, rel)) == d for rel, d in self.sources.items()
            )
        return self.fresh


def _digest_of(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return source_digest(handle.read())
    except OSError:
        return None


def parse_manifest(text: str) -> list[NativeGroup]:
    """The groups a manifest lists (an unknown or malformed line drops the whole manifest)."""
    groups: list[NativeGroup] = []
    for line in text.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "group" and rest:
            groups.append(NativeGroup(rest))
        elif kind == "module" and rest and groups:
            groups[-1].modules.append(rest)
        elif kind == "source" and groups and len(parts := rest.split(" ")) == 2:
            groups[-1].sources[parts[0]] = parts[1]
        elif line:
            return []
    return groups


class NativeFinder:
    """Finds the compiled form of a module of a fresh group; everything else falls through."""

    def __init__(self, native_dir: str, source_root: str, groups: list[NativeGroup]) -> None:
        self.native_dir = native_dir
        self.source_root = source_root
        self.groups = groups
        self.by_module = {module: group for group in groups for module in group.modules}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        group = self.by_module.get(fullname)
        if group is None or not group.check(self.source_root):
            return None
        base = os.path.join(self.native_dir, *fullname.split("."))
        for suffix in EXTENSION_SUFFIXES:
            if os.path.exists(found := base + suffix):
                spec = ModuleSpec(fullname, ExtensionFileLoader(fullname, found), origin=found)
                spec.has_location = True
                return spec
        group.fresh = False  # a module of the group is missing: the group is not usable
        return None

    def native_modules(self) -> list[str]:
        """The modules that load compiled in this process (checks every group)."""
        return sorted(m for g in self.groups if g.check(self.source_root) for m in g.modules)


def installed_finder() -> NativeFinder | None:
    """The finder `install` put on `sys.meta_path`, if any."""
    return next((f for f in sys.meta_path if isinstance(f, NativeFinder)), None)


def install(source_root: str) -> None:
    """Put the native finder first on `sys.meta_path` when a usable native build is present."""
    if pure_requested() or sys.implementation.name != "cpython" or installed_finder():
        return
    spec = PathFinder.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return
    native_dir = list(spec.submodule_search_locations)[0]
    try:
        with open(os.path.join(native_dir, MANIFEST), encoding="utf-8") as handle:
            groups = parse_manifest(handle.read())
    except OSError:
        return
    if groups:
        sys.meta_path.insert(0, NativeFinder(native_dir, source_root, groups))


def status() -> str:
    """One line for benchmarks and reports: which modules run compiled, and why not."""
    if pure_requested():
        return f"native: no ({PURE_SWITCH}=1)"
    finder = installed_finder()
    if finder is None:
        return "native: no (no native build installed)"
    fresh = [g.name for g in finder.groups if g.check(finder.source_root)]
    stale = [g.name for g in finder.groups if g.name not in fresh]
    count = len(finder.native_modules())
    line = f"native: {'yes' if fresh else 'no'} ({count} modules compiled"
    line += f"; groups {', '.join(fresh) or '-'}"
    if stale:
        line += f"; stale, loaded as .py: {', '.join(stale)}"
    return line + ")"
