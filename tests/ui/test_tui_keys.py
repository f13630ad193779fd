"""The key table: lookups per context, modifiers, and help built from the table."""

from __future__ import annotations

from nereid.ui.keys import KEY_BINDINGS, Command, Context, command_for, help_sections


def test_focus_keys_override_global_ones() -> None:
    assert command_for("n", Context.DIAGRAM) is Command.TOGGLE_NOTES
    assert command_for("n", Context.OBJECTS) is Command.NEXT_RESULT
    assert command_for("j", Context.DIAGRAM) is Command.DOWN
    assert command_for("l", Context.OBJECTS) is Command.DOWN
    assert command_for("end", Context.OBJECTS) is Command.END
    assert command_for("page down", Context.DIAGRAM) is Command.PAGE_DOWN
    assert command_for("shift tab", Context.XREFS) is Command.PREV_PANE


def test_modified_keys_are_not_letters_but_ctrl_c_quits() -> None:
    assert command_for("meta q", Context.DIAGRAM) is None
    assert command_for("ctrl f", Context.DIAGRAM) is None
    assert command_for("ctrl c", Context.DIAGRAM) is Command.QUIT
    assert command_for("x", Context.DIAGRAM) is None


def test_help_lists_every_described_binding_in_table_order() -> None:
    sections = dict(help_sections())
    assert list(sections)[0] == "Global"
    described = [b for b in KEY_BINDINGS if b.help]
    assert sum(len(entries) for entries in sections.values()) == len(described)
    assert ("e", "edit the diagram in $EDITOR") in sections["Diagram"]
