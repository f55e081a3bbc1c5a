"""The probe corpus: `tools/probe/corpus/TECHNIQUE/*.py`, one folder per kind of trick.

A file is a probe program (run as `python FILE` would run it), except `gen_*.py`, a generator:
run under the torch being probed as `python gen_x.py OUTDIR`, it writes programs into OUTDIR
(the higher-order-op fuzzer asks the running torch which ops it has). A program may name the
ids it was written for in a comment line `# aims: GB0123 GB0456`; the report lists them under
what was tried for those ids.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from gbsite.errors import GbsiteError
from gbsite.examples.runner import example_env
from gbsite.probe.detect import Program

_AIMS = re.compile(r"^#\s*aims:\s*(.+)$", re.MULTILINE)
_ID = re.compile(r"GB\d{4}")


def aims_of(text: str) -> tuple[str, ...]:
    return tuple(sorted({i for line in _AIMS.findall(text) for i in _ID.findall(line)}))


def techniques(corpus: Path) -> list[str]:
    return sorted(p.name for p in corpus.iterdir() if p.is_dir() and not p.name.startswith("_"))


def program(path: Path, technique: str, name: str, *, generated: bool = False) -> Program:
    text = path.read_text(encoding="utf-8", errors="replace")
    return Program(path, technique, name, aims_of(text), generated)


def written(corpus: Path) -> list[Program]:
    """The hand-written programs of the corpus, in a stable order."""
    return [
        program(path, technique, f"{technique}/{path.stem}")
        for technique in techniques(corpus)
        for path in sorted((corpus / technique).glob("*.py"))
        if not path.name.startswith("gen_")
    ]


def generators(corpus: Path) -> list[tuple[str, Path]]:
    return [
        (technique, path)
        for technique in techniques(corpus)
        for path in sorted((corpus / technique).glob("gen_*.py"))
    ]


def generate(
    python: str, technique: str, generator: Path, out: Path, timeout: float = 300.0
) -> list[Program]:
    """Run a generator under `python`; the programs it wrote into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    try:
        proc = subprocess.run(
            [python, str(generator), str(out)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=example_env(),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise GbsiteError(f"{generator}: did not finish within {timeout:.0f} s") from None
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        raise GbsiteError(f"{generator}: exit {proc.returncode}: {last[0][:300]}")
    stem = generator.stem.removeprefix("gen_")
    return [
        program(path, technique, f"{technique}/{stem}/{path.stem}", generated=True)
        for path in sorted(out.glob("*.py"))
    ]
