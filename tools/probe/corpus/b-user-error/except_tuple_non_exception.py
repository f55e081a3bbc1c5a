# aims: GB0028
import torch


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    try:
        x.undefined_attribute
    except (AttributeError, "oops"):
        return x - 1
    return x


fn(torch.randn(2))
