"""`gbsite build`: the site's pages from the registry, the docs and the templates."""
