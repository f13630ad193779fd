"""Tool-name spellings: the contract's dotted names, or underscores for hosts that reject dots.

The contract names tools with dots (`diagram.list`). Several hosts refuse a tool list with
such names: Claude Desktop checks every name against `^[a-zA-Z0-9_-]{1,64}$`, the OpenAI API
(Codex) and GitHub Copilot CLI answer 400. In `underscore` mode the endpoint lists
`diagram_list` etc. (spec decision 21); `tools/call` accepts both spellings in every mode.

What the server says to a client names the tools as that client sees them: `ToolNamer`
rewrites the listing (names and descriptions), the `instructions` and every error text.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal, cast, final, get_args

__all__ = [
    "HOST_NAME_PATTERN",
    "TOOL_NAMES_ENV",
    "ToolNamer",
    "ToolNames",
    "parse_tool_names",
    "tool_names_from_env",
    "underscore_name",
]

ToolNames = Literal["dotted", "underscore"]
"""How tool names are listed: `dotted` (the contract, the default) or `underscore`."""

TOOL_NAMES_ENV: Final = "NEREID_TOOL_NAMES"

HOST_NAME_PATTERN: Final = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""The strictest tool-name rule among the hosts (Claude Desktop; OpenAI's is the same)."""

_MODES: Final[tuple[str, ...]] = get_args(ToolNames)


def underscore_name(name: str) -> str:
    """`diagram.apply_ops` -> `diagram_apply_ops`."""
    return name.replace(".", "_")


def parse_tool_names(text: str, *, source: str = "--tool-names") -> ToolNames:
    """`text` as a mode; ValueError naming `source` and the valid values otherwise."""
    value = text.strip().lower()
    if value not in _MODES:
        raise ValueError(
            f"{source} must be one of {', '.join(_MODES)} (got {text!r}); "
            "`underscore` is for hosts that reject dots in tool names"
        )
    return cast(ToolNames, value)


def tool_names_from_env(environ: Mapping[str, str] | None = None) -> ToolNames | None:
    """The mode `NEREID_TOOL_NAMES` asks for (None when unset or empty); ValueError if bad."""
    text = (os.environ if environ is None else environ).get(TOOL_NAMES_ENV, "")
    return parse_tool_names(text, source=TOOL_NAMES_ENV) if text.strip() else None


@final
class ToolNamer:
    """Maps between the canonical (dotted) names and one mode's spelling.

    `canonical` resolves either spelling; `text` rewrites every whole tool name in a
    text (descriptions, instructions, error messages) to the listed spelling.
    """

    def __init__(self, names: Iterable[str], mode: ToolNames = "dotted") -> None:
        self.mode: ToolNames = mode
        self._canonical: dict[str, str] = {}
        for name in names:
            for spelling in (name, underscore_name(name)):
                other = self._canonical.setdefault(spelling, name)
                if other != name:
                    raise ValueError(f"tools {other!r} and {name!r} both spell {spelling!r}")
        self._dotted = sorted((n for n in set(self._canonical.values()) if "." in n), key=len)

    @functools.cached_property
    def _pattern(self) -> re.Pattern[str] | None:
        """Every dotted name, longest first: compiled on first use (only `underscore` mode
        rewrites texts; start-up builds a namer per mode before the handshake)."""
        if not self._dotted:
            return None
        names = "|".join(re.escape(n) for n in reversed(self._dotted))
        return re.compile(r"(?<![\w.])(" + names + r")(?![\w])")

    def canonical(self, name: str) -> str | None:
        """The dotted name `name` spells (in either mode), None for an unknown tool."""
        return self._canonical.get(name)

    def listed(self, name: str) -> str:
        """`name` (canonical) as this mode lists it."""
        return underscore_name(name) if self.mode == "underscore" else name

    def text(self, text: str) -> str:
        """`text` with every tool name in this mode's spelling."""
        if self.mode == "dotted" or self._pattern is None:
            return text
        return self._pattern.sub(lambda m: underscore_name(m.group(1)), text)

    def value(self, value: Any) -> Any:
        """`text` applied to every string inside a JSON value (error data)."""
        if self.mode == "dotted":
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        return value
