"""`nereid trace FILE`: view a message-trace log; and `open_trace_sink` for the session wiring.

On a terminal (stdin and stdout are TTYs, no `--plain`) this opens the urwid viewer.
Otherwise it prints the timeline as plain text with the same filters as flags, or per-actor
figures (`--stats`), one request's path (`--request ID`), or a Mermaid `sequenceDiagram` of
the slice (`--mermaid`). Malformed lines are skipped and reported on standard error.
Exit status: 0 on success (even with skipped lines), 1 if the file cannot be read or the
slice is empty for `--mermaid`, 2 for a bad command line.

The reading and formatting live in `nereid.trace`, which may not import the actor runtime;
`open_trace_sink` is here because it builds the runtime's `FileSink`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final, TextIO

from nereid.runtime import FileSink
from nereid.trace.calls import format_step, request_path
from nereid.trace.filters import TimeParseError, TraceFilter, parse_time
from nereid.trace.mermaid_export import EmptySliceError, export_sequence_diagram
from nereid.trace.reader import SkippedLines, TraceLogReader
from nereid.trace.stats import collect_stats, format_stats
from nereid.trace.text import format_entry

__all__ = [
    "DEFAULT_TRACE_BACKUPS",
    "DEFAULT_TRACE_MAX_BYTES",
    "follow_plain",
    "open_trace_sink",
    "run",
]

#: Size cap of the live trace file before it rotates to `FILE.1` (about 10 MB).
DEFAULT_TRACE_MAX_BYTES: Final = 10_000_000
#: Rotated files kept (`FILE.1` ... `FILE.3`), so the log never exceeds ~40 MB.
DEFAULT_TRACE_BACKUPS: Final = 3
_FOLLOW_POLL_SECONDS: Final = 0.25


def open_trace_sink(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_TRACE_MAX_BYTES,
    backups: int = DEFAULT_TRACE_BACKUPS,
) -> FileSink:
    """The sink for `--trace FILE` / `NEREID_TRACE`: appends JSON lines, rotates at the cap.

    Use as `open_runtime(tracer=Tracer(open_trace_sink(path)))` and close the tracer at the
    end. Raises `OSError` (with the path) if the file cannot be opened for appending.
    """
    return FileSink(Path(path), max_bytes=max_bytes, backups=backups)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nereid trace",
        description="View a message-trace log (JSON lines written by --trace FILE).",
        epilog="On a terminal the log opens in a viewer (press ? for its keys); "
        "piped or with --plain it prints text. Times are UTC.",
    )
    parser.add_argument("file", metavar="FILE", help="the trace log")
    parser.add_argument("--plain", action="store_true", help="print text even on a terminal")
    parser.add_argument("--actor", metavar="GLOB", help="events at or sent by matching actors")
    parser.add_argument("--type", dest="msg_type", metavar="GLOB", help="message type (glob)")
    parser.add_argument("--corr", metavar="ID", help="one correlation id")
    parser.add_argument(
        "--errors", action="store_true", help="errors, crashes, restarts, timeouts only"
    )
    parser.add_argument("--since", metavar="TIME", help="10s, 5m, 2h, 1d ago, or an ISO time")
    parser.add_argument("--until", metavar="TIME", help="same forms as --since")
    parser.add_argument("--follow", action="store_true", help="keep reading new lines")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--stats", action="store_true", help="per actor: messages, p50/p99, ...")
    output.add_argument("--request", metavar="ID", help="one request's whole path, as a tree")
    output.add_argument("--mermaid", action="store_true", help="a Mermaid sequenceDiagram")
    return parser


def _selection(args: argparse.Namespace, now: float) -> TraceFilter:
    return TraceFilter(
        actor=args.actor,
        msg_type=args.msg_type,
        correlation_id=args.corr,
        problems_only=args.errors,
        since=None if args.since is None else parse_time(args.since, now),
        until=None if args.until is None else parse_time(args.until, now),
    )


def _report(skipped: SkippedLines, path: str) -> None:
    if skipped.count:
        sys.stderr.write(f"nereid trace: {skipped.describe(path)}\n")


def follow_plain(
    reader: TraceLogReader,
    selection: TraceFilter,
    out: TextIO,
    *,
    keep_going: Callable[[], bool] = lambda: True,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Print matching entries as the log grows, until `keep_going()` is False (or Ctrl-C).

    A missing file is waited for (the runtime replaces it when it rotates), like `tail -F`;
    other `OSError`s are raised.
    """
    try:
        while keep_going():
            try:
                fresh = reader.read_new(final=False)
            except FileNotFoundError:
                fresh = []
            for entry in fresh:
                if selection.matches(entry):
                    out.write(format_entry(entry) + "\n")
            out.flush()
            sleep(_FOLLOW_POLL_SECONDS)
    except KeyboardInterrupt:
        pass


def run(argv: Sequence[str]) -> int:
    """Entry point of `nereid trace`; returns the exit status."""
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 2
    try:
        selection = _selection(args, time.time())
    except TimeParseError as err:
        sys.stderr.write(f"nereid trace: {err}\n")
        return 2
    if args.follow and (args.stats or args.mermaid or args.request):
        sys.stderr.write("nereid trace: --follow cannot be combined with an export\n")
        return 2
    path: str = args.file
    reader = TraceLogReader(path)
    exports = args.stats or args.mermaid or args.request is not None
    interactive = not (args.plain or exports) and sys.stdin.isatty() and sys.stdout.isatty()
    try:
        if interactive:
            from nereid.trace.viewer import run_viewer

            run_viewer(reader, title=path, selection=selection, follow=args.follow)
            _report(reader.skipped, path)
            return 0
        entries = reader.read_new(final=not args.follow)
    except OSError as err:
        sys.stderr.write(f"nereid trace: {path}: {err.strerror or err}\n")
        return 1
    if not args.follow:
        _report(reader.skipped, path)
    chosen = [entry for entry in entries if selection.matches(entry)]
    out = sys.stdout
    if args.stats:
        out.write(format_stats(collect_stats(chosen)))
    elif args.request is not None:
        steps = request_path(entries, args.request)  # the whole path: filters do not cut it
        if not steps:
            sys.stderr.write(f"nereid trace: no events with correlation id {args.request!r}\n")
            return 1
        out.write("".join(format_step(step) + "\n" for step in steps))
    elif args.mermaid:
        title = f"trace {Path(path).name}" + (f" corr {args.corr}" if args.corr else "")
        try:
            out.write(export_sequence_diagram(chosen, title=title))
        except EmptySliceError as err:
            sys.stderr.write(f"nereid trace: {err}\n")
            return 1
    else:
        out.write("".join(format_entry(entry) + "\n" for entry in chosen))
        if args.follow:
            try:
                follow_plain(reader, selection, out)
            except OSError as err:
                sys.stderr.write(f"nereid trace: {path}: {err.strerror or err}\n")
                return 1
            _report(reader.skipped, path)
    return 0
