"""Facts derived from registry texts: categories, whole hints, upstream content defects.

Nothing here is stored; it is recomputed from `registry/` so it can never go stale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gbsite.registry.model import Category, Entry, Text


class Classifier:
    """Maps canned hint texts (from registry/categories.yaml) to categories."""

    def __init__(self, categories: list[Category]) -> None:
        self.categories = categories
        self._by_text = {t.strip(): c for c in categories for t in c.texts}

    def is_canned(self, hint: str) -> bool:
        return hint.strip() in self._by_text

    def categories_of(self, text: Text) -> list[Category]:
        """Categories in the order of categories.yaml, each once."""
        found = {self._by_text[h.strip()].key for h in text.hints if h.strip() in self._by_text}
        return [c for c in self.categories if c.key in found]

    def join_hints(self, hints: tuple[str, ...]) -> list[str]:
        """Rejoin hints that PyTorch split into fragments by a misplaced comma.

        In the source, `["Call a generator ... and ", "compile that function instead."]` was one
        sentence. A fragment continues the previous one when the previous ends in white space
        without finishing a sentence (the author left the separating space or newline), or when
        it starts in lower case or with white space. Canned hints always stand alone.
        """
        out: list[str] = []
        for hint in hints:
            previous = out[-1] if out else ""
            unfinished = previous[-1:].isspace() and not previous.rstrip().endswith((".", "!", "?"))
            if (
                out
                and not self.is_canned(hint)
                and not self.is_canned(previous)
                and (unfinished or hint[:1].islower() or hint[:1].isspace())
            ):
                out[-1] += hint
            else:
                out.append(hint)
        return [h.strip() for h in out]


# An explanation that is a bare name or call (`msg`, `str(e)`) is text computed at run time
# that the registry could not record; a leaked `"..." + f"..."` is a source-code expression.
_BARE_EXPRESSION = re.compile(r"[A-Za-z_][\w.]*(\(.*\))?")
_LEAKED_SOURCE = re.compile(r"""["']\s*\+\s*(f?["']|\w)|["']\s{2,}f?["']""")


@dataclass(frozen=True, slots=True)
class Defect:
    key: str
    label: str
    description: str


DEFECTS = {
    d.key: d
    for d in (
        Defect(
            "split-hints",
            "Hints split into fragments",
            "One sentence was stored as several hints; pages show it rejoined.",
        ),
        Defect("no-hints", "No hints", "The entry gives no advice on how to fix the break."),
        Defect("empty-explanation", "Empty explanation", "The explanation is empty."),
        Defect(
            "runtime-explanation",
            "Explanation only known at run time",
            "The registry holds a variable name instead of prose; the log shows the real text.",
        ),
        Defect(
            "leaked-source",
            "Source code in the text",
            "A Python string expression leaked into the registry text.",
        ),
        Defect("empty-context", "Empty context", "The developer context is empty."),
    )
}


def defects_of(entry: Entry, classifier: Classifier) -> list[Defect]:
    text = entry.current
    found: list[str] = []
    if len(classifier.join_hints(text.hints)) < len(text.hints):
        found.append("split-hints")
    if not text.hints:
        found.append("no-hints")
    explanation = text.explanation.strip()
    if not explanation:
        found.append("empty-explanation")
    elif is_runtime_text(explanation):
        found.append("runtime-explanation")
    if any(is_source_text(s) for s in (text.gb_type, text.explanation)):
        found.append("leaked-source")
    if not text.context.strip():
        found.append("empty-context")
    return [DEFECTS[k] for k in found]


def is_runtime_text(value: str) -> bool:
    """True for registry text that is only a placeholder expression, e.g. `str(e)` or `msg`."""
    value = value.strip()
    return bool(_BARE_EXPRESSION.fullmatch(value)) and " " not in value.split("(")[0]


def is_source_text(value: str) -> bool:
    """True for registry text that is Python source building a string: `"a " + f"b {x}"`."""
    return bool(_LEAKED_SOURCE.search(value))
