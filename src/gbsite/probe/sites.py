"""Where a torch release raises each graph-break type: the `gb_type=` arguments of calls in its
Python source, with file, line and enclosing function, so that probes can be aimed at the raise
sites and the report can name them."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


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


def raise_sites(package: Path) -> dict[str, list[Site]]:
    """Every graph-break type the torch package at `package` (.../site-packages/torch) names in
    a call's `gb_type=`, with where."""
    sites: dict[str, list[Site]] = {}
    for path in sorted(package.rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if "gb_type" not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        finder = _Finder("torch/" + path.relative_to(package).as_posix())
        finder.visit(tree)
        for gb_type, site in finder.found:
            sites.setdefault(gb_type, []).append(site)
    return sites


def sites_of(gb_types: Iterable[str], sites: dict[str, list[Site]]) -> list[Site]:
    return sorted({s for t in gb_types for s in sites.get(t, [])}, key=lambda s: (s.source, s.line))
