"""Conformance: every flowchart of the Mermaid docs imports and round-trips, or is refused
with a MermaidError that names its line (shared/corpus/README.md)."""

from __future__ import annotations

from pathlib import Path

from nereid.mermaid.errors import MermaidError
from nereid.mermaid.flowchart import export_flowchart, parse_flowchart
from tests.mermaid.corpus_files import corpus_files, skip_without

FILES = corpus_files("flowchart-*.mmd")

#: The files we refuse, and the error kind each gets (anything else must import).
REFUSED: dict[str, str] = {}


def _outcome(path: Path) -> tuple[str, str]:
    try:
        ast = parse_flowchart(path.read_text(encoding="utf-8"))
    except MermaidError as error:
        assert error.line is not None, f"{path.name}: refused without a line: {error}"
        return "refused", f"{error.kind} line {error.line}: {error}"
    text = export_flowchart(ast)
    again = parse_flowchart(text)
    assert again == ast, f"{path.name}: parse(export(ast)) differs\n{text}"
    assert export_flowchart(again) == text, f"{path.name}: export is not a fixpoint"
    return "imported", ""


@skip_without(FILES)
def test_every_corpus_flowchart_imports_or_is_refused_precisely() -> None:
    outcomes = {path.name: _outcome(path) for path in FILES}
    imported = [name for name, (what, _) in outcomes.items() if what == "imported"]
    refused = {name: why for name, (what, why) in outcomes.items() if what == "refused"}
    tally = (
        f"{len(imported)}/{len(FILES)} imported faithfully, {len(refused)} refused:\n"
        + "\n".join(f"  {name}: {why}" for name, why in sorted(refused.items()))
    )
    print("\n" + tally)
    assert {name: why.split(" ")[0] for name, why in refused.items()} == REFUSED, tally
    assert len(imported) == len(FILES) - len(REFUSED), tally  # issue 16: the whole corpus
