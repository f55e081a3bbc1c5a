# aims: GB0196
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(batch):
    return batch["labels"] * 2


fn({"inputs": torch.randn(2)})
