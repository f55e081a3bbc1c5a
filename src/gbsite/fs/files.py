"""Single files, written and read safely.

Writes never leave a half-written file and skip files whose bytes are unchanged; every read of
an input goes through read_input: regular files only, inside the tree they belong to
(check_input), within a size limit known before reading, symbolic link loops reported; text is
strict UTF-8 (decode_utf8).
"""

from __future__ import annotations

import contextlib
import functools
import os
import stat
from collections.abc import Callable
from pathlib import Path

from gbsite.errors import GbsiteError, Problem

MAX_INPUT_BYTES = 64 * 2**20  # an input larger than this is not one of gbsite's files
MAX_MEMBER_BYTES = 16 * 2**20  # a file of a torch source tree (a wheel's members: the same)

# How a loader reads a file's bytes: read_input, or a build's snapshot of what it hashed.
ReadBytes = Callable[[Path], bytes]


def write_atomic(path: Path, data: bytes) -> None:
    """Write via a temp file in the same folder and rename it over the target.

    A rename within one file system is atomic, so a process killed at any moment leaves the old
    file or the new one, never a truncated one. We do not fsync: the guarantee we need is against
    a killed process (the page cache survives it), and fsync per file would make a sync of
    hundreds of files slow; the durable copy of these files is git.
    """
    import tempfile  # here: it imports shutil, random and the compressors (~6 ms), which a
    # command that only reads, such as `gbsite lookup`, does not need

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


# ---- what may be read: regular files inside the project --------------------------------------


@functools.cache
def project_root(folder: Path) -> Path:
    """The nearest folder at or above `folder` with gbsite.toml (the folder itself if none)."""
    folder = folder.resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / "gbsite.toml").is_file():
            return candidate
    return folder


