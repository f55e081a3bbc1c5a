"""The annotated examples of docs/gb/: running them against torch, the record, coverage."""
