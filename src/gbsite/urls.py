"""Every address gbsite makes, in one place: where each output file lives in the site, the
links between pages, and the absolute URLs of the site and of the repository on GitHub.

Pages link to each other relatively, so that the site works from any host, any path prefix
and `file://`: a page reaches every other through its way up to the site root (`Links.to`),
or a file in its own folder by name (`Links.near`). Templates get a `Links` for their page
and ask it; nothing else joins paths or URLs.
"""

from __future__ import annotations

import posixpath
import re

from gbsite.lean_typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gbsite.config import Config

ASSETS = "assets"
INDEX = "index.html"
DASHBOARD = "dashboard.html"
RELEASES_FOLDER = "releases/"
RELEASES = f"{RELEASES_FOLDER}index.html"
NOT_FOUND = "404.html"
STYLESHEET = f"{ASSETS}/style.css"
SEARCH_INDEX = f"{ASSETS}/search-index.js"
REGISTRY_JSON = "registry.json"
SITEMAP = "sitemap.xml"
NOJEKYLL = ".nojekyll"  # GitHub Pages: serve the files as they are
WRITING_GUIDE = "CONTRIBUTING.md#writing-a-page"  # in the repository: how to write a page


def slug(gb_id: str) -> str:
    """`GB0025` -> `gb0025`: the name of the id's files, as PyTorch prints its links."""
    return gb_id.lower()


def entry(gb_id: str) -> str:
    return f"gb/{slug(gb_id)}.html"


def entry_json(gb_id: str) -> str:
    return f"gb/{slug(gb_id)}.json"


def release_slug(label: str) -> str:
    return re.sub(r"[^0-9A-Za-z._-]", "-", label)


def release(label: str) -> str:
    return f"{RELEASES_FOLDER}{release_slug(label)}.html"


def asset(name: str) -> str:
    return f"{ASSETS}/{name}"


def absolute(cfg: Config, path: str = "") -> str:
    """The published URL of a path of the site (canonical links, sitemap, `gbsite lookup`)."""
    return cfg.site_url + path


def github_edit(cfg: Config, rel: str) -> str:
    """GitHub's editor for a file of the repository (`docs/gb/gb0025.md`)."""
    return f"https://github.com/{cfg.repository}/edit/{cfg.branch}/{rel}"


def github_source(cfg: Config, rel: str) -> str:
    return f"https://github.com/{cfg.repository}/blob/{cfg.branch}/{rel}"


def torch_source(release: str, path: str, line: int | None = None) -> str:
    """A file of PyTorch's repository (`torch/_dynamo/...py`) at a release's tag, at a line."""
    at = f"#L{line}" if line else ""
    return f"https://github.com/pytorch/pytorch/blob/v{release}/{path}{at}"


def github_repository(cfg: Config) -> str:
    return f"https://github.com/{cfg.repository}"


class Links:
    """Links from the page at `page` (a path of the site, such as `gb/gb0025.html`)."""

    def __init__(self, page: str) -> None:
        self.page = page
        self.root = "../" * page.count("/")  # from this page up to the site root

    def to(self, path: str) -> str:
        """Any file of the site, by its path from the root."""
        return self.root + path

    def near(self, path: str) -> str:
        """A file in this page's own folder, by name."""
        folder, name = posixpath.split(path)
        if folder != posixpath.dirname(self.page):
            raise ValueError(f"{path} is not beside {self.page}")
        return name

    def entry(self, gb_id: str) -> str:
        return self.to(entry(gb_id))

    def release(self, label: str) -> str:
        return self.to(release(label))

    def asset(self, name: str) -> str:
        return self.to(asset(name))

    @property
    def index(self) -> str:
        return self.to(INDEX)

    @property
    def dashboard(self) -> str:
        return self.to(DASHBOARD)

    @property
    def releases(self) -> str:
        return self.to(RELEASES)
