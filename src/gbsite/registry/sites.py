"""Where a torch release raises each graph-break type: the `gb_type=` arguments of calls in its
Python source, with file, line and enclosing function. The site links a page to that place at
the release's tag (registry/resolved/LABEL.yaml keeps them); the probe aims at them."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gbsite.registry.model import Raised, Text
from gbsite.registry.torchtree import TorchTree


@dataclass(frozen=True, slots=True)
class Site:
    source: str  # "torch/_dynamo/variables/builtin.py"
    line: int
    function: str  # "BuiltinVariable.call_self_handler", or "" at module level

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}"
        return f"{where} {self.function}" if self.function else where


def _literal(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):  # a type with a {placeholder}, as written
        return "".join(
            str(v.value) if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
            for v in node.values
            if isinstance(v, ast.Constant | ast.FormattedValue)
        )
    return None


class _Finder(ast.NodeVisitor):
    def __init__(self, source: str) -> None:
        self.source = source
        self.scope: list[str] = []
        self.found: list[tuple[str, Site]] = []

    def _scoped(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_ClassDef = visit_FunctionDef = visit_AsyncFunctionDef = _scoped

    def visit_Call(self, node: ast.Call) -> None:
        for keyword in node.keywords:
            if keyword.arg == "gb_type" and (text := _literal(keyword.value)) is not None:
                site = Site(self.source, node.lineno, ".".join(self.scope))
                self.found.append((text, site))
        self.generic_visit(node)


def raise_sites(tree: TorchTree) -> dict[str, list[Site]]:
    """Every graph-break type the torch source `tree` names in a call's `gb_type=`, with
    where, in file and line order."""
    sites: dict[str, list[Site]] = {}
    for path in tree.paths():
        text = tree.read(path)
        if not text or "gb_type" not in text:
            continue
        try:
            module = ast.parse(text)
        except SyntaxError:
            continue
        finder = _Finder(path)
        finder.visit(module)
        for gb_type, site in finder.found:
            sites.setdefault(gb_type, []).append(site)
    return sites


def sites_of(gb_types: Iterable[str], sites: dict[str, list[Site]]) -> list[Site]:
    return sorted({s for t in gb_types for s in sites.get(t, [])}, key=lambda s: (s.source, s.line))


def raised(tree: TorchTree, texts: Mapping[str, Iterable[Text]]) -> list[Raised]:
    """Where the torch source `tree` raises each id of a snapshot (id -> its items, the current
    one first): the calls that pass its current graph-break type."""
    sites = raise_sites(tree)
    out: list[Raised] = []
    for gb_id, items in sorted(texts.items()):
        current = next(iter(items), None)
        if current is None:
            continue
        for site in sites_of([current.gb_type], sites):
            out.append(Raised(gb_id, site.source, site.line, site.function))
    return out
