"""A contributor block cut into its sections, each with the role it plays for the reader, and
those sections put in the reader's order.

A block is written in the order an author thinks in (why, example, fixes); a reader who hit
the break wants the answer first: the short why and the first fix, then the example that
breaks, then the other fixes. Sections are found by the block's top-level headings (`###` in
the docs files) and known by their titles (`### How to fix it`) and by the annotated blocks
they hold. A section titled `What was tried` is for maintainers: the page shows it collapsed,
off the reader's path. Nothing is dropped: every section is shown somewhere, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from markdown_it.token import Token

from gbsite.examples.annotations import Kind


class Role(StrEnum):
    """What a section of a contributor block is to the reader."""

    LEAD = "lead"  # before the first heading
    WHY = "why"  # why this happens (or, for an internal break, what its check guards)
    EXAMPLE = "example"  # the example that breaks
    WHY_MORE = "why-more"  # the why's paragraphs after its first, when a fix follows it
    FIX = "fix"  # the first fix, with what comes before it in its section
    MORE_FIXES = "more-fixes"  # the section's other fixes
    ADVICE = "advice"  # what to do if you see it (a page without a fix)
    WRONG = "wrong"  # a silent wrong result near the page's subject
    OTHER = "other"  # anything else, in the order written
    NOTES = "notes"  # footnotes, which GitHub puts at the end
    TRIED = "tried"  # what was tried to reach the id: for maintainers


# Titles, compared in lower case without a final period.
TRIED_TITLE = "what was tried"
FIX_TITLE = "how to fix it"
EXAMPLE_TITLE = "example"
WHY_TITLES = frozenset(
    {
        "why this happens",
        "what the check guards against",
        "what this check guards against",
        "what the check is for",
        "what this check is for",
        "what this break meant",
        "what this break was for",
        "what this id meant",
    }
)
ADVICE_PREFIXES = ("if you see", "if you still see", "what to do")


@dataclass(frozen=True, slots=True)
class Cut:
    """A section of a block as tokens: its heading's (none for the lead) and its body's."""

    role: Role
    title: str  # the heading's Markdown, "" for the lead and the notes
    heading: tuple[Token, ...]
    body: tuple[Token, ...]


def kinds(tokens: Sequence[Token]) -> set[str]:
    """The annotated kinds (gb-repro, gb-fix, gb-wrong, gb-status) of a section's fences."""
    return {w for t in tokens if t.type == "fence" for w in t.info.split()[1:2]}


def role_of(title: str, kinds: set[str]) -> Role:
    key = " ".join(title.split()).rstrip(".").lower()
    if key == TRIED_TITLE:
        return Role.TRIED
    if key == FIX_TITLE and Kind.FIX in kinds:
        return Role.FIX
    if key == EXAMPLE_TITLE and Kind.REPRO in kinds:
        return Role.EXAMPLE
    if key in WHY_TITLES:
        return Role.WHY
    if key.startswith(ADVICE_PREFIXES):
        return Role.ADVICE
    if Kind.WRONG in kinds:
        return Role.WRONG
    return Role.OTHER


def cut(tokens: Sequence[Token]) -> list[Cut]:
    """The block's sections, in the order written: at each top-level heading of the block's
    highest level (the `###` of a docs file), with the footnotes apart at the end."""
    levels = [int(t.tag[1]) for t in tokens if t.type == "heading_open" and t.level == 0]
    top = f"h{min(levels)}" if levels else ""
    notes = next((i for i, t in enumerate(tokens) if t.type == "footnote_block_open"), None)
    main, tail = (tokens[:notes], tokens[notes:]) if notes is not None else (tokens, [])
    starts = [i for i, t in enumerate(main) if t.type == "heading_open" and t.tag == top]
    found: list[Cut] = []
    if not starts or starts[0] > 0:
        body = tuple(main[: starts[0] if starts else len(main)])
        found.append(Cut(Role.LEAD, "", (), body))
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(main)
        heading, body = tuple(main[start : start + 3]), tuple(main[start + 3 : end])
        title = heading[1].content if len(heading) > 1 else ""
        found.append(Cut(role_of(title, kinds(body)), title, heading, body))
    if tail:
        found.append(Cut(Role.NOTES, "", (), tuple(tail)))
    return found


def _is_lead(tokens: Sequence[Token], i: int) -> bool:
    """Whether the top-level token at `i` opens a fix of its own: a paragraph that starts in
    bold (`**Cache the value.** ...`) or a heading."""
    t = tokens[i]
    if t.level != 0:
        return False
    if t.type == "heading_open":
        return True
    if t.type != "paragraph_open" or i + 1 >= len(tokens):
        return False
    # markdown-it puts an empty text token before a leading delimiter: skip it.
    children = [c for c in tokens[i + 1].children or [] if c.type != "text" or c.content]
    return bool(children) and children[0].type == "strong_open"