def check_input(path: Path, root: Path | None = None) -> None:
    """Refuse to read `path` unless it is a regular file inside the project, or a symlink to
    one: a FIFO would hang the read, /dev/zero would fill the memory, and a symlink to a file
    elsewhere on the machine would publish that file on the site."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return  # the reader reports it
    except OSError as exc:  # a folder on the way that is a link loop, or not a folder
        raise GbsiteError.at(path, None, f"cannot read: {exc.strerror or exc}") from None
    if stat.S_ISLNK(info.st_mode):
        project = root is None or (root / "gbsite.toml").is_file()
        where = "outside the project" if project else f"outside {root}"
        root = root or project_root(path.parent)
        try:
            target = path.resolve(strict=True)
        except FileNotFoundError:
            raise GbsiteError.at(path, None, "a symbolic link to nothing (broken link)") from None
        except (OSError, RuntimeError):  # ELOOP, reported as RuntimeError by some Pythons
            raise GbsiteError.at(
                path, None, "a symbolic link loop (the link leads back to itself); remove it"
            ) from None
        if not target.is_relative_to(root):
            raise GbsiteError.at(
                path,
                None,
                f"a symbolic link to {target}, {where}; gbsite reads only files inside it: "
                "copy the file in instead",
            )
        try:
            info = target.stat()
        except OSError:
            raise GbsiteError.at(path, None, "a symbolic link to nothing (broken link)") from None
    if stat.S_ISDIR(info.st_mode):
        return  # folders are walked, not read
    if not stat.S_ISREG(info.st_mode):
        raise GbsiteError.at(
            path, None, f"not a regular file (a {_kind_of(info.st_mode)}); gbsite reads only files"
        )


class InputTooLarge(GbsiteError):
    """An input over its size limit (a reader may say which setting raises it); `size` is what
    was seen of it, at least limit + 1 bytes."""

    size = 0


def read_input(path: Path, *, root: Path | None = None, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the input file `path`, read the one guarded way: check_input first, then
    the open file itself is checked (a file swapped for a pipe after the check opens without
    blocking and is refused) and its size compared with `limit` before anything is read, and
    no more than `limit` bytes are ever read (a file that grows). FileNotFoundError is left to
    the caller, which knows whether a missing file is an error; every other problem is a
    one-line GbsiteError naming the file."""
    check_input(path, root)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise GbsiteError.at(path, None, "is a folder, not a file") from None
    except OSError as exc:
        raise GbsiteError.at(path, None, f"cannot read: {exc.strerror or exc}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise GbsiteError.at(path, None, "is a folder, not a file")
        kind = _kind_of(info.st_mode)
        raise GbsiteError.at(path, None, f"not a regular file (a {kind}); gbsite reads only files")
    with os.fdopen(fd, "rb") as f:
        if info.st_size > limit:
            raise _too_large(path, info.st_size, limit)
        try:
            # The size fstat gave and a byte more, then the rest up to the limit if the file
            # grew: asking for `limit` has Python allocate that much for each file (45 us a
            # file here instead of 12: ~40 ms of a build's ~1,200 reads).
            data = f.read(info.st_size + 1)
            if len(data) > info.st_size:
                data += f.read(limit + 1 - len(data))
        except OSError as exc:
            raise GbsiteError.at(path, None, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise _too_large(path, len(data), limit)
    return data


def read_input_text(path: Path, *, root: Path | None = None, limit: int = MAX_INPUT_BYTES) -> str:
    """read_input as strict UTF-8 text."""
    return decode_utf8(path, read_input(path, root=root, limit=limit))


def _too_large(path: Path, size: int, limit: int) -> InputTooLarge:
    why = f"larger than {limit / 2**20:g} MB, the limit for this file ({size:,} bytes or more)"
    error = InputTooLarge(Problem(why, path, None))
    error.size = size
    return error


def _kind_of(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def input_files(folder: Path, root: Path | None = None) -> list[Path]:
    """Every file below `folder` but hidden ones (names starting with "."), in sorted order of
    folders and names, each a regular file or checked by check_input (which refuses the rest).
    Symbolic links to folders are checked, and not followed."""
    found: list[Path] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return found
    folders = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_file(follow_symlinks=False):  # from the folder listing: no system call
            found.append(Path(entry.path))
        elif entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__":
                folders.append(Path(entry.path))
        else:  # a symbolic link, a named pipe, a device...
            check_input(Path(entry.path), root)
            if not Path(entry.path).is_dir():
                found.append(Path(entry.path))
    for sub in folders:
        found += input_files(sub, root)
    return found


# ---- cache files: a JSON map of text to text in the user's cache folder ----------------------


def cache_name(source: str, *versions: str) -> str:
    """A cache file's name (16 hex digits) from the source file of the code that makes what it
    holds and the versions that code depends on: a change of either starts a new file."""
    import hashlib

    made_by = Path(source).read_bytes() + "".join(versions).encode()
    return hashlib.sha256(made_by).hexdigest()[:16]


def package_versions(*names: str) -> tuple[str, ...]:
    """What names the installed version of each package, for cache_name: its `__init__.py`,
    which states the version, read without importing the package (importing markdown-it-py only
    to ask takes ~75 ms). A package that cannot be read this way is named by its name."""
    from importlib.util import find_spec

    found = []
    for name in names:
        try:
            spec = find_spec(name)
            found.append(Path(spec.origin).read_text() if spec and spec.origin else name)
        except (OSError, UnicodeDecodeError, ImportError, ValueError):
            found.append(name)
    return tuple(found)


def read_text_map(path: Path, *, limit: int) -> dict[str, str]:
    """A cache file's map of text to text; {} when it is missing, unreadable, larger than
    `limit` or not such a map: it is a cache only."""
    import json

    try:
        data = json.loads(read_input(path, limit=limit))
    except (OSError, GbsiteError, ValueError):  # ValueError: not JSON, or not UTF-8
        return {}
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        return {}
    return data


def read_json_lines(path: Path, *, limit: int) -> dict[str, str]:
    """A cache file of JSON texts by key, a line each: the key as a JSON string, then the text
    (JSON has no line break). {} when the file is missing, unreadable, larger than `limit` or
    not UTF-8; a line that does not start with a key is left out. The texts are not decoded:
    a caller decodes those it uses (a JSON map of JSON texts costs a decoding of each twice)."""
    import json

    try:
        text = read_input(path, limit=limit).decode()
    except (OSError, GbsiteError, ValueError):  # ValueError: not UTF-8
        return {}
    key_of = json.JSONDecoder().raw_decode
    kept = {}
    for line in text.split("\n"):
        if line.startswith('"'):
            try:
                key, end = key_of(line)
            except ValueError:
                continue
            kept[key] = line[end:]
    return kept


def json_lines(texts: dict[str, str]) -> bytes:
    """What read_json_lines reads back as `texts`, whose values are JSON texts (no line
    break: json.dumps escapes them)."""
    import json

    return "".join(f"{json.dumps(key)}{text}\n" for key, text in texts.items()).encode()


def write_cache(path: Path, data: bytes) -> None:
    """Write a cache file atomically; in a cache folder that cannot be written, nothing (the
    next command does the work again)."""
    with contextlib.suppress(OSError, GbsiteError):
        write_atomic(path, data)


def keep_newest(folder: Path, pattern: str, keep: int) -> None:
    """Remove all but the `keep` most recently modified files matching `pattern` in a cache
    folder; one another command removed first, or a folder that cannot be read, is no error."""
    with contextlib.suppress(OSError):
        files = sorted(
            (p for p in folder.glob(pattern) if p.is_file()),
            key=lambda p: p.stat().st_mtime,
            reverse=True,
        )
        for old in files[keep:]:
            old.unlink(missing_ok=True)
