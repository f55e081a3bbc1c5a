# aims: GB0178
import math

import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return x * math.sqrt(-1.0)


fn(torch.randn(2))
