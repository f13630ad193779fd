"""Conformance over the Mermaid docs' sequence examples (`shared/corpus/mermaid-docs`).

Each file must import and round-trip, or be refused with a line-numbered MermaidError; any
other exception fails. The tally is printed (run with `-s` to see it) and must stay >= the
floor below; the refused files are listed so a regression shows which one changed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nereid.mermaid import MermaidError, export_sequence, parse_sequence
from tests.mermaid.corpus_files import corpus_files, skip_without

FILES = corpus_files("sequence-*.mmd")
#: Files Nereid refuses on purpose, and the construct each one uses.
EXPECTED_REFUSALS: dict[str, str] = {}

pytestmark = skip_without(FILES)


def _outcome(path: Path) -> str | MermaidError:
    text = path.read_text(encoding="utf-8")
    try:
        ast = parse_sequence(text)
    except MermaidError as err:
        return err
    exported = export_sequence(ast)
    assert parse_sequence(exported) == ast, path.name
    assert export_sequence(parse_sequence(exported)) == exported, path.name
    return "ok"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_each_file_imports_or_is_refused_with_a_line(path: Path) -> None:
    outcome = _outcome(path)
    if isinstance(outcome, MermaidError):
        assert outcome.line is not None and outcome.column is not None, str(outcome)
        assert path.name in EXPECTED_REFUSALS, f"{path.name} refused: {outcome}"
        assert EXPECTED_REFUSALS[path.name] in str(outcome)


def test_tally(capsys: pytest.CaptureFixture[str]) -> None:
    outcomes = {path.name: _outcome(path) for path in FILES}
    accepted = sum(1 for o in outcomes.values() if o == "ok")
    with capsys.disabled():
        print(f"\nsequence corpus: {accepted}/{len(FILES)} imported and round-tripped")
        for name, outcome in outcomes.items():
            if isinstance(outcome, MermaidError):
                print(f"  refused {name}:{outcome.line}:{outcome.column}: {outcome}")
    assert accepted == len(FILES) - len(EXPECTED_REFUSALS)  # issue 16: the whole corpus
    refused = {name for name, outcome in outcomes.items() if isinstance(outcome, MermaidError)}
    assert refused == set(EXPECTED_REFUSALS)
