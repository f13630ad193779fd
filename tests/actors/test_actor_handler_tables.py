"""Every session actor declares exactly one handler per message of its message union."""

from __future__ import annotations

import inspect
import typing

import pytest

from nereid.actors.attention import AttentionActor
from nereid.actors.diagram import DiagramActor
from nereid.actors.persist_link import IndexActor, IndexMessage
from nereid.actors.persister import (
    GetSaveStatus,
    PersisterActor,
    PersisterMessage,
    ReportSaveStatus,
    SaveStatusActor,
)
from nereid.actors.protocol import (
    AttentionRequest,
    DiagramRequest,
    SessionRequest,
    WalkthroughRequest,
    XrefRequest,
)
from nereid.actors.session import SessionActor
from nereid.actors.walkthrough import WalkthroughActor
from nereid.actors.xref import XrefActor
from nereid.runtime import Actor

TABLES: list[tuple[type[Actor[typing.Any, typing.Any]], object]] = [
    (DiagramActor, DiagramRequest),
    (WalkthroughActor, WalkthroughRequest),
    (SessionActor, SessionRequest),
    (AttentionActor, AttentionRequest),
    (XrefActor, XrefRequest),
    (IndexActor, IndexMessage),
    (PersisterActor, PersisterMessage),
    (SaveStatusActor, ReportSaveStatus | GetSaveStatus),
]


@pytest.mark.parametrize(("actor", "union"), TABLES, ids=[a.__name__ for a, _ in TABLES])
def test_the_handler_table_is_the_message_union(
    actor: type[Actor[typing.Any, typing.Any]], union: object
) -> None:
    assert set(actor._handlers) == set(typing.get_args(union))
    handle = vars(actor).get("handle")
    if handle is not None:  # only a preamble (a retried store), then the table's dispatch
        assert "super().handle(message)" in inspect.getsource(handle)
