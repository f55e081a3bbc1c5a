"""Pygments' regex lexers, trying at each position only the rules that can match there.

A RegexLexer tries the rules of its current state in order until one matches: for Python, 56
rules in the root state, and about twenty failed regex calls for each token of the docs' code.
Pygments' lexing was a third of a cold build's CPU. A rule whose regex cannot begin with the
character at hand cannot match there, so leaving it out changes nothing: `narrowed` gives the
lexer back with a loop that tries, in Pygments' order, only the rules that can begin with the next
character (or match nothing), and otherwise does what Pygments' loop does. The tokens are
Pygments' own (tests/unit/docs/test_narrowed.py compares them on every code block of docs/gb/
and on random text, for several lexers): 3.5 times faster on the docs' Python.

Which characters a regex can begin with comes from Python's own parse of it (re._parser). A
construct this reading does not know (a backreference, a conditional group, an unknown opcode
of a later Python) makes the rule one that can begin anywhere: tried everywhere, as Pygments
does. A lexer with a loop of its own (not RegexLexer's) is given back unchanged.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable, Iterator
from typing import Any

from pygments.lexer import Lexer, RegexLexer
from pygments.token import Error, Whitespace, _TokenType

# (match, action, new state) as Pygments keeps a state's rules (RegexLexer._tokens).
Rule = tuple[Callable[[str, int], re.Match[str] | None], Any, Any]


def narrowed(lexer: Lexer) -> Lexer:
    """`lexer`, its rules tried only where they can match; unchanged if it is no RegexLexer or
    has a loop of its own."""
    if not isinstance(lexer, RegexLexer):
        return lexer
    if type(lexer).get_tokens_unprocessed is not RegexLexer.get_tokens_unprocessed:
        return lexer
    table = _table(type(lexer))

    def tokens(text: str, stack: tuple[str, ...] = ("root",)) -> Iterator[tuple[int, Any, str]]:
        return _tokens(lexer, table, text, stack)

    # Pygments' get_tokens (newlines, tabs, filters) calls this method: only the loop changes.
    setattr(lexer, "get_tokens_unprocessed", tokens)  # noqa: B010 (a method, for mypy)
    return lexer


class _Table:
    """A lexer class's rules, by state and next character (`None`: any rule can match there)."""

    def __init__(self, states: dict[str, list[Rule]]) -> None:
        self.states = states
        self.starts: dict[str, list[re.Pattern[str] | None]] = {}
        self.found: dict[tuple[str, str], list[Rule]] = {}

    def rules(self, state: str, char: str) -> list[Rule]:
        """The state's rules that can match at a position whose next character is `char` (""
        at the end of the text: only rules that can match nothing)."""
        starts = self.starts.get(state)
        if starts is None:
            starts = self.starts[state] = [_start(rule[0]) for rule in self.states[state]]
        found = [
            rule
            for rule, start in zip(self.states[state], starts, strict=True)
            if start is None or (char and start.fullmatch(char))
        ]
        self.found[state, char] = found
        return found


@functools.cache
def _table(cls: type[RegexLexer]) -> _Table:
    return _Table(vars(cls)["_tokens"])  # set on the class by its first instance


def _tokens(
    lexer: RegexLexer, table: _Table, text: str, stack: tuple[str, ...]
) -> Iterator[tuple[int, Any, str]]:
    """RegexLexer.get_tokens_unprocessed, each state's rules narrowed by the next character."""
    found = table.found
    pos = 0
    end = len(text)
    states = list(stack)
    while True:
        key = (states[-1], text[pos] if pos < end else "")
        rules = found.get(key)
        if rules is None:
            rules = table.rules(*key)
        for match, action, new_state in rules:
            m = match(text, pos)
            if m is None:
                continue
            if action is not None:
                if type(action) is _TokenType:
                    yield pos, action, m.group()
                else:
                    yield from action(lexer, m)
            pos = m.end()
            if new_state is not None:
                _enter(states, new_state)
            break
        else:
            char = key[1]
            if not char:
                return
            if char == "\n":  # at the end of a line nothing matched: back to the root state
                states = ["root"]
                yield pos, Whitespace, "\n"
            else:
                yield pos, Error, char
            pos += 1