def split_fixes(body: Sequence[Token]) -> tuple[tuple[Token, ...], tuple[Token, ...]]:
    """A fix section's body as its first fix (with any introduction) and the rest. The second
    fix starts at the first bold-led paragraph (or heading) after the first fix's code, else at
    the paragraph that introduces its code (one ending in a colon), else at its code."""
    fences = [
        i
        for i, t in enumerate(body)
        if t.type == "fence" and t.level == 0 and Kind.FIX in t.info.split()[1:2]
    ]
    if len(fences) < 2:
        return tuple(body), ()
    first, second = fences[0], fences[1]
    at = next((i for i in range(first + 1, second) if _is_lead(body, i)), None)
    if at is None:
        at = second
        close = second - 1
        if body[close].type == "paragraph_close" and close >= 2:
            text = body[close - 1].content.rstrip()
            if text.endswith(":"):
                at = close - 2
    return tuple(body[:at]), tuple(body[at:])


def split_first(body: Sequence[Token]) -> tuple[tuple[Token, ...], tuple[Token, ...]]:
    """A body as its first top-level element (a paragraph, a list...) and the rest."""
    for i in range(1, len(body)):
        opens = body[i].level == 0 and body[i].nesting >= 0
        # ... and the previous element closed (or was one token)
        if opens and body[i - 1].level == 0 and body[i - 1].nesting <= 0:
            return tuple(body[:i]), tuple(body[i:])
    return tuple(body), ()


@dataclass(frozen=True, slots=True)
class Reading:
    """A block's sections in the reader's order, by where the page shows them."""

    answer: tuple[Cut, ...]  # first: the short why and the first fix, or what to do
    why_more: tuple[Cut, ...]  # the rest of the why, after the answer
    example: tuple[Cut, ...]  # the example that breaks
    more_fixes: tuple[Cut, ...]  # the other fixes, under a heading of the page's
    rest: tuple[Cut, ...]  # everything else, in the order written (footnotes last)
    tried: tuple[Cut, ...]  # for maintainers, collapsed

    @property
    def cuts(self) -> tuple[Cut, ...]:
        """Every section, in the reader's order."""
        return self.answer + self.why_more + self.example + self.more_fixes + self.rest + self.tried


def reading(cuts: Sequence[Cut]) -> Reading:
    """The sections in the reader's order. With a fix: the lead, the why and the first fix;
    the example; the other fixes; the rest. Without one: the lead, what to do, the why; the
    example, if any; the rest."""
    by: dict[Role, list[Cut]] = {}
    for c in cuts:
        by.setdefault(c.role, []).append(c)
    more: list[Cut] = []
    fixes: list[Cut] = []
    taken = next(iter(by.get(Role.FIX, [])), None)  # the first fix section; others stay
    if taken is not None:
        first, others = split_fixes(taken.body)
        fixes.append(Cut(Role.FIX, taken.title, taken.heading, first))
        if others:
            more.append(Cut(Role.MORE_FIXES, "", (), others))
    lead, why = by.get(Role.LEAD, []), by.get(Role.WHY, [])
    advice = by.get(Role.ADVICE, [])
    why_more: list[Cut] = []
    if fixes and why:
        # The answer is short: the why's first paragraph, then the fix; the rest of the why
        # follows the fix, under a heading of the page's.
        first, later = split_first(why[0].body)
        if later:
            why_more.append(Cut(Role.WHY_MORE, "", (), later))
        why_more += why[1:]
        why = [Cut(Role.WHY, why[0].title, why[0].heading, first)]
    if fixes:
        answer = [*lead, *why, *fixes]
        placed = {Role.LEAD, Role.WHY, Role.EXAMPLE, Role.TRIED}
    else:
        answer = [*lead, *advice, *why]
        placed = {Role.LEAD, Role.WHY, Role.ADVICE, Role.EXAMPLE, Role.TRIED}
    rest = [c for c in cuts if c.role not in placed and c is not taken and c.role != Role.NOTES]
    return Reading(
        answer=tuple(answer),
        why_more=tuple(why_more),
        example=tuple(by.get(Role.EXAMPLE, [])),
        more_fixes=tuple(more),
        rest=(*rest, *by.get(Role.NOTES, [])),
        tried=tuple(by.get(Role.TRIED, [])),
    )
