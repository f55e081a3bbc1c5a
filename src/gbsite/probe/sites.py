"""Where a torch release raises each graph-break type, for the probe: registry/sites.py reads
them from a release's source (a folder here: the probe's torch environments)."""

from __future__ import annotations

from pathlib import Path

from gbsite.registry.sites import Site, sites_of
from gbsite.registry.torchtree import FolderTree

__all__ = ["Site", "raise_sites", "sites_of"]


def raise_sites(package: Path) -> dict[str, list[Site]]:
    """Every graph-break type the torch package at `package` (.../site-packages/torch) names in
    a call's `gb_type=`, with where."""
    from gbsite.registry import sites

    return sites.raise_sites(FolderTree(package))
