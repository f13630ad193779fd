"""Command line: picks the mode (TUI, stdio MCP, headless HTTP, or a subcommand) and starts it.

Subcommands (`nereid check`, `nereid render`, `nereid serve`, `nereid trace`) live in
`nereid/commands/<name>.py`, each with `run(argv) -> int`; this module only dispatches to them
and parses the main (session) mode, whose rules are in `shared/spec/cli.md` §2-3 and §11.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from nereid import __version__
from nereid.tool_names import ToolNames, parse_tool_names, tool_names_from_env

__all__ = ["MainOptions", "UsageError", "main", "option_warnings", "parse_main_args"]

DEFAULT_PORT = 27435

SUBCOMMANDS: dict[str, str] = {
    "check": "validate Mermaid files (compiler-style errors)",
    "render": "print a Mermaid file as text art",
    "serve": "serve MCP over Streamable HTTP without a TUI",
    "trace": "view a message-trace log",
}


class UsageError(Exception):
    """A command line that cannot be run; the message says exactly what is wrong."""


@dataclass
class MainOptions:
    """The main (session) mode's options after parsing."""

    session_dir: str | None = None
    demo: bool = False
    mcp: bool = False
    mcp_http_port: int | None = None
    durable_writes: bool = False
    trace: str | None = None
    tool_names: ToolNames = "dotted"


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
  -h/--help prints this text; --version prints the version.
Commands:
""" + "".join(f"  {name:<8} {text}\n" for name, text in SUBCOMMANDS.items())


def _parse_port(text: str) -> int:
    digits = text[1:] if text.startswith("+") else text
    if not digits.isdigit() or not digits.isascii() or int(digits) > 65535:
        raise UsageError(f"invalid port {text!r} (expected 0-65535)")
    return int(digits)


def parse_main_args(argv: Sequence[str]) -> MainOptions:
    """Parse the main mode's arguments (cli.md §2-3 with §11's improvements).

    Raises UsageError with one specific reason; never exits.
    """
    opts = MainOptions()
    seen: set[str] = set()
    args = list(argv)
    i = 0
    only_positionals = False

    def set_folder(value: str, source: str) -> None:
        if opts.session_dir is not None:
            raise UsageError(f"session folder given twice ({source} {value!r})")
        opts.session_dir = value

    while i < len(args):
        arg = args[i]
        i += 1
        if only_positionals or not arg.startswith("-") or arg == "-":
            if arg == "-" and not only_positionals:
                raise UsageError("unexpected argument '-'")
            if opts.session_dir is not None:
                raise UsageError(f"unexpected extra argument {arg!r}")
            set_folder(arg, "positional")
            continue
        if arg == "--":
            only_positionals = True
            continue
        name, eq, inline = arg.partition("=")
        if name in ("--demo", "--mcp", "--durable-writes"):
            if eq:
                raise UsageError(f"option {name} takes no value")
            if name in seen:
                raise UsageError(f"duplicate option {name}")
            seen.add(name)
            setattr(opts, name[2:].replace("-", "_"), True)
            continue
        if name in ("--session", "--mcp-http-port", "--trace", "--tool-names"):
            if name in seen and name != "--session":
                raise UsageError(f"duplicate option {name}")
            seen.add(name)
            if eq:
                value = inline
            else:
                if i >= len(args):
                    raise UsageError(f"option {name} needs a value")
                value = args[i]
                i += 1
                if value.startswith("-") and name != "--mcp-http-port":
                    raise UsageError(
                        f"option {name} got {value!r}, which looks like an option "
                        f"(write {name}={value} if you mean it)"
                    )
            if name == "--session":
                set_folder(value, "--session")
            elif name == "--trace":
                opts.trace = value
            elif name == "--tool-names":
                try:
                    opts.tool_names = parse_tool_names(value)
                except ValueError as err:
                    raise UsageError(str(err)) from None
            else:
                opts.mcp_http_port = _parse_port(value)
            continue
        raise UsageError(f"unknown option {arg!r}")

    if opts.demo and opts.session_dir is not None:
        raise UsageError("--demo cannot be combined with a session directory")
    if opts.mcp and opts.mcp_http_port is not None:
        raise UsageError("--mcp-http-port is only valid in TUI mode (not with --mcp)")
    if opts.trace is None and os.environ.get("NEREID_TRACE"):
        opts.trace = os.environ["NEREID_TRACE"]
    if "--tool-names" not in seen:
        try:
            opts.tool_names = tool_names_from_env() or "dotted"
        except ValueError as err:
            raise UsageError(str(err)) from None
    return opts


def _run_main_mode(opts: MainOptions) -> int:
    """Start the chosen main mode (TUI + HTTP MCP, or stdio MCP)."""
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


def option_warnings(opts: MainOptions) -> list[str]:
    """Options that are accepted but do nothing in the chosen mode."""
    if opts.demo and opts.mcp and opts.durable_writes:
        return ["--durable-writes does nothing with --demo --mcp (the demo lives in memory)"]
    return []
