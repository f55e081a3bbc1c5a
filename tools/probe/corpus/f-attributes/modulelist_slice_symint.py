# aims: GB0281
import torch


class Layers(torch.nn.ModuleList):
    torchdynamo_force_dynamic = False


class Net(torch.nn.Module):
    torchdynamo_force_dynamic = False

    def __init__(self):
        super().__init__()
        self.layers = Layers([torch.nn.Linear(2, 2) for _ in range(5)])

    def forward(self, x):
        for layer in self.layers[: x.shape[0]]:
            x = layer(x)
        return x


net = torch.compile(Net(), backend="eager", fullgraph=True, dynamic=True)
net(torch.randn(2, 2))
