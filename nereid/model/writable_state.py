"""What each field of a state diagram may hold (spec decision 18 for the `State` kind).

Mermaid's state lexer decides these: an id is a run without `:`, whitespace, `-` or `{`; a
description or transition label (`: text`) runs to the line end and holds no `:` or `;`; a
quoted name (`state "..." as s1`) holds no `"`; a multi-line note ends at the first
`end note`; and any line holding `direction LR` (any case) is a direction statement. The
rules below refuse a little more than that (ids keep to letters, digits, `_` and `.`),
never less: the importer, the ops and the exporter share them, and the hostile round-trip
property holds the exporter to every value they let through.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Final

from nereid.model.refs import STATE_STATE, STATE_TRANSITION
from nereid.model.state import PSEUDO_KINDS, STATE_DIRECTIONS, StateAst, StateNode, mermaid_name
from nereid.model.writable import (
    DIAGRAM_META,
    ObjectKey,
    Unwritable,
    acc_text_problem,
)

__all__ = [
    "COMMENT_LINE",
    "MAX_STATE_DEPTH",
    "class_name_problem",
    "state_class_def_problem",
    "state_floating_note_problem",
    "state_id_problem",
    "state_link_problem",
    "state_label_problem",
    "state_note_problem",
    "state_problem",
    "state_text_problem",
]

#: How deep composite states may nest (the exporter and importer walk without recursion).
MAX_STATE_DEPTH: Final = 100

_ONE_LINE_BAD: Final = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]")
_MULTI_LINE_BAD: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]")
#: Mermaid reads any line holding this as a `direction` statement.
DIRECTION_ANYWHERE: Final = re.compile(r"direction\s+(?:TB|BT|RL|LR)", re.IGNORECASE)
#: Words that start a statement (matched ignoring case), so no state may be named so.
_KEYWORDS: Final = frozenset(
    {
        "state",
        "note",
        "class",
        "classdef",
        "style",
        "click",
        "href",
        "direction",
        "hide",
        "scale",
        "acctitle",
        "accdescr",
    }
)
_CLASS_NAME: Final = re.compile(r"[A-Za-z0-9_]+")


#: A line Mermaid removes before it parses, wherever the line stands (even inside a quoted
#: name): `%%` and at least one more character, unless it is a `%%{` directive.
COMMENT_LINE: Final = re.compile(r"\s*%%(?!\{).")


def _bad_char(pattern: re.Pattern[str], text: str) -> str | None:
    """Control characters, and `%%{` (Mermaid lifts a directive out of any place in the text)."""
    bad = pattern.search(text)
    if bad is None:
        return "contains '%%{' (Mermaid reads a directive there)" if "%%{" in text else None
    return f"contains a line break or control character: {bad.group()!r} at {bad.start()}"


def state_id_problem(name: str) -> str | None:
    """Why `name` cannot be a state's Mermaid id, or None."""
    if name == "":
        return "must not be empty"
    for ch in name:
        if not (ch.isalnum() or ch in "_."):
            return f"contains invalid character: {ch!r} (use letters, digits, '_' and '.')"
    lowered = name.lower()
    if lowered in _KEYWORDS:
        return f"is the keyword {name!r}"
    if lowered.startswith(("default", "statediagram")):
        return "must not start with 'default' or 'stateDiagram' (Mermaid reads a keyword)"
    return None


def class_name_problem(name: str) -> str | None:
    """A class name of `classDef` / `class` / `:::` (Mermaid matches `\\w+`)."""
    if _CLASS_NAME.fullmatch(name) is None:
        return "must be ASCII letters, digits and '_'"
    return None


def _one_line(text: str) -> str | None:
    if not text.strip():
        return "must not be empty"
    if text != text.strip():
        return "must not start or end with whitespace (Mermaid trims it)"
    problem = _bad_char(_ONE_LINE_BAD, text)
    if problem is None and DIRECTION_ANYWHERE.search(text):
        problem = "holds 'direction <dir>' (Mermaid reads the line as a direction)"
    return problem


