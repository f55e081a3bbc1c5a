# aims: GB0281
# A specialized ModuleList indexed with an int that became dynamic, and with a slice of one.
import torch


class Layers(torch.nn.ModuleList):
    torchdynamo_force_dynamic = False


class Net(torch.nn.Module):
    torchdynamo_force_dynamic = False

    def __init__(self):
        super().__init__()
        self.layers = Layers([torch.nn.Linear(2, 2) for _ in range(5)])

    def forward(self, x, i):
        return self.layers[i](x)


net = torch.compile(Net(), backend="eager", fullgraph=True)
for i in (1, 2, 3):
    net(torch.randn(2), i)
