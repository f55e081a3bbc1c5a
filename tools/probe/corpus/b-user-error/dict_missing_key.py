# aims: GB0196
# A missing key in a dict made in the compiled function (KeyError in eager too).
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    d = {"a": x}
    return d["b"]


fn(torch.randn(2))
