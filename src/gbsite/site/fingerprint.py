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
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from gbsite.config import Config
from gbsite.fs.files import input_files, read_input
from gbsite.registry.model import SNAPSHOTS_DIR

MARKER = ".gbsite-output"
_HEADER = "written by gbsite build; this folder is replaced on every build\n"


def _files(folder: Path, root: Path | None = None) -> list[Path]:
    """The files to hash below `folder`: regular files inside the project (fs/files.input_files
    refuses a named pipe, a device, or a symbolic link out of the project, before any read)."""
    return input_files(folder, root)


@dataclass(frozen=True)
class ReadInputs:
    digest: str  # of the files below, gbsite's code and SOURCE_DATE_EPOCH
    generation: str  # the same but for the docs files: what a BuildCache keeps (cache.py)
    files: dict[Path, bytes]  # the project's input files
    hashes: dict[Path, bytes]  # each input file's and code file's SHA-256, for the next time
    listed: tuple[tuple[Path, ...], ...]  # code, shared inputs, docs files: for the next time

    def read(self, path: Path) -> bytes:
        """The bytes that were hashed; a file the fingerprint did not cover is read now."""
        data = self.files.get(path)
        return data if data is not None else read_input(path)


def inputs(
    cfg: Config, since: ReadInputs | None = None, changed: Collection[Path] = ()
) -> ReadInputs:
    """Every input's bytes and the hashes. With `since`, an earlier fingerprint of this
    process, only the files in `changed` (serve's watcher says which) and new ones are read:
    opening ~1,300 files costs more than the rest of a rebuild after one save."""
    hashes: dict[Path, bytes] = {}
    files: dict[Path, bytes] = {}

    def hashed(paths: list[Path], base: Path, keep: bool) -> list[tuple[str, bytes]]:
        named = []
        for path in paths:
            if since is not None and path in since.hashes and path not in changed:
                digest, data = since.hashes[path], since.files.get(path, b"")
            else:
                data = read_input(path)
                digest = hashlib.sha256(data).digest()
            hashes[path] = digest
            if keep:
                files[path] = data
            named.append((_relative(path, base), digest))
        return named

    code, sources, docs = _listed(cfg, since, changed)
    # Paths are hashed relative to the package and the project: a project moved or cloned
    # elsewhere, with its site, is still up to date, and the marker says nothing of where it is.
    named = hashed(code, PACKAGE, keep=False) + hashed(sources, cfg.root, keep=True)
    generation = _digest(named, os.environ.get("SOURCE_DATE_EPOCH", "").encode())
    named = hashed(docs, cfg.root, keep=True)
    listed = (tuple(code), tuple(sources), tuple(docs))
    return ReadInputs(_digest(named, generation.encode()), generation, files, hashes, listed)


PACKAGE = Path(__file__).resolve().parent.parent  # all of gbsite's code, not only site/


def _listed(
    cfg: Config, since: ReadInputs | None, changed: Collection[Path]
) -> tuple[list[Path], list[Path], list[Path]]:
    """The files to hash: gbsite's code, the inputs every page shares, the docs files. With
    `since`, its lists with the changed files added or taken out, when each is a plain file (or
    gone) in the input folders; anything else (a folder, a link...): the folders listed again."""
    folders = (cfg.registry_dir, cfg.templates_dir, cfg.docs_dir)
    # The snapshots kept in registry/ are not read by the build (an import that adds one also
    # changes sources.yaml), and hashing them would cost more with every import.
    snapshots = cfg.registry_dir / SNAPSHOTS_DIR
    if since is not None and all(_plain(cfg, path, folders) for path in changed):
        code, sources, docs = (list(group) for group in since.listed)
        for path in changed:
            if path.is_relative_to(snapshots):
                continue
            group = docs if path.is_relative_to(cfg.docs_dir) else sources
            if path in group:
                group.remove(path)
            if path.is_file():
                group.append(path)
        return code, sources, docs
    sources = [
        cfg.file,
        *([cfg.verified_file] if cfg.verified_file.exists() else []),
        *(p for p in _files(cfg.registry_dir, cfg.root) if not p.is_relative_to(snapshots)),
        *_files(cfg.templates_dir, cfg.root),
    ]
    # Our own code counts too, but not the bytecode Python caches next to it.
    code = [path for path in _files(PACKAGE) if path.suffix != ".pyc"]
    return code, sources, _files(cfg.docs_dir, cfg.root)


def _plain(cfg: Config, path: Path, folders: tuple[Path, ...]) -> bool:
    if path in (cfg.file, cfg.verified_file):
        return not path.is_symlink() and not path.is_dir()
    inside = next((f for f in folders if path.is_relative_to(f)), None)
    if inside is None or path.is_symlink() or path.is_dir():
        return False
    return not any(part.startswith(".") for part in path.relative_to(inside).parts)


def _relative(path: Path, base: Path) -> str:
    """`path` from `base`, with forward slashes; by string (serve fingerprints on every save,
    and os.path.relpath for each of ~1,300 files costs more than hashing them)."""
    text, prefix = str(path), str(base) + os.sep
    rel = text[len(prefix) :] if text.startswith(prefix) else os.path.relpath(path, base)
    return rel.replace(os.sep, "/")


def _digest(named: list[tuple[str, bytes]], extra: bytes) -> str:
    digest = hashlib.sha256()
    for name, file_digest in sorted(named):  # the order files were listed in does not count
        digest.update(name.encode() + b"\0" + file_digest)
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
