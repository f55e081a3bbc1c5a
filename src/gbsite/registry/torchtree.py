"""The torch source of a release, read without importing torch: an installed package folder
(`--torch-source DIR`, gbsite's environments of torch releases) or the wheel a snapshot is
imported from, read in memory. resolve.py reads the registry's names from it.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

from gbsite.errors import GbsiteError
from gbsite.fs.files import MAX_MEMBER_BYTES, read_input

MAX_MEMBER = MAX_MEMBER_BYTES  # a .py file larger than this is not read (wheel or folder)


class TorchTree:
    """The Python files of a torch package, by path inside it ("torch/_dynamo/exc.py")."""

    def paths(self) -> list[str]:
        raise NotImplementedError

    def read(self, path: str) -> str | None:
        raise NotImplementedError

    def location(self, path: str) -> Path:
        """Where the file `path` is, for a message."""
        raise NotImplementedError

    @property
    def version(self) -> str:
        """torch/version.py's `__version__` ("unknown" without one): a torch build's version,
        as releases.is_build checks it; anything else is an error, not printed or stored."""
        from gbsite import releases

        text = self.read("torch/version.py") or ""
        match = re.search(r"""^__version__\s*(?::\s*str\s*)?=\s*['"]([^'"]+)['"]""", text, re.M)
        if match is None:
            return "unknown"
        if not releases.is_build(match.group(1)):
            raise GbsiteError.at(
                self.location("torch/version.py"),
                text.count("\n", 0, match.start()) + 1,
                f"__version__ {match.group(1)[:40]!r} is not a torch version such as 2.16.0+cpu",
            )
        return match.group(1)


class FolderTree(TorchTree):
    """An installed torch: its package folder (.../site-packages/torch)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._texts: dict[str, str | None] = {}

    def paths(self) -> list[str]:
        return sorted(
            "torch/" + p.relative_to(self.folder).as_posix() for p in self.folder.rglob("*.py")
        )

    def location(self, path: str) -> Path:
        return self.folder.joinpath(*path.split("/")[1:])

    def read(self, path: str) -> str | None:
        if path not in self._texts:
            target = self.folder.joinpath(*path.split("/")[1:])
            try:
                # A pipe, a device or a huge file in a hostile tree is an error, not a hang.
                data = read_input(target, root=self.folder, limit=MAX_MEMBER)
                self._texts[path] = data.decode("utf-8", errors="replace")
            except OSError:
                self._texts[path] = None
        return self._texts[path]


class WheelTree(TorchTree):
    """A torch wheel, read in memory: only its torch/**.py members."""

    def __init__(self, where: Path, data: bytes) -> None:
        self.where = where
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile:
            raise GbsiteError.at(where, None, "not a wheel (zip) file") from None
        self.members = {
            i.filename: i
            for i in self.zip.infolist()
            if i.filename.startswith("torch/") and i.filename.endswith(".py")
        }

    def paths(self) -> list[str]:
        return sorted(self.members)

    def location(self, path: str) -> Path:
        return self.where / path  # the member, named inside the wheel

    def read(self, path: str) -> str | None:
        info = self.members.get(path)
        if info is None or info.file_size > MAX_MEMBER:
            return None
        try:
            return self.zip.read(info).decode("utf-8", errors="replace")
        except (zipfile.BadZipFile, OSError, EOFError, ValueError):
            raise GbsiteError.at(self.where, None, f"corrupt member {path}") from None


def folder_tree(path: Path) -> FolderTree:
    """`--torch-source DIR`: a torch package folder, a folder holding one (site-packages), or
    a virtual environment with torch (such as gbsite's cache of torch releases)."""
    candidates = [path, path / "torch"]
    candidates += sorted(path.glob("lib/python3*/site-packages/torch"))
    candidates += sorted(path.glob("Lib/site-packages/torch"))
    for folder in candidates:
        if (folder / "_dynamo").is_dir() and (folder / "__init__.py").is_file():
            return FolderTree(folder)
    raise GbsiteError.at(
        path, None, "no torch source here: name a torch package folder or an environment with torch"
    )
