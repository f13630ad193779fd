"""The contract's Streamable HTTP address, `http://127.0.0.1:27435/mcp` (spec README).

One definition for the HTTP endpoint (`nereid.mcp.http`), `nereid serve` and the CLI's
help. A module of its own, outside `nereid.mcp`: the CLI prints the default port without
importing the MCP SDK or the HTTP stack (start-up time, issue 18).
"""

from __future__ import annotations

from typing import Final

__all__ = ["DEFAULT_HOST", "DEFAULT_PATH", "DEFAULT_PORT"]

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 27435
DEFAULT_PATH: Final = "/mcp"
