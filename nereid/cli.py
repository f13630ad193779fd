"""Command line: picks the mode (TUI, stdio MCP, headless HTTP, or a subcommand) and starts it.

Subcommands (`nereid check`, `nereid render`, `nereid serve`, `nereid trace`) live in
`nereid/commands/<name>.py`, each with `run(argv) -> int`; the main (session) mode is
`nereid/commands/session.py`, its options `nereid/commands/session_options.py` (rules in
`shared/spec/cli.md` §2-3 and §11). This module only prints help and dispatches, and imports
a mode's module only when that mode runs.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext

from nereid import __version__
from nereid.commands.session_options import (
    MainOptions,
    UsageError,
    option_warnings,
    parse_main_args,
)
from nereid.endpoint_address import DEFAULT_PORT

__all__ = ["MainOptions", "UsageError", "main", "option_warnings", "parse_main_args"]

SUBCOMMANDS: dict[str, str] = {
    "check": "validate Mermaid files (compiler-style errors)",
    "render": "print a Mermaid file as text art",
    "serve": "serve MCP over Streamable HTTP without a TUI",
    "trace": "view a message-trace log",
}


def usage(prog: str) -> str:
    return f"""Usage:
  {prog} [<session-dir>] [--durable-writes] [--mcp-http-port <port>]
  {prog} [--session <dir>] [--durable-writes] [--mcp-http-port <port>]
  {prog} --demo [--mcp-http-port <port>]
  {prog} [<session-dir>] [--durable-writes] --mcp
  {prog} [--session <dir>] [--durable-writes] --mcp
  {prog} --demo --mcp
  {prog} <command> [args...]     commands: {", ".join(SUBCOMMANDS)}

Notes:
  TUI mode serves MCP over Streamable HTTP at http://127.0.0.1:<port>/mcp.
  --mcp-http-port picks the port: 0 means ephemeral, and the default is {DEFAULT_PORT}.
  Omitting the folder means the current working directory.
  --demo uses the built-in demo session and cannot be combined with a folder.
  --durable-writes fsyncs every write before it is acknowledged (slower, crash-safe).
  --trace FILE (or NEREID_TRACE) records every actor message as JSON lines.
  --tool-names dotted|underscore (or NEREID_TOOL_NAMES) picks how MCP tools are listed:
    dotted (diagram.list, the default) or underscore (diagram_list) for hosts that reject
    dots (Claude Desktop, Codex, Copilot CLI); calls accept both spellings either way.
  NEREID_CACHE_DIR names the parse cache (default ~/.cache/nereid; empty: no cache).
  -h/--help prints this text; --version prints the version.
Commands:
""" + "".join(f"  {name:<8} {text}\n" for name, text in SUBCOMMANDS.items())


@contextmanager
def _imports_uncollected() -> Iterator[None]:
    """No garbage collection while the server's modules import, then freeze them.

    What an import builds (the SDK's pydantic models above all) lives as long as the
    process, so collecting meanwhile walks it again and again: a tenth of the stdio
    start-up's CPU, paid before the first reply. `nereid --mcp` unfreezes the heap and
    collects it once after its first reply (`settle_heap`), so an import's garbage is
    freed then.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _run_main_mode(opts: MainOptions) -> int:
    """Start the chosen main mode (TUI + HTTP MCP, or stdio MCP)."""
    with _imports_uncollected() if opts.mcp else nullcontext():
        from nereid.commands.session import run_main

    return run_main(opts)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `nereid` console script; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    prog = os.path.basename(sys.argv[0]) if argv is None and sys.argv and sys.argv[0] else "nereid"
    if prog in ("__main__.py", "-c", ""):
        prog = "nereid"
    if args and args[0] in SUBCOMMANDS:
        module = importlib.import_module(f"nereid.commands.{args[0]}")
        code: int = module.run(args[1:])
        return code
    if any(a in ("-h", "--help") for a in args):
        sys.stdout.write(usage(prog))
        return 0
    if "--version" in args:
        print(f"nereid {__version__}")
        return 0
    try:
        opts = parse_main_args(args)
    except UsageError as err:
        sys.stderr.write(f"{prog}: error: {err}\n\n{usage(prog)}")
        return 2
    for warning in option_warnings(opts):
        sys.stderr.write(f"{prog}: warning: {warning}\n")
    return _run_main_mode(opts)