def state_text_problem(text: str) -> str | None:
    """A description (`s1 : text`) or transition label (`a --> b : text`)."""
    problem = _one_line(text)
    if problem is None and (":" in text or ";" in text):
        problem = "contains ':' or ';' (Mermaid ends the text there)"
    return problem


def state_label_problem(text: str) -> str | None:
    """The quoted name of `state "..." as s1` (it may run over lines, read back trimmed)."""
    lines = text.split("\n")
    if len(lines) > 1:
        if any(line != line.strip() for line in lines) or not lines[0] or not lines[-1]:
            return "its lines must be trimmed and the first and last non-empty"
        problem = next((p for line in lines if line and (p := _one_line(line)) is not None), None)
    else:
        problem = _one_line(text)
    if problem is None and '"' in text:
        problem = "contains '\"'"
    if problem is None and ";" in text:
        problem = "contains ';' (Mermaid's state lexer refuses it)"
    if problem is None and any(COMMENT_LINE.match(line) for line in lines[1:]):
        problem = "has a line starting with '%%' (Mermaid drops it as a comment)"
    return problem


def _note_lines_problem(text: str) -> str | None:
    """What every note's text needs: non-empty, no control characters, trimmed lines."""
    if not text.strip():
        return "must not be empty"
    problem = _bad_char(_MULTI_LINE_BAD, text)
    if problem is not None:
        return problem
    lines = text.split("\n")
    if any(line != line.strip() for line in lines) or not lines[0] or not lines[-1]:
        return "its lines must be trimmed and the first and last non-empty"
    return None


def state_note_problem(text: str) -> str | None:
    """A note's text: one or more trimmed lines, ended by Mermaid at the first `end note`."""
    problem = _note_lines_problem(text)
    if problem is None and "end note" in " ".join(text.lower().split()):
        return "contains 'end note' (it closes the note)"
    return problem


def state_floating_note_problem(text: str) -> str | None:
    """A floating note's text (`note "text" as N1`): trimmed lines, no `"` (it ends the text)."""
    problem = _note_lines_problem(text)
    if problem is not None:
        return problem
    if '"' in text:
        return "contains '\"' (it ends the text)"
    if DIRECTION_ANYWHERE.search(text):
        return "holds 'direction <dir>' (Mermaid reads the line as a direction)"
    return None


def state_link_problem(text: str) -> str | None:
    """A `click` url or tooltip (a quoted string, read back trimmed)."""
    if not text.strip():
        return "must not be empty"
    if text != text.strip():
        return "must not start or end with whitespace (read back trimmed)"
    if '"' in text:
        return "contains '\"'"
    if ";" in text or "%%" in text:
        return "contains ';' or '%%' (Mermaid's state lexer ends the statement there)"
    return _bad_char(_ONE_LINE_BAD, text)


def state_class_def_problem(style: str) -> str | None:
    """A `classDef` or `style` payload: the rest of its line, trimmed."""
    if not style.strip():
        return "must not be empty"
    if style != style.strip():
        return "must not start or end with whitespace (Mermaid trims it)"
    if "%%" in style:
        return "contains '%%' (a comment)"
    return _bad_char(_ONE_LINE_BAD, style)


def _unwritable(category: str, object_id: str, field: str, value: str, reason: str) -> Unwritable:
    return Unwritable(
        category=category, object_id=object_id, field=field, value=value, reason=reason
    )


