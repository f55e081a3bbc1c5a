"""Unit tests of gbsite's pure modules, one file per module, mirroring src/gbsite/: no project
folder, no build, no subprocess. They are part of the fast lane (docs/development.md)."""
