"""Digests of renders (text and span map, or the error), to compare the native and pure builds.

`python -m tests.native.render_digests` reads diagram sources as JSON lines on stdin
(`[name, source]`) and prints `name digest` lines; run once as is and once with
`NEREID_PURE=1`, the two outputs must be equal. `diagram_sources` is the set the test
and `scripts/native_parity` use: the Mermaid docs corpus, the render-quality set, the
bench corpus when given, and seeded generated flowcharts (4 directions, subgraphs, edge
labels, CJK/emoji, long words) and sequences (every block kind, notes everywhere); every
source is rendered in Unicode and in ASCII.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from hashlib import blake2b
from pathlib import Path

from nereid.errors import NereidError
from nereid.mermaid import parse_mermaid
from nereid.model.diagram import Diagram, ast_kind
from nereid.render import RenderError, RenderOptions, TooLargeToRender, render_diagram

DOCS_CORPUS = Path("/work/shared/corpus/mermaid-docs")
WORDS = ["go", "Checkout", "日本語", "ok 🚀", "InvoiceGeneratorService", "a/b/c.d_e-f", "x y z",
         "café", "**bold**", "`code`", "#quot;q#quot;", "a<br>b", "한국어 라벨", "Ω≈ç√"]  # fmt: skip
SHAPES = ["[{}]", "({})", "{{{}}}", "(({}))", "[({})]", "{{{{{}}}}}", "([{}])", "[[{}]]",
          "[/{}/]", "[\\{}\\]", ">{}]", "((({})))"]  # fmt: skip
ARROWS = ["-->", "---", "-.->", "==>", "<-->", "--o", "--x", "-.-", "===", "~~~", "--->"]
SEQ_ARROWS = ["->", "-->", "->>", "-->>", "-x", "--x", "-)", "--)", "<<->>"]


def _label(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))


def generated_flowchart(seed: int) -> str:
    """A random flowchart: nodes of every shape, labelled edges, nested subgraphs."""
    rng = random.Random(seed)
    count = rng.randint(2, 24)
    lines = [f"flowchart {rng.choice(['TD', 'LR', 'BT', 'RL'])}"]
    for i in range(count):
        lines.append(f"  n{i}" + rng.choice(SHAPES).format(f'"{_label(rng)}"'))
    for _ in range(rng.randint(1, count * 2)):
        a, b = rng.randrange(count), rng.randrange(count)
        arrow = rng.choice(ARROWS)
        label = f'|"{_label(rng)}"|' if rng.random() < 0.4 else ""
        lines.append(f"  n{a} {arrow}{label} n{b}")
    depth = 0
    for i in rng.sample(range(count), k=min(count, rng.randint(0, 8))):
        if depth < 3 and rng.random() < 0.6:
            lines.append(f'  subgraph s{i}["{_label(rng)}"]')
            depth += 1
        lines.append(f"    n{i}")
        if depth and rng.random() < 0.4:
            lines.append("  end")
            depth -= 1
    lines += ["  end"] * depth
    return "\n".join(lines) + "\n"


def generated_sequence(seed: int) -> str:
    """A random sequence: every arrow, nested blocks of every kind, notes at every position."""
    rng = random.Random(seed)
    people = [f"P{i}" for i in range(rng.randint(2, 6))]
    lines = ["sequenceDiagram"] + (["autonumber"] if rng.random() < 0.3 else [])
    for p in people:
        kind = rng.choice(["participant", "actor"])
        lines.append(f"  {kind} {p} as {_label(rng)}" if rng.random() < 0.5 else f"  {kind} {p}")
    open_blocks: list[str] = []
    for _ in range(rng.randint(2, 30)):
        roll = rng.random()
        a, b = rng.choice(people), rng.choice(people)
        if roll < 0.45:
            lines.append(f"  {a}{rng.choice(SEQ_ARROWS)}{b}: {_label(rng)}")
        elif roll < 0.6:
            where = rng.choice([f"left of {a}", f"right of {a}", f"over {a}", f"over {a},{b}"])
            lines.append(f"  Note {where}: {_label(rng)}")
        elif roll < 0.75 and len(open_blocks) < 4:
            kind = rng.choice(["loop", "alt", "opt", "par", "critical", "break", "rect"])
            title = "rgb(200, 150, 255)" if kind == "rect" else _label(rng)
            lines.append(f"  {kind} {title}")
            lines.append(f"  {a}->>{b}: {_label(rng)}")
            open_blocks.append(kind)
        elif roll < 0.82 and open_blocks and open_blocks[-1] in ("alt", "par", "critical"):
            word = {"alt": "else", "par": "and", "critical": "option"}[open_blocks[-1]]
            lines.append(f"  {word} {_label(rng)}")
            lines.append(f"  {b}-){a}: {_label(rng)}")
        elif roll < 0.9 and open_blocks:
            lines.append("  end")
            open_blocks.pop()
        else:
            lines.append(f"  {a}->>+{b}: {_label(rng)}")
            lines.append(f"  {b}-->>-{a}: {_label(rng)}")
    lines += ["  end"] * len(open_blocks)
    return "\n".join(lines) + "\n"


def diagram_sources(
    generated: int = 200, bench_dir: Path | None = None
) -> Iterator[tuple[str, str]]:
    """(name, Mermaid source) pairs: the corpora and `generated` flowcharts and sequences."""
    if DOCS_CORPUS.is_dir():
        for path in sorted(DOCS_CORPUS.glob("*.mmd")):
            yield f"docs/{path.name}", path.read_text(encoding="utf-8")
    from tests.render.test_render_quality import FLOW_CASES, SEQ_CASES

    for name, case in {**FLOW_CASES, **SEQ_CASES}.items():
        yield f"quality/{name}", case[0]
    if bench_dir is not None:
        for path in sorted(bench_dir.glob("*.mmd")):
            yield f"bench/{path.name}", path.read_text(encoding="utf-8")
    for seed in range(generated):
        yield f"flow/{seed}", generated_flowchart(seed)
        yield f"seq/{seed}", generated_sequence(seed)


def render_digest(source: str, *, ascii_only: bool) -> str:
    """A digest of the text and span map, or the error's type and message."""
    try:
        ast = parse_mermaid(source)
        diagram = Diagram(diagram_id="d", name="d", kind=ast_kind(ast), ast=ast, rev=0)
        rendered = render_diagram(diagram, RenderOptions(ascii=ascii_only))
    except (NereidError, RenderError, TooLargeToRender) as error:
        return f"error:{type(error).__name__}:{str(error)!r}"
    spans = sorted((repr(ref), repr(spans)) for ref, spans in rendered.spans.items())
    payload = repr((rendered.text, rendered.width, rendered.height, spans)).encode()
    return blake2b(payload, digest_size=16).hexdigest()


