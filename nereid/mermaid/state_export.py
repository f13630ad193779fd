"""Canonical Mermaid text of a state diagram; `parse_state(export_state(ast)) == ast`.

Layout: front matter, the header, `direction`, `hide empty description`, `scale`,
`accTitle`/`accDescr`, `classDef`s, then the top scope, then one `class id name` (or
`id:::name`) line per class, one `style id css` line per style and a `click` line per link. A scope is written as:
one line per direct child (`id`, `state "name" as id`, `state id <<choice>>`,
`note "text" as id`, `id : text` per description), then each composite child's block
(`state id {`, `direction`, its regions separated by `--`, `}`), then the notes of the
children, then the transitions the scope holds (`nereid.model.state.written_scope`).
Because every child is named before any nested block, a state is always first mentioned in
its own scope. A `[*]`'s classes ride on the transitions naming it (`[*]:::name --> a`, one
each, in order); a start's further classes follow as `[*]:::name` lines.

Every field is checked by `state_problem` first, so what cannot be read back is refused as
a `MermaidExportError` naming the object, never written wrong.
"""

from __future__ import annotations

import re
from typing import Final

from nereid.mermaid.errors import MermaidExportError
from nereid.mermaid.preamble import preamble_lines
from nereid.model.state import (
    PSEUDO_KINDS,
    Scope,
    StateAst,
    StateNode,
    children_of,
    mermaid_name,
    nested_scopes,
    order_problem,
    region_counts,
    written_scope,
)
from nereid.model.writable_state import state_problem

__all__ = ["export_state"]

_INDENT: Final = "    "
_WORD: Final = re.compile(r"[A-Za-z0-9_]+")


def _end(ast: StateAst, state_id: str) -> str:
    state = ast.states.get(state_id)
    if state is None:
        raise MermaidExportError(
            "DanglingTransition", f"transition end {state_id!r} is not a state", object_id=state_id
        )
    return "[*]" if state.kind in PSEUDO_KINDS else mermaid_name(state_id)


def _declaration(state_id: str, state: StateNode, mentioned: set[str], pad: str) -> list[str]:
    if state.kind in PSEUDO_KINDS:
        if state_id in mentioned:
            return []
        if state.kind == "start":
            return [f"[*]:::{cls}" for cls in state.classes] or ["[*]"]
        raise MermaidExportError(
            "Unwritable",
            f"end state {state_id} has no transition (Mermaid reads a lone '[*]' as a start)",
            object_id=state_id,
        )
    name = mermaid_name(state_id)
    lines: list[str] = []
    if state.kind in ("choice", "fork", "join"):
        lines.append(f"state {name} <<{state.kind}>>")
    elif state.kind == "note":
        text = (state.label or "").split("\n")
        text[-1] += f'" as {name}'
        lines += [f'note "{text[0]}', *(_INDENT + part for part in text[1:])]
    elif state.label is not None:
        lines.append(f'state "{state.label}" as {name}')
    elif not state.descriptions:
        lines.append(name)
    lines.extend(f"{name} : {text}" for text in state.descriptions)
    return [pad + line for line in lines]


def _notes(state_id: str, state: StateNode) -> list[str]:
    name = "[*]" if state.kind == "start" else mermaid_name(state_id)
    lines: list[str] = []
    for note in state.notes:
        text = note.text
        if "\n" not in text and ":" not in text and ";" not in text:
            lines.append(f"note {note.side} {name} : {text}")
            continue
        lines += [
            f"note {note.side} {name}",
            *(_INDENT + line for line in text.split("\n")),
            "end note",
        ]
    return lines


class _PseudoClasses:
    """Hands out each `[*]`'s classes to the transitions naming it, in writing order."""

    def __init__(self, ast: StateAst) -> None:
        self.ast = ast
        self.left = {
            state_id: list(state.classes)
            for state_id, state in ast.states.items()
            if state.kind in PSEUDO_KINDS and state.classes
        }

    def end(self, state_id: str) -> str:
        written = _end(self.ast, state_id)
        waiting = self.left.get(state_id)
        return f"{written}:::{waiting.pop(0)}" if waiting else written

    def rest(self, state_id: str) -> list[str]:
        return [f"[*]:::{cls}" for cls in self.left.pop(state_id, [])]


