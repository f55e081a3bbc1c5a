# aims: GB0111
import torch


class Net(torch.nn.Module):
    def forward(self, x, y):
        return x + y


net = Net()


@torch.compile(backend="eager", fullgraph=True)
def fn(x):
    return net(x)


fn(torch.randn(2))
