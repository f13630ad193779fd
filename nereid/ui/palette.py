"""Colours: the default 16-colour palette, `NEREID_TUI_PALETTE`/`NEREID_PALETTE`, `NO_COLOR`.

`palette_from_env(environ)` returns a `Theme` (urwid palette entries + colour depth) or raises
`PaletteError` with the message tui.md §14.2 prescribes; the caller prints it and exits 1
before the screen is taken over.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "AGENT_STYLES",
    "IDLE_AGENT_SLOT",
    "Colors",
    "PALETTE_NAMES",
    "PaletteError",
    "Theme",
    "parse_color",
    "parse_palette",
    "theme_from_env",
]

PALETTE_NAMES = (
    "fg,bg,black,red,green,yellow,blue,magenta,cyan,white,bright_black,bright_red,"
    "bright_green,bright_yellow,bright_blue,bright_magenta,bright_cyan,bright_white"
)

# urwid's names for ANSI 0-15 (tui.md §14.1).
ANSI = (
    "black",
    "dark red",
    "dark green",
    "brown",
    "dark blue",
    "dark magenta",
    "dark cyan",
    "light gray",
    "dark gray",
    "light red",
    "light green",
    "yellow",
    "light blue",
    "light magenta",
    "light cyan",
    "white",
)

#: Number of distinguishable agent spotlight styles; agent i uses `agent{i % 6}`.
AGENT_STYLES = 6
#: The style slot of an idle agent's spotlight (`agent6`): greyed, whoever the agent is.
IDLE_AGENT_SLOT = AGENT_STYLES

# (name, fg, bg) with ANSI indexes; -1 = the terminal's default.
_BASE: tuple[tuple[str, int, int, bool], ...] = (
    ("default", -1, -1, False),
    ("dim", 8, -1, False),
    ("note", 8, -1, False),
    ("block", 11, -1, False),
    ("area", -1, 3, False),
    ("marker", 6, -1, False),
    ("human", 15, 10, True),
    ("agent_owner", 15, 12, True),
    ("both", 15, 5, True),
    ("selected", 15, 8, True),
    ("selected_hot", 15, 10, True),
    ("hint", 15, 6, True),
    ("hint_typed", 8, 6, True),
    ("border", -1, -1, False),
    ("border_human", 10, -1, False),
    ("border_agent", 12, -1, False),
    ("title", 15, -1, True),
    ("title_dim", 7, -1, False),
    ("counter", 10, -1, True),
    ("inspector", 7, -1, False),
    ("row", -1, -1, False),
    ("row_dim", 8, -1, False),
    ("row_bright", 15, -1, False),
    ("row_marker", 15, -1, True),
    ("row_cursor", 15, 10, True),
    ("row_cursor_agent", 15, 12, True),
    ("row_selected", 15, 8, False),
    ("row_dangling", 1, -1, False),
    ("row_involved", 15, 8, False),
    ("status", -1, -1, False),
    ("status_label", 7, -1, False),
    ("status_value", 6, -1, True),
    ("status_disabled", 8, -1, True),
    ("status_count", 10, -1, True),
    ("status_error", 15, 1, True),
    ("brand", 0, 15, True),
    ("help_border", 10, -1, True),
    ("help_header", 15, -1, True),
    ("help_key", 6, -1, True),
    # Agent spotlights: six backgrounds that stay apart from human green and magenta overlap.
    ("agent0", 15, 12, True),
    ("agent1", 0, 14, True),
    ("agent2", 0, 11, True),
    ("agent3", 15, 4, True),
    ("agent4", 0, 9, True),
    ("agent5", 15, 6, True),
    ("agent6", 7, 8, False),  # IDLE_AGENT_SLOT: an idle agent's spotlight, greyed
)


#: Markdown emphasis in labels (`**bold**`, `_italic_`): default colours plus attributes.
_EMPHASIS: tuple[tuple[str, str], ...] = (
    ("em_bold", "bold"),
    ("em_italic", "italics"),
    ("em_bold_italic", "bold,italics"),
)

Colors = Literal[1, 16, 88, 256, 16777216]


class PaletteError(ValueError):
    """An unusable palette variable; the message is the one the user sees."""


@dataclass(frozen=True)
class Theme:
    """urwid palette entries and the colour depth to set on the screen."""

    entries: list[tuple[str, ...]]
    colors: Colors


_HEX = re.compile(r"^(?:#|0x)?([0-9a-f]{6})$", re.IGNORECASE)


def parse_color(text: str) -> str:
    """One colour (`#RRGGBB`, `0xRRGGBB`, `RRGGBB`, `rgb:R/G/B`) as urwid's `#rrggbb`."""
    value = text.strip()
    if not value:
        raise ValueError("empty color")
    if value.lower().startswith("rgb:"):
        parts = value[4:].split("/")
        if len(parts) != 3:
            raise ValueError(f"invalid rgb: value: {value}")
        out = []
        for part in parts:
            if len(part) not in (2, 4) or not re.fullmatch(r"[0-9a-fA-F]+", part):
                raise ValueError(f"invalid rgb: component {part} (expected 2 or 4 hex digits)")
            out.append(part[:2].lower())
        return "#" + "".join(out)
    match = _HEX.match(value)
    if match is None:
        raise ValueError(f"invalid hex color: {value} (expected #RRGGBB)")
    return "#" + match.group(1).lower()


