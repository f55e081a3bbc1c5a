# aims: GB0178
import torch

STEPS = 0


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return x * (10 // STEPS)


fn(torch.randn(2))
