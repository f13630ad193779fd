"""Mermaid flowchart import and export (mermaid.md §3-4, §7.1, §8; spec decisions 3, 5, 16).

`parse_flowchart(text)` reads everything Nereid models and refuses the rest with a
`MermaidError` naming the line, column, offending text and what was expected; nothing is
dropped silently or turned into a stray node. Comments (`%%`, also `%%{init}%%`) are the only
text not kept. `export_flowchart(ast)` writes canonical Mermaid, and for every AST the importer
produces `parse_flowchart(export_flowchart(ast)) == ast`.

Canonical layout, one statement per line, no indentation, declaration order throughout:

1. front matter (`---` / kept text / `---`) when the source had one;
2. `flowchart` or `flowchart <DIR>` (`graph` is written as `flowchart`);
3. `classDef <name> <style>` in definition order;
4. one line per node in order of first mention: `id` (rect labelled with its id),
   `id[label]`, `id((label))`, ... for bracket shapes, `id@{ shape: doc, label: "..." }` for
   the v11-only shapes, `id@{ icon: ..., label: "..." }` / `id@{ img: ... }` for icon and
   image nodes; labels are quoted only where the plain form would read back differently;
5. subgraph blocks in opening order, nested: `subgraph id [title]` (or `subgraph id`,
   `subgraph id [ ]`, `subgraph "title"` for a generated id), `direction X`, the member node
   ids, nested blocks, `end`;
6. edges in text order: `a -->|label| b` (inline labels are written in pipe form, reversed
   links `b <-- a` as `a --> b`); an edge with a v11 id as `a e1@--> b`, then one
   `e1@{ key: value, ... }` line per edge with attributes, in edge order;
7. `class id name` (one per class), `style id css`, `click id action` per node in node order,
   then `class sg name` and `style sg css` per subgraph, then `class e1 name` per edge class
   in edge order;
8. `linkStyle default css`, then `linkStyle <i> css` in edge order.

Decisions (see mermaid.md §14):
- QUIRKs Q1-Q5 are fixed: dotted/thick inline labels, labels with `-`/`.`, multi-character
  shapes, keyword-named nodes in edges. Q6 (a label equal to the id counts as implicit) and
  Q7-style merge rules are kept as BASE.
- Quoted labels are unquoted; a markdown string keeps its backticks (`"`**a**`"` → label
  `` `**a**` ``) and is written back quoted; an unquoted label wrapped in backticks is refused.
  Quoted strings may span lines (continuation lines are trimmed; the label holds `\n`).
- `;` separates statements; front matter is kept verbatim; a leading BOM is dropped.
- Edges may end at subgraphs (`A --> sg`, spec decision 23; see flowchart_build.py);
  `accTitle`/`accDescr` and `direction` outside a subgraph are refused with precise errors. Edge ids, edge attributes and icon/image nodes (Mermaid v11)
  are read (`flowchart_attrs.py`; see docs/model.md).
- `class`/`click` must name a node declared above (Mermaid ignores them otherwise); `style`
  creates the node as Mermaid does.
"""

from __future__ import annotations

from nereid.mermaid.errors import check_encodable
from nereid.mermaid.flowchart_build import build_flowchart
from nereid.mermaid.flowchart_export import export_flowchart
from nereid.mermaid.flowchart_lines import split_flowchart
from nereid.model.flowchart import FlowchartAst

__all__ = ["export_flowchart", "parse_flowchart"]


def parse_flowchart(text: str) -> FlowchartAst:
    """Import a Mermaid flowchart (raises MermaidError, and nothing else, on any input)."""
    check_encodable(text)
    header, statements = split_flowchart(text)
    return build_flowchart(header, statements)
