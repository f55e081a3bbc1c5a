"""Files and folders written safely: atomic writes, locks, whole-folder swaps."""
