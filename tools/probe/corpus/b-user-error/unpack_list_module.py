# aims: GB0061
import torch

lin = torch.nn.Linear(2, 2)


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return [*lin, x]


fn(torch.randn(2))
