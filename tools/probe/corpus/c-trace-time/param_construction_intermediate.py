# aims: GB0229
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    p = torch.nn.Parameter(x.sin(), requires_grad=False)
    q = torch.nn.Parameter(torch.ones(2) * 3)
    return p * q


fn(torch.randn(2))
