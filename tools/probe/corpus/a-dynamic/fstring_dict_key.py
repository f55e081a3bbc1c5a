# aims: GB0021
# An int argument becomes a symbolic int on the second call; an f-string then formats it.
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x, step):
    return {f"step{step}": x.sum()}


for step in range(1, 4):
    fn(torch.randn(3), step)
