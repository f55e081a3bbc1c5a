# aims: GB0280
import torch


class Base:
    factor = 2


class Child(Base):
    pass


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    s = super(Child)
    return x * s.__thisclass__.factor, s.__self_class__


fn(torch.randn(2))
