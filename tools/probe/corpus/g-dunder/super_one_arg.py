# aims: GB0280
# super() with one argument (an unbound super object), then attribute access on it.
import torch


class Base(torch.nn.Module):
    def scale(self):
        return 2


class Net(Base):
    def forward(self, x):
        s = super(Net)
        return x * s.__get__(self).scale()


torch.compile(Net(), backend="eager", fullgraph=True)(torch.randn(2))
