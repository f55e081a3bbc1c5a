# aims: GB0020
# Two strings formatted with the same keyword from a symbolic int, joined by an f-string.
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x, n):
    head = "{k}".format(k=n)
    tail = "/{k}".format(k=n)
    return x + 1, f"{head}{tail}"


for n in (2, 3):
    fn(torch.randn(2), n)
