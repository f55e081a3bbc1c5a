# aims: GB0174
# typing.cast with the wrong number of arguments (TypeError in eager too).
import typing

import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return typing.cast(x)


fn(torch.randn(2))
