# aims: GB0200 GB4749
# Set literals and set displays of tensors, unhashables, sym ints.
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x, y):
    s = {x, y}
    return len(s)


fn(torch.randn(2), torch.randn(2))
