# aims: GB4197
# Tensor.share_memory_() on an input and on an intermediate.
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    x.share_memory_()
    return x + 1


fn(torch.randn(2))
