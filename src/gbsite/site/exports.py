"""The site's files for tools: each entry's JSON, the whole registry as JSON, the sitemap."""

from __future__ import annotations

import json
from typing import Any

from gbsite import urls
from gbsite.config import Config
from gbsite.registry.model import Registry, Text
from gbsite.registry.views import EntryView
from gbsite.site.content import EntryPage, SiteModel


def _text_json(text: Text) -> dict[str, Any]:
    return {
        "gb_type": text.gb_type,
        "context": text.context,
        "explanation": text.explanation,
        "hints": list(text.hints),
    }


def _entry_record(view: EntryView, has_info: bool) -> dict[str, Any]:
    e = view.entry
    return {
        "id": e.id,
        "url": urls.entry(e.id),
        "status": view.status,
        "added": e.added,
        "removed": e.removed,
        "changed_in": view.changed_in,
        "categories": [c.key for c in view.categories],
        "has_additional_information": has_info,
        "current": {**_text_json(e.current), "hints_joined": list(view.current.hints)},
        "history": [{**_text_json(r.text), "current_since": r.current_since} for r in e.history],
        "replaced": [
            {**_text_json(r.text), "current_since": r.current_since, "last_seen": r.last_seen}
            for r in e.replaced
        ],
    }


def entry_json(page: EntryPage, site: SiteModel) -> str:
    """One entry for tools (gb/gbXXXX.json, linked from its page): what registry.json says of
    it, and its state for the release the examples run against."""
    release = site.dashboard.coverage.release
    data = {
        **_entry_record(page.view, site.has_info.get(page.view.id, False)),
        "url": urls.Links(urls.entry_json(page.view.id)).near(urls.entry(page.view.id)),
        # Fields of the current text that are a Python name, with what torch's source gives it.
        "resolved": [
            {
                "field": r.field,
                "name": r.name,
                "text": r.text,
                "torch": r.torch,
                "source": f"{r.file}:{r.line}",
            }
            for r in page.view.resolved
        ],
        "state": {
            "release": release,
            "state": page.coverage.status if page.in_release else None,
            "last_release": page.last_release,
            # Its state with each release of the examples (None: that registry lacks the id).
            "by_release": {r.release: r.state for r in page.by_release},
            # What each example did with each torch release of the examples.
            "examples": [
                {
                    "kind": b.kind,
                    "needs": b.needs or None,
                    "outcomes": {r: str(o) for r, o in b.outcomes},
                }
                for b in page.coverage.blocks
            ],
        },
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def registry_json(registry: Registry, site: SiteModel) -> str:
    """The whole registry with lifecycle and categories, for tools (registry.json)."""
    entries = {
        view.id: _entry_record(view, site.has_info.get(view.id, False)) for view in site.views
    }
    data = {
        "sources": [
            {"label": s.label, "sha256": s.sha256, "entries": s.entries, "items": s.items}
            for s in registry.sources
        ],
        "categories": [
            {"key": c.key, "constant": c.constant, "label": c.label, "summary": c.summary}
            for c in registry.categories
        ],
        "entries": entries,
    }
    # Compact on purpose: with `indent`, json falls back to its pure-Python encoder (~10x slower).
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def sitemap(cfg: Config, site: SiteModel) -> str:
    paths = ["", urls.DASHBOARD, urls.RELEASES]
    paths += [page.path for page in site.releases]
    paths += [page.path for page in site.entries]
    locs = "".join(f"  <url><loc>{urls.absolute(cfg, p)}</loc></url>\n" for p in paths)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{locs}</urlset>\n"
    )
