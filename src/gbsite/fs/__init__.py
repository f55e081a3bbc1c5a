"""Files and folders, written and read safely: atomic writes, input checks, locks,
whole-folder swaps."""
