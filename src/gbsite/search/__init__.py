"""Finding a graph break from an id, words or a pasted log: for `gbsite lookup` and the site."""
