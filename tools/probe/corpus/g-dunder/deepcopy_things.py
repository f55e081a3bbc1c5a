# aims: GB0179
# copy.deepcopy of a tensor, a list of tensors, a module, a dict inside the compiled code.
import copy

import torch

lin = torch.nn.Linear(2, 2)


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    y = copy.deepcopy(x)
    return y + 1


fn(torch.randn(2))
