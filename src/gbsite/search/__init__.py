"""Finding a graph break from an id, words or a pasted log: for `gbsite lookup` and the site.

rules.py   the patterns, weights, scores, stop words and limits, shared with the browser
model.py   what is searched (SearchEntry, SearchText) and found (Match)
index.py   the search index the build writes (assets/search-index.js), and reading it back
logs.py    parsing a pasted log and matching its graph breaks to registry texts
match.py   registry texts against a log's text, linearly, and the pre-filter of entries
legacy.py  messages of torch 2.0-2.7 (before the registry), mapped to ids, from a data file
words.py   ranking entries by the words of a query
engine.py  `lookup`: an id, a log or words, each to its way of searching
command.py the `gbsite lookup` command

The browser runs the same steps in templates/assets/search-engine.js (a table in its header
names the Python function each of its functions follows); search.js there is the search box.
"""