def export_state(ast: StateAst) -> str:
    """The canonical Mermaid text of `ast` (raises MermaidExportError if it cannot be written)."""
    problem = state_problem(ast)
    if problem is not None:
        raise MermaidExportError("Unwritable", problem.describe(), object_id=problem.object_id)
    misplaced = order_problem(ast)
    if misplaced is not None:
        raise MermaidExportError(
            "Unwritable", f"{misplaced[0]} {misplaced[1]}", object_id=misplaced[0]
        )
    out = preamble_lines(ast.front_matter, ast.directives)
    out.append(ast.header)
    if ast.direction is not None:
        out.append(f"direction {ast.direction}")
    if ast.hide_empty_description:
        out.append("hide empty description")
    if ast.scale is not None:
        out.append(f"scale {ast.scale} width")
    if ast.acc_title is not None:
        out.append(f"accTitle: {ast.acc_title}")
    if ast.acc_descr is not None:
        if "\n" in ast.acc_descr:
            out += ["accDescr {", *ast.acc_descr.split("\n"), "}"]
        else:
            out.append(f"accDescr: {ast.acc_descr}")
    out += [f"classDef {name} {style}" for name, style in ast.class_defs.items()]

    mentioned = {end for t in ast.transitions.values() for end in (t.from_state_id, t.to_state_id)}
    children = children_of(ast.states)
    counts = region_counts(ast.states)
    pseudo_classes = _PseudoClasses(ast)
    held: dict[Scope, list[str]] = {}
    for transition_id, transition in ast.transitions.items():
        held.setdefault(written_scope(ast.states, transition), []).append(transition_id)

    # An explicit stack instead of recursion: composites may nest MAX_STATE_DEPTH deep.
    Frame = tuple[str, Scope, int]
    stack: list[Frame] = [("open", (None, 0), 0)]
    while stack:
        action, scope, depth = stack.pop()
        pad = _INDENT * depth
        if action == "text":
            out.append(pad + scope[0] if scope[0] is not None else pad)
            continue
        if action == "close":
            own = children.get(scope, [])
            for state_id in own:
                if ast.states[state_id].kind not in PSEUDO_KINDS:
                    out += [pad + line for line in _notes(state_id, ast.states[state_id])]
            for transition_id in held.get(scope, []):
                transition = ast.transitions[transition_id]
                source = pseudo_classes.end(transition.from_state_id)
                line = f"{source} --> {pseudo_classes.end(transition.to_state_id)}"
                if transition.label is not None:
                    line += f" : {transition.label}"
                out.append(pad + line)
            for state_id in own:
                out += [pad + line for line in pseudo_classes.rest(state_id)]
                if ast.states[state_id].kind in PSEUDO_KINDS:
                    # After the transitions: Mermaid draws a start noted before it is named
                    # in a transition without its shape.
                    out += [pad + line for line in _notes(state_id, ast.states[state_id])]
            continue
        own = children.get(scope, [])
        for state_id in own:
            state = ast.states[state_id]
            out += _declaration(state_id, state, mentioned, pad)
            if state.kind in PSEUDO_KINDS and state_id not in mentioned:
                pseudo_classes.rest(state_id)  # written with the declaration
        todo: list[Frame] = [("close", scope, depth)]
        nested = nested_scopes(counts, own)
        blocks: list[Frame] = []
        for child_scope in nested:
            child_id, region = child_scope
            assert child_id is not None
            state = ast.states[child_id]
            if region == 0:
                name = mermaid_name(child_id)
                blocks.append(("text", (f"state {name} {{", 0), depth))
                if state.direction is not None:
                    blocks.append(("text", (f"direction {state.direction}", 0), depth + 1))
            else:
                blocks.append(("text", ("--", 0), depth + 1))
            blocks.append(("open", child_scope, depth + 1))
            if region == counts[child_id] - 1:
                blocks.append(("text", ("}", 0), depth))
        todo = [*blocks, *todo]
        stack.extend(reversed(todo))

    for state_id, state in ast.states.items():
        if state.kind in PSEUDO_KINDS:
            continue
        name = mermaid_name(state_id)
        for cls in state.classes:
            out.append(f"class {name} {cls}" if _WORD.fullmatch(name) else f"{name}:::{cls}")
    for state_id, state in ast.states.items():
        out += [f"style {mermaid_name(state_id)} {style}" for style in state.styles]
    for state_id, state in ast.states.items():
        if state.link is not None:
            name, link = mermaid_name(state_id), state.link
            if link.tooltip is None:
                out.append(f'click {name} href "{link.url}"')
            else:
                out.append(f'click {name} "{link.url}" "{link.tooltip}"')
    return "\n".join(out) + "\n"
