"""The sequence queries `seq.messages`, `seq.search`, `seq.trace` (queries.md §8–§11).

All three work on the messages in message order, ascending `(order_key, message_id)`,
whatever the storage order; messages inside blocks of any kind (`alt`, `loop`, `par`,
`critical`, `break`, `rect`, ...) are ordinary timeline messages here. Notes, activations and
block headers are not messages and are never returned or searched.
"""

from __future__ import annotations

from typing import Annotated

from nereid.model import SEQ_MESSAGE, SeqMessage, SequenceAst
from nereid.model.wire import U64, param
from nereid.query.errors import invalid_params, not_found
from nereid.query.params import check_choice, check_count, check_param_id
from nereid.query.regex_guard import (
    SEARCH_TIME_LIMIT,
    RegexMatcher,
    RegexTimeout,
    compile_user_regex,
    match_all,
    too_expensive,
)
from nereid.query.results import MessagesResult
from nereid.query.scope import QueryScope, ref_prefix, resolve_diagram, sequence_of

__all__ = ["message_order", "seq_messages", "seq_search", "seq_trace"]


def message_order(ast: SequenceAst) -> list[SeqMessage]:
    """The messages sorted by `(order_key, message_id)`."""
    return sorted(ast.messages, key=lambda message: (message.order_key, message.message_id))


def _message_refs(diagram_id: str, messages: list[SeqMessage]) -> MessagesResult:
    prefix = ref_prefix(diagram_id, SEQ_MESSAGE)
    return MessagesResult(messages=[prefix + message.message_id for message in messages])


def seq_messages(
    scope: QueryScope,
    *,
    from_participant_id: Annotated[
        str | None, param("Only messages sent by this participant id.")
    ] = None,
    to_participant_id: Annotated[
        str | None, param("Only messages received by this participant id.")
    ] = None,
    diagram_id: str | None = None,
) -> MessagesResult:
    """`seq.messages`: messages from and/or to a participant (unknown ids match nothing)."""
    if from_participant_id is not None:
        check_param_id("from_participant_id", from_participant_id)
    if to_participant_id is not None:
        check_param_id("to_participant_id", to_participant_id)
    diagram = resolve_diagram(scope, diagram_id)
    kept = [
        message
        for message in message_order(sequence_of(diagram))
        if (from_participant_id is None or message.from_participant_id == from_participant_id)
        and (to_participant_id is None or message.to_participant_id == to_participant_id)
    ]
    return _message_refs(diagram.diagram_id, kept)


def seq_search(
    scope: QueryScope,
    *,
    needle: Annotated[
        str, param("Text (substring mode) or Python regex (regex mode) to find in message texts.")
    ],
    mode: Annotated[
        str, param("How needle matches.", choices=("substring", "regex"))
    ] = "substring",
    case_insensitive: Annotated[bool, param("Ignore case (default true).")] = True,
    diagram_id: str | None = None,
    time_limit: float = SEARCH_TIME_LIMIT,
    matcher: RegexMatcher = match_all,
) -> MessagesResult:
    """`seq.search`: messages whose text contains `needle` or matches it as a regex.

    Substring mode compares lower-cased text when `case_insensitive`. Regex mode is a
    `re`-dialect search under `regex_guard`'s time limit (decision 15): a search that runs
    longer than `time_limit` seconds in all is stopped and refused with `invalid_params`.
    `matcher` runs the regex over the texts (`regex_guard.RegexMatcher`).
    """
    if needle == "":
        raise invalid_params("needle must not be empty", {"needle": needle})
    check_choice("mode", mode, ("substring", "regex"))
    diagram = resolve_diagram(scope, diagram_id)
    messages = message_order(sequence_of(diagram))
    if mode == "regex":
        pattern = compile_user_regex(needle, case_insensitive=case_insensitive)
        texts = [message.text for message in messages]
        try:
            found = matcher(pattern, texts, time_limit)
        except RegexTimeout as timeout:
            raise too_expensive(needle, case_insensitive, timeout) from None
        kept = [message for message, match in zip(messages, found, strict=True) if match]
    elif case_insensitive:
        lowered = needle.lower()
        kept = [message for message in messages if lowered in message.text.lower()]
    else:
        kept = [message for message in messages if needle in message.text]
    return _message_refs(diagram.diagram_id, kept)


def seq_trace(
    scope: QueryScope,
    *,
    from_message_id: Annotated[
        str | None,
        param("Anchor message id (not a ref), never included; absent: from the start or end."),
    ] = None,
    direction: Annotated[
        str,
        param(
            "after: messages following the anchor; before: preceding it.",
            choices=("after", "before"),
        ),
    ] = "after",
    limit: Annotated[U64, param("Most messages to return.")] = 25,
    diagram_id: str | None = None,
) -> MessagesResult:
    """`seq.trace`: up to `limit` messages after / before an anchor, oldest first.

    The anchor itself is never included. Without an anchor: the first (`after`) or the last
    (`before`) `limit` messages.
    """
    check_choice("direction", direction, ("before", "after"))
    check_count("limit", limit)
    if from_message_id is not None:
        check_param_id("from_message_id", from_message_id, as_object_id=True)
    diagram = resolve_diagram(scope, diagram_id)
    messages = message_order(sequence_of(diagram))
    if from_message_id is None:
        if limit == 0:
            return _message_refs(diagram.diagram_id, [])
        window = messages[:limit] if direction == "after" else messages[-limit:]
        return _message_refs(diagram.diagram_id, window)
    anchor = next(
        (index for index, message in enumerate(messages) if message.message_id == from_message_id),
        None,
    )
    if anchor is None:
        raise not_found(
            "seq message not found",
            {"diagram_id": diagram.diagram_id, "from_message_id": from_message_id},
        )
    if direction == "after":
        window = messages[anchor + 1 : anchor + 1 + limit]
    else:
        window = messages[max(0, anchor - limit) : anchor]
    return _message_refs(diagram.diagram_id, window)
