"""gbsite: the documentation site for PyTorch's graph-break registry."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("gbsite")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0+unknown"
