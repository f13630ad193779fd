"""`nereid render FILE`: print a Mermaid flowchart or sequence diagram as text art.

The file is read as UTF-8 (`-` reads standard input, named `<stdin>`), its kind detected
(mermaid.md §2), parsed and rendered with Unicode box drawing, or pure ASCII with `--ascii`.
A session walkthrough file (`*.wt.json`) is rendered as a walkthrough.
`--width N` wraps labels longer than N cells (never cuts them). Parse errors print as
`file:line:col: message`; exit status 1 for an unreadable, invalid or undrawable file, 2 for a
bad command line.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from nereid.mermaid import MermaidError, parse_mermaid
from nereid.model.sequence import SequenceAst
from nereid.model.state import StateAst
from nereid.render import (
    RenderError,
    RenderOptions,
    render_flowchart,
    render_sequence,
    render_state,
    render_walkthrough,
)

__all__ = ["USAGE", "render_text", "render_walkthrough_file", "run"]

USAGE = """Usage: nereid render [--ascii] [--width N] FILE

Print a Mermaid flowchart or sequence diagram as text art ('-' reads standard input);
a session walkthrough file (*.wt.json) is drawn as a walkthrough.

Options:
  --ascii      draw with plain ASCII (- | + > <) instead of Unicode box drawing
  --width N    wrap labels longer than N cells (N >= 4; default 30)
  -h, --help   print this text
Exit status: 0 on success, 1 if the file cannot be read, parsed or drawn, 2 for a bad command line.
"""


class _Usage(Exception):
    """A command line that cannot be run."""


def render_text(text: str, diagram_id: str, options: RenderOptions) -> str:
    """Parse Mermaid `text` and render it; raises MermaidError or RenderError."""
    ast = parse_mermaid(text)
    if isinstance(ast, SequenceAst):
        return render_sequence(ast, diagram_id, options).text
    if isinstance(ast, StateAst):
        return render_state(ast, diagram_id, options).text
    return render_flowchart(ast, diagram_id, options).text


def render_walkthrough_file(data: bytes, path: str, options: RenderOptions) -> str:
    """Render a session `.wt.json` file; raises StoreFileError or RenderError."""
    from nereid.store.contents import walkthrough_from_file
    from nereid.store.schema import decode_walkthrough

    walkthrough = walkthrough_from_file(decode_walkthrough(data, path))
    return render_walkthrough(walkthrough, options).text


def _parse_args(argv: Sequence[str]) -> tuple[str, RenderOptions] | None:
    ascii_only = False
    width: int | None = None
    paths: list[str] = []
    args = list(argv)
    only_paths = False
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if only_paths or arg == "-" or not arg.startswith("-"):
            paths.append(arg)
        elif arg == "--":
            only_paths = True
        elif arg in ("-h", "--help"):
            return None
        elif arg == "--ascii":
            ascii_only = True
        elif arg == "--width" or arg.startswith("--width="):
            if arg == "--width":
                if i >= len(args):
                    raise _Usage("option --width needs a value")
                value = args[i]
                i += 1
            else:
                value = arg.partition("=")[2]
            if not (value.isascii() and value.isdigit()) or int(value) < 4:
                raise _Usage(f"invalid --width {value!r} (expected a whole number >= 4)")
            width = int(value)
        else:
            raise _Usage(f"unknown option {arg!r}")
    if len(paths) != 1:
        raise _Usage("no file given" if not paths else f"one file at a time (got {len(paths)})")
    options = RenderOptions(ascii=ascii_only)
    if width is not None:
        options = RenderOptions(ascii=ascii_only, max_label_width=width)
    return paths[0], options


def _diagram_id(path: str) -> str:
    if path == "-":
        return "stdin"
    stem = os.path.basename(path).split(".", 1)[0]
    return stem or "diagram"


def run(argv: Sequence[str]) -> int:
    """Entry point of `nereid render`; returns the exit status."""
    try:
        parsed = _parse_args(argv)
    except _Usage as err:
        sys.stderr.write(f"nereid render: {err}\n\n{USAGE}")
        return 2
    if parsed is None:
        sys.stdout.write(USAGE)
        return 0
    path, options = parsed
    name = "<stdin>" if path == "-" else path
    if path.endswith(".wt.json"):
        return _run_walkthrough(path, options)
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        sys.stderr.write(f"{name}: {reason}\n")
        return 1
    try:
        art = render_text(text, _diagram_id(path), options)
    except MermaidError as err:
        sys.stderr.write(f"{name}:{err.location()}: {err}\n")
        return 1
    except RenderError as err:
        sys.stderr.write(f"{name}: {err}\n")
        return 1
    sys.stdout.write(art + "\n" if art else "")
    return 0


def _run_walkthrough(path: str, options: RenderOptions) -> int:
    from nereid.store.schema import StoreFileError

    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:
        sys.stderr.write(f"{path}: {err.strerror or err}\n")
        return 1
    try:
        art = render_walkthrough_file(data, path, options)
    except StoreFileError as err:
        sys.stderr.write(f"{err}\n")
        return 1
    except RenderError as err:
        sys.stderr.write(f"{path}: {err}\n")
        return 1
    sys.stdout.write(art + "\n" if art else "")
    return 0
