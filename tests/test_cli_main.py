"""The main-mode command line: help, version and precise usage errors (cli.md §3, §11)."""

import subprocess
import sys

import pytest

from nereid import __version__
from nereid.cli import MainOptions, UsageError, main, parse_main_args


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "Usage:" in capsys.readouterr().out
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"nereid {__version__}"


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["--demo", "dir"], "--demo cannot be combined with a session directory"),
        (["--mcp", "--mcp-http-port", "1"], "only valid in TUI mode"),
        (["--demo", "--demo"], "duplicate option --demo"),
        (["--mcp-http-port", "abc"], "invalid port 'abc'"),
        (["--mcp-http-port", "70000"], "invalid port '70000'"),
        (["one", "two"], "unexpected extra argument 'two'"),
        (["--session"], "needs a value"),
        (["--session", "--mcp"], "looks like an option"),
        (["--bogus"], "unknown option '--bogus'"),
        (["--session", "a", "b"], "unexpected extra argument 'b'"),
    ],
)
def test_usage_errors_are_specific(argv: list[str], reason: str) -> None:
    with pytest.raises(UsageError, match=reason.replace("(", r"\(")):
        parse_main_args(argv)


def test_usage_error_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--demo", "x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nereid: error: --demo cannot be combined")
    assert "Usage:" in err


def test_flag_equals_value_and_terminator() -> None:
    assert parse_main_args(["--session=-odd", "--mcp-http-port=0"]) == MainOptions(
        session_dir="-odd", mcp_http_port=0
    )
    assert parse_main_args(["--", "-dir"]).session_dir == "-dir"


def test_python_dash_m_runs() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "nereid", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"nereid {__version__}"


def test_durable_writes_with_the_in_memory_demo_warns() -> None:
    from nereid.cli import option_warnings

    opts = parse_main_args(["--demo", "--mcp", "--durable-writes"])
    assert option_warnings(opts) == [
        "--durable-writes does nothing with --demo --mcp (the demo lives in memory)"
    ]
    assert option_warnings(parse_main_args(["--demo", "--mcp"])) == []
