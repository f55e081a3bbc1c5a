"""The words a page's examples are judged in: the state of a page for a release."""

from __future__ import annotations

from enum import StrEnum


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
