# aims: GB0178
# Builtins over constants that raise: int("x"), 1 // 0, math.sqrt(-1), chr(-1).
import math

import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return x + int("not a number")


fn(torch.randn(2))
