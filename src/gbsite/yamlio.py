"""YAML reading and writing with precise error locations.

Loading uses libyaml (CSafeLoader) for speed. Line numbers of validation errors are found only
when there is an error, by composing the document again (see `locate`), so the fast path pays
nothing for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from gbsite.errors import GbsiteError, Problem
from gbsite.fsutil import decode_utf8

KeyPath = Sequence[str | int]


class _DuplicateKey(yaml.MarkedYAMLError):
    pass


class _Loader(yaml.CSafeLoader):
    """Safe loader that rejects duplicate mapping keys (PyYAML silently keeps the last)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[object] = set()
        for key_node, _ in node.value:
            key = key_node.value
            if key in seen:
                raise _DuplicateKey(
                    problem=f"duplicate key {key!r}", problem_mark=key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep)


def load(path: Path, text: str) -> Any:
    """Parse one YAML document; syntax errors become `path:line: message`."""
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
    except yaml.YAMLError as exc:
        raise GbsiteError.at(path, None, f"invalid YAML: {exc}") from None


def read(path: Path) -> Any:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GbsiteError.at(path, None, f"cannot read: {exc.strerror}") from None
    return load(path, decode_utf8(path, data))


def locate(text: str, keypath: KeyPath) -> int | None:
    """1-based line of the node at `keypath` (keys and list indexes), or of its nearest parent.

    For a missing key the parent mapping's line is the useful answer, so we stop there.
    """
    try:
        node: yaml.Node | None = yaml.compose(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return None
    if node is None:
        return None
    line: int = node.start_mark.line + 1
    for step in keypath:
        child: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == step:
                    # Point at the key: that is where an editor's cursor should go.
                    line = key_node.start_mark.line + 1
                    child = value_node
                    break
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value)
        ):
            child = node.value[step]
            line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line


class _Dumper(yaml.CSafeDumper):
    pass


def _represent_str(dumper: _Dumper, value: str) -> yaml.ScalarNode:
    # Literal blocks keep multi-line hints readable; the emitter falls back to quoting on its
    # own when a literal block cannot represent the string exactly (e.g. trailing spaces).
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)


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


def problem_at(path: Path, text: str, keypath: KeyPath, message: str) -> Problem:
    return Problem(message, path, locate(text, keypath))