def _enter(states: list[str], new_state: object) -> None:
    """A rule's state change, as Pygments makes it: states pushed, `#pop`, `#push`, or a number
    of states popped (the root one kept)."""
    if isinstance(new_state, tuple):
        for state in new_state:
            if state == "#pop":
                if len(states) > 1:
                    states.pop()
            elif state == "#push":
                states.append(states[-1])
            else:
                states.append(state)
    elif isinstance(new_state, int):
        if abs(new_state) >= len(states):
            del states[1:]
        else:
            del states[new_state:]
    elif new_state == "#push":
        states.append(states[-1])
    else:
        raise ValueError(f"wrong state definition: {new_state!r}")


def _start(match: Callable[..., object]) -> re.Pattern[str] | None:
    """A pattern matching one character the rule's regex can begin with; None if it can begin
    with any, match nothing, or is not read."""
    pattern = getattr(match, "__self__", None)
    if not isinstance(pattern, re.Pattern) or not isinstance(pattern.pattern, str):
        return None
    return _start_of(pattern.pattern, pattern.flags)


@functools.cache
def _start_of(regex: str, flags: int) -> re.Pattern[str] | None:
    """_start of one regex: once, as states share rules (Python's 437 rules have 85 regexes,
    and reading them all took 0.13 s)."""
    try:
        tree = _re("_parser").parse(regex, flags)
        classes: list[str] = []
        if _first(list(tree), tree.state.flags, classes):
            return None  # it can match nothing: anywhere, the end of the text included
        return re.compile("|".join(classes))
    except _Unread:
        return None
    except Exception:  # a construct of another Python's parser: tried everywhere
        return None


def _re(name: str) -> Any:
    """A module of Python's `re` package that typeshed does not describe."""
    return importlib.import_module(f"re.{name}")


class _Unread(Exception):
    """A construct whose first character is not read: the rule can begin anywhere."""


# The flags a one-character class keeps from the rule's regex.
_CASE_FLAGS = ((re.IGNORECASE, "i"), (re.ASCII, "a"))


def _first(items: list[tuple[Any, Any]], flags: int, classes: list[str]) -> bool:
    """Add a class for each character `items` (a parsed sequence) can begin with; whether the
    sequence can match nothing."""
    c = _re("_constants")
    for op, arg in items:
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):  # zero width: what follows begins the match
            continue
        if op is c.LITERAL:
            classes.append(_scoped(re.escape(chr(arg)), flags))
        elif op is c.NOT_LITERAL:
            classes.append(_scoped(f"[^{re.escape(chr(arg))}]", flags))
        elif op is c.IN:
            classes.append(_scoped(_char_class(arg), flags))
        elif op is c.BRANCH:
            empty = False
            for alternative in arg[1]:
                empty = _first(list(alternative), flags, classes) or empty
            if not empty:
                return False
            continue
        elif op is c.SUBPATTERN:
            _group, add, remove, inner = arg
            if not _first(list(inner), (flags | add) & ~remove, classes):
                return False
            continue
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, _high, inner = arg
            if not _first(list(inner), flags, classes) and low > 0:
                return False
            continue  # repeated 0 times at least: what follows can begin the match too
        elif op is c.ATOMIC_GROUP:
            if not _first(list(arg), flags, classes):
                return False
            continue
        else:  # ANY, a backreference, a conditional group...
            raise _Unread(str(op))
        return False  # one character consumed
    return True


_CATEGORIES = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}


def _char_class(items: list[tuple[Any, Any]]) -> str:
    """A parsed character class written back as one."""
    c = _re("_constants")
    parts: list[str] = []
    for op, arg in items:
        if op is c.NEGATE:
            parts.insert(0, "^")
        elif op is c.LITERAL:
            parts.append(re.escape(chr(arg)))
        elif op is c.RANGE:
            parts.append(f"{re.escape(chr(arg[0]))}-{re.escape(chr(arg[1]))}")
        elif op is c.CATEGORY and arg.name.replace("_UNI", "") in _CATEGORIES:
            parts.append(_CATEGORIES[arg.name.replace("_UNI", "")])
        else:
            raise _Unread(str(op))
    return f"[{''.join(parts)}]"


def _scoped(one: str, flags: int) -> str:
    """One character's pattern, with the flags that decide what it matches."""
    letters = "".join(letter for flag, letter in _CASE_FLAGS if flags & flag)
    return f"(?{letters}:{one})" if letters else one
