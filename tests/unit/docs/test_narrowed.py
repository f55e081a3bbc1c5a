"""narrowed: Pygments' lexers trying only the rules that can match give Pygments' own tokens."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from pygments.lexer import Lexer, RegexLexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Name, Whitespace
from pygments.util import ClassNotFound

from conftest import REPO
from gbsite.docs.narrowed import _start, narrowed


def both(language: str) -> tuple[Lexer, Lexer]:
    """Pygments' lexer, and one narrowed (each its own instance)."""
    return get_lexer_by_name(language), narrowed(get_lexer_by_name(language))


@pytest.mark.slow  # Pygments' own lexer on every block: ~3 s
@pytest.mark.repo_data
def test_every_code_block_of_the_docs_gets_pygments_own_tokens() -> None:
    parser = MarkdownIt("commonmark")
    lexers: dict[str, tuple[Lexer, Lexer] | None] = {}
    compared = 0
    for path in sorted((REPO / "docs" / "gb").glob("gb*.md")):
        for token in parser.parse(path.read_text(encoding="utf-8")):
            language = token.info.split()[0] if token.type == "fence" and token.info else ""
            if language not in lexers:
                try:
                    lexers[language] = both(language) if language else None
                except ClassNotFound:
                    lexers[language] = None
            pair = lexers[language]
            if pair is None:
                continue
            plain, fast = pair
            assert list(fast.get_tokens(token.content)) == list(plain.get_tokens(token.content)), (
                f"{path.name}: a {language} block at line {token.map and token.map[0] + 1}"
            )
            compared += 1
    assert compared  # the docs have code blocks
    assert "get_tokens_unprocessed" in vars(lexers["python"][1])  # type: ignore[index]


# Pieces of code and of other text that open and close the lexers' states: strings of every
# kind, f-string fields, comments, decorators, soft keywords, here-documents, tables, markup; and
# letters that match others when case is ignored (long s, the Kelvin sign).
PIECES = [
    *"abxzAK\u017f\u212a_é9 \t\n\r'\"`#$()[]{}\\:=.,@<>-+*/|&;!?%~^",
    '"""', "'''", 'f"', "rb'", "u'", 'f"{x!r:>{w}}"', "{{", "}}", "\\N{DASH}", "0x1f", "1e-3j",
    "def f(", "class C:", "import a.b as c", "from . import (", "lambda x:", "async def",
    "match x:", "case [a, *_]:", "@decorator\n", "# comment\n", "print(", "...", "->", ":=",
    "<<EOF\n", "EOF\n", "$((1+2))", "${x:-y}", "[table]", "key = 'v'", "---\n", "+++ b/x\n",
    "@@ -1 +1 @@\n", "**bold**", "`code`", "<div a=\"b\">", "<!-- x -->", "SELECT * FROM t;",
    "Traceback (most recent call last):\n", '  File "x.py", line 1, in <module>\n', "😀", "\x00",
]  # fmt: skip
LANGUAGES = ["python", "pytb", "bash", "toml", "diff", "markdown", "html", "sql", "rust"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60), st.sampled_from(LANGUAGES))
def test_any_text_gets_pygments_own_tokens(pieces: list[str], language: str) -> None:
    plain, fast = both(language)
    text = "".join(pieces)
    assert list(fast.get_tokens(text)) == list(plain.get_tokens(text))


def test_a_lexer_with_a_loop_of_its_own_is_left_as_it_is() -> None:
    lexer = get_lexer_by_name("pycon")  # a console session: it lexes each prompt's code apart
    assert narrowed(lexer) is lexer
    assert "get_tokens_unprocessed" not in vars(lexer)


class EndsLexer(RegexLexer):
    """A rule that matches nothing, at the end of a line or of the text (then a state whose rule
    does not match ends the lexing)."""

    tokens = {  # noqa: RUF012 (Pygments reads it from the class)
        "root": [("a+", Name), ("\n", Whitespace), ("$", Comment, "end")],
        "end": [("x", Name)],
    }


def test_at_the_end_of_the_text_a_rule_that_matches_nothing_is_tried() -> None:
    plain, fast = EndsLexer(), narrowed(EndsLexer())
    for text in ("", "aa", "a\nb", "b"):
        tokens = list(fast.get_tokens_unprocessed(text))
        assert tokens == list(plain.get_tokens_unprocessed(text))
        assert tokens[-1][1:] == (Comment, "")


def starts(regex: str) -> str | None:
    """The characters of a small alphabet a regex can begin with, as narrowed reads it; None:
    any (it can match nothing, or is not read)."""
    start = _start(re.compile(regex).match)
    if start is None:
        return None
    return "".join(c for c in "abcxyzABXK_09 \n.(" if start.fullmatch(c))


@pytest.mark.parametrize(
    ("regex", "expected"),
    [
        ("abc", "a"),
        ("a*b", "ab"),  # a repeat that can be empty: what follows can begin the match
        ("a+b", "a"),
        ("(?i)x", "xX"),
        ("(?i:b)|c", "bcB"),
        (r"[^\W\d]\w*", "abcxyzABXK_"),
        (r"(?=ab)a", "a"),  # a look-ahead consumes nothing
        (r"(?<!\.)\bx", "x"),
        (r"(\s+)(def)", " \n"),
        (r"[a-c]|\d", "abc09"),
        (r"[^a]", "bcxyzABXK_09 \n.("),
        (r"(a)\1", "a"),  # a back-reference after the first character does not matter
        ("a?", None),  # can match nothing: anywhere, the end of the text too
        ("", None),
        (".", None),
        (r"(x)?(?(1)a|b)", None),  # a conditional group: not read
        (r"(?>a|b)c", "ab"),
        (r"(?:x|)y", "xy"),
    ],
)
def test_what_a_regex_can_begin_with(regex: str, expected: str | None) -> None:
    assert starts(regex) == expected
