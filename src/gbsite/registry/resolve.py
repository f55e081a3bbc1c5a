"""Registry fields that name a Python value instead of holding its text, and that text.

PyTorch's registry is written by a script that reads the arguments of each graph-break call in
torch's source. Where the argument is a variable (`explanation=_ASYNC_OP_REMAP_ERROR`), the
registry gets the variable's name, not the words the user's log shows. This module reads the
torch source of the release (a package folder or a wheel: torchtree.py), finds the call that
raises the id (its `gb_type` and the field passing that name) and follows the name to where it
is bound: the enclosing functions, then the module, then the module it is imported from. A
name bound once to a string that can be read without running anything (literals, `+`,
f-strings, whose `{...}` parts are kept as the registry writes them) is resolved; a parameter,
a name bound more than once to different texts, or anything computed is left as it is, with
the reason.

The texts are stored beside the registry (registry/resolved/LABEL.yaml, store.py), with the
torch version and the file and line each came from, so that nothing else needs torch.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from gbsite.registry import pyast
from gbsite.registry.model import Resolved, Text
from gbsite.registry.torchtree import TorchTree

FIELDS = ("gb_type", "context", "explanation", "hints")
NAME = re.compile(r"[A-Za-z_]\w*")
_DEPTH = 6  # imports and names followed from one name, at most


# ---- finding what a registry field names -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Wanted:
    """A field of an id's items in a snapshot whose whole text is a Python name."""

    id: str
    field: str  # one of FIELDS
    name: str
    gb_types: frozenset[str]  # the gb_type of the items that have it


