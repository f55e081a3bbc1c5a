"""docs/gb/: the generated files, their contributor blocks, and those blocks as HTML."""
