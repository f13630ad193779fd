"""Subcommands of the `nereid` CLI: one module per command, each with `run(argv) -> int`."""