@dataclass
class Outcome:
    """What resolving a snapshot found: the texts, and why the other names stay names."""

    torch: str
    resolved: list[Resolved] = field(default_factory=list)
    unresolved: list[tuple[Wanted, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # `path:line: why`: calls not read


def wanted(texts: Mapping[str, Iterable[Text]]) -> list[Wanted]:
    """Every (id, field, name) of a snapshot whose field is a bare Python name."""
    found: dict[tuple[str, str, str], set[str]] = {}
    for gb_id, items in texts.items():
        for text in items:
            values = [
                ("gb_type", text.gb_type),
                ("context", text.context),
                ("explanation", text.explanation),
                *(("hints", h) for h in text.hints),
            ]
            for name, value in values:
                if NAME.fullmatch(value.strip()):
                    found.setdefault((gb_id, name, value.strip()), set()).add(text.gb_type)
    return [Wanted(i, f, n, frozenset(t)) for (i, f, n), t in sorted(found.items())]


def resolve(tree: TorchTree, texts: Mapping[str, Iterable[Text]]) -> Outcome:
    """The texts `tree`'s source gives the names in `texts` (a snapshot: id -> items)."""
    todo = wanted(texts)
    outcome = Outcome(tree.version)
    if not todo:
        return outcome
    names = {w.name for w in todo}
    calls = _calls(tree, names, outcome.skipped)
    for w in todo:
        sites = [c for c in calls if c.passes(w)]
        if not sites:
            outcome.unresolved.append(
                (w, "no call of this torch passes it as a name (a text, or an older item)")
            )
            continue
        results = {_Resolver(tree).at(site, w.name) for site in sites}
        texts_found = {r for r in results if isinstance(r, tuple)}
        if len(texts_found) == 1 and len(results) == 1:
            text, source = next(iter(texts_found))
            outcome.resolved.append(Resolved(w.id, w.field, w.name, text, source))
        elif len(texts_found) > 1:
            outcome.unresolved.append((w, "its calls name different texts"))
        else:
            why = next(r for r in results if isinstance(r, str))
            outcome.unresolved.append((w, why))
    return outcome


@dataclass(frozen=True)
class _Call:
    """A graph-break call: its file, its module's tree, the call, and its keyword arguments."""

    path: str
    module: ast.Module
    node: ast.Call
    parents: Mapping[ast.AST, ast.AST]

    def keyword(self, name: str) -> ast.expr | None:
        return next((k.value for k in self.node.keywords if k.arg == name), None)

    def passes(self, w: Wanted) -> bool:
        gb_type = self.keyword("gb_type")
        if gb_type is None or _render(gb_type) not in w.gb_types:
            return False
        value = self.keyword(w.field)
        if w.field == "hints":
            items = value.elts if isinstance(value, ast.List | ast.Tuple) else []
            return any(isinstance(e, ast.Name) and e.id == w.name for e in items)
        return isinstance(value, ast.Name) and value.id == w.name


def _calls(tree: TorchTree, names: set[str], skipped: list[str]) -> list[_Call]:
    """Every call with a `gb_type=` keyword in the files that mention one of `names`; those
    too deep to read are told in `skipped`."""
    words = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\b")
    out: list[_Call] = []
    for path in tree.paths():
        text = tree.read(path)
        if not text or "gb_type" not in text or not words.search(text):
            continue
        module = pyast.parse(text)
        if module is None:
            skipped.append(f"{path}: not Python this interpreter parses; its calls are skipped")
            continue
        parents = {child: node for node in ast.walk(module) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(module):
            if not isinstance(node, ast.Call):
                continue
            gb_type = next((k.value for k in node.keywords if k.arg == "gb_type"), None)
            if gb_type is not None and pyast.too_deep(gb_type):  # _render would overflow
                skipped.append(pyast.too_deep_notice(path, node))
            elif gb_type is not None:
                out.append(_Call(path, module, node, parents))
    return out


def _render(node: ast.expr) -> str:
    """An argument as the registry writes it: a string's text, an f-string with its `{...}`
    parts as written, anything else as its source."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            str(v.value) if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
            for v in node.values
            if isinstance(v, ast.Constant | ast.FormattedValue)
        )
    return ast.unparse(node)


_Found = tuple[str, str] | str  # (text, "torch/...py:LINE"), or why there is none


class _Resolver:
    """Follows a name from a call to the string it is bound to."""

    def __init__(self, tree: TorchTree) -> None:
        self.tree = tree
        # by module path: its file, tree and parents, or None when this torch lacks it
        self.modules: dict[str, tuple[str, ast.Module, dict[ast.AST, ast.AST]] | None] = {}

    def at(self, call: _Call, name: str) -> _Found:
        return self._lookup(call.path, call.parents, call.node, name, _DEPTH)

    def _lookup(
        self, path: str, parents: Mapping[ast.AST, ast.AST], node: ast.AST, name: str, depth: int
    ) -> _Found:
        if depth <= 0:
            return "followed too far"
        for scope in _scopes(node, parents):
            bindings = list(_bindings(scope, name))
            if bindings:
                return self._value(path, parents, bindings, name, depth)
        return f"`{name}` is not bound in {path}"

    def _value(
        self,
        path: str,
        parents: Mapping[ast.AST, ast.AST],
        bindings: list[ast.AST],
        name: str,
        depth: int,
    ) -> _Found:
        found: list[tuple[str, str]] = []
        for b in bindings:
            if isinstance(b, ast.ImportFrom):
                origin = _module_path(path, b)
                imported = next(a.name for a in b.names if (a.asname or a.name) == name)
                got = self._in_module(origin, imported, depth - 1) if origin else None
                if got is None:
                    return f"`{name}` is imported from a module not in this torch"
                if isinstance(got, str):
                    return got
                found.append(got)
            elif isinstance(b, ast.Assign | ast.AnnAssign) and b.value is not None:
                try:
                    text = self._string(path, parents, b.value, depth - 1)
                except _TooDeep as exc:
                    return (
                        f"`{name}` is nested more than {pyast.MAX_NESTING} levels deep "
                        f"({path}:{exc.line})"
                    )
                if text is None:
                    return f"`{name}` is computed at run time ({path}:{b.lineno})"
                found.append((text, f"{path}:{b.lineno}"))
            else:
                line = getattr(b, "lineno", "?")
                return f"`{name}` is set at run time ({path}:{line})"
        if len({t for t, _ in found}) != 1:
            return f"`{name}` is bound to {len({t for t, _ in found})} different texts in {path}"
        return found[0]

    def _in_module(self, path: str, name: str, depth: int) -> _Found | None:
        if path not in self.modules:
            self.modules[path] = None
            for file in (path + ".py", path + "/__init__.py"):
                text = self.tree.read(file)
                module = pyast.parse(text) if text is not None else None
                if module is not None:
                    parents = {c: n for n in ast.walk(module) for c in ast.iter_child_nodes(n)}
                    self.modules[path] = (file, module, parents)
                    break
        loaded = self.modules[path]
        if loaded is None:
            return None
        path, module, parents = loaded
        bindings = list(_bindings(module, name))
        if not bindings:
            return f"`{name}` is not bound in {path}"
        return self._value(path, parents, bindings, name, depth)

    def _string(
        self, path: str, parents: Mapping[ast.AST, ast.AST], node: ast.expr, depth: int
    ) -> str | None:
        """The text of an expression made of string literals, f-strings, `+` and names bound
        to such, or None. A chain of `+` is followed with a list, not by recursion, however
        long; an f-string too deep to render raises _TooDeep."""
        parts: list[str] = []
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, ast.BinOp) and isinstance(current.op, ast.Add):
                stack += (current.right, current.left)  # the left first
            elif isinstance(current, ast.Constant) and isinstance(current.value, str):
                parts.append(current.value)
            elif isinstance(current, ast.JoinedStr):
                if pyast.too_deep(current):
                    raise _TooDeep(current.lineno)
                parts.append(_render(current))
            elif isinstance(current, ast.Name) and depth > 0:
                got = self._lookup(path, parents, current, current.id, depth)
                if not isinstance(got, tuple):
                    return None
                parts.append(got[0])
            else:
                return None
        return "".join(parts)


class _TooDeep(Exception):
    """An expression nested deeper than pyast.MAX_NESTING, at `line` of its file."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


_FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _scopes(node: ast.AST, parents: Mapping[ast.AST, ast.AST]) -> Iterator[ast.AST]:
    """The scopes a name used at `node` is looked up in: the enclosing functions, innermost
    first, then the module (class bodies are skipped, as Python skips them)."""
    current = parents.get(node)
    while current is not None:
        if isinstance(current, (*_FUNCTION, ast.Module)):
            yield current
        current = parents.get(current)


def _bindings(scope: ast.AST, name: str) -> Iterator[ast.AST]:
    """The statements of `scope` (not of the functions and classes in it) that bind `name`."""
    if isinstance(scope, _FUNCTION):
        args = scope.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        for a in every:
            if a is not None and a.arg == name:
                yield a
    if isinstance(scope, ast.Lambda):
        return  # its body is one expression: only its parameters bind
    stack: list[ast.AST] = list(getattr(scope, "body", []))[::-1]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == name:
                yield node
            continue  # a scope of its own
        if isinstance(node, ast.Assign):
            if any(_binds(t, name) for t in node.targets):
                yield node
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            if _binds(node.target, name):
                yield node
        elif isinstance(node, ast.ImportFrom):
            if any((a.asname or a.name) == name for a in node.names):
                yield node
        elif isinstance(node, ast.Import):
            if any((a.asname or a.name.split(".")[0]) == name for a in node.names):
                yield node
        elif isinstance(node, ast.For | ast.AsyncFor) and _binds(node.target, name):
            yield node
        elif isinstance(node, ast.With | ast.AsyncWith):
            if any(
                i.optional_vars is not None and _binds(i.optional_vars, name) for i in node.items
            ):
                yield node
        elif (isinstance(node, ast.ExceptHandler) and node.name == name) or (
            isinstance(node, ast.NamedExpr) and _binds(node.target, name)
        ):
            yield node
        stack.extend(
            c for c in reversed(list(ast.iter_child_nodes(node))) if not isinstance(c, ast.Lambda)
        )


def _binds(target: ast.AST, name: str) -> bool:
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, ast.Tuple | ast.List | ast.Starred):
        inner = target.elts if isinstance(target, ast.Tuple | ast.List) else [target.value]
        return any(_binds(t, name) for t in inner)
    return False


def _module_path(path: str, node: ast.ImportFrom) -> str | None:
    """The file of the module `from X import ...` names, seen from the file `path`."""
    if node.level:
        package = path.split("/")[:-1]  # a module's package, or the package of an __init__.py
        if node.level > 1:
            package = package[: -(node.level - 1)]
        parts = package + (node.module.split(".") if node.module else [])
    else:
        if node.module is None:
            return None
        parts = node.module.split(".")
    if not parts or parts[0] != "torch":
        return None
    return "/".join(parts)  # the module: PATH.py, or PATH/__init__.py for a package
