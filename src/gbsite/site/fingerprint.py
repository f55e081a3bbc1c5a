"""Has anything a build reads changed since the site in the output folder was built?

A build's output is a pure function of: gbsite's own code, gbsite.toml, registry/, docs/gb/,
the record of verified examples, templates/ and SOURCE_DATE_EPOCH. We hash all of it (contents,
not times) and keep the hash in the output folder's marker file, with the size of every file the
build wrote. When both still match, `gbsite build` has nothing to do and stops before importing
Jinja, YAML or Markdown: that is what makes a rebuild with nothing changed cheap.

The bytes hashed are kept (`ReadInputs`), and the build parses the registry and docs files, the
bulk of its input, from those: they are read once, and the recorded hash describes exactly what
was built even if one changes during the build. Templates, assets and the record of verified
examples are read again where they are used (Jinja's loader reads its own); if one changes
during a build, the next build's hash differs and it builds again.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from gbsite.config import Config
from gbsite.fs.files import input_files

MARKER = ".gbsite-output"
_HEADER = "written by gbsite build; this folder is replaced on every build\n"


def _files(folder: Path, root: Path | None = None) -> list[Path]:
    """The files to hash below `folder`: regular files inside the project (fsutil.input_files
    refuses a named pipe, a device, or a symbolic link out of the project, before any read)."""
    return input_files(folder, root)


@dataclass(frozen=True)
class ReadInputs:
    digest: str  # of the files below, gbsite's code and SOURCE_DATE_EPOCH
    generation: str  # the same but for the docs files: what a BuildCache keeps (cache.py)
    files: dict[Path, bytes]  # the project's input files

    def read(self, path: Path) -> bytes:
        """The bytes that were hashed; a file the fingerprint did not cover is read now."""
        data = self.files.get(path)
        return data if data is not None else path.read_bytes()


def inputs(cfg: Config) -> ReadInputs:
    docs = _files(cfg.docs_dir, cfg.root)
    sources = [
        cfg.file,
        *([cfg.verified_file] if cfg.verified_file.exists() else []),
        *_files(cfg.registry_dir, cfg.root),
        *_files(cfg.templates_dir, cfg.root),
    ]
    files = {path: path.read_bytes() for path in sources}
    # Our own code counts too, but not the bytecode Python caches next to it.
    package = Path(__file__).resolve().parent.parent  # all of gbsite, not only site/
    code = {path: path.read_bytes() if path.suffix != ".pyc" else b"" for path in _files(package)}
    # Paths are hashed relative to the package and the project: a project moved or cloned
    # elsewhere, with its site, is still up to date, and the marker says nothing of where it is.
    named = [(_relative(path, package), data) for path, data in code.items()]
    named += [(_relative(path, cfg.root), data) for path, data in files.items()]
    generation = _digest(named, os.environ.get("SOURCE_DATE_EPOCH", "").encode())
    doc_files = {path: path.read_bytes() for path in docs}
    named = [(_relative(path, cfg.root), data) for path, data in doc_files.items()]
    return ReadInputs(_digest(named, generation.encode()), generation, {**files, **doc_files})


def _relative(path: Path, base: Path) -> str:
    """`path` from `base`, with forward slashes; by string (serve fingerprints on every save,
    and os.path.relpath for each of ~1,300 files costs more than hashing them)."""
    text, prefix = str(path), str(base) + os.sep
    rel = text[len(prefix) :] if text.startswith(prefix) else os.path.relpath(path, base)
    return rel.replace(os.sep, "/")


def _digest(named: list[tuple[str, bytes]], extra: bytes) -> str:
    digest = hashlib.sha256()
    for name, data in named:
        digest.update(name.encode() + b"\0")
        digest.update(data)
        digest.update(b"\0")
    digest.update(extra)
    return digest.hexdigest()


def marker(fingerprint: str, sizes: dict[str, int]) -> bytes:
    """The marker file's content: the inputs' hash and every other output's size."""
    lines = [_HEADER, f"inputs {fingerprint}\n"]
    lines += [f"{size} {path}\n" for path, size in sorted(sizes.items()) if path != MARKER]
    return "".join(lines).encode()


def up_to_date(out_dir: Path, fingerprint: str) -> bool:
    """True when `out_dir` holds exactly what a build of these inputs writes."""
    try:
        lines = (out_dir / MARKER).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    if len(lines) < 2 or lines[1] != f"inputs {fingerprint}":
        return False
    for line in lines[2:]:
        size, _, rel = line.partition(" ")
        try:
            if (out_dir / rel).stat().st_size != int(size):
                return False
        except (OSError, ValueError):
            return False
    return True
