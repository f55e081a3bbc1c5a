"""Where a torch release raises each graph-break type: the `gb_type=` arguments of calls in its
Python source, with file, line and enclosing function. The site links a page to that place at
the release's tag (registry/resolved/LABEL.yaml keeps them); the probe aims at them."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from gbsite.registry import pyast
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


def _found(source: str, module: ast.Module, skipped: list[str]) -> Iterator[tuple[str, Site]]:
    """Each call's `gb_type=` text in `module` with its site: walked with a list of its own,
    not by recursion (ast.NodeVisitor), so no nesting of the source overflows the stack."""
    stack: list[tuple[ast.AST, tuple[str, ...]]] = [(module, ())]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            scope = (*scope, node.name)
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg != "gb_type":
                    continue
                if pyast.too_deep(keyword.value):  # _literal would overflow the stack
                    skipped.append(pyast.too_deep_notice(source, node))
                elif (text := _literal(keyword.value)) is not None:
                    yield text, Site(source, node.lineno, ".".join(scope))
        # In source order: the last child pushed is the first popped.
        stack.extend((child, scope) for child in reversed(list(ast.iter_child_nodes(node))))


def raise_sites(tree: TorchTree, skipped: list[str] | None = None) -> dict[str, list[Site]]:
    """Every graph-break type the torch source `tree` names in a call's `gb_type=`, with
    where, in file and line order. Calls too deep to read are told in `skipped`."""
    told: list[str] = [] if skipped is None else skipped
    sites: dict[str, list[Site]] = {}
    for path in tree.paths():
        text = tree.read(path)
        if not text or "gb_type" not in text:
            continue
        module = pyast.parse(text)
        if module is None:
            continue
        for gb_type, site in _found(path, module, told):
            sites.setdefault(gb_type, []).append(site)
    return sites


def sites_of(gb_types: Iterable[str], sites: dict[str, list[Site]]) -> list[Site]:
    return sorted({s for t in gb_types for s in sites.get(t, [])}, key=lambda s: (s.source, s.line))


def raised(
    tree: TorchTree, texts: Mapping[str, Iterable[Text]], skipped: list[str] | None = None
) -> list[Raised]:
    """Where the torch source `tree` raises each id of a snapshot (id -> its items, the current
    one first): the calls that pass its current graph-break type (those too deep to read are
    told in `skipped`)."""
    sites = raise_sites(tree, skipped)
    out: list[Raised] = []
    for gb_id, items in sorted(texts.items()):
        current = next(iter(items), None)
        if current is None:
            continue
        for site in sites_of([current.gb_type], sites):
            out.append(Raised(gb_id, site.source, site.line, site.function))
    return out
