"""Status blocks held against the installed torch (`gbsite check --examples`): a cited file
must exist and raise the break, a cited function must be defined there, and an `unraised` break
must not be raised by anything in torch any more."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from gbsite.errors import Problem
from gbsite.examples.status import Declaration
from gbsite.examples.vocabulary import State
from gbsite.fs.files import MAX_MEMBER_BYTES, read_input
from gbsite.registry.model import Entry, Registry
from gbsite.releases import in_release, registry_labels, release_of


class TorchSource:
    """The installed torch package's Python source, searched for graph-break type strings."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder  # the package folder, .../site-packages/torch
        self._strings: dict[Path, set[str]] = {}
        self._texts: dict[Path, str] = {}
        self._all: list[Path] = []

    def path(self, source: str) -> Path | None:
        """The cited file, None when it is not a file inside the package (a link out of it)."""
        path = self.folder.joinpath(*source.split("/")[1:])
        try:
            inside = path.resolve().is_relative_to(self.folder.resolve())
        except (OSError, RuntimeError):  # a link loop
            return None
        if not inside or not path.is_file():
            return None
        return path

    def text(self, path: Path) -> str:
        if path not in self._texts:
            data = read_input(path, root=self.folder, limit=MAX_MEMBER_BYTES)
            self._texts[path] = data.decode("utf-8", errors="replace")
        return self._texts[path]

    def strings(self, path: Path) -> set[str]:
        """The string literals of a file as Python sees them: implicitly concatenated pieces
        joined, f-strings with their `{placeholders}` as written."""
        if path not in self._strings:
            import ast

            from gbsite.registry import pyast

            found: set[str] = set()
            tree = pyast.parse(self.text(path)) or ast.Module(body=[], type_ignores=[])
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    found.add(node.value)
                elif isinstance(node, ast.JoinedStr) and not pyast.too_deep(node):
                    # (one too deep for ast.unparse is no graph-break type: left out)
                    found.add(
                        "".join(
                            str(v.value)
                            if isinstance(v, ast.Constant)
                            else "{" + ast.unparse(v.value) + "}"  # type: ignore[attr-defined]
                            for v in node.values
                        )
                    )
            self._strings[path] = found
        return self._strings[path]

    def mentions(self, path: Path, gb_types: Iterable[str]) -> bool:
        text = self.text(path)
        return any(t in text or t in self.strings(path) for t in gb_types)

    def find(self, gb_types: Iterable[str]) -> Path | None:
        """A file of the package that has one of these graph-break types as a string literal
        of its own, if any: quoted in the text, or as the joined value of implicitly
        concatenated literals in the files that raise graph breaks (gb_type=...). A type that
        is only part of a longer string (`functools.wraps` in a docstring) does not count."""
        if not self._all:
            self._all = sorted(self.folder.rglob("*.py"))
        wanted = set(gb_types)
        quoted = [q + t + q for t in wanted for q in ('"', "'")]
        for path in self._all:
            text = self.text(path)
            if any(t in text for t in wanted) and any(q in text for q in quoted):
                return path
        for path in self._all:
            if "gb_type" in self.text(path) and wanted & self.strings(path):
                return path
        return None


def reported_types(entry: Entry, labels: list[str], version: str) -> set[str]:
    """The graph-break type PyTorch reported for this id in the release installed: the text
    current then (a text the id never reported in a release, such as a wording another id now
    uses, says nothing about this id). For a torch that is no imported release, every type the
    id ever reported."""
    reported = [r for r in (*entry.history, *entry.replaced) if r.current_since is not None]
    release = release_of(version)
    label = registry_labels([release], labels).get(release)
    if label is not None:
        index = labels.index(label)
        then = [r for r in reported if labels.index(str(r.current_since)) <= index]
        if then:
            newest = max(then, key=lambda r: labels.index(str(r.current_since)))
            return {newest.text.gb_type}
    return {r.text.gb_type for r in reported}


def torch_problems(
    declared: dict[str, Declaration], registry: Registry, torch: TorchSource, version: str
) -> list[Problem]:
    """Status blocks (by id) that the installed torch contradicts: a cited file that does not
    exist or does not raise the break, or an `unraised` break that torch does raise."""
    problems: list[Problem] = []
    release = release_of(version)
    label = registry_labels([release], registry.labels).get(release)
    for gb_id, d in sorted(declared.items()):
        if gb_id not in registry.entries:
            continue
        entry = registry.entries[gb_id]
        if label is not None and not in_release(entry, registry.labels, label):
            continue  # not an id of this torch: nothing to hold its declaration against
        gb_types = {r.text.gb_type for r in (*entry.history, *entry.replaced)}
        if d.source is not None:
            path = torch.path(d.source)
            if path is None:
                problems.append(
                    Problem(
                        f"`source: {d.source}` does not exist in torch {version}", d.path, d.line
                    )
                )
                continue
            if not torch.mentions(path, gb_types):
                problems.append(
                    Problem(
                        f"`source: {d.source}` does not contain the graph-break type of "
                        f"{gb_id} ({entry.current.gb_type!r}) in torch {version}: cite the "
                        "file that raises it",
                        d.path,
                        d.line,
                    )
                )
            elif d.function and not re.search(
                rf"\bdef {re.escape(d.function.rsplit('.', 1)[-1])}\b", torch.text(path)
            ):
                problems.append(
                    Problem(
                        f"`function: {d.function}` is not defined in {d.source} (torch {version})",
                        d.path,
                        d.line,
                    )
                )
        if d.status == State.UNRAISED:
            found = torch.find(reported_types(entry, registry.labels, version))
            if found is not None:
                rel = "torch/" + found.relative_to(torch.folder).as_posix()
                problems.append(
                    Problem(
                        f"declared unraised, but torch {version} still has the graph-break type "
                        f"of {gb_id} in {rel}: find where it is raised",
                        d.path,
                        d.line,
                    )
                )
    return problems
