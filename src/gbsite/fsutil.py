"""File writes that never leave a half-written file and skip files whose bytes are unchanged."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from gbsite.errors import GbsiteError

# How a loader reads a file's bytes: Path.read_bytes, or a build's snapshot of what it hashed.
ReadBytes = Callable[[Path], bytes]


def write_atomic(path: Path, data: bytes) -> None:
    """Write via a temp file in the same folder and rename it over the target.

    A rename within one file system is atomic, so a process killed at any moment leaves the old
    file or the new one, never a truncated one. We do not fsync: the guarantee we need is against
    a killed process (the page cache survives it), and fsync per file would make a sync of
    hundreds of files slow; the durable copy of these files is git.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
        tmp.chmod(mode)
        tmp.replace(path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write `data` unless the file already holds exactly these bytes (its mtime is then kept)."""
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    write_atomic(path, data)
    return True


def decode_utf8(path: Path, data: bytes) -> str:
    """Strict UTF-8 without BOM, so what we write back is byte-identical to what we read."""
    if data.startswith(b"\xef\xbb\xbf"):
        raise GbsiteError.at(path, 1, "file starts with a UTF-8 byte order mark (BOM); remove it")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise GbsiteError.at(
            path, line, f"invalid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8"
        ) from None
