# aims: GB0182
# Comparing tensors whose shapes do not broadcast (RuntimeError in eager too).
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x, y):
    return x < y


fn(torch.randn(3), torch.randn(4))
