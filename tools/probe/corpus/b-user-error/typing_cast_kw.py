# aims: GB0174
import typing

import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return typing.cast(typ=torch.Tensor, val=x)


fn(torch.randn(2))
