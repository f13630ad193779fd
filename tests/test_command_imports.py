"""`nereid render` / `nereid check` start light (issue 18): importing the command loads no
Mermaid parser, and reading one kind of file loads that kind's parser only.

A fresh interpreter per check, and what it imported (`sys.modules`), not a timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

_PARSERS = {
    "flowchart": "nereid.mermaid.flowchart_build",
    "sequence": "nereid.mermaid.sequence_grammar",
    "state": "nereid.mermaid.state",
}
_TEXTS = {
    "flowchart": "flowchart TD\n  a[Start] --> b[End]\n",
    "sequence": "sequenceDiagram\n  A->>B: hi\n",
    "state": "stateDiagram-v2\n  [*] --> Idle\n",
}


def _imported(code: str) -> set[str]:
    script = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize("command", ["render", "check"])
def test_importing_a_command_loads_no_parser(command: str) -> None:
    modules = _imported(f"import nereid.commands.{command}")
    assert not modules & set(_PARSERS.values())


@pytest.mark.parametrize("kind", sorted(_TEXTS))
def test_a_file_loads_the_parser_of_its_kind_only(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "one.mmd"
    path.write_text(_TEXTS[kind])
    modules = _imported(
        "import contextlib, io\n"
        "from nereid.commands import render\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert render.run([{str(path)!r}]) == 0"
    )
    assert {k for k, module in _PARSERS.items() if module in modules} == {kind}