def digests(sources: list[tuple[str, str]]) -> list[str]:
    """`name digest` per source and glyph set."""
    return [
        f"{name}#{'ascii' if ascii_only else 'unicode'} {render_digest(src, ascii_only=ascii_only)}"
        for name, src in sources
        for ascii_only in (False, True)
    ]


def pure_digests(sources: list[tuple[str, str]]) -> list[str]:
    """`digests` computed in a child process that loads only the pure modules."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.native.render_digests"],
        input="\n".join(json.dumps(pair) for pair in sources),
        env=dict(os.environ, NEREID_PURE="1"),
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.rstrip("\n").split("\n")


def differences(sources: list[tuple[str, str]]) -> list[str]:
    """Where this process's renders differ from the pure build's (empty when identical)."""
    here, pure = digests(sources), pure_digests(sources)
    if len(here) != len(pure):
        return [f"{len(here)} digests here, {len(pure)} in the pure build"]
    return [
        f"{a}  !=  pure {b.split(' ', 1)[1]}" for a, b in zip(here, pure, strict=True) if a != b
    ]


def main() -> None:
    """Without arguments: digests of the JSON lines on stdin. `compare [GENERATED [BENCH_DIR]]`:
    compare this build with the pure one over `diagram_sources` and print the verdict."""
    if sys.argv[1:2] == ["compare"]:
        from nereid._native import status

        generated = int(sys.argv[2]) if len(sys.argv) > 2 else 500
        bench = Path(sys.argv[3]) if len(sys.argv) > 3 else None
        sources = list(diagram_sources(generated, bench))
        found = differences(sources)
        print(status())
        print(f"{len(sources)} diagrams x 2 glyph sets: {len(found)} differences")
        print("\n".join(found[:20]))
        sys.exit(1 if found else 0)
    pairs = [json.loads(line) for line in sys.stdin if line.strip()]
    print("\n".join(digests([(str(name), str(src)) for name, src in pairs])))


if __name__ == "__main__":
    main()
