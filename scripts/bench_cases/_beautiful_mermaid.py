"""beautiful-mermaid (npm), measured in the same run as Nereid: the render case's peer.

`peer_times(files, runs)` installs the pinned version into a cache directory outside the
repository (`$NEREID_BENCH_CACHE`, default `~/.cache/nereid-bench`; nothing from npm is ever
committed), runs `_beautiful_mermaid.mjs` under node and returns median ms per file name.
Without node or npm, or when the install fails (no network), it returns None and says why,
so the bench still runs and prints its own figures.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

__all__ = ["PEER", "peer_times"]

PEER = "beautiful-mermaid@1.1.3"
_SCRIPT = Path(__file__).resolve().with_name("_beautiful_mermaid.mjs")


def _install_dir() -> Path:
    base = os.environ.get("NEREID_BENCH_CACHE") or str(Path.home() / ".cache" / "nereid-bench")
    return Path(base) / PEER.replace("@", "-")


def _installed() -> tuple[Path | None, str]:
    """The directory holding node_modules/beautiful-mermaid, installing it first if needed."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return None, "node/npm not found"
    target = _install_dir()
    if (target / "node_modules" / "beautiful-mermaid" / "package.json").exists():
        return target, ""
    target.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(target), PEER],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        return None, f"npm install {PEER} failed: {done.stderr.strip()[-200:]}"
    return target, ""


def peer_times(
    files: list[Path], runs: int, budget_ms: float = 20_000.0
) -> tuple[dict[str, float] | None, str]:
    """Median ms of beautiful-mermaid's text drawing per file stem, or None and why not.

    Files it fails on are left out (and named in the message)."""
    where, why = _installed()
    if where is None:
        return None, why
    # The script imports the package by name: run it from a copy inside the install dir.
    script = where / _SCRIPT.name
    shutil.copyfile(_SCRIPT, script)
    done = subprocess.run(
        ["node", str(script), str(runs), str(budget_ms), *map(str, files)],
        capture_output=True,
        text=True,
        cwd=where,
        timeout=3600,
    )
    if done.returncode != 0:
        return None, f"node failed: {done.stderr.strip()[-200:]}"
    times: dict[str, float] = {}
    failed: list[str] = []
    for line in done.stdout.splitlines():
        row = json.loads(line)
        name = Path(row["file"]).stem
        if "error" in row:
            failed.append(f"{name}: {row['error'][:80]}")
        else:
            times[name] = float(row["median_ms"])
    return times, "; ".join(failed)
