"""YAML reading and writing with precise error locations.

Loading uses libyaml (CSafeLoader) for speed. Before libyaml sees a document, its nesting depth
and number of aliases are bounded (`check_bounds`): libyaml's composer recurses once per level
and crashes the process on a document 50,000 levels deep, and a few aliases can stand for an
exponential number of nodes. Complex keys and integers too long for Python are errors, located.

Line numbers of validation errors are found only when there is an error, by composing the
document again, once for all its errors (see `Locator`), so the fast path pays nothing for them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

import yaml

from gbsite.errors import GbsiteError
from gbsite.fs.files import decode_utf8, read_input

KeyPath = Sequence[str | int]

MAX_DEPTH = 100  # levels of nesting; the registry's files have five
# *references to &anchors; gbsite writes none. Kept small: n aliases in n/e levels can stand
# for e^(n/e) nodes, which an error message that prints a value would expand.
MAX_ALIASES = 16

_OPEN = (
    yaml.BlockMappingStartToken,
    yaml.BlockSequenceStartToken,
    yaml.FlowMappingStartToken,
    yaml.FlowSequenceStartToken,
)
_CLOSE = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)


class _Invalid(yaml.MarkedYAMLError):
    pass


class _Loader(yaml.CSafeLoader):
    """Safe loader that rejects duplicate mapping keys (PyYAML silently keeps the last), keys
    that are lists or mappings, and integers too long to convert."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[object] = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise _Invalid(
                    problem="a key must be a plain value, not a list or mapping",
                    problem_mark=key_node.start_mark,
                )
            key = key_node.value
            if key in seen:
                raise _Invalid(problem=f"duplicate key {key!r}", problem_mark=key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        try:
            return super().construct_yaml_int(node)
        except ValueError:  # Python converts at most 4,300 digits
            raise _Invalid(
                problem=f"a number of {len(node.value)} characters is too long",
                problem_mark=node.start_mark,
            ) from None


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
# For YAML read from elsewhere than a file (a status block in a docs page): what _Loader refuses
# raises Invalid.
Loader, Invalid = _Loader, _Invalid


def check_bounds(path: Path, text: str) -> None:
    """Refuse a document nested deeper than MAX_DEPTH or with more than MAX_ALIASES aliases,
    before anything parses it. Every level of nesting takes a bracket, a line, or a `- ` or
    `? ` on a line, and every alias a `*`: a document with fewer of those than the limits is
    within them, which is every small file gbsite writes, at the cost of counting characters;
    a long one (the record, registry/resolved/) is within them when depth_bound says so. Any
    other is scanned token by token (flat, no recursion), stopping at the first excess."""
    levels = sum(text.count(c) for c in ("[", "{", "\n", "- ", "? "))
    if text.count("*") <= MAX_ALIASES and (levels <= MAX_DEPTH or depth_bound(text) <= MAX_DEPTH):
        return
    depth = aliases = 0
    try:
        for token in yaml.scan(text, Loader=yaml.CSafeLoader):
            if isinstance(token, _OPEN):
                depth += 1
                if depth > MAX_DEPTH:
                    raise GbsiteError.at(
                        path,
                        token.start_mark.line + 1,
                        f"invalid YAML: nested more than {MAX_DEPTH} levels deep",
                    )
            elif isinstance(token, _CLOSE):
                depth -= 1
            elif isinstance(token, yaml.AliasToken):
                aliases += 1
                if aliases > MAX_ALIASES:
                    raise GbsiteError.at(
                        path,
                        token.start_mark.line + 1,
                        f"invalid YAML: more than {MAX_ALIASES} aliases (*name); write the "
                        "values out",
                    )
    except yaml.MarkedYAMLError as exc:
        # libyaml 0.2.6 (PyYAML 6.0.4) has a nesting limit of its own, which its look-ahead
        # can reach before a token of level MAX_DEPTH is handed out: the same excess.
        if "nesting depth" in str(exc.problem) and exc.problem_mark is not None:
            raise GbsiteError.at(
                path,
                exc.problem_mark.line + 1,
                f"invalid YAML: nested more than {MAX_DEPTH} levels deep",
            ) from None
        return  # a syntax error: parsing reports it, with its line, before nesting that deep
    except yaml.YAMLError:
        return


# libyaml's line breaks; an indicator is `-`, `?` or `:` before a blank or a line's end.
_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_INDICATOR = re.compile("[-?:](?=[ \t\r\n\x85\u2028\u2029]|$)")


def depth_bound(text: str) -> int:
    """A number no smaller than the most collections open at once while libyaml scans `text`
    (the depth check_bounds counts), found in one pass over its lines (~0.2 of scanning it).

    Flow collections hold no block ones, so they are innermost, at most one per `[` or `{`.
    Block collections: libyaml opens one at a token's column only if that is beyond the
    innermost one's, and before each token closes those beyond its column; so the open ones
    have growing columns. Take those opened on lines that begin (first non-blank) at column c:
    a later such line began by closing all beyond c, and cannot open another at c while one
    is, so at most one at c and those its last line opened beyond c, each at an indicator of
    its own on that line (a `- ` entry or `? ` key, or the `: ` after a key). A line that
    begins inside a flow collection or a scalar opens none. Hence (distinct first columns) x
    (1 + most indicators on a line). tests/test_yamlio.py checks it against the scan."""
    columns: set[int] = set()
    most = 0
    for line in _BREAK.split(text):
        rest = line.lstrip(" \t")
        if rest:
            columns.add(len(line) - len(rest))
            most = max(most, len(_INDICATOR.findall(rest)))
    return len(columns) * (1 + most) + text.count("[") + text.count("{")


def load(path: Path, text: str) -> Any:
    """Parse one YAML document; syntax errors become `path:line: message`. In a command, a text
    parsed before gives what it gave then (parsed.py)."""
    from gbsite import parsed

    return parsed.parse("yaml", _parser_name, text, lambda t: _load(path, t))


def _parser_name() -> str:
    from gbsite import parsed
    from gbsite.fs.files import cache_name

    return cache_name(__file__, f"PyYAML {yaml.__version__}", parsed.python_version())


def _load(path: Path, text: str) -> Any:
    check_bounds(path, text)
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        what = exc.problem or exc.context or "invalid YAML"
        if exc.context and exc.problem and exc.context_mark is not None:
            # e.g. an unclosed bracket: say where the construct began, too.
            what += f" ({exc.context} started at line {exc.context_mark.line + 1})"
        raise GbsiteError.at(path, line, f"invalid YAML: {what}") from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow, such as NUL
        line = text.count("\n", 0, exc.position) + 1
        char = chr(exc.character) if isinstance(exc.character, int) else exc.character
        raise GbsiteError.at(
            path, line, f"invalid YAML: {exc.reason} ({char!r} is not allowed)"
        ) from None
    except yaml.YAMLError as exc:
        first = str(exc).split("\n", 1)[0]
        raise GbsiteError.at(path, None, f"invalid YAML: {first}") from None


def read(path: Path) -> Any:
    try:
        data = read_input(path)
    except OSError as exc:
        raise GbsiteError.at(path, None, f"cannot read: {exc.strerror}") from None
    return load(path, decode_utf8(path, data))


class Locator:
    """Lines of nodes in one document, composed once when first asked (composing per error made
    a file with thousands of errors take minutes)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._root: yaml.Node | None = None
        self._composed = False
        self._index: dict[int, dict[object, tuple[yaml.Node, yaml.Node]]] = {}

    def root(self) -> yaml.Node | None:
        if not self._composed:
            self._composed = True
            try:
                self._root = yaml.compose(self.text, Loader=yaml.CSafeLoader)
            except yaml.YAMLError:
                self._root = None
        return self._root

    def line(self, keypath: KeyPath) -> int | None:
        node = self.root()
        if node is None:
            return None
        line: int = node.start_mark.line + 1
        for step in keypath:
            child: yaml.Node | None = None
            if isinstance(node, yaml.MappingNode):
                found = self._keys(node).get(step)
                if found is not None:
                    # Point at the key: that is where an editor's cursor should go.
                    line = found[0].start_mark.line + 1
                    child = found[1]
            elif (
                isinstance(node, yaml.SequenceNode)
                and isinstance(step, int)
                and step < len(node.value)
            ):
                child = node.value[step]
                line = child.start_mark.line + 1
            if child is None:
                break
            node = child
        return line

    def _keys(self, node: yaml.MappingNode) -> dict[object, tuple[yaml.Node, yaml.Node]]:
        """A mapping's (key node, value node) by key, made once per mapping: the first one."""
        index = self._index.get(id(node))
        if index is None:
            index = {}
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    index.setdefault(key_node.value, (key_node, value_node))
            self._index[id(node)] = index
        return index


def locate(text: str, keypath: KeyPath) -> int | None:
    """1-based line of the node at `keypath` (keys and list indexes), or of its nearest parent.

    For a missing key the parent mapping's line is the useful answer, so we stop there.
    """
    return Locator(text).line(keypath)


class _Dumper(yaml.CSafeDumper):
    pass


def _represent_str(dumper: _Dumper, value: str) -> yaml.ScalarNode:
    # Literal blocks keep multi-line hints readable; the emitter falls back to quoting on its
    # own when a literal block cannot represent the string exactly (e.g. trailing spaces).
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)
# The typed vocabularies (StrEnum: a block's kind, a state) are written as their text.
_Dumper.add_multi_representer(StrEnum, lambda d, v: _represent_str(d, str(v)))


def dump(data: Any, header: str = "") -> str:
    """Deterministic block-style YAML: keys in the order given, one line per string."""
    body = yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1_000_000,  # never fold long strings: a changed word should change one line
    )
    return header + body
