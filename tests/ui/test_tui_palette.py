"""Palette variables (tui.md §14.2) and NO_COLOR."""

from __future__ import annotations

import pytest

from nereid.ui.palette import PaletteError, parse_color, theme_from_env

GOOD = ",".join(["#000000", "ffffff"] + [f"0x{i:02x}{i:02x}{i:02x}" for i in range(16)])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("#A0b1C2", "#a0b1c2"),
        ("0xA0B1C2", "#a0b1c2"),
        ("a0b1c2", "#a0b1c2"),
        ("rgb:a0/b1/c2", "#a0b1c2"),
        ("rgb:a0ff/b100/c2c2", "#a0b1c2"),
    ],
)
def test_color_forms(text: str, expected: str) -> None:
    assert parse_color(text) == expected


def test_default_theme_uses_16_colours() -> None:
    theme = theme_from_env({})
    assert theme.colors == 16
    assert ("human", "white,bold", "light green") in theme.entries


def test_tui_palette_wins_and_switches_to_true_colour() -> None:
    theme = theme_from_env({"NEREID_TUI_PALETTE": GOOD, "NEREID_PALETTE": "junk"})
    assert theme.colors == 2**24
    human = next(e for e in theme.entries if e[0] == "human")
    assert human[4:] == ("#0f0f0f,bold", "#0a0a0a")  # bright white on bright green


def test_blank_tui_palette_means_no_override_even_with_nereid_palette() -> None:
    assert theme_from_env({"NEREID_TUI_PALETTE": "  ", "NEREID_PALETTE": "junk"}).colors == 16
    assert theme_from_env({"NEREID_PALETTE": GOOD}).colors == 2**24


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        ("#000000", "expected 18 comma-separated colors (fg,bg,"),
        (GOOD.replace("#000000", " ", 1), "empty color"),
        (GOOD.replace("#000000", "#12345", 1), "invalid hex color: #12345 (expected #RRGGBB)"),
        (GOOD.replace("#000000", "rgb:1/22/33", 1), "invalid rgb: component 1 (expected 2"),
    ],
)
def test_errors_name_the_variable_and_the_problem(value: str, detail: str) -> None:
    with pytest.raises(PaletteError) as info:
        theme_from_env({"NEREID_PALETTE": value})
    assert str(info.value).startswith(f"invalid env NEREID_PALETTE={value.strip()} (")
    assert detail in str(info.value)


def test_no_color_drops_colours_but_keeps_emphasis() -> None:
    theme = theme_from_env({"NO_COLOR": "1", "NEREID_PALETTE": GOOD})
    assert theme.colors == 1
    human = next(e for e in theme.entries if e[0] == "human")
    assert human == ("human", "default", "default", "standout,bold")
