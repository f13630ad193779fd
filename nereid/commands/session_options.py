"""The main (session) mode's command line: `MainOptions` and its parser (cli.md §2-3, §11).

Kept apart from `nereid.commands.session` (which runs the mode and imports the whole
program) so `nereid.cli` can parse and report usage errors without importing it, and
without an import cycle between the two.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from nereid.tool_names import ToolNames, parse_tool_names, tool_names_from_env

__all__ = ["MainOptions", "UsageError", "option_warnings", "parse_main_args"]


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


def option_warnings(opts: MainOptions) -> list[str]:
    """Options that are accepted but do nothing in the chosen mode."""
    if opts.demo and opts.mcp and opts.durable_writes:
        return ["--durable-writes does nothing with --demo --mcp (the demo lives in memory)"]
    return []
