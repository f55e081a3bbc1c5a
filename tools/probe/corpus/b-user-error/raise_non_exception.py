# aims: GB0028
import torch


class NotAnError:
    pass


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    try:
        raise NotAnError()
    except NotAnError:
        return x - 1


fn(torch.randn(2))
