# aims: GB0179
import copy

import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    cfg = copy.deepcopy({"scale": 2, "bias": [1, 2]})
    return x * cfg["scale"]


fn(torch.randn(2))
