# aims: GB0199
import types

import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return x + 1, types.MappingProxyType({"a": 1})


fn(torch.randn(2))
