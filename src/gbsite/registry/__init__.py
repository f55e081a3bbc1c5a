"""The registry: PyTorch's snapshots imported into registry/, and what is derived from its texts."""
