"""Build hook: compile some pure modules with mypyc into `_nereid_native` (docs/native.md).

Hatchling runs `NativeBuildHook` for every wheel, editable or not (`uv sync`, `uv run`,
`uv build`). The compile runs in a child process (`python hatch_build.py compile ...`) so
that any failure there (no C compiler, a mypyc error, a crash) leaves a pure wheel and a
warning, never a failed install. The groups and flags live in pyproject.toml under
`[tool.hatch.build.targets.wheel.hooks.custom]`; the manifest format and the digest are
those of `nereid/_native.py`, which reads them back at run time.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent


def _guard_module() -> ModuleType:
    """nereid/_native.py, loaded by path (the build environment does not install nereid)."""
    spec = importlib.util.spec_from_file_location(
        "_nereid_native_guard", ROOT / "nereid/_native.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def group_files(patterns: list[str]) -> list[str]:
    """The .py files (relative to the root, sorted) a group's entries name; no `__init__.py`."""
    found: set[str] = set()
    for entry in patterns:
        path = ROOT / entry
        files = sorted(path.glob("*.py")) if path.is_dir() else [path]
        found.update(f.relative_to(ROOT).as_posix() for f in files if f.name != "__init__.py")
    return sorted(found)


def _module_name(rel: str) -> str:
    return rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def _module_file(name: str) -> str | None:
    base = ROOT / name.replace(".", "/")
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate.relative_to(ROOT).as_posix()
    return None


def import_closure(files: list[str]) -> list[str]:
    """Every nereid source the compiled code of `files` depends on: the files and what they
    import from `nereid` (anywhere in the file, TYPE_CHECKING included), transitively. A
    change to any of them makes the group stale. (Parent packages' `__init__.py` files run
    but define nothing the compiled code uses unless it imports from them, which counts.)"""
    seen: set[str] = set()
    todo = list(files)
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        seen.add(rel)
        tree = ast.parse((ROOT / rel).read_bytes(), rel)
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            for name in names:
                if name.split(".")[0] == "nereid" and (found := _module_file(name)):
                    todo.append(found)
    return sorted(seen)


def write_manifest(groups: dict[str, list[str]], path: Path) -> None:
    digest = _guard_module().source_digest
    lines: list[str] = []
    for name, files in groups.items():
        lines.append(f"group {name}")
        lines.extend(f"module {_module_name(rel)}" for rel in files)
        for rel in import_closure(files):
            lines.append(f"source {rel} {digest((ROOT / rel).read_bytes())}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def compile_groups(config: dict[str, Any], out: Path) -> None:
    """Child process: mypyc + setuptools build_ext, the libraries into `out/lib`."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    groups = {name: group_files(entries) for name, entries in config["groups"].items()}
    package = _guard_module().PACKAGE
    files = [rel for rel in groups.values() for rel in rel]
    if len(groups) == 1:
        options: dict[str, Any] = {"group_name": f"{package}.{next(iter(groups))}"}
    else:
        options = {"separate": [(rels, f"{package}.{name}") for name, rels in groups.items()]}
    extensions = mypycify(
        files,
        opt_level=str(config.get("opt-level", "3")),
        debug_level="0",
        multi_file=bool(config.get("multi-file", False)),
        target_dir=str(out / "c"),
        **options,
    )
    for extension in extensions:  # a dotted group name puts its headers one level down
        extension.include_dirs.append(str(out / "c" / package))
    dist = Distribution(
        {
            "name": "nereid-native",
            "ext_modules": extensions,
            "cmdclass": {"build_ext": _build_ext_class()},
        }
    )
    command: Any = dist.get_command_obj("build_ext")
    command.build_lib = str(out / "lib")
    command.build_temp = str(out / "temp")
    command.parallel = os.cpu_count() or 1
    dist.run_command("build_ext")
    write_manifest(groups, out / "lib" / package / _guard_module().MANIFEST)


def _parallel_compile(compiler: Any) -> None:
    """Compile the C files of one extension on every core (distutils does one at a time)."""
    from concurrent.futures import ThreadPoolExecutor

    one_by_one = compiler.compile

    def compile_all(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
        if len(sources) < 2:
            return list(one_by_one(sources, *args, **kwargs))
        with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            parts = pool.map(lambda source: one_by_one([source], *args, **kwargs), sources)
            return [obj for part in parts for obj in part]

    compiler.compile = compile_all


def _build_ext_class() -> type:
    from setuptools.command.build_ext import build_ext

    class BuildExt(build_ext):  # type: ignore[misc]
        def build_extensions(self) -> None:
            _parallel_compile(self.compiler)
            super().build_extensions()

    return BuildExt


def skip_reason() -> str | None:
    """Why this build stays pure, or None to try the native one."""
    guard = _guard_module()
    if guard.pure_requested():
        return f"{guard.PURE_SWITCH}=1"
    if sys.implementation.name != "cpython":
        return f"{sys.implementation.name} is not CPython"
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed in the build environment"
    return None


def native_files(config: dict[str, Any], out: Path) -> tuple[dict[str, str], str]:
    """Compile in a child process; the wheel paths of its libraries, or none and why."""
    if (reason := skip_reason()) is not None:
        return {}, reason
    started = time.monotonic()
    env = dict(os.environ, MYPY_CACHE_DIR=str(out / "mypy-cache"))
    config_text = repr(config)
    try:
        done = subprocess.run(
            [sys.executable, __file__, "compile", str(out), config_text],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=float(config.get("timeout", 1200)),
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return {}, f"the compile did not finish ({error})"
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        return {}, f"the compile failed (exit {done.returncode}):\n{tail}"
    lib = out / "lib"
    package = _guard_module().PACKAGE
    files: dict[str, str] = {}
    for path in sorted(lib.rglob("*")):
        if path.is_file():
            rel = path.relative_to(lib).as_posix()
            files[str(path)] = rel if rel.startswith(f"{package}/") else f"{package}/{rel}"
    return files, f"compiled {len(files) - 1} libraries in {time.monotonic() - started:.0f} s"


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # the child process of `native_files` needs only the functions above
    BuildHookInterface = object  # type: ignore[assignment,misc]


class NativeBuildHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    """Adds the compiled modules to the wheel (editable too); a pure wheel when it cannot."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        self._out = Path(tempfile.mkdtemp(prefix="nereid-native-"))
        files, note = native_files(dict(self.config), self._out)
        print(f"nereid native build: {note}", file=sys.stderr)
        if not files:
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        key = "force_include_editable" if version == "editable" else "force_include"
        build_data[key].update(files)

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if getattr(self, "_out", None) is not None:
            shutil.rmtree(self._out, ignore_errors=True)


if __name__ == "__main__" and sys.argv[1:2] == ["compile"]:
    compile_groups(ast.literal_eval(sys.argv[3]), Path(sys.argv[2]))
