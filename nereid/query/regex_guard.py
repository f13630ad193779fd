"""Refuse `seq.search` regexes that could backtrack for too long (decision 15, queries.md D4).

Python's `re` backtracks and cannot be interrupted, so the check is static and conservative.
The exact rule, applied to the compiled pattern's syntax tree:

1. the pattern is at most MAX_PATTERN_LENGTH characters ("needle too long");
2. no backreferences or conditional groups (`\\1`, `(?P=name)`, `(?(1)…)`) — the
   reference's regex dialect has none either;
3. no quantifier that can repeat more than once (`*`, `+`, `{m,n}` with n > 1) may hold a
   *variable* quantifier (`?`, `*`, `+`, `{m,n}` with m ≠ n) or an alternation (`a|bc`)
   anywhere inside it: these nest choices and backtrack exponentially (`(a+)+$`,
   `(a|aa)*$`, `(?:a?){20}a{20}`). Fixed counts inside are fine (`(\\d{3}-)+`);
4. with v variable quantifiers in the whole pattern, a failing search of a text of n
   characters tries at most about C(n + v + 1, v + 1) ≈ n^(v+1) / (v+1)! combinations
   (a start position and a length for each quantifier; measured at ~5 ns each for the
   worst case, `.` quantifiers with capturing groups). The sum of that estimate over the
   messages searched must stay within COST_BUDGET (about a second at worst), so
   `.*a.*b.*c.*x` is fine on short messages but refused on long ones instead of running
   for minutes, and a plain `foo.*bar` is fine on ~20 000 characters of text.

Substring mode is linear and never refused. Refusals are `invalid_params` with message
"needle too long" or "regex too expensive: <why>".
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Iterable
from typing import Any, Final

from nereid.query.errors import invalid_params

# The regex parser's private modules: typed as Any, since typeshed does not describe them.
sre: Any = importlib.import_module("re._constants")
sre_parse: Any = importlib.import_module("re._parser")

__all__ = ["COST_BUDGET", "MAX_PATTERN_LENGTH", "RegexRefused", "compile_guarded"]

MAX_PATTERN_LENGTH: Final = 1000
#: Estimated backtracking steps one search may cost (about a second of `re` at worst).
COST_BUDGET: Final = 200_000_000

_REPEATS: Final = frozenset({sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT})
_BACKREFERENCES: Final = frozenset({sre.GROUPREF, sre.GROUPREF_EXISTS})


class RegexRefused(ValueError):
    """A pattern the guard will not run; `reason` completes "regex too expensive: …"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def compile_guarded(
    needle: str, *, case_insensitive: bool, texts: Iterable[str]
) -> re.Pattern[str]:
    """Compile `needle` for searching `texts`, or raise the spec's `invalid_params` refusal."""
    data = {"needle": needle, "mode": "regex", "case_insensitive": case_insensitive}
    if len(needle) > MAX_PATTERN_LENGTH:
        raise invalid_params(
            "needle too long",
            {"needle_length": len(needle), "max_length": MAX_PATTERN_LENGTH},
        )
    flags = re.IGNORECASE if case_insensitive else 0
    try:
        pattern = re.compile(needle, flags)
    except re.error as err:
        raise invalid_params(f"invalid regex: {err}", data) from None
    try:
        variable = _check_tree(sre_parse.parse(needle, flags))
        _check_cost(variable, texts)
    except RegexRefused as refused:
        raise invalid_params(f"regex too expensive: {refused.reason}", data) from None
    return pattern


def _check_tree(tree: Any) -> int:
    """Apply rules 2 and 3; return the number of variable quantifiers (for rule 4)."""
    variable = 0
    for op, argument in tree:
        if op in _BACKREFERENCES:
            raise RegexRefused("backreferences and conditional groups are not supported")
        if op in _REPEATS:
            low, high, body = argument
            if high > 1 and _is_ambiguous(body):
                raise RegexRefused(
                    "a repeated group holds another quantifier or an alternation "
                    "(nested choices backtrack exponentially); "
                    "use a fixed count inside, or substring mode"
                )
            if low != high:
                variable += 1
            variable += _check_tree(body)
        else:
            for child in _children(op, argument):
                variable += _check_tree(child)
    return variable


def _is_ambiguous(tree: Any) -> bool:
    """Whether a repeated body offers choices: a variable quantifier or an alternation."""
    for op, argument in tree:
        if op in _REPEATS:
            low, high, body = argument
            if low != high or _is_ambiguous(body):
                return True
        elif op == sre.BRANCH:
            return True
        elif any(_is_ambiguous(child) for child in _children(op, argument)):
            return True
    return False


def _children(op: Any, argument: Any) -> list[Any]:
    """The nested sub-patterns of one node of the parse tree."""
    if op == sre.SUBPATTERN:
        return [argument[3]]
    if op == sre.BRANCH:
        return list(argument[1])
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [argument[1]]
    if op == sre.ATOMIC_GROUP:
        return [argument]
    return []


def _check_cost(variable: int, texts: Iterable[str]) -> None:
    """Rule 4: the summed worst-case estimate over the texts stays within COST_BUDGET."""
    total = 0
    longest = 0
    for text in texts:
        longest = max(longest, len(text))
        total += math.comb(len(text) + variable + 1, variable + 1)
        if total > COST_BUDGET:
            raise RegexRefused(
                f"{variable} variable quantifier(s) over message text of up to {longest} "
                f"characters could take too long; use fewer `*`/`+`/`?`, or substring mode"
            )