def parse_palette(name: str, value: str) -> list[str]:
    """The 18 colours of a palette variable; raises PaletteError naming the variable."""
    trimmed = value.strip()
    parts = trimmed.split(",")
    try:
        if len(parts) != 18:
            raise ValueError(
                f"expected 18 comma-separated colors ({PALETTE_NAMES}), got {len(parts)}"
            )
        return [parse_color(part) for part in parts]
    except ValueError as err:
        raise PaletteError(f"invalid env {name}={trimmed} ({err})") from None


def _entry(name: str, fg: int, bg: int, bold: bool, colors: list[str] | None) -> tuple[str, ...]:
    if colors is None:
        fg_name = "default" if fg < 0 else ANSI[fg]
        bg_name = "default" if bg < 0 else ANSI[bg]
        fg_text = f"{fg_name},bold" if bold else fg_name
        return (name, fg_text, bg_name)
    fg_hex = colors[0] if fg < 0 else colors[2 + fg]
    bg_hex = colors[1] if bg < 0 else colors[2 + bg]
    fg_text = f"{fg_hex},bold" if bold else fg_hex
    # urwid entry: name, 16-colour fg, 16-colour bg, mono, high fg, high bg.
    return (name, "default", "default", "", fg_text, bg_hex)


def _emphasis_entry(name: str, attrs: str, colors: list[str] | None) -> tuple[str, ...]:
    """The terminal's default colours with bold and/or italics (markdown label runs)."""
    if colors is None:
        return (name, f"default,{attrs}", "default")
    return (name, "default", "default", "", f"{colors[0]},{attrs}", colors[1])


def _mono_entry(name: str, bold: bool, bg: int) -> tuple[str, ...]:
    attrs = []
    if bg >= 0:
        attrs.append("standout")
    if bold:
        attrs.append("bold")
    return (name, "default", "default", ",".join(attrs) or "default")


def theme_from_env(environ: Mapping[str, str]) -> Theme:
    """The theme the environment asks for (tui.md §14.2; `NO_COLOR` turns colours off)."""
    if environ.get("NO_COLOR", "") != "":
        entries = [_mono_entry(name, bold, bg) for name, _fg, bg, bold in _BASE]
        # Without colour, bold/italic labels draw plain (issue 17: attributes when colour is on).
        entries += [(name, "default", "default", "default") for name, _ in _EMPHASIS]
        return Theme(entries=[(e[0], "default", "default", e[3]) for e in entries], colors=1)
    colors: list[str] | None = None
    if "NEREID_TUI_PALETTE" in environ:
        if environ["NEREID_TUI_PALETTE"].strip():
            colors = parse_palette("NEREID_TUI_PALETTE", environ["NEREID_TUI_PALETTE"])
    elif "NEREID_PALETTE" in environ and environ["NEREID_PALETTE"].strip():
        colors = parse_palette("NEREID_PALETTE", environ["NEREID_PALETTE"])
    entries = [_entry(name, fg, bg, bold, colors) for name, fg, bg, bold in _BASE]
    entries += [_emphasis_entry(name, attrs, colors) for name, attrs in _EMPHASIS]
    return Theme(entries=entries, colors=16 if colors is None else 16777216)
