"""Every session actor declares exactly one handler per message of its message union."""

from __future__ import annotations

import typing

import pytest

from nereid.actors.diagram import DiagramActor
from nereid.actors.protocol import DiagramRequest, WalkthroughRequest
from nereid.actors.walkthrough import WalkthroughActor
from nereid.runtime import Actor

TABLES: list[tuple[type[Actor[typing.Any, typing.Any]], object]] = [
    (DiagramActor, DiagramRequest),
    (WalkthroughActor, WalkthroughRequest),
]


@pytest.mark.parametrize(("actor", "union"), TABLES, ids=[a.__name__ for a, _ in TABLES])
def test_the_handler_table_is_the_message_union(
    actor: type[Actor[typing.Any, typing.Any]], union: object
) -> None:
    assert set(actor._handlers) == set(typing.get_args(union))
    assert "handle" not in vars(actor)  # dispatch is the table's, not a match
