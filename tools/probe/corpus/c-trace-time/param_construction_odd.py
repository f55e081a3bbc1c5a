# aims: GB0229
# nn.Parameter built inside the compiled function from odd data: a view, a graph input, a
# tensor subclass, a non-leaf.
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    p = torch.nn.Parameter(x[0])
    return p * 2


fn(torch.randn(2, 2))
