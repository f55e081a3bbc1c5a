"""gbsite: the documentation site for PyTorch's graph-break registry."""

from __future__ import annotations


def version() -> str:
    """The installed version. Looked up on demand: importlib.metadata costs ~30 ms at start-up."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("gbsite")
    except PackageNotFoundError:  # running from a source tree without installing
        return "0+unknown"