def _state_fields(state_id: str, state: StateNode) -> Iterable[tuple[str, str, str | None]]:
    name = mermaid_name(state_id)
    if state.kind not in PSEUDO_KINDS:
        yield (
            "state_id",
            state_id,
            state_id_problem(name)
            if state_id.startswith("s:")
            else ("a state id is 's:' and its Mermaid id"),
        )
    if state.label is not None:
        if state.kind == "note":
            problem = state_floating_note_problem(state.label)
        else:
            problem = state_label_problem(state.label)
            if problem is None and state.kind != "state":
                problem = f"a {state.kind} state has no name in Mermaid"
        yield "label", state.label, problem
    elif state.kind == "note":
        yield "label", "", "a floating note needs its text (the label)"
    for index, description in enumerate(state.descriptions):
        problem = state_text_problem(description)
        if problem is None and state.composite and index + (state.label is not None) >= 1:
            problem = "a composite shows one text: a name or one description (as Mermaid)"
        if problem is None and state.kind in PSEUDO_KINDS | {"note"}:
            problem = f"a {state.kind} has no description"
        yield f"descriptions[{index}]", description, problem
    for index, cls in enumerate(state.classes):
        yield f"classes[{index}]", cls, class_name_problem(cls)
    for index, style in enumerate(state.styles):
        problem = state_class_def_problem(style)
        if problem is None and (state.kind in PSEUDO_KINDS or not _CLASS_NAME.fullmatch(name)):
            problem = "only a state whose id is ASCII letters, digits and '_' can have a style"
        yield f"styles[{index}]", style, problem
    for index, note in enumerate(state.notes):
        problem = state_note_problem(note.text)
        if problem is None and state.kind == "end":
            problem = "an end '[*]' has no note (Mermaid reads 'note ... of [*]' as the start's)"
        yield f"notes[{index}]", note.text, problem
    if state.direction is not None and state.direction not in STATE_DIRECTIONS:
        yield "direction", state.direction, "must be TB, BT, LR or RL"
    if state.link is not None:
        for field, text in (("link.url", state.link.url), ("link.tooltip", state.link.tooltip)):
            if text is not None:
                problem = state_link_problem(text)
                if problem is None and (state.kind in PSEUDO_KINDS or state.parent is not None):
                    problem = "only a top-level named state can have a click link"
                yield field, text, problem


def state_problem(ast: StateAst, keys: Collection[ObjectKey] | None = None) -> Unwritable | None:
    """The first field of `ast` that cannot be written back (only `keys`' objects if given)."""
    meta: list[tuple[str, str | None, str | None]] = [
        (
            "acc_title",
            ast.acc_title,
            None if ast.acc_title is None else acc_text_problem(ast.acc_title),
        ),
        (
            "acc_descr",
            ast.acc_descr,
            None if ast.acc_descr is None else acc_text_problem(ast.acc_descr),
        ),
    ]
    if ast.direction is not None and ast.direction not in STATE_DIRECTIONS:
        meta.append(("direction", ast.direction, "must be TB, BT, LR or RL"))
    if ast.scale is not None and not (ast.scale.isascii() and ast.scale.isdigit()):
        meta.append(("scale", ast.scale, "must be ASCII digits (scale <n> width)"))
    for name, style in ast.class_defs.items():
        problem = class_name_problem(name) if name != "default" else None
        meta.append((f"class_defs.{name}", style, problem or state_class_def_problem(style)))
    for field, value, reason in meta:
        if value is not None and reason is not None:
            return _unwritable(DIAGRAM_META, "meta", field, value, reason)
    wanted = None if keys is None else {object_id for _category, object_id in keys}
    for state_id, state in ast.states.items():
        if wanted is not None and state_id not in wanted:
            continue
        for field, value, reason in _state_fields(state_id, state):
            if reason is not None:
                return _unwritable("/".join(STATE_STATE), state_id, field, value, reason)
    for transition_id, transition in ast.transitions.items():
        if wanted is not None and transition_id not in wanted:
            continue
        if transition.label is not None:
            reason = state_text_problem(transition.label)
            if reason is not None:
                return _unwritable(
                    "/".join(STATE_TRANSITION), transition_id, "label", transition.label, reason
                )
    return None
