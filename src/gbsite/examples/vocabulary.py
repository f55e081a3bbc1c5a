"""The words a page's examples are judged in: the state of a page for a release (State), and
what a block did with one release (Did, Outcome)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from gbsite.registry.model import GB_ID


class State(StrEnum):
    """A page's state for one release (coverage): derived from its runs, or declared by its
    status block (environment, internal, unraised). A str: JSON, templates and f-strings show
    its value."""

    VERIFIED = "verified"  # a gb-repro and a gb-fix ran as they promise with this release
    # The gb-repro broke with an older release of the examples and compiles without a break
    # with this one: upgrading removes the break for code like it.
    FIXED = "fixed"
    PENDING = "pending"  # blocks written, some not run with this release yet (CI records them)
    # Reachable only with a CUDA device, several processes, another package or a newer Python:
    # the blocks carry `needs=` and are shown, not run.
    ENVIRONMENT = "environment"
    INTERNAL = "internal"  # no user program reaches it; the page cites the torch file and function
    UNRAISED = "unraised"  # the registry keeps it, but nothing in torch raises it any more
    NONE = "none"  # nothing yet


DECLARED = (State.ENVIRONMENT, State.INTERNAL, State.UNRAISED)  # what a status block may say
LATER = (State.INTERNAL, State.UNRAISED)  # what a status block with `since:` may declare


class Did(StrEnum):
    """What a block did with one release's torch: the word of its outcome (Outcome)."""

    # A gb-repro broke (or, with fullgraph=false, logged a break) with its page's id, or with
    # the ids of Outcome.other instead.
    BREAKS = "breaks"
    NO_BREAK = "no-break"  # a gb-repro compiled and ran to the end: this torch does not break
    RUNS = "runs"  # a gb-fix ran to the end without a graph break, calling the compiled code twice+
    ONCE = "once"  # ran without a graph break but called the compiled code only once (a fix, or
    # a repro that no longer breaks: neither says anything yet)
    RECOMPILES = "recompiles"  # a gb-fix recompiled more than once, and its fence does not say so
    # Broke as promised (a repro) or ran without a break (a fix), but fails without
    # torch.compile as well.
    EAGER_FAILS = "eager-fails"
    # A gb-fix ran without a graph break, but a call returned, or the program left a gradient,
    # other than the same program computes without torch.compile.
    DIFFERS = "differs"
    WRONG = "wrong"  # a gb-wrong ran to the end: torch.compile still computes the wrong value
    CORRECT = "correct"  # a gb-wrong's final assertion failed: this torch computes the value right
    ERROR = "error"  # raised something else, printed output, or never called the compiled code


# Each word as a page, `gbsite show` and CI's summary say it.
_SAID = {
    Did.BREAKS: "breaks",
    Did.NO_BREAK: "no break",
    Did.RUNS: "runs",
    Did.ONCE: "called once",
    Did.RECOMPILES: "recompiles unannounced",
    Did.EAGER_FAILS: "fails without torch.compile too",
    Did.DIFFERS: "differs from eager",
    Did.WRONG: "gives a wrong value",
    Did.CORRECT: "computes it right",
    Did.ERROR: "fails",
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a block did with one release's torch, as the record keeps it. `other`: the graph
    breaks a repro broke with instead of its page's (sorted, each once; only with BREAKS). Its
    text (str(), parse()) exists only in files: the record, CI's outcomes files, JSON output."""

    did: Did
    other: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # What parse() refuses cannot be built either: every Outcome has one text, and back.
        if self.other and (
            self.did != Did.BREAKS
            or list(self.other) != sorted(set(self.other))
            or not all(GB_ID.fullmatch(i) for i in self.other)
        ):
            raise ValueError(f"not an outcome: {self.did} with {self.other}")

    def __str__(self) -> str:
        """As the record writes it: `breaks`, `no-break`, `breaks GB0059 GB0102`."""
        return " ".join((self.did, *self.other))

    @classmethod
    def parse(cls, text: str) -> Outcome | None:
        """The outcome str() wrote as `text`; None for any other text."""
        word, *ids = text.split(" ")
        if word not in _WORDS:
            return None
        if not ids:
            return _WORDS[word]
        try:
            return cls(Did(word), tuple(ids))
        except ValueError:  # ids with another word, unsorted, repeated or not ids
            return None

    def describe(self) -> str:
        """As a page says it: `no break`, `breaks with GB0059, GB0102`."""
        if self.other:
            return "breaks with " + ", ".join(self.other)
        return _SAID[self.did]


_WORDS = {str(did): Outcome(did) for did in Did}
