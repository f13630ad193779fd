"""The header of a sequence `box` line: `box [colour] [label]` (Mermaid's reading, kept).

Mermaid takes the first word (or an `rgb(...)`/`rgba(...)`/`hsl(...)`/`hsla(...)` call) as
the colour when it is a CSS colour, and the rest as the label; when it is not a colour, the
whole text is the label (`box Another Group`). Hex colours are not colours here (Mermaid's
word rule does not read `#`). The writer refuses what would read back differently, e.g. a
label that starts with a colour name but has no colour.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["CSS_COLOR_NAMES", "BoxHeaderError", "format_box_header", "parse_box_header"]

#: CSS named colours (CSS Color Module Level 4), lower case; Mermaid compares ignoring case.
CSS_COLOR_NAMES: Final = frozenset(
    """aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue
    blueviolet brown burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk
    crimson cyan darkblue darkcyan darkgoldenrod darkgray darkgreen darkgrey darkkhaki
    darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen
    darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue
    dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite
    gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki
    lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan
    lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen
    lightskyblue lightslategray lightslategrey lightsteelblue lightyellow lime limegreen linen
    magenta maroon mediumaquamarine mediumblue mediumorchid mediumpurple mediumseagreen
    mediumslateblue mediumspringgreen mediumturquoise mediumvioletred midnightblue mintcream
    mistyrose moccasin navajowhite navy oldlace olive olivedrab orange orangered orchid
    palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru pink plum
    powderblue purple rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown
    seagreen seashell sienna silver skyblue slateblue slategray slategrey snow springgreen
    steelblue tan teal thistle tomato turquoise violet wheat white whitesmoke yellow
    yellowgreen transparent currentcolor""".split()
)

_HEAD: Final = re.compile(r"((?:rgba?|hsla?)\s*\([^()]*\)|\w*)(.*)", re.DOTALL)
_FUNCTION: Final = re.compile(r"(?:rgba?|hsla?)\s*\([^()]*\)")


class BoxHeaderError(ValueError):
    """A box colour / label pair that cannot be written so that it reads back the same."""


def _is_color(word: str) -> bool:
    return word.lower() in CSS_COLOR_NAMES or _FUNCTION.fullmatch(word) is not None


def parse_box_header(rest: str) -> tuple[str | None, str | None]:
    """(colour, label) of the text after `box` (already trimmed); None where absent."""
    match = _HEAD.fullmatch(rest)
    assert match is not None  # both groups may be empty, so every text matches
    word, tail = match.group(1), match.group(2).strip()
    if word and _is_color(word):
        return word, tail or None
    return None, rest or None


def format_box_header(color: str | None, label: str | None) -> str:
    """The `box ...` line for a colour and label; raises BoxHeaderError if it cannot be."""
    text = " ".join(part for part in (color, label) if part is not None)
    line = f"box {text}" if text else "box"
    if parse_box_header(text) != (color, label):
        raise BoxHeaderError(f"'{line}' would read back as another colour or label")
    return line
