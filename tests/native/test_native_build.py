"""The optional native build (docs/native.md): the compiled modules render exactly what the
pure ones do, a stale group loads its .py files, and a build that cannot compile is pure.

The parity tests compare this process (native when the build is installed and fresh) with
a child process started with `NEREID_PURE=1`. Under CI (`CI` set) the native build must be
loaded, so a build that silently fell back to pure fails here instead of passing vacuously.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from nereid import _native
from nereid.testing.hostile import mermaid_texts
from tests.native.render_digests import diagram_sources, differences, render_digest

ROOT = Path(__file__).resolve().parents[2]


def _require_native() -> _native.NativeFinder:
    """The installed finder with at least one fresh group; skips (fails under CI) without."""
    finder = _native.installed_finder()
    if finder is None or not finder.native_modules():
        if os.environ.get("CI") and not _native.pure_requested():
            pytest.fail(f"CI expects the native build: {_native.status()}")
        pytest.skip(_native.status())
    return finder


def test_native_modules_render_exactly_what_the_pure_ones_do() -> None:
    finder = _require_native()
    sources = list(diagram_sources(generated=30))
    found = differences(sources)
    assert not found, f"{_native.status()}: {len(found)} of {2 * len(sources)}:\n" + "\n".join(
        found[:10]
    )
    assert "nereid.render.flowchart.layout" in finder.native_modules(), _native.status()


def test_hostile_diagrams_fail_alike_in_both_builds() -> None:
    """mypyc checks annotations at run time: an annotation that lies becomes a TypeError in
    the native build only. Hostile texts must give the same render or the same error."""
    _require_native()
    seen: list[tuple[str, str]] = []

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(mermaid_texts())
    def renders_or_refuses(text: str) -> None:
        for ascii_only in (False, True):
            render_digest(text, ascii_only=ascii_only)  # a TypeError escapes and fails here
        seen.append((f"hostile/{len(seen)}", text))

    renders_or_refuses()
    found = differences(seen)
    assert not found, "\n".join(found[:10])


def _status_in(source_root: Path) -> str:
    """`_native.status()` and where layout loads from, for a process importing `nereid` from
    `source_root` (with this environment's installed native build)."""
    code = (
        "import nereid, nereid._native as n, nereid.render.flowchart.layout as m; "
        "print(n.status()); print(m.__file__)"
    )
    env = dict(os.environ, PYTHONPATH=str(source_root))
    env.pop("NEREID_PURE", None)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=source_root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_an_edited_source_loads_as_python(tmp_path: Path) -> None:
    """A group any of whose sources changed since the build is loaded from its .py files,
    the others stay native; an unchanged copy of the sources is native."""
    _require_native()
    shutil.copytree(ROOT / "nereid", tmp_path / "nereid", ignore=shutil.ignore_patterns("*.pyc"))
    fresh = _status_in(tmp_path)
    assert "native: yes" in fresh and fresh.splitlines()[1].endswith(".so"), fresh
    spans = tmp_path / "nereid/render/spans.py"
    spans.write_text(spans.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    stale = _status_in(tmp_path)
    assert "stale, loaded as .py: flow" in stale, stale
    assert stale.splitlines()[1] == str(tmp_path / "nereid/render/flowchart/layout.py"), stale


def _copy_project(target: Path, groups: str) -> None:
    for name in ("pyproject.toml", "hatch_build.py", "README.md"):
        shutil.copy2(ROOT / name, target / name)
    shutil.copytree(ROOT / "nereid", target / "nereid", ignore=shutil.ignore_patterns("*.pyc"))
    text = (target / "pyproject.toml").read_text(encoding="utf-8")
    head, _, rest = text.partition("[tool.hatch.build.targets.wheel.hooks.custom.groups]\n")
    tail = rest[rest.index("]\n") + 2 :]
    (target / "pyproject.toml").write_text(f"{head}{groups}{tail}", encoding="utf-8")


@pytest.mark.skipif(shutil.which("uv") is None, reason="uv builds the wheel")
@pytest.mark.parametrize("why", ["CC=/bin/false", "NEREID_PURE=1"])
def test_a_build_that_cannot_compile_gives_a_pure_wheel(tmp_path: Path, why: str) -> None:
    """A real `uv build` of a copy of the project (one small module in the group, to keep it
    short): without a working C compiler, or with the switch, the wheel is pure, with no error."""
    project = tmp_path / "project"
    project.mkdir()
    _copy_project(
        project,
        '[tool.hatch.build.targets.wheel.hooks.custom.groups]\nt = ["nereid/render/glyphs.py"]\n',
    )
    name, _, value = why.partition("=")
    env = dict(os.environ, **{name: value})
    if name == "CC":
        env.pop("NEREID_PURE", None)
    done = subprocess.run(
        ["uv", "build", "--wheel", "--out-dir", str(tmp_path / "dist"), str(project)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert "nereid/render/glyphs.py" in names
    assert not [n for n in names if n.startswith("_nereid_native/")], names


def test_compiled_modules_define_no_msgspec_struct() -> None:
    """mypyc compiles a msgspec Struct without its class options: a frozen Struct becomes
    mutable and unhashable (GlyphSet did). Modules that define Structs stay pure."""
    import importlib

    import msgspec

    finder = _require_native()
    found = []
    for name in finder.native_modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, msgspec.Struct)
                and value.__module__ == name
            ):
                found.append(f"{name}.{value.__qualname__}")
    assert not found, f"Structs in compiled modules: {found}"
